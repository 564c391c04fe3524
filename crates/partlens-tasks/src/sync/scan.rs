//! Scanning a synced folder: every part file below it with its path in the folder, in path order,
//! within the file and depth limits; and the SHA-1 of a file's content, read in chunks.
//!
//! Blocking file-system work: the engine runs it in `spawn_blocking`. Links are never followed
//! (a link to a folder above would make the walk endless); hidden files and folders (names
//! starting with `.`) and one excluded file (the attributes CSV) are left out; files that are not
//! part files are listed as ignored.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use sha1::Digest as _;

use super::{SyncError, SyncLimits};
use crate::file_picker::PART_EXTENSIONS;

/// A part file of the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScannedFile {
    /// Its path in the folder with `/` separators (`pumps/housing.stl`).
    pub relative: String,
    /// Its path on disk.
    pub path: PathBuf,
    /// Its size in bytes when scanned.
    pub size: u64,
}

impl ScannedFile {
    /// The last part of its path (`housing.stl`).
    pub fn file_name(&self) -> &str {
        self.relative.rsplit('/').next().unwrap_or(&self.relative)
    }
}

/// What a scan found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FolderScan {
    /// The part files, sorted by their path in the folder.
    pub files: Vec<ScannedFile>,
    /// Files that are not part files (paths in the folder, sorted).
    pub ignored: Vec<String>,
    /// CSV files at the top of the folder (candidates for the attributes CSV).
    pub csv_files: Vec<PathBuf>,
}

/// True for the extensions a sync uploads.
pub fn is_part_file(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && PART_EXTENSIONS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(extension))
    })
}

/// Walks `folder` (absolute) within `limits`, leaving out `exclude` (the attributes CSV).
pub fn scan_folder(
    folder: &Path,
    exclude: Option<&Path>,
    limits: &SyncLimits,
) -> Result<FolderScan, SyncError> {
    let mut scan = FolderScan::default();
    let mut seen_files = 0usize;
    // (folder on disk, its path in the synced folder, its depth)
    let mut pending = vec![(folder.to_path_buf(), String::new(), 0usize)];
    while let Some((dir, prefix, depth)) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|error| SyncError::Folder {
            path: dir.display().to_string(),
            message: error.to_string(),
        })?;
        for entry in entries {
            let entry = entry.map_err(|error| SyncError::Folder {
                path: dir.display().to_string(),
                message: error.to_string(),
            })?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let relative = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            // `file_type` of a directory entry does not follow links.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                if depth + 1 > limits.max_depth {
                    return Err(SyncError::Limit(format!(
                        "the folder {} lies more than {} levels deep; sync a folder with fewer \
                         levels",
                        path.display(),
                        limits.max_depth
                    )));
                }
                pending.push((path, relative, depth + 1));
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            if exclude.is_some_and(|excluded| same_file(excluded, &path)) {
                continue;
            }
            seen_files += 1;
            if seen_files > limits.max_files {
                return Err(SyncError::Limit(format!(
                    "the folder holds more than {} files; sync its subfolders one at a time",
                    limits.max_files
                )));
            }
            if depth == 0 && name.to_lowercase().ends_with(".csv") {
                scan.csv_files.push(path.clone());
            }
            if is_part_file(&name) {
                let size = entry.metadata().map(|meta| meta.len()).unwrap_or(0);
                scan.files.push(ScannedFile {
                    relative,
                    path,
                    size,
                });
            } else {
                scan.ignored.push(relative);
            }
        }
    }
    scan.files.sort_by(|a, b| a.relative.cmp(&b.relative));
    scan.ignored.sort();
    scan.csv_files.sort();
    Ok(scan)
}

/// True when both paths name one file (compared resolved, so `./a.csv` and `/x/a.csv` match).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The SHA-1 of a file's content, lower-case hex; the file is read in 64 KiB chunks.
pub fn sha1_of_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = sha1::Sha1::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, bytes: &[u8]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn part_files_are_listed_in_path_order_and_the_rest_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("b.png"), b"x");
        write(&root.join("a/z.STL"), b"x");
        write(&root.join("a/readme.txt"), b"x");
        write(&root.join(".hidden/c.png"), b"x");
        write(&root.join(".d.png"), b"x");
        write(&root.join("attributes.csv"), b"file\n");
        let csv = root.join("attributes.csv");
        let scan = scan_folder(root, Some(&csv), &SyncLimits::default()).unwrap();
        let names: Vec<&str> = scan.files.iter().map(|f| f.relative.as_str()).collect();
        assert_eq!(names, ["a/z.STL", "b.png"]);
        assert_eq!(scan.ignored, ["a/readme.txt"]);
        assert!(scan.csv_files.is_empty(), "the excluded CSV is not offered");
        let without_exclude = scan_folder(root, None, &SyncLimits::default()).unwrap();
        assert_eq!(without_exclude.csv_files, [csv]);
        assert_eq!(scan.files[0].file_name(), "z.STL");
    }

    #[test]
    fn more_files_than_the_limit_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..4 {
            write(&dir.path().join(format!("{i}.png")), b"x");
        }
        let limits = SyncLimits {
            max_files: 3,
            ..SyncLimits::default()
        };
        let error = scan_folder(dir.path(), None, &limits).unwrap_err();
        assert!(error.to_string().contains("more than 3 files"), "{error}");
        let enough = SyncLimits {
            max_files: 4,
            ..SyncLimits::default()
        };
        assert_eq!(
            scan_folder(dir.path(), None, &enough).unwrap().files.len(),
            4
        );
    }

    #[test]
    fn folders_deeper_than_the_limit_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("1/2/3/a.png"), b"x");
        let shallow = SyncLimits {
            max_depth: 2,
            ..SyncLimits::default()
        };
        let error = scan_folder(dir.path(), None, &shallow).unwrap_err();
        assert!(error.to_string().contains("more than 2 levels"), "{error}");
        let deep_enough = SyncLimits {
            max_depth: 3,
            ..SyncLimits::default()
        };
        assert_eq!(
            scan_folder(dir.path(), None, &deep_enough).unwrap().files[0].relative,
            "1/2/3/a.png"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("a/b.png"), b"x");
        std::os::unix::fs::symlink(dir.path(), dir.path().join("a/loop")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a/b.png"), dir.path().join("c.png")).unwrap();
        let scan = scan_folder(dir.path(), None, &SyncLimits::default()).unwrap();
        assert_eq!(scan.files.len(), 1);
    }

    #[test]
    fn the_hash_is_the_sha1_of_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.png");
        write(&path, b"abc");
        assert_eq!(
            sha1_of_file(&path).unwrap(),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        write(&path, &big);
        assert_eq!(
            sha1_of_file(&path).unwrap(),
            hex::encode(sha1::Sha1::digest(&big))
        );
    }

    #[test]
    fn only_known_extensions_are_part_files() {
        assert!(is_part_file("a.PNG"));
        assert!(is_part_file("x.step"));
        assert!(!is_part_file("notes.txt"));
        assert!(!is_part_file("png"));
        assert!(!is_part_file(".png"));
    }
}
