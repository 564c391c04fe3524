//! Every file of the real-world corpus (`../shared/realworld/`) read through the service's own
//! worker path (the `partlens-service` program as a reader worker, the service's default memory and
//! CPU limits) and held to the list of expected outcomes beside this file
//! (`realworld_expected.csv`): a file not listed there must be indexed with a picture; a listed one
//! must end as listed (refused, over a limit, without a picture) with a reason that names the
//! problem. No file may crash its worker, and none may hang: each ends within the time limit.
//!
//! The time limit is `PARTLENS_REALWORLD_TIME_LIMIT` seconds (default 60, the service's). Without
//! the corpus the test says so and passes, except under CI (`CI` set), where the corpus must be
//! there. It runs in the default build (the pure-Rust readers; `cargo test --workspace`: every
//! file) and in a build with `occt` (the package's configuration; CI's occt step: the STEP and IGES
//! files, the formats OpenCASCADE reads), each held to its own list.

use std::collections::BTreeMap;
use std::time::Duration;

use partlens_sandbox::ReaderLimits;
use partlens_testkit::realworld::{FileRead, ReadOutcome, corpus_files_for_test, read_corpus};

/// The expected outcomes of the files that do not give a picture, by build.
const EXPECTED: &str = include_str!("realworld_expected.csv");

/// One expected outcome: the build it applies to (`any`, `occt` or `default`), what happens (one
/// kind, or several separated by `|`), and words its reason must contain.
struct Expected {
    build: String,
    outcome: String,
    reason_words: String,
}

fn expectations() -> BTreeMap<String, Vec<Expected>> {
    let mut expected: BTreeMap<String, Vec<Expected>> = BTreeMap::new();
    for line in EXPECTED.lines().skip(1) {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.splitn(5, ',').collect();
        assert!(
            fields.len() >= 4,
            "a line of realworld_expected.csv: {line}"
        );
        expected
            .entry(fields[0].to_owned())
            .or_default()
            .push(Expected {
                build: fields[1].to_owned(),
                outcome: fields[2].to_owned(),
                reason_words: fields[3].to_owned(),
            });
    }
    expected
}

fn this_build() -> &'static str {
    if cfg!(feature = "occt") {
        "occt"
    } else {
        "default"
    }
}

fn time_limit() -> Duration {
    std::env::var("PARTLENS_REALWORLD_TIME_LIMIT")
        .ok()
        .and_then(|seconds| seconds.parse().ok())
        .map_or(partlens_sandbox::DEFAULT_TIME_LIMIT, Duration::from_secs)
}

#[test]
fn every_real_world_file_is_read_or_refused_with_a_reason() {
    let Some(files) = corpus_files_for_test() else {
        return;
    };
    assert!(
        files.len() >= 200,
        "the manifest lists {} files",
        files.len()
    );
    // With `occt`, only the formats the feature reads differently (STEP, IGES): meshes and
    // drawings go through the same code in both builds, and the default build's run reads them.
    let files: Vec<_> = files
        .into_iter()
        .filter(|file| !cfg!(feature = "occt") || matches!(file.group(), "STEP" | "IGES"))
        .collect();
    let limits = ReaderLimits {
        time: time_limit(),
        ..ReaderLimits::default()
    };
    let program = std::path::PathBuf::from(env!("CARGO_BIN_EXE_partlens-service"));
    let reads = read_corpus(&program, limits, &files, 2);
    let expected = expectations();
    let build = this_build();
    let mut problems = Vec::new();
    for read in &reads {
        let FileRead { file, outcome, .. } = read;
        let listed = expected
            .get(&file.relative)
            .into_iter()
            .flatten()
            .find(|entry| entry.build == "any" || entry.build == build);
        eprintln!(
            "{:>6} ms {:>5} MiB {:<10} {} {}",
            read.elapsed.as_millis(),
            read.peak_memory_bytes / (1024 * 1024),
            outcome.kind(),
            file.relative,
            outcome.reason()
        );
        if let ReadOutcome::Crashed(reason) = outcome {
            problems.push(format!("{}: the worker crashed: {reason}", file.relative));
            continue;
        }
        match listed {
            None if *outcome != ReadOutcome::Picture => problems.push(format!(
                "{}: expected a picture, got {} {}",
                file.relative,
                outcome.kind(),
                outcome.reason()
            )),
            None => {}
            Some(entry) => {
                if !entry.outcome.split('|').any(|kind| kind == outcome.kind()) {
                    problems.push(format!(
                        "{}: expected {} ({}), got {} {}",
                        file.relative,
                        entry.outcome,
                        entry.reason_words,
                        outcome.kind(),
                        outcome.reason()
                    ));
                } else if !outcome.reason().contains(&entry.reason_words) {
                    problems.push(format!(
                        "{}: the reason should say \"{}\": {}",
                        file.relative,
                        entry.reason_words,
                        outcome.reason()
                    ));
                }
            }
        }
    }
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for read in &reads {
        *by_kind.entry(read.outcome.kind()).or_default() += 1;
    }
    eprintln!("{build} build, {} files: {by_kind:?}", reads.len());
    assert!(
        problems.is_empty(),
        "{} of {} real-world files did not end as expected:\n{}",
        problems.len(),
        reads.len(),
        problems.join("\n")
    );
}
