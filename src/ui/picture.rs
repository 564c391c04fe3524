//! Pictures from the texture cache, for every view that shows one (result cards and rows, view
//! slots, the detail image, the PMI page): one lookup that asks the task layer for a picture the
//! cache does not have yet, and one way to paint a picture fitted into a rectangle.

use egui::{Color32, Rect};

use super::app_command::CommandQueue;
use super::texture_cache::{Lookup, TextureCache};
use partlens_tasks::Command;
use partlens_tasks::thumbnails::ImageRequest;

/// What a view shows for a picture this frame.
pub enum Picture<'a> {
    /// The texture is here; paint it.
    Ready(&'a egui::TextureHandle),
    /// It is on its way; paint a placeholder.
    Loading,
    /// It could not be had; the sentence says why.
    Failed(&'a str),
}

/// Looks the picture of `request` up for painting this frame. One the cache has never seen is asked
/// for once (`Command::LoadImage`) and reads as loading.
pub fn picture<'a>(
    textures: &'a mut TextureCache<egui::TextureHandle>,
    request: ImageRequest,
    commands: &mut CommandQueue,
) -> Picture<'a> {
    match textures.request(&request.key) {
        Lookup::Ready(texture) => Picture::Ready(texture),
        Lookup::Pending => Picture::Loading,
        Lookup::Failed(reason) => Picture::Failed(reason),
        Lookup::NeedsFetch => {
            commands.backend(Command::LoadImage(request));
            Picture::Loading
        }
    }
}

/// Paints a short caption centred in `rect`, where a picture would be ("loading image…"), wrapped
/// between its words to the rectangle's width. A caption that does not fit even so (a table row's
/// 32-point thumbnail) is left out: the empty square says as much, and a caption cut at both sides
/// (`o imag`) says nothing.
pub fn paint_caption(ui: &egui::Ui, painter: &egui::Painter, rect: Rect, caption: &str, size: f32) {
    let room = rect.shrink(CAPTION_MARGIN);
    let font = egui::FontId::proportional(size);
    let color = ui.visuals().weak_text_color();
    let widest_word = caption
        .split_whitespace()
        .map(|word| {
            painter
                .layout_no_wrap(word.to_owned(), font.clone(), color)
                .size()
                .x
        })
        .fold(0.0_f32, f32::max);
    if widest_word > room.width() {
        return;
    }
    let mut job = egui::text::LayoutJob::simple(caption.to_owned(), font, color, room.width());
    job.halign = egui::Align::Center;
    let galley = painter.layout_job(job);
    if galley.size().y > room.height() {
        return;
    }
    let top_center = egui::pos2(rect.center().x, rect.center().y - galley.size().y / 2.0);
    painter.galley(top_center, galley, color);
}

/// Room kept free around a caption inside its rectangle.
const CAPTION_MARGIN: f32 = 2.0;

/// Paints `texture` as large as fits into `rect`, centred, keeping its aspect ratio.
pub fn paint_fitted(painter: &egui::Painter, rect: Rect, texture: &egui::TextureHandle) {
    let size = texture.size_vec2();
    let scale = (rect.width() / size.x).min(rect.height() / size.y);
    painter.image(
        texture.id(),
        Rect::from_center_size(rect.center(), size * scale),
        Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
        Color32::WHITE,
    );
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use egui_kittest::Harness;

    use super::*;

    /// The square of `side` points `caption` is put in, and the rectangles of the texts painted.
    fn captions_painted(side: f32, caption: &'static str) -> (Rect, Vec<Rect>) {
        let square = Arc::new(Mutex::new(Rect::NOTHING));
        let drawn = square.clone();
        let mut harness = Harness::builder()
            .with_size(egui::vec2(300.0, 300.0))
            .build_ui(move |ui| {
                let (rect, _) =
                    ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
                paint_caption(ui, &ui.painter_at(rect), rect, caption, 11.0);
                *drawn.lock().unwrap() = rect;
            });
        harness.run();
        let texts = harness
            .output()
            .shapes
            .iter()
            .filter_map(|clipped| match &clipped.shape {
                egui::Shape::Text(text) => Some(text.galley.rect.translate(text.pos.to_vec2())),
                _ => None,
            })
            .collect();
        let square = *square.lock().unwrap();
        (square, texts)
    }

    #[test]
    fn a_caption_wider_than_a_small_thumbnail_is_left_out_not_cut() {
        let (_, painted) = captions_painted(32.0, "image unavailable");
        assert!(painted.is_empty(), "{painted:?}");
    }

    #[test]
    fn a_caption_is_wrapped_between_its_words_and_centred_in_its_square() {
        // 60 points: "loading image…" takes two lines there.
        let (square, painted) = captions_painted(60.0, "loading image…");
        assert_eq!(painted.len(), 1);
        let text = painted[0];
        assert!(
            square.shrink(CAPTION_MARGIN).contains_rect(text),
            "{text:?} in {square:?}"
        );
        assert!(text.height() > 20.0, "one line: {text:?}");
        assert!(
            (text.center() - square.center()).length() < 1.0,
            "{text:?} in {square:?}"
        );
    }
}
