//! The view slots of the query bar: what a view is ([`ViewSource`], its [`ViewKind`] and
//! [`ViewState`] in the upload → index workflow), and how a slot is drawn (its thumbnail, name, state
//! and "Remove").

use egui::{Color32, Rect, Sense, Vec2};

use super::{MAX_VIEWS, SearchBar};
use crate::ui::app_command::CommandQueue;
use crate::ui::picture::{Picture, paint_caption, paint_fitted, picture};
use crate::ui::texture_cache::TextureCache;
use partlens_api::FileUid;
use partlens_tasks::Command;
use partlens_tasks::thumbnails::{ImageRequest, ImageSource, THUMBNAIL_MAX_SIDE, is_image_name};

pub use partlens_tasks::search::view_search::ViewSource;

/// Size of a view slot's thumbnail.
const SLOT_THUMBNAIL: Vec2 = Vec2::new(88.0, 66.0);

/// What a view is made of. All views of one search must be of one kind (the interface's multi-view
/// rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// A photo or rendering (PNG, JPEG, …).
    Image,
    /// A 2D drawing (DXF, PDF, …).
    Drawing,
    /// A 3D model (STL, STEP, …).
    Model,
}

impl ViewKind {
    /// The kind of a file, from its extension. Unknown extensions count as 3D models (CAD formats are
    /// many).
    pub fn of_name(name: &str) -> Self {
        let lower = name.to_lowercase();
        let extension = lower.rsplit('.').next().unwrap_or_default();
        if is_image_name(&lower) || matches!(extension, "jpg" | "jpeg" | "png" | "bmp" | "gif") {
            Self::Image
        } else if matches!(extension, "dxf" | "dwg" | "pdf" | "svg") {
            Self::Drawing
        } else {
            Self::Model
        }
    }

    /// The kind in words, plural.
    pub fn plural(self) -> &'static str {
        match self {
            Self::Image => "images",
            Self::Drawing => "2D drawings",
            Self::Model => "3D models",
        }
    }
}

/// The kind of a view.
pub fn view_kind(source: &ViewSource) -> ViewKind {
    match source {
        ViewSource::File(path) => ViewKind::of_name(&path.to_string_lossy()),
        // Its stored name says what it is: a stored model is searched as a model.
        ViewSource::LibraryFile { name, .. } => ViewKind::of_name(name),
        ViewSource::ResultImage { .. } | ViewSource::Sketch(_) | ViewSource::KeptSketch(_) => {
            ViewKind::Image
        }
    }
}

/// The image request for a view slot's thumbnail: an image (or a sketch) is drawn from its own bytes; a model or
/// drawing, which the app cannot draw, shows the picture the service rendered of it once it is
/// indexed (its input UID is known); before that, none.
pub fn view_thumbnail_request(slot: &ViewSlot) -> Option<ImageRequest> {
    match (&slot.source, &slot.state) {
        (ViewSource::File(path), _) if is_image_name(&path.to_string_lossy()) => {
            Some(ImageRequest::local_file(path))
        }
        (ViewSource::File(_), ViewState::Indexed(uid)) => {
            Some(ImageRequest::thumbnail_of_file(uid.clone()))
        }
        (ViewSource::File(_), _) => None,
        (ViewSource::KeptSketch(path), _) => Some(ImageRequest::local_file(path)),
        (ViewSource::LibraryFile { uid, .. }, _) => {
            Some(ImageRequest::thumbnail_of_file(uid.clone()))
        }
        (ViewSource::ResultImage { image_url, .. }, _) => Some(ImageRequest::thumbnail(image_url)),
        (ViewSource::Sketch(image), _) => Some(ImageRequest {
            key: image.key().to_owned(),
            source: ImageSource::Bytes(image.png().clone()),
            max_side: THUMBNAIL_MAX_SIDE,
            record: None,
        }),
    }
}

/// Where a view is in the upload → index workflow.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewState {
    /// Not uploaded yet: the next search uploads it.
    New,
    /// Going up.
    Uploading {
        /// Bytes sent.
        sent: u64,
        /// Bytes in all.
        total: u64,
    },
    /// Uploaded, being indexed.
    Indexing {
        /// Seconds waited so far.
        waited_seconds: u64,
    },
    /// Indexed: later searches use this search-input UID.
    Indexed(FileUid),
    /// Upload or indexing failed; the next search uploads it again.
    Failed(String),
}

impl ViewState {
    /// The state in a few words for the slot.
    pub fn short_text(&self) -> String {
        match self {
            Self::New => "new".to_owned(),
            Self::Uploading { sent, total } if *total > 0 => {
                format!("uploading {}%", sent.saturating_mul(100) / total)
            }
            Self::Uploading { .. } => "uploading".to_owned(),
            Self::Indexing { waited_seconds } => format!("indexing {waited_seconds} s"),
            Self::Indexed(_) => "indexed".to_owned(),
            Self::Failed(_) => "failed".to_owned(),
        }
    }
}

/// One view slot.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSlot {
    /// Identifies the slot while views are added and removed.
    pub id: u64,
    /// Its bytes.
    pub source: ViewSource,
    /// Its place in the workflow.
    pub state: ViewState,
}

impl SearchBar {
    /// The view slots and "Add views…", in a frame that lights up while files hover over the window.
    pub(super) fn views_ui(
        &mut self,
        ui: &mut egui::Ui,
        textures: &mut TextureCache<egui::TextureHandle>,
        commands: &mut CommandQueue,
    ) {
        let hovering_files = ui.input(|input| !input.raw.hovered_files.is_empty());
        let frame = egui::Frame::group(ui.style()).stroke(if hovering_files {
            egui::Stroke::new(2.0, ui.visuals().selection.stroke.color)
        } else {
            ui.visuals().widgets.noninteractive.bg_stroke
        });
        frame.show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                let mut removed = None;
                for (index, slot) in self.views.iter().enumerate() {
                    if view_slot_ui(ui, index, slot, textures, commands) {
                        removed = Some(slot.id);
                    }
                }
                if let Some(id) = removed {
                    self.remove_view(id);
                    // The slots were drawn before the removal: draw them again.
                    ui.ctx().request_repaint();
                }
                ui.vertical(|ui| {
                    let full = self.views.len() >= MAX_VIEWS;
                    if ui
                        .add_enabled(!full, egui::Button::new("Add views…"))
                        .on_disabled_hover_text("A search takes at most ten views")
                        .clicked()
                    {
                        commands.backend(Command::PickViews);
                    }
                    let sketching = self.sketch_pad().is_open();
                    if ui
                        .add(egui::Button::new("Sketch").selected(sketching))
                        .on_hover_text(if sketching {
                            "Hide the sketch pad (the drawing is kept)."
                        } else {
                            "Draw the part and search by the drawing."
                        })
                        .clicked()
                    {
                        self.set_sketch_open(!sketching);
                    }
                    let hint = if hovering_files {
                        "Drop to add as views".to_owned()
                    } else if self.views.is_empty() {
                        format!(
                            "Drop up to {MAX_VIEWS} images or models of one part here, or sketch it"
                        )
                    } else {
                        format!("{} of {MAX_VIEWS} views", self.views.len())
                    };
                    ui.weak(hint);
                });
            });
        });
    }
}

/// One view slot: thumbnail (or the file's extension), name, state, and a remove button. Returns true
/// when the user removed it.
fn view_slot_ui(
    ui: &mut egui::Ui,
    index: usize,
    slot: &ViewSlot,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
) -> bool {
    let mut removed = false;
    ui.push_id(("view slot", slot.id), |ui| {
        ui.vertical(|ui| {
            ui.set_width(SLOT_THUMBNAIL.x);
            let (rect, response) = ui.allocate_exact_size(SLOT_THUMBNAIL, Sense::hover());
            slot_thumbnail_ui(ui, rect, slot, textures, commands);
            let name = slot.source.name();
            response.on_hover_text(format!("View {}: {name}", index + 1));
            ui.add(egui::Label::new(egui::RichText::new(&name).small()).truncate());
            let state_text = slot.state.short_text();
            let state_label = match &slot.state {
                ViewState::Failed(reason) => ui
                    .colored_label(ui.visuals().error_fg_color, state_text)
                    .on_hover_text(reason),
                ViewState::Indexed(_) => {
                    ui.colored_label(Color32::from_rgb(0x2e, 0x9e, 0x4f), state_text)
                }
                _ => ui.weak(state_text),
            };
            let _ = state_label;
            if ui.small_button("Remove").clicked() {
                removed = true;
            }
        });
    });
    removed
}

/// A view slot's thumbnail: an image from its own bytes, a model or drawing the picture the service
/// rendered of it once indexed; until then (or without one) its extension stands in.
pub(crate) fn slot_thumbnail_ui(
    ui: &egui::Ui,
    rect: Rect,
    slot: &ViewSlot,
    textures: &mut TextureCache<egui::TextureHandle>,
    commands: &mut CommandQueue,
) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let text = |text: &str| paint_caption(ui, &painter, rect, text, 13.0);
    // A model or drawing not indexed yet, or whose picture is on its way or missing: its extension
    // stands in for a thumbnail.
    let extension = || {
        let name = slot.source.name();
        text(&name.rsplit('.').next().unwrap_or_default().to_uppercase());
    };
    let Some(request) = view_thumbnail_request(slot) else {
        extension();
        return;
    };
    let rendered_by_the_service = matches!(request.source, ImageSource::OfFile(_));
    match picture(textures, request, commands) {
        Picture::Ready(texture) => paint_fitted(&painter, rect, texture),
        Picture::Loading | Picture::Failed(_) if rendered_by_the_service => extension(),
        Picture::Loading => text("…"),
        Picture::Failed(_) => text("no preview"),
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::kittest::Queryable as _;

    use std::path::PathBuf;

    use super::*;
    use crate::ui::search_bar::tests::{file, harness, uid};

    #[test]
    fn a_model_slot_shows_the_service_picture_once_indexed() {
        let slot = |source: ViewSource, state: ViewState| ViewSlot {
            id: 1,
            source,
            state,
        };
        // An image is drawn from its own bytes, whatever its state.
        let image = view_thumbnail_request(&slot(file("front.png"), ViewState::New)).unwrap();
        assert!(matches!(image.source, ImageSource::File(_)));
        // A model has no picture until the service indexed it, then the service's thumbnail.
        assert!(view_thumbnail_request(&slot(file("gear.stl"), ViewState::New)).is_none());
        assert!(
            view_thumbnail_request(&slot(
                file("gear.stl"),
                ViewState::Indexing { waited_seconds: 3 }
            ))
            .is_none()
        );
        let indexed =
            view_thumbnail_request(&slot(file("gear.stl"), ViewState::Indexed(uid(7)))).unwrap();
        assert_eq!(indexed, ImageRequest::thumbnail_of_file(uid(7)));
        assert!(matches!(indexed.source, ImageSource::OfFile(ref record) if record.uid == uid(7)));
        // So does a drawing.
        assert!(
            view_thumbnail_request(&slot(file("flange.dxf"), ViewState::Indexed(uid(8)))).is_some()
        );
    }

    #[test]
    fn views_are_limited_to_ten_of_one_kind() {
        let mut bar = SearchBar::new();
        for i in 0..MAX_VIEWS {
            bar.add_view(file(&format!("view-{i}.png"))).unwrap();
        }
        let error = bar.add_view(file("view-10.png")).unwrap_err();
        assert!(error.contains("at most 10"), "{error}");

        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        assert!(bar.add_view(file("front.png")).is_err());
        let error = bar.add_view(file("bracket.stl")).unwrap_err();
        assert!(error.contains("one kind"), "{error}");
        assert!(bar.add_view(file("side.jpg")).is_ok());
        assert!(bar.add_view(file("README")).is_err());
        assert_eq!(bar.views().len(), 2);
        assert_eq!(ViewKind::of_name("plan.DXF"), ViewKind::Drawing);
        assert_eq!(ViewKind::of_name("part.step"), ViewKind::Model);
    }

    #[test]
    fn added_files_become_views_that_can_be_removed() {
        let mut harness = harness(SearchBar::new());
        harness.run();
        harness.state_mut().view.add_files([
            PathBuf::from("/parts/front.stl"),
            PathBuf::from("/parts/side.png"),
        ]);
        harness.run();
        // The STL went in; the PNG is refused as another kind, with a sentence.
        assert_eq!(harness.state().view.views().len(), 1);
        harness.get_by_label("front.stl");
        harness.get_by_label_contains("must be of one kind");
        harness.get_by_label("Remove").click();
        harness.run();
        assert!(harness.state().view.views().is_empty());
    }

    #[test]
    fn image_views_ask_for_their_thumbnail() {
        let mut bar = SearchBar::new();
        bar.add_view(file("front.png")).unwrap();
        let mut harness = harness(bar);
        harness.run();
        assert!(
            harness
                .state()
                .commands
                .contains(&Command::LoadImage(ImageRequest::local_file(
                    "/parts/front.png"
                )))
        );
    }
}
