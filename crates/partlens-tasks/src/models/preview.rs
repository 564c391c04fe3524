//! A model made ready for the 3D preview: the mesh reduced to a display budget, each triangle's
//! normal, the crease and boundary edges to draw, and the measurements of the mesh as read. Built
//! once, off the UI thread, so that a frame only projects and sorts what is here.
//!
//! The file itself is read in a reader worker process ([`read_preview`] through a
//! [`Sandbox`]): the worker reads and reduces the mesh within its time, memory and CPU limits, and
//! only the reduced copy and the whole mesh's measurements come back into the app.

use std::path::Path;

use partlens_geometry::{FeatureEdge, GeometryError, Mesh, MeshMeasurements};
use partlens_sandbox::{PreviewMesh, Sandbox, SandboxFailure};

/// Most triangles the preview draws; a larger model is reduced to this for display (its
/// measurements stay those of the whole mesh). Chosen from `benches/model_frame.rs`: a frame of a
/// model at this size stays within the 8 ms goal on the build machine.
pub const DISPLAY_TRIANGLES: usize = 60_000;

/// A model ready to draw.
#[derive(Clone, PartialEq)]
pub struct ModelPreview {
    /// The file's name, for captions.
    pub name: String,
    /// Where the app found the file, in words ("in the local workspace", "/home/…/gear.stl").
    pub origin: String,
    /// The mesh to draw: the model, or a reduced copy of it.
    pub mesh: Mesh,
    /// The unit normal of every triangle of `mesh`.
    pub normals: Vec<[f32; 3]>,
    /// The edges to draw over the shading.
    pub edges: Vec<FeatureEdge>,
    /// True when `mesh` is closed, so triangles facing away can be skipped.
    pub closed: bool,
    /// The measurements of the model as read (not of the reduced copy).
    pub measurements: MeshMeasurements,
}

impl std::fmt::Debug for ModelPreview {
    /// A summary: a mesh of a million triangles does not belong in a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelPreview")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("displayed_triangles", &self.mesh.triangles.len())
            .field("edges", &self.edges.len())
            .field("measurements", &self.measurements)
            .finish_non_exhaustive()
    }
}

impl ModelPreview {
    /// Prepares `mesh` for display with at most `budget` triangles.
    pub fn prepare(
        name: impl Into<String>,
        origin: impl Into<String>,
        mesh: &Mesh,
        budget: usize,
    ) -> Result<Self, GeometryError> {
        let measurements = MeshMeasurements::of(mesh)
            .ok_or_else(|| GeometryError::Malformed("the mesh has no triangles".to_owned()))?;
        let display = partlens_geometry::decimate(mesh, budget);
        Ok(Self::of_reduced(name, origin, display, measurements))
    }

    /// Prepares `display`, a mesh already reduced for display (a reader worker's answer), for
    /// drawing; `measurements` are those of the whole mesh as read.
    pub fn of_reduced(
        name: impl Into<String>,
        origin: impl Into<String>,
        display: Mesh,
        measurements: MeshMeasurements,
    ) -> Self {
        let normals = partlens_geometry::face_normals(&display);
        let edges = partlens_geometry::feature_edges(&display, &normals);
        Self {
            name: name.into(),
            origin: origin.into(),
            closed: partlens_geometry::is_closed(&display),
            mesh: display,
            normals,
            edges,
            measurements,
        }
    }

    /// True when the preview draws fewer triangles than the model has.
    pub fn is_reduced(&self) -> bool {
        self.mesh.triangles.len() < self.measurements.triangles
    }
}

/// Why a model file on this computer could not be shown.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelFileError {
    /// Not a format the model readers take.
    #[error("{extension} files are not read as 3D models")]
    NotAModel {
        /// The extension, as found.
        extension: String,
    },
    /// The file could not be opened or read.
    #[error("{path} could not be read: {reason}")]
    Unreadable {
        /// The file.
        path: String,
        /// The system's words.
        reason: String,
    },
    /// The file is larger than the readers take (refused before it is read).
    #[error("{0}")]
    Geometry(#[from] GeometryError),
    /// The reader refused the content (malformed, too many triangles), in its words.
    #[error("{0}")]
    Refused(String),
    /// The reader worker gave no answer: it hit its time, memory or CPU limit, crashed, was
    /// cancelled or could not be started (the sandbox's sentence).
    #[error("{0}")]
    Reader(#[from] SandboxFailure),
    /// No reader program was found to read models in.
    #[error(
        "no reader program was found to read it in (partlens-service or partlens beside this \
         program); set {variable} to one",
        variable = partlens_sandbox::READER_PROGRAM_VARIABLE
    )]
    NoReader,
}

/// Reads the model at `path` in a reader worker of `sandbox` and prepares it for display with at
/// most `budget` triangles (blocking: call it from `spawn_blocking`). `extension` names the format
/// (with the dot). Refused before any worker starts: a format the readers do not take, a file
/// larger than [`partlens_geometry::MAX_MODEL_BYTES`], a file that cannot be read. `cancelled` is
/// asked every few milliseconds while the worker reads; when it says so the worker is stopped.
pub fn read_preview(
    sandbox: &Sandbox,
    path: &Path,
    extension: &str,
    name: &str,
    origin: &str,
    budget: usize,
    cancelled: &dyn Fn() -> bool,
) -> Result<ModelPreview, ModelFileError> {
    if !partlens_geometry::is_model_extension(extension) {
        return Err(ModelFileError::NotAModel {
            extension: if extension.is_empty() {
                "Extension-less".to_owned()
            } else {
                extension.to_owned()
            },
        });
    }
    let unreadable = |error: std::io::Error| ModelFileError::Unreadable {
        path: path.display().to_string(),
        reason: error.to_string(),
    };
    let size = std::fs::metadata(path).map_err(unreadable)?.len();
    if size > partlens_geometry::MAX_MODEL_BYTES as u64 {
        return Err(GeometryError::TooLarge {
            limit: partlens_geometry::MAX_MODEL_BYTES,
        }
        .into());
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    let PreviewMesh {
        display,
        measurements,
    } = sandbox
        .preview(&extension.to_ascii_lowercase(), bytes, budget, cancelled)?
        .map_err(ModelFileError::Refused)?;
    Ok(ModelPreview::of_reduced(
        name,
        origin,
        display,
        measurements,
    ))
}
