//! Meshing the B-rep shells of a checked STEP file with truck: every `CLOSED_SHELL` and
//! `OPEN_SHELL` (in `#id` order, so the mesh is the same every time) becomes truck's compressed
//! shell, its curves and surfaces are wrapped in the [`Budget`] and triangulated with
//! `robust_triangulation` at a tolerance of [`TOLERANCE_OF_SIZE`] of the model's size, and the
//! triangles are welded where faces meet, scaled to millimetres and gathered into one [`Mesh`].
//!
//! A face truck cannot convert or trim is left out; a model of which no face is meshed is an
//! error. Assembly placements are not applied by this truck release (each shell stays where its
//! own coordinates put it).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use ruststep::ast::EntityInstance;
use truck_meshalgo::prelude::{MeshedShape, OptimizingFilter, RobustMeshableShape};
use truck_stepio::r#in::Table;
use truck_stepio::r#in::alias::Point3;
use truck_topology::compress::{CompressedEdge, CompressedFace, CompressedShell};

use super::budget::{Budget, Budgeted, Exceeded};
use crate::builder::MeshBuilder;
use crate::{GeometryError, Mesh};

/// The meshing tolerance as a share of the model's bounding-box diagonal: 0.2 %, about one pixel
/// of a 512-pixel view.
pub const TOLERANCE_OF_SIZE: f64 = 0.002;
/// The smallest tolerance truck accepts is 1e-6 of a unit; tiny models are meshed at this one.
const SMALLEST_TOLERANCE: f64 = 1e-5;
/// Corners closer than this (on the mesh scaled to ±1 in its box) are one corner: truck's own
/// choice (50 × its 1e-6 tolerance).
const WELD_TOLERANCE: f64 = 5e-5;

/// Meshes the shells among `entities`; lengths are multiplied by `millimetres_per_unit`.
pub fn mesh_shells<'a>(
    entities: impl Iterator<Item = &'a EntityInstance>,
    millimetres_per_unit: f64,
    budget: &Arc<Budget>,
) -> Result<Mesh, GeometryError> {
    let mut table = Table::default();
    for instance in entities {
        // An instance truck cannot read stays out of its table; what depends on it is not meshed.
        let _ = table.push_instance(instance);
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
        .filter_map(|id| table.to_compressed_shell(table.shell.get(id)?).ok())
        .collect();
    let tolerance = (diagonal(&shells) * TOLERANCE_OF_SIZE).max(SMALLEST_TOLERANCE);
    let mut builder = MeshBuilder::default();
    let mut faces = 0_usize;
    let mut meshed_faces = 0_usize;
    for shell in shells {
        if budget.exceeded().is_some() {
            break;
        }
        let shell = CompressedShell {
            vertices: shell.vertices,
            edges: shell
                .edges
                .into_iter()
                .map(|edge| CompressedEdge {
                    vertices: edge.vertices,
                    curve: Budgeted::new(edge.curve, budget),
                })
                .collect(),
            faces: shell
                .faces
                .into_iter()
                .map(|face| CompressedFace {
                    boundaries: face.boundaries,
                    orientation: face.orientation,
                    surface: Budgeted::new(face.surface, budget),
                })
                .collect(),
        };
        // truck's own panics (unwraps on geometry it did not expect) end this model, not the
        // process: the caller reports them.
        let meshed =
            std::panic::catch_unwind(AssertUnwindSafe(|| shell.robust_triangulation(tolerance)))
                .map_err(|panic| GeometryError::ReaderFailed(panic_words(panic.as_ref())))?;
        if budget.exceeded().is_some() {
            break;
        }
        faces += meshed.faces.len();
        meshed_faces += meshed
            .faces
            .iter()
            .filter(|face| face.surface.is_some())
            .count();
        // Each face is meshed on its own: corners along a shared edge come out a hair apart and
        // are welded here (within truck's tolerance, on the mesh scaled to its box), so the
        // surface is closed where the solid is.
        let mut polygons = meshed.to_polygon();
        polygons
            .put_together_same_attrs(WELD_TOLERANCE)
            .remove_degenerate_faces();
        let positions = polygons.positions();
        for polygon in polygons.face_iter() {
            let corners: Vec<[f32; 3]> = polygon
                .iter()
                .filter_map(|vertex| positions.get(vertex.pos))
                .map(|point| in_millimetres(point, millimetres_per_unit))
                .collect();
            builder.polygon(&corners)?;
        }
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
    if builder.triangle_count() == 0 {
        return Err(GeometryError::Unsupported(format!(
            "truck could mesh none of the model's {faces} faces"
        )));
    }
    tracing::debug!(faces, meshed_faces, tolerance, "STEP shells meshed");
    Ok(builder.finish())
}

/// The diagonal of the box around every vertex of the shells (1 when there is none).
fn diagonal<C, S>(shells: &[CompressedShell<Point3, C, S>]) -> f64 {
    let mut low = [f64::INFINITY; 3];
    let mut high = [f64::NEG_INFINITY; 3];
    for point in shells.iter().flat_map(|shell| &shell.vertices) {
        for (k, value) in [point.x, point.y, point.z].into_iter().enumerate() {
            low[k] = low[k].min(value);
            high[k] = high[k].max(value);
        }
    }
    let diagonal = (0..3)
        .map(|k| (high[k] - low[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    if diagonal.is_finite() && diagonal > 0.0 {
        diagonal
    } else {
        1.0
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
