//! Reading a DXF file (the `dxf` crate) into one [`Scene`] a page, within limits for the whole file:
//! bytes read, entities visited (block references count each time they are expanded), points
//! produced and block nesting. The pages are model space, then each paper-space layout with
//! something on it (`dxf_layouts.rs`).
//!
//! Supported: LINE, LWPOLYLINE, POLYLINE, CIRCLE, ARC, ELLIPSE, SPLINE, SOLID, LEADER, TEXT, MTEXT,
//! ATTRIB (in INSERTs), DIMENSION (its block when present, else lines from its definition points),
//! TOLERANCE, INSERT (nested, with arrays). Other entities, invisible ones and those on layers that
//! are off are skipped.
//!
//! Texts are counted in a [`TextBudget`] as they are placed: a block reference repeats its block's
//! texts, so a few kilobytes of nested blocks over an MTEXT could otherwise place a gigabyte of text.

use std::collections::{HashMap, HashSet};
use std::io::Cursor;

use dxf::entities::{
    AngularThreePointDimension, Arc, DimensionBase, Ellipse, Entity, EntityType, LwPolyline, MText,
    OrdinateDimension, RotatedDimension, Solid, Spline, Text, Tolerance,
};
use dxf::enums::{
    AttachmentPoint, DimensionType, HorizontalTextJustification, VerticalTextJustification,
};
use dxf::{Block, Drawing, Point, Vector};

use super::super::limits::{OverLimit, TextBudget};
use super::PmiItemKind;
use super::curves;
use super::dxf_layouts::{LayoutEntities, PaperLayout};
use super::dxf_tags::{self, Viewport};
use super::scene::{PlacedText, Point2, Scene, Transform};
use super::text_clean;

/// Largest DXF file read, in bytes.
pub const MAX_DXF_BYTES: usize = 64 * 1024 * 1024;
/// Most entities visited, counting every expansion of a block.
pub const MAX_ENTITIES: usize = 200_000;
/// Most points in the scene.
pub const MAX_POINTS: usize = 4_000_000;
/// Deepest block nesting expanded.
pub const MAX_BLOCK_DEPTH: usize = 16;
/// Most copies one INSERT array makes.
const MAX_ARRAY_COPIES: usize = 1_000;
/// Width of one character as a share of the text height (no glyph metrics).
const CHAR_WIDTH: f64 = 0.6;
/// Baseline distance of MTEXT lines as a share of the text height (AutoCAD's "at least" spacing).
const LINE_PITCH: f64 = 5.0 / 3.0;

/// Why a DXF file was not read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DxfReadError {
    /// Larger than [`MAX_DXF_BYTES`].
    #[error("the file is larger than {MAX_DXF_BYTES} bytes")]
    TooLarge,
    /// The `dxf` crate refused it (or gave up).
    #[error("not a DXF drawing: {0}")]
    Malformed(String),
    /// Too many entities or points, or blocks nested too deep.
    #[error("the drawing is too complex: {0}")]
    TooComplex(&'static str),
    /// Nothing to draw or read.
    #[error("the drawing is empty")]
    Empty,
    /// More text or texts than the budget of one file allows.
    #[error("{0}")]
    OverLimit(OverLimit),
}

impl From<OverLimit> for DxfReadError {
    fn from(error: OverLimit) -> Self {
        Self::OverLimit(error)
    }
}

/// Parses DXF bytes (ASCII or binary) into the crate's model. A file the `dxf` crate refuses is
/// read once more with its section structure recovered ([`dxf_tags::recovered`]: stray tags
/// dropped, repeated sections joined), as ezdxf's `recover` reads it.
pub fn parse(bytes: &[u8]) -> Result<Drawing, DxfReadError> {
    if bytes.len() > MAX_DXF_BYTES {
        return Err(DxfReadError::TooLarge);
    }
    let refused = match load(bytes) {
        Ok(drawing) => return Ok(drawing),
        Err(refused) => refused,
    };
    match dxf_tags::recovered(bytes) {
        Some(recovered) if recovered != bytes => load(&recovered).map_err(|_| refused),
        _ => Err(refused),
    }
}

/// One attempt of the `dxf` crate.
fn load(bytes: &[u8]) -> Result<Drawing, DxfReadError> {
    // The parser indexes into what it reads; malformed content must fail the upload, not the worker.
    let parsed = std::panic::catch_unwind(|| Drawing::load(&mut Cursor::new(bytes)))
        .map_err(|_| DxfReadError::Malformed("the parser gave up on malformed content".into()))?;
    parsed.map_err(|error| DxfReadError::Malformed(error.to_string()))
}

/// One page of a DXF drawing: model space, or a paper-space layout.
#[derive(Clone, Debug, PartialEq)]
pub struct DxfPage {
    /// `Model`, or the layout's name.
    pub name: String,
    /// What is drawn and written on it.
    pub scene: Scene,
}

/// The name of the model-space page.
pub const MODEL_SPACE: &str = "Model";

/// The pages of a parsed drawing (`dxf_layouts.rs`): model space first when it has something
/// drawn, then each paper-space layout of `layouts` that does, in their order. A layout shows
/// model space through its viewports: the model's lines clipped to each window, its texts placed
/// where the window shows them. When model space is not a page of its own (it has nothing
/// drawn, or the only text no window shows), its texts no window shows are kept as the layout's
/// off-page texts. The entities, points and placed texts of all pages are counted together (the
/// limits are the file's, in `budget` for texts).
pub fn page_scenes(
    drawing: &Drawing,
    layouts: &[PaperLayout],
    budget: &mut TextBudget,
) -> Result<Vec<DxfPage>, DxfReadError> {
    let mut reader = SceneReader::new(drawing, budget);
    for entity in drawing
        .entities()
        .filter(|entity| !entity.common.is_in_paper_space)
    {
        reader.entity(entity, &Transform::IDENTITY, 0)?;
    }
    let model = std::mem::take(&mut reader.scene);
    let model_drawn = !is_empty(&model);
    let mut pages = Vec::new();
    if model_drawn {
        pages.push(DxfPage {
            name: MODEL_SPACE.to_owned(),
            scene: model.clone(),
        });
    }
    for layout in layouts {
        match &layout.entities {
            LayoutEntities::Active => {
                for entity in drawing
                    .entities()
                    .filter(|entity| entity.common.is_in_paper_space)
                {
                    reader.entity(entity, &Transform::IDENTITY, 0)?;
                }
            }
            LayoutEntities::Block(name) => {
                let entities = drawing
                    .blocks()
                    .filter(|block| block.name == *name)
                    .flat_map(|block| &block.entities);
                for entity in entities {
                    reader.entity(entity, &Transform::IDENTITY, 0)?;
                }
            }
        }
        let mut scene = std::mem::take(&mut reader.scene);
        if is_empty(&scene) {
            continue;
        }
        // Model space shows through the layout's viewports: its texts are on the sheet too
        // (ezdxf's `text_in_viewports.dxf` and `VP4.dxf` keep all their text there).
        show_through_viewports(
            &mut scene,
            model.clone(),
            &layout.viewports,
            &mut reader.points,
        );
        if model_drawn {
            // Those texts are read on the model page already.
            scene.off_page_texts.clear();
        }
        pages.push(DxfPage {
            name: layout.name.clone(),
            scene,
        });
    }
    if pages.is_empty() {
        return Err(DxfReadError::Empty);
    }
    Ok(pages)
}

fn is_empty(scene: &Scene) -> bool {
    scene.strokes.is_empty() && scene.fills.is_empty() && scene.texts.is_empty()
}

/// Adds what the viewports show of `model` to the paper-space `scene`; model texts no viewport
/// shows become off-page texts. Stops adding lines at [`MAX_POINTS`] in all.
fn show_through_viewports(
    scene: &mut Scene,
    model: Scene,
    viewports: &[Viewport],
    points: &mut usize,
) {
    for viewport in viewports {
        let (min, max) = viewport.bounds();
        for stroke in &model.strokes {
            let mapped: Vec<Point2> = stroke
                .iter()
                .map(|point| viewport.model_to_paper.apply(*point))
                .collect();
            for piece in clip_polyline(&mapped, min, max) {
                *points += piece.len();
                if *points > MAX_POINTS {
                    break;
                }
                scene.strokes.push(piece);
            }
        }
    }
    for text in model.texts {
        let mut shown = false;
        for viewport in viewports {
            let origin = viewport.model_to_paper.apply(text.frame.apply([0.0, 0.0]));
            if viewport.contains(origin) {
                let mut placed = text.clone();
                placed.frame = viewport.model_to_paper.then_inner(&text.frame);
                scene.texts.push(placed);
                shown = true;
            }
        }
        if !shown {
            scene.off_page_texts.push(text);
        }
    }
}

/// The parts of a polyline inside the rectangle `min`–`max` (Liang–Barsky, segment by segment;
/// consecutive inside segments stay one polyline).
fn clip_polyline(points: &[Point2], min: Point2, max: Point2) -> Vec<Vec<Point2>> {
    let mut pieces: Vec<Vec<Point2>> = Vec::new();
    let mut current: Vec<Point2> = Vec::new();
    for pair in points.windows(2) {
        match clip_segment(pair[0], pair[1], min, max) {
            Some((from, to)) => {
                if current.last() != Some(&from) {
                    if current.len() >= 2 {
                        pieces.push(std::mem::take(&mut current));
                    }
                    current.clear();
                    current.push(from);
                }
                current.push(to);
            }
            None => {
                if current.len() >= 2 {
                    pieces.push(std::mem::take(&mut current));
                }
                current.clear();
            }
        }
    }
    if current.len() >= 2 {
        pieces.push(current);
    }
    pieces
}

/// The part of the segment `a`–`b` inside the rectangle, if any.
fn clip_segment(a: Point2, b: Point2, min: Point2, max: Point2) -> Option<(Point2, Point2)> {
    let delta = [b[0] - a[0], b[1] - a[1]];
    let (mut enter, mut leave) = (0.0_f64, 1.0_f64);
    for axis in 0..2 {
        for (p, q) in [
            (-delta[axis], a[axis] - min[axis]),
            (delta[axis], max[axis] - a[axis]),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    enter = enter.max(t);
                } else {
                    leave = leave.min(t);
                }
            }
        }
    }
    (enter <= leave).then(|| {
        let at = |t: f64| [a[0] + delta[0] * t, a[1] + delta[1] * t];
        (at(enter), at(leave))
    })
}

struct SceneReader<'a, 'b> {
    budget: &'b mut TextBudget,
    blocks: HashMap<String, &'a Block>,
    /// Names (upper-case) of the layers that are off.
    layers_off: HashSet<String>,
    dimension_text_height: f64,
    scene: Scene,
    entities: usize,
    points: usize,
}

fn point(p: &Point) -> Point2 {
    [p.x, p.y]
}

/// The object coordinate system of a planar entity, as far as a 2D page needs it: a normal pointing
/// down mirrors x (the arbitrary-axis algorithm gives an x axis of (-1, 0, 0) for (0, 0, -1)).
fn ocs(normal: &Vector) -> Transform {
    if normal.z < 0.0 {
        Transform::scale(-1.0, 1.0)
    } else {
        Transform::IDENTITY
    }
}

fn finite_or(value: f64, fallback: f64) -> f64 {
    if value.is_finite() { value } else { fallback }
}

impl<'a, 'b> SceneReader<'a, 'b> {
    fn new(drawing: &'a Drawing, budget: &'b mut TextBudget) -> Self {
        let blocks = drawing
            .blocks()
            .map(|block| (block.name.to_uppercase(), block))
            .collect();
        let header = &drawing.header;
        let scale = if header.dimensioning_scale_factor > 0.0 {
            header.dimensioning_scale_factor
        } else {
            1.0
        };
        let height = header.dimensioning_text_height * scale;
        let layers_off = drawing
            .layers()
            .filter(|layer| !layer.is_layer_on)
            .map(|layer| layer.name.to_uppercase())
            .collect();
        Self {
            budget,
            blocks,
            layers_off,
            dimension_text_height: if height.is_finite() && height > 0.0 {
                height
            } else {
                2.5
            },
            scene: Scene::default(),
            entities: 0,
            points: 0,
        }
    }

    fn stroke(&mut self, map: &Transform, points: Vec<Point2>) -> Result<(), DxfReadError> {
        if points.len() < 2 {
            return Ok(());
        }
        self.points += points.len();
        if self.points > MAX_POINTS {
            return Err(DxfReadError::TooComplex("too many points"));
        }
        let mapped: Vec<Point2> = points.into_iter().map(|p| map.apply(p)).collect();
        if mapped.iter().all(|[x, y]| x.is_finite() && y.is_finite()) {
            self.scene.strokes.push(mapped);
        }
        Ok(())
    }

    fn fill(&mut self, map: &Transform, points: Vec<Point2>) -> Result<(), DxfReadError> {
        self.points += points.len();
        if self.points > MAX_POINTS {
            return Err(DxfReadError::TooComplex("too many points"));
        }
        let mapped: Vec<Point2> = points.into_iter().map(|p| map.apply(p)).collect();
        if mapped.len() >= 3 && mapped.iter().all(|[x, y]| x.is_finite() && y.is_finite()) {
            self.scene.fills.push(mapped);
        }
        Ok(())
    }

    fn text(&mut self, text: PlacedText) -> Result<(), DxfReadError> {
        let frame_ok = [text.frame.apply([0.0, 0.0]), text.frame.apply([1.0, 1.0])]
            .iter()
            .all(|[x, y]| x.is_finite() && y.is_finite());
        if !text.text.is_empty() && text.height.is_finite() && text.height > 0.0 && frame_ok {
            self.budget.take_item(&text.text)?;
            self.scene.texts.push(text);
        }
        Ok(())
    }

    /// One entity of the drawing, counted against [`MAX_ENTITIES`], skipped when hidden or on a
    /// layer that is off; each kind drawn by its own step below.
    fn entity(
        &mut self,
        entity: &Entity,
        map: &Transform,
        depth: usize,
    ) -> Result<(), DxfReadError> {
        self.entities += 1;
        if self.entities > MAX_ENTITIES {
            return Err(DxfReadError::TooComplex("too many entities"));
        }
        if !entity.common.is_visible
            || (!self.layers_off.is_empty()
                && self
                    .layers_off
                    .contains(&entity.common.layer.to_uppercase()))
        {
            return Ok(());
        }
        match &entity.specific {
            EntityType::Line(line) => self.stroke(map, vec![point(&line.p1), point(&line.p2)]),
            EntityType::LwPolyline(polyline) => self.lw_polyline(polyline, map),
            EntityType::Polyline(polyline) => {
                let vertices: Vec<(Point2, f64)> = polyline
                    .vertices()
                    .map(|vertex| (point(&vertex.location), vertex.bulge))
                    .collect();
                self.stroke(map, polyline_points(&vertices, polyline.is_closed()))
            }
            EntityType::Circle(circle) => {
                let map = map.then_inner(&ocs(&circle.normal));
                self.stroke(&map, curves::circle(point(&circle.center), circle.radius))
            }
            EntityType::Arc(arc) => self.arc(arc, map),
            EntityType::Ellipse(ellipse) => self.ellipse(ellipse, map),
            EntityType::Spline(spline) => self.spline(spline, map),
            EntityType::Solid(solid) => self.solid(solid, map),
            EntityType::Leader(leader) => {
                self.stroke(map, leader.vertices.iter().map(point).collect())
            }
            EntityType::Text(text) => self.single_line_text(text, map),
            EntityType::MText(mtext) => self.mtext(mtext, map),
            EntityType::Tolerance(tolerance) => self.tolerance(tolerance, map),
            EntityType::Insert(insert) => self.insert(insert, map, depth),
            EntityType::Attribute(attribute) => self.attribute(attribute, map),
            EntityType::RotatedDimension(dimension) => {
                self.rotated_dimension(dimension, map, depth)
            }
            EntityType::DiameterDimension(dimension) => {
                let base = &dimension.dimension_base;
                let (a, b) = (
                    point(&base.definition_point_1),
                    point(&dimension.definition_point_2),
                );
                self.dimension(base, "Ø", distance(a, b), vec![vec![a, b]], 0.0, map, depth)
            }
            EntityType::RadialDimension(dimension) => {
                let base = &dimension.dimension_base;
                let (a, b) = (
                    point(&base.definition_point_1),
                    point(&dimension.definition_point_2),
                );
                self.dimension(base, "R", distance(a, b), vec![vec![a, b]], 0.0, map, depth)
            }
            EntityType::AngularThreePointDimension(dimension) => {
                self.angular_dimension(dimension, map, depth)
            }
            EntityType::OrdinateDimension(dimension) => {
                self.ordinate_dimension(dimension, map, depth)
            }
            _ => Ok(()),
        }
    }

    /// An LWPOLYLINE: its vertices and bulges in its object coordinate system.
    fn lw_polyline(&mut self, polyline: &LwPolyline, map: &Transform) -> Result<(), DxfReadError> {
        let map = map.then_inner(&ocs(&polyline.extrusion_direction));
        let vertices: Vec<(Point2, f64)> = polyline
            .vertices
            .iter()
            .map(|vertex| ([vertex.x, vertex.y], vertex.bulge))
            .collect();
        self.stroke(&map, polyline_points(&vertices, polyline.is_closed()))
    }

    /// An ARC, its angles in degrees counter-clockwise, in its object coordinate system.
    fn arc(&mut self, arc: &Arc, map: &Transform) -> Result<(), DxfReadError> {
        let map = map.then_inner(&ocs(&arc.normal));
        let points = curves::arc(
            point(&arc.center),
            arc.radius,
            arc.start_angle.to_radians(),
            arc.end_angle.to_radians(),
        );
        self.stroke(&map, points)
    }

    /// An ELLIPSE or elliptical arc, by its major axis and ratio.
    fn ellipse(&mut self, ellipse: &Ellipse, map: &Transform) -> Result<(), DxfReadError> {
        let points = curves::ellipse(
            point(&ellipse.center),
            [ellipse.major_axis.x, ellipse.major_axis.y],
            ellipse.minor_axis_ratio,
            ellipse.start_parameter,
            ellipse.end_parameter,
        );
        self.stroke(map, points)
    }

    /// A SPLINE: evaluated from its control points, or its fit points joined when it has none.
    fn spline(&mut self, spline: &Spline, map: &Transform) -> Result<(), DxfReadError> {
        let control: Vec<Point2> = spline.control_points.iter().map(point).collect();
        let points = if control.is_empty() {
            spline.fit_points.iter().map(point).collect()
        } else {
            let degree = usize::try_from(spline.degree_of_curve).unwrap_or(0);
            curves::spline(degree, &spline.knot_values, &control, &spline.weight_values)
        };
        self.stroke(map, points)
    }

    /// A SOLID: a filled triangle or quadrilateral.
    fn solid(&mut self, solid: &Solid, map: &Transform) -> Result<(), DxfReadError> {
        // SOLID corners come in a zig-zag order: 1, 2, 4, 3 goes round.
        let corners = vec![
            point(&solid.first_corner),
            point(&solid.second_corner),
            point(&solid.fourth_corner),
            point(&solid.third_corner),
        ];
        let map = map.then_inner(&ocs(&solid.extrusion_direction));
        self.fill(&map, corners)
    }

    /// A TEXT: one line, placed by its justification and alignment points.
    fn single_line_text(&mut self, text: &Text, map: &Transform) -> Result<(), DxfReadError> {
        let cleaned = text_clean::clean_single_line(&text.value);
        let frame = single_line_frame(
            &point(&text.location),
            &point(&text.second_alignment_point),
            text.horizontal_text_justification,
            text.vertical_text_justification,
            text.rotation,
            text.relative_x_scale_factor,
            text.text_height,
            cleaned.chars().count(),
        );
        let map = map.then_inner(&ocs(&text.normal));
        self.text(placed(
            cleaned,
            PmiItemKind::Note,
            None,
            &map,
            frame,
            text.text_height,
        ))
    }

    /// An MTEXT: its formatting codes cleaned, placed by its attachment point, lines at its spacing.
    fn mtext(&mut self, mtext: &MText, map: &Transform) -> Result<(), DxfReadError> {
        let mut raw = mtext.extended_text.concat();
        raw.push_str(&mtext.text);
        let cleaned = text_clean::clean_mtext(&raw);
        let frame = mtext_frame(
            &cleaned,
            point(&mtext.insertion_point),
            mtext.attachment_point,
            &mtext.x_axis_direction,
            mtext.rotation_angle,
            mtext.initial_text_height,
            mtext.line_spacing_factor,
        );
        let mut placed_text = placed(
            cleaned,
            PmiItemKind::Note,
            None,
            map,
            frame,
            mtext.initial_text_height,
        );
        placed_text.line_pitch = LINE_PITCH
            * mtext.initial_text_height
            * finite_or(mtext.line_spacing_factor, 1.0).clamp(0.25, 4.0);
        self.text(placed_text)
    }

    /// A TOLERANCE (feature control frame): its text, boxes separated by `|`, at the dimension height.
    fn tolerance(&mut self, tolerance: &Tolerance, map: &Transform) -> Result<(), DxfReadError> {
        let cleaned = text_clean::clean_mtext(&tolerance.display_text.replace("%%v", " | "));
        let height = self.dimension_text_height;
        let angle = tolerance
            .direction_vector
            .y
            .atan2(tolerance.direction_vector.x);
        let frame = Transform::translate(tolerance.insertion_point.x, tolerance.insertion_point.y)
            .then_inner(&Transform::rotate(finite_or(angle, 0.0)))
            .then_inner(&Transform::translate(0.0, -height));
        self.text(placed(
            cleaned,
            PmiItemKind::Tolerance,
            None,
            map,
            frame,
            height,
        ))
    }

    /// A linear dimension, rotated or aligned: the distance along its direction between the two
    /// definition points, with extension lines to the dimension line.
    fn rotated_dimension(
        &mut self,
        dimension: &RotatedDimension,
        map: &Transform,
        depth: usize,
    ) -> Result<(), DxfReadError> {
        let base = &dimension.dimension_base;
        let (p2, p3) = (
            point(&dimension.definition_point_2),
            point(&dimension.definition_point_3),
        );
        let on_line = point(&base.definition_point_1);
        let direction = if base.dimension_type == DimensionType::Aligned {
            let length = distance(p2, p3);
            if length > 0.0 {
                [(p3[0] - p2[0]) / length, (p3[1] - p2[1]) / length]
            } else {
                [1.0, 0.0]
            }
        } else {
            let radians = dimension.rotation_angle.to_radians();
            [radians.cos(), radians.sin()]
        };
        let project = |q: Point2| {
            let along = (q[0] - on_line[0]) * direction[0] + (q[1] - on_line[1]) * direction[1];
            [
                on_line[0] + direction[0] * along,
                on_line[1] + direction[1] * along,
            ]
        };
        let (d2, d3) = (project(p2), project(p3));
        let measured = ((p3[0] - p2[0]) * direction[0] + (p3[1] - p2[1]) * direction[1]).abs();
        let lines = vec![vec![p2, d2], vec![p3, d3], vec![d2, d3]];
        let angle = direction[1].atan2(direction[0]);
        self.dimension(base, "", measured, lines, angle, map, depth)
    }

    /// A three-point angular dimension: the angle at its vertex, at most 180 degrees.
    fn angular_dimension(
        &mut self,
        dimension: &AngularThreePointDimension,
        map: &Transform,
        depth: usize,
    ) -> Result<(), DxfReadError> {
        let base = &dimension.dimension_base;
        let vertex = point(&dimension.definition_point_4);
        let (a, b) = (
            point(&dimension.definition_point_2),
            point(&dimension.definition_point_3),
        );
        let angle_a = (a[1] - vertex[1]).atan2(a[0] - vertex[0]);
        let angle_b = (b[1] - vertex[1]).atan2(b[0] - vertex[0]);
        let mut sweep = (angle_b - angle_a).abs().to_degrees();
        if sweep > 180.0 {
            sweep = 360.0 - sweep;
        }
        let lines = vec![vec![vertex, a], vec![vertex, b]];
        self.dimension(base, "", sweep, lines, 0.0, map, depth)
    }

    /// An ordinate dimension: the X or Y distance of its feature from the origin.
    fn ordinate_dimension(
        &mut self,
        dimension: &OrdinateDimension,
        map: &Transform,
        depth: usize,
    ) -> Result<(), DxfReadError> {
        let base = &dimension.dimension_base;
        let (a, b) = (
            point(&dimension.definition_point_2),
            point(&dimension.definition_point_3),
        );
        let measured = if base.is_ordinate_x_type {
            (a[0] - base.definition_point_1.x).abs()
        } else {
            (a[1] - base.definition_point_1.y).abs()
        };
        self.dimension(base, "", measured, vec![vec![a, b]], 0.0, map, depth)
    }

    /// A dimension: its block's graphics when the file has them (texts there become the dimension's
    /// items), otherwise `lines` and the text placed at the text point.
    #[allow(clippy::too_many_arguments)]
    fn dimension(
        &mut self,
        base: &DimensionBase,
        prefix: &str,
        computed: f64,
        lines: Vec<Vec<Point2>>,
        line_angle: f64,
        map: &Transform,
        depth: usize,
    ) -> Result<(), DxfReadError> {
        let measured = if base.actual_measurement.is_finite() && base.actual_measurement > 0.0 {
            if matches!(
                base.dimension_type,
                DimensionType::Angular | DimensionType::AngularThreePoint
            ) {
                base.actual_measurement.to_degrees()
            } else {
                base.actual_measurement
            }
        } else {
            computed
        };
        let mut value = text_clean::format_measurement(measured);
        if matches!(
            base.dimension_type,
            DimensionType::Angular | DimensionType::AngularThreePoint
        ) {
            value.push('°');
        }
        let text = text_clean::dimension_text(&base.text, prefix, &value);
        let block = self.blocks.get(&base.block_name.to_uppercase()).copied();
        if let Some(block) = block.filter(|block| !block.entities.is_empty()) {
            if depth >= MAX_BLOCK_DEPTH {
                return Err(DxfReadError::TooComplex("blocks nested too deep"));
            }
            let first_text = self.scene.texts.len();
            for entity in &block.entities {
                self.entity(entity, map, depth + 1)?;
            }
            let mut block_texts = self.scene.texts.split_off(first_text);
            if let Some(shown) = block_texts.first_mut() {
                if !text.is_empty() {
                    shown.text = text;
                }
                shown.kind = PmiItemKind::Dimension;
                block_texts.truncate(1);
                self.scene.texts.extend(block_texts);
            }
            return Ok(());
        }
        for line in lines {
            self.stroke(map, line)?;
        }
        let height = self.dimension_text_height;
        let rotation = if base.text_rotation_angle != 0.0 {
            base.text_rotation_angle.to_radians()
        } else {
            // Text reads along the dimension line, never upside down.
            let mut angle = line_angle;
            if angle > std::f64::consts::FRAC_PI_2 + 1e-9 {
                angle -= std::f64::consts::PI;
            } else if angle < -std::f64::consts::FRAC_PI_2 + 1e-9 {
                angle += std::f64::consts::PI;
            }
            angle
        };
        let width = text.chars().count() as f64 * CHAR_WIDTH * height;
        let frame = Transform::translate(base.text_mid_point.x, base.text_mid_point.y)
            .then_inner(&Transform::rotate(finite_or(rotation, 0.0)))
            .then_inner(&Transform::translate(-width / 2.0, -height / 2.0));
        self.text(placed(
            text,
            PmiItemKind::Dimension,
            None,
            map,
            frame,
            height,
        ))
    }

    /// A title-block value. Also reached for ATTRIBs outside an INSERT: the `dxf` crate stops
    /// gathering an INSERT's ATTRIBs at an embedded MTEXT (which it writes itself), leaving the rest
    /// as separate entities in the same coordinates.
    fn attribute(
        &mut self,
        attribute: &dxf::entities::Attribute,
        map: &Transform,
    ) -> Result<(), DxfReadError> {
        let cleaned = text_clean::clean_single_line(&attribute.value);
        let frame = single_line_frame(
            &point(&attribute.location),
            &point(&attribute.second_alignment_point),
            attribute.horizontal_text_justification,
            attribute.vertical_text_justification,
            attribute.rotation,
            attribute.relative_x_scale_factor,
            attribute.text_height,
            cleaned.chars().count(),
        );
        let map = map.then_inner(&ocs(&attribute.normal));
        let tag = Some(attribute.attribute_tag.trim().to_owned()).filter(|tag| !tag.is_empty());
        let mut placed_text = placed(
            cleaned,
            PmiItemKind::TitleBlockAttribute,
            tag,
            &map,
            frame,
            attribute.text_height,
        );
        placed_text.visible = !attribute.is_invisible();
        self.text(placed_text)
    }

    fn insert(
        &mut self,
        insert: &dxf::entities::Insert,
        map: &Transform,
        depth: usize,
    ) -> Result<(), DxfReadError> {
        // ATTRIBs are placed in the coordinates the INSERT itself lives in.
        for attribute in insert.attributes() {
            self.entities += 1;
            self.attribute(attribute, map)?;
        }
        let Some(block) = self.blocks.get(&insert.name.to_uppercase()).copied() else {
            return Ok(());
        };
        if depth >= MAX_BLOCK_DEPTH {
            return Err(DxfReadError::TooComplex("blocks nested too deep"));
        }
        let columns = usize::try_from(insert.column_count).unwrap_or(1).max(1);
        let rows = usize::try_from(insert.row_count).unwrap_or(1).max(1);
        if columns.saturating_mul(rows) > MAX_ARRAY_COPIES {
            return Err(DxfReadError::TooComplex("an INSERT array is too large"));
        }
        let placement = map
            .then_inner(&ocs(&insert.extrusion_direction))
            .then_inner(&Transform::translate(insert.location.x, insert.location.y))
            .then_inner(&Transform::rotate(
                finite_or(insert.rotation, 0.0).to_radians(),
            ));
        for row in 0..rows {
            for column in 0..columns {
                let copy = placement
                    .then_inner(&Transform::translate(
                        column as f64 * insert.column_spacing,
                        row as f64 * insert.row_spacing,
                    ))
                    .then_inner(&Transform::scale(
                        finite_or(insert.x_scale_factor, 1.0),
                        finite_or(insert.y_scale_factor, 1.0),
                    ))
                    .then_inner(&Transform::translate(
                        -block.base_point.x,
                        -block.base_point.y,
                    ));
                for entity in &block.entities {
                    // Attribute definitions show only through the ATTRIBs of the INSERT.
                    if !matches!(entity.specific, EntityType::AttributeDefinition(_)) {
                        self.entity(entity, &copy, depth + 1)?;
                    }
                }
            }
        }
        Ok(())
    }
}

fn distance(a: Point2, b: Point2) -> f64 {
    ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt()
}

/// The points of a polyline with bulges (a closed one returns to its first vertex).
fn polyline_points(vertices: &[(Point2, f64)], closed: bool) -> Vec<Point2> {
    let Some(first) = vertices.first() else {
        return Vec::new();
    };
    let mut points = vec![first.0];
    let count = vertices.len();
    let segments = if closed { count } else { count - 1 };
    for index in 0..segments {
        let (from, bulge) = vertices[index];
        let to = vertices[(index + 1) % count].0;
        points.extend(curves::bulge_segment(from, to, bulge));
    }
    points
}

fn placed(
    text: String,
    kind: PmiItemKind,
    tag: Option<String>,
    map: &Transform,
    frame: Transform,
    height: f64,
) -> PlacedText {
    PlacedText {
        text,
        kind,
        tag,
        frame: map.then_inner(&frame),
        height,
        char_width: CHAR_WIDTH * height,
        line_pitch: LINE_PITCH * height,
        visible: true,
    }
}

/// The frame of a TEXT or ATTRIB: its alignment point, rotation and width factor, with the origin
/// moved to the left end of the baseline.
#[allow(clippy::too_many_arguments)]
fn single_line_frame(
    location: &Point2,
    second: &Point2,
    horizontal: HorizontalTextJustification,
    vertical: VerticalTextJustification,
    rotation_degrees: f64,
    x_scale: f64,
    height: f64,
    chars: usize,
) -> Transform {
    let x_scale = finite_or(x_scale, 1.0).clamp(0.01, 100.0);
    let width = chars as f64 * CHAR_WIDTH * height;
    let rotation = finite_or(rotation_degrees, 0.0).to_radians();
    use HorizontalTextJustification as H;
    use VerticalTextJustification as V;
    if matches!(horizontal, H::Aligned | H::Fit) {
        // Fitted between the two points: the baseline runs from the first to the second.
        let length = distance(*location, *second);
        let angle = (second[1] - location[1]).atan2(second[0] - location[0]);
        let stretch = if width > 0.0 && length > 0.0 {
            length / width
        } else {
            1.0
        };
        return Transform::translate(location[0], location[1])
            .then_inner(&Transform::rotate(angle))
            .then_inner(&Transform::scale(stretch, 1.0));
    }
    if horizontal == H::Left && vertical == V::Baseline {
        return Transform::translate(location[0], location[1])
            .then_inner(&Transform::rotate(rotation))
            .then_inner(&Transform::scale(x_scale, 1.0));
    }
    let dx = match horizontal {
        H::Center | H::Middle => -width / 2.0,
        H::Right => -width,
        _ => 0.0,
    };
    let dy = match (horizontal, vertical) {
        (H::Middle, _) | (_, V::Middle) => -height / 2.0,
        (_, V::Top) => -height,
        _ => 0.0,
    };
    Transform::translate(second[0], second[1])
        .then_inner(&Transform::rotate(rotation))
        .then_inner(&Transform::scale(x_scale, 1.0))
        .then_inner(&Transform::translate(dx, dy))
}

/// The frame of an MTEXT: its attachment point says which point of the text block the insertion
/// point is.
fn mtext_frame(
    text: &str,
    insertion: Point2,
    attachment: AttachmentPoint,
    x_axis: &Vector,
    rotation_radians: f64,
    height: f64,
    spacing: f64,
) -> Transform {
    let lines = text.lines().count().max(1) as f64;
    let widest = text
        .lines()
        .map(|line| line.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let width = widest * CHAR_WIDTH * height;
    let pitch = LINE_PITCH * height * finite_or(spacing, 1.0).clamp(0.25, 4.0);
    let block_height = height + (lines - 1.0) * pitch;
    let angle = if x_axis.x.hypot(x_axis.y) > 1e-9 {
        x_axis.y.atan2(x_axis.x)
    } else {
        finite_or(rotation_radians, 0.0)
    };
    use AttachmentPoint as A;
    let dx = match attachment {
        A::TopCenter | A::MiddleCenter | A::BottomCenter => -width / 2.0,
        A::TopRight | A::MiddleRight | A::BottomRight => -width,
        _ => 0.0,
    };
    // The first baseline sits one text height below the block's top.
    let first_baseline = match attachment {
        A::MiddleLeft | A::MiddleCenter | A::MiddleRight => block_height / 2.0 - height,
        A::BottomLeft | A::BottomCenter | A::BottomRight => block_height - height,
        _ => -height,
    };
    Transform::translate(insertion[0], insertion[1])
        .then_inner(&Transform::rotate(angle))
        .then_inner(&Transform::translate(dx, first_baseline))
}

#[cfg(test)]
mod tests {
    use dxf::LwPolylineVertex;
    use dxf::entities::{
        Arc, Attribute, Circle, DiameterDimension, Ellipse, Insert, Line, LwPolyline, MText,
        Polyline, RotatedDimension, Solid, Spline, Text, Tolerance, Vertex,
    };

    use super::*;
    use crate::ExtractionLimits;

    /// The pages of `drawing` (saved and read back, so that its layouts are found as in a file).
    fn pages(drawing: &Drawing) -> Result<Vec<DxfPage>, DxfReadError> {
        let layouts = super::super::dxf_layouts::paper_layouts(drawing, &[]);
        page_scenes(
            drawing,
            &layouts,
            &mut TextBudget::new(&ExtractionLimits::default()),
        )
    }

    /// The first page's scene.
    fn scene(drawing: &Drawing) -> Result<Scene, DxfReadError> {
        Ok(pages(drawing)?.remove(0).scene)
    }

    fn p(x: f64, y: f64) -> Point {
        Point::new(x, y, 0.0)
    }

    fn scene_with(entities: Vec<EntityType>) -> Result<Scene, DxfReadError> {
        let mut drawing = Drawing::new();
        for specific in entities {
            drawing.add_entity(Entity::new(specific));
        }
        scene(&drawing)
    }

    fn close(a: Point2, b: Point2) -> bool {
        (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6
    }

    fn contains_point(scene: &Scene, point: Point2) -> bool {
        scene
            .strokes
            .iter()
            .flatten()
            .any(|found| close(*found, point))
    }

    #[test]
    fn lines_polylines_and_bulges_become_strokes() {
        let mut light = LwPolyline::default();
        light.set_is_closed(true);
        light.vertices = vec![
            LwPolylineVertex {
                x: 0.0,
                y: 0.0,
                bulge: 1.0,
                ..Default::default()
            },
            LwPolylineVertex {
                x: 2.0,
                y: 0.0,
                ..Default::default()
            },
        ];
        let mut heavy = Polyline::default();
        let mut drawing = Drawing::new();
        heavy.add_vertex(&mut drawing, Vertex::new(p(10.0, 10.0)));
        heavy.add_vertex(&mut drawing, Vertex::new(p(20.0, 10.0)));
        drawing.add_entity(Entity::new(EntityType::Polyline(heavy)));
        drawing.add_entity(Entity::new(EntityType::Line(Line::new(
            p(-5.0, 0.0),
            p(-5.0, 7.0),
        ))));
        drawing.add_entity(Entity::new(EntityType::LwPolyline(light)));
        let scene = scene(&drawing).unwrap();
        assert_eq!(scene.strokes.len(), 3);
        assert!(contains_point(&scene, [-5.0, 7.0]));
        assert!(contains_point(&scene, [20.0, 10.0]));
        // The bulge of 1 is a half circle below the chord; the closing segment returns straight.
        assert!(contains_point(&scene, [1.0, -1.0]));
        assert!(close(*scene.strokes[2].last().unwrap(), [0.0, 0.0]));
    }

    #[test]
    fn circles_arcs_ellipses_splines_and_solids_are_drawn() {
        let spline = Spline {
            degree_of_curve: 2,
            knot_values: vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            control_points: vec![p(0.0, 0.0), p(1.0, 2.0), p(2.0, 0.0)],
            ..Default::default()
        };
        let fitted = Spline {
            fit_points: vec![p(50.0, 50.0), p(60.0, 55.0)],
            ..Default::default()
        };
        let scene = scene_with(vec![
            EntityType::Circle(Circle::new(p(100.0, 0.0), 5.0)),
            EntityType::Arc(Arc::new(p(0.0, 100.0), 10.0, 0.0, 90.0)),
            EntityType::Ellipse(Ellipse {
                center: p(-100.0, 0.0),
                major_axis: dxf::Vector::new(8.0, 0.0, 0.0),
                minor_axis_ratio: 0.5,
                start_parameter: 0.0,
                end_parameter: std::f64::consts::TAU,
                ..Default::default()
            }),
            EntityType::Spline(spline),
            EntityType::Spline(fitted),
            EntityType::Solid(Solid {
                first_corner: p(0.0, -50.0),
                second_corner: p(4.0, -50.0),
                third_corner: p(0.0, -46.0),
                fourth_corner: p(4.0, -46.0),
                ..Default::default()
            }),
        ])
        .unwrap();
        assert!(contains_point(&scene, [105.0, 0.0]));
        assert!(contains_point(&scene, [0.0, 110.0]));
        assert!(contains_point(&scene, [-100.0, 4.0]));
        assert!(contains_point(&scene, [1.0, 1.0]));
        assert!(contains_point(&scene, [60.0, 55.0]));
        // SOLID corners go round as 1, 2, 4, 3.
        assert_eq!(
            scene.fills,
            vec![vec![[0.0, -50.0], [4.0, -50.0], [4.0, -46.0], [0.0, -46.0]]]
        );
    }

    #[test]
    fn texts_are_cleaned_and_placed_by_their_justification() {
        let centred = Text {
            location: p(0.0, 0.0),
            second_alignment_point: p(50.0, 20.0),
            horizontal_text_justification: HorizontalTextJustification::Center,
            text_height: 2.0,
            value: "%%c10".into(),
            ..Default::default()
        };
        let note = MText {
            insertion_point: p(0.0, 100.0),
            initial_text_height: 3.0,
            attachment_point: AttachmentPoint::TopLeft,
            text: "\\fArial;NOTE\\PSECOND LINE".into(),
            ..Default::default()
        };
        let scene = scene_with(vec![EntityType::Text(centred), EntityType::MText(note)]).unwrap();
        let [text, mtext] = [&scene.texts[0], &scene.texts[1]];
        assert_eq!(text.text, "Ø10");
        assert_eq!(text.kind, PmiItemKind::Note);
        // Centred on the alignment point: the box's middle is at x = 50.
        let [bottom_left, bottom_right, ..] = text.corners();
        assert!(((bottom_left[0] + bottom_right[0]) / 2.0 - 50.0).abs() < 1e-9);
        assert_eq!(mtext.text, "NOTE\nSECOND LINE");
        // Top-left attachment: the block hangs below the insertion point.
        let [_, _, top_right, top_left] = mtext.corners();
        assert!(close(top_left, [0.0, 100.0]));
        assert!(top_right[0] > 0.0);
    }

    #[test]
    fn block_references_are_expanded_with_their_transform_and_attributes() {
        let mut drawing = Drawing::new();
        let mut block = Block {
            name: "MARK".into(),
            base_point: p(1.0, 0.0),
            ..Default::default()
        };
        block.entities.push(Entity::new(EntityType::Line(Line::new(
            p(1.0, 0.0),
            p(2.0, 0.0),
        ))));
        drawing.add_block(block);
        let mut insert = Insert {
            name: "mark".into(),
            location: p(10.0, 10.0),
            rotation: 90.0,
            x_scale_factor: 3.0,
            y_scale_factor: 3.0,
            column_count: 2,
            column_spacing: 100.0,
            ..Default::default()
        };
        insert.add_attribute(
            &mut drawing,
            Attribute {
                attribute_tag: "PART_NO".into(),
                value: "PL-7".into(),
                location: p(10.0, 0.0),
                text_height: 2.0,
                ..Default::default()
            },
        );
        drawing.add_entity(Entity::new(EntityType::Insert(insert)));
        let scene = scene(&drawing).unwrap();
        // Base point to the insertion point, scaled by 3, turned a quarter; the array's second
        // column is 100 further along the turned x axis.
        assert_eq!(scene.strokes.len(), 2);
        assert!(close(scene.strokes[0][0], [10.0, 10.0]));
        assert!(close(scene.strokes[0][1], [10.0, 13.0]));
        assert!(close(scene.strokes[1][0], [10.0, 110.0]));
        let attribute = &scene.texts[0];
        assert_eq!(attribute.kind, PmiItemKind::TitleBlockAttribute);
        assert_eq!(attribute.tag.as_deref(), Some("PART_NO"));
        assert!(close(attribute.frame.apply([0.0, 0.0]), [10.0, 0.0]));
    }

    #[test]
    fn dimensions_show_their_value_or_override_and_draw_their_lines() {
        let mut linear = RotatedDimension {
            definition_point_2: p(0.0, 0.0),
            definition_point_3: p(25.0, 0.0),
            ..Default::default()
        };
        linear.dimension_base.definition_point_1 = p(0.0, 10.0);
        linear.dimension_base.text_mid_point = p(12.5, 12.0);
        linear.dimension_base.dimension_type = DimensionType::RotatedHorizontalOrVertical;
        linear.dimension_base.block_name = String::new();
        linear.dimension_base.text = String::new();
        let mut diameter = DiameterDimension {
            definition_point_2: p(60.0, 0.0),
            ..Default::default()
        };
        diameter.dimension_base.definition_point_1 = p(40.0, 0.0);
        diameter.dimension_base.dimension_type = DimensionType::Diameter;
        diameter.dimension_base.text = "<> %%p0.1".into();
        diameter.dimension_base.block_name = String::new();
        let tolerance = Tolerance {
            insertion_point: p(0.0, -20.0),
            display_text: "{\\Fgdt;j}%%v0.05%%vA".into(),
            ..Default::default()
        };
        let scene = scene_with(vec![
            EntityType::RotatedDimension(linear),
            EntityType::DiameterDimension(diameter),
            EntityType::Tolerance(tolerance),
        ])
        .unwrap();
        let texts: Vec<(&str, PmiItemKind)> = scene
            .texts
            .iter()
            .map(|text| (text.text.as_str(), text.kind))
            .collect();
        assert_eq!(
            texts,
            [
                ("25", PmiItemKind::Dimension),
                ("Ø20 ±0.1", PmiItemKind::Dimension),
                ("j | 0.05 | A", PmiItemKind::Tolerance),
            ]
        );
        // Extension lines end on the dimension line at y = 10.
        assert!(contains_point(&scene, [25.0, 10.0]));
        // The value sits centred on its text point.
        let [bottom_left, _, top_right, _] = scene.texts[0].corners();
        assert!(((bottom_left[0] + top_right[0]) / 2.0 - 12.5).abs() < 1e-9);
    }

    #[test]
    fn layers_that_are_off_and_invisible_entities_are_not_drawn() {
        let mut drawing = Drawing::new();
        drawing.add_layer(dxf::tables::Layer {
            name: "Construction".into(),
            is_layer_on: false,
            ..Default::default()
        });
        let mut hidden = Entity::new(EntityType::Line(Line::new(p(0.0, 0.0), p(9.0, 9.0))));
        hidden.common.layer = "CONSTRUCTION".into();
        drawing.add_entity(hidden);
        let mut invisible = Entity::new(EntityType::Line(Line::new(p(0.0, 0.0), p(8.0, 8.0))));
        invisible.common.is_visible = false;
        drawing.add_entity(invisible);
        drawing.add_entity(Entity::new(EntityType::Line(Line::new(
            p(0.0, 0.0),
            p(1.0, 0.0),
        ))));
        let scene = scene(&drawing).unwrap();
        assert_eq!(scene.strokes, vec![vec![[0.0, 0.0], [1.0, 0.0]]]);
    }

    #[test]
    fn binary_dxf_is_read_like_ascii() {
        let mut drawing = Drawing::new();
        drawing.header.version = dxf::enums::AcadVersion::R2000;
        drawing.add_entity(Entity::new(EntityType::Circle(Circle::new(
            p(3.0, 4.0),
            2.0,
        ))));
        let mut bytes = Vec::new();
        drawing.save_binary(&mut bytes).unwrap();
        assert!(bytes.starts_with(b"AutoCAD Binary DXF"));
        let scene = scene(&parse(&bytes).unwrap()).unwrap();
        assert!(contains_point(&scene, [5.0, 4.0]));
    }

    #[test]
    fn model_space_is_page_one_and_paper_space_the_next() {
        let mut drawing = Drawing::new();
        drawing.add_entity(Entity::new(EntityType::Line(Line::new(
            p(0.0, 0.0),
            p(1.0, 0.0),
        ))));
        let mut sheet = Entity::new(EntityType::Line(Line::new(p(0.0, 0.0), p(420.0, 297.0))));
        sheet.common.is_in_paper_space = true;
        drawing.add_entity(sheet);
        let pages = pages(&drawing).unwrap();
        let names: Vec<&str> = pages.iter().map(|page| page.name.as_str()).collect();
        assert_eq!(names, [MODEL_SPACE, "Paper space"]);
        assert_eq!(pages[0].scene.strokes, vec![vec![[0.0, 0.0], [1.0, 0.0]]]);
        assert_eq!(
            pages[1].scene.strokes,
            vec![vec![[0.0, 0.0], [420.0, 297.0]]]
        );
    }

    #[test]
    fn nested_blocks_repeating_a_text_stop_at_the_text_cap() {
        // Level 0 holds one MTEXT of 1,000 characters; each level above inserts the one below
        // twice, so the drawing places 2^10 = 1,024 copies: 1 MB of text from a few entities.
        let mut drawing = Drawing::new();
        let mut level = Block {
            name: "L0".into(),
            ..Default::default()
        };
        level.entities.push(Entity::new(EntityType::MText(MText {
            text: "W".repeat(1_000),
            initial_text_height: 2.5,
            ..Default::default()
        })));
        drawing.add_block(level);
        for depth in 1..=10 {
            let mut level = Block {
                name: format!("L{depth}"),
                ..Default::default()
            };
            for _ in 0..2 {
                level.entities.push(Entity::new(EntityType::Insert(Insert {
                    name: format!("L{}", depth - 1),
                    ..Default::default()
                })));
            }
            drawing.add_block(level);
        }
        drawing.add_entity(Entity::new(EntityType::Insert(Insert {
            name: "L10".into(),
            ..Default::default()
        })));
        let limits = ExtractionLimits {
            max_text_bytes: 100_000,
            ..ExtractionLimits::default()
        };
        let refused = page_scenes(&drawing, &[], &mut TextBudget::new(&limits)).unwrap_err();
        assert!(matches!(refused, DxfReadError::OverLimit(_)), "{refused:?}");
        assert_eq!(scene(&drawing).unwrap().texts.len(), 1_024);
    }

    #[test]
    fn hostile_drawings_are_refused_or_cleaned() {
        // A block that inserts itself.
        let mut drawing = Drawing::new();
        let mut block = Block {
            name: "LOOP".into(),
            ..Default::default()
        };
        block.entities.push(Entity::new(EntityType::Insert(Insert {
            name: "LOOP".into(),
            ..Default::default()
        })));
        drawing.add_block(block);
        drawing.add_entity(Entity::new(EntityType::Insert(Insert {
            name: "LOOP".into(),
            ..Default::default()
        })));
        assert!(matches!(scene(&drawing), Err(DxfReadError::TooComplex(_))));
        // An array of a million copies.
        let huge = Insert {
            name: "ANY".into(),
            row_count: 1000,
            column_count: 1000,
            ..Default::default()
        };
        let mut drawing = Drawing::new();
        drawing.add_block(Block {
            name: "ANY".into(),
            ..Default::default()
        });
        drawing.add_entity(Entity::new(EntityType::Insert(huge)));
        assert!(matches!(scene(&drawing), Err(DxfReadError::TooComplex(_))));
        // Too many entities.
        let lines = (0..=MAX_ENTITIES)
            .map(|_| EntityType::Line(Line::new(p(0.0, 0.0), p(1.0, 1.0))))
            .collect();
        assert!(matches!(
            scene_with(lines),
            Err(DxfReadError::TooComplex(_))
        ));
        // Coordinates that are not numbers are dropped; nothing left is an empty drawing.
        let broken = scene_with(vec![EntityType::Line(Line::new(
            p(f64::NAN, 0.0),
            p(1.0, f64::INFINITY),
        ))]);
        assert_eq!(broken, Err(DxfReadError::Empty));
        assert_eq!(
            parse(&vec![b' '; MAX_DXF_BYTES + 1]).err(),
            Some(DxfReadError::TooLarge)
        );
    }
}
