//! What a sketch is made of: strokes (freehand paths, straight lines, circles) with their width, in
//! the pad's own coordinates (points from the pad's top-left corner), and the edits the pad allows
//! (add a stroke, undo, clear, and undo the clear).
//!
//! Limits, so a sketch stays cheap to draw and to turn into a picture whatever the user does: at most
//! [`MAX_STROKES`] strokes, [`MAX_POINTS_PER_STROKE`] points a freehand stroke (points closer than
//! [`MIN_POINT_SPACING`] to the previous one are skipped; past the limit the stroke ends), and
//! [`MAX_UNDO_STEPS`] steps of undo.

use egui::{Pos2, Rect};

/// Most strokes one sketch holds; the pad says so when it is full.
pub const MAX_STROKES: usize = 500;

/// Most points of one freehand stroke; further points end it.
pub const MAX_POINTS_PER_STROKE: usize = 2_000;

/// Points of a freehand stroke closer than this (pad points) to the previous one are skipped.
pub const MIN_POINT_SPACING: f32 = 1.0;

/// How many edits can be undone.
pub const MAX_UNDO_STEPS: usize = 100;

/// Stroke widths the pad offers, in pad points.
pub const WIDTH_RANGE: std::ops::RangeInclusive<f32> = 1.0..=12.0;

/// The width a new pad starts with.
pub const DEFAULT_WIDTH: f32 = 3.0;

/// What a drag on the pad draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tool {
    /// A path following the pointer.
    #[default]
    Freehand,
    /// A straight line from where the drag starts to where it ends.
    Line,
    /// A circle centred where the drag starts, through where it ends.
    Circle,
}

impl Tool {
    /// Every tool, in the order the pad offers them.
    pub const ALL: [Self; 3] = [Self::Freehand, Self::Line, Self::Circle];

    /// The tool's name on its button (and its accessible label).
    pub fn label(self) -> &'static str {
        match self {
            Self::Freehand => "Freehand",
            Self::Line => "Line",
            Self::Circle => "Circle",
        }
    }

    /// How the tool is used, for its tooltip.
    pub fn hint(self) -> &'static str {
        match self {
            Self::Freehand => "Drag to draw freely.",
            Self::Line => "Drag from one end of the line to the other.",
            Self::Circle => {
                "Drag from the centre outwards; the circle goes through where you let go."
            }
        }
    }
}

/// The geometry of one stroke, in pad points.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A path through these points (one point is a dot).
    Freehand(Vec<Pos2>),
    /// A straight line.
    Line {
        /// One end.
        from: Pos2,
        /// The other end.
        to: Pos2,
    },
    /// A circle.
    Circle {
        /// Its centre.
        centre: Pos2,
        /// Its radius.
        radius: f32,
    },
}

impl Shape {
    /// The smallest rectangle holding the shape's centre line.
    pub fn bounds(&self) -> Rect {
        match self {
            Self::Freehand(points) => Rect::from_points(points),
            Self::Line { from, to } => Rect::from_two_pos(*from, *to),
            Self::Circle { centre, radius } => {
                Rect::from_center_size(*centre, egui::Vec2::splat(2.0 * radius))
            }
        }
    }
}

/// One stroke: a shape drawn with a width.
#[derive(Clone, Debug, PartialEq)]
pub struct Stroke {
    /// What is drawn.
    pub shape: Shape,
    /// Line width in pad points.
    pub width: f32,
}

impl Stroke {
    /// The area the stroke covers, width included.
    pub fn bounds(&self) -> Rect {
        self.shape.bounds().expand(self.width / 2.0)
    }
}

/// A drag in progress: what it will add when the pointer is let go.
#[derive(Clone, Debug, PartialEq)]
struct Gesture {
    tool: Tool,
    start: Pos2,
    points: Vec<Pos2>,
    last: Pos2,
}

/// The strokes of a sketch with their undo history and the drag in progress.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sketch {
    strokes: Vec<Stroke>,
    undo: Vec<Vec<Stroke>>,
    gesture: Option<Gesture>,
    /// Counts every change, so the pad knows whether its view slot shows the latest drawing.
    revision: u64,
}

impl Sketch {
    /// An empty sketch.
    pub fn new() -> Self {
        Self::default()
    }

    /// The finished strokes, oldest first.
    pub fn strokes(&self) -> &[Stroke] {
        &self.strokes
    }

    /// True when nothing is drawn.
    pub fn is_empty(&self) -> bool {
        self.strokes.is_empty()
    }

    /// True when no further stroke fits.
    pub fn is_full(&self) -> bool {
        self.strokes.len() >= MAX_STROKES
    }

    /// True when there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Increases with every change of the strokes.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Adds a finished stroke (ignored when the sketch is full).
    pub fn add(&mut self, stroke: Stroke) {
        if self.is_full() {
            return;
        }
        self.remember();
        self.strokes.push(stroke);
    }

    /// Takes every stroke away; undo brings them back.
    pub fn clear(&mut self) {
        if self.strokes.is_empty() {
            return;
        }
        self.remember();
        self.strokes.clear();
    }

    /// Goes back one edit (a stroke added, or a clear).
    pub fn undo(&mut self) {
        if let Some(previous) = self.undo.pop() {
            self.strokes = previous;
            self.gesture = None;
            self.revision += 1;
        }
    }

    fn remember(&mut self) {
        if self.undo.len() >= MAX_UNDO_STEPS {
            self.undo.remove(0);
        }
        self.undo.push(self.strokes.clone());
        self.revision += 1;
    }

    /// A drag starts at `at` with `tool`.
    pub fn begin(&mut self, tool: Tool, at: Pos2) {
        self.gesture = Some(Gesture {
            tool,
            start: at,
            points: vec![at],
            last: at,
        });
    }

    /// The pointer moved to `to` during the drag.
    pub fn extend(&mut self, to: Pos2) {
        let Some(gesture) = &mut self.gesture else {
            return;
        };
        gesture.last = to;
        if gesture.tool == Tool::Freehand
            && gesture.points.len() < MAX_POINTS_PER_STROKE
            && gesture
                .points
                .last()
                .is_none_or(|last| last.distance(to) >= MIN_POINT_SPACING)
        {
            gesture.points.push(to);
        }
    }

    /// The stroke the drag would add if it ended now.
    pub fn preview(&self, width: f32) -> Option<Stroke> {
        let gesture = self.gesture.as_ref()?;
        let shape = match gesture.tool {
            Tool::Freehand => Shape::Freehand(gesture.points.clone()),
            Tool::Line => Shape::Line {
                from: gesture.start,
                to: gesture.last,
            },
            Tool::Circle => Shape::Circle {
                centre: gesture.start,
                radius: gesture.start.distance(gesture.last),
            },
        };
        Some(Stroke { shape, width })
    }

    /// The drag ended: its stroke is added. A line or circle too small to see is dropped (a click
    /// with those tools draws nothing); a freehand click leaves a dot.
    pub fn end(&mut self, width: f32) {
        let stroke = self.preview(width);
        self.gesture = None;
        let Some(stroke) = stroke else {
            return;
        };
        let visible = match &stroke.shape {
            Shape::Freehand(points) => !points.is_empty(),
            Shape::Line { from, to } => from.distance(*to) >= MIN_POINT_SPACING,
            Shape::Circle { radius, .. } => *radius >= MIN_POINT_SPACING,
        };
        if visible {
            self.add(stroke);
        }
    }

    /// True while a drag is in progress.
    pub fn is_drawing(&self) -> bool {
        self.gesture.is_some()
    }

    /// The area every finished stroke covers, width included; `None` for an empty sketch.
    pub fn bounds(&self) -> Option<Rect> {
        self.strokes
            .iter()
            .map(Stroke::bounds)
            .reduce(|all, one| all.union(one))
    }
}

#[cfg(test)]
mod tests {
    use egui::pos2;

    use super::*;

    fn drag(sketch: &mut Sketch, tool: Tool, points: &[Pos2]) {
        sketch.begin(tool, points[0]);
        for point in &points[1..] {
            sketch.extend(*point);
        }
        sketch.end(DEFAULT_WIDTH);
    }

    #[test]
    fn each_tool_turns_a_drag_into_its_shape() {
        let mut sketch = Sketch::new();
        drag(
            &mut sketch,
            Tool::Circle,
            &[pos2(100.0, 100.0), pos2(120.0, 100.0), pos2(130.0, 140.0)],
        );
        drag(
            &mut sketch,
            Tool::Line,
            &[pos2(0.0, 0.0), pos2(5.0, 5.0), pos2(30.0, 40.0)],
        );
        drag(
            &mut sketch,
            Tool::Freehand,
            &[
                pos2(0.0, 0.0),
                pos2(0.2, 0.0),
                pos2(3.0, 0.0),
                pos2(6.0, 0.0),
            ],
        );
        let strokes = sketch.strokes();
        assert_eq!(strokes.len(), 3);
        assert_eq!(
            strokes[0].shape,
            Shape::Circle {
                centre: pos2(100.0, 100.0),
                radius: 50.0
            }
        );
        assert_eq!(
            strokes[1].shape,
            Shape::Line {
                from: pos2(0.0, 0.0),
                to: pos2(30.0, 40.0)
            }
        );
        // The point closer than the minimum spacing is skipped.
        assert_eq!(
            strokes[2].shape,
            Shape::Freehand(vec![pos2(0.0, 0.0), pos2(3.0, 0.0), pos2(6.0, 0.0)])
        );
        assert!(!sketch.is_drawing());
        let bounds = sketch.bounds().unwrap();
        assert_eq!(bounds.min, pos2(-1.5, -1.5));
        assert_eq!(bounds.max, pos2(151.5, 151.5));
    }

    #[test]
    fn a_click_with_the_line_or_circle_tool_draws_nothing_but_a_freehand_click_a_dot() {
        let mut sketch = Sketch::new();
        drag(&mut sketch, Tool::Line, &[pos2(10.0, 10.0)]);
        drag(&mut sketch, Tool::Circle, &[pos2(10.0, 10.0)]);
        assert!(sketch.is_empty());
        drag(&mut sketch, Tool::Freehand, &[pos2(10.0, 10.0)]);
        assert_eq!(sketch.strokes().len(), 1);
    }

    #[test]
    fn undo_takes_back_strokes_and_clears() {
        let mut sketch = Sketch::new();
        assert!(!sketch.can_undo());
        drag(&mut sketch, Tool::Line, &[pos2(0.0, 0.0), pos2(10.0, 0.0)]);
        drag(&mut sketch, Tool::Line, &[pos2(0.0, 5.0), pos2(10.0, 5.0)]);
        let before = sketch.revision();
        sketch.clear();
        assert!(sketch.is_empty());
        assert!(sketch.revision() > before);
        sketch.undo();
        assert_eq!(sketch.strokes().len(), 2);
        sketch.undo();
        assert_eq!(sketch.strokes().len(), 1);
        sketch.undo();
        assert!(sketch.is_empty());
        assert!(!sketch.can_undo());
        sketch.undo();
        assert!(sketch.is_empty());
    }

    #[test]
    fn strokes_points_and_undo_steps_are_bounded() {
        let mut sketch = Sketch::new();
        for i in 0..MAX_STROKES + 5 {
            let y = i as f32;
            drag(&mut sketch, Tool::Line, &[pos2(0.0, y), pos2(10.0, y)]);
        }
        assert_eq!(sketch.strokes().len(), MAX_STROKES);
        assert!(sketch.is_full());
        let mut undone = 0;
        while sketch.can_undo() {
            sketch.undo();
            undone += 1;
        }
        assert_eq!(undone, MAX_UNDO_STEPS);
        assert_eq!(sketch.strokes().len(), MAX_STROKES - MAX_UNDO_STEPS);

        let mut sketch = Sketch::new();
        sketch.begin(Tool::Freehand, pos2(0.0, 0.0));
        for i in 1..MAX_POINTS_PER_STROKE * 2 {
            sketch.extend(pos2(i as f32 * 2.0, 0.0));
        }
        sketch.end(DEFAULT_WIDTH);
        let Shape::Freehand(points) = &sketch.strokes()[0].shape else {
            panic!("not a freehand stroke");
        };
        assert_eq!(points.len(), MAX_POINTS_PER_STROKE);
    }
}
