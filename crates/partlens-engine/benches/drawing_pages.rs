//! Drawings page by page: what picturing a page costs, and that a joined drawing costs its pages
//! and no more. Three real drawings of the corpus (`../shared/realworld/pdf`, or
//! `PARTLENS_REALWORLD_DIR`) are joined into one three-page PDF with poppler's `pdfunite` in a
//! temporary folder; each is analysed alone and the joined file as a whole, `ROUNDS` times each,
//! and the medians printed as a markdown table with the ratio of the joined file to the sum of its
//! pages alone (the baseline of the same run). A DXF with model space and a layout (`ezdxf__VP4`)
//! is timed the same way. Needs `pdfunite`; no test uses it.
//!
//! ```text
//! cargo bench -p partlens-engine --bench drawing_pages
//! ```

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use partlens_engine::{ExtractionLimits, analyze_within};

/// Timed runs of each analysis; the median is reported.
const ROUNDS: usize = 5;
/// The drawings joined, in this order.
const JOINED: [&str; 3] = [
    "pdf/voron0__Bottom_Panel.pdf",
    "pdf/voron0__Hotend_Mount_Dimensions.pdf",
    "pdf/voron2__VORON_2.4_Build_Plate_300mm.pdf",
];

fn corpus_dir() -> PathBuf {
    std::env::var_os("PARTLENS_REALWORLD_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realworld"),
        PathBuf::from,
    )
}

/// The median time of analysing `bytes` as `extension`, and how many pages it had.
fn timed(extension: &str, bytes: &[u8]) -> anyhow::Result<(Duration, usize)> {
    let limits = ExtractionLimits::default();
    let mut times = Vec::with_capacity(ROUNDS);
    let mut pages = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let analysis = analyze_within(extension, bytes, &limits)?;
        times.push(started.elapsed());
        pages = analysis.pages.len();
    }
    times.sort();
    Ok((times[ROUNDS / 2], pages))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn main() -> anyhow::Result<()> {
    let dir = corpus_dir();
    let folder = tempfile::tempdir()?;
    let joined_path = folder.path().join("three-pages.pdf");
    let sources: Vec<PathBuf> = JOINED.iter().map(|name| dir.join(name)).collect();
    let status = Command::new("pdfunite")
        .args(&sources)
        .arg(&joined_path)
        .status()?;
    anyhow::ensure!(status.success(), "pdfunite failed: {status}");
    println!("## Drawings page by page ({ROUNDS} runs each, median)\n");
    println!("| file | pages | time | per page |");
    println!("|---|---|---|---|");
    let mut alone_total = Duration::ZERO;
    for (name, path) in JOINED.iter().zip(&sources) {
        let (time, pages) = timed(".pdf", &std::fs::read(path)?)?;
        alone_total += time;
        println!(
            "| {name} | {pages} | {:.0} ms | {:.0} ms |",
            ms(time),
            ms(time) / pages as f64
        );
    }
    let joined = std::fs::read(&joined_path)?;
    let (time, pages) = timed(".pdf", &joined)?;
    println!(
        "| the three joined (`pdfunite`) | {pages} | {:.0} ms | {:.0} ms |",
        ms(time),
        ms(time) / pages as f64
    );
    let vp4 = std::fs::read(dir.join("dxf/ezdxf__VP4.dxf"))?;
    let (dxf_time, dxf_pages) = timed(".dxf", &vp4)?;
    println!(
        "| dxf/ezdxf__VP4.dxf (model space, Layout1) | {dxf_pages} | {:.0} ms | {:.0} ms |",
        ms(dxf_time),
        ms(dxf_time) / dxf_pages as f64
    );
    println!(
        "\nThe joined file took {:.2}× the sum of its three drawings read alone.",
        time.as_secs_f64() / alone_total.as_secs_f64()
    );
    Ok(())
}
