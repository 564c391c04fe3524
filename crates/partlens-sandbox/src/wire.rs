//! The messages between a parent (the service, the app) and a worker: one request on the worker's
//! standard input, one reply on its standard output, both [`postcard`]-encoded. Parent and worker
//! are the same build, so the format needs no versioning beyond the greeting line.

use serde::{Deserialize, Serialize};

/// The first bytes a worker writes, before it reads its request: a parent that does not see them
/// ran a program that is not a partlens reader worker.
pub const GREETING: &[u8] = b"partlens-reader-worker 1\n";

/// What a worker is asked to do with a file's bytes.
#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    /// The engine's full analysis, as the service indexes a file.
    Analyze {
        /// Lower-case extension with the dot.
        extension: String,
        /// The file's bytes.
        bytes: Vec<u8>,
        /// The engine's extraction caps.
        extraction: ExtractionCaps,
        /// Analysed for a search input (no large image, the views on every core), not for a
        /// company-database file.
        search_input: bool,
        /// Only the file's words are read (`textOnly` uploads): nothing meshed or rendered.
        text_only: bool,
    },
    /// A model's mesh for the app's 3D preview, reduced to `budget` triangles.
    Preview {
        /// Lower-case extension with the dot.
        extension: String,
        /// The file's bytes.
        bytes: Vec<u8>,
        /// Most triangles in the reduced mesh.
        budget: u64,
    },
    /// A STEP assembly's product tree, unmeshed, with each product as a STEP file of its own
    /// ([`partlens_geometry::step::component_tree`]).
    Components {
        /// The file's bytes.
        bytes: Vec<u8>,
    },
}

/// The engine's extraction limits on the wire.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct ExtractionCaps {
    /// Text bytes.
    pub max_text_bytes: u64,
    /// PMI items.
    pub max_pmi_items: u64,
    /// Image pixels.
    pub max_image_pixels: u64,
    /// Pixels of a drawing's page pictures, over all its pages.
    pub max_pictured_pixels: u64,
}

#[cfg(feature = "analysis")]
impl From<&partlens_engine::ExtractionLimits> for ExtractionCaps {
    fn from(limits: &partlens_engine::ExtractionLimits) -> Self {
        Self {
            max_text_bytes: limits.max_text_bytes as u64,
            max_pmi_items: limits.max_pmi_items as u64,
            max_image_pixels: limits.max_image_pixels,
            max_pictured_pixels: limits.max_pictured_pixels,
        }
    }
}

#[cfg(feature = "analysis")]
impl From<ExtractionCaps> for partlens_engine::ExtractionLimits {
    fn from(caps: ExtractionCaps) -> Self {
        Self {
            max_text_bytes: usize::try_from(caps.max_text_bytes).unwrap_or(usize::MAX),
            max_pmi_items: usize::try_from(caps.max_pmi_items).unwrap_or(usize::MAX),
            max_image_pixels: caps.max_image_pixels,
            max_pictured_pixels: caps.max_pictured_pixels,
        }
    }
}

/// A worker's answer.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    /// What was read.
    pub outcome: Outcome,
    /// The worker's peak resident memory (`VmHWM`), in bytes; 0 where the system does not say.
    pub peak_memory_bytes: u64,
}

/// What a worker read, or why it could not.
#[derive(Debug, Serialize, Deserialize)]
pub enum Outcome {
    /// An analysis.
    Analyzed(AnalysisWire),
    /// The engine's refusal.
    Refused(EngineErrorWire),
    /// A preview mesh.
    Previewed(PreviewWire),
    /// The model reader's refusal, in words.
    PreviewRefused(String),
    /// A product tree and each product's file (in the tree's order); `None` for a file without
    /// a tree.
    Components(Option<ComponentsWire>),
    /// The STEP reader's refusal of a product tree, in words; `over_limit` when a limit refused
    /// it (sizes, counts, the components' bytes), not the file's content.
    ComponentsRefused {
        /// Why, in words.
        reason: String,
        /// A limit refused it.
        over_limit: bool,
    },
}

/// A product tree on the wire, with each product's file in the tree's order.
#[derive(Debug, Serialize, Deserialize)]
pub struct ComponentsWire {
    /// The tree, unmeshed.
    pub tree: partlens_geometry::ProductTree,
    /// Each product's file, `files[i]` for `tree.products[i]`.
    pub files: Vec<Vec<u8>>,
}

/// The engine's analysis on the wire: views as their stored bytes, PMI as JSON.
#[derive(Debug, Serialize, Deserialize)]
pub struct AnalysisWire {
    /// The stored bytes of every view descriptor.
    pub views: Vec<Vec<u8>>,
    /// Thumbnail JPEG.
    pub thumbnail_jpeg: Option<Vec<u8>>,
    /// Large PNG.
    pub large_png: Option<Vec<u8>>,
    /// Extracted text.
    pub text: String,
    /// Extracted attributes.
    pub extracted_attributes: Vec<String>,
    /// The PMI pages as JSON (the wire types' own encoding).
    pub pmi_json: String,
    /// A drawing's pages, each with its picture and which of `views` are its own.
    pub pages: Vec<PageWire>,
}

/// One page of a drawing on the wire (the engine's `DrawingPage`).
#[derive(Debug, Serialize, Deserialize)]
pub struct PageWire {
    /// Page number, from 1.
    pub number: u32,
    /// `Model` or a DXF layout's name.
    pub name: Option<String>,
    /// Width and height of its picture, in pixels.
    pub size_px: [u32; 2],
    /// Thumbnail JPEG, when pictured.
    pub thumbnail_jpeg: Option<Vec<u8>>,
    /// Large PNG, when pictured (and not a search input).
    pub large_png: Option<Vec<u8>>,
    /// Its views: the first index into `views` and how many.
    pub first_view: u64,
    /// How many of `views` are its own.
    pub view_count: u64,
}

/// The engine's refusal on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub enum EngineErrorWire {
    /// The engine's `Undecodable`.
    Undecodable {
        /// Extension.
        extension: String,
        /// Reason.
        reason: String,
    },
    /// The engine's `OverLimit`.
    OverLimit {
        /// Extension.
        extension: String,
        /// Reason.
        reason: String,
    },
    /// The engine's `ShapeUnreadable`.
    ShapeUnreadable {
        /// Extension.
        extension: String,
        /// Reason.
        reason: String,
        /// Text.
        text: String,
        /// Attributes.
        extracted_attributes: Vec<String>,
    },
    /// Any other engine error, in words.
    Other(String),
}

/// A preview mesh: the reduced mesh and the measurements of the whole one.
#[derive(Debug, Serialize, Deserialize)]
pub struct PreviewWire {
    /// Vertex positions of the reduced mesh.
    pub vertices: Vec<[f32; 3]>,
    /// Its triangles.
    pub triangles: Vec<[u32; 3]>,
    /// Bounds of the whole mesh.
    pub bounds: [[f32; 3]; 2],
    /// Triangles of the whole mesh.
    pub triangle_count: u64,
    /// Surface area of the whole mesh.
    pub surface_area: f64,
    /// Volume of the whole mesh, when closed.
    pub volume: Option<f64>,
    /// For an assembly, which triangles of the reduced mesh are which placed component (checked
    /// by the parent: [`partlens_geometry::assembly::check_mesh_parts`]); empty otherwise.
    pub parts: Vec<partlens_geometry::MeshPart>,
}

#[cfg(feature = "analysis")]
impl AnalysisWire {
    /// The wire form of an analysis.
    pub fn from_analysis(analysis: partlens_engine::Analysis) -> Self {
        Self {
            views: analysis
                .views
                .iter()
                .map(partlens_engine::ViewDescriptor::to_bytes)
                .collect(),
            thumbnail_jpeg: analysis.thumbnail_jpeg,
            large_png: analysis.large_png,
            text: analysis.text,
            extracted_attributes: analysis.extracted_attributes,
            pmi_json: serde_json::to_string(&analysis.pmi_pages).unwrap_or_else(|_| "[]".into()),
            pages: analysis
                .pages
                .into_iter()
                .map(|page| PageWire {
                    number: page.number,
                    name: page.name,
                    size_px: page.size_px,
                    thumbnail_jpeg: page.thumbnail_jpeg,
                    large_png: page.large_png,
                    first_view: page.views.start as u64,
                    view_count: page.views.len() as u64,
                })
                .collect(),
        }
    }

    /// The analysis back; what did not decode, in words, when a view or the PMI does not (the
    /// answer of a worker of another build: a view descriptor of another version).
    pub fn into_analysis(self) -> Result<partlens_engine::Analysis, String> {
        let views = self
            .views
            .iter()
            .map(|bytes| partlens_engine::ViewDescriptor::from_bytes(bytes))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| format!("its view: {error}"))?;
        let pmi_pages =
            serde_json::from_str(&self.pmi_json).map_err(|error| format!("its PMI: {error}"))?;
        let pages = self
            .pages
            .into_iter()
            .map(|page| page_of_wire(page, views.len()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(partlens_engine::Analysis {
            views,
            thumbnail_jpeg: self.thumbnail_jpeg,
            large_png: self.large_png,
            text: self.text,
            extracted_attributes: self.extracted_attributes,
            pmi_pages,
            pages,
        })
    }
}

/// A page back from the wire; its views must be among the analysis' `views`.
#[cfg(feature = "analysis")]
fn page_of_wire(page: PageWire, views: usize) -> Result<partlens_engine::DrawingPage, String> {
    let first = usize::try_from(page.first_view).unwrap_or(usize::MAX);
    let count = usize::try_from(page.view_count).unwrap_or(usize::MAX);
    let end = first
        .checked_add(count)
        .filter(|end| *end <= views)
        .ok_or_else(|| {
            format!(
                "its page {} names views past the {views} it has",
                page.number
            )
        })?;
    Ok(partlens_engine::DrawingPage {
        number: page.number,
        name: page.name,
        size_px: page.size_px,
        thumbnail_jpeg: page.thumbnail_jpeg,
        large_png: page.large_png,
        views: first..end,
    })
}

#[cfg(feature = "analysis")]
impl From<partlens_engine::EngineError> for EngineErrorWire {
    fn from(error: partlens_engine::EngineError) -> Self {
        use partlens_engine::EngineError;
        match error {
            EngineError::Undecodable { extension, reason } => {
                Self::Undecodable { extension, reason }
            }
            EngineError::OverLimit { extension, reason } => Self::OverLimit { extension, reason },
            EngineError::ShapeUnreadable {
                extension,
                reason,
                text,
                extracted_attributes,
            } => Self::ShapeUnreadable {
                extension,
                reason,
                text,
                extracted_attributes,
            },
            other => Self::Other(other.to_string()),
        }
    }
}

#[cfg(feature = "analysis")]
impl EngineErrorWire {
    /// The engine error back (`Other` as an undecodable file of `extension`).
    pub fn into_engine_error(self, extension: &str) -> partlens_engine::EngineError {
        use partlens_engine::EngineError;
        match self {
            Self::Undecodable { extension, reason } => {
                EngineError::Undecodable { extension, reason }
            }
            Self::OverLimit { extension, reason } => EngineError::OverLimit { extension, reason },
            Self::ShapeUnreadable {
                extension,
                reason,
                text,
                extracted_attributes,
            } => EngineError::ShapeUnreadable {
                extension,
                reason,
                text,
                extracted_attributes,
            },
            Self::Other(reason) => EngineError::Undecodable {
                extension: extension.to_owned(),
                reason,
            },
        }
    }
}

#[cfg(test)]
#[cfg(feature = "analysis")]
mod tests {
    use super::*;
    use partlens_engine::samples::drawings::{SAMPLE_DRAWINGS, sample_drawing_dxf};

    fn over_the_wire(
        analysis: partlens_engine::Analysis,
    ) -> Result<partlens_engine::Analysis, String> {
        let bytes = postcard::to_stdvec(&AnalysisWire::from_analysis(analysis)).unwrap();
        postcard::from_bytes::<AnalysisWire>(&bytes)
            .unwrap()
            .into_analysis()
    }

    #[test]
    fn a_drawing_s_pages_cross_the_wire_with_their_pictures_and_views() {
        let bytes = sample_drawing_dxf(&SAMPLE_DRAWINGS[0]).unwrap();
        let mut analysis = partlens_engine::analyze(".dxf", &bytes).unwrap();
        // A second page made of the first, to see each page keep its own views and pictures.
        let mut second = analysis.pages[0].clone();
        second.number = 2;
        second.name = Some("Layout1".into());
        second.views = 1..2;
        second.thumbnail_jpeg = Some(vec![1, 2, 3]);
        analysis.views.push(analysis.views[0].clone());
        analysis.pages.push(second);
        let back = over_the_wire(analysis.clone()).unwrap();
        assert_eq!(back.pages, analysis.pages);
        assert_eq!(back.views, analysis.views);
        assert_eq!(back.page_of_view(1), Some(2));
        let limits = partlens_engine::ExtractionLimits {
            max_pictured_pixels: 1234,
            ..partlens_engine::ExtractionLimits::default()
        };
        let caps: ExtractionCaps = (&limits).into();
        assert_eq!(partlens_engine::ExtractionLimits::from(caps), limits);
    }

    #[test]
    fn a_page_that_names_views_it_does_not_have_is_refused() {
        let bytes = sample_drawing_dxf(&SAMPLE_DRAWINGS[0]).unwrap();
        let mut analysis = partlens_engine::analyze(".dxf", &bytes).unwrap();
        analysis.pages[0].views = 0..5;
        let refused = over_the_wire(analysis).unwrap_err();
        assert!(
            refused.contains("page 1 names views past the 1"),
            "{refused}"
        );
    }
}
