//! The Settings card of library sync: the folder (typed or chosen), the target prefix, the
//! attributes CSV, whether files that left the folder are deleted, and the Preview and Run buttons.
//! The preview under it is drawn by [`super::preview`].

use std::path::PathBuf;

use super::{LibrarySync, PreviewState};
use crate::ui::app_command::{AppCommand, CommandQueue};
use crate::ui::place::Place;
use crate::ui::theme;
use partlens_tasks::Command;
use partlens_tasks::sync::{CsvMapping, SyncSetup};

/// The size of the text fields (a path is long).
const FIELD_SIZE: [f32; 2] = [380.0, 22.0];

/// A path as a text field edits it.
fn path_text(path: &std::path::Path) -> String {
    path.display().to_string()
}

impl LibrarySync {
    /// Draws the Settings card; changes go straight into `setup` (kept with the settings).
    pub fn settings_ui(
        &mut self,
        ui: &mut egui::Ui,
        setup: &mut SyncSetup,
        commands: &mut CommandQueue,
    ) {
        if !std::mem::replace(&mut self.shown, true) {
            // A setup kept from an earlier start is previewed as soon as it shows.
            self.preview_wanted = true;
        }
        theme::card_ui(ui, "Library sync (admins)", |ui| {
            ui.add(
                egui::Label::new(
                    egui::RichText::new(
                        "Keep a folder of part files in step with the company database: new and \
                         changed files go up (compared by their content), files that left the \
                         folder are reported. Preview how the attributes CSV maps onto the files \
                         before the first run.",
                    )
                    .weak(),
                )
                .wrap(),
            );
            ui.add_space(6.0);
            let mut submitted = false;
            egui::Grid::new("library_sync_grid")
                .num_columns(3)
                .spacing([8.0, 6.0])
                .show(ui, |ui| {
                    submitted |= self.folder_row_ui(ui, setup, commands);
                    ui.end_row();
                    submitted |= prefix_row_ui(ui, setup);
                    ui.end_row();
                    submitted |= self.csv_row_ui(ui, setup, commands);
                    ui.end_row();
                });
            self.csv_candidates_ui(ui, setup);
            if ui
                .checkbox(
                    &mut setup.delete_removed,
                    "Delete files that left the folder from the service",
                )
                .on_hover_text(
                    "Without this they are only reported. Deleting company files needs an admin.",
                )
                .changed()
            {
                self.preview_wanted = true;
            }
            ui.add_space(4.0);
            ui.horizontal(|ui| {
                let folder_given = !setup.folder.as_os_str().is_empty();
                let loading = matches!(self.preview, PreviewState::Loading(_));
                if ui
                    .add_enabled(folder_given && !loading, egui::Button::new("Preview"))
                    .on_hover_text("Read the folder and the CSV and show what a run would do (nothing is sent).")
                    .clicked()
                    || (submitted && folder_given)
                {
                    self.preview_wanted = true;
                }
                let ready = self.ready_to_run(setup);
                let run = ui
                    .add_enabled(ready, egui::Button::new("Run sync"))
                    .on_hover_text("Upload new and changed files now; progress shows in Jobs.")
                    .on_disabled_hover_text("Preview the setup first.");
                if run.clicked() {
                    commands.backend(Command::StartSync(setup.clone()));
                    commands.push(AppCommand::Navigate(Place::Jobs));
                }
                if !ready && folder_given && !loading {
                    ui.label(egui::RichText::new("Preview the setup to run it.").weak());
                }
            });
            ui.add_space(6.0);
            self.preview_ui(ui, setup);
        });
        if std::mem::take(&mut self.preview_wanted) && !setup.folder.as_os_str().is_empty() {
            self.preview = PreviewState::Loading(setup.clone());
            commands.backend(Command::PreviewSync(setup.clone()));
        }
    }

    /// The folder row; true when Enter was pressed in its field.
    fn folder_row_ui(
        &mut self,
        ui: &mut egui::Ui,
        setup: &mut SyncSetup,
        commands: &mut CommandQueue,
    ) -> bool {
        let label = ui.label("Folder");
        let mut text = path_text(&setup.folder);
        let response = ui
            .add_sized(
                FIELD_SIZE,
                egui::TextEdit::singleline(&mut text).hint_text("/path/to/the/parts"),
            )
            .labelled_by(label.id);
        if response.changed() {
            setup.folder = PathBuf::from(text.trim());
        }
        if ui
            .button("Choose folder…")
            .on_hover_text("Pick the folder with the file dialog.")
            .clicked()
        {
            commands.backend(Command::PickSyncFolder);
        }
        submitted(ui, &response)
    }

    /// The CSV row; true when Enter was pressed in its field.
    fn csv_row_ui(
        &mut self,
        ui: &mut egui::Ui,
        setup: &mut SyncSetup,
        commands: &mut CommandQueue,
    ) -> bool {
        let label = ui.label("Attributes CSV");
        let mut text = setup
            .attributes
            .as_ref()
            .map(|mapping| path_text(&mapping.csv))
            .unwrap_or_default();
        let response = ui
            .add_sized(
                FIELD_SIZE,
                egui::TextEdit::singleline(&mut text).hint_text("optional: a CSV beside the files"),
            )
            .labelled_by(label.id);
        if response.changed() {
            let text = text.trim();
            setup.attributes = (!text.is_empty()).then(|| CsvMapping {
                csv: PathBuf::from(text),
                ..CsvMapping::default()
            });
        }
        ui.horizontal(|ui| {
            if ui
                .button("Choose CSV…")
                .on_hover_text(
                    "One row a file: a column with the file name, the others become attributes \
                     (the unit in the header as weight(kg), several values as A|B).",
                )
                .clicked()
            {
                commands.backend(Command::PickSyncCsv);
            }
            if setup.attributes.is_some()
                && ui
                    .button("No CSV")
                    .on_hover_text("Sync without attributes.")
                    .clicked()
            {
                setup.attributes = None;
                self.preview_wanted = true;
            }
        });
        submitted(ui, &response)
    }

    /// Offers the CSV files the preview found at the top of the folder.
    fn csv_candidates_ui(&mut self, ui: &mut egui::Ui, setup: &mut SyncSetup) {
        if setup.attributes.is_some() {
            return;
        }
        let PreviewState::Ready { preview, .. } = &self.preview else {
            return;
        };
        let candidates = preview.csv_files.clone();
        if candidates.is_empty() {
            return;
        }
        ui.horizontal_wrapped(|ui| {
            ui.label("The folder holds a CSV:");
            for csv in candidates {
                let name = csv
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if ui
                    .button(format!("Use {name}"))
                    .on_hover_text("Take the attributes from this CSV.")
                    .clicked()
                {
                    setup.attributes = Some(CsvMapping {
                        csv,
                        ..CsvMapping::default()
                    });
                    self.preview_wanted = true;
                }
            }
        });
    }
}

/// The prefix row; true when Enter was pressed in its field.
fn prefix_row_ui(ui: &mut egui::Ui, setup: &mut SyncSetup) -> bool {
    let label = ui.label("Target prefix");
    let response = ui
        .add_sized(
            FIELD_SIZE,
            egui::TextEdit::singleline(&mut setup.prefix).hint_text("Library"),
        )
        .labelled_by(label.id)
        .on_hover_text("The folder of the company database the files go to.");
    let prefix = setup.prefix.trim().trim_matches('/');
    ui.label(
        egui::RichText::new(format!(
            "stored as {}/<path in the folder>",
            if prefix.is_empty() { "…" } else { prefix }
        ))
        .weak(),
    );
    submitted(ui, &response)
}

/// True when Enter was pressed in the field of `response`.
fn submitted(ui: &egui::Ui, response: &egui::Response) -> bool {
    response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter))
}
