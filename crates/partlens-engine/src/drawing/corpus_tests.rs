//! The drawings of the real-world corpus (`../shared/realworld/{pdf,dxf}` beside the repository, or
//! `PARTLENS_REALWORLD_DIR`): one test a cause of lost text, each on a file that shows it. Without
//! the corpus a test says so and passes, except under CI (`CI` set), where the corpus must be there.

use std::path::PathBuf;

use crate::{Analysis, ExtractionLimits};

fn corpus_file(relative: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("PARTLENS_REALWORLD_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realworld"),
        PathBuf::from,
    );
    match std::fs::read(dir.join(relative)) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "the corpus file {relative} is missing under CI: {error}"
            );
            eprintln!("skipped: the corpus file {relative} is not there ({error})");
            None
        }
    }
}

fn analysed(relative: &str) -> Option<Analysis> {
    let bytes = corpus_file(relative)?;
    let extension = if relative.ends_with(".pdf") {
        ".pdf"
    } else {
        ".dxf"
    };
    Some(super::analyze_drawing(extension, &bytes, &ExtractionLimits::default()).unwrap())
}

fn item_texts(analysis: &Analysis) -> Vec<&str> {
    analysis
        .pmi_pages
        .iter()
        .flat_map(|page| page.items.iter().map(|item| item.text.as_str()))
        .collect()
}

#[test]
fn an_autocad_to_unicode_map_with_stray_tokens_gives_the_numbers() {
    // Its fonts are Identity-H with a ToUnicode map lopdf refuses: the text was `)UDPH’HSWK`.
    let Some(analysis) = analysed("pdf/voron2__Bottom_Panel.pdf") else {
        return;
    };
    let texts = item_texts(&analysis);
    for expected in [
        "24.6",
        "120",
        "26.6",
        "(Frame Depth -41)",
        "(Frame Width -41)",
    ] {
        assert!(texts.contains(&expected), "{expected} in {texts:?}");
    }
}

#[test]
fn glyph_widths_keep_kerned_pieces_of_a_word_together() {
    // SolidWorks writes each kerned piece separately; with a fixed advance `89.5` read `89. 5` and
    // `7.0 TYP` split into `7. 0 T` + `YP`.
    let Some(analysis) =
        analysed("pdf/trident__VRN-BP-VT-250-R0_-_VORON_Trident_Build_Plate_250mm.pdf")
    else {
        return;
    };
    let texts = item_texts(&analysis);
    for expected in ["89.5", "7.0 TYP", "(75.0)", "(37.5)", "8/12/2021"] {
        assert!(texts.contains(&expected), "{expected} in {texts:?}");
    }
    assert!(
        texts.contains(
            &"MATERIAL TO BE CAST ALUMINUM TOOLING PLATE (MIC-6, ATP-5, ALCA 5, OR EQUIVALENT)."
        ),
        "{texts:?}"
    );
}

#[test]
fn model_space_texts_behind_a_paper_space_layout_are_read() {
    // The layout has the frame; the texts are in model space, seen through viewports.
    let Some(analysis) = analysed("dxf/ezdxf__VP4.dxf") else {
        return;
    };
    for expected in ["T0", "T1", "T2", "T3"] {
        assert!(
            analysis.text.lines().any(|line| line == expected),
            "{expected} in {:?}",
            analysis.text
        );
    }
}
