//! Messages for the user at the bottom of the window: what happened and what to do. Information fades
//! after a while; warnings and errors stay until dismissed.

use std::time::{Duration, Instant};

use super::theme;
use partlens_tasks::NoticeLevel;

/// How long an information message stays.
const INFO_LIFETIME: Duration = Duration::from_secs(10);

/// The most messages kept.
const MAX_NOTICES: usize = 4;

#[derive(Debug)]
struct Notice {
    level: NoticeLevel,
    message: String,
    shown_at: Instant,
}

/// The messages on screen.
#[derive(Debug, Default)]
pub struct Notices {
    items: Vec<Notice>,
}

impl Notices {
    /// Adds a message (an identical one already shown is not repeated).
    pub fn push(&mut self, level: NoticeLevel, message: String) {
        self.items.retain(|notice| notice.message != message);
        self.items.push(Notice {
            level,
            message,
            shown_at: Instant::now(),
        });
        if self.items.len() > MAX_NOTICES {
            self.items.remove(0);
        }
    }

    /// True when there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The messages in order, for tests and logs.
    pub fn messages(&self) -> Vec<&str> {
        self.items
            .iter()
            .map(|notice| notice.message.as_str())
            .collect()
    }

    /// Draws the messages, newest last.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.items.retain(|notice| {
            notice.level != NoticeLevel::Info || notice.shown_at.elapsed() < INFO_LIFETIME
        });
        if self
            .items
            .iter()
            .any(|notice| notice.level == NoticeLevel::Info)
        {
            ui.ctx().request_repaint_after(Duration::from_secs(1));
        }
        let mut dismissed = None;
        for (index, notice) in self.items.iter().enumerate() {
            ui.horizontal(|ui| {
                let color = match notice.level {
                    NoticeLevel::Info => ui.visuals().text_color(),
                    NoticeLevel::Warning => theme::warning_color(ui),
                    NoticeLevel::Error => theme::error_color(ui),
                };
                if ui
                    .small_button("Dismiss")
                    .accessible_name(format!("Dismiss: {}", notice.message))
                    .clicked()
                {
                    dismissed = Some(index);
                }
                ui.add(egui::Label::new(egui::RichText::new(&notice.message).color(color)).wrap());
            });
        }
        if let Some(index) = dismissed {
            self.items.remove(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_messages_are_shown_once_and_the_list_is_bounded() {
        let mut notices = Notices::default();
        notices.push(NoticeLevel::Warning, "a".into());
        notices.push(NoticeLevel::Warning, "a".into());
        assert_eq!(notices.messages(), vec!["a"]);
        for text in ["b", "c", "d", "e"] {
            notices.push(NoticeLevel::Error, text.into());
        }
        assert_eq!(notices.messages(), vec!["b", "c", "d", "e"]);
    }
}
