//! A drawing reduced to what the engine draws and reads: strokes (polylines in drawing units), filled
//! outlines, and placed texts with their frames. Format readers (DXF, PDF) produce a [`Scene`]; the
//! page, the raster and the PMI are made from it.

use super::PmiItemKind;

/// A point in drawing units (x to the right, y up).
pub type Point2 = [f64; 2];

/// An affine map of the plane: `x' = a·x + c·y + e`, `y' = b·x + d·y + f`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
}

impl Transform {
    /// The identity.
    pub const IDENTITY: Self = Self {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        e: 0.0,
        f: 0.0,
    };

    /// The map with these coefficients (PDF's `[a b c d e f]` order).
    pub fn new(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64) -> Self {
        Self { a, b, c, d, e, f }
    }

    /// A translation.
    pub fn translate(dx: f64, dy: f64) -> Self {
        Self {
            e: dx,
            f: dy,
            ..Self::IDENTITY
        }
    }

    /// A rotation about the origin, counter-clockwise, in radians.
    pub fn rotate(radians: f64) -> Self {
        let (sin, cos) = radians.sin_cos();
        Self {
            a: cos,
            b: sin,
            c: -sin,
            d: cos,
            e: 0.0,
            f: 0.0,
        }
    }

    /// A scaling about the origin.
    pub fn scale(sx: f64, sy: f64) -> Self {
        Self {
            a: sx,
            d: sy,
            ..Self::IDENTITY
        }
    }

    /// `self ∘ inner`: applies `inner` first, then `self`.
    pub fn then_inner(&self, inner: &Self) -> Self {
        Self {
            a: self.a * inner.a + self.c * inner.b,
            b: self.b * inner.a + self.d * inner.b,
            c: self.a * inner.c + self.c * inner.d,
            d: self.b * inner.c + self.d * inner.d,
            e: self.a * inner.e + self.c * inner.f + self.e,
            f: self.b * inner.e + self.d * inner.f + self.f,
        }
    }

    /// Maps a point.
    pub fn apply(&self, [x, y]: Point2) -> Point2 {
        [
            self.a * x + self.c * y + self.e,
            self.b * x + self.d * y + self.f,
        ]
    }
}

/// A text placed on the drawing. Its local frame has the origin at the left end of the first line's
/// baseline, x along the text and y up, in drawing units before `frame` maps it to the drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedText {
    /// The cleaned text; lines separated by `\n`.
    pub text: String,
    /// What the text is on the drawing.
    pub kind: PmiItemKind,
    /// The ATTRIB tag for title-block values.
    pub tag: Option<String>,
    /// Local frame → drawing.
    pub frame: Transform,
    /// Capital height, local units.
    pub height: f64,
    /// Width given to one character, local units (no glyph metrics: a fixed share of the height).
    pub char_width: f64,
    /// Distance between baselines, local units.
    pub line_pitch: f64,
    /// False for texts that are read but not drawn (invisible attributes).
    pub visible: bool,
}

impl PlacedText {
    /// Width of the widest line, local units.
    pub fn width(&self) -> f64 {
        let widest = self
            .text
            .lines()
            .map(|line| line.chars().count())
            .max()
            .unwrap_or(0);
        widest as f64 * self.char_width
    }

    /// The corners of the text's box in drawing units (counter-clockwise from bottom-left).
    pub fn corners(&self) -> [Point2; 4] {
        let lines = self.text.lines().count().max(1);
        let bottom = -((lines - 1) as f64) * self.line_pitch - 0.25 * self.height;
        let top = self.height;
        let right = self.width();
        [
            self.frame.apply([0.0, bottom]),
            self.frame.apply([right, bottom]),
            self.frame.apply([right, top]),
            self.frame.apply([0.0, top]),
        ]
    }

    /// One quadrilateral per word, from baseline to x-height, in drawing units: the "greeked" picture
    /// of the text when no glyphs are drawn.
    pub fn word_shapes(&self) -> Vec<[Point2; 4]> {
        let mut shapes = Vec::new();
        for (row, line) in self.text.lines().enumerate() {
            let baseline = -(row as f64) * self.line_pitch;
            let mut start: Option<usize> = None;
            let chars: Vec<char> = line.chars().collect();
            for index in 0..=chars.len() {
                let in_word = chars.get(index).is_some_and(|c| !c.is_whitespace());
                match (in_word, start) {
                    (true, None) => start = Some(index),
                    (false, Some(first)) => {
                        let left = first as f64 * self.char_width;
                        let right = (index as f64 - 0.15) * self.char_width;
                        let top = baseline + 0.7 * self.height;
                        shapes.push([
                            self.frame.apply([left, baseline]),
                            self.frame.apply([right, baseline]),
                            self.frame.apply([right, top]),
                            self.frame.apply([left, top]),
                        ]);
                        start = None;
                    }
                    _ => {}
                }
            }
        }
        shapes
    }
}

/// Everything drawn and read on one page, in drawing units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Open or closed polylines (a closed one repeats its first point).
    pub strokes: Vec<Vec<Point2>>,
    /// Filled outlines (SOLID, arrowheads).
    pub fills: Vec<Vec<Point2>>,
    /// Texts, notes, dimension values, attributes.
    pub texts: Vec<PlacedText>,
    /// Texts of the drawing that have no place on this page: a DXF's model-space texts that no
    /// viewport of its paper-space layout shows. They are read as the drawing's text and
    /// attributes, not drawn and not PMI items.
    pub off_page_texts: Vec<PlacedText>,
}

impl Scene {
    /// The extents of everything drawn or written: (min, max), or `None` for an empty scene.
    pub fn extents(&self) -> Option<(Point2, Point2)> {
        let mut min = [f64::INFINITY; 2];
        let mut max = [f64::NEG_INFINITY; 2];
        let mut grow = |[x, y]: Point2| {
            if x.is_finite() && y.is_finite() {
                min = [min[0].min(x), min[1].min(y)];
                max = [max[0].max(x), max[1].max(y)];
            }
        };
        self.strokes
            .iter()
            .chain(&self.fills)
            .flatten()
            .for_each(|point| grow(*point));
        for text in self.texts.iter().filter(|text| text.visible) {
            text.corners().into_iter().for_each(&mut grow);
        }
        (min[0] <= max[0] && min[1] <= max[1]).then_some((min, max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_compose_in_order() {
        // Scale by 2, then rotate a quarter turn, then move by (10, 0).
        let map = Transform::translate(10.0, 0.0)
            .then_inner(&Transform::rotate(std::f64::consts::FRAC_PI_2))
            .then_inner(&Transform::scale(2.0, 2.0));
        let [x, y] = map.apply([1.0, 0.0]);
        assert!((x - 10.0).abs() < 1e-9 && (y - 2.0).abs() < 1e-9, "{x} {y}");
    }

    #[test]
    fn a_text_box_spans_its_lines_and_words() {
        let text = PlacedText {
            text: "AB CD\nEFGHIJ".into(),
            kind: PmiItemKind::Note,
            tag: None,
            frame: Transform::translate(100.0, 50.0),
            height: 2.0,
            char_width: 1.0,
            line_pitch: 3.0,
            visible: true,
        };
        let [bottom_left, _, top_right, _] = text.corners();
        assert_eq!(top_right, [106.0, 52.0]);
        assert_eq!(bottom_left, [100.0, 50.0 - 3.0 - 0.5]);
        assert_eq!(text.word_shapes().len(), 3);
        let scene = Scene {
            texts: vec![text],
            ..Scene::default()
        };
        assert_eq!(scene.extents(), Some(([100.0, 46.5], [106.0, 52.0])));
        assert_eq!(Scene::default().extents(), None);
    }
}
