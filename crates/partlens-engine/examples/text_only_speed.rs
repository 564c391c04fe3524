//! Measures text-only analysis (`textOnly=true` uploads) against the full analysis of the same
//! files, in the same run, and prints a table for docs/PERFORMANCE.md ("Text-only indexing").
//!
//! ```sh
//! cargo run -p partlens-engine --example text_only_speed -- FILE…   # e.g. real drawings and models
//! ```
//!
//! Each file is analysed both ways in this process (no reader worker), alternately, five times; the
//! table gives the median of each and their ratio.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use partlens_engine::{ExtractionLimits, analyze_text_only, analyze_within};

/// Runs of each analysis a file.
const RUNS: usize = 5;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let files: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    anyhow::ensure!(!files.is_empty(), "give the files to measure");
    let limits = ExtractionLimits::default();
    println!("| file | full analysis | text only | ratio |");
    println!("|---|---:|---:|---:|");
    for path in &files {
        let bytes = std::fs::read(path)?;
        let extension = path
            .extension()
            .map(|extension| format!(".{}", extension.to_string_lossy().to_ascii_lowercase()))
            .unwrap_or_default();
        let (mut full, mut words) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let started = Instant::now();
            let analysis = analyze_within(&extension, &bytes, &limits);
            full.push(started.elapsed());
            anyhow::ensure!(analysis.is_ok(), "{}: {analysis:?}", path.display());
            let started = Instant::now();
            let analysis = analyze_text_only(&extension, &bytes, &limits);
            words.push(started.elapsed());
            anyhow::ensure!(analysis.is_ok(), "{}: {analysis:?}", path.display());
        }
        let (full, words) = (median(full), median(words));
        println!(
            "| {} | {:.1} ms | {:.2} ms | {:.0}× |",
            path.file_name().unwrap_or_default().to_string_lossy(),
            full.as_secs_f64() * 1000.0,
            words.as_secs_f64() * 1000.0,
            full.as_secs_f64() / words.as_secs_f64().max(1e-9)
        );
    }
    Ok(())
}
