//! The results as a virtualised grid of cards: thumbnail, name, score with its band, the key
//! attributes, "More like this", and a checkbox that ticks it for comparison. Only the rows of cards
//! on screen are laid out. A hovered card of a 3D model records its picture's rectangle, where the
//! Search place turns the model.

use egui::{Align, Layout, Rect, Sense, UiBuilder, Vec2};

use super::rows::ResultRow;
use super::{
    ResultsIntent, ResultsView, compare_checkbox_ui, more_like_this_button_ui, opens_detail,
    score_label_ui, thumbnail_ui,
};
use crate::ui::app_command::CommandQueue;
use crate::ui::texture_cache::TextureCache;
use partlens_api::FileUid;
use partlens_tasks::models::is_model_file_name;

/// Width of a card in the grid, in points.
pub const CARD_WIDTH: f32 = 196.0;

/// Height of a card in the grid, in points.
pub const CARD_HEIGHT: f32 = 244.0;

/// Height of the thumbnail area of a card.
const CARD_THUMBNAIL_HEIGHT: f32 = 128.0;

/// How many attributes a card shows.
pub const CARD_ATTRIBUTES: usize = 2;

impl ResultsView {
    /// The grid: rows of cards as wide as fit, only the rows on screen laid out.
    pub(super) fn grid_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
        intents: &mut Vec<ResultsIntent>,
    ) {
        let spacing = ui.spacing().item_spacing;
        let columns = (((ui.available_width() + spacing.x) / (CARD_WIDTH + spacing.x)).floor()
            as usize)
            .max(1);
        let row_count = self.rows.len().div_ceil(columns);
        self.cursor_keys(ui, columns, intents);
        let mut scroll = egui::ScrollArea::vertical()
            .id_salt("results grid")
            .auto_shrink(false);
        if self.cursor.reveal
            && let Some(index) = self.cursor.index
            && let Some(offset) = reveal_offset(
                index / columns,
                &self.visible_grid_rows,
                CARD_HEIGHT + spacing.y,
            )
        {
            scroll = scroll.vertical_scroll_offset(offset);
        }
        let cursor = self.cursor.index;
        let Self {
            rows,
            order,
            key_attributes,
            selected,
            hovered_model,
            visible_grid_rows,
            ..
        } = self;
        scroll.show_rows(ui, CARD_HEIGHT, row_count, |ui, visible_rows| {
            *visible_grid_rows = visible_rows.clone();
            for grid_row in visible_rows {
                ui.horizontal(|ui| {
                    let first = grid_row * columns;
                    let last = (first + columns).min(order.len());
                    for (position, &index) in order[first..last].iter().enumerate() {
                        let row = &rows[index];
                        let card = CardParts {
                            key_attributes,
                            selected: Some(&mut *selected),
                            hovered_model: &mut *hovered_model,
                            caption: None,
                            under_cursor: cursor == Some(first + position),
                        };
                        result_card_ui(ui, row, card, textures, commands, intents);
                    }
                });
            }
        });
    }
}

/// What a card reads and changes beside its row.
pub(crate) struct CardParts<'a> {
    /// The attributes the card shows.
    pub key_attributes: &'a [String],
    /// The results ticked for comparison; `None` shows no checkbox.
    pub selected: Option<&'a mut Vec<FileUid>>,
    /// Set to the card's row and picture while a model's card is hovered.
    pub hovered_model: &'a mut Option<(ResultRow, Rect)>,
    /// A line shown in place of the score (the Library's kind, size and date); `None` shows the
    /// score.
    pub caption: Option<String>,
    /// True for the card under the keyboard's cursor (framed).
    pub under_cursor: bool,
}

/// The scroll offset that brings row `row` (of rows `row_height` apart) on screen, when it is not
/// within the rows laid out in the last frame (`visible`, of which the last may be cut).
pub(crate) fn reveal_offset(
    row: usize,
    visible: &std::ops::Range<usize>,
    row_height: f32,
) -> Option<f32> {
    let shown = visible.end.saturating_sub(visible.start).max(1);
    if row < visible.start {
        Some(row as f32 * row_height)
    } else if row + 1 >= visible.end {
        // The row at the bottom, with the rows before it above.
        Some((row + 2).saturating_sub(shown) as f32 * row_height)
    } else {
        None
    }
}

/// One card of the grid: thumbnail, name, score with band, key attributes, "More like this", the
/// compare checkbox. A click anywhere else on the card opens the detail view.
pub(crate) fn result_card_ui(
    ui: &mut egui::Ui,
    row: &ResultRow,
    parts: CardParts<'_>,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
    intents: &mut Vec<ResultsIntent>,
) {
    // The card's own click area is registered first, so the button drawn on top of it gets its clicks.
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(CARD_WIDTH, CARD_HEIGHT), Sense::click());
    opens_detail(&response, row, intents);
    if !ui.is_rect_visible(rect) {
        return;
    }
    let visuals = ui.visuals();
    let (fill, stroke) = if response.hovered() {
        (visuals.faint_bg_color, visuals.widgets.hovered.bg_stroke)
    } else {
        (
            visuals.faint_bg_color,
            visuals.widgets.noninteractive.bg_stroke,
        )
    };
    ui.painter()
        .rect(rect, 6.0, fill, stroke, egui::StrokeKind::Inside);
    if parts.under_cursor {
        crate::ui::keyboard::paint_cursor(ui, rect);
    }

    let inner = rect.shrink(8.0);
    let mut card = ui.new_child(
        UiBuilder::new()
            .max_rect(inner)
            .layout(Layout::top_down(Align::Min)),
    );
    let (thumbnail_rect, _) = card.allocate_exact_size(
        Vec2::new(inner.width(), CARD_THUMBNAIL_HEIGHT),
        Sense::hover(),
    );
    thumbnail_ui(&card, thumbnail_rect, row, textures, commands);
    relations_badge_ui(&card, thumbnail_rect, row);
    if response.hovered() && is_model_file_name(&row.file_name) {
        *parts.hovered_model = Some((row.clone(), thumbnail_rect.intersect(card.clip_rect())));
    }
    crate::ui::elide::file_name_label(&mut card, &row.name, egui::TextStyle::Body, true);
    match &parts.caption {
        Some(caption) => {
            card.add(egui::Label::new(egui::RichText::new(caption).weak()).truncate());
        }
        None => score_label_ui(&mut card, row),
    }
    for name in parts.key_attributes {
        let value = row.attribute_text(name);
        let text = if value.is_empty() {
            format!("{name}: —")
        } else {
            format!("{name}: {value}")
        };
        card.add(egui::Label::new(egui::RichText::new(text).small()).truncate());
    }
    card.with_layout(Layout::bottom_up(Align::Min), |ui| {
        ui.horizontal(|ui| {
            more_like_this_button_ui(ui, row, intents);
            if let Some(selected) = parts.selected {
                ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                    compare_checkbox_ui(ui, row, selected);
                });
            }
        });
    });
}

/// "assembly of 3 parts" / "used in 2 assemblies" as a badge on the thumbnail's lower left, for
/// a file with relations (no line of the card is given up for it).
fn relations_badge_ui(ui: &egui::Ui, thumbnail: egui::Rect, row: &ResultRow) {
    let Some(label) = row.relations.label() else {
        return;
    };
    let painter = ui.painter_at(thumbnail);
    let font = egui::FontId::proportional(11.0);
    let text_color = ui.visuals().strong_text_color();
    let galley = painter.layout_no_wrap(label, font, text_color);
    let padding = Vec2::new(5.0, 2.0);
    let badge = egui::Rect::from_min_size(
        thumbnail.left_bottom() + Vec2::new(4.0, -(galley.size().y + 2.0 * padding.y + 4.0)),
        galley.size() + 2.0 * padding,
    );
    let fill = ui.visuals().window_fill.gamma_multiply(0.9);
    painter.rect(
        badge,
        4.0,
        fill,
        ui.visuals().widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Inside,
    );
    painter.galley(badge.min + padding, galley, text_color);
}

#[cfg(test)]
mod tests {
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::results::ResultsLayout;
    use crate::ui::results::tests::{harness, row, sample_harness, uid};
    use partlens_tasks::Command;

    #[test]
    fn cards_show_score_band_and_key_attributes() {
        let harness = sample_harness(ResultsLayout::Grid);
        // Mixed kind (a search by text): the strictest thresholds' chances.
        harness.get_by_label_contains("% · identical");
        harness.get_by_label_contains("% · very similar");
        harness.get_by_label_contains("% · weak match");
        harness.get_by_label("material: aluminium");
        harness.get_by_label("weight(kg): 12.5");
        harness.get_by_label("3 results");
    }

    #[test]
    fn clicking_a_card_opens_it_and_more_like_this_searches_by_its_image() {
        let mut harness = sample_harness(ResultsLayout::Grid);
        harness.get_by_label("Open Cover").click();
        harness.run();
        let more = harness.get_all_by_label("More like this").next().unwrap();
        more.click();
        harness.run();
        let intents = &harness.state().intents;
        assert!(intents.contains(&ResultsIntent::OpenDetail(uid(3))));
        assert!(intents.contains(&ResultsIntent::MoreLikeThis {
            uid: uid(1),
            file_name: "Parts/Bracket B.png".into(),
        }));
    }

    #[test]
    fn only_visible_cards_ask_for_thumbnails() {
        let rows: Vec<ResultRow> = (1..=1000)
            .map(|rank| row(rank, &format!("part {rank}"), Some(0.5), &[]))
            .collect();
        let mut view = ResultsView::new();
        view.set_results(rows, Some(1000));
        let mut harness = harness(view);
        harness.run();
        let asked = harness
            .state()
            .count_commands(|command| matches!(command, Command::LoadImage(_)));
        assert!(asked > 0 && asked < 60, "{asked} thumbnails asked for");
        // Each is asked for once, however many frames run.
        harness.run_steps(3);
        let again = harness
            .state()
            .count_commands(|command| matches!(command, Command::LoadImage(_)));
        assert_eq!(asked, again);
    }
}
