//! The items list beside the page: one row per PMI item (its type's colour, type and text, and for
//! text read by OCR its confidence, with a mark on those to review), a filter field and a "for
//! review only" switch, the selected item highlighted and scrolled to.

use egui::{Sense, Vec2};

use super::marks::{
    REVIEW_COLOR, REVIEW_CONFIDENCE, confidence_note, needs_review, review_badge, type_color,
    type_name,
};
use partlens_api::PmiItem;

/// The indices of the items whose text, type name or review mark holds every word of `filter` (any
/// case); with `review_only`, only the items [`needs_review`] marks.
pub fn filtered_items(items: &[PmiItem], filter: &str, review_only: bool) -> Vec<usize> {
    let words: Vec<String> = filter.split_whitespace().map(str::to_lowercase).collect();
    items
        .iter()
        .enumerate()
        .filter(|(_, item)| !review_only || needs_review(item))
        .filter(|(_, item)| {
            let haystack = format!(
                "{} {} {}",
                type_name(item.type_id),
                item.text,
                confidence_note(item).unwrap_or_default()
            )
            .to_lowercase();
            words.iter().all(|word| haystack.contains(word))
        })
        .map(|(index, _)| index)
        .collect()
}

/// How many of the items [`needs_review`] marks.
pub fn review_count(items: &[PmiItem]) -> usize {
    items.iter().filter(|item| needs_review(item)).count()
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

/// The label of an item's row (and its accessible name): type and text, and for an item read by
/// OCR its [`confidence_note`] (the row of an item to review also has the review badge).
pub fn item_row_label(item: &PmiItem) -> String {
    let text = if item.text.trim().is_empty() {
        "(no text)"
    } else {
        item.text.trim()
    };
    let label = format!("{}: {text}", type_name(item.type_id));
    match confidence_note(item) {
        Some(note) => format!("{label} ({note})"),
        None => label,
    }
}

/// What the list is asked to show and how.
pub struct ListInput<'a> {
    /// The page's items.
    pub items: &'a [PmiItem],
    /// The selected item.
    pub selected: Option<usize>,
    /// Scroll the selected row into view this frame.
    pub scroll_to_selected: bool,
    /// Height of the list in points.
    pub height: f32,
}

/// Draws the filter, the "for review only" switch (when the page has items read by OCR) and the
/// list; returns the item whose row was clicked.
pub fn items_list_ui(
    ui: &mut egui::Ui,
    input: &ListInput<'_>,
    filter: &mut String,
    review_only: &mut bool,
) -> Option<usize> {
    let ListInput {
        items,
        selected,
        scroll_to_selected,
        height,
    } = *input;
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
    if items.iter().any(|item| item.confidence.is_some()) {
        let count = review_count(items);
        ui.checkbox(
            review_only,
            format!(
                "For review only ({count} under {} %)",
                REVIEW_CONFIDENCE as i64
            ),
        );
    } else {
        *review_only = false;
    }
    let shown = filtered_items(items, filter, *review_only);
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
                    if needs_review(item) {
                        let (badge, _) = ui.allocate_exact_size(Vec2::splat(12.0), Sense::hover());
                        review_badge(ui.painter(), badge.center());
                    }
                    let row = if needs_review(item) {
                        ui.selectable_label(
                            is_selected,
                            egui::RichText::new(label).color(REVIEW_COLOR),
                        )
                    } else {
                        ui.selectable_label(is_selected, label)
                    };
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
    use crate::ui::pmi::marks::dimension_summary;
    use partlens_api::PmiDimension;

    fn item(type_id: i64, text: &str) -> PmiItem {
        PmiItem {
            box_in_page: [0, 0, 10, 10],
            type_id,
            text: text.into(),
            confidence: None,
            dimension: None,
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
        assert_eq!(filtered_items(&items, "", false), [0, 1, 2, 3]);
        assert_eq!(filtered_items(&items, "dimension", false), [0, 2]);
        assert_eq!(filtered_items(&items, "ø40", false), [0]);
        assert_eq!(filtered_items(&items, "edges note", false), [1]);
        assert!(filtered_items(&items, "bolt", false).is_empty());
        // Vector items are never for review.
        assert!(filtered_items(&items, "", true).is_empty());
        assert_eq!(item_row_label(&items[0]), "Dimension: Ø40 H7");
        assert_eq!(item_row_label(&item(7, " ")), "Type 7: (no text)");
    }

    #[test]
    fn ocr_items_under_the_review_confidence_are_marked_and_filtered() {
        let ocr = |text: &str, confidence: f32| PmiItem {
            confidence: Some(confidence),
            ..item(2, text)
        };
        let items = [
            ocr("213.00", 91.0),
            ocr("l96.9l", 42.4),
            item(1, "NOTE"),
            ocr("R5", 59.9),
            ocr("12", 60.0),
        ];
        assert_eq!(filtered_items(&items, "", true), [1, 3]);
        assert_eq!(review_count(&items), 2);
        // "review" in the filter finds them too.
        assert_eq!(filtered_items(&items, "review", false), [1, 3]);
        assert_eq!(item_row_label(&items[0]), "Dimension: 213.00 (OCR 91 %)");
        assert_eq!(
            item_row_label(&items[1]),
            "Dimension: l96.9l (OCR 42 %, for review)"
        );
        assert_eq!(item_row_label(&items[2]), "Note: NOTE");
        assert!(!needs_review(&items[4]));
    }

    #[test]
    fn a_dimension_is_summarised_in_words() {
        use partlens_api::PmiTolerance;
        let tolerance = |kind: &str, upper: f64, lower: f64| PmiTolerance {
            kind: kind.into(),
            upper,
            lower,
        };
        let mut bore = PmiDimension {
            kind: "diameter".into(),
            value: 60.0,
            tolerance: Some(tolerance("symmetric", 0.015, -0.015)),
            fit: Some("H7".into()),
            reference: false,
        };
        assert_eq!(dimension_summary(&bore), "diameter 60 ±0.015 H7");
        bore.tolerance = Some(tolerance("deviations", 0.1, -0.05));
        bore.fit = None;
        assert_eq!(dimension_summary(&bore), "diameter 60 +0.1/-0.05");
        bore.tolerance = Some(tolerance("limits", 60.02, 59.98));
        bore.reference = true;
        assert_eq!(
            dimension_summary(&bore),
            "diameter 60 (59.98 to 60.02), reference"
        );
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
