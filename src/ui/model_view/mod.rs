//! The 3D preview of a model: a viewport that turns (drag), pans (right-drag or Shift + drag) and
//! zooms (scroll) the model, a toolbar with *Fit*, zoom and the seven standard views, crease edges
//! on or off, and the model's measurements. Keys while the pointer is over the viewport: F fits,
//! 1–7 pick the standard views in toolbar order.
//!
//! [`camera`] holds the view; [`gpu`] draws the model with wgpu into a texture (depth-buffered, the
//! app's renderer), and where eframe runs without wgpu (glow, the test harness) [`shading`] turns it
//! into one egui mesh instead; [`cache`] keeps the models the Search place asked for. What was drawn
//! is kept while nothing changes, so a still frame costs nothing but showing it.
//!
//! An assembly's component can be lit ([`ModelView::light_component`]): every instance of it in the
//! accent colour, the rest faded and see-through, in both renderers.

pub mod cache;
pub mod camera;
pub mod gpu;
pub mod shading;

use std::sync::Arc;

use egui::{Rect, Sense, Vec2};

use self::camera::{Camera, StandardView};
use self::gpu::GpuView;
use self::shading::{ModelStyle, model_mesh, model_mesh_lit};
use crate::ui::results::thousands;
use partlens_tasks::models::ModelPreview;

pub use self::cache::{ModelCache, ModelEntry};

/// Zoom step of the toolbar buttons.
const ZOOM_STEP: f32 = 1.25;

/// How fast a model turns in a card on hover, radians a second.
const TURNTABLE_SPEED: f32 = 0.8;

/// What the painted mesh was made from; while it is the same, the mesh is reused.
#[derive(Clone, Debug, PartialEq)]
struct PaintedFrom {
    model: usize,
    camera: Camera,
    rect: Rect,
    style: ModelStyle,
    /// The lit component's name.
    lit: Option<String>,
}

/// The component lit in the viewport: its name and which triangles of the preview's mesh show it.
#[derive(Clone, Debug)]
pub struct LitComponent {
    /// The component's name (as its record's file name is made, without the extension).
    pub name: String,
    /// One flag a triangle of the mesh it was made for.
    pub triangles: Arc<[bool]>,
    /// How many of them are lit.
    pub count: usize,
}

/// The state of one 3D viewport: its camera, whether edges are drawn, and the last painted mesh.
#[derive(Debug)]
pub struct ModelView {
    camera: Option<Camera>,
    /// A fit asked for by the toolbar, done with the viewport's real shape on the next paint.
    fit_to: Option<StandardView>,
    edges: bool,
    /// What the last frame showed: a mesh (egui's painter) or a texture (the GPU).
    painted: Option<(PaintedFrom, Painted)>,
    /// The GPU state, when the app runs on wgpu.
    gpu: Option<GpuView>,
    /// The component of an assembly that is lit, if any.
    lit: Option<LitComponent>,
}

/// What a viewport last showed.
#[derive(Debug)]
enum Painted {
    /// A mesh for egui's painter.
    Mesh(Arc<egui::epaint::Mesh>),
    /// A texture the GPU drew.
    Texture(egui::TextureId),
}

impl Default for ModelView {
    fn default() -> Self {
        Self {
            camera: None,
            fit_to: Some(StandardView::Isometric),
            edges: true,
            painted: None,
            gpu: None,
            lit: None,
        }
    }
}

impl ModelView {
    /// A viewport that starts with the isometric view, fitted.
    pub fn new() -> Self {
        Self::default()
    }

    /// The camera, once the model has been shown.
    pub fn camera(&self) -> Option<&Camera> {
        self.camera.as_ref()
    }

    /// Turns the view as a drag of `delta` points does (once the model has been shown).
    pub fn orbit(&mut self, delta: Vec2) {
        if let Some(camera) = &mut self.camera {
            camera.orbit(delta);
        }
    }

    /// True when crease edges are drawn.
    pub fn shows_edges(&self) -> bool {
        self.edges
    }

    /// Lights the component named `name` in `preview` (every instance of it, everything in an
    /// instance of a subassembly), or nothing with `None`. Returns how many triangles are lit: 0
    /// when the preview has none of it (nothing is lit then).
    pub fn light_component(&mut self, preview: &ModelPreview, name: Option<&str>) -> usize {
        self.lit = name.and_then(|name| {
            let ranges = preview.component_triangles(name);
            let mut triangles = vec![false; preview.mesh.triangles.len()];
            let mut count = 0;
            for range in ranges {
                for flag in triangles
                    .iter_mut()
                    .take(range.end as usize)
                    .skip(range.start as usize)
                {
                    *flag = true;
                    count += 1;
                }
            }
            (count > 0).then(|| LitComponent {
                name: name.to_owned(),
                triangles: triangles.into(),
                count,
            })
        });
        self.lit.as_ref().map_or(0, |lit| lit.count)
    }

    /// The component lit, if any.
    pub fn lit_component(&self) -> Option<&LitComponent> {
        self.lit.as_ref()
    }

    /// The toolbar: *Fit*, *Zoom in*, *Zoom out*, the seven standard views and *Edges*.
    pub fn toolbar_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Fit")
                .on_hover_text("Show the whole model (F)")
                .clicked()
            {
                self.fit_to = Some(self.current_view());
            }
            if ui.button("Zoom in").clicked()
                && let Some(camera) = &mut self.camera
            {
                camera.zoom(ZOOM_STEP);
            }
            if ui.button("Zoom out").clicked()
                && let Some(camera) = &mut self.camera
            {
                camera.zoom(1.0 / ZOOM_STEP);
            }
            ui.separator();
            let current = self.camera.as_ref().and_then(Camera::standard_view);
            for (number, view) in StandardView::ALL.into_iter().enumerate() {
                let response = ui
                    .selectable_label(current == Some(view), view.label())
                    .on_hover_text(format!("{} view ({})", view.label(), number + 1));
                if response.clicked() {
                    self.fit_to = Some(view);
                }
            }
            ui.separator();
            ui.checkbox(&mut self.edges, "Edges");
        });
    }

    /// The standard view shown, or the isometric one when the model was turned freely.
    fn current_view(&self) -> StandardView {
        self.camera
            .as_ref()
            .and_then(Camera::standard_view)
            .unwrap_or(StandardView::Isometric)
    }

    /// The viewport, `size` points large: draws the model and turns, pans and zooms it.
    pub fn viewport_ui(
        &mut self,
        ui: &mut egui::Ui,
        preview: &Arc<ModelPreview>,
        size: Vec2,
    ) -> egui::Response {
        let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
        let name = preview.name.clone();
        response.widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::Image, true, format!("3D view of {name}"))
        });
        if let Some(camera) = &mut self.camera {
            let delta = response.drag_delta();
            let panning = response.dragged_by(egui::PointerButton::Secondary)
                || response.dragged_by(egui::PointerButton::Middle)
                || (response.dragged_by(egui::PointerButton::Primary)
                    && ui.input(|i| i.modifiers.shift));
            if panning {
                camera.pan(delta, rect.height());
            } else if response.dragged_by(egui::PointerButton::Primary) {
                camera.orbit(delta);
            }
            if response.hovered() {
                let scroll = ui.input(|input| input.smooth_scroll_delta.y);
                if scroll != 0.0 {
                    camera.zoom_by_scroll(scroll);
                }
            }
        }
        if response.double_clicked() {
            self.fit_to = Some(self.current_view());
        }
        if response.hovered() {
            self.keys(ui);
        }
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 4.0, viewport_background(ui.visuals()));
        self.paint(&painter, rect, preview, ui.visuals());
        axes_ui(&painter, rect, self.camera.as_ref(), ui.visuals());
        response
    }

    /// F fits, 1–7 pick the standard views.
    fn keys(&mut self, ui: &egui::Ui) {
        use egui::Key;
        let numbers = [
            Key::Num1,
            Key::Num2,
            Key::Num3,
            Key::Num4,
            Key::Num5,
            Key::Num6,
            Key::Num7,
        ];
        let (fit, chosen) = ui.input(|input| {
            (
                input.key_pressed(Key::F) && input.modifiers.is_none(),
                numbers
                    .iter()
                    .position(|key| input.key_pressed(*key) && input.modifiers.is_none()),
            )
        });
        if fit {
            self.fit_to = Some(self.current_view());
        }
        if let Some(index) = chosen {
            self.fit_to = Some(StandardView::ALL[index]);
        }
    }

    /// Paints the model into `rect` with this view's camera (fitting it first when asked).
    pub fn paint(
        &mut self,
        painter: &egui::Painter,
        rect: Rect,
        preview: &Arc<ModelPreview>,
        visuals: &egui::Visuals,
    ) {
        let aspect = rect.width() / rect.height().max(1.0);
        if let Some(view) = self.fit_to.take() {
            self.camera = Some(Camera::fitted(preview.measurements.bounds, view, aspect));
        }
        let Some(camera) = self.camera else {
            return;
        };
        let from = PaintedFrom {
            model: Arc::as_ptr(preview) as usize,
            camera,
            rect,
            style: ModelStyle::for_visuals(visuals, self.edges),
            lit: self.lit.as_ref().map(|lit| lit.name.clone()),
        };
        let lit = self.lit.as_ref().map(|lit| &*lit.triangles);
        if let Some((painted, shown)) = &self.painted
            && *painted == from
        {
            show(painter, rect, shown);
            return;
        }
        let shown = match gpu::renderer(painter.ctx()) {
            Some(renderer) => {
                let view = self.gpu.get_or_insert_with(|| GpuView::new(renderer));
                let pixels = rect.size() * painter.ctx().pixels_per_point();
                let size = [pixels.x.round() as u32, pixels.y.round() as u32];
                Painted::Texture(view.draw(
                    preview,
                    &camera,
                    size,
                    &from.style,
                    lit,
                    viewport_background(visuals),
                ))
            }
            None => Painted::Mesh(Arc::new(model_mesh_lit(
                preview,
                &camera,
                rect,
                &from.style,
                lit,
            ))),
        };
        show(painter, rect, &shown);
        self.painted = Some((from, shown));
    }
}

/// The colour behind a model: a neutral grey that sets off the surface and its edges.
fn viewport_background(visuals: &egui::Visuals) -> egui::Color32 {
    if visuals.dark_mode {
        egui::Color32::from_gray(40)
    } else {
        egui::Color32::from_gray(232)
    }
}

/// Shows what a viewport painted.
fn show(painter: &egui::Painter, rect: Rect, painted: &Painted) {
    match painted {
        Painted::Mesh(mesh) => {
            painter.add(egui::Shape::Mesh(mesh.clone()));
        }
        Painted::Texture(texture) => {
            painter.image(
                *texture,
                rect,
                Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                egui::Color32::WHITE,
            );
        }
    }
}

/// Paints `preview` turning slowly about its vertical axis (a result card on hover).
pub fn turntable_ui(ui: &egui::Ui, rect: Rect, preview: &ModelPreview) {
    let time = ui.input(|input| input.time) as f32;
    let aspect = rect.width() / rect.height().max(1.0);
    let mut camera = Camera::fitted(preview.measurements.bounds, StandardView::Isometric, aspect);
    camera.yaw += time * TURNTABLE_SPEED;
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, viewport_background(ui.visuals()));
    let style = ModelStyle::for_visuals(ui.visuals(), true);
    painter.add(egui::Shape::mesh(model_mesh(
        preview, &camera, rect, &style,
    )));
    ui.ctx().request_repaint();
}

/// A small axis cross in the lower-left corner: X red, Y green, Z blue, as the camera sees them.
fn axes_ui(painter: &egui::Painter, rect: Rect, camera: Option<&Camera>, visuals: &egui::Visuals) {
    let Some(camera) = camera else {
        return;
    };
    let basis = camera.basis();
    let origin = rect.left_bottom() + Vec2::new(28.0, -28.0);
    let length = 18.0;
    let axes = [
        (
            "X",
            [1.0, 0.0, 0.0],
            egui::Color32::from_rgb(0xd6, 0x45, 0x45),
        ),
        (
            "Y",
            [0.0, 1.0, 0.0],
            egui::Color32::from_rgb(0x3a, 0xa6, 0x4a),
        ),
        (
            "Z",
            [0.0, 0.0, 1.0],
            egui::Color32::from_rgb(0x3f, 0x72, 0xd8),
        ),
    ];
    for (name, axis, color) in axes {
        let dot = |a: [f32; 3]| a[0] * axis[0] + a[1] * axis[1] + a[2] * axis[2];
        let tip = origin + Vec2::new(dot(basis.right), -dot(basis.up)) * length;
        painter.line_segment([origin, tip], egui::Stroke::new(2.0, color));
        painter.text(
            tip + (tip - origin).normalized() * 7.0,
            egui::Align2::CENTER_CENTER,
            name,
            egui::FontId::proportional(10.0),
            if visuals.dark_mode {
                color.gamma_multiply(1.2)
            } else {
                color
            },
        );
    }
}

/// The model's measurements as a grid: size, triangles, surface area, volume, where it was found.
pub fn measurements_ui(ui: &mut egui::Ui, preview: &ModelPreview) {
    let measured = &preview.measurements;
    let [x, y, z] = measured.size();
    egui::Grid::new("model measurements")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            ui.strong("Size (X × Y × Z)");
            ui.label(format!(
                "{} × {} × {} mm",
                measure_text(x),
                measure_text(y),
                measure_text(z)
            ));
            ui.end_row();
            ui.strong("Triangles");
            if preview.is_reduced() {
                ui.label(format!(
                    "{} ({} drawn)",
                    thousands(measured.triangles as u64),
                    thousands(preview.mesh.triangles.len() as u64)
                ));
            } else {
                ui.label(thousands(measured.triangles as u64));
            }
            ui.end_row();
            ui.strong("Surface area");
            ui.label(format!("{} mm²", measure_text(measured.surface_area)));
            ui.end_row();
            ui.strong("Volume");
            match measured.volume {
                Some(volume) => ui.label(format!("{} mm³", measure_text(volume))),
                None => ui.label("— (the surface is not closed)"),
            };
            ui.end_row();
            ui.strong("Read from");
            ui.add(egui::Label::new(&preview.origin).truncate());
            ui.end_row();
        });
}

/// A measurement for reading: three decimals at most, no trailing zeros, thousands grouped
/// (`12.5`, `0.0123`, `1,234.6`).
pub fn measure_text(value: f64) -> String {
    let decimals = if value.abs() >= 100.0 {
        1
    } else if value.abs() >= 1.0 {
        3
    } else {
        4
    };
    let text = format!("{:.decimals$}", value.abs());
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let grouped = whole
        .parse::<u64>()
        .map(thousands)
        .unwrap_or_else(|_| whole.to_owned());
    let sign = if value < 0.0 && text != "0" { "-" } else { "" };
    if fraction.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{fraction}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurements_read_short() {
        assert_eq!(measure_text(40.0), "40");
        assert_eq!(measure_text(12.5), "12.5");
        assert_eq!(measure_text(1234.56), "1,234.6");
        assert_eq!(measure_text(0.01234), "0.0123");
        assert_eq!(measure_text(0.0), "0");
        assert_eq!(measure_text(-2.5), "-2.5");
        assert_eq!(measure_text(1_234_567.0), "1,234,567");
    }
}
