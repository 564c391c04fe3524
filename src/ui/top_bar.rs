//! The top bar: the app's name, navigation (Search, Library, Duplicates, Upload, Jobs,
//! Settings) and who is logged in where (service, user, company), as much of it as fits beside the
//! tabs: the user always, then the service, then the company; what is left out is said on hover.

use super::app_command::{AppCommand, CommandQueue};
use super::place::Place;
use partlens_tasks::SessionInfo;

/// What the top bar shows on its right side.
pub struct TopBarStatus<'a> {
    /// The service in use (its label).
    pub service: &'a str,
    /// The session, when logged in.
    pub session: Option<&'a SessionInfo>,
    /// Jobs still running.
    pub running_jobs: usize,
    /// What the connection is doing while it opens ("Adding the sample library (2 of 22)…"):
    /// shown instead of "Not logged in", which it is not yet.
    pub connecting: Option<&'a str>,
    /// What the logged-in local workspace is doing ("Adding the sample library (2 of 22)…"),
    /// shown beside who is logged in.
    pub activity: Option<&'a str>,
}

/// Draws the bar inside a top panel.
pub fn top_bar_ui(
    ui: &mut egui::Ui,
    current: Place,
    status: &TopBarStatus<'_>,
    commands: &mut CommandQueue,
) {
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new("partlens").heading().strong());
        ui.add_space(12.0);
        for place in Place::TOP_BAR {
            let response = ui
                .add(egui::Button::selectable(current == place, place.label()))
                .on_hover_text(match place {
                    Place::Search => "Find parts by views, text and attributes (Ctrl+F).",
                    Place::Library => "Every file of your company, newest first (Ctrl+L).",
                    Place::Duplicates => {
                        "Files of your company that are the same part (Ctrl+Shift+D)."
                    }
                    Place::Upload => "Upload files (Ctrl+O).",
                    Place::Jobs => "Uploads and their indexing.",
                    Place::Settings => "Service, polling, cache, theme and library sync.",
                });
            if response.clicked() {
                commands.push(AppCommand::Navigate(place));
            }
            if place == Place::Jobs && status.running_jobs > 0 {
                ui.label(
                    egui::RichText::new(format!("{} running", status.running_jobs))
                        .small()
                        .weak(),
                );
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if status.session.is_some()
                && let Some(activity) = status.activity
            {
                // A spinner only (the sentence is in the banner under the bar, and would push the
                // bar's tabs under this side): it says it to hover and to screen readers.
                let spinner = ui.add(egui::Spinner::new()).on_hover_text(activity);
                spinner.widget_info(|| {
                    egui::WidgetInfo::labeled(egui::Role::ProgressIndicator, true, activity)
                });
                ui.add_space(6.0);
            }
            if status.session.is_none() && status.connecting.is_some() {
                ui.spinner();
            }
            status_items_ui(ui, &status_items(status));
        });
    });
}

/// One part of the bar's right side: a pair ("Service: Local workspace") or a sentence alone
/// ("Not logged in").
struct StatusItem<'a> {
    /// "Service", "User", "Company"; `None` for a sentence.
    name: Option<&'static str>,
    /// The value (strong) or the sentence (weak).
    value: &'a str,
    /// 0 always stays; a larger number is left out first when the bar is narrow.
    priority: u32,
    /// More to say on hover (the service's address).
    hover: Option<&'a str>,
}

impl StatusItem<'_> {
    /// The item in words, for the hover text of the items shown when it is left out.
    fn text(&self) -> String {
        match self.name {
            Some(name) => format!("{name}: {}", self.value),
            None => self.value.to_owned(),
        }
    }
}

/// Space between a pair and the one before it.
const PAIR_GAP: f32 = 6.0;

/// The right side's items in the order they read: who is logged in where (the user always, the
/// service next, the company last), else the service and whether anyone is logged in.
fn status_items<'a>(status: &TopBarStatus<'a>) -> Vec<StatusItem<'a>> {
    let service = StatusItem {
        name: Some("Service"),
        value: status.service,
        priority: 1,
        hover: status.session.map(|session| session.address.as_str()),
    };
    let Some(session) = status.session else {
        let sentence = StatusItem {
            name: None,
            value: status.connecting.unwrap_or("Not logged in"),
            priority: 0,
            hover: None,
        };
        return vec![service, sentence];
    };
    let mut items = vec![
        service,
        StatusItem {
            name: Some("User"),
            value: &session.user,
            priority: 0,
            hover: None,
        },
    ];
    if let Some(company) = &session.company {
        items.push(StatusItem {
            name: Some("Company"),
            value: company,
            priority: 2,
            hover: None,
        });
    }
    items
}

/// Draws the items that fit the width left beside the tabs (right to left, so the last first); the
/// ones left out are said on hover of those shown. An item that must stay but does not fit shows
/// its value cut short, never drawn over the tabs.
fn status_items_ui(ui: &mut egui::Ui, items: &[StatusItem<'_>]) {
    let widths: Vec<(f32, u32)> = items
        .iter()
        .map(|item| (item_width(ui, item), item.priority))
        .collect();
    let shown = super::columns::fit_by_priority(&widths, ui.available_width(), 0.0);
    let left_out: Vec<String> = (0..items.len())
        .filter(|index| !shown.contains(index))
        .map(|index| items[index].text())
        .collect();
    for &index in shown.iter().rev() {
        let item = &items[index];
        let fits = widths[index].0 <= ui.available_width();
        let response = item_ui(ui, item, fits);
        let hover: Vec<String> = item
            .hover
            .map(str::to_owned)
            .into_iter()
            .chain((!fits).then(|| item.text()))
            .chain(left_out.iter().cloned())
            .collect();
        if !hover.is_empty() {
            response.on_hover_text(hover.join("\n"));
        }
    }
}

/// The width an item takes: its texts, the spacing between them and the gap before a pair.
fn item_width(ui: &egui::Ui, item: &StatusItem<'_>) -> f32 {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let spacing = ui.spacing().item_spacing.x;
    let text_width = |text: String| {
        ui.ctx().fonts_mut(|fonts| {
            fonts
                .layout_no_wrap(text, font.clone(), egui::Color32::PLACEHOLDER)
                .size()
                .x
        })
    };
    let value = text_width(item.value.to_owned()) + spacing;
    match item.name {
        Some(name) => value + text_width(format!("{name}:")) + spacing + PAIR_GAP + spacing,
        None => value,
    }
}

/// "Service: Local workspace" (drawn right to left, so the value goes first), or the sentence;
/// when it does not `fit`, only the value, cut short. Returns the value's response.
fn item_ui(ui: &mut egui::Ui, item: &StatusItem<'_>, fits: bool) -> egui::Response {
    let value = match item.name {
        Some(_) => egui::RichText::new(item.value).strong(),
        None => egui::RichText::new(item.value).weak(),
    };
    // The item's hover text says the whole of a value cut short (egui's own would say it twice).
    let response = ui.add(
        egui::Label::new(value)
            .truncate()
            .show_tooltip_when_elided(false),
    );
    if let (Some(name), true) = (item.name, fits) {
        ui.label(egui::RichText::new(format!("{name}:")).weak());
        ui.add_space(PAIR_GAP);
    }
    response
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;
    use partlens_tasks::ServiceChoice;

    use super::*;

    fn session() -> SessionInfo {
        SessionInfo {
            service: ServiceChoice::remote("http://parts.example.com:8080", "partlens"),
            address: "http://parts.example.com:8080".into(),
            user: "mechanical-design-office".into(),
            company: Some("Acme Gearbox Manufacturing".into()),
        }
    }

    /// The bar at `width` with a session, jobs running and the samples being added.
    fn bar(width: f32, session: SessionInfo) -> Harness<'static> {
        let mut harness = Harness::builder()
            .with_size(egui::vec2(width, 40.0))
            .build_ui(move |ui| {
                let status = TopBarStatus {
                    service: "parts.example.com:8080",
                    session: Some(&session),
                    running_jobs: 12,
                    connecting: None,
                    activity: Some("Adding the sample library (3 of 22)…"),
                };
                top_bar_ui(ui, Place::Jobs, &status, &mut CommandQueue::default());
            });
        // The spinner keeps asking for frames.
        harness.run_steps(3);
        harness
    }

    #[test]
    fn at_the_smallest_window_the_status_stays_beside_the_tabs_and_says_the_rest_on_hover() {
        let harness = bar(720.0, session());
        let tabs_end = harness.get_by_label("Settings").rect().right();
        let user = harness.get_by_label("mechanical-design-office");
        assert!(
            user.rect().left() >= tabs_end,
            "the user {:?} is drawn over the tabs (they end at {tabs_end})",
            user.rect()
        );
        // The service and the company do not fit: they are said on hover of what is shown.
        assert!(
            harness
                .query_by_label("Acme Gearbox Manufacturing")
                .is_none()
        );
        assert!(harness.query_by_label("parts.example.com:8080").is_none());
        user.hover();
        let mut harness = harness;
        harness.run_steps(4);
        assert!(
            harness
                .query_by_label_contains("Company: Acme Gearbox Manufacturing")
                .is_some()
        );
    }

    #[test]
    fn a_wide_window_shows_service_user_and_company() {
        let harness = bar(1920.0, session());
        for shown in [
            "Service:",
            "parts.example.com:8080",
            "User:",
            "mechanical-design-office",
            "Company:",
            "Acme Gearbox Manufacturing",
        ] {
            assert!(
                harness.query_by_label(shown).is_some(),
                "{shown} is missing"
            );
        }
    }
}
