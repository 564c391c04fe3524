//! The preview under the Library sync card: what the folder holds against the sync record (new,
//! already synced, left the folder, not part files), where the files will be stored, and how the
//! attributes CSV maps onto them: a row a column with its role (file name, attribute with its
//! unit, unused) that the user changes with a radio button and a checkbox, and the first rows with
//! the attributes they give. A change of the mapping asks for the preview again.

use super::{LibrarySync, PreviewState};
use crate::ui::theme;
use partlens_tasks::sync::attribute_csv::ColumnRole;
use partlens_tasks::sync::{CsvMapping, CsvPreview, SyncPreview, SyncSetup};

/// "1 file", "3 files".
fn files_text(count: usize) -> String {
    if count == 1 {
        "1 file".to_owned()
    } else {
        format!("{count} files")
    }
}

impl LibrarySync {
    /// Draws the preview of the setup being edited.
    pub(super) fn preview_ui(&mut self, ui: &mut egui::Ui, setup: &mut SyncSetup) {
        match &self.preview {
            PreviewState::None => {}
            PreviewState::Loading(_) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Reading the folder and the CSV…");
                });
            }
            PreviewState::Failed { message, .. } => {
                ui.add(
                    egui::Label::new(egui::RichText::new(message).color(theme::error_color(ui)))
                        .wrap(),
                );
            }
            PreviewState::Ready { for_setup, preview } => {
                if for_setup != setup {
                    ui.colored_label(
                        theme::warning_color(ui),
                        "The setup changed since this preview: press Preview again.",
                    );
                }
                let preview = preview.clone();
                folder_summary_ui(ui, &preview, setup.delete_removed);
                if let Some(csv) = &preview.csv {
                    ui.add_space(8.0);
                    if self.mapping_ui(ui, csv, setup) {
                        self.preview_wanted = true;
                    }
                    ui.add_space(6.0);
                    sample_rows_ui(ui, csv);
                    csv_problems_ui(ui, csv);
                }
            }
        }
    }

    /// The columns of the CSV with their roles; true when the user changed the mapping.
    fn mapping_ui(&mut self, ui: &mut egui::Ui, csv: &CsvPreview, setup: &mut SyncSetup) -> bool {
        let name = csv
            .path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        ui.label(
            egui::RichText::new(format!(
                "{name}: {} rows; {} of the folder {} attributes, {} {} no row.",
                csv.rows,
                files_text(csv.matched_files),
                if csv.matched_files == 1 {
                    "gets"
                } else {
                    "get"
                },
                files_text(csv.files_without_row),
                if csv.files_without_row == 1 {
                    "has"
                } else {
                    "have"
                },
            ))
            .strong(),
        );
        let Some(mapping) = setup.attributes.as_mut() else {
            return false;
        };
        let mut changed = false;
        egui::Grid::new("library_sync_columns")
            .num_columns(4)
            .striped(true)
            .spacing([12.0, 4.0])
            .show(ui, |ui| {
                for heading in ["Column", "File name", "Attribute", ""] {
                    ui.label(egui::RichText::new(heading).weak());
                }
                ui.end_row();
                for column in &csv.columns {
                    ui.label(&column.header);
                    let is_file = column.role == ColumnRole::FileName;
                    if ui
                        .radio(is_file, "")
                        .accessible_name(format!("File name: {}", column.header))
                        .on_hover_text(
                            "This column names the files (a name, or a path in the folder).",
                        )
                        .clicked()
                        && !is_file
                    {
                        set_file_column(mapping, csv, &column.header);
                        changed = true;
                    }
                    let mut is_attribute = matches!(column.role, ColumnRole::Attribute { .. });
                    let usable = column.problem.is_none() && !is_file;
                    let checkbox = ui
                        .add_enabled(usable, egui::Checkbox::without_text(&mut is_attribute))
                        .accessible_name(format!("Attribute: {}", column.header));
                    if checkbox.changed() {
                        set_attribute_column(mapping, csv, &column.header, is_attribute);
                        changed = true;
                    }
                    match (&column.role, &column.problem) {
                        (ColumnRole::Attribute { name, unit }, _) => {
                            let text = match unit {
                                Some(unit) => format!("{name}, unit {unit}"),
                                None => name.clone(),
                            };
                            ui.label(egui::RichText::new(text).weak());
                        }
                        (_, Some(problem)) if !is_file => {
                            ui.label(
                                egui::RichText::new(problem)
                                    .small()
                                    .color(theme::warning_color(ui)),
                            );
                        }
                        _ => {
                            ui.label("");
                        }
                    }
                    ui.end_row();
                }
            });
        changed
    }
}

/// The headers of the attribute columns as the preview shows them.
fn attribute_headers(csv: &CsvPreview) -> Vec<String> {
    csv.columns
        .iter()
        .filter(|column| matches!(column.role, ColumnRole::Attribute { .. }))
        .map(|column| column.header.clone())
        .collect()
}

/// Makes `header` the file-name column (it stops being an attribute).
fn set_file_column(mapping: &mut CsvMapping, csv: &CsvPreview, header: &str) {
    let mut attributes = attribute_headers(csv);
    attributes.retain(|known| known != header);
    mapping.file_column = Some(header.to_owned());
    mapping.attribute_columns = Some(attributes);
}

/// Makes `header` an attribute column or takes it out.
fn set_attribute_column(mapping: &mut CsvMapping, csv: &CsvPreview, header: &str, on: bool) {
    let mut attributes = attribute_headers(csv);
    attributes.retain(|known| known != header);
    if on {
        attributes.push(header.to_owned());
        // In the CSV's order.
        attributes.sort_by_key(|known| {
            csv.columns
                .iter()
                .position(|column| &column.header == known)
        });
    }
    if mapping.file_column.is_none() {
        mapping.file_column = csv
            .columns
            .iter()
            .find(|column| column.role == ColumnRole::FileName)
            .map(|column| column.header.clone());
    }
    mapping.attribute_columns = Some(attributes);
}

/// New, known, removed and ignored files, and where they will be stored.
fn folder_summary_ui(ui: &mut egui::Ui, preview: &SyncPreview, delete_removed: bool) {
    let known = if preview.first_run {
        "nothing synced from it yet".to_owned()
    } else {
        format!(
            "{} synced before (sent again only if their content changed)",
            preview.known_files
        )
    };
    ui.label(
        egui::RichText::new(format!(
            "{} part files: {} new, {known}.",
            preview.files, preview.new_files
        ))
        .strong(),
    );
    if let Some(example) = &preview.example_stored_path {
        ui.label(egui::RichText::new(format!("Stored as {example}, …")).weak());
    }
    if preview.ignored > 0 {
        let what = if preview.ignored == 1 {
            "1 file that is not a part file stays out".to_owned()
        } else {
            format!("{} files that are not part files stay out", preview.ignored)
        };
        ui.label(
            egui::RichText::new(format!(
                "{what} (pictures, models and drawings are synced)."
            ))
            .weak(),
        );
    }
    if preview.removed_count > 0 {
        let fate = if delete_removed {
            "they will be deleted from the service"
        } else {
            "they will be reported and stay on the service"
        };
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!(
                    "{} left the folder since the last sync ({}{}); {fate}.",
                    files_text(preview.removed_count),
                    preview.removed.join(", "),
                    if preview.removed_count > preview.removed.len() {
                        ", …"
                    } else {
                        ""
                    }
                ))
                .color(theme::warning_color(ui)),
            )
            .wrap(),
        );
    }
}

/// The first rows of the CSV: the file they name, whether the folder has it, their attributes.
fn sample_rows_ui(ui: &mut egui::Ui, csv: &CsvPreview) {
    if csv.sample.is_empty() {
        return;
    }
    ui.label(egui::RichText::new("First rows").weak());
    egui::Grid::new("library_sync_sample_rows")
        .num_columns(2)
        .striped(true)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            for row in &csv.sample {
                match &row.found {
                    Some(found) => ui.label(found),
                    None => ui.colored_label(
                        theme::warning_color(ui),
                        format!("{} (not in the folder)", row.file),
                    ),
                };
                let attributes = if row.attributes.is_empty() {
                    "no attributes".to_owned()
                } else {
                    row.attributes.join("   ")
                };
                ui.label(egui::RichText::new(attributes).monospace());
                ui.end_row();
            }
        });
}

/// Rows that name no file, and the CSV's warnings.
fn csv_problems_ui(ui: &mut egui::Ui, csv: &CsvPreview) {
    if csv.unmatched_count > 0 {
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!(
                    "{} of the CSV {} no file of the folder: {}{}.",
                    if csv.unmatched_count == 1 {
                        "1 row".to_owned()
                    } else {
                        format!("{} rows", csv.unmatched_count)
                    },
                    if csv.unmatched_count == 1 {
                        "names"
                    } else {
                        "name"
                    },
                    csv.unmatched_rows.join(", "),
                    if csv.unmatched_count > csv.unmatched_rows.len() {
                        ", …"
                    } else {
                        ""
                    }
                ))
                .color(theme::warning_color(ui)),
            )
            .wrap(),
        );
    }
    for warning in &csv.warnings {
        ui.add(egui::Label::new(egui::RichText::new(warning).small().weak()).wrap());
    }
}
