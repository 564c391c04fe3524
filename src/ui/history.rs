//! The search history page of the Search place: saved searches, then the recent ones, each with its
//! views as thumbnails (with their input UIDs), its text and filters, what it found and when it ran.
//! *Run again* puts it back into the query bar and searches by the kept UIDs (uploading a view again
//! only when the service no longer has it); *Save…* names it (kept until removed), *Rename…*,
//! *Unsave*, *Remove*, and *Clear recent…* for every search without a name.
//!
//! The list comes from the task layer (`Event::HistoryChanged`) and every change goes back to it as a
//! `Command`; names are checked here with the store's own rule so a refusal shows beside the field.
//! Only the thumbnails on screen are asked for.

use egui::{Rect, Vec2};

use super::app_command::CommandQueue;
use super::search_bar::views::{ViewSlot, ViewSource, ViewState, slot_thumbnail_ui};
use super::texture_cache::TextureCache;
use partlens_tasks::Command;
use partlens_tasks::history::{
    HistoryEntry, HistoryLimits, HistoryView, NameRefused, SearchHistory, check_name,
};

/// Size of a view's thumbnail in the list.
const THUMBNAIL: Vec2 = Vec2::new(72.0, 54.0);

/// The accessible label of the history's search field.
pub const FIND_LABEL: &str = "Find in history";

/// What the user asked the history page for that its place carries out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryIntent {
    /// Put this search back into the query bar and run it.
    Run(u64),
    /// Back to the query bar and results.
    Back,
}

/// A name being typed for a search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Naming {
    id: u64,
    name: String,
    refusal: Option<String>,
    /// The field takes the keyboard focus when it first shows.
    focused: bool,
}

/// The history page's state.
#[derive(Debug, Default)]
pub struct HistoryPage {
    history: SearchHistory,
    find: String,
    naming: Option<Naming>,
    confirm_clear: bool,
}

impl HistoryPage {
    /// The history as the task layer last sent it.
    pub fn history(&self) -> &SearchHistory {
        &self.history
    }

    /// Takes a new history from the task layer.
    pub fn set_history(&mut self, history: SearchHistory) {
        if let Some(naming) = &self.naming
            && history.entry(naming.id).is_none()
        {
            self.naming = None;
        }
        self.history = history;
    }

    /// Draws the page.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Vec<HistoryIntent> {
        let mut intents = Vec::new();
        ui.horizontal(|ui| {
            if ui.button("Back to results").clicked()
                || ui.input(|input| input.key_pressed(egui::Key::Escape)) && self.naming.is_none()
            {
                intents.push(HistoryIntent::Back);
            }
            ui.heading("Search history");
            ui.add_space(12.0);
            let label = ui.label(FIND_LABEL);
            ui.add(
                egui::TextEdit::singleline(&mut self.find)
                    .hint_text("name, words, view or filter")
                    .desired_width(220.0),
            )
            .labelled_by(label.id);
            let recent = self.history.recent().count();
            if recent > 0 && ui.button("Clear recent…").clicked() {
                self.confirm_clear = true;
            }
        });
        ui.weak(format!(
            "The last {} searches are kept; a saved search stays until you remove it. Run again \
             searches by the views' kept UIDs and uploads a view again only when the service no \
             longer has it.",
            HistoryLimits::DEFAULT.recent
        ));
        if self.confirm_clear {
            ui.horizontal(|ui| {
                ui.label(format!(
                    "Remove the {} recent searches? Saved searches stay.",
                    self.history.recent().count()
                ));
                if ui.button("Remove them").clicked() {
                    commands.backend(Command::ClearHistory);
                    self.confirm_clear = false;
                }
                if ui.button("Keep them").clicked() {
                    self.confirm_clear = false;
                }
            });
        }
        ui.separator();
        if self.history.entries.is_empty() {
            ui.add_space(24.0);
            ui.vertical_centered(|ui| {
                ui.heading("No searches yet");
                ui.label(
                    "Every search you run is listed here with its views, text and filters. Save \
                     one under a name to keep it; run it again from here without uploading its \
                     views again.",
                );
                if ui.button("Back to the query bar").clicked() {
                    intents.push(HistoryIntent::Back);
                }
            });
            return intents;
        }
        let find = self.find.clone();
        let history = self.history.clone();
        let saved: Vec<&HistoryEntry> = history.saved().filter(|e| e.mentions(&find)).collect();
        let recent: Vec<&HistoryEntry> = history.recent().filter(|e| e.mentions(&find)).collect();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (heading, entries) in [("Saved searches", &saved), ("Recent searches", &recent)]
                {
                    if entries.is_empty() {
                        continue;
                    }
                    ui.add_space(6.0);
                    ui.strong(format!("{heading} ({})", entries.len()));
                    for entry in entries {
                        if let Some(intent) = self.entry_ui(ui, &history, entry, textures, commands)
                        {
                            intents.push(intent);
                        }
                    }
                }
                if saved.is_empty() && recent.is_empty() {
                    ui.label(format!(
                        "No search in the history mentions “{}”.",
                        find.trim()
                    ));
                }
            });
        intents
    }

    /// One search: what it was, its views, and what can be done with it.
    fn entry_ui(
        &mut self,
        ui: &mut egui::Ui,
        history: &SearchHistory,
        entry: &HistoryEntry,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) -> Option<HistoryIntent> {
        let mut intent = None;
        ui.push_id(("history entry", entry.id), |ui| {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal_wrapped(|ui| {
                    ui.strong(entry.title());
                    let found = match entry.total_results {
                        Some(1) => "1 result".to_owned(),
                        Some(count) => format!("{count} results"),
                        None => String::new(),
                    };
                    ui.label(found);
                    let when = entry
                        .last_run
                        .with_timezone(&chrono::Local)
                        .format("%Y-%m-%d %H:%M");
                    let runs = if entry.runs > 1 {
                        format!(" · ran {} times", entry.runs)
                    } else {
                        String::new()
                    };
                    ui.weak(format!("{} · {when}{runs}", entry.service));
                });
                let mut terms = Vec::new();
                if entry.is_saved() && !entry.text.is_empty() {
                    terms.push(format!("text “{}”", entry.text));
                }
                terms.extend(entry.filters.iter().map(|term| term.label()));
                if !terms.is_empty() {
                    ui.label(terms.join(" · "));
                }
                if !entry.views.is_empty() {
                    ui.horizontal_wrapped(|ui| {
                        for (index, view) in entry.views.iter().enumerate() {
                            history_view_ui(ui, history, index, view, textures, commands);
                        }
                    });
                }
                ui.horizontal(|ui| {
                    if ui
                        .button("Run again")
                        .on_hover_text("Put this search into the query bar and run it.")
                        .clicked()
                    {
                        intent = Some(HistoryIntent::Run(entry.id));
                    }
                    let naming_this = self
                        .naming
                        .as_ref()
                        .is_some_and(|naming| naming.id == entry.id);
                    if !naming_this {
                        let label = if entry.is_saved() {
                            "Rename…"
                        } else {
                            "Save…"
                        };
                        if ui.button(label).clicked() {
                            self.naming = Some(Naming {
                                id: entry.id,
                                name: entry.name.clone().unwrap_or_default(),
                                refusal: None,
                                focused: false,
                            });
                        }
                    }
                    if entry.is_saved()
                        && ui
                            .button("Unsave")
                            .on_hover_text("Keep it only among the recent searches.")
                            .clicked()
                    {
                        commands.backend(Command::NameSearch {
                            id: entry.id,
                            name: None,
                        });
                    }
                    if ui.button("Remove").clicked() {
                        commands.backend(Command::RemoveSearch(entry.id));
                    }
                });
                self.naming_ui(ui, history, entry.id, commands);
            });
        });
        intent
    }

    /// The name field of the search being named, with Save and Cancel.
    fn naming_ui(
        &mut self,
        ui: &mut egui::Ui,
        history: &SearchHistory,
        id: u64,
        commands: &mut CommandQueue,
    ) {
        let Some(naming) = self.naming.as_mut().filter(|naming| naming.id == id) else {
            return;
        };
        let mut save = false;
        let mut cancel = false;
        ui.horizontal(|ui| {
            let label = ui.label("Name");
            let response = ui
                .add(
                    egui::TextEdit::singleline(&mut naming.name)
                        .hint_text("washer sketch, supplier X brackets…")
                        .desired_width(260.0),
                )
                .labelled_by(label.id);
            if !naming.focused {
                response.request_focus();
                naming.focused = true;
            }
            if response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter)) {
                save = true;
            }
            if ui.input(|input| input.key_pressed(egui::Key::Escape)) {
                cancel = true;
            }
            save |= ui.button("Save").clicked();
            cancel |= ui.button("Cancel").clicked();
        });
        if let Some(refusal) = &naming.refusal {
            ui.colored_label(ui.visuals().warn_fg_color, refusal);
        }
        if save {
            match check_name(&history.entries, id, &naming.name, &HistoryLimits::DEFAULT) {
                Ok(name) => {
                    commands.backend(Command::NameSearch {
                        id,
                        name: Some(name),
                    });
                    self.naming = None;
                }
                Err(NameRefused::Refused(sentence)) => naming.refusal = Some(sentence),
                Err(NameRefused::Store(error)) => naming.refusal = Some(error.to_string()),
            }
        } else if cancel {
            self.naming = None;
        }
    }
}

/// One view of a kept search: its thumbnail, name and input UID (or why no copy is kept).
fn history_view_ui(
    ui: &mut egui::Ui,
    history: &SearchHistory,
    index: usize,
    view: &HistoryView,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
) {
    ui.push_id(("history view", index), |ui| {
        ui.vertical(|ui| {
            ui.set_width(THUMBNAIL.x);
            let (rect, response) = ui.allocate_exact_size(THUMBNAIL, egui::Sense::hover());
            if ui.is_rect_visible(rect) {
                thumbnail_ui(ui, rect, history, view, textures, commands);
            }
            let uid = view
                .input_uid
                .as_ref()
                .map_or("no input UID".to_owned(), |uid| format!("input {uid}"));
            let kept = match &view.not_kept {
                Some(reason) => format!("No copy kept: {reason}."),
                None => "A copy is kept to upload it again if the service loses it.".to_owned(),
            };
            response.on_hover_text(format!("View {}: {}\n{uid}\n{kept}", index + 1, view.name));
            ui.add(egui::Label::new(egui::RichText::new(&view.name).small()).truncate());
            let short_uid = view
                .input_uid
                .as_ref()
                .map(|uid| uid.as_str().chars().take(8).collect::<String>())
                .unwrap_or_else(|| "–".to_owned());
            ui.add(egui::Label::new(
                egui::RichText::new(short_uid).small().weak().monospace(),
            ));
        });
    });
}

/// The thumbnail of a kept view: its copy (or file) when it is a picture, else the picture the
/// service rendered of its input, else its extension.
fn thumbnail_ui(
    ui: &egui::Ui,
    rect: Rect,
    history: &SearchHistory,
    view: &HistoryView,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
) {
    let path = history
        .kept_path(view)
        .or_else(|| view.original_path.clone())
        .unwrap_or_else(|| view.name.clone().into());
    let slot = ViewSlot {
        id: 0,
        source: ViewSource::File(path),
        state: match &view.input_uid {
            Some(uid) => ViewState::Indexed(uid.clone()),
            None => ViewState::New,
        },
    };
    slot_thumbnail_ui(ui, rect, &slot, textures, commands);
}
