//! The real-world corpus (`../shared/realworld/`, 215 files made by other people's CAD systems) read
//! as the service reads it: each file in a reader worker process (`partlens-service read-worker`)
//! with the service's limits, two at a time (the service's slots on this 2-core machine). Prints, per
//! format: files read with a picture, without one, refused, over a limit, crashed, the p50 and p95
//! time of a read (worker start to answer, or to the kill) and the workers' peak memory, as a
//! markdown table for docs/PERFORMANCE.md. Run it once in each build:
//!
//! ```text
//! cargo bench -p partlens-service --bench realworld
//! cargo bench -p partlens-service --bench realworld --features occt
//! cargo bench -p partlens-service --bench realworld -- --time-limit 30   # another wall-clock limit
//! ```
//!
//! The program is the bench profile's own `partlens-service` (built beside this bench); a file over
//! a limit costs the limit, so a run without `occt` takes about (files over the limit × the limit /
//! 2) longer.

// A benchmark that cannot set itself up has nothing to measure: it stops with the reason.
#![allow(clippy::expect_used)]

use std::collections::BTreeMap;
use std::time::Duration;

use partlens_sandbox::ReaderLimits;
use partlens_testkit::realworld::{FileRead, ReadOutcome, corpus_dir, corpus_files, read_corpus};

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let time_limit = arguments
        .iter()
        .position(|argument| argument == "--time-limit")
        .and_then(|at| arguments.get(at + 1))
        .and_then(|seconds| seconds.parse().ok())
        .map_or(partlens_sandbox::DEFAULT_TIME_LIMIT, Duration::from_secs);
    let files = corpus_files().unwrap_or_else(|| {
        panic!(
            "no real-world corpus at {} (set PARTLENS_REALWORLD_DIR)",
            corpus_dir().display()
        )
    });
    let program = std::path::PathBuf::from(env!("CARGO_BIN_EXE_partlens-service"));
    let limits = ReaderLimits {
        time: time_limit,
        ..ReaderLimits::default()
    };
    let build = if cfg!(feature = "occt") {
        "with occt"
    } else {
        "default (no occt)"
    };
    eprintln!(
        "reading {} files, {build}, limits {} s / {} / {} s CPU, 2 at a time…",
        files.len(),
        limits.time.as_secs(),
        limits.memory_in_words(),
        limits.cpu.as_secs()
    );
    let reads = read_corpus(&program, limits, &files, 2);
    print_table(build, &reads);
    print_misses(&reads);
}

fn print_table(build: &str, reads: &[FileRead]) {
    let mut groups: BTreeMap<&str, Vec<&FileRead>> = BTreeMap::new();
    for read in reads {
        groups.entry(read.file.group()).or_default().push(read);
        groups.entry("all").or_default().push(read);
    }
    println!("\n{build}\n");
    println!(
        "| format | files | with a picture | without one | refused | over a limit | crashed | p50 | p95 | peak worker memory (p95 / max) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for group in ["STEP", "IGES", "mesh", "DXF", "PDF", "all"] {
        let Some(reads) = groups.get(group) else {
            continue;
        };
        let count = |kind: &str| {
            reads
                .iter()
                .filter(|read| read.outcome.kind() == kind)
                .count()
        };
        let mut times: Vec<Duration> = reads.iter().map(|read| read.elapsed).collect();
        times.sort();
        let mut memory: Vec<u64> = reads
            .iter()
            .map(|read| read.peak_memory_bytes)
            .filter(|bytes| *bytes > 0)
            .collect();
        memory.sort_unstable();
        println!(
            "| {group} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |",
            reads.len(),
            count("picture"),
            count("no-picture"),
            count("refused"),
            count("over-limit"),
            count("crashed"),
            millis(percentile(&times, 0.5)),
            millis(percentile(&times, 0.95)),
            mebibytes(percentile(&memory, 0.95)),
            mebibytes(memory.last().copied().unwrap_or(0)),
        );
    }
}

fn print_misses(reads: &[FileRead]) {
    println!("\nFiles without a picture:\n");
    for read in reads {
        if read.outcome != ReadOutcome::Picture {
            println!(
                "- `{}` ({} ms): {} {}",
                read.file.relative,
                read.elapsed.as_millis(),
                read.outcome.kind(),
                read.outcome.reason()
            );
        }
    }
}

fn percentile<T: Copy + Default>(sorted: &[T], fraction: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let index = ((sorted.len() - 1) as f64 * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn millis(duration: Duration) -> String {
    format!("{} ms", duration.as_millis())
}

fn mebibytes(bytes: u64) -> String {
    format!("{} MiB", bytes / (1024 * 1024))
}
