//! 3D models in the engine: read into a mesh by [`partlens_geometry`] (STL, OBJ, PLY, STEP; the
//! words a STEP file holds become the file's text and extracted attributes), put in a standard pose
//! (`normalise.rs`), rendered shaded from [`VIEW_DIRECTIONS`] directions all around it, a flat
//! part also from directions near its plane (`viewpoints.rs`, `render.rs`), and framed as a
//! photograph is, so that every view gets the same 2D descriptor as a picture, described by a D2
//! shape distribution for model-to-model similarity (`d2.rs`) and by the descriptors of its parts
//! (`parts.rs`: the ends of an elongated part) and by its handedness (`handedness.rs`: whether
//! another model is its mirror image), and measured (`analysis.rs`). The
//! thumbnail stays an isometric line drawing.
//!
//! A model therefore has many views and the ordinary multi-view matching applies: a picture of
//! a part finds its model, a model finds the pictures of the part, a model finds itself. Every view
//! of a model carries the model's D2 distribution and parts' descriptors; the index blends them
//! into the score only when the query and the candidate both have them (both are meshes).

mod analysis;
mod d2;
mod handedness;
mod normalise;
mod parts;
mod render;
mod viewpoints;

use image::DynamicImage;

use super::{Analysis, EngineError, Pipeline, Purpose, ViewDescriptor, images};
use partlens_geometry::{GeometryError, Mesh};

pub use analysis::{ASSEMBLY_ATTRIBUTE, assembly_attribute, mesh_attributes};
pub use d2::{D2_BINS, ShapeDistribution};
pub use handedness::{AXES_APART, CHIRAL_FROM, Handedness};
pub use normalise::{FLAT_BELOW, is_flat, standard_pose};
pub use partlens_geometry::{is_closed, volume};
pub use parts::PartDescriptors;
pub use render::{FramedRenderer, PICTURE_VIEW, VIEWPOINTS, Viewpoint, render, render_framed};
pub use viewpoints::{
    NEAR_EDGE_ON_DIRECTIONS, around_the_sphere, looking_from, near_edge_on, search_input_positions,
    search_input_subset, spread_positions,
};

/// Side of a rendered view, in pixels: the reference side the 2D descriptor's drawings are made at.
pub const VIEW_SIDE: u32 = 512;

/// A model the geometry readers could not read, as the engine reports it.
fn unreadable(extension: &str, error: GeometryError) -> EngineError {
    EngineError::Undecodable {
        extension: extension.to_owned(),
        reason: error.to_string(),
    }
}

/// Directions a model is seen from when it is indexed: the vertices of a geodesic sphere of
/// frequency 4 (see `viewpoints.rs`), any direction within 11° of one of them. First chosen by the
/// quality benchmark (`benches/photo_quality.rs`): in its quick mode (150 photographs) 42
/// directions found the right kind of part first for 87 % of single photographs, 92 for 94 % (91 %
/// of the full 300). Then, with views in perspective, on the real-world corpus's photo-like
/// pictures (docs/PERFORMANCE.md, "162 directions"): the part in the first five for 319 of 328
/// pictures from 92 directions, 323 from 162, and its family first for 225 and 230 of 244. A
/// model's whole analysis from 162 takes 802 ms of one core at the median of the corpus's 164
/// models (642 ms from 92 before a view was made cheaper, 1,040 ms from 162).
pub const VIEW_DIRECTIONS: usize = 162;

/// Where the views a model searched by (a search input) brings lie among the views of a model
/// indexed as a database file with the current pipeline: the [`VIEW_DIRECTIONS`] around the
/// sphere first, a flat part's [`NEAR_EDGE_ON_DIRECTIONS`] next, the picture's view last (163
/// views, or 211 for a flat part); so the positions of [`search_input_subset`] among the sphere's,
/// and the last. `None` for any other number of views (a picture, a drawing, a model of an older
/// descriptor version), which has no such subset.
pub fn search_input_views_of_database_model(views: usize) -> Option<Vec<usize>> {
    with_the_picture(views, search_input_positions(VIEW_DIRECTIONS))
}

/// `directions` (sorted positions among the sphere's) and the picture's view of a database model
/// of `views` views; `None` when `views` is not such a model's.
fn with_the_picture(views: usize, mut directions: Vec<usize>) -> Option<Vec<usize>> {
    if views != VIEWS_PER_MODEL && views != VIEWS_PER_FLAT_MODEL {
        return None;
    }
    directions.push(views - 1);
    Some(directions)
}

/// Where the views of a database model seen from `directions` of the [`VIEW_DIRECTIONS`] lie
/// among its views (laid out as [`search_input_views_of_database_model`] says): the positions of
/// [`spread_positions`]`(VIEW_DIRECTIONS, directions)` in order, and the picture's view last; no
/// near-edge-on view of a flat part. What a large library's graph holds of each model (the other
/// views are scored, not searched: docs/PERFORMANCE.md, "Views a model at 100,000 parts"). `None`
/// for any other number of views, and when `directions` keeps them all.
pub fn spread_views_of_database_model(views: usize, directions: usize) -> Option<Vec<usize>> {
    if directions >= VIEW_DIRECTIONS {
        return None;
    }
    let mut positions = spread_positions(VIEW_DIRECTIONS, directions);
    positions.sort_unstable();
    with_the_picture(views, positions)
}

/// Directions a model searched by (a search input) is seen from: 32 of the [`VIEW_DIRECTIONS`],
/// spread evenly ([`search_input_subset`]), so each is exactly a direction the indexed models were
/// seen from. A model is searched against models by pairing its views one to one with theirs, and
/// the same part in the same pose finds its own views among the indexed ones whichever of them it
/// brings. Measured on the real-world corpus (`realworld_search`, test build, same machine), when
/// models were indexed from 92 directions: with 92 views twins top-1 100 %, family top-1 66 %, P@3
/// 57 %; with 32 the same, 81 of 122 family searches against 80; with 12 the same again, but a
/// model searched against pictures takes each picture's best view of the model, and a viewpoint
/// is on average 22° from the nearest of 12 directions, 16° from the nearest of 32 (7° of 92; at
/// most 37°, 33°, 14°). A search by a model: docs/PERFORMANCE.md.
pub const SEARCH_INPUT_DIRECTIONS: usize = 32;

/// Views a model gets when it is indexed: one shaded view from each of the [`VIEW_DIRECTIONS`],
/// and its picture (the isometric line drawing its thumbnail and large image show), so that the
/// picture the service shows of a model finds that model. A flat part gets
/// [`VIEWS_PER_FLAT_MODEL`].
pub const VIEWS_PER_MODEL: usize = VIEW_DIRECTIONS + 1;

/// Views a flat part ([`is_flat`]) gets when it is indexed: those of [`VIEWS_PER_MODEL`] and one
/// from each of the [`NEAR_EDGE_ON_DIRECTIONS`] close to its plane ([`near_edge_on`]), before its
/// picture (which stays last).
pub const VIEWS_PER_FLAT_MODEL: usize = VIEWS_PER_MODEL + NEAR_EDGE_ON_DIRECTIONS;

/// Most threads a search input's views are rendered on.
const MOST_RENDER_THREADS: usize = 4;

/// Analyses a model file with `pipeline` for `purpose`: today's engine renders it shaded from every
/// [`VIEW_DIRECTIONS`] direction (a flat part also from [`near_edge_on`]'s, when it is indexed),
/// framed as a photograph is framed, one descriptor a direction, and describes its picture too
/// ([`VIEWS_PER_MODEL`] views, [`VIEWS_PER_FLAT_MODEL`] for a flat part, each carrying the D2
/// distribution); the legacy engine draws one line drawing per [`VIEWPOINTS`] entry.
/// Thumbnail and large image are the isometric line drawing (a search input gets no large image,
/// and its views are rendered on every core, up to [`MOST_RENDER_THREADS`], each view as on one,
/// its picture and thumbnail beside them);
/// the file's words (product data) and measured attributes are kept. A model whose words were read but whose shape was not is
/// [`EngineError::ShapeUnreadable`], carrying the words.
pub fn analyze(
    pipeline: Pipeline,
    purpose: Purpose,
    extension: &str,
    bytes: &[u8],
) -> Result<Analysis, EngineError> {
    let reading = partlens_geometry::read_model(extension, bytes);
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
    extracted_attributes.push(assembly_attribute(reading.assembly.as_ref()));
    let posed = standard_pose(&mesh);
    let shape = ShapeDistribution::of_mesh(&posed);
    let parts = PartDescriptors::of_posed(&posed);
    let handedness = Handedness::of_posed(&posed);
    let part_numbers = crate::part_numbers::part_number_keys(&extracted_attributes);
    // Every view carries the model's D2 distribution, its parts, its handedness and its part
    // numbers.
    let of_this_model = |view: ViewDescriptor| {
        view.with_shape(shape.clone())
            .with_parts(parts.clone())
            .with_handedness(handedness)
            .with_part_numbers(part_numbers.clone())
    };
    let picture_of =
        || DynamicImage::ImageRgb8(render(&posed, &VIEWPOINTS[PICTURE_VIEW], VIEW_SIDE));
    let (views, picture, thumbnail) = match pipeline {
        Pipeline::Legacy => {
            let picture = picture_of();
            let views = VIEWPOINTS
                .iter()
                .map(|view| {
                    let drawing = DynamicImage::ImageRgb8(render(&posed, view, VIEW_SIDE));
                    ViewDescriptor::of_image_legacy(&drawing).with_shape(shape.clone())
                })
                .collect();
            let thumbnail = images::thumbnail_jpeg(&picture);
            (views, picture, thumbnail)
        }
        Pipeline::Current => {
            let renderer = FramedRenderer::new(&posed);
            let describe =
                |view: &Viewpoint| of_this_model(ViewDescriptor::of_framed(&renderer.render(view)));
            let directions = match purpose {
                Purpose::DatabaseFile if is_flat(&posed) => {
                    let mut directions = around_the_sphere(VIEW_DIRECTIONS);
                    directions.extend(near_edge_on());
                    directions
                }
                Purpose::DatabaseFile => around_the_sphere(VIEW_DIRECTIONS),
                Purpose::SearchInput => search_input_subset(VIEW_DIRECTIONS),
            };
            let threads = match purpose {
                Purpose::DatabaseFile => 1,
                Purpose::SearchInput => std::thread::available_parallelism()
                    .map_or(1, std::num::NonZero::get)
                    .min(MOST_RENDER_THREADS),
            };
            // The picture, its view and its thumbnail: for a search input made beside the views
            // on a thread of its own, so no core waits for them at either end (about 20 ms of
            // one core a model: docs/PERFORMANCE.md, "search by a model").
            let picture_work = || {
                let picture = picture_of();
                let view = of_this_model(ViewDescriptor::of_image(&picture));
                let thumbnail = images::thumbnail_jpeg(&picture);
                (picture, view, thumbnail)
            };
            let (mut views, (picture, picture_view, thumbnail)) = if threads > 1 {
                std::thread::scope(|scope| {
                    let beside = scope.spawn(picture_work);
                    let views = in_order_on_threads(&directions, threads, describe);
                    match beside.join() {
                        Ok(made) => (views, made),
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                })
            } else {
                let made = picture_work();
                (in_order_on_threads(&directions, 1, describe), made)
            };
            views.push(picture_view);
            (views, picture, thumbnail)
        }
    };
    let unrenderable = |error: image::ImageError| EngineError::Undecodable {
        extension: extension.to_owned(),
        reason: error.to_string(),
    };
    Ok(Analysis {
        views,
        thumbnail_jpeg: Some(thumbnail.map_err(unrenderable)?),
        large_png: match purpose {
            Purpose::DatabaseFile => Some(images::large_png(&picture).map_err(unrenderable)?),
            Purpose::SearchInput => None,
        },
        text: description.text,
        extracted_attributes,
        pmi_pages: Vec::new(),
        pages: Vec::new(),
    })
}

/// `describe` of each item, in the items' order, the items shared out over `threads` threads in
/// runs of neighbours (one thread: on this one).
fn in_order_on_threads<T: Sync, D: Send>(
    items: &[T],
    threads: usize,
    describe: impl Fn(&T) -> D + Sync,
) -> Vec<D> {
    if threads <= 1 || items.len() < 2 {
        return items.iter().map(&describe).collect();
    }
    let share = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let describe = &describe;
        let workers: Vec<_> = items
            .chunks(share)
            .map(|run| scope.spawn(move || run.iter().map(describe).collect::<Vec<D>>()))
            .collect();
        let mut described = Vec::with_capacity(items.len());
        for worker in workers {
            match worker.join() {
                Ok(run) => described.extend(run),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        described
    })
}

#[cfg(test)]
mod handedness_tests;
#[cfg(test)]
mod mesh_tests;
