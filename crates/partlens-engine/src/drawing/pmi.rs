//! The PMI of a page: one item a visible text (note, dimension, title-block value, tolerance) with
//! its box in page pixels, in reading order (top to bottom, left to right: items whose vertical
//! middles fall within one another's box share a row), and the page's text in that order.

use partlens_api::{PmiItem, PmiPage};

use super::page::Page;
use super::scene::Scene;

/// The PMI items of a page, in reading order. Each item's text is on one line (MTEXT lines are
/// joined with spaces).
pub fn page_items(scene: &Scene, page: &Page) -> Vec<PmiItem> {
    let items = scene
        .texts
        .iter()
        .filter(|text| text.visible)
        .map(|text| {
            let line = text.text.lines().collect::<Vec<_>>().join(" ");
            PmiItem {
                box_in_page: page.box_in_page(&text.corners()),
                type_id: text.kind.type_id(),
                dimension: super::dimension::dimension_of(text.kind.type_id(), &line),
                text: line,
                confidence: None,
            }
        })
        .collect();
    in_reading_order(items)
}

/// Sorts items top to bottom, then left to right within a row. An item joins the current row when
/// its vertical middle lies inside the row's first item's box.
pub fn in_reading_order(mut items: Vec<PmiItem>) -> Vec<PmiItem> {
    items.sort_by_key(|item| (item.box_in_page[1], item.box_in_page[0]));
    let mut ordered = Vec::with_capacity(items.len());
    let mut row: Vec<PmiItem> = Vec::new();
    for item in items {
        let middle = (item.box_in_page[1] + item.box_in_page[3]) / 2;
        let joins = row
            .first()
            .is_some_and(|first| middle >= first.box_in_page[1] && middle <= first.box_in_page[3]);
        if !joins {
            row.sort_by_key(|item| item.box_in_page[0]);
            ordered.append(&mut row);
        }
        row.push(item);
    }
    row.sort_by_key(|item| item.box_in_page[0]);
    ordered.append(&mut row);
    ordered
}

/// The page record: page number, the page's pixel size and its items.
pub fn pmi_page(number: i64, page: &Page, items: Vec<PmiItem>) -> PmiPage {
    PmiPage {
        page: number,
        image_size: [i64::from(page.width), i64::from(page.height)],
        items,
    }
}

/// The page's text, one item a line, in reading order.
pub fn unstructured_text(items: &[PmiItem]) -> String {
    items
        .iter()
        .map(|item| item.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(text: &str, box_in_page: [i64; 4]) -> PmiItem {
        PmiItem {
            box_in_page,
            type_id: 1,
            text: text.into(),
            confidence: None,
            dimension: None,
        }
    }

    #[test]
    fn items_read_top_to_bottom_then_left_to_right() {
        let items = vec![
            item("bottom", [10, 200, 50, 210]),
            item("right", [300, 12, 350, 22]),
            // Slightly higher than "left" but on the same row.
            item("middle", [100, 9, 150, 21]),
            item("left", [10, 10, 50, 20]),
            item("second row", [10, 40, 80, 50]),
        ];
        let texts: Vec<String> = in_reading_order(items)
            .into_iter()
            .map(|item| item.text)
            .collect();
        assert_eq!(texts, ["left", "middle", "right", "second row", "bottom"]);
    }

    #[test]
    fn the_text_is_one_item_a_line() {
        let items = [item("A", [0; 4]), item("B C", [0; 4])];
        assert_eq!(unstructured_text(&items), "A\nB C");
    }
}
