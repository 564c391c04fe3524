//! The vault of the bulk-load bench: `files` part files made from a real-file mix, each copy under
//! another name and, where the format allows it, with other bytes (so no two copies share a SHA-1).
//!
//! The mix: every file of the real-world corpus (`../shared/realworld`, its `manifest.csv`) of at
//! most [`MAX_SOURCE_BYTES`] that a sync uploads (STEP, STL, OBJ, PLY, DXF, PDF; not IGES, which
//! only a build with OpenCASCADE reads), and the repository's sample pictures
//! (`assets/samples/*.png`), taken in turn. A copy gets bytes its reader skips: a STEP comment
//! after the `ISO-10303-21;` line (the reader refuses anything after `END-ISO-10303-21;`), a DXF
//! comment group (999) after `EOF`, a PDF comment after `%%EOF`, bytes after a PNG's `IEND` chunk,
//! another 80-byte header in a binary STL. ASCII STL, OBJ and PLY copies keep the source's bytes.

use std::path::{Path, PathBuf};

use partlens_tasks::sync::scan::is_part_file;
use partlens_testkit::realworld::{corpus_dir, corpus_files};

/// The largest corpus file taken into the mix (the corpus's few larger models would make a
/// run of a few hundred files mostly theirs).
pub const MAX_SOURCE_BYTES: u64 = 1_000_000;

/// One source of the mix.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Its lower-case extension, without the dot.
    pub extension: String,
}

/// The sources of the mix, in a fixed order that interleaves the kinds of file.
pub fn sources() -> Vec<Source> {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/samples");
    let mut pictures: Vec<PathBuf> = std::fs::read_dir(&samples)
        .expect("the sample pictures")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "png"))
        .collect();
    pictures.sort();
    let corpus = corpus_files().expect("the real-world corpus at ../shared/realworld");
    let dir = corpus_dir();
    let mut by_kind: Vec<Vec<PathBuf>> = vec![pictures];
    for kinds in [
        &["step", "stp"][..],
        &["stl", "obj", "ply"],
        &["dxf"],
        &["pdf"],
    ] {
        by_kind.push(
            corpus
                .iter()
                .filter(|file| kinds.contains(&file.format.as_str()))
                .filter(|file| file.bytes <= MAX_SOURCE_BYTES && is_part_file(&file.relative))
                .map(|file| dir.join(&file.relative))
                .collect(),
        );
    }
    // One of each kind in turn, until every kind's list is used up.
    let longest = by_kind.iter().map(Vec::len).max().unwrap_or(0);
    let mut mixed = Vec::new();
    for index in 0..longest {
        for kind in &by_kind {
            if let Some(path) = kind.get(index) {
                let extension = path
                    .extension()
                    .map(|extension| extension.to_string_lossy().to_ascii_lowercase())
                    .unwrap_or_default();
                mixed.push(Source {
                    path: path.clone(),
                    extension,
                });
            }
        }
    }
    mixed
}

/// The bytes of copy `copy` of a source (see the module doc).
fn copy_bytes(source: &Source, copy: usize) -> Vec<u8> {
    let mut bytes = std::fs::read(&source.path).expect("a source of the mix");
    match source.extension.as_str() {
        "step" | "stp" => return with_step_comment(&bytes, &format!("bulk-load copy {copy}")),
        "dxf" => bytes.extend(format!("\n999\nbulk-load copy {copy}\n").as_bytes()),
        "pdf" => bytes.extend(format!("\n%bulk-load copy {copy}\n").as_bytes()),
        "png" => bytes.extend(format!("bulk-load copy {copy}").as_bytes()),
        "stl" if bytes.len() > 84 && !bytes.starts_with(b"solid") => {
            let header = format!("bulk-load copy {copy}");
            bytes[..80].fill(b' ');
            bytes[..header.len()].copy_from_slice(header.as_bytes());
        }
        _ => {}
    }
    bytes
}

/// A STEP file's bytes with `/* text */` after its first statement (`ISO-10303-21;`); unchanged
/// when it has none.
pub fn with_step_comment(bytes: &[u8], text: &str) -> Vec<u8> {
    const FIRST: &[u8] = b"ISO-10303-21;";
    let Some(at) = bytes
        .windows(FIRST.len())
        .position(|window| window == FIRST)
    else {
        return bytes.to_vec();
    };
    let end = at + FIRST.len();
    let mut changed = bytes[..end].to_vec();
    changed.extend(format!("\n/* {text} */").as_bytes());
    changed.extend(&bytes[end..]);
    changed
}

/// Writes the vault: `files` copies, a hundred a folder (`d0000/000042_<source name>`); returns
/// the bytes written.
pub fn write_vault(folder: &Path, files: usize) -> u64 {
    write_vault_part(folder, 0..files)
}

/// Writes the copies `indexes` of the vault into `folder` (a part of it, for one node's sync);
/// returns the bytes written.
pub fn write_vault_part(folder: &Path, indexes: std::ops::Range<usize>) -> u64 {
    let sources = sources();
    assert!(!sources.is_empty(), "the mix has no files");
    let mut written = 0u64;
    for index in indexes {
        let source = &sources[index % sources.len()];
        let copy = index / sources.len();
        let name = source
            .path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = folder.join(format!("d{:04}", index / 100));
        std::fs::create_dir_all(&dir).expect("a vault folder");
        let bytes = copy_bytes(source, copy);
        written += bytes.len() as u64;
        std::fs::write(dir.join(format!("{index:06}_{name}")), bytes).expect("a vault file");
    }
    written
}
