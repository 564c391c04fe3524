//! The OpenCASCADE reader (cargo feature `occt`): STEP and IGES files read, healed
//! (`ShapeFix_Shape`) and meshed (`BRepMesh_IncrementalMesh`) by the system's OpenCASCADE 7.4–7.7
//! through the C++ shim beside this file (`occt_shim.cpp`, built and linked by `build.rs`). A STEP
//! assembly (a file the pure-Rust reader found usages in) is read through XCAF instead, its
//! product tree with it (`assembly.rs`, `occt_assembly.cpp`).
//!
//! Limits: the file at most [`MAX_OCCT_BYTES`] (an IGES file is written to a temporary file for the
//! call, which OpenCASCADE 7.6 needs, and removed after it); reading, healing and meshing stop at the time budget
//! (OpenCASCADE polls a progress indicator that says "stop" once the deadline has passed) and the
//! mesh at the triangle budget (the same budgets as the pure-Rust STEP reader's, see
//! [`StepBudget`]); the mesh then goes through the shared builder and its limits. OpenCASCADE keeps
//! global state, so one file is read at a time; its console messages are switched off; a C++
//! exception comes back as [`GeometryError::ReaderFailed`]. A crash inside OpenCASCADE itself (a
//! segmentation fault) cannot be caught in-process: that is the price of the native reader, and why
//! it is a feature.
//!
//! A shape with no face at all but with edges (an IGES of curves only, a wireframe) is drawn as
//! lines: the shim discretises every edge into a polyline (`GCPnts_TangentialDeflection`, the
//! faces' deflections) and each segment becomes a thin triangular-prism tube, 6 triangles, of
//! circumradius [`LINE_RADIUS_OF_SIZE`] of the curves' bounding-box diagonal (about half a percent
//! of it wide), so the lines shade from every viewpoint. At most [`MAX_LINE_SEGMENTS`] segments
//! (600 000 triangles), and no more than the triangle budget allows at 6 triangles a segment; more
//! is refused as over a limit. A shape with faces is meshed as always (if none of its faces meshes
//! it is refused, edges or not), and one with neither faces nor edges (points only) is refused.
//!
//! This is the one place in the crate with `unsafe` code: the calls into the shim.

mod assembly;

use std::ffi::{CStr, CString, c_char};
use std::path::PathBuf;
use std::sync::Mutex;

use super::builder::MeshBuilder;
use super::step::{StepBudget, TOLERANCE_OF_SIZE};
use super::{GeometryError, Mesh};

pub(crate) use assembly::read_assembly_with_occt;

/// Largest file handed to OpenCASCADE, in bytes.
pub const MAX_OCCT_BYTES: usize = super::step::MAX_STEP_BYTES;

/// Most line segments drawn for a shape of curves only (each a tube of
/// [`TRIANGLES_PER_SEGMENT`] triangles).
pub const MAX_LINE_SEGMENTS: usize = 100_000;

/// Triangles of the tube that draws one line segment: a triangular prism without ends.
pub const TRIANGLES_PER_SEGMENT: usize = 6;

/// Radius of the tube drawing a curve (to the prism's edges) as a fraction of the diagonal of the
/// curves' bounding box: the tube is 1.5–1.7 times as wide, about 0.5 % of the diagonal.
pub const LINE_RADIUS_OF_SIZE: f64 = 0.0035;

/// The formats OpenCASCADE reads here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CadFormat {
    /// ISO 10303-21 (`.step`, `.stp`).
    Step,
    /// IGES 5.x (`.igs`, `.iges`).
    Iges,
}

/// One read at a time: OpenCASCADE's readers share global state.
static OPENCASCADE: Mutex<()> = Mutex::new(());

#[allow(unsafe_code)]
mod ffi {
    use std::ffi::{c_char, c_double, c_int};

    /// `PartlensOcctMesh` of the shim: triangles, or (a shape without faces) polylines.
    #[repr(C)]
    pub struct OcctMesh {
        pub vertices: *mut f32,
        pub vertex_count: usize,
        pub triangles: *mut u32,
        pub triangle_count: usize,
        pub line_points: *mut f32,
        pub line_point_count: usize,
        pub line_lengths: *mut usize,
        pub line_count: usize,
    }

    pub const OK: c_int = 0;
    pub const OUT_OF_TIME: c_int = 2;
    pub const TOO_MANY_TRIANGLES: c_int = 3;

    unsafe extern "C" {
        pub fn partlens_occt_read(
            bytes: *const u8,
            length: usize,
            iges_path: *const c_char,
            seconds: c_double,
            max_triangles: usize,
            max_segments: usize,
            deflection_of_size: c_double,
            out: *mut OcctMesh,
            message: *mut c_char,
            message_length: usize,
        ) -> c_int;
        pub fn partlens_occt_free(mesh: *mut OcctMesh);
        pub fn partlens_occt_version() -> *const c_char;
    }
}

/// The OpenCASCADE version this build links (`7.6.3`).
#[allow(unsafe_code)]
pub fn occt_version() -> String {
    // SAFETY: the shim returns a pointer to a static, NUL-terminated string literal.
    let version = unsafe { CStr::from_ptr(ffi::partlens_occt_version()) };
    version.to_string_lossy().into_owned()
}

/// Reads and meshes a STEP or IGES file within `budget`; lengths in millimetres.
#[allow(unsafe_code)]
pub fn read_with_occt(
    format: CadFormat,
    bytes: &[u8],
    budget: StepBudget,
) -> Result<Mesh, GeometryError> {
    if bytes.len() > MAX_OCCT_BYTES {
        return Err(GeometryError::TooLarge {
            limit: MAX_OCCT_BYTES,
        });
    }
    // OpenCASCADE 7.6 reads IGES only from a file: the bytes go to a file of our own for the call.
    let iges_file = match format {
        CadFormat::Iges => Some(ScratchFile::with(bytes)?),
        CadFormat::Step => None,
    };
    let iges_path = iges_file.as_ref().map(ScratchFile::c_path);
    let _one_at_a_time = OPENCASCADE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut mesh = ffi::OcctMesh {
        vertices: std::ptr::null_mut(),
        vertex_count: 0,
        triangles: std::ptr::null_mut(),
        triangle_count: 0,
        line_points: std::ptr::null_mut(),
        line_point_count: 0,
        line_lengths: std::ptr::null_mut(),
        line_count: 0,
    };
    let max_segments = MAX_LINE_SEGMENTS.min(budget.triangles / TRIANGLES_PER_SEGMENT);
    let mut message = [0 as c_char; 512];
    // SAFETY: `bytes` is valid for its length; `mesh` and `message` are valid for writing, and the
    // shim writes at most `message.len()` bytes, NUL-terminated. The shim catches every C++
    // exception, so none unwinds into Rust.
    let outcome = unsafe {
        ffi::partlens_occt_read(
            bytes.as_ptr(),
            bytes.len(),
            iges_path.map_or(std::ptr::null(), CStr::as_ptr),
            budget.time.as_secs_f64(),
            budget.triangles,
            max_segments,
            TOLERANCE_OF_SIZE,
            &mut mesh,
            message.as_mut_ptr(),
            message.len(),
        )
    };
    let result = match outcome {
        ffi::OK if mesh.triangle_count == 0 && mesh.line_count > 0 => {
            draw_lines(&mesh, max_segments)
        }
        ffi::OK => copy_mesh(&mesh),
        ffi::OUT_OF_TIME => Err(GeometryError::OutOfTime {
            seconds: budget.time.as_secs_f64(),
        }),
        ffi::TOO_MANY_TRIANGLES => Err(GeometryError::OverLimit(words(&message))),
        _ => Err(GeometryError::Malformed(words(&message))),
    };
    // SAFETY: `mesh` was filled by partlens_occt_read (or left empty); freeing it once is what the
    // shim expects, and it tolerates empty meshes.
    unsafe { ffi::partlens_occt_free(&mut mesh) };
    result
}

/// A file of the bytes in the temporary folder, named uniquely, removed when dropped.
struct ScratchFile {
    path: PathBuf,
    c_path: CString,
}

impl ScratchFile {
    fn with(bytes: &[u8]) -> Result<Self, GeometryError> {
        use std::io::Write;
        let cannot = |error: std::io::Error| {
            GeometryError::ReaderFailed(format!("cannot write the file for OpenCASCADE: {error}"))
        };
        let path = std::env::temp_dir().join(format!("partlens-occt-{}.igs", uuid::Uuid::new_v4()));
        let c_path = CString::new(path.to_string_lossy().into_owned())
            .map_err(|error| GeometryError::ReaderFailed(error.to_string()))?;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(cannot)?;
        let scratch = Self { path, c_path };
        file.write_all(bytes).map_err(cannot)?;
        Ok(scratch)
    }

    fn c_path(&self) -> &CStr {
        &self.c_path
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The shim's message as a string (empty buffer: a general sentence).
fn words(message: &[c_char]) -> String {
    let bytes: Vec<u8> = message
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    let text = String::from_utf8_lossy(&bytes).trim().to_owned();
    if text.is_empty() {
        "OpenCASCADE cannot read the file".to_owned()
    } else {
        text
    }
}

/// Copies the shim's mesh into the shared builder (its limits and welding apply).
#[allow(unsafe_code)]
fn copy_mesh(mesh: &ffi::OcctMesh) -> Result<Mesh, GeometryError> {
    if mesh.vertices.is_null() || mesh.triangles.is_null() {
        return Err(GeometryError::Malformed(
            "OpenCASCADE returned no mesh".to_owned(),
        ));
    }
    // SAFETY: the shim allocated `vertex_count * 3` floats and `triangle_count * 3` indices at
    // these non-null pointers; they stay valid until partlens_occt_free.
    let (vertices, triangles) = unsafe {
        (
            std::slice::from_raw_parts(mesh.vertices, mesh.vertex_count * 3),
            std::slice::from_raw_parts(mesh.triangles, mesh.triangle_count * 3),
        )
    };
    with_surface(shim_triangles(vertices, triangles)?)
}

/// The shim's triangles (corners as x, y, z floats; three corner indices a triangle) through the
/// shared builder (its limits and welding apply); an index past the corners is refused.
fn shim_triangles(vertices: &[f32], triangles: &[u32]) -> Result<Mesh, GeometryError> {
    let corner = |index: u32| -> Result<[f32; 3], GeometryError> {
        let at = index as usize * 3;
        vertices
            .get(at..at + 3)
            .map(|xyz| [xyz[0], xyz[1], xyz[2]])
            .ok_or_else(|| GeometryError::Malformed("OpenCASCADE's mesh is damaged".to_owned()))
    };
    let mut builder = MeshBuilder::default();
    for triangle in triangles.chunks_exact(3) {
        builder.triangle([
            corner(triangle[0])?,
            corner(triangle[1])?,
            corner(triangle[2])?,
        ])?;
    }
    Ok(builder.finish())
}

/// The mesh, unless it has no surface.
fn with_surface(mesh: Mesh) -> Result<Mesh, GeometryError> {
    if mesh.surface_area() <= 0.0 {
        return Err(GeometryError::Malformed(
            "the mesh has no surface".to_owned(),
        ));
    }
    Ok(mesh)
}

/// Draws the shim's polylines, at most `max_segments` segments, as thin tubes through the shared
/// builder (its limits apply).
#[allow(unsafe_code)]
fn draw_lines(mesh: &ffi::OcctMesh, max_segments: usize) -> Result<Mesh, GeometryError> {
    if mesh.line_points.is_null() || mesh.line_lengths.is_null() {
        return Err(GeometryError::Malformed(
            "OpenCASCADE returned no curves".to_owned(),
        ));
    }
    // SAFETY: the shim allocated `line_point_count * 3` floats and `line_count` lengths at these
    // non-null pointers; they stay valid until partlens_occt_free.
    let (coordinates, lengths) = unsafe {
        (
            std::slice::from_raw_parts(mesh.line_points, mesh.line_point_count * 3),
            std::slice::from_raw_parts(mesh.line_lengths, mesh.line_count),
        )
    };
    let points: Vec<[f64; 3]> = coordinates
        .chunks_exact(3)
        .map(|xyz| [xyz[0], xyz[1], xyz[2]].map(f64::from))
        .collect();
    let damaged = || GeometryError::Malformed("OpenCASCADE's curves are damaged".to_owned());
    let mut polylines = Vec::with_capacity(lengths.len());
    let mut rest = points.as_slice();
    for &length in lengths {
        if length > rest.len() {
            return Err(damaged());
        }
        let (polyline, after) = rest.split_at(length);
        polylines.push(polyline);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(damaged());
    }
    let segments: usize = polylines
        .iter()
        .map(|polyline| polyline.len().saturating_sub(1))
        .sum();
    if segments > max_segments {
        return Err(GeometryError::OverLimit(format!(
            "the curves would be drawn with more than {max_segments} line segments"
        )));
    }
    let radius = LINE_RADIUS_OF_SIZE * diagonal(&points);
    let mut builder = MeshBuilder::default();
    for polyline in polylines {
        tube(&mut builder, polyline, radius)?;
    }
    with_surface(builder.finish())
}

/// The diagonal of the box around the points (0 for none).
fn diagonal(points: &[[f64; 3]]) -> f64 {
    let Some(&first) = points.first() else {
        return 0.0;
    };
    let [low, high] = points.iter().fold([first, first], |[low, high], point| {
        [
            [0, 1, 2].map(|k| low[k].min(point[k])),
            [0, 1, 2].map(|k| high[k].max(point[k])),
        ]
    });
    length(sub(high, low))
}

/// Adds a triangular-prism tube of `radius` around each segment of `polyline` (6 triangles a
/// segment, wound outwards; segments of no length are left out). The prisms' cross-section is
/// carried along the polyline (parallel transport), so consecutive prisms barely twist.
fn tube(
    builder: &mut MeshBuilder,
    polyline: &[[f64; 3]],
    radius: f64,
) -> Result<(), GeometryError> {
    let mut across: Option<[f64; 3]> = None;
    for pair in polyline.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        let along = sub(end, start);
        let span = length(along);
        if !span.is_normal() {
            continue;
        }
        let along = scale(along, 1.0 / span);
        // The previous segment's cross direction, made square to this one; a fresh one at the
        // start or where the polyline turns back on itself.
        let carried = across
            .map(|u| sub(u, scale(along, dot(u, along))))
            .filter(|u| length(*u) > 0.1);
        let u = normalised(carried.unwrap_or_else(|| perpendicular(along)));
        let v = cross(along, u);
        across = Some(u);
        let ring = |centre: [f64; 3]| -> [[f32; 3]; 3] {
            [0.0_f64, 1.0, 2.0].map(|k| {
                let (sin, cos) = (k * std::f64::consts::TAU / 3.0).sin_cos();
                let offset = add(scale(u, radius * cos), scale(v, radius * sin));
                add(centre, offset).map(|value| value as f32)
            })
        };
        let (near, far) = (ring(start), ring(end));
        for k in 0..3 {
            let next = (k + 1) % 3;
            builder.triangle([near[k], near[next], far[k]])?;
            builder.triangle([near[next], far[next], far[k]])?;
        }
    }
    Ok(())
}

/// A unit vector square to the unit vector `along`.
fn perpendicular(along: [f64; 3]) -> [f64; 3] {
    // Crossing with the axis least along it keeps the result well away from zero.
    let smallest = (0..3)
        .min_by(|&a, &b| along[a].abs().total_cmp(&along[b].abs()))
        .unwrap_or(0);
    let mut axis = [0.0; 3];
    axis[smallest] = 1.0;
    normalised(cross(along, axis))
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: [f64; 3], factor: f64) -> [f64; 3] {
    a.map(|value| value * factor)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn length(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

fn normalised(a: [f64; 3]) -> [f64; 3] {
    scale(a, 1.0 / length(a))
}

#[cfg(test)]
mod assembly_tests;
#[cfg(test)]
mod occt_tests;
