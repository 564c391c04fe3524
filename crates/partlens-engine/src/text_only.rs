//! Text-only analysis (`textOnly=true` uploads): what a file says in words, and nothing it looks
//! like. No model is meshed and no page or picture is rendered or described, so the analysis has
//! no views, no thumbnail and no large image; its text, extracted attributes and (for a drawing)
//! PMI are read as a full analysis reads them. A file analysed so is found by free text and
//! attributes, never by shape.

use super::{Analysis, EngineError, ExtractionLimits, drawing};

/// Analyses a file's words only. `extension` is lower-case with the dot. A model gives the words
/// its format carries (STEP header and product data, IGES; a mesh format none), a drawing its
/// pages' PMI, text and title-block attributes, a picture its size from its header (its pixels are
/// not decoded); any other format nothing. Bytes that do not parse give
/// [`EngineError::Undecodable`], content past a cap of `limits` [`EngineError::OverLimit`].
pub fn analyze_text_only(
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    let extension = extension.to_ascii_lowercase();
    if partlens_geometry::is_model_extension(&extension) {
        let (description, checked) = partlens_geometry::read_model_words(&extension, bytes);
        if let Err(error) = checked
            && description.is_empty()
        {
            return Err(EngineError::Undecodable {
                extension,
                reason: error.to_string(),
            });
        }
        return Ok(Analysis {
            text: description.text,
            extracted_attributes: description.attributes,
            ..Analysis::default()
        });
    }
    if drawing::is_drawing_extension(&extension) {
        return drawing::read_drawing_text(&extension, bytes, limits);
    }
    if !super::is_image_extension(&extension) {
        return Ok(Analysis::default());
    }
    let (width, height) = super::checked_header_dimensions(&extension, bytes, limits)?;
    Ok(Analysis {
        extracted_attributes: vec![format!("width_px={width}"), format!("height_px={height}")],
        ..Analysis::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::drawings::{SAMPLE_DRAWINGS, sample_drawing_dxf};

    #[test]
    fn a_drawing_gives_its_words_and_no_picture() {
        let limits = ExtractionLimits::default();
        let bytes = sample_drawing_dxf(&SAMPLE_DRAWINGS[0]).unwrap();
        let full = crate::analyze_within(".dxf", &bytes, &limits).unwrap();
        let words = analyze_text_only(".DXF", &bytes, &limits).unwrap();
        assert!(words.views.is_empty());
        assert!(words.thumbnail_jpeg.is_none() && words.large_png.is_none());
        assert!(!words.text.is_empty());
        assert_eq!(words.text, full.text);
        assert_eq!(words.extracted_attributes, full.extracted_attributes);
        assert_eq!(words.pmi_pages.len(), full.pmi_pages.len());
    }

    #[test]
    fn a_model_gives_its_words_without_a_mesh_and_garbage_is_refused() {
        let limits = ExtractionLimits::default();
        let step = b"ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION(('bracket'),'2;1');\n\
            FILE_NAME('bracket.stp','2026-01-01',(''),(''),'','','');\n\
            FILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\nENDSEC;\nDATA;\n\
            #1=PRODUCT('BRK-100','Mounting bracket','',(#2));\n\
            #2=PRODUCT_CONTEXT('',#3,'mechanical');\n\
            #3=APPLICATION_CONTEXT('design');\nENDSEC;\nEND-ISO-10303-21;\n";
        let words = analyze_text_only(".stp", step, &limits).unwrap();
        assert!(words.views.is_empty() && words.thumbnail_jpeg.is_none());
        assert!(
            words.text.contains("Mounting bracket") || words.text.contains("BRK-100"),
            "{words:?}"
        );
        assert!(matches!(
            analyze_text_only(".step", b"not a step file at all", &limits),
            Err(EngineError::Undecodable { .. })
        ));
        let none = analyze_text_only(".stl", b"solid x\nendsolid x\n", &limits).unwrap();
        assert!(none.views.is_empty() && none.text.is_empty());
    }
}
