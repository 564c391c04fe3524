//! A model made ready for the 3D preview: the mesh reduced to a display budget, each triangle's
//! normal, the crease and boundary edges to draw, and the measurements of the mesh as read. Built
//! once, off the UI thread, so that a frame only projects and sorts what is here.
//!
//! The file itself is read in a reader worker process ([`read_preview`] through a
//! [`Sandbox`]): the worker reads and reduces the mesh within its time, memory and CPU limits, and
//! only the reduced copy and the whole mesh's measurements come back into the app. An assembly's
//! copy is reduced part by part and comes with its parts ([`ModelPreview::parts`]: which triangles
//! are which placed component), so the detail can light up the component chosen in its tree.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use partlens_geometry::{FeatureEdge, GeometryError, Mesh, MeshMeasurements, MeshPart};
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
    /// For an assembly, which triangles of `mesh` are which placed component (every instance
    /// one, named as its component's record); empty for a part.
    pub parts: Vec<MeshPart>,
}

impl std::fmt::Debug for ModelPreview {
    /// A summary: a mesh of a million triangles does not belong in a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelPreview")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("displayed_triangles", &self.mesh.triangles.len())
            .field("edges", &self.edges.len())
            .field("parts", &self.parts.len())
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
            parts: Vec::new(),
        }
    }

    /// The same preview with the parts of its (assembled) mesh.
    pub fn with_parts(self, parts: Vec<MeshPart>) -> Self {
        Self { parts, ..self }
    }

    /// The triangles of `mesh` that show the component named `name` ([`component_name`]): every
    /// instance of it, and everything inside an instance of a subassembly; empty when the preview
    /// has none of it.
    pub fn component_triangles(&self, name: &str) -> Vec<Range<u32>> {
        partlens_geometry::assembly::triangles_of(&self.parts, name)
    }

    /// How many triangles of `mesh` show each component of the assembly, by name (as
    /// [`ModelPreview::component_triangles`] counts them); empty for a part.
    pub fn component_triangle_counts(&self) -> HashMap<String, usize> {
        let names: HashSet<&str> = self.parts.iter().map(|part| part.name.as_str()).collect();
        names
            .into_iter()
            .map(|name| {
                let count = self
                    .component_triangles(name)
                    .iter()
                    .map(|range| range.len())
                    .sum();
                (name.to_owned(), count)
            })
            .collect()
    }

    /// True when the preview draws fewer triangles than the model has.
    pub fn is_reduced(&self) -> bool {
        self.mesh.triangles.len() < self.measurements.triangles
    }
}

/// The name a component record's preview parts go by: its file name without the folders and the
/// extension (`Assemblies/as1/NUT.stp` is `NUT`), as the service names a component's record
/// `<folder>/<assembly stem>/<component name><extension>`. The one rule matching a record of the
/// tree to the parts of the 3D preview.
pub fn component_name(file_name: &str) -> &str {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => base,
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
        parts,
    } = sandbox
        .preview(&extension.to_ascii_lowercase(), bytes, budget, cancelled)?
        .map_err(ModelFileError::Refused)?;
    Ok(ModelPreview::of_reduced(name, origin, display, measurements).with_parts(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_component_record_is_known_by_its_file_name_without_folders_or_extension() {
        assert_eq!(component_name("Assemblies/as1_pe_203/NUT.stp"), "NUT");
        assert_eq!(component_name("A/b/M6.nut (2).step"), "M6.nut (2)");
        assert_eq!(component_name("plain"), "plain");
        assert_eq!(component_name(".hidden"), ".hidden");
    }
}
