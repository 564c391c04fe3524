//! 3D models in the engine: read into a mesh by [`crate::geometry`] (STL, OBJ, PLY, STEP; the
//! words a STEP file holds become the file's text and extracted attributes), put in a standard pose (`normalise.rs`), drawn from several viewpoints like a technical drawing
//! (`render.rs`) so that every view gets the same 2D descriptor as a picture, described by a D2
//! shape distribution for model-to-model similarity (`d2.rs`), and measured (`analysis.rs`).
//!
//! A model therefore has several views and the ordinary multi-view matching applies: a picture of
//! a part finds its model, a model finds the pictures of the part, a model finds itself. Every view
//! of a model carries the model's D2 distribution; the index blends it into the score only when the
//! query and the candidate both have one (both are meshes).

mod analysis;
mod d2;
mod normalise;
mod render;

use image::DynamicImage;

use super::{Analysis, EngineError, ViewDescriptor, images};
use crate::geometry::{self, GeometryError, Mesh};

pub use crate::geometry::{is_closed, volume};
pub use analysis::mesh_attributes;
pub use d2::{D2_BINS, ShapeDistribution};
pub use normalise::standard_pose;
pub use render::{PICTURE_VIEW, VIEWPOINTS, Viewpoint, render};

/// Side of a rendered view, in pixels: the reference side the 2D descriptor's drawings are made at.
pub const VIEW_SIDE: u32 = 512;

/// A model the geometry readers could not read, as the engine reports it.
fn unreadable(extension: &str, error: GeometryError) -> EngineError {
    EngineError::Undecodable {
        extension: extension.to_owned(),
        reason: error.to_string(),
    }
}

/// Analyses a model file: one view per [`VIEWPOINTS`] entry (each carrying the D2 distribution),
/// thumbnail and large image from the isometric view, the file's words (product data) and measured
/// attributes. A model whose words were read but whose shape was not is
/// [`EngineError::ShapeUnreadable`], carrying the words.
pub fn analyze(extension: &str, bytes: &[u8]) -> Result<Analysis, EngineError> {
    let reading = geometry::read_model(extension, bytes);
    let description = reading.description;
    let mesh = match reading.mesh {
        Ok(mesh) => mesh,
        Err(error) if description.is_empty() => return Err(unreadable(extension, error)),
        Err(error) => {
            return Err(EngineError::ShapeUnreadable {
                extension: extension.to_owned(),
                reason: error.to_string(),
                text: description.text,
                extracted_attributes: description.attributes,
            });
        }
    };
    let mut extracted_attributes = description.attributes;
    extracted_attributes.extend(mesh_attributes(&mesh));
    let posed = standard_pose(&mesh);
    let shape = ShapeDistribution::of_mesh(&posed);
    let pictures: Vec<DynamicImage> = VIEWPOINTS
        .iter()
        .map(|view| DynamicImage::ImageRgb8(render(&posed, view, VIEW_SIDE)))
        .collect();
    let views = pictures
        .iter()
        .map(|picture| ViewDescriptor::of_image(picture).with_shape(shape.clone()))
        .collect();
    let unrenderable = |error: image::ImageError| EngineError::Undecodable {
        extension: extension.to_owned(),
        reason: error.to_string(),
    };
    let picture = &pictures[PICTURE_VIEW];
    Ok(Analysis {
        views,
        thumbnail_jpeg: Some(images::thumbnail_jpeg(picture).map_err(unrenderable)?),
        large_png: Some(images::large_png(picture).map_err(unrenderable)?),
        text: description.text,
        extracted_attributes,
        pmi_pages: Vec::new(),
    })
}

#[cfg(test)]
mod mesh_tests;
