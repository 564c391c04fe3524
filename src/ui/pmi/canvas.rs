//! The page canvas of the PMI viewer: the page picture (or a blank page of the right aspect) with the
//! PMI boxes drawn over it, zoom and pan, hover and click on boxes, and the colour legend by type.
//! Items read by OCR from a scan show their confidence above their box; those under
//! [`REVIEW_CONFIDENCE`](super::marks::REVIEW_CONFIDENCE) get a dashed [`REVIEW_COLOR`] frame and
//! a "!" badge besides their type's box.
//!
//! Boxes are `[left, top, right, bottom]` in *page pixels*, the coordinate space `PmiPage.image_size`
//! gives. The picture shown may have another resolution (the service's large image is scaled to at
//! most 1024 px), so nothing is drawn in picture pixels: the page is laid out in the canvas as a
//! rectangle (`page_rect_in_ui`) and every box goes through one transform, `ui_from_page`, from page
//! pixels to that rectangle. The picture is stretched over the same rectangle, so boxes stay on their
//! items whatever the picture's resolution.
//!
//! The geometry (fitting, zooming about a point, hit-testing) is pure and unit-tested; the drawing is
//! in [`page_canvas_ui`].

use egui::emath::RectTransform;
use egui::{Color32, Pos2, Rect, Sense, Stroke, StrokeKind, Vec2};

use super::marks::{
    REVIEW_COLOR, confidence_note, dimension_summary, needs_review, review_badge, type_color,
    type_name,
};
use partlens_api::{PmiItem, PmiPage};

/// The closest and farthest zoom, relative to "the whole page fits".
pub const ZOOM_RANGE: std::ops::RangeInclusive<f32> = 0.25..=24.0;

/// The page size used when neither the PMI nor a picture gives one (US letter landscape at 100 dpi).
const FALLBACK_PAGE_SIZE: Vec2 = Vec2::new(1100.0, 850.0);

/// Zoom and pan of the page: zoom 1 fits the whole page in the canvas, `pan` moves its centre (UI
/// points).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageZoom {
    /// Scale relative to the fitted page.
    pub zoom: f32,
    /// Offset of the page's centre from the canvas centre, in UI points.
    pub pan: Vec2,
}

impl Default for PageZoom {
    fn default() -> Self {
        Self {
            zoom: 1.0,
            pan: Vec2::ZERO,
        }
    }
}

impl PageZoom {
    /// Zoomed by `factor` (above one zooms in) keeping the page point under `pivot_in_ui` where it is.
    pub fn zoomed_at(self, factor: f32, pivot_in_ui: Pos2, canvas: Rect) -> Self {
        let zoom = (self.zoom * factor).clamp(*ZOOM_RANGE.start(), *ZOOM_RANGE.end());
        let applied = zoom / self.zoom;
        let centre = canvas.center() + self.pan;
        let new_centre = pivot_in_ui + (centre - pivot_in_ui) * applied;
        Self {
            zoom,
            pan: new_centre - canvas.center(),
        }
    }

    /// Panned so that `target_in_ui` (a point drawn with this zoom) comes to the canvas centre.
    pub fn centred_on(self, target_in_ui: Pos2, canvas: Rect) -> Self {
        Self {
            zoom: self.zoom,
            pan: self.pan + (canvas.center() - target_in_ui),
        }
    }
}

/// The size of a page in page pixels: its `ImageSize`, else the picture's size, else a letter page.
pub fn page_size(page: &PmiPage, picture_size: Option<Vec2>) -> Vec2 {
    let [width, height] = page.image_size;
    if width > 0 && height > 0 {
        return Vec2::new(width as f32, height as f32);
    }
    picture_size
        .filter(|size| size.x > 0.0 && size.y > 0.0)
        .unwrap_or(FALLBACK_PAGE_SIZE)
}

/// The largest rectangle of the page's aspect that fits in `canvas`, centred.
pub fn fitted_rect(page_size: Vec2, canvas: Rect) -> Rect {
    if page_size.x <= 0.0 || page_size.y <= 0.0 {
        return canvas;
    }
    let scale = (canvas.width() / page_size.x).min(canvas.height() / page_size.y);
    Rect::from_center_size(canvas.center(), page_size * scale)
}

/// Where the page is drawn in the canvas at this zoom and pan.
pub fn page_rect_in_ui(page_size: Vec2, canvas: Rect, zoom: PageZoom) -> Rect {
    let fitted = fitted_rect(page_size, canvas);
    Rect::from_center_size(canvas.center() + zoom.pan, fitted.size() * zoom.zoom)
}

/// The transform from page pixels to UI points for a page drawn at `page_rect_in_ui`: boxes scale by
/// displayed size / `ImageSize`.
pub fn ui_from_page(page_size: Vec2, page_rect_in_ui: Rect) -> RectTransform {
    RectTransform::from_to(Rect::from_min_size(Pos2::ZERO, page_size), page_rect_in_ui)
}

/// An item's box in page pixels, with left/right and top/bottom put in order.
pub fn box_in_page(item: &PmiItem) -> Rect {
    let [left, top, right, bottom] = item.box_in_page.map(|value| value as f32);
    Rect::from_two_pos(Pos2::new(left, top), Pos2::new(right, bottom))
}

/// The item whose box holds `pos_in_page`; where boxes overlap, the smallest (the more specific).
pub fn item_at(items: &[PmiItem], pos_in_page: Pos2) -> Option<usize> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| (index, box_in_page(item)))
        .filter(|(_, rect)| rect.expand(0.5).contains(pos_in_page))
        .min_by(|(_, a), (_, b)| a.area().total_cmp(&b.area()))
        .map(|(index, _)| index)
}

/// One line of the legend: a type, its colour and how many items of it the page has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegendEntry {
    /// The type id.
    pub type_id: i64,
    /// Its name.
    pub name: String,
    /// Its colour.
    pub color: Color32,
    /// Items of this type on the page.
    pub count: usize,
}

/// The legend of a page's items: each type present once, by type id.
pub fn legend(items: &[PmiItem]) -> Vec<LegendEntry> {
    let mut counts = std::collections::BTreeMap::<i64, usize>::new();
    for item in items {
        *counts.entry(item.type_id).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(type_id, count)| LegendEntry {
            type_id,
            name: type_name(type_id),
            color: type_color(type_id),
            count,
        })
        .collect()
}

/// What the canvas is asked to draw.
pub struct CanvasInput<'a> {
    /// The page's items.
    pub items: &'a [PmiItem],
    /// The page size in page pixels.
    pub page_size: Vec2,
    /// The picture to stretch over the page, if any (none: a blank page).
    pub picture: Option<egui::load::SizedTexture>,
    /// A line shown over the page while there is no picture (loading, failed); `None` for a blank
    /// page.
    pub picture_note: Option<String>,
    /// Draw the boxes.
    pub show_boxes: bool,
    /// The selected item.
    pub selected: Option<usize>,
    /// Pan the selected box into view this frame.
    pub reveal_selected: bool,
    /// Height of the canvas in points.
    pub height: f32,
}

/// What happened on the canvas this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CanvasOutput {
    /// A box was clicked.
    pub clicked: Option<usize>,
}

/// Draws the page and its boxes, handles zoom (Ctrl + scroll, pinch) and pan (drag, scroll), hover
/// (the item's text) and clicks on boxes.
pub fn page_canvas_ui(
    ui: &mut egui::Ui,
    input: &CanvasInput<'_>,
    zoom: &mut PageZoom,
) -> CanvasOutput {
    let size = Vec2::new(ui.available_width(), input.height);
    let (canvas, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, "Drawing page"));
    let painter = ui.painter_at(canvas);
    painter.rect_filled(canvas, 4.0, ui.visuals().extreme_bg_color);
    zoom_and_pan(ui, &response, canvas, zoom);
    let page_rect = page_rect_in_ui(input.page_size, canvas, *zoom);
    let ui_from_page = ui_from_page(input.page_size, page_rect);
    reveal_selected_box(ui, input, &ui_from_page, canvas, zoom);
    paint_page(&painter, input, page_rect);
    if !input.show_boxes {
        return CanvasOutput::default();
    }
    boxes_ui(ui, input, &painter, &response, canvas, &ui_from_page)
}

/// Dragging pans; Ctrl + scroll and pinching zoom about the pointer, scrolling pans (taken from
/// the view's scroll area); a double click fits the page again.
fn zoom_and_pan(ui: &egui::Ui, response: &egui::Response, canvas: Rect, zoom: &mut PageZoom) {
    if response.dragged() {
        zoom.pan += response.drag_delta();
    }
    // Over a box the box is the hovered widget, so the canvas asks whether the pointer is over it.
    if response.hovered() || ui.rect_contains_pointer(canvas) {
        let (zoom_delta, scroll, pointer) = ui.input(|input| {
            (
                input.zoom_delta(),
                input.smooth_scroll_delta(),
                input.pointer.hover_pos(),
            )
        });
        let pivot = pointer.unwrap_or(canvas.center());
        if zoom_delta != 1.0 {
            *zoom = zoom.zoomed_at(zoom_delta, pivot, canvas);
        } else if scroll != Vec2::ZERO {
            zoom.pan += scroll;
            // Taken here, so the view's scroll area does not move as well.
            ui.input_mut(|input| input.smooth_scroll_delta = Vec2::ZERO);
        }
    }
    if response.double_clicked() {
        *zoom = PageZoom::default();
    }
}

/// Brings the selected item's box into the canvas when asked (its row was chosen).
fn reveal_selected_box(
    ui: &egui::Ui,
    input: &CanvasInput<'_>,
    ui_from_page: &RectTransform,
    canvas: Rect,
    zoom: &mut PageZoom,
) {
    if input.reveal_selected
        && let Some(index) = input.selected
        && let Some(item) = input.items.get(index)
    {
        let box_in_ui = ui_from_page.transform_rect(box_in_page(item));
        if !canvas.shrink(8.0).contains_rect(box_in_ui) {
            *zoom = zoom.centred_on(box_in_ui.center(), canvas);
            ui.ctx().request_repaint();
        }
    }
}

/// The page: white, with its picture stretched over it and the note while it has none.
fn paint_page(painter: &egui::Painter, input: &CanvasInput<'_>, page_rect: Rect) {
    painter.rect_filled(page_rect, 0.0, Color32::WHITE);
    if let Some(picture) = input.picture {
        painter.image(
            picture.id,
            page_rect,
            Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
            Color32::WHITE,
        );
    }
    painter.rect_stroke(
        page_rect,
        0.0,
        Stroke::new(1.0, Color32::from_gray(150)),
        StrokeKind::Outside,
    );
    if let Some(note) = &input.picture_note {
        painter.text(
            page_rect.center(),
            egui::Align2::CENTER_CENTER,
            note,
            egui::FontId::proportional(14.0),
            Color32::from_gray(90),
        );
    }
}

/// The boxes over the page, one widget each (screen readers and tests find them by their text),
/// the hovered one with its item's text; returns the box clicked.
fn boxes_ui(
    ui: &egui::Ui,
    input: &CanvasInput<'_>,
    painter: &egui::Painter,
    response: &egui::Response,
    canvas: Rect,
    ui_from_page: &RectTransform,
) -> CanvasOutput {
    let mut output = CanvasOutput::default();
    // The item under the pointer, by the pure hit-test (the smallest box wins where boxes overlap).
    let pointer_in_page = ui
        .input(|input| input.pointer.hover_pos())
        .filter(|pointer| ui.rect_contains_pointer(canvas) && canvas.contains(*pointer))
        .map(|pointer| ui_from_page.inverse().transform_pos(pointer));
    let hovered = pointer_in_page.and_then(|pos_in_page| item_at(input.items, pos_in_page));
    for (index, item) in input.items.iter().enumerate() {
        let box_in_ui = ui_from_page.transform_rect(box_in_page(item));
        let visible = box_in_ui.intersect(canvas);
        if !visible.is_positive() {
            continue;
        }
        let selected = input.selected == Some(index);
        let box_response = ui.interact(
            visible,
            response.id.with(("pmi box", index)),
            Sense::click(),
        );
        let note = confidence_note(item);
        let label = match &note {
            Some(note) => format!("{} box: {} ({note})", type_name(item.type_id), item.text),
            None => format!("{} box: {}", type_name(item.type_id), item.text),
        };
        box_response
            .widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &label));
        paint_box(painter, item, box_in_ui, selected, hovered == Some(index));
        if box_response.clicked() {
            // A pointer click goes to the box under the pointer; a click from the keyboard or a
            // screen reader (no pointer over the canvas) to this box.
            output.clicked = Some(hovered.unwrap_or(index));
        }
        if hovered == Some(index) && !item.text.is_empty() {
            box_tooltip(&box_response, item, note.as_deref());
        }
    }
    output
}

/// One box in its type's colour: filled when selected or hovered, thicker when selected, with the
/// confidence of an item read by OCR.
fn paint_box(
    painter: &egui::Painter,
    item: &PmiItem,
    box_in_ui: Rect,
    selected: bool,
    hovered: bool,
) {
    let color = type_color(item.type_id);
    if selected || hovered {
        painter.rect_filled(box_in_ui, 1.0, color.gamma_multiply(0.25));
    }
    let width = if selected { 3.0 } else { 1.5 };
    painter.rect_stroke(
        box_in_ui,
        1.0,
        Stroke::new(width, color),
        StrokeKind::Outside,
    );
    if let Some(confidence) = item.confidence {
        draw_confidence(painter, box_in_ui, confidence, needs_review(item));
    }
}

/// What the hovered box's item says: its type, text, a dimension in words, its review note.
fn box_tooltip(box_response: &egui::Response, item: &PmiItem, note: Option<&str>) {
    egui::Tooltip::for_widget(box_response)
        .at_pointer()
        .show(|ui| {
            ui.strong(type_name(item.type_id));
            ui.label(&item.text);
            if let Some(dimension) = &item.dimension {
                ui.weak(dimension_summary(dimension));
            }
            if let Some(note) = note {
                if needs_review(item) {
                    ui.colored_label(REVIEW_COLOR, note);
                } else {
                    ui.weak(note);
                }
            }
        });
}

/// The confidence of an item read by OCR over its box: the percentage above its top left corner
/// (when the box is wide enough on screen to carry it), and for an item to review a dashed
/// [`REVIEW_COLOR`] frame around the box and a "!" badge at its top right corner.
fn draw_confidence(painter: &egui::Painter, box_in_ui: Rect, confidence: f32, review: bool) {
    let color = if review {
        REVIEW_COLOR
    } else {
        Color32::from_gray(70)
    };
    if box_in_ui.width() >= 18.0 {
        painter.text(
            box_in_ui.left_top() + Vec2::new(0.0, -2.0),
            egui::Align2::LEFT_BOTTOM,
            format!("{} %", confidence.round() as i64),
            egui::FontId::proportional(10.0),
            color,
        );
    }
    if !review {
        return;
    }
    let frame = box_in_ui.expand(3.0);
    let corners = [
        frame.left_top(),
        frame.right_top(),
        frame.right_bottom(),
        frame.left_bottom(),
        frame.left_top(),
    ];
    painter.extend(egui::Shape::dashed_line(
        &corners,
        Stroke::new(1.5, REVIEW_COLOR),
        4.0,
        3.0,
    ));
    review_badge(painter, frame.right_top());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(box_in_page: [i64; 4], type_id: i64, text: &str) -> PmiItem {
        PmiItem {
            box_in_page,
            type_id,
            text: text.into(),
            confidence: None,
            dimension: None,
        }
    }

    fn page(image_size: [i64; 2]) -> PmiPage {
        PmiPage {
            page: 1,
            image_size,
            items: Vec::new(),
        }
    }

    #[test]
    fn boxes_scale_by_displayed_size_over_image_size() {
        // A 2000×1000 page shown in a 500×250 rectangle: a quarter of the resolution.
        let page_size = page_size(&page([2000, 1000]), Some(Vec2::new(1024.0, 512.0)));
        assert_eq!(page_size, Vec2::new(2000.0, 1000.0));
        let shown = Rect::from_min_size(Pos2::new(100.0, 50.0), Vec2::new(500.0, 250.0));
        let transform = ui_from_page(page_size, shown);
        let box_in_ui = transform.transform_rect(box_in_page(&item([400, 200, 800, 600], 2, "")));
        assert_eq!(
            box_in_ui,
            Rect::from_min_max(Pos2::new(200.0, 100.0), Pos2::new(300.0, 200.0))
        );
        // The same box on a picture of another resolution lands on the same spot: only ImageSize and
        // the displayed rectangle count.
        let other = page_size_of_picture_only(Vec2::new(4000.0, 2000.0));
        assert_eq!(
            ui_from_page(other, shown).transform_rect(Rect::from_min_max(
                Pos2::new(800.0, 400.0),
                Pos2::new(1600.0, 1200.0)
            )),
            box_in_ui
        );
    }

    fn page_size_of_picture_only(picture: Vec2) -> Vec2 {
        page_size(&page([0, 0]), Some(picture))
    }

    #[test]
    fn the_page_size_falls_back_to_the_picture_then_to_a_letter_page() {
        assert_eq!(
            page_size_of_picture_only(Vec2::new(640.0, 480.0)),
            Vec2::new(640.0, 480.0)
        );
        assert_eq!(page_size(&page([0, 0]), None), FALLBACK_PAGE_SIZE);
        assert_eq!(page_size(&page([-5, 10]), None), FALLBACK_PAGE_SIZE);
    }

    #[test]
    fn the_page_fits_the_canvas_keeping_its_aspect() {
        let canvas = Rect::from_min_size(Pos2::ZERO, Vec2::new(800.0, 400.0));
        let fitted = fitted_rect(Vec2::new(1700.0, 1100.0), canvas);
        assert!((fitted.height() - 400.0).abs() < 1e-3);
        assert!((fitted.width() / fitted.height() - 1700.0 / 1100.0).abs() < 1e-4);
        assert_eq!(fitted.center(), canvas.center());
        // Zoom 2 about the canvas centre doubles the page around the same centre.
        let zoomed = PageZoom::default().zoomed_at(2.0, canvas.center(), canvas);
        let rect = page_rect_in_ui(Vec2::new(1700.0, 1100.0), canvas, zoomed);
        assert_eq!(rect.center(), canvas.center());
        assert!((rect.height() - 800.0).abs() < 1e-3);
    }

    #[test]
    fn zooming_keeps_the_point_under_the_pointer() {
        let canvas = Rect::from_min_size(Pos2::ZERO, Vec2::new(800.0, 400.0));
        let page = Vec2::new(1000.0, 500.0);
        let before = PageZoom::default();
        let pointer = Pos2::new(600.0, 100.0);
        let under_pointer = ui_from_page(page, page_rect_in_ui(page, canvas, before))
            .inverse()
            .transform_pos(pointer);
        let after = before.zoomed_at(3.0, pointer, canvas);
        let still = ui_from_page(page, page_rect_in_ui(page, canvas, after))
            .inverse()
            .transform_pos(pointer);
        assert!(
            (still - under_pointer).length() < 1e-2,
            "{still:?} {under_pointer:?}"
        );
        // The zoom stays in its range.
        assert_eq!(
            before.zoomed_at(1000.0, pointer, canvas).zoom,
            *ZOOM_RANGE.end()
        );
        // Centring a point moves it to the canvas centre.
        let centred = after.centred_on(Pos2::new(10.0, 20.0), canvas);
        assert_eq!(
            centred.pan - after.pan,
            canvas.center() - Pos2::new(10.0, 20.0)
        );
    }

    #[test]
    fn hit_testing_takes_the_smallest_box_under_the_point() {
        let items = [
            item([0, 0, 500, 300], 3, "title block"),
            item([100, 100, 200, 140], 2, "Ø12 H7"),
            // Right before left and bottom before top: still a box.
            item([400, 260, 300, 200], 1, "NOTE"),
        ];
        assert_eq!(item_at(&items, Pos2::new(150.0, 120.0)), Some(1));
        assert_eq!(item_at(&items, Pos2::new(50.0, 50.0)), Some(0));
        assert_eq!(item_at(&items, Pos2::new(350.0, 230.0)), Some(2));
        assert_eq!(item_at(&items, Pos2::new(600.0, 50.0)), None);
        assert_eq!(
            box_in_page(&items[2]),
            Rect::from_min_max(Pos2::new(300.0, 200.0), Pos2::new(400.0, 260.0))
        );
    }

    #[test]
    fn each_type_has_its_colour_and_the_legend_counts_them() {
        assert_ne!(type_color(1), type_color(2));
        assert_ne!(type_color(2), type_color(3));
        assert_ne!(type_color(3), type_color(4));
        // Unknown and odd ids still get a colour of the palette, and a name.
        assert_eq!(type_color(8), type_color(1));
        assert_eq!(type_color(0), type_color(7));
        assert_eq!(type_color(-3), type_color(4));
        assert_eq!(type_name(2), "Dimension");
        assert_eq!(type_name(42), "Type 42");
        let items = [
            item([0, 0, 1, 1], 2, "a"),
            item([0, 0, 1, 1], 1, "b"),
            item([0, 0, 1, 1], 2, "c"),
        ];
        let legend = legend(&items);
        assert_eq!(
            legend
                .iter()
                .map(|entry| (entry.type_id, entry.name.as_str(), entry.count))
                .collect::<Vec<_>>(),
            [(1, "Note", 1), (2, "Dimension", 2)]
        );
        assert_eq!(legend[1].color, type_color(2));
    }
}
