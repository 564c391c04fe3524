//! The indexing engine: what the service learns from a file's bytes (visual descriptors, thumbnail and
//! large image, text, extracted attributes, PMI) and the in-memory visual index that ranks files by
//! similarity. Needs no downloaded model.
//!
//! The interface here is what the rest of the service uses: [`analyze`], [`ViewDescriptor`] (stored as
//! bytes) and [`VisualIndex`]. The descriptor inside is the engine's own business.

use std::collections::HashMap;

use crate::api::PmiPage;

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
    /// One descriptor per view of the file: an image has one. Empty for formats without visual indexing.
    pub views: Vec<ViewDescriptor>,
    /// Thumbnail, JPEG, longest side [`THUMBNAIL_SIZE`]; `None` when the format has no picture.
    pub thumbnail_jpeg: Option<Vec<u8>>,
    /// Large image, PNG, longest side at most [`LARGE_IMAGE_SIZE`]; `None` when there is no picture.
    pub large_png: Option<Vec<u8>>,
    /// Text extracted from the content (searched by free text).
    pub text: String,
    /// Attributes extracted from the content, `name=value`.
    pub extracted_attributes: Vec<String>,
    /// PMI pages found in the content (drawings).
    pub pmi_pages: Vec<PmiPage>,
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
    /// A stored descriptor could not be read back.
    #[error("stored descriptor is damaged: {0}")]
    DamagedDescriptor(String),
}

/// True when files with this extension are decoded as images.
pub fn is_image_extension(extension: &str) -> bool {
    IMAGE_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Analyses a file's bytes. `extension` is lower-case with the dot (`.png`). Images are decoded and
/// described; bytes that do not decode give [`EngineError::Undecodable`]. Other formats are accepted
/// with no views (stored and text-searchable).
pub fn analyze(extension: &str, bytes: &[u8]) -> Result<Analysis, EngineError> {
    let extension = extension.to_ascii_lowercase();
    if !is_image_extension(&extension) {
        return Ok(Analysis::default());
    }
    let undecodable = |reason: String| EngineError::Undecodable {
        extension: extension.clone(),
        reason,
    };
    let image = image::load_from_memory(bytes).map_err(|error| undecodable(error.to_string()))?;
    let thumbnail = image.thumbnail(THUMBNAIL_SIZE, THUMBNAIL_SIZE).to_rgb8();
    let mut thumbnail_jpeg = Vec::new();
    thumbnail
        .write_to(
            &mut std::io::Cursor::new(&mut thumbnail_jpeg),
            image::ImageFormat::Jpeg,
        )
        .map_err(|error| undecodable(error.to_string()))?;
    let large = if image.width().max(image.height()) > LARGE_IMAGE_SIZE {
        image.thumbnail(LARGE_IMAGE_SIZE, LARGE_IMAGE_SIZE)
    } else {
        image.clone()
    };
    let mut large_png = Vec::new();
    large
        .to_rgba8()
        .write_to(
            &mut std::io::Cursor::new(&mut large_png),
            image::ImageFormat::Png,
        )
        .map_err(|error| undecodable(error.to_string()))?;
    Ok(Analysis {
        views: vec![ViewDescriptor::of_image(&image)],
        thumbnail_jpeg: Some(thumbnail_jpeg),
        large_png: Some(large_png),
        text: String::new(),
        extracted_attributes: vec![
            format!("width_px={}", image.width()),
            format!("height_px={}", image.height()),
        ],
        pmi_pages: Vec::new(),
    })
}

/// The visual descriptor of one view (an image, or one rendered view of a model).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewDescriptor {
    /// L2-normalised feature vector.
    features: Vec<f32>,
}

/// Side of the grey grid the first descriptor samples.
const GRID: u32 = 16;

impl ViewDescriptor {
    /// Describes a decoded image.
    pub fn of_image(image: &image::DynamicImage) -> Self {
        let grey = image
            .resize_exact(GRID, GRID, image::imageops::FilterType::Triangle)
            .to_luma8();
        let mut features: Vec<f32> = grey
            .pixels()
            .map(|pixel| f32::from(pixel.0[0]) / 255.0)
            .collect();
        let mean = features.iter().sum::<f32>() / features.len() as f32;
        features.iter_mut().for_each(|value| *value -= mean);
        normalise(&mut features);
        Self { features }
    }

    /// The descriptor as bytes, for storage.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.features
            .iter()
            .flat_map(|value| value.to_le_bytes())
            .collect()
    }

    /// Reads a descriptor stored with [`ViewDescriptor::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, EngineError> {
        if bytes.is_empty() || !bytes.len().is_multiple_of(4) {
            return Err(EngineError::DamagedDescriptor(format!(
                "{} bytes",
                bytes.len()
            )));
        }
        let features = bytes
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
            .collect();
        Ok(Self { features })
    }

    /// Similarity of two views in 0..1 (1 = identical).
    pub fn similarity(&self, other: &Self) -> f32 {
        if self.features.len() != other.features.len() {
            return 0.0;
        }
        let cosine: f32 = self
            .features
            .iter()
            .zip(&other.features)
            .map(|(a, b)| a * b)
            .sum();
        ((cosine + 1.0) / 2.0).clamp(0.0, 1.0)
    }
}

fn normalise(values: &mut [f32]) {
    let norm = values.iter().map(|value| value * value).sum::<f32>().sqrt();
    if norm > f32::EPSILON {
        values.iter_mut().for_each(|value| *value /= norm);
    }
}

/// Scores a multi-view query against one candidate: each query view is matched to a different
/// candidate view (greedy, best pairs first); the score is the mean over query views, and a query
/// view left without a candidate view scores 0.
pub fn match_views(query: &[ViewDescriptor], candidate: &[ViewDescriptor]) -> f32 {
    if query.is_empty() || candidate.is_empty() {
        return 0.0;
    }
    let mut pairs: Vec<(f32, usize, usize)> = Vec::with_capacity(query.len() * candidate.len());
    for (q, query_view) in query.iter().enumerate() {
        for (c, candidate_view) in candidate.iter().enumerate() {
            pairs.push((query_view.similarity(candidate_view), q, c));
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut query_used = vec![false; query.len()];
    let mut candidate_used = vec![false; candidate.len()];
    let mut total = 0.0;
    for (score, q, c) in pairs {
        if !query_used[q] && !candidate_used[c] {
            query_used[q] = true;
            candidate_used[c] = true;
            total += score;
        }
    }
    total / query.len() as f32
}

/// The in-memory index of every visually indexed file, keyed by canonical UID.
#[derive(Clone, Debug, Default)]
pub struct VisualIndex {
    files: HashMap<String, Vec<ViewDescriptor>>,
}

impl VisualIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a file's views.
    pub fn insert(&mut self, key: String, views: Vec<ViewDescriptor>) {
        if views.is_empty() {
            self.files.remove(&key);
        } else {
            self.files.insert(key, views);
        }
    }

    /// Removes a file.
    pub fn remove(&mut self, key: &str) {
        self.files.remove(key);
    }

    /// How many files are indexed.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Ranks the files `allow` admits against the query views: best score first, ties broken by key so
    /// the order is deterministic; at most `limit` results, scores in 0..1.
    pub fn rank(
        &self,
        query: &[ViewDescriptor],
        allow: impl Fn(&str) -> bool,
        limit: usize,
    ) -> Vec<(String, f32)> {
        let mut scored: Vec<(String, f32)> = self
            .files
            .iter()
            .filter(|(key, _)| allow(key))
            .map(|(key, views)| (key.clone(), match_views(query, views)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        scored.truncate(limit);
        scored
    }
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
    fn undecodable_image_content_is_an_error_and_other_formats_are_accepted() {
        assert!(matches!(
            analyze(".png", b"not a png at all"),
            Err(EngineError::Undecodable { .. })
        ));
        let other = analyze(".step", b"ISO-10303-21;").unwrap();
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
        let top_dark = analyze(
            ".png",
            &png(64, 64, |_, y| if y < 32 { [0; 3] } else { [255; 3] }),
        )
        .unwrap();
        let mut index = VisualIndex::new();
        index.insert("b".into(), left_dark_again.views.clone());
        index.insert("a".into(), top_dark.views.clone());
        index.insert("c".into(), left_dark_again.views);
        let ranked = index.rank(&left_dark.views, |_| true, 10);
        assert_eq!(ranked[0].0, "b");
        assert_eq!(ranked[1].0, "c");
        assert!(ranked[0].1 > ranked[2].1);
        assert!(index.rank(&left_dark.views, |key| key == "a", 10).len() == 1);
    }

    #[test]
    fn each_query_view_takes_a_different_candidate_view() {
        let a = analyze(
            ".png",
            &png(32, 32, |x, _| if x < 16 { [0; 3] } else { [255; 3] }),
        )
        .unwrap()
        .views;
        let b = analyze(
            ".png",
            &png(32, 32, |_, y| if y < 16 { [0; 3] } else { [255; 3] }),
        )
        .unwrap()
        .views;
        let query = [a[0].clone(), b[0].clone()];
        let both = [a[0].clone(), b[0].clone()];
        let only_a = [a[0].clone()];
        assert!(match_views(&query, &both) > match_views(&query, &only_a));
        assert!((match_views(&query, &both) - 1.0).abs() < 1e-4);
    }
}
