//! The results as a sortable table: the compare checkbox, rank, thumbnail, name, score, a column per
//! attribute and the actions; a click on a header sorts by it (again: the other way). Only the rows on screen are laid
//! out.

use egui::{Align, Layout, Rect, Sense, Vec2};
use egui_extras::TableBuilder;

use super::rows::{SortColumn, SortOrder};
use super::{
    ResultsIntent, ResultsView, compare_checkbox_ui, more_like_this_button_ui, opens_detail,
    score_label_ui, thumbnail_ui,
};
use crate::ui::app_command::CommandQueue;
use crate::ui::columns::{ColumnLayout, TableColumn};
use crate::ui::texture_cache::TextureCache;

/// Height of a table row (fits a small thumbnail).
pub const TABLE_ROW_HEIGHT: f32 = 36.0;

/// The table's columns: the compare tick, rank, thumbnail, name (taking the width left), score,
/// one a key attribute (left out first, the last first, when the window is narrow) and the
/// actions.
fn results_columns(attributes: &[String]) -> Vec<TableColumn> {
    let mut columns = vec![
        TableColumn::fixed("Compare", 24.0),
        TableColumn::fixed("#", 32.0).with_priority(1),
        TableColumn::fixed("Image", TABLE_ROW_HEIGHT + 8.0).with_priority(2),
        TableColumn::remainder("Name", 140.0),
        TableColumn::resizable("Same part", 150.0, 90.0, 0),
    ];
    for (index, name) in attributes.iter().enumerate() {
        columns.push(TableColumn::resizable(name, 120.0, 50.0, 3 + index as u32));
    }
    columns.push(TableColumn::fixed("Actions", 120.0));
    columns
}

/// Index of the first attribute column in [`results_columns`].
const FIRST_ATTRIBUTE_COLUMN: usize = 5;

impl ResultsView {
    /// The table: one row a result, a column per attribute that fits, sorted by a clicked header.
    pub(super) fn table_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<ResultsIntent>,
    ) {
        let columns = results_columns(&self.attribute_columns);
        let layout = ColumnLayout::fit(ui, &columns);
        self.cursor_keys(ui, 1, intents);
        layout.left_out_ui(ui);
        let attributes: Vec<&String> = self
            .attribute_columns
            .iter()
            .enumerate()
            .filter(|(index, _)| layout.shows(FIRST_ATTRIBUTE_COLUMN + index))
            .map(|(_, name)| name)
            .collect();
        let (show_rank, show_image) = (layout.shows(1), layout.shows(2));
        let cursor = self.cursor.index;
        let reveal = self.cursor.reveal;
        let mut clicked_column = None;
        let sort = self.sort.clone();
        let rows = &self.rows;
        let order = &self.order;
        let selected = &mut self.selected;
        let mut table = TableBuilder::new(ui)
            .striped(true)
            .resizable(true)
            .sense(Sense::click())
            .cell_layout(Layout::left_to_right(Align::Center))
            .min_scrolled_height(0.0);
        if reveal && let Some(index) = cursor {
            table = table.scroll_to_row(index, None);
        }
        layout
            .apply(table, &columns, "results table")
            .header(24.0, |mut header| {
                header.col(|ui| {
                    ui.label("").on_hover_text("Tick results to compare them");
                });
                if show_rank {
                    header.col(|ui| {
                        sort_header_ui(ui, "#", &SortColumn::Rank, &sort, &mut clicked_column);
                    });
                }
                if show_image {
                    header.col(|ui| {
                        ui.label("Image");
                    });
                }
                header.col(|ui| {
                    sort_header_ui(ui, "Name", &SortColumn::Name, &sort, &mut clicked_column);
                });
                header.col(|ui| {
                    let column = SortColumn::Score;
                    sort_header_ui(ui, "Same part", &column, &sort, &mut clicked_column);
                });
                for name in &attributes {
                    header.col(|ui| {
                        let column = SortColumn::Attribute((*name).clone());
                        sort_header_ui(ui, name, &column, &sort, &mut clicked_column);
                    });
                }
                header.col(|ui| {
                    ui.label("Actions");
                });
            })
            .body(|body| {
                body.rows(TABLE_ROW_HEIGHT, order.len(), |mut table_row| {
                    let row = &rows[order[table_row.index()]];
                    table_row.set_selected(cursor == Some(table_row.index()));
                    table_row.col(|ui| {
                        compare_checkbox_ui(ui, row, selected);
                    });
                    // The cells' text is not selectable, so that a click anywhere on the row but
                    // its checkbox and button opens the detail.
                    if show_rank {
                        table_row.col(|ui| {
                            ui.add(egui::Label::new(row.rank.to_string()).selectable(false));
                        });
                    }
                    if show_image {
                        table_row.col(|ui| {
                            let (rect, _) = ui.allocate_exact_size(
                                Vec2::splat(TABLE_ROW_HEIGHT - 4.0),
                                Sense::hover(),
                            );
                            thumbnail_ui(ui, rect, row, textures, commands);
                        });
                    }
                    table_row.col(|ui| {
                        crate::ui::elide::file_name_cell(ui, &row.name);
                    });
                    table_row.col(|ui| {
                        score_label_ui(ui, row);
                    });
                    for name in &attributes {
                        table_row.col(|ui| {
                            ui.add(
                                egui::Label::new(row.attribute_text(name))
                                    .truncate()
                                    .selectable(false),
                            );
                        });
                    }
                    table_row.col(|ui| {
                        more_like_this_button_ui(ui, row, intents);
                    });
                    opens_detail(&table_row.response(), row, intents);
                });
            });
        if let Some(column) = clicked_column {
            self.sort_by(column);
        }
    }
}

/// A header cell that sorts by its column when clicked; the sorted column gets a small triangle
/// pointing the way of the order (painted: the bundled font has no arrow glyphs).
fn sort_header_ui(
    ui: &mut egui::Ui,
    label: &str,
    column: &SortColumn,
    sort: &SortOrder,
    clicked: &mut Option<SortColumn>,
) {
    let response = ui
        .add(egui::Button::new(egui::RichText::new(label).strong()).frame(false))
        .on_hover_text(format!("Sort by {}", column.label()));
    if &sort.column == column {
        let (rect, _) = ui.allocate_exact_size(Vec2::splat(10.0), Sense::hover());
        direction_triangle(ui, rect, sort.descending);
    }
    if response.clicked() {
        *clicked = Some(column.clone());
    }
}

/// Paints a small triangle: pointing down for high-to-low, up for low-to-high.
fn direction_triangle(ui: &egui::Ui, rect: Rect, descending: bool) {
    let c = rect.center();
    let (w, h) = (4.0, 3.0);
    let points = if descending {
        vec![
            egui::pos2(c.x - w, c.y - h),
            egui::pos2(c.x + w, c.y - h),
            egui::pos2(c.x, c.y + h),
        ]
    } else {
        vec![
            egui::pos2(c.x - w, c.y + h),
            egui::pos2(c.x + w, c.y + h),
            egui::pos2(c.x, c.y - h),
        ]
    };
    ui.painter().add(egui::Shape::convex_polygon(
        points,
        ui.visuals().strong_text_color(),
        egui::Stroke::NONE,
    ));
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::results::ResultsLayout;
    use crate::ui::results::tests::Fixture;
    use crate::ui::results::tests::{sample_harness, uid};

    #[test]
    fn the_table_sorts_by_a_clicked_header() {
        let mut harness = sample_harness(ResultsLayout::Table);
        harness.get_by_label("Name").click();
        harness.run();
        let ranks = |harness: &Harness<'static, Fixture>| -> Vec<usize> {
            harness
                .state()
                .view
                .ordered_rows()
                .map(|row| row.rank)
                .collect()
        };
        assert_eq!(ranks(&harness), [2, 1, 3]);
        harness.get_by_label("Name").click();
        harness.run();
        assert_eq!(ranks(&harness), [3, 1, 2]);
        harness.get_by_label("weight(kg)").click();
        harness.run();
        assert_eq!(ranks(&harness), [2, 1, 3]);
        harness.get_by_label("Open Cover").click();
        harness.run();
        assert!(
            harness
                .state()
                .intents
                .contains(&ResultsIntent::OpenDetail(uid(3)))
        );
    }

    #[test]
    fn a_click_on_a_rows_name_rank_score_or_attribute_opens_its_detail() {
        let mut harness = sample_harness(ResultsLayout::Table);
        // Pointer clicks on the cells' text, not the row's accessible action.
        for (cell, expected) in [("Cover", 3), ("angle plate", 2), ("12.5", 1)] {
            harness.state_mut().intents.clear();
            harness.get_by_label(cell).click();
            harness.run();
            assert_eq!(
                harness.state().intents,
                [ResultsIntent::OpenDetail(uid(expected))],
                "a click on {cell}"
            );
        }
    }
}
