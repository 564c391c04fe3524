//! Meshing the B-rep shells of a checked STEP file with truck: every `CLOSED_SHELL` and
//! `OPEN_SHELL` (in `#id` order, so the mesh is the same every time) becomes truck's compressed
//! shell, and each of its faces is triangulated **on its own** with `robust_triangulation` at a
//! tolerance of [`TOLERANCE_OF_SIZE`] of the model's size, under its own share of the [`Budget`]
//! ([`FACE_TIME`]), on a mesher thread that can be given up on; the faces' triangles are welded
//! where faces meet, scaled to millimetres and gathered into one [`Mesh`].
//!
//! What made real files (FreeCAD's retaining rings, stepper motors, servo horns; a fifth of a
//! public STEP collection) never finish, and what is done about it:
//! - OpenCASCADE writes each edge on a curved face as a `SURFACE_CURVE` whose master
//!   representation is a PCURVE; truck divided such edges along the 2D curve mapped through the
//!   surface, which evaluates to NaN off the surface's domain, and its curve division halves a
//!   piece until its middle is within the tolerance, up to 100 times: NaN never is, 2^100 pieces.
//!   Edges are read by their exact 3D curve instead ([`with_curve_3d_as_master`]), and the budget
//!   divides curves and spline surfaces itself, with a depth and grid limit and NaN taken as done
//!   (`budget.rs`).
//! - A face truck still cannot finish within [`FACE_TIME`] (a trimming test of a spline plate
//!   with hundreds of holes) is left out, and after [`MAX_STUCK_FACES`] such faces the rest of the
//!   model is too, so a model gives a picture with a face missing rather than none.
//! - A plane meeting a cone leaves a hyperbolic edge, which truck placed on the wrong stretch of
//!   its hyperbola; its range is set from its corners again (`hyperbolas.rs`).
//! - A face truck meshed over its untrimmed surface (few of its boundary's points among its
//!   corners, and reaching past its boundary: `trimming.rs`) is left out.
//! - A face truck cannot convert or trim, whose corners are not numbers, or whose trimming failed
//!   (its triangles reach far past the model's corners) is left out; a model of which no face is
//!   meshed is an error.
//!
//! A part's shells go into its mesh one by one as they are meshed, where their own coordinates put
//! them ([`mesh_shells`]); an assembly's are kept by `#id` ([`mesh_each_shell`]) for the assembly
//! to place each product's shells, once a shell however often the product is used
//! (`assembled.rs`).

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use ruststep::ast::{EntityInstance, Parameter, Record};
use truck_meshalgo::prelude::{
    Faces, MeshedShape, OptimizingFilter, PolygonMesh, RobustMeshableShape, StandardAttributes,
    StandardVertex,
};
use truck_stepio::r#in::Table;
use truck_stepio::r#in::alias::{Curve3D, Point3, Surface};
use truck_topology::compress::{
    CompressedEdge, CompressedEdgeIndex, CompressedFace, CompressedShell,
};

use super::budget::{Budget, Budgeted, Exceeded};
use super::hyperbolas::repair_hyperbola_ranges;
use super::trimming::trimming_failed;
use crate::builder::MeshBuilder;
use crate::{GeometryError, Mesh, Placement};

/// The meshing tolerance as a share of the model's bounding-box diagonal: 0.2 %, about one pixel
/// of a 512-pixel view.
pub const TOLERANCE_OF_SIZE: f64 = 0.002;
/// The smallest tolerance truck accepts is 1e-6 of a unit; tiny models are meshed at this one.
const SMALLEST_TOLERANCE: f64 = 1e-5;
/// Corners closer than this (on the mesh scaled to ±1 in its box) are one corner: truck's own
/// choice (50 × its 1e-6 tolerance).
const WELD_TOLERANCE: f64 = 5e-5;

/// Meshes the shells among `entities` into one mesh in the shells' own places; lengths are
/// multiplied by `millimetres_per_unit`. Each shell goes into the mesh as soon as it is meshed.
pub fn mesh_shells<'a>(
    entities: impl Iterator<Item = &'a EntityInstance>,
    millimetres_per_unit: f64,
    budget: &Arc<Budget>,
) -> Result<Mesh, GeometryError> {
    let mut builder = MeshBuilder::default();
    let faces = each_shell(entities, budget, &mut |_, polygons| {
        draw_polygons(
            &mut builder,
            &polygons,
            millimetres_per_unit,
            &Placement::IDENTITY,
        )
    })?;
    faces.refuse_if_empty(builder.triangle_count())?;
    Ok(builder.finish())
}

/// Every shell of a file meshed on its own, in the file's units, by its `#id`.
pub struct ShellMeshes {
    /// Each shell's faces, welded where they meet (a shell none of whose faces meshed is empty).
    pub shells: std::collections::BTreeMap<u64, PolygonMesh>,
    /// How its faces went.
    pub faces: FaceCount,
}

/// Meshes every shell among `entities` (see the module doc) within `budget`, keeping each.
pub fn mesh_each_shell<'a>(
    entities: impl Iterator<Item = &'a EntityInstance>,
    budget: &Arc<Budget>,
) -> Result<ShellMeshes, GeometryError> {
    let mut shells = std::collections::BTreeMap::new();
    let faces = each_shell(entities, budget, &mut |id, polygons| {
        shells.insert(id, polygons);
        Ok(())
    })?;
    Ok(ShellMeshes { shells, faces })
}

impl FaceCount {
    /// Refuses a model of which no triangle was drawn (`drawn` triangles), with truck's panic where
    /// there was one.
    pub fn refuse_if_empty(&self, drawn: usize) -> Result<(), GeometryError> {
        if drawn > 0 {
            return Ok(());
        }
        if let Some(words) = &self.panic {
            return Err(GeometryError::ReaderFailed(words.clone()));
        }
        Err(GeometryError::Unsupported(format!(
            "truck could mesh none of the model's {} faces",
            self.total
        )))
    }
}

/// Meshes every shell among `entities` in `#id` order within `budget`, handing each to `shell`
/// (its `#id` and its welded faces) as soon as it is done.
fn each_shell<'a>(
    entities: impl Iterator<Item = &'a EntityInstance>,
    budget: &Arc<Budget>,
    shell: &mut dyn FnMut(u64, PolygonMesh) -> Result<(), GeometryError>,
) -> Result<FaceCount, GeometryError> {
    let mut table = Table::default();
    for instance in entities {
        // An instance truck cannot read stays out of its table; what depends on it is not meshed.
        let _ = match with_curve_3d_as_master(instance) {
            Some(edited) => table.push_instance(&edited),
            None => table.push_instance(instance),
        };
    }
    let mut shell_ids: Vec<u64> = table.shell.keys().copied().collect();
    if shell_ids.is_empty() {
        return Err(GeometryError::Unsupported(
            "the STEP file has no B-rep shell (CLOSED_SHELL or OPEN_SHELL) to mesh".to_owned(),
        ));
    }
    shell_ids.sort_unstable();
    let shells: Vec<_> = shell_ids
        .iter()
        .filter_map(|&id| {
            let mut shell = table.to_compressed_shell(table.shell.get(&id)?).ok()?;
            repair_hyperbola_ranges(&mut shell);
            Some((id, shell))
        })
        .collect();
    let vertex_box = VertexBox::of(shells.iter().map(|(_, shell)| shell));
    let tolerance = (vertex_box.diagonal() * TOLERANCE_OF_SIZE).max(SMALLEST_TOLERANCE);
    let mut faces = FaceCount::default();
    let mut mesher = FaceMesher::start(tolerance)?;
    for (id, compressed) in shells {
        if budget.exceeded().is_some() {
            break;
        }
        let polygons = mesh_faces(&compressed, &vertex_box, &mut mesher, &mut faces, budget)?;
        if budget.exceeded().is_some() {
            break;
        }
        shell(id, welded(polygons))?;
    }
    match budget.exceeded() {
        Some(Exceeded::Time) => {
            return Err(GeometryError::OutOfTime {
                seconds: budget.time().as_secs_f64(),
            });
        }
        Some(Exceeded::Points) => {
            return Err(GeometryError::OverLimit(format!(
                "meshing needs more than {} sample points",
                budget.points_used()
            )));
        }
        None => {}
    }
    tracing::debug!(
        faces = faces.total,
        left_out = faces.left_out,
        untrimmed = faces.untrimmed,
        stuck = faces.stuck,
        tolerance,
        "STEP shells meshed"
    );
    Ok(faces)
}

/// The faces of one shell meshed, each on its own, into one polygon mesh (not yet welded).
fn mesh_faces(
    shell: &CompressedShell<Point3, Curve3D, Surface>,
    vertex_box: &VertexBox,
    mesher: &mut FaceMesher,
    faces: &mut FaceCount,
    budget: &Arc<Budget>,
) -> Result<PolygonMesh, GeometryError> {
    let mut polygons = PolygonMesh::default();
    for face in &shell.faces {
        faces.total += 1;
        if budget.exceeded().is_some() || faces.stuck >= MAX_STUCK_FACES {
            faces.left_out += 1;
            continue;
        }
        let face_budget = Budget::part_of(budget, FACE_TIME);
        // A face whose boundary names an edge the shell does not have is left out.
        let meshed = match face_alone(shell, face, &face_budget) {
            Some(alone) => mesher.mesh(alone, &face_budget)?,
            None => FaceMeshed::LeftOut,
        };
        match meshed {
            FaceMeshed::Polygons(face_polygons) if vertex_box.holds(&face_polygons) => {
                polygons.merge(face_polygons)
            }
            FaceMeshed::Polygons(_) | FaceMeshed::LeftOut => faces.left_out += 1,
            FaceMeshed::Untrimmed => {
                faces.left_out += 1;
                faces.untrimmed += 1;
            }
            FaceMeshed::Panicked(words) => {
                faces.left_out += 1;
                faces.panic.get_or_insert(words);
            }
            FaceMeshed::Stuck => {
                faces.left_out += 1;
                faces.stuck += 1;
            }
        }
    }
    Ok(polygons)
}

/// A shell's faces welded where they meet: each face is meshed on its own, so corners along a
/// shared edge come out a hair apart; they are welded within truck's tolerance on the mesh scaled
/// to its box, so the surface is closed where the solid is. truck's welding panics on geometry it
/// did not expect; the faces stay unwelded then.
fn welded(polygons: PolygonMesh) -> PolygonMesh {
    let unwelded = polygons.clone();
    std::panic::catch_unwind(AssertUnwindSafe(move || {
        let mut polygons = polygons;
        polygons
            .put_together_same_attrs(WELD_TOLERANCE)
            .remove_degenerate_faces();
        polygons
    }))
    .unwrap_or(unwelded)
}

/// Adds a shell's polygons to `builder`, lengths multiplied by `millimetres_per_unit` and then
/// moved by `placement` (millimetres); polygons become fans of triangles.
pub fn draw_polygons(
    builder: &mut MeshBuilder,
    polygons: &PolygonMesh,
    millimetres_per_unit: f64,
    placement: &Placement,
) -> Result<(), GeometryError> {
    let positions = polygons.positions();
    let identity = *placement == Placement::IDENTITY;
    for polygon in polygons.face_iter() {
        let corners: Vec<[f32; 3]> = polygon
            .iter()
            .filter_map(|vertex| positions.get(vertex.pos))
            .map(|point| {
                if identity {
                    in_millimetres(point, millimetres_per_unit)
                } else {
                    let scaled = [point.x, point.y, point.z].map(|v| v * millimetres_per_unit);
                    placement.apply(scaled).map(|value| value as f32)
                }
            })
            .collect();
        if placement.mirrors() {
            let reversed: Vec<[f32; 3]> = corners.into_iter().rev().collect();
            builder.polygon(&reversed)?;
        } else {
            builder.polygon(&corners)?;
        }
    }
    Ok(())
}

/// How long one face may take to mesh before it is left out of the model. A face of an ordinary
/// part meshes in milliseconds; a face truck cannot finish (a trimming test of a spline plate with
/// hundreds of holes, a finely divided helical thread) would otherwise take the whole model's
/// time.
pub const FACE_TIME: Duration = Duration::from_secs(2);
/// How long a face whose time is up may take to come back with the coarsest answers before its
/// thread is given up on (it is stuck where the budget is never asked).
const STUCK_GRACE: Duration = Duration::from_millis(500);
/// Faces given up on, after which the rest of the model is left out: each one leaves a thread
/// running until the reader's process ends.
pub const MAX_STUCK_FACES: usize = 3;

/// The faces of a model: how many, how many were left out and why.
#[derive(Default)]
pub struct FaceCount {
    total: usize,
    left_out: usize,
    /// Of those left out, the faces meshed over their untrimmed surface.
    untrimmed: usize,
    stuck: usize,
    panic: Option<String>,
}

type StepCurve = Budgeted<Curve3D>;
type StepSurface = Budgeted<Surface>;
/// One face with the edges and corners it is bounded by, its geometry under its own budget.
type FaceAlone = CompressedShell<Point3, StepCurve, StepSurface>;

/// The shell of one face of `shell`: the edges its boundaries name (numbered anew) and their
/// corners. `None` when a boundary names an edge or corner the shell does not have.
fn face_alone(
    shell: &CompressedShell<Point3, Curve3D, Surface>,
    face: &CompressedFace<Surface>,
    budget: &Arc<Budget>,
) -> Option<FaceAlone> {
    let mut edge_numbers: HashMap<usize, usize> = HashMap::new();
    let mut vertex_numbers: HashMap<usize, usize> = HashMap::new();
    let mut vertices = Vec::new();
    let mut edges = Vec::new();
    let mut boundaries = Vec::with_capacity(face.boundaries.len());
    for wire in &face.boundaries {
        let mut new_wire = Vec::with_capacity(wire.len());
        for edge_index in wire {
            let number = match edge_numbers.get(&edge_index.index) {
                Some(number) => *number,
                None => {
                    let edge = shell.edges.get(edge_index.index)?;
                    let mut corner = |old: usize| -> Option<usize> {
                        if let Some(number) = vertex_numbers.get(&old) {
                            return Some(*number);
                        }
                        vertices.push(*shell.vertices.get(old)?);
                        vertex_numbers.insert(old, vertices.len() - 1);
                        Some(vertices.len() - 1)
                    };
                    let ends = (corner(edge.vertices.0)?, corner(edge.vertices.1)?);
                    edges.push(CompressedEdge {
                        vertices: ends,
                        curve: Budgeted::new(edge.curve.clone(), budget),
                    });
                    edge_numbers.insert(edge_index.index, edges.len() - 1);
                    edges.len() - 1
                }
            };
            new_wire.push(CompressedEdgeIndex {
                index: number,
                orientation: edge_index.orientation,
            });
        }
        boundaries.push(new_wire);
    }
    Some(CompressedShell {
        vertices,
        edges,
        faces: vec![CompressedFace {
            boundaries,
            orientation: face.orientation,
            surface: Budgeted::new(face.surface.clone(), budget),
        }],
    })
}

/// How meshing one face ended.
enum FaceMeshed {
    /// Its triangles (and its boundary's polylines).
    Polygons(PolygonMesh),
    /// truck could not trim or convert it, or its time ran out and it came back coarse.
    LeftOut,
    /// truck meshed it over its untrimmed surface (`trimming.rs`).
    Untrimmed,
    /// truck panicked on it (the words of the panic).
    Panicked(String),
    /// Its time ran out and it did not come back: its thread was given up on.
    Stuck,
}

/// A face as truck meshed it: its triangles and the points of its boundary's polylines.
type MeshedFace = (PolygonMesh, Vec<Point3>);

/// A thread that meshes faces one at a time, so that one face that never finishes can be given
/// up on (truck cannot be interrupted; its thread is left to run until the process ends) while
/// the rest of the model is meshed on a new one.
struct FaceMesher {
    tolerance: f64,
    faces: mpsc::Sender<FaceAlone>,
    /// Each face's triangles and its boundary's points, or the words of truck's panic.
    meshed: mpsc::Receiver<Result<Option<MeshedFace>, String>>,
}

impl FaceMesher {
    fn start(tolerance: f64) -> Result<Self, GeometryError> {
        let (faces, face_inbox) = mpsc::channel::<FaceAlone>();
        let (meshed_out, meshed) = mpsc::channel();
        std::thread::Builder::new()
            .name("step-face-mesher".to_owned())
            .spawn(move || {
                for face in face_inbox {
                    // truck's own panics (unwraps on geometry it did not expect) leave the face
                    // out, not the model.
                    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        let meshed = face.robust_triangulation(tolerance);
                        let any = meshed.faces.iter().any(|face| face.surface.is_some());
                        any.then(|| {
                            let polygons = positions_only(&meshed.to_polygon());
                            let boundary: Vec<Point3> = meshed
                                .edges
                                .iter()
                                .flat_map(|edge| edge.curve.0.iter().copied())
                                .collect();
                            (polygons, boundary)
                        })
                    }))
                    .map_err(|panic| panic_words(panic.as_ref()));
                    if meshed_out.send(outcome).is_err() {
                        return;
                    }
                }
            })
            .map_err(|error| {
                GeometryError::ReaderFailed(format!("could not start the STEP mesher: {error}"))
            })?;
        Ok(Self {
            tolerance,
            faces,
            meshed,
        })
    }

    /// Meshes `face` within `budget`.
    fn mesh(&mut self, face: FaceAlone, budget: &Budget) -> Result<FaceMeshed, GeometryError> {
        if self.faces.send(face).is_err() {
            *self = Self::start(self.tolerance)?;
            return Ok(FaceMeshed::LeftOut);
        }
        let outcome = match self.meshed.recv_timeout(budget.time_left()) {
            Ok(outcome) => outcome,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                *self = Self::start(self.tolerance)?;
                return Ok(FaceMeshed::LeftOut);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                budget.end();
                if self.meshed.recv_timeout(STUCK_GRACE).is_ok() {
                    // Back with the coarsest answers: a face that is not worth drawing.
                    return Ok(FaceMeshed::LeftOut);
                }
                *self = Self::start(self.tolerance)?;
                return Ok(FaceMeshed::Stuck);
            }
        };
        if budget.exceeded().is_some() {
            // Finished, but on the coarse answers given after the face's time ran out.
            return Ok(FaceMeshed::LeftOut);
        }
        Ok(match outcome {
            // A face with a corner that is not a number (a surface evaluated outside its
            // domain) is not drawn.
            // Judged here, outside the face's time: a face that meshes just within its time is not
            // left out for the time its check takes.
            Ok(Some((polygons, boundary)))
                if trimming_failed(&boundary, &polygons, self.tolerance) =>
            {
                FaceMeshed::Untrimmed
            }
            Ok(Some((polygons, _))) if all_finite(&polygons) => FaceMeshed::Polygons(polygons),
            Ok(Some(_)) => FaceMeshed::LeftOut,
            Ok(None) => FaceMeshed::LeftOut,
            Err(words) => FaceMeshed::Panicked(words),
        })
    }
}

/// `mesh` without its texture coordinates and normals (nothing here uses them, and welding them
/// put every pair of equal normals of a model's flat faces in one list: 4.4 GB for a 1.5 MB
/// assembly of 1,018 faces).
fn positions_only(mesh: &PolygonMesh) -> PolygonMesh {
    mesh_of_positions(
        mesh.positions().clone(),
        mesh.face_iter()
            .map(|face| face.iter().map(|vertex| vertex.pos).collect()),
    )
}

/// A mesh of `positions` and faces given by their corners' indices, without texture coordinates
/// or normals.
pub(super) fn mesh_of_positions(
    positions: Vec<Point3>,
    faces: impl Iterator<Item = Vec<usize>>,
) -> PolygonMesh {
    let faces: Faces = faces
        .map(|corners| {
            corners
                .into_iter()
                .map(|pos| StandardVertex {
                    pos,
                    uv: None,
                    nor: None,
                })
                .collect::<Vec<_>>()
        })
        .collect();
    PolygonMesh::new(
        StandardAttributes {
            positions,
            ..StandardAttributes::default()
        },
        faces,
    )
}

fn all_finite(polygons: &PolygonMesh) -> bool {
    polygons
        .positions()
        .iter()
        .all(|point| point.x.is_finite() && point.y.is_finite() && point.z.is_finite())
}

/// A `SURFACE_CURVE` or `SEAM_CURVE` whose master representation is one of its PCURVEs, made to
/// name its 3D curve as the master instead (`None` for any other instance).
///
/// OpenCASCADE (FreeCAD, build123d, …) writes every edge on a curved face this way, and truck
/// then divides the edge along the 2D trimming curve mapped through the surface, which on such
/// files evaluates to NaN where the 2D curve leaves the surface's domain: the faces bounded by
/// those edges could not be meshed (a retaining ring lost 2 to 7 of its 14–16 faces). The 3D curve
/// is in the same record, exact, and is what every other CAD system names as the master.
fn with_curve_3d_as_master(instance: &EntityInstance) -> Option<EntityInstance> {
    let EntityInstance::Simple { id, record } = instance else {
        return None;
    };
    if !matches!(record.name.as_str(), "SURFACE_CURVE" | "SEAM_CURVE") {
        return None;
    }
    let Parameter::List(parameters) = &record.parameter else {
        return None;
    };
    let master = parameters.get(3)?;
    if !matches!(master, Parameter::Enumeration(value) if value.starts_with("PCURVE")) {
        return None;
    }
    let mut parameters = parameters.clone();
    parameters[3] = Parameter::Enumeration("CURVE_3D".to_owned());
    Some(EntityInstance::Simple {
        id: *id,
        record: Record {
            name: record.name.clone(),
            parameter: Parameter::List(parameters),
        },
    })
}

/// How far past the box of a model's corners a face may reach, in diagonals of that box.
const FACE_BULGE: f64 = 10.0;

/// The box around every vertex (corner) of the shells.
struct VertexBox {
    low: [f64; 3],
    high: [f64; 3],
}

impl VertexBox {
    fn of<'a, C: 'a, S: 'a>(
        shells: impl Iterator<Item = &'a CompressedShell<Point3, C, S>>,
    ) -> Self {
        let mut low = [f64::INFINITY; 3];
        let mut high = [f64::NEG_INFINITY; 3];
        for point in shells.flat_map(|shell| &shell.vertices) {
            for (k, value) in [point.x, point.y, point.z].into_iter().enumerate() {
                low[k] = low[k].min(value);
                high[k] = high[k].max(value);
            }
        }
        Self { low, high }
    }

    /// The box's diagonal (1 when there is no vertex).
    fn diagonal(&self) -> f64 {
        let diagonal = (0..3)
            .map(|k| (self.high[k] - self.low[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        if diagonal.is_finite() && diagonal > 0.0 {
            diagonal
        } else {
            1.0
        }
    }

    /// True when every corner of `polygons` is within the box grown by [`FACE_BULGE`] times its
    /// diagonal on every side. A face may bulge far past the corners (a cylinder bounded by two
    /// circles has its corners on one line; a spring washer has all of its corners at its cut);
    /// a face whose trimming failed is meshed over its whole surface, which in a Voron build
    /// plate's file was 400 times the plate's size.
    fn holds(&self, polygons: &PolygonMesh) -> bool {
        let margin = FACE_BULGE * self.diagonal();
        polygons.positions().iter().all(|point| {
            [point.x, point.y, point.z]
                .into_iter()
                .enumerate()
                .all(|(k, value)| value >= self.low[k] - margin && value <= self.high[k] + margin)
        })
    }
}

fn in_millimetres(point: &Point3, millimetres_per_unit: f64) -> [f32; 3] {
    [point.x, point.y, point.z].map(|value| (value * millimetres_per_unit) as f32)
}

/// What a panic said, on one line (its payload is a string when it came from `panic!`).
pub fn panic_words(payload: &(dyn std::any::Any + Send)) -> String {
    let words = payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned());
    let line = words.lines().next().unwrap_or_default();
    format!(
        "the STEP mesher stopped: {}",
        line.chars().take(160).collect::<String>()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entities(data: &str) -> Vec<EntityInstance> {
        let text = format!(
            "ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\nFILE_NAME('','',(''),(''),'','','');\nFILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\nENDSEC;\nDATA;\n{data}\nENDSEC;\nEND-ISO-10303-21;\n"
        );
        let exchange = ruststep::parser::parse(&text).unwrap();
        exchange
            .data
            .into_iter()
            .flat_map(|section| section.entities)
            .collect()
    }

    fn master(instance: &EntityInstance) -> String {
        let EntityInstance::Simple { record, .. } = instance else {
            panic!("not a simple instance: {instance:?}");
        };
        let Parameter::List(parameters) = &record.parameter else {
            panic!("no parameter list: {record:?}");
        };
        match &parameters[3] {
            Parameter::Enumeration(value) => value.clone(),
            other => panic!("the master is {other:?}"),
        }
    }

    #[test]
    fn surface_and_seam_curves_name_their_3d_curve_as_master() {
        // As FreeCAD writes them (the DIN 471 ring of the real-world corpus, lines 40 and on).
        let instances = entities(
            "#26=SURFACE_CURVE('',#27,(#31,#43),.PCURVE_S1.);\n#59=SEAM_CURVE('',#60,(#64,#71),.PCURVE_S2.);\n#88=SURFACE_CURVE('',#89,(#92,#99),.CURVE_3D.);\n#90=LINE('',#91,#92);",
        );
        let edited: Vec<Option<EntityInstance>> =
            instances.iter().map(with_curve_3d_as_master).collect();
        assert_eq!(master(edited[0].as_ref().unwrap()), "CURVE_3D");
        assert_eq!(master(edited[1].as_ref().unwrap()), "CURVE_3D");
        let EntityInstance::Simple { id, record } = edited[1].as_ref().unwrap() else {
            unreachable!()
        };
        assert_eq!((*id, record.name.as_str()), (59, "SEAM_CURVE"));
        assert_eq!(
            master(&instances[1]),
            "PCURVE_S2",
            "the parsed file is not changed"
        );
        assert!(edited[2].is_none(), "already the 3D curve");
        assert!(edited[3].is_none(), "not a surface curve");
    }

    fn square_at(corner: f64, size: f64) -> PolygonMesh {
        let positions = vec![
            Point3::new(corner, corner, 0.0),
            Point3::new(corner + size, corner, 0.0),
            Point3::new(corner + size, corner + size, 0.0),
            Point3::new(corner, corner + size, 0.0),
        ];
        mesh_of_positions(positions, std::iter::once(vec![0, 1, 2, 3]))
    }

    #[test]
    fn a_face_may_bulge_past_the_corners_but_not_far() {
        let corners = VertexBox {
            low: [0.0; 3],
            high: [1.0, 1.0, 0.0],
        };
        assert!(corners.holds(&square_at(0.0, 1.0)));
        // A spring washer's face reaches far past its few corners at the cut.
        assert!(corners.holds(&square_at(-5.0, 10.0)));
        // A failed trim meshed over its whole surface: 400 times the part.
        assert!(!corners.holds(&square_at(-200.0, 400.0)));
        // Welding after the faces keeps only positions: nothing else is carried.
        let copy = positions_only(&square_at(0.0, 1.0));
        assert_eq!(copy.positions().len(), 4);
        assert!(copy.normals().is_empty() && copy.uv_coords().is_empty());
        assert!(all_finite(&copy));
        assert!(!all_finite(&square_at(f64::NAN, 1.0)));
    }
}
