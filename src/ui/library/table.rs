//! The Library as a table: thumbnail, name, kind, folder, size, upload time, indexing state, the
//! key attributes and "More like this", one row a file; a click on a row opens it. Only the rows
//! on screen are laid out; a row whose page has not come in yet says so.

use egui::{Align, Layout, Sense, Vec2};
use egui_extras::TableBuilder;

use super::{LibraryView, widen};
use crate::ui::app_command::CommandQueue;
use crate::ui::columns::{ColumnLayout, TableColumn};
use crate::ui::jobs::size_text;
use crate::ui::results::{
    ResultsIntent, TABLE_ROW_HEIGHT, more_like_this_button_ui, opens_detail, thumbnail_ui,
};
use crate::ui::texture_cache::TextureCache;

/// The table's columns: thumbnail, name (taking the width left), kind, folder, size, upload time
/// and state, one a key attribute, the actions; when the window is narrow the attributes go first,
/// then the folder, the size and the thumbnail, never the name, the state or the actions.
fn library_columns(attributes: &[String]) -> Vec<TableColumn> {
    let mut columns = vec![
        TableColumn::fixed("Image", TABLE_ROW_HEIGHT + 8.0).with_priority(3),
        TableColumn::remainder("Name", 140.0),
        TableColumn::resizable("Kind", 80.0, 50.0, 1),
        TableColumn::resizable("Folder", 160.0, 60.0, 4),
        TableColumn::resizable("Size", 70.0, 50.0, 2),
        TableColumn::resizable("Uploaded", 150.0, 90.0, 0),
    ];
    for (index, name) in attributes.iter().enumerate() {
        columns.push(TableColumn::resizable(name, 110.0, 50.0, 5 + index as u32));
    }
    columns.push(TableColumn::fixed("Actions", 120.0));
    columns
}

/// Index of the first attribute column in [`library_columns`].
const FIRST_ATTRIBUTE_COLUMN: usize = 6;

impl LibraryView {
    /// The table; returns the rows of the listing on screen.
    pub(super) fn table_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<ResultsIntent>,
    ) -> std::ops::Range<usize> {
        let total = self.pages.total().unwrap_or(0);
        let columns = library_columns(&self.key_attributes);
        let layout = ColumnLayout::fit(ui, &columns);
        self.cursor_keys(ui, 1, intents);
        layout.left_out_ui(ui);
        let attributes: Vec<&String> = self
            .key_attributes
            .iter()
            .enumerate()
            .filter(|(index, _)| layout.shows(FIRST_ATTRIBUTE_COLUMN + index))
            .map(|(_, name)| name)
            .collect();
        let shows = |index: usize| layout.shows(index);
        let cursor = self.cursor.index;
        let pages = &self.pages;
        let mut shown = None;
        let mut table = TableBuilder::new(ui)
            .striped(true)
            .resizable(true)
            .sense(Sense::click())
            .cell_layout(Layout::left_to_right(Align::Center))
            .min_scrolled_height(0.0);
        if let Some(index) = self.scroll_to.take() {
            table = table.scroll_to_row(index, Some(Align::TOP));
        }
        layout
            .apply(table, &columns, "library table")
            .header(24.0, |mut header| {
                for (index, title) in ["Image", "Name", "Kind", "Folder", "Size", "Uploaded"]
                    .into_iter()
                    .enumerate()
                {
                    if shows(index) {
                        header.col(|ui| {
                            ui.strong(title);
                        });
                    }
                }
                for name in &attributes {
                    header.col(|ui| {
                        ui.strong(name.as_str());
                    });
                }
                header.col(|ui| {
                    ui.strong("Actions");
                });
            })
            .body(|body| {
                body.rows(TABLE_ROW_HEIGHT, total, |mut table_row| {
                    let index = table_row.index();
                    widen(&mut shown, index..index + 1);
                    table_row.set_selected(cursor == Some(index));
                    let Some(file) = pages.row(index) else {
                        if shows(0) {
                            table_row.col(|_| {});
                        }
                        table_row.col(|ui| {
                            ui.weak("loading…");
                        });
                        return;
                    };
                    let row = &file.row;
                    if shows(0) {
                        table_row.col(|ui| {
                            let (rect, _) = ui.allocate_exact_size(
                                Vec2::splat(TABLE_ROW_HEIGHT - 4.0),
                                Sense::hover(),
                            );
                            thumbnail_ui(ui, rect, row, textures, commands);
                        });
                    }
                    // Not selectable: a click on the text opens the row like the rest.
                    let cell = |ui: &mut egui::Ui, text: &str| {
                        ui.add(egui::Label::new(text).truncate().selectable(false));
                    };
                    table_row.col(|ui| {
                        crate::ui::elide::file_name_cell(ui, &row.name);
                    });
                    if shows(2) {
                        table_row.col(|ui| cell(ui, file.kind_text()));
                    }
                    if shows(3) {
                        table_row.col(|ui| {
                            crate::ui::elide::file_name_cell(ui, &file.folder);
                        });
                    }
                    if shows(4) {
                        table_row.col(|ui| cell(ui, &size_text(file.size)));
                    }
                    table_row.col(|ui| {
                        let state = file.state_text();
                        if state.is_empty() {
                            cell(ui, &file.uploaded_text());
                        } else {
                            cell(ui, &format!("{} · {state}", file.uploaded_text()));
                        }
                    });
                    for name in &attributes {
                        table_row.col(|ui| cell(ui, &row.attribute_text(name)));
                    }
                    table_row.col(|ui| more_like_this_button_ui(ui, row, intents));
                    opens_detail(&table_row.response(), row, intents);
                });
            });
        shown.unwrap_or_default()
    }
}
