//! The sketch pad of the query bar: draw the part (freehand, lines, circles; undo, clear, stroke
//! width) and search by the drawing as by a picture.
//!
//! The drawing becomes a view slot holding a PNG made in memory ([`raster`]): black lines on white,
//! framed and sized like the sample drawings, so the engine reads it as it reads a line drawing.
//! The bytes stay in memory ([`SketchImage`]) and go up like any other picture; nothing is written
//! to disk unless the search is kept in the history, whose store keeps a copy of every view (so it
//! can upload it again) and bounds what it keeps. "Use as view" puts the drawing into its slot (the
//! same slot again after changes); "Find parts" does it too when the drawing changed since.
//!
//! Keyboard: Ctrl+Z undoes the last stroke while the pad is open and no text field has the focus.

pub mod raster;
pub mod strokes;

use egui::{Color32, Pos2, Rect, Sense, Vec2};

use self::strokes::{DEFAULT_WIDTH, MAX_STROKES, Shape, Sketch, Stroke, Tool, WIDTH_RANGE};
use super::SearchBar;
use super::views::{ViewSource, ViewState};
pub use partlens_tasks::search::view_search::SketchImage;

/// Size of the drawing area, in points.
pub const PAD_SIZE: Vec2 = Vec2::new(400.0, 220.0);

/// The accessible name of the drawing area.
pub const PAD_LABEL: &str = "Sketch pad";

/// The sketch pad's state: open or not, the drawing, the tool and width, and the view slot the
/// drawing went into.
#[derive(Debug)]
pub struct SketchPad {
    open: bool,
    sketch: Sketch,
    tool: Tool,
    width: f32,
    /// The slot the drawing went into and the drawing's revision then.
    slot: Option<(u64, u64)>,
    /// Sketches made so far (for their names).
    made: u32,
}

impl Default for SketchPad {
    fn default() -> Self {
        Self {
            open: false,
            sketch: Sketch::new(),
            tool: Tool::default(),
            width: DEFAULT_WIDTH,
            slot: None,
            made: 0,
        }
    }
}

impl SketchPad {
    /// True while the pad is shown.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The drawing.
    pub fn sketch(&self) -> &Sketch {
        &self.sketch
    }

    /// The tool a drag uses.
    pub fn tool(&self) -> Tool {
        self.tool
    }

    /// True when the drawing has changed since it last went into its slot (or never went there).
    fn has_unused_changes(&self) -> bool {
        !self.sketch.is_empty()
            && self
                .slot
                .is_none_or(|(_, revision)| revision != self.sketch.revision())
    }
}

/// What the pad's controls asked for this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PadActions {
    use_as_view: bool,
}

impl SearchBar {
    /// The sketch pad.
    pub fn sketch_pad(&self) -> &SketchPad {
        &self.sketch_pad
    }

    /// Shows or hides the sketch pad.
    pub fn set_sketch_open(&mut self, open: bool) {
        self.sketch_pad.open = open;
    }

    /// Puts the drawing into its view slot: the slot it went into before (now showing the new
    /// drawing, to be uploaded again), or a new one. Returns the slot's id, or the sentence saying
    /// why not (nothing drawn, ten views already, views of another kind).
    pub fn use_sketch(&mut self) -> Result<u64, String> {
        let Some(image) = raster::render(self.sketch_pad.sketch.strokes()) else {
            return Err("Draw something on the sketch pad first.".to_owned());
        };
        let png = raster::encode_png(&image)
            .map_err(|error| format!("The sketch could not be made into a picture: {error}."))?;
        let revision = self.sketch_pad.sketch.revision();
        let existing = self
            .sketch_pad
            .slot
            .map(|(id, _)| id)
            .filter(|id| self.views.iter().any(|slot| slot.id == *id));
        let name = match existing.and_then(|id| self.views.iter().find(|slot| slot.id == id)) {
            Some(slot) => slot.source.name(),
            None => {
                self.sketch_pad.made += 1;
                match self.sketch_pad.made {
                    1 => "sketch.png".to_owned(),
                    made => format!("sketch-{made}.png"),
                }
            }
        };
        let source = ViewSource::Sketch(SketchImage::new(name, png.into()));
        let id = match existing {
            Some(id) => {
                if let Some(slot) = self.views.iter_mut().find(|slot| slot.id == id) {
                    slot.source = source;
                    slot.state = ViewState::New;
                }
                self.message = None;
                id
            }
            None => self.add_view(source)?,
        };
        self.sketch_pad.slot = Some((id, revision));
        Ok(id)
    }

    /// Before a search: a drawing changed since it last went into its slot goes there now.
    pub(super) fn use_changed_sketch(&mut self) -> Result<(), String> {
        if self.sketch_pad.open && self.sketch_pad.has_unused_changes() {
            self.use_sketch()?;
        }
        Ok(())
    }

    /// The pad: tools, stroke width, undo, clear, "Use as view" and the drawing area.
    pub(super) fn sketch_pad_ui(&mut self, ui: &mut egui::Ui) {
        let actions = self.sketch_pad.controls_ui(ui);
        self.sketch_pad.drawing_ui(ui);
        if actions.use_as_view {
            // A refusal leaves its sentence in `message`.
            let _ = self.use_sketch();
        }
    }
}

impl SketchPad {
    fn controls_ui(&mut self, ui: &mut egui::Ui) -> PadActions {
        let mut actions = PadActions::default();
        ui.horizontal_wrapped(|ui| {
            for tool in Tool::ALL {
                if ui
                    .add(egui::Button::new(tool.label()).selected(self.tool == tool))
                    .on_hover_text(tool.hint())
                    .clicked()
                {
                    self.tool = tool;
                }
            }
            ui.separator();
            let label = ui.label("Stroke width");
            ui.add(egui::Slider::new(&mut self.width, WIDTH_RANGE).step_by(0.5))
                .labelled_by(label.id);
            ui.separator();
            let undo_shortcut = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::Z);
            let typing = ui.memory(|memory| memory.focused().is_some());
            let undo_key = !typing && ui.input_mut(|input| input.consume_shortcut(&undo_shortcut));
            if ui
                .add_enabled(self.sketch.can_undo(), egui::Button::new("Undo"))
                .on_hover_text("Take back the last stroke (Ctrl+Z).")
                .clicked()
                || undo_key
            {
                self.sketch.undo();
            }
            if ui
                .add_enabled(!self.sketch.is_empty(), egui::Button::new("Clear"))
                .on_hover_text("Start again (Undo brings the drawing back).")
                .clicked()
            {
                self.sketch.clear();
            }
            ui.separator();
            let hint = if self.sketch.is_empty() {
                "Draw the part first."
            } else if self.has_unused_changes() {
                "Search by this drawing as a view (Find parts does it too)."
            } else {
                "The sketch view already shows this drawing."
            };
            actions.use_as_view = ui
                .add_enabled(self.has_unused_changes(), egui::Button::new("Use as view"))
                .on_hover_text(hint)
                .on_disabled_hover_text(hint)
                .clicked();
        });
        actions
    }

    /// The drawing area: paper, the strokes, the drag in progress; drags add strokes.
    fn drawing_ui(&mut self, ui: &mut egui::Ui) {
        let (rect, response) = ui.allocate_exact_size(PAD_SIZE, Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, PAD_LABEL));
        let pad_from_screen = |point: Pos2| -> Pos2 { rect.clamp(point) - rect.min.to_vec2() };
        if response.drag_started()
            && let Some(origin) = ui.input(|input| input.pointer.press_origin())
        {
            self.sketch.begin(self.tool, pad_from_screen(origin));
        }
        if self.sketch.is_drawing()
            && let Some(pointer) = response.interact_pointer_pos()
        {
            self.sketch.extend(pad_from_screen(pointer));
        }
        if response.drag_stopped() {
            self.sketch.end(self.width);
        }
        if response.clicked()
            && self.tool == Tool::Freehand
            && let Some(pointer) = response.interact_pointer_pos()
        {
            // A click with the freehand tool leaves a dot.
            self.sketch.begin(self.tool, pad_from_screen(pointer));
            self.sketch.end(self.width);
        }

        let painter = ui.painter_at(rect);
        // Paper is white in both themes: the picture that goes up is black on white too.
        painter.rect_filled(rect, 2.0, Color32::WHITE);
        painter.rect_stroke(
            rect,
            2.0,
            ui.visuals().widgets.noninteractive.bg_stroke,
            egui::StrokeKind::Inside,
        );
        let ink = Color32::from_gray(20);
        for stroke in self.sketch.strokes() {
            paint_stroke(&painter, rect, stroke, ink);
        }
        if let Some(preview) = self.sketch.preview(self.width) {
            paint_stroke(
                &painter,
                rect,
                &preview,
                ui.visuals().selection.stroke.color,
            );
        }
        if self.sketch.is_empty() && !self.sketch.is_drawing() {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                format!("Draw the part here: {}", self.tool.hint().to_lowercase()),
                egui::FontId::proportional(13.0),
                Color32::from_gray(140),
            );
        }
        if self.sketch.is_full() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "The sketch holds at most {MAX_STROKES} strokes; undo or clear to draw more."
                ),
            );
        }
    }
}

/// Paints one stroke on the pad at `rect`.
fn paint_stroke(painter: &egui::Painter, rect: Rect, stroke: &Stroke, colour: Color32) {
    let screen = |point: Pos2| rect.min + point.to_vec2();
    let line = egui::Stroke::new(stroke.width, colour);
    match &stroke.shape {
        Shape::Freehand(points) => match points.as_slice() {
            [] => {}
            [only] => {
                painter.circle_filled(screen(*only), stroke.width / 2.0, colour);
            }
            points => {
                painter.add(egui::Shape::line(
                    points.iter().map(|point| screen(*point)).collect(),
                    line,
                ));
            }
        },
        Shape::Line { from, to } => {
            painter.line_segment([screen(*from), screen(*to)], line);
        }
        Shape::Circle { centre, radius } => {
            painter.circle_stroke(screen(*centre), *radius, line);
        }
    }
}
