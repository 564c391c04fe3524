//! Drawings (DXF): the page rendered to a picture, and the PMI read from it — texts, dimensions,
//! title-block values and tolerances with their boxes in page pixels — plus the drawing's text and
//! the attributes it states.
//!
//! Flow: a format reader (`dxf_scene.rs`) makes a [`scene::Scene`] in drawing units; `page.rs` fits it
//! to a page whose longest side is the large image's; `render.rs` draws it; `pmi.rs` turns its texts
//! into PMI items in reading order; `title_block.rs` reads attributes; `text_clean.rs` turns stored
//! text codes into readable text; `curves.rs` approximates arcs, ellipses and splines.
//!
//! PMI `type_id` numbering (the service's own; also documented on [`crate::api::PmiItem`]):
//! 1 text note (TEXT, MTEXT), 2 dimension (DIMENSION), 3 title-block attribute (ATTRIB of an
//! INSERT), 4 tolerance / GD&T frame (TOLERANCE).

mod curves;
mod dxf_scene;
mod page;
mod pmi;
mod render;
pub mod sample_drawings;
mod scene;
mod text_clean;
mod title_block;

use image::DynamicImage;

use super::{Analysis, EngineError, ViewDescriptor, images};

pub use dxf_scene::{MAX_BLOCK_DEPTH, MAX_DXF_BYTES, MAX_ENTITIES, MAX_POINTS};

/// Drawing formats the engine reads (lower-case extensions with the dot).
pub const DRAWING_EXTENSIONS: &[&str] = &[".dxf"];

/// What a PMI item is; its number is the wire's `type_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PmiItemKind {
    /// 1: a text note (TEXT, MTEXT).
    Note,
    /// 2: a dimension's text (measured value or override).
    Dimension,
    /// 3: a title-block value (an ATTRIB of an INSERT).
    TitleBlockAttribute,
    /// 4: a tolerance or GD&T feature control frame.
    Tolerance,
}

impl PmiItemKind {
    /// The wire's `type_id`.
    pub fn type_id(self) -> i64 {
        match self {
            Self::Note => 1,
            Self::Dimension => 2,
            Self::TitleBlockAttribute => 3,
            Self::Tolerance => 4,
        }
    }
}

/// True when files with this extension are read as drawings.
pub fn is_drawing_extension(extension: &str) -> bool {
    DRAWING_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Analyses a DXF drawing: the rendered page becomes the view, thumbnail and large image; its texts
/// the PMI (page 1), the free text and the extracted attributes.
pub fn analyze_dxf(bytes: &[u8]) -> Result<Analysis, EngineError> {
    let undecodable = |reason: String| EngineError::Undecodable {
        extension: ".dxf".to_owned(),
        reason,
    };
    let drawing = dxf_scene::parse(bytes).map_err(|error| undecodable(error.to_string()))?;
    let scene = dxf_scene::scene_of(&drawing).map_err(|error| undecodable(error.to_string()))?;
    drop(drawing);
    analyze_scene(&scene).map_err(undecodable)
}

/// The analysis of one page's scene.
fn analyze_scene(scene: &scene::Scene) -> Result<Analysis, String> {
    let (min, max) = scene
        .extents()
        .ok_or_else(|| "the drawing has nothing to draw".to_owned())?;
    let page = page::Page::fitting(min, max);
    let picture = DynamicImage::ImageRgb8(render::render(scene, &page));
    let items = pmi::page_items(scene, &page);
    let text = pmi::unstructured_text(&items);
    let mut visible_texts: Vec<&scene::PlacedText> = scene.texts.iter().collect();
    // Attributes follow reading order too (top to bottom, left to right in drawing units).
    visible_texts.sort_by(|a, b| {
        let [ax, ay] = a.frame.apply([0.0, 0.0]);
        let [bx, by] = b.frame.apply([0.0, 0.0]);
        by.total_cmp(&ay).then(ax.total_cmp(&bx))
    });
    let extracted_attributes = title_block::extracted_attributes(&visible_texts);
    Ok(Analysis {
        views: vec![ViewDescriptor::of_image(&picture)],
        thumbnail_jpeg: Some(images::thumbnail_jpeg(&picture).map_err(|error| error.to_string())?),
        large_png: Some(images::large_png(&picture).map_err(|error| error.to_string())?),
        text,
        extracted_attributes,
        pmi_pages: vec![pmi::pmi_page(1, &page, items)],
    })
}

#[cfg(test)]
mod tests {
    use super::sample_drawings::{SAMPLE_DRAWINGS, sample_drawing_dxf};
    use super::*;

    #[test]
    fn the_flange_drawing_gives_a_page_its_pmi_text_and_attributes() {
        let sample = &SAMPLE_DRAWINGS[0];
        let analysis = analyze_dxf(&sample_drawing_dxf(sample).unwrap()).unwrap();
        assert_eq!(analysis.views.len(), 1);
        let large = image::load_from_memory(analysis.large_png.as_deref().unwrap()).unwrap();
        let page = &analysis.pmi_pages[0];
        assert_eq!(page.page, 1);
        assert_eq!(
            page.image_size,
            [i64::from(large.width()), i64::from(large.height())]
        );
        assert_eq!(
            large.width().max(large.height()),
            super::super::LARGE_IMAGE_SIZE
        );
        let dimensions: Vec<&str> = page
            .items
            .iter()
            .filter(|item| item.type_id == 2)
            .map(|item| item.text.as_str())
            .collect();
        assert!(dimensions.contains(&"Ø160"), "{dimensions:?}");
        assert!(dimensions.contains(&"Ø60 H7 ±0.015"), "{dimensions:?}");
        assert!(dimensions.contains(&"20"), "{dimensions:?}");
        for item in &page.items {
            let [left, top, right, bottom] = item.box_in_page;
            assert!(
                0 <= left && left < right && right <= page.image_size[0],
                "{item:?}"
            );
            assert!(
                0 <= top && top < bottom && bottom <= page.image_size[1],
                "{item:?}"
            );
        }
        assert!(
            page.items
                .iter()
                .any(|item| item.type_id == 3 && item.text == "PL-1002"),
            "{:?}",
            page.items
        );
        assert!(analysis.text.contains("DEBURR BOLT HOLES"));
        assert!(analysis.text.contains("4X Ø14 EQ SP ON Ø120 PCD"));
        // The note reads top to bottom.
        let notes = analysis.text.find("NOTES:").unwrap();
        assert!(notes < analysis.text.find("BREAK ALL").unwrap());
        for expected in [
            "part_number=PL-1002",
            "material=STAINLESS STEEL 1.4301",
            "drawing_number=DWG-1002",
            "revision=B",
            "scale=1:2",
        ] {
            assert!(
                analysis
                    .extracted_attributes
                    .iter()
                    .any(|found| found == expected),
                "{expected} in {:?}",
                analysis.extracted_attributes
            );
        }
    }

    #[test]
    fn the_shaft_drawing_has_its_toleranced_diameter() {
        let analysis = analyze_dxf(&sample_drawing_dxf(&SAMPLE_DRAWINGS[1]).unwrap()).unwrap();
        let texts: Vec<&str> = analysis.pmi_pages[0]
            .items
            .iter()
            .map(|item| item.text.as_str())
            .collect();
        assert!(texts.contains(&"Ø50 h6 ±0.008"), "{texts:?}");
        assert!(texts.contains(&"320"), "{texts:?}");
        assert!(analysis.text.contains("CHAMFER ALL ENDS 1 X 45°"));
    }

    #[test]
    fn hostile_dxf_content_is_undecodable() {
        for bytes in [
            &b"not a drawing at all"[..],
            b"",
            b"0\nSECTION\n2\nENTITIES\n0\nENDSEC\n0\nEOF\n",
            b"0\nSECTION\n2\nENTITIES\n0\nLINE\n10\nnot-a-number\n",
        ] {
            assert!(
                matches!(analyze_dxf(bytes), Err(EngineError::Undecodable { .. })),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
