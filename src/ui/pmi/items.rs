//! The items list beside the page: one row per PMI item (its type's colour, type and text), a filter
//! field, the selected item highlighted and scrolled to.

use egui::{Sense, Vec2};

use super::canvas::{type_color, type_name};
use partlens_api::PmiItem;

/// The indices of the items whose text or type name holds every word of `filter` (any case).
pub fn filtered_items(items: &[PmiItem], filter: &str) -> Vec<usize> {
    let words: Vec<String> = filter.split_whitespace().map(str::to_lowercase).collect();
    items
        .iter()
        .enumerate()
        .filter(|(_, item)| {
            let haystack = format!("{} {}", type_name(item.type_id), item.text).to_lowercase();
            words.iter().all(|word| haystack.contains(word))
        })
        .map(|(index, _)| index)
        .collect()
}

/// The item after (`step` 1) or before (`step` -1) `selected` among the `shown` ones, for the arrow
/// keys: from nothing selected, the first (or last); at either end, it stays.
pub fn step_selection(shown: &[usize], selected: Option<usize>, step: isize) -> Option<usize> {
    if shown.is_empty() {
        return selected;
    }
    let position = selected.and_then(|index| shown.iter().position(|&shown| shown == index));
    let next = match (position, step >= 0) {
        (None, true) => 0,
        (None, false) => shown.len() - 1,
        (Some(position), true) => (position + 1).min(shown.len() - 1),
        (Some(position), false) => position.saturating_sub(1),
    };
    Some(shown[next])
}

/// The label of an item's row (and its accessible name).
pub fn item_row_label(item: &PmiItem) -> String {
    let text = if item.text.trim().is_empty() {
        "(no text)"
    } else {
        item.text.trim()
    };
    format!("{}: {text}", type_name(item.type_id))
}

/// Draws the filter and the list; returns the item whose row was clicked.
pub fn items_list_ui(
    ui: &mut egui::Ui,
    items: &[PmiItem],
    filter: &mut String,
    selected: Option<usize>,
    scroll_to_selected: bool,
    height: f32,
) -> Option<usize> {
    let mut clicked = None;
    ui.horizontal(|ui| {
        let label = ui.label("Filter items");
        ui.add(
            egui::TextEdit::singleline(filter)
                .hint_text("text or type")
                .desired_width(f32::INFINITY),
        )
        .labelled_by(label.id);
    });
    let shown = filtered_items(items, filter);
    ui.weak(format!("{} of {} items", shown.len(), items.len()));
    egui::ScrollArea::vertical()
        .id_salt("pmi items")
        .max_height(height)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Long texts (notes) are cut to the list's width; the free text and the box show all of it.
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            if shown.is_empty() {
                ui.weak("No item matches the filter.");
            }
            for index in shown {
                let item = &items[index];
                ui.horizontal(|ui| {
                    let (swatch, _) = ui.allocate_exact_size(Vec2::splat(10.0), Sense::hover());
                    ui.painter()
                        .rect_filled(swatch, 2.0, type_color(item.type_id));
                    let is_selected = selected == Some(index);
                    let label = item_row_label(item);
                    let row = ui.selectable_label(is_selected, label);
                    if is_selected && scroll_to_selected {
                        row.scroll_to_me(Some(egui::Align::Center));
                    }
                    if row.clicked() {
                        clicked = Some(index);
                    }
                });
            }
        });
    clicked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(type_id: i64, text: &str) -> PmiItem {
        PmiItem {
            box_in_page: [0, 0, 10, 10],
            type_id,
            text: text.into(),
        }
    }

    #[test]
    fn the_filter_matches_text_and_type_in_any_case() {
        let items = [
            item(2, "Ø40 H7"),
            item(1, "BREAK ALL EDGES"),
            item(2, "120 ±0.1"),
            item(3, "MATERIAL: S235"),
        ];
        assert_eq!(filtered_items(&items, ""), [0, 1, 2, 3]);
        assert_eq!(filtered_items(&items, "dimension"), [0, 2]);
        assert_eq!(filtered_items(&items, "ø40"), [0]);
        assert_eq!(filtered_items(&items, "edges note"), [1]);
        assert!(filtered_items(&items, "bolt").is_empty());
        assert_eq!(item_row_label(&items[0]), "Dimension: Ø40 H7");
        assert_eq!(item_row_label(&item(7, " ")), "Type 7: (no text)");
    }

    #[test]
    fn arrow_keys_step_through_the_shown_items() {
        let shown = [1, 4, 6];
        assert_eq!(step_selection(&shown, None, 1), Some(1));
        assert_eq!(step_selection(&shown, None, -1), Some(6));
        assert_eq!(step_selection(&shown, Some(1), 1), Some(4));
        assert_eq!(step_selection(&shown, Some(6), 1), Some(6));
        assert_eq!(step_selection(&shown, Some(4), -1), Some(1));
        assert_eq!(step_selection(&shown, Some(1), -1), Some(1));
        // A selected item hidden by the filter: start from the ends again.
        assert_eq!(step_selection(&shown, Some(5), 1), Some(1));
        assert_eq!(step_selection(&[], Some(5), 1), Some(5));
    }
}
