//! The Search place until the search view (views, filters, results) lands: the search field that
//! Ctrl+F focuses, and what the user can do meanwhile.

use super::app_command::{AppCommand, CommandQueue};
use super::navigation::View;

/// The id of the search text field; Ctrl+F puts the focus there.
pub const SEARCH_FIELD_ID: &str = "search_text_field";

/// The Search place's state.
#[derive(Debug, Default)]
pub struct SearchHome {
    text: String,
}

impl SearchHome {
    /// Draws the place.
    pub fn ui(&mut self, ui: &mut egui::Ui, commands: &mut CommandQueue) {
        ui.heading("Search");
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            let label = ui.label("Search text");
            ui.add(
                egui::TextEdit::singleline(&mut self.text)
                    .id(egui::Id::unique(SEARCH_FIELD_ID))
                    .hint_text("part number, material, words in drawings")
                    .desired_width(360.0),
            )
            .labelled_by(label.id);
        });
        ui.add_space(12.0);
        egui::Frame::group(ui.style())
            .inner_margin(20.0)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.label(
                    "Search by pictures of a part: drop up to ten images or models on the window. \
                     Uploaded files are indexed in Jobs; company database files become searchable \
                     as soon as they are done.",
                );
                ui.add_space(6.0);
                if ui.button("Upload files…").clicked() {
                    commands.push(AppCommand::Navigate(View::Upload));
                }
            });
    }
}
