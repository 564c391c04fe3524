//! Generates the sample library's drawings: a DXF drawing of some sample parts (flange, stepped
//! shaft; outline, dimensions including a toleranced diameter, a note, a title block with part number,
//! material, drawing number and revision) and a PDF drawing of the L-bracket (written with `lopdf`)
//! in `assets/samples/drawings/`, and adds them to
//! `manifest.json` as parts stored under `Samples/drawings/` with their part's attributes plus
//! `document_type=drawing` (no query views).
//!
//! It replaces only the manifest's entries under `drawings/`, so run it after
//! `examples/make_samples.rs` (which rewrites the whole manifest and drops them). Deterministic.
//!
//! ```text
//! cargo run -p partlens-engine --example make_samples -- assets/samples
//! cargo run -p partlens-engine --example make_sample_drawings -- assets/samples
//! ```

use std::path::{Path, PathBuf};

use anyhow::Context;
use partlens_engine::samples::drawings::{
    SAMPLE_DRAWINGS, SAMPLE_PDF_DRAWING, sample_drawing_dxf, sample_drawing_pdf,
};
use partlens_engine::samples::{SamplePart, read_manifest, write_manifest};

/// The folder of the drawings inside the sample library, and the manifest prefix of their entries.
const DRAWINGS_FOLDER: &str = "drawings";

fn main() -> anyhow::Result<()> {
    let folder = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "assets/samples".to_owned()),
    );
    let mut manifest = read_manifest(&folder).map_err(anyhow::Error::msg)?;
    manifest
        .parts
        .retain(|part| !part.file.starts_with(&format!("{DRAWINGS_FOLDER}/")));
    std::fs::create_dir_all(folder.join(DRAWINGS_FOLDER))
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let dxf_drawings = SAMPLE_DRAWINGS.iter().map(|sample| {
        let bytes = sample_drawing_dxf(sample)
            .with_context(|| format!("cannot write the DXF of {}", sample.name));
        (sample, "dxf", bytes)
    });
    let pdf_drawing = std::iter::once((
        &SAMPLE_PDF_DRAWING,
        "pdf",
        sample_drawing_pdf(&SAMPLE_PDF_DRAWING)
            .with_context(|| format!("cannot write the PDF of {}", SAMPLE_PDF_DRAWING.name)),
    ));
    let mut written = 0;
    for (sample, extension, bytes) in dxf_drawings.chain(pdf_drawing) {
        let part_file = format!("{}.png", sample.part);
        let mut attributes = manifest
            .attributes_of(&part_file)
            .map(<[String]>::to_vec)
            .with_context(|| format!("the manifest has no part {part_file}"))?;
        attributes.push("document_type=drawing".to_owned());
        let file = format!("{DRAWINGS_FOLDER}/{}.{extension}", sample.name);
        write(&folder.join(&file), &bytes?)?;
        written += 1;
        manifest.parts.push(SamplePart {
            stored_path: format!("Samples/{file}"),
            file,
            attributes,
            views: Vec::new(),
        });
    }
    write_manifest(&folder, &manifest).map_err(anyhow::Error::msg)?;
    println!(
        "wrote {written} drawings to {}",
        folder.join(DRAWINGS_FOLDER).display()
    );
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
