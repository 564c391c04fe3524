//! The real-world corpus (`../shared/realworld/` beside the repository: STEP, IGES, meshes, DXF and
//! PDF files made by other people's CAD systems, listed in its `manifest.csv`), read the way the
//! service reads it: each file in a reader worker process ([`partlens_sandbox::Sandbox`]) with the
//! service's limits. Shared by the corpus test and the corpus bench.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use partlens_sandbox::{ReaderLimits, Sandbox, SandboxFailure};

/// Where the corpus is: `PARTLENS_REALWORLD_DIR`, else `../shared/realworld` beside the repository.
pub fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PARTLENS_REALWORLD_DIR") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realworld")
}

/// One file of the corpus, as its manifest lists it.
#[derive(Clone, Debug)]
pub struct CorpusFile {
    /// Path inside the corpus (`step/…step`).
    pub relative: String,
    /// The format column (`step`, `stp`, `iges`, `igs`, `stl`, `obj`, `ply`, `dxf`, `pdf`).
    pub format: String,
    /// Size in bytes.
    pub bytes: u64,
    /// The part family, where the source groups parts.
    pub family: String,
    /// The twin key, where the same part is here in two formats.
    pub twin: String,
    /// What the family is (the manifest's `family_kind`): `kind` for sizes or variants of one kind
    /// of part, `folder` for one machine's or folder's different parts; empty without a family.
    pub family_kind: String,
}

impl CorpusFile {
    /// The lower-case extension with the dot, as the service takes it.
    pub fn extension(&self) -> String {
        Path::new(&self.relative)
            .extension()
            .map(|extension| format!(".{}", extension.to_string_lossy().to_ascii_lowercase()))
            .unwrap_or_default()
    }

    /// True when the file's family is sizes or variants of one kind of part (`family_kind` is
    /// `kind`), the families search quality is measured on.
    pub fn in_family_of_one_kind(&self) -> bool {
        !self.family.is_empty() && self.family_kind == "kind"
    }

    /// The half of the corpus the file is in (the fixed split of
    /// [`partlens_engine::samples::corpus_halves`]: tune on one, report the other).
    pub fn half(&self) -> partlens_engine::samples::corpus_halves::CorpusHalf {
        partlens_engine::samples::corpus_halves::corpus_half(
            &self.family,
            &self.twin,
            &self.relative,
        )
    }

    /// The format group a table reports by: STEP, IGES, mesh, DXF or PDF.
    pub fn group(&self) -> &'static str {
        match self.format.as_str() {
            "step" | "stp" => "STEP",
            "iges" | "igs" => "IGES",
            "stl" | "obj" | "ply" => "mesh",
            "dxf" => "DXF",
            "pdf" => "PDF",
            _ => "other",
        }
    }
}

/// The bytes of corpus file `relative` (`step/…`, `mesh/…`), or `None` when the corpus is not
/// there on a developer's machine (said on stderr, so the test is skipped); under CI (`CI` set) a
/// missing file fails the test.
pub fn corpus_file(relative: &str) -> Option<Vec<u8>> {
    match std::fs::read(corpus_dir().join(relative)) {
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

/// The three corpus drawings joined into one three-page PDF by [`joined_drawings_pdf`], in page
/// order (the engine's `drawing/pages_tests.rs` joins the same three).
pub const JOINED_DRAWINGS: [&str; 3] = [
    "pdf/voron0__Bottom_Panel.pdf",
    "pdf/voron0__Hotend_Mount_Dimensions.pdf",
    "pdf/voron2__VORON_2.4_Build_Plate_300mm.pdf",
];

/// [`JOINED_DRAWINGS`] as one three-page PDF, made by poppler's `pdfunite` in a temporary folder;
/// `None` (said on stderr) without the corpus or `pdfunite` on a developer's machine, a failure
/// under CI (`CI` set).
pub fn joined_drawings_pdf() -> Option<Vec<u8>> {
    let skipped = |reason: String| {
        assert!(
            std::env::var_os("CI").is_none(),
            "{reason} (needed under CI)"
        );
        eprintln!("skipped: {reason}");
        None
    };
    let sources: Vec<PathBuf> = JOINED_DRAWINGS
        .iter()
        .map(|name| corpus_dir().join(name))
        .collect();
    if let Some(missing) = sources.iter().find(|path| !path.is_file()) {
        return skipped(format!(
            "the corpus file {} is not there",
            missing.display()
        ));
    }
    let folder = tempfile::tempdir().ok()?;
    let joined = folder.path().join("three-pages.pdf");
    match std::process::Command::new("pdfunite")
        .args(&sources)
        .arg(&joined)
        .status()
    {
        Ok(status) if status.success() => std::fs::read(&joined).ok(),
        Ok(status) => panic!("pdfunite failed: {status}"),
        Err(error) => skipped(format!(
            "poppler's pdfunite could not run ({error}); install poppler-utils"
        )),
    }
}

/// The corpus's files for a test: `None` (with a line saying the test was skipped) when the corpus
/// is not there on a developer's machine; a failure under CI (`CI` set), which runs with
/// `../shared` beside the repository, so that CI cannot pass by skipping.
pub fn corpus_files_for_test() -> Option<Vec<CorpusFile>> {
    let files = corpus_files();
    if files.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the real-world corpus is missing at {} (CI runs with ../shared beside the repository)",
            corpus_dir().display()
        );
        eprintln!(
            "skipped: no real-world corpus at {}",
            corpus_dir().display()
        );
    }
    files
}

/// The corpus's files from its manifest; `None` when the corpus is not there.
pub fn corpus_files() -> Option<Vec<CorpusFile>> {
    let dir = corpus_dir();
    let mut reader = csv::Reader::from_path(dir.join("manifest.csv")).ok()?;
    let headers = reader.headers().ok()?.clone();
    let column = |name: &str| headers.iter().position(|header| header == name);
    let (path, format, bytes, family, twin) = (
        column("path")?,
        column("format")?,
        column("bytes")?,
        column("family")?,
        column("twin")?,
    );
    // Manifests before the column have no kinds of family (every family then counts as a folder).
    let family_kind = column("family_kind");
    let files = reader
        .records()
        .filter_map(Result::ok)
        .map(|record| CorpusFile {
            relative: record.get(path).unwrap_or_default().to_owned(),
            format: record.get(format).unwrap_or_default().to_owned(),
            bytes: record.get(bytes).and_then(|b| b.parse().ok()).unwrap_or(0),
            family: record.get(family).unwrap_or_default().to_owned(),
            twin: record.get(twin).unwrap_or_default().to_owned(),
            family_kind: family_kind
                .and_then(|at| record.get(at))
                .unwrap_or_default()
                .to_owned(),
        })
        .collect();
    Some(files)
}

/// What became of one file.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadOutcome {
    /// Indexed with a picture (a thumbnail and at least one view).
    Picture,
    /// Indexed, but without a picture (the engine found no shape to draw).
    NoPicture,
    /// Refused by the engine, with its reason.
    Refused(String),
    /// Stopped at a limit of the worker, with the sentence.
    OverLimit(String),
    /// The worker crashed or could not run, with the sentence.
    Crashed(String),
}

impl ReadOutcome {
    /// A short name for tables and expectation lists: `picture`, `no-picture`, `refused`,
    /// `over-limit`, `crashed`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Picture => "picture",
            Self::NoPicture => "no-picture",
            Self::Refused(_) => "refused",
            Self::OverLimit(_) => "over-limit",
            Self::Crashed(_) => "crashed",
        }
    }

    /// The reason, where there is one.
    pub fn reason(&self) -> &str {
        match self {
            Self::Refused(reason) | Self::OverLimit(reason) | Self::Crashed(reason) => reason,
            Self::Picture | Self::NoPicture => "",
        }
    }
}

/// One file read.
#[derive(Clone, Debug)]
pub struct FileRead {
    /// The file.
    pub file: CorpusFile,
    /// What became of it.
    pub outcome: ReadOutcome,
    /// How long its read took (worker start to answer, or to the kill).
    pub elapsed: Duration,
    /// The worker's peak resident memory, bytes (0 when it gave no answer).
    pub peak_memory_bytes: u64,
}

/// Reads every file of `files` in workers of `program` with `limits`, `parallel` at a time (the
/// service's slots), in the manifest's order.
pub fn read_corpus(
    program: &Path,
    limits: ReaderLimits,
    files: &[CorpusFile],
    parallel: usize,
) -> Vec<FileRead> {
    let sandbox = Sandbox::new(program, limits);
    let dir = corpus_dir();
    let next = Mutex::new(0_usize);
    let results = Mutex::new(Vec::with_capacity(files.len()));
    std::thread::scope(|scope| {
        for _ in 0..parallel.max(1) {
            scope.spawn(|| {
                loop {
                    let index = {
                        let mut next = next.lock().unwrap();
                        let index = *next;
                        *next += 1;
                        index
                    };
                    let Some(file) = files.get(index) else { return };
                    let read = read_one(&sandbox, &dir, file);
                    results.lock().unwrap().push((index, read));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, read)| read).collect()
}

fn read_one(sandbox: &Sandbox, dir: &Path, file: &CorpusFile) -> FileRead {
    let started = std::time::Instant::now();
    let bytes = std::fs::read(dir.join(&file.relative)).unwrap();
    let extraction = partlens_engine::ExtractionLimits::default();
    let (outcome, peak) = match sandbox.run_analysis(&file.extension(), bytes, &extraction) {
        Ok((Ok(analysis), peak)) => {
            if analysis.thumbnail_jpeg.is_some() && !analysis.views.is_empty() {
                (ReadOutcome::Picture, peak)
            } else {
                (ReadOutcome::NoPicture, peak)
            }
        }
        Ok((Err(error), peak)) => (ReadOutcome::Refused(error.to_string()), peak),
        Err(
            failure @ (SandboxFailure::TimeLimit(_)
            | SandboxFailure::CpuLimit(_)
            | SandboxFailure::MemoryLimit(_)),
        ) => (ReadOutcome::OverLimit(failure.to_string()), 0),
        Err(failure) => (ReadOutcome::Crashed(failure.to_string()), 0),
    };
    FileRead {
        file: file.clone(),
        outcome,
        elapsed: started.elapsed(),
        peak_memory_bytes: peak,
    }
}
