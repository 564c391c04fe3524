//! Geometry: the triangle [`Mesh`] and every reader that turns a model file into one, with its
//! limits. A leaf module: it depends on nothing else in the crate (no service, no egui), so the
//! service's engine and the app alike can read models.
//!
//! Readers: STL (ascii and binary), OBJ and PLY (ascii and binary) in `mesh_formats.rs`; STEP
//! (AP203, AP214, AP242) in [`step`], pure Rust, an assembly with its product tree
//! ([`assembly`]: products, usages, placements, occurrences) and pictured assembled; the words of
//! IGES files in `iges.rs`. With the
//! cargo feature `occt`, [`occt`] reads IGES files and, first, STEP files through the system's
//! OpenCASCADE (the pure-Rust reader when it fails). Every mesh goes through `builder.rs`, which welds shared
//! corners and refuses more than [`MAX_TRIANGLES`] triangles or [`MAX_VERTICES`] vertices; each
//! reader states its own further limits (size, time, nesting, counts). A file that cannot be read
//! says why with a [`GeometryError`]; a CAD file whose shape cannot be meshed still gives its
//! product data ([`ModelReading`]).
//!
//! Beside the readers: what a mesh measures ([`measure`]: bounding box, area, closedness, volume),
//! fewer triangles for display ([`decimate`]) and the crease and boundary edges a drawing of it shows
//! ([`edges`]).

pub mod assembly;
mod builder;
pub mod decimate;
pub mod edges;
mod error;
mod iges;
pub mod measure;
mod mesh;
mod mesh_formats;
mod model;
#[cfg(feature = "occt")]
pub mod occt;
#[cfg(test)]
mod realworld_for_tests;
pub mod step;

pub use assembly::{MeshPart, Occurrence, Placement, Product, ProductTree, Usage};
pub use builder::{MAX_MODEL_BYTES, MAX_TRIANGLES, MAX_VERTICES};
pub use decimate::{decimate, decimate_parts};
pub use edges::{FeatureEdge, face_normals, feature_edges};
pub use error::GeometryError;
pub use measure::{MeshMeasurements, is_closed, volume};
pub use mesh::Mesh;
pub use model::{ModelDescription, ModelReading};

/// Model formats the readers here understand (lower-case extensions with the dot).
pub const MODEL_EXTENSIONS: &[&str] = &[".stl", ".obj", ".ply", ".step", ".stp", ".igs", ".iges"];

/// True when files with this extension are read as models (any case).
pub fn is_model_extension(extension: &str) -> bool {
    MODEL_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Reads `bytes` as the model format `extension` names (lower-case with the dot, one of
/// [`MODEL_EXTENSIONS`]): its words and its mesh in millimetres where the format has units.
pub fn read_model(extension: &str, bytes: &[u8]) -> ModelReading {
    match extension {
        ".step" | ".stp" => read_step_model(bytes),
        ".igs" | ".iges" => read_iges_model(bytes),
        _ => ModelReading::of(
            ModelDescription::default(),
            mesh_formats::read_mesh_file(extension, bytes),
        ),
    }
}

/// Reads only the words of a model file, without meshing it (`textOnly` uploads): a STEP file's
/// header and product data, its structure checked ([`step::describe_step`]); an IGES file's; a mesh
/// format (STL, OBJ, PLY) has none. Returns the words (whatever could be read) and the refusal of
/// a malformed file, if any.
pub fn read_model_words(
    extension: &str,
    bytes: &[u8],
) -> (ModelDescription, Result<(), GeometryError>) {
    match extension {
        ".step" | ".stp" => step::describe_step(bytes),
        ".igs" | ".iges" => (iges::describe_iges(bytes), Ok(())),
        _ => (ModelDescription::default(), Ok(())),
    }
}

/// A STEP file. With the `occt` feature, OpenCASCADE first (it reads what other CAD systems write,
/// PCURVEs and all, in about a second; an assembly through XCAF, its product tree with it), the
/// pure-Rust reader when OpenCASCADE fails, within the time left; the words always from the
/// pure-Rust parser. Without the feature, the pure-Rust reader.
#[cfg(feature = "occt")]
fn read_step_model(bytes: &[u8]) -> ModelReading {
    let started = std::time::Instant::now();
    let (description, checked) = step::describe_step_structure(bytes);
    // A file the pure-Rust checks refuse (malformed, over a limit, a reference cycle, a product
    // tree that contains itself) is not handed to OpenCASCADE, which has no such guards.
    let structure = match checked {
        Ok(structure) => structure,
        Err(error) => return ModelReading::of(description, Err(error)),
    };
    let budget = step::StepBudget::default();
    let occt = match &structure {
        None => occt::read_with_occt(occt::CadFormat::Step, bytes, budget).map(|mesh| (mesh, None)),
        Some(structure) => occt::read_assembly_with_occt(bytes, budget, structure)
            .map(|(mesh, tree)| (mesh, Some(tree))),
    };
    let occt_error = match occt {
        Ok((mesh, assembly)) => {
            return ModelReading {
                description,
                mesh: Ok(mesh),
                assembly,
            };
        }
        Err(error @ GeometryError::TooLarge { .. }) => {
            return ModelReading::of(description, Err(error));
        }
        Err(error) => error,
    };
    let budget = step::StepBudget {
        time: step::STEP_TIME_BUDGET.saturating_sub(started.elapsed()),
        ..step::StepBudget::default()
    };
    let reading = step::read_step_within(bytes, budget);
    ModelReading {
        description,
        mesh: reading.mesh.map_err(|truck_error| {
            GeometryError::ReaderFailed(format!(
                "OpenCASCADE: {occt_error}; the pure-Rust reader: {truck_error}"
            ))
        }),
        assembly: reading.assembly,
    }
}

/// A STEP file: the pure-Rust reader (a build with the `occt` feature tries OpenCASCADE first).
#[cfg(not(feature = "occt"))]
fn read_step_model(bytes: &[u8]) -> ModelReading {
    step::read_step(bytes)
}

/// An IGES file: its words always; its mesh from OpenCASCADE in a build with the `occt` feature.
fn read_iges_model(bytes: &[u8]) -> ModelReading {
    let description = iges::describe_iges(bytes);
    #[cfg(feature = "occt")]
    let mesh = occt::read_with_occt(occt::CadFormat::Iges, bytes, step::StepBudget::default());
    #[cfg(not(feature = "occt"))]
    let mesh = Err(GeometryError::Unsupported(
        "IGES models are meshed only by a build with the occt feature (OpenCASCADE)".to_owned(),
    ));
    ModelReading::of(description, mesh)
}

/// Reads `bytes` as the model format `extension` names into a mesh with a surface (the words of
/// the file, if any, are dropped: see [`read_model`]).
pub fn read_mesh(extension: &str, bytes: &[u8]) -> Result<Mesh, GeometryError> {
    read_model(extension, bytes).mesh
}
