//! The indexing engine: what the service learns from a file's bytes (visual descriptors, thumbnail and
//! large image, text, extracted attributes, PMI) and the in-memory visual index that ranks files by
//! similarity. Needs no downloaded model.
//!
//! The interface here is what the rest of the service uses: [`analyze`], [`ViewDescriptor`] (stored as
//! bytes) and [`VisualIndex`]. The descriptor inside is the engine's own business: see
//! `descriptor.rs` for its stored form and score, `framing.rs` for how a photograph or a rendered
//! view is separated from its background and framed, `photo_descriptor.rs` for its blocks (built
//! from `blocks.rs`), [`mesh`] for the many shaded views of a model, `images.rs` for safe decoding
//! and the rendered pictures, `index.rs` for the contiguous index, [`drawing`] for DXF and PDF
//! drawings (each page rendered, PMI, text, title-block attributes; `pages.rs` for the pages of an
//! analysis). The engine before photo search
//! (`legacy_descriptor.rs` with `normalise.rs`, seven line drawings a model) stays callable as
//! [`Pipeline::Legacy`] for the quality benchmark only. The synthetic parts the engine's quality
//! tests draw are in [`crate::samples`].

mod blocks;
#[cfg(test)]
mod cad_tests;
mod descriptor;
pub mod drawing;
mod foreground;
mod framing;
mod images;
mod index;
mod legacy_descriptor;
mod limits;
pub mod mesh;
mod normalise;
mod pages;
mod part_numbers;
mod photo_descriptor;
#[cfg(test)]
mod quality_tests;
#[cfg(test)]
mod sample_library_tests;
pub mod samples;
mod text_only;

use partlens_api::PmiPage;

pub use descriptor::{FEATURE_LEN, FileFacts, Generation, ViewDescriptor, half_exact};
pub use descriptor::{agreement_from_feature_dot, similarity_from_feature_dot};
pub use framing::{FRAMED_SIDE, FramedView, frame, frame_photograph};
pub use images::{MAX_DECODED_BYTES, MAX_IMAGE_SIDE};
pub use index::views_score;
pub use index::{
    DRAWING_PENALTY, ELONGATED_FROM, ENDS_WEIGHT, SHAPE_WEIGHT, VisualIndex, facts_of, match_views,
    match_views_on_deciding_views, rank_by_matching_every_file,
};
pub use limits::{
    DEFAULT_MAX_IMAGE_PIXELS, DEFAULT_MAX_PICTURED_PIXELS, DEFAULT_MAX_PMI_ITEMS,
    DEFAULT_MAX_TEXT_BYTES, ExtractionLimits, OverLimit, TextBudget,
};
pub use mesh::ShapeDistribution;
pub use pages::{DrawingPage, PAGES_NOT_PICTURED_ATTRIBUTE};
pub use part_numbers::{MOST_PART_NUMBERS, part_number_keys};
pub use text_only::analyze_text_only;

/// Image formats the engine decodes and indexes visually (lower-case extensions with the dot).
pub const IMAGE_EXTENSIONS: &[&str] = &[
    ".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".gif",
];

/// Longest side of a thumbnail, in pixels.
pub const THUMBNAIL_SIZE: u32 = 256;
/// Longest side of a large image, in pixels.
pub const LARGE_IMAGE_SIZE: u32 = 1024;

/// What the engine learned from one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// One descriptor per view of the file: an image has one, a drawing one a pictured page (which
    /// views are which page's: [`Analysis::pages`]). Empty for formats without visual indexing.
    pub views: Vec<ViewDescriptor>,
    /// Thumbnail, JPEG, longest side [`THUMBNAIL_SIZE`]; `None` when the format has no picture. A
    /// drawing's is page 1's.
    pub thumbnail_jpeg: Option<Vec<u8>>,
    /// Large image, PNG, longest side at most [`LARGE_IMAGE_SIZE`]; `None` when there is no picture.
    /// A drawing's is page 1's.
    pub large_png: Option<Vec<u8>>,
    /// Text extracted from the content (searched by free text).
    pub text: String,
    /// Attributes extracted from the content, `name=value`.
    pub extracted_attributes: Vec<String>,
    /// PMI pages found in the content (drawings).
    pub pmi_pages: Vec<PmiPage>,
    /// The pages of a drawing, in order, each with its picture and views (see `pages.rs`); empty
    /// for a file that is not paged (a picture, a model).
    pub pages: Vec<DrawingPage>,
}

/// Why a file could not be analysed (the service marks the upload failed: 422).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// The bytes do not decode as the format their extension names.
    #[error("cannot decode the {extension} content: {reason}")]
    Undecodable {
        /// The extension the file was uploaded with.
        extension: String,
        /// What the decoder said.
        reason: String,
    },
    /// The content decodes but yields more than a cap of [`ExtractionLimits`] allows (a small file
    /// that expands into gigabytes of text, a picture of too many pixels).
    #[error("the {extension} content is over a limit: {reason}")]
    OverLimit {
        /// The extension the file was uploaded with.
        extension: String,
        /// Which cap, in words.
        reason: String,
    },
    /// A model whose words (product data) were read but whose shape could not be: the file fails
    /// (422) and its words stay searchable.
    #[error("cannot read the shape of the {extension} model: {reason}")]
    ShapeUnreadable {
        /// The extension the file was uploaded with.
        extension: String,
        /// What the model reader said.
        reason: String,
        /// Text read from the file (product names, descriptions).
        text: String,
        /// Attributes read from the file (part numbers, materials…), `name=value`.
        extracted_attributes: Vec<String>,
    },
    /// A stored descriptor could not be read back.
    #[error("stored descriptor is damaged: {0}")]
    DamagedDescriptor(String),
    /// A stored descriptor was made by an earlier engine: the file must be indexed again.
    #[error("stored descriptor version {version} was made by an earlier engine")]
    OutdatedDescriptor {
        /// The stored version byte.
        version: u8,
    },
}

/// True when files with this extension are decoded as images.
pub fn is_image_extension(extension: &str) -> bool {
    IMAGE_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Which generation of the engine describes a file. Files are indexed with [`Pipeline::Current`];
/// [`Pipeline::Legacy`] is the engine before photo search (seven line drawings a model, the
/// descriptor of the time), kept so that the quality benchmark can measure both in the same run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pipeline {
    /// Today's engine.
    #[default]
    Current,
    /// The engine before photo search, for comparisons only.
    Legacy,
}

/// What an analysis is made for: a company-database file is shown in results (its large image
/// too); a search input is only ranked by, and shown as a thumbnail in the search bar, while a
/// person waits for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Purpose {
    /// A company-database file: views, thumbnail, large image, text, attributes, PMI.
    #[default]
    DatabaseFile,
    /// A search input: the same views, text, attributes and thumbnail, but no large image (no
    /// one is shown it), and a model's views rendered on every core (a person waits for them).
    SearchInput,
}

/// Analyses a file's bytes within the default [`ExtractionLimits`]; see [`analyze_within`].
pub fn analyze(extension: &str, bytes: &[u8]) -> Result<Analysis, EngineError> {
    analyze_within(extension, bytes, &ExtractionLimits::default())
}

/// Analyses a file's bytes with today's engine for a company-database file: [`analyze_for`] and
/// [`Purpose::DatabaseFile`].
pub fn analyze_within(
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    analyze_for(Purpose::DatabaseFile, extension, bytes, limits)
}

/// Analyses a file's bytes with today's engine for `purpose`: what [`analyze_with`] gives, less
/// what the purpose does not need (a search input has no large image).
pub fn analyze_for(
    purpose: Purpose,
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    let mut analysis = analyze_with_purpose(Pipeline::Current, purpose, extension, bytes, limits)?;
    if purpose == Purpose::SearchInput {
        // A drawing's page picture is its view's source, so it is made anyway; only its PNG is
        // dropped.
        analysis.large_png = None;
        for page in &mut analysis.pages {
            page.large_png = None;
        }
    }
    Ok(analysis)
}

/// Analyses a file's bytes. `extension` is lower-case with the dot (`.png`). Images are decoded and
/// described; models (STL, OBJ, PLY, STEP: [`partlens_geometry`]) are read and rendered from many
/// viewpoints (see [`mesh`]); drawings (`.dxf`, `.pdf`) are rendered and read (see [`drawing`]);
/// bytes that do not decode give [`EngineError::Undecodable`], content past a cap of `limits`
/// [`EngineError::OverLimit`]. Other formats are accepted with no views (stored and
/// text-searchable). `pipeline` chooses today's engine or, for comparisons, the one before photo
/// search.
pub fn analyze_with(
    pipeline: Pipeline,
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    analyze_with_purpose(pipeline, Purpose::DatabaseFile, extension, bytes, limits)
}

/// [`analyze_with`] for `purpose`: a search input's model has its views rendered on every core,
/// and a search input's picture no large image.
fn analyze_with_purpose(
    pipeline: Pipeline,
    purpose: Purpose,
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    let extension = extension.to_ascii_lowercase();
    if partlens_geometry::is_model_extension(&extension) {
        return mesh::analyze(pipeline, purpose, &extension, bytes);
    }
    if drawing::is_drawing_extension(&extension) {
        return drawing::analyze_drawing(&extension, bytes, limits);
    }
    if !is_image_extension(&extension) {
        return Ok(Analysis::default());
    }
    checked_header_dimensions(&extension, bytes, limits)?;
    let image = images::decode(&extension, bytes)?;
    let unrenderable = |error: image::ImageError| EngineError::Undecodable {
        extension: extension.clone(),
        reason: error.to_string(),
    };
    let mut analysis = Analysis {
        views: vec![match pipeline {
            Pipeline::Current => ViewDescriptor::of_picture(&image),
            Pipeline::Legacy => ViewDescriptor::of_image_legacy(&image),
        }],
        thumbnail_jpeg: Some(images::thumbnail_jpeg(&image).map_err(unrenderable)?),
        large_png: match purpose {
            Purpose::DatabaseFile => Some(images::large_png(&image).map_err(unrenderable)?),
            Purpose::SearchInput => None,
        },
        text: String::new(),
        extracted_attributes: vec![
            format!("width_px={}", image.width()),
            format!("height_px={}", image.height()),
        ],
        pmi_pages: Vec::new(),
        pages: Vec::new(),
    };
    // A picture that is a drawing (a scan) is read as one; a photo is left as it is.
    drawing::read_raster_drawing(&extension, &image, &mut analysis, limits)?;
    Ok(analysis)
}

/// A picture's width and height as its header claims them, checked against the pixel limit before
/// a pixel is decoded.
fn checked_header_dimensions(
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<(u32, u32), EngineError> {
    let (width, height) = images::dimensions(extension, bytes)?;
    limits::check_pixels(width, height, limits).map_err(|OverLimit(reason)| {
        EngineError::OverLimit {
            extension: extension.to_owned(),
            reason,
        }
    })?;
    Ok((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, paint: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
        let image = image::RgbImage::from_fn(width, height, |x, y| image::Rgb(paint(x, y)));
        let mut bytes = Vec::new();
        image
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .unwrap();
        bytes
    }

    #[test]
    fn images_get_a_view_a_thumbnail_and_a_large_image() {
        let bytes = png(
            300,
            200,
            |x, _| if x < 150 { [0, 0, 0] } else { [255, 255, 255] },
        );
        let analysis = analyze(".PNG", &bytes).unwrap();
        assert_eq!(analysis.views.len(), 1);
        let thumbnail =
            image::load_from_memory(analysis.thumbnail_jpeg.as_deref().unwrap()).unwrap();
        assert_eq!(thumbnail.width().max(thumbnail.height()), THUMBNAIL_SIZE);
        assert!(analysis.large_png.is_some());
    }

    #[test]
    fn a_search_input_has_the_same_views_and_thumbnail_but_no_large_image() {
        let bytes = png(120, 80, |x, y| [(x * 2) as u8, (y * 3) as u8, 40]);
        let limits = ExtractionLimits::default();
        let database = analyze_for(Purpose::DatabaseFile, ".png", &bytes, &limits).unwrap();
        let input = analyze_for(Purpose::SearchInput, ".png", &bytes, &limits).unwrap();
        assert!(database.large_png.is_some());
        assert_eq!(input.large_png, None);
        assert_eq!(input.views, database.views);
        assert_eq!(input.thumbnail_jpeg, database.thumbnail_jpeg);
        assert_eq!(input.extracted_attributes, database.extracted_attributes);
    }

    #[test]
    fn undecodable_image_content_is_an_error_and_other_formats_are_accepted() {
        assert!(matches!(
            analyze(".png", b"not a png at all"),
            Err(EngineError::Undecodable { .. })
        ));
        let other = analyze(".dwg", b"AC1032 drawing").unwrap();
        assert!(other.views.is_empty());
    }

    #[test]
    fn descriptor_survives_storage() {
        let bytes = png(64, 64, |x, y| [(x * 4) as u8, (y * 4) as u8, 0]);
        let view = analyze(".png", &bytes).unwrap().views.remove(0);
        assert_eq!(ViewDescriptor::from_bytes(&view.to_bytes()).unwrap(), view);
        assert!(ViewDescriptor::from_bytes(&[1, 2, 3]).is_err());
    }

    #[test]
    fn similar_images_rank_first_and_ties_break_by_key() {
        let left_dark = analyze(
            ".png",
            &png(64, 64, |x, _| if x < 32 { [0; 3] } else { [255; 3] }),
        )
        .unwrap();
        let left_dark_again = analyze(
            ".png",
            &png(128, 128, |x, _| if x < 64 { [10; 3] } else { [250; 3] }),
        )
        .unwrap();
        // Not the left-dark picture turned (a turned picture is the same to the descriptor).
        let dark_disc = analyze(
            ".png",
            &png(64, 64, |x, y| {
                let (dx, dy) = (x as i32 - 32, y as i32 - 32);
                if dx * dx + dy * dy < 200 {
                    [0; 3]
                } else {
                    [255; 3]
                }
            }),
        )
        .unwrap();
        let mut index = VisualIndex::new();
        index.insert("b".into(), left_dark_again.views.clone());
        index.insert("a".into(), dark_disc.views.clone());
        index.insert("c".into(), left_dark_again.views);
        let ranked = index.rank(&left_dark.views, |_| true, 10);
        assert_eq!(ranked[0].0, "b");
        assert_eq!(ranked[1].0, "c");
        assert!(ranked[0].1 > ranked[2].1);
        assert!(index.rank(&left_dark.views, |key| key == "a", 10).len() == 1);
    }

    #[test]
    fn each_query_view_takes_a_different_candidate_view() {
        // A dark disc and a dark bar on white.
        let a = analyze(
            ".png",
            &png(32, 32, |x, y| {
                let (dx, dy) = (x as i32 - 16, y as i32 - 16);
                if dx * dx + dy * dy < 64 {
                    [0; 3]
                } else {
                    [255; 3]
                }
            }),
        )
        .unwrap()
        .views;
        let b = analyze(
            ".png",
            &png(32, 32, |x, y| {
                if (4..28).contains(&x) && (13..19).contains(&y) {
                    [0; 3]
                } else {
                    [255; 3]
                }
            }),
        )
        .unwrap()
        .views;
        let query = [a[0].clone(), b[0].clone()];
        let both = [a[0].clone(), b[0].clone()];
        let only_a = [a[0].clone()];
        assert!(match_views(&query, &both) > match_views(&query, &only_a));
        assert!((match_views(&query, &both) - 1.0).abs() < 1e-4);
        // A one-view file is not capped at 1/2 by a two-view query: the left-over query view takes
        // the file's one view too, so two views of the same picture match it fully.
        let twice_a = [a[0].clone(), a[0].clone()];
        assert!((match_views(&twice_a, &only_a) - 1.0).abs() < 1e-4);
        // An unrelated query view lowers the score (it must be matched too), but not to a half.
        let with_b = match_views(&query, &only_a);
        let b_alone = match_views(&[b[0].clone()], &only_a);
        assert!(
            (with_b - (1.0 + b_alone) / 2.0).abs() < 1e-4,
            "{with_b} {b_alone}"
        );
        assert!(with_b < 1.0);
    }
}
