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

/// Paints a short caption centred in `rect`, where a picture would be ("loading image…").
pub fn paint_caption(ui: &egui::Ui, painter: &egui::Painter, rect: Rect, caption: &str, size: f32) {
    painter.text(
        rect.center(),
        egui::Align2::CENTER_CENTER,
        caption,
        egui::FontId::proportional(size),
        ui.visuals().weak_text_color(),
    );
}

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
