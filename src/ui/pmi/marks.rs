//! How a PMI item is marked wherever it is shown (on its box over the page, in the items list, in
//! the legend): its type's name and colour, and for text read by OCR its confidence with the review
//! mark under [`REVIEW_CONFIDENCE`]; also what a dimension item states in words. Below both the
//! canvas and the items list, so that neither imports the other.

use egui::{Color32, Pos2};

use partlens_api::{PmiDimension, PmiItem};

/// The colour of the marks of items to review (crimson: apart from every type colour).
pub const REVIEW_COLOR: Color32 = Color32::from_rgb(220, 20, 60);

/// Below this confidence (0–100) an item read by OCR is marked for review: Tesseract's words under
/// 60 are misread often enough on scanned drawings that a person should look at the scan.
pub const REVIEW_CONFIDENCE: f32 = 60.0;

/// True when an item was read by OCR with a confidence under [`REVIEW_CONFIDENCE`]. Items read
/// from vector drawings carry no confidence and are never marked.
pub fn needs_review(item: &PmiItem) -> bool {
    item.confidence
        .is_some_and(|confidence| confidence < REVIEW_CONFIDENCE)
}

/// The mark of an item read by OCR: its confidence in whole percent, and "for review" under
/// [`REVIEW_CONFIDENCE`]; `None` for an item read from a vector drawing.
pub fn confidence_note(item: &PmiItem) -> Option<String> {
    let confidence = item.confidence?;
    let percent = confidence.round() as i64;
    Some(if needs_review(item) {
        format!("OCR {percent} %, for review")
    } else {
        format!("OCR {percent} %")
    })
}

/// What a dimension item states, in words: kind, value, tolerance, fit, and whether it is a
/// reference dimension (`diameter 60 ±0.015 H7`, `linear 25 (24.98 to 25.02)`).
pub fn dimension_summary(dimension: &PmiDimension) -> String {
    let mut summary = format!("{} {}", dimension.kind, dimension.value);
    if let Some(tolerance) = &dimension.tolerance {
        let part = match tolerance.kind.as_str() {
            "symmetric" => format!(" ±{}", tolerance.upper),
            "limits" => format!(" ({} to {})", tolerance.lower, tolerance.upper),
            _ => format!(" {:+}/{:+}", tolerance.upper, tolerance.lower),
        };
        summary.push_str(&part);
    }
    if let Some(fit) = &dimension.fit {
        summary.push(' ');
        summary.push_str(fit);
    }
    if dimension.reference {
        summary.push_str(", reference");
    }
    summary
}

/// The kinds of item the local service reports (`type_id`); other services may number differently,
/// and unknown ids are shown as "Type n".
pub fn type_name(type_id: i64) -> String {
    match type_id {
        1 => "Note".to_owned(),
        2 => "Dimension".to_owned(),
        3 => "Title block".to_owned(),
        4 => "Tolerance / GD&T".to_owned(),
        other => format!("Type {other}"),
    }
}

/// The colour of a type: the Okabe–Ito palette, which stays apart for colour-blind readers.
pub fn type_color(type_id: i64) -> Color32 {
    const PALETTE: [Color32; 7] = [
        Color32::from_rgb(230, 159, 0),   // orange
        Color32::from_rgb(0, 114, 178),   // blue
        Color32::from_rgb(0, 158, 115),   // bluish green
        Color32::from_rgb(213, 94, 0),    // vermillion
        Color32::from_rgb(204, 121, 167), // reddish purple
        Color32::from_rgb(86, 180, 233),  // sky blue
        Color32::from_rgb(180, 160, 20),  // dark yellow
    ];
    let index = (type_id - 1).rem_euclid(PALETTE.len() as i64);
    PALETTE[index as usize]
}

/// The review mark: a [`REVIEW_COLOR`] disc with a white "!", centred on `centre` (on the boxes,
/// the rows of the items list and the legend alike).
pub fn review_badge(painter: &egui::Painter, centre: Pos2) {
    painter.circle_filled(centre, 6.0, REVIEW_COLOR);
    painter.text(
        centre,
        egui::Align2::CENTER_CENTER,
        "!",
        egui::FontId::proportional(10.0),
        Color32::WHITE,
    );
}
