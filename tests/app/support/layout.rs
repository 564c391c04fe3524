//! Checks of what a frame painted, for the places at every window size: no text cut off at the side
//! of the area it is drawn in or of the window, no two texts drawn over each other, no widget that
//! reaches past the window's sides, no text spread letter by letter (a justified row of one long
//! word); and the texts painted, to count what is shown (one banner, not two).
//!
//! Text cut at the top or bottom of a scroll area is not a fault (it scrolls); nothing in the app
//! scrolls sideways but a text field's text as it is edited, so a text cut at a side elsewhere is
//! one.

use egui::epaint::{ClippedShape, Shape};
use egui::{Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::NodeT as _;

use partlens::ui::App;

/// The window sizes every place is checked at: the smallest supported, the default, full HD.
pub const WINDOW_SIZES: [(f32, f32); 3] = [(800.0, 600.0), (1120.0, 720.0), (1920.0, 1080.0)];

/// How far a text or widget may reach past its area before it counts as cut (rounding).
const TOLERANCE: f32 = 1.5;

/// How far two texts may overlap each way before they are drawn over each other (the line
/// spacing of a font lets rows touch).
const OVERLAP: f32 = 2.0;

/// A gap this much wider than the font's own spacing between two letters of a row spreads it.
const SPREAD_GAP: f32 = 1.5;

/// One text the frame painted.
#[derive(Clone, Debug)]
pub struct PaintedText {
    /// The text.
    pub text: String,
    /// Where it is, in the window.
    pub rect: Rect,
    /// Where the letters of each of its rows are, in the window: without the space a wrapping
    /// layout leaves before the first row (a label there starts at the row's left side, and its
    /// first row after the widgets before it).
    pub rows: Vec<Rect>,
    /// The area it is drawn in (the part outside is not shown).
    pub clip: Rect,
    /// True when a row of it is spread letter by letter.
    pub letter_spaced: bool,
    /// True when it is cut short with `…` (its end is not painted).
    pub elided: bool,
}

impl PaintedText {
    /// True when some of it is on screen.
    pub fn is_visible(&self) -> bool {
        self.rect.intersects(self.clip) && self.clip.is_positive()
    }
}

/// Every text the last frame painted.
pub fn painted_texts(harness: &Harness<'_, App>) -> Vec<PaintedText> {
    let mut texts = Vec::new();
    for clipped in &harness.output().shapes {
        let ClippedShape {
            clip_rect, shape, ..
        } = clipped;
        collect(shape, *clip_rect, &mut texts);
    }
    texts
}

fn collect(shape: &Shape, clip: Rect, texts: &mut Vec<PaintedText>) {
    match shape {
        Shape::Vec(shapes) => {
            for shape in shapes {
                collect(shape, clip, texts);
            }
        }
        Shape::Text(text) => {
            let galley = &text.galley;
            let letter_spaced = galley.rows.iter().any(|placed| {
                placed.row.glyphs.windows(2).any(|pair| {
                    let (a, b) = (&pair[0], &pair[1]);
                    !a.chr.is_whitespace()
                        && !b.chr.is_whitespace()
                        && b.pos.x - (a.pos.x + a.advance_width) > SPREAD_GAP
                })
            });
            let rows = galley
                .rows
                .iter()
                .filter(|placed| !placed.row.glyphs.is_empty())
                .map(|placed| {
                    placed
                        .rect_without_leading_space()
                        .translate(text.pos.to_vec2())
                })
                .collect();
            texts.push(PaintedText {
                text: galley.text().to_owned(),
                rect: galley.rect.translate(text.pos.to_vec2()),
                rows,
                clip,
                letter_spaced,
                elided: galley.elided,
            });
        }
        _ => {}
    }
}

/// How many visible painted texts contain `needle`.
pub fn painted_count(harness: &Harness<'_, App>, needle: &str) -> usize {
    painted_texts(harness)
        .iter()
        .filter(|text| text.is_visible() && text.text.contains(needle))
        .count()
}

/// How many visible painted texts contain `needle` and are painted whole, not cut short with `…`
/// (a truncated label holds its whole text but paints only its start).
pub fn painted_whole_count(harness: &Harness<'_, App>, needle: &str) -> usize {
    painted_texts(harness)
        .iter()
        .filter(|text| text.is_visible() && !text.elided && text.text.contains(needle))
        .count()
}

/// What is wrong with the last frame: texts cut at a side, widgets past the window's sides, texts
/// spread letter by letter. Empty when nothing is.
pub fn layout_problems(harness: &Harness<'_, App>) -> Vec<String> {
    let window = harness.ctx.content_rect();
    let mut problems = Vec::new();
    let texts = painted_texts(harness);
    let fields = text_field_rects(harness);
    for text in &texts {
        if !text.is_visible() || text.text.trim().is_empty() {
            continue;
        }
        // A text field scrolls its text sideways as it is edited: its text may be cut by it.
        let in_a_field = fields
            .iter()
            .any(|field| field.expand(TOLERANCE).contains_rect(text.clip));
        let cut_by_area = !in_a_field
            && (text.rect.left() < text.clip.left() - TOLERANCE
                || text.rect.right() > text.clip.right() + TOLERANCE);
        let past_window = !in_a_field
            && (text.rect.right() > window.right() + TOLERANCE
                || text.rect.left() < window.left() - TOLERANCE);
        if cut_by_area || past_window {
            problems.push(format!(
                "text {:?} at {:?} is cut at a side (its area {:?})",
                text.text, text.rect, text.clip
            ));
        }
        if text.letter_spaced {
            problems.push(format!("text {:?} is spread letter by letter", text.text));
        }
    }
    problems.extend(overlapping_texts(&texts));
    for node in harness.root().children_recursive() {
        let node = node.accesskit_node();
        let Some(bounds) = node.bounding_box() else {
            continue;
        };
        let interactive = matches!(
            node.role(),
            egui::accesskit::Role::Button
                | egui::accesskit::Role::TextInput
                | egui::accesskit::Role::CheckBox
                | egui::accesskit::Role::RadioButton
                | egui::accesskit::Role::ComboBox
                | egui::accesskit::Role::Slider
                | egui::accesskit::Role::SpinButton
                | egui::accesskit::Role::Link
        );
        let rect = node_rect(&bounds);
        if interactive
            && rect.height() > 0.0
            && (rect.right() > window.right() + TOLERANCE
                || rect.left() < window.left() - TOLERANCE)
        {
            problems.push(format!(
                "{:?} {:?} at {rect:?} reaches past the window {window:?}",
                node.role(),
                node.label().unwrap_or_default()
            ));
        }
    }
    problems
}

/// Texts drawn over one another in the same area (two widgets laid out in the same place, such
/// as a bar's right side pushed over its left side), each pair once. Texts of different areas
/// (a tooltip, a header over a scrolled list) may cover each other.
fn overlapping_texts(texts: &[PaintedText]) -> Vec<String> {
    let shown: Vec<&PaintedText> = texts
        .iter()
        .filter(|text| text.is_visible() && !text.text.trim().is_empty())
        .collect();
    let overlap = |a: &PaintedText, b: &PaintedText| {
        a.rows.iter().any(|a_row| {
            b.rows.iter().any(|b_row| {
                let both = a_row.intersect(a.clip).intersect(b_row.intersect(b.clip));
                both.width() > OVERLAP && both.height() > OVERLAP
            })
        })
    };
    let mut problems = Vec::new();
    for (index, a) in shown.iter().enumerate() {
        for b in &shown[index + 1..] {
            if a.clip == b.clip && overlap(a, b) {
                problems.push(format!(
                    "texts {:?} at {:?} and {:?} at {:?} are drawn over each other",
                    a.text, a.rect, b.text, b.rect
                ));
            }
        }
    }
    problems
}

/// Where the text fields of the last frame are, in the window.
fn text_field_rects(harness: &Harness<'_, App>) -> Vec<Rect> {
    harness
        .root()
        .children_recursive()
        .filter_map(|node| {
            let node = node.accesskit_node();
            if node.role() != egui::accesskit::Role::TextInput {
                return None;
            }
            node.bounding_box().map(|bounds| node_rect(&bounds))
        })
        .collect()
}

fn node_rect(bounds: &egui::accesskit::Rect) -> Rect {
    Rect::from_min_max(
        Pos2::new(bounds.x0 as f32, bounds.y0 as f32),
        Pos2::new(bounds.x1 as f32, bounds.y1 as f32),
    )
}

/// Fails with every problem of the last frame of `place` at `size`.
pub fn assert_laid_out(harness: &Harness<'_, App>, place: &str, size: (f32, f32)) {
    let problems = layout_problems(harness);
    assert!(
        problems.is_empty(),
        "{place} at {}×{}:\n  {}",
        size.0,
        size.1,
        problems.join("\n  ")
    );
}
