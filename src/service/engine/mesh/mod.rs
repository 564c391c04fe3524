//! 3D meshes (STL ascii and binary, OBJ, PLY) in the engine: read within limits (`read.rs`), put in
//! a standard pose (`normalise.rs`), rendered shaded from [`VIEW_DIRECTIONS`] directions all around
//! it (`viewpoints.rs`, `render.rs`) and framed as a photograph is, so that every view gets the same
//! 2D descriptor as a picture, described by a D2 shape distribution for model-to-model similarity
//! (`d2.rs`), and measured (`analysis.rs`). The thumbnail stays an isometric line drawing.
//!
//! A model therefore has many views and the ordinary multi-view matching applies: a picture of
//! a part finds its model, a model finds the pictures of the part, a model finds itself. Every view
//! of a model carries the model's D2 distribution; the index blends it into the score only when the
//! query and the candidate both have one (both are meshes).

mod analysis;
mod d2;
mod normalise;
mod read;
mod render;
mod viewpoints;

use image::DynamicImage;

use super::{Analysis, EngineError, Pipeline, ViewDescriptor, images};

pub use analysis::{is_closed, mesh_attributes, volume};
pub use d2::{D2_BINS, ShapeDistribution};
pub use normalise::standard_pose;
pub use read::{MAX_MESH_BYTES, MAX_TRIANGLES, MAX_VERTICES, read_mesh};
pub use render::{PICTURE_VIEW, VIEWPOINTS, Viewpoint, render, render_framed};
pub use viewpoints::{around_the_sphere, looking_from};

/// Mesh formats the engine reads (lower-case extensions with the dot).
pub const MESH_EXTENSIONS: &[&str] = &[".stl", ".obj", ".ply"];

/// Side of a rendered view, in pixels: the reference side the 2D descriptor's drawings are made at.
pub const VIEW_SIDE: u32 = 512;

/// A triangle mesh: corner positions and triangles as three indices into them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles, three vertex indices each (every index is below `vertices.len()`).
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Area of one triangle.
    pub fn triangle_area(&self, triangle: &[u32; 3]) -> f32 {
        let [a, b, c] = triangle.map(|index| self.vertices[index as usize].map(f64::from));
        let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let ac = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        (0.5 * normalise::length(normalise::cross(ab, ac))) as f32
    }

    /// Total surface area.
    pub fn surface_area(&self) -> f64 {
        self.triangles
            .iter()
            .map(|triangle| f64::from(self.triangle_area(triangle)))
            .sum()
    }

    /// Lowest and highest corner of the axis-aligned box around the triangles' vertices.
    pub fn bounds(&self) -> Option<[[f32; 3]; 2]> {
        let mut corners = self
            .triangles
            .iter()
            .flatten()
            .map(|&index| self.vertices[index as usize]);
        let first = corners.next()?;
        Some(corners.fold([first, first], |[low, high], point| {
            [
                [0, 1, 2].map(|k| low[k].min(point[k])),
                [0, 1, 2].map(|k| high[k].max(point[k])),
            ]
        }))
    }
}

/// True when files with this extension are read as meshes.
pub fn is_mesh_extension(extension: &str) -> bool {
    MESH_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Directions a model is seen from when it is indexed: the vertices of a geodesic sphere of
/// frequency 3 (see `viewpoints.rs`), any direction within about 14° of one of them. Chosen by the
/// quality benchmark (`benches/photo_quality.rs`): 42 directions found the right kind of part first
/// for 87 % of single photographs, 92 for 94 %, at about 2.6 ms of CPU a view.
pub const VIEW_DIRECTIONS: usize = 92;

/// Analyses a mesh file with `pipeline`: today's engine renders it shaded from every
/// [`VIEW_DIRECTIONS`] direction, framed as a photograph is framed, one descriptor a direction (each
/// carrying the D2 distribution); the legacy engine draws one line drawing per [`VIEWPOINTS`] entry.
/// Thumbnail and large image are the isometric line drawing; attributes are measured.
pub fn analyze(pipeline: Pipeline, extension: &str, bytes: &[u8]) -> Result<Analysis, EngineError> {
    let mesh = read_mesh(extension, bytes)?;
    let extracted_attributes = mesh_attributes(&mesh);
    let posed = standard_pose(&mesh);
    let shape = ShapeDistribution::of_mesh(&posed);
    let picture = DynamicImage::ImageRgb8(render(&posed, &VIEWPOINTS[PICTURE_VIEW], VIEW_SIDE));
    let views = match pipeline {
        Pipeline::Legacy => VIEWPOINTS
            .iter()
            .map(|view| {
                let drawing = DynamicImage::ImageRgb8(render(&posed, view, VIEW_SIDE));
                ViewDescriptor::of_image_legacy(&drawing).with_shape(shape.clone())
            })
            .collect(),
        Pipeline::Current => around_the_sphere(VIEW_DIRECTIONS)
            .iter()
            .map(|view| {
                ViewDescriptor::of_framed(&render_framed(&posed, view)).with_shape(shape.clone())
            })
            .collect(),
    };
    let unrenderable = |error: image::ImageError| EngineError::Undecodable {
        extension: extension.to_owned(),
        reason: error.to_string(),
    };
    Ok(Analysis {
        views,
        thumbnail_jpeg: Some(images::thumbnail_jpeg(&picture).map_err(unrenderable)?),
        large_png: Some(images::large_png(&picture).map_err(unrenderable)?),
        text: String::new(),
        extracted_attributes,
        pmi_pages: Vec::new(),
    })
}

#[cfg(test)]
mod mesh_tests;
