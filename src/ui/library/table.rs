//! The Library as a table: thumbnail, name, kind, folder, size, upload time, indexing state, the
//! key attributes and "More like this", one row a file; a click on a row opens it. Only the rows
//! on screen are laid out; a row whose page has not come in yet says so.

use egui::{Align, Layout, Sense, Vec2};
use egui_extras::{Column, TableBuilder};

use super::{LibraryView, widen};
use crate::ui::app_command::CommandQueue;
use crate::ui::jobs::size_text;
use crate::ui::results::{
    ResultsIntent, TABLE_ROW_HEIGHT, more_like_this_button_ui, opens_detail, thumbnail_ui,
};
use crate::ui::texture_cache::TextureCache;

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
        let columns = self.key_attributes.clone();
        let pages = &self.pages;
        let mut shown = None;
        let scroll_to = self.scroll_to.take();
        egui::ScrollArea::horizontal()
            .id_salt("library table scroll")
            .show(ui, |ui| {
                let mut table = TableBuilder::new(ui)
                    .id_salt("library table")
                    .striped(true)
                    .resizable(true)
                    .sense(Sense::click())
                    .cell_layout(Layout::left_to_right(Align::Center))
                    .column(Column::exact(TABLE_ROW_HEIGHT + 8.0))
                    .column(Column::initial(220.0).at_least(80.0).clip(true))
                    .column(Column::initial(80.0).at_least(50.0))
                    .column(Column::initial(160.0).at_least(60.0).clip(true))
                    .column(Column::initial(70.0).at_least(50.0))
                    .column(Column::initial(130.0).at_least(80.0))
                    .columns(
                        Column::initial(110.0).at_least(50.0).clip(true),
                        columns.len(),
                    )
                    .column(Column::exact(120.0))
                    .min_scrolled_height(0.0);
                if let Some(index) = scroll_to {
                    table = table.scroll_to_row(index, Some(Align::TOP));
                }
                table
                    .header(24.0, |mut header| {
                        for title in ["Image", "Name", "Kind", "Folder", "Size", "Uploaded"] {
                            header.col(|ui| {
                                ui.strong(title);
                            });
                        }
                        for name in &columns {
                            header.col(|ui| {
                                ui.strong(name);
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
                            let Some(file) = pages.row(index) else {
                                table_row.col(|_| {});
                                table_row.col(|ui| {
                                    ui.weak("loading…");
                                });
                                return;
                            };
                            let row = &file.row;
                            table_row.col(|ui| {
                                let (rect, _) = ui.allocate_exact_size(
                                    Vec2::splat(TABLE_ROW_HEIGHT - 4.0),
                                    Sense::hover(),
                                );
                                thumbnail_ui(ui, rect, row, textures, commands);
                            });
                            // Not selectable: a click on the text opens the row like the rest.
                            let cell = |ui: &mut egui::Ui, text: &str| {
                                ui.add(egui::Label::new(text).truncate().selectable(false));
                            };
                            table_row.col(|ui| {
                                crate::ui::elide::file_name_cell(ui, &row.name);
                            });
                            table_row.col(|ui| cell(ui, file.kind_text()));
                            table_row.col(|ui| cell(ui, &file.folder));
                            table_row.col(|ui| cell(ui, &size_text(file.size)));
                            table_row.col(|ui| {
                                let state = file.state_text();
                                if state.is_empty() {
                                    cell(ui, &file.uploaded_text());
                                } else {
                                    cell(ui, &format!("{} · {state}", file.uploaded_text()));
                                }
                            });
                            for name in &columns {
                                table_row.col(|ui| cell(ui, &row.attribute_text(name)));
                            }
                            table_row.col(|ui| more_like_this_button_ui(ui, row, intents));
                            opens_detail(&table_row.response(), row, intents);
                        });
                    });
            });
        shown.unwrap_or_default()
    }
}
