//! The hover overlay shown while files are dragged over the window, and the collection of dropped
//! files. Files can be dropped anywhere on the window; they land in the upload form, or become the
//! views of a search while the Search place is shown.
//!
//! Native Wayland delivers no file drops (winit); the "Add files…" button is always there too.

use std::fmt::Write as _;
use std::path::PathBuf;

use egui::{Align2, Color32, Id, LayerId, Order, TextStyle};

/// Paints the overlay while files hover over the window; `caption` says what dropping does.
pub fn overlay_ui(ctx: &egui::Context, caption: &str) {
    let hovered: Vec<String> = ctx.input(|input| {
        input
            .raw
            .hovered_files
            .iter()
            .map(|file| {
                file.path
                    .as_ref()
                    .and_then(|path| path.file_name())
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "a file".to_owned())
            })
            .collect()
    });
    if hovered.is_empty() {
        return;
    }
    let mut text = caption.to_owned();
    let shown = hovered.len().min(6);
    for name in &hovered[..shown] {
        let _ = write!(text, "\n{name}");
    }
    if hovered.len() > shown {
        let _ = write!(text, "\n… and {} more", hovered.len() - shown);
    }
    let painter = ctx.layer_painter(LayerId::new(
        Order::Foreground,
        Id::unique("file_drop_overlay"),
    ));
    let rect = ctx.content_rect();
    painter.rect_filled(rect, 0.0, Color32::from_black_alpha(190));
    painter.rect_stroke(
        rect.shrink(12.0),
        12.0,
        egui::Stroke::new(3.0, Color32::from_rgb(120, 170, 255)),
        egui::StrokeKind::Inside,
    );
    painter.text(
        rect.center(),
        Align2::CENTER_CENTER,
        text,
        TextStyle::Heading.resolve(&ctx.global_style()),
        Color32::WHITE,
    );
}

/// The files dropped on the window this frame (their paths).
pub fn dropped_paths(ctx: &egui::Context) -> Vec<PathBuf> {
    ctx.input(|input| {
        input
            .raw
            .dropped_files
            .iter()
            .map(|file| file.path().to_path_buf())
            .filter(|path| !path.as_os_str().is_empty())
            .collect()
    })
}
