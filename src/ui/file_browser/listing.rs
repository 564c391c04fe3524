//! One folder as the file browser lists it: its subfolders first, then the files the filter lets
//! through, each sorted by name (case folded), hidden entries left out.

use std::path::{Path, PathBuf};

/// Which files a browser shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileFilter {
    /// What the filter is called in its menu.
    pub label: &'static str,
    /// The extensions it lets through (lower case, no dot); empty lets every file through.
    pub extensions: &'static [&'static str],
}

impl FileFilter {
    /// Every file.
    pub const ALL: Self = Self {
        label: "All files",
        extensions: &[],
    };

    /// True when `path` passes the filter.
    pub fn accepts(&self, path: &Path) -> bool {
        if self.extensions.is_empty() {
            return true;
        }
        path.extension()
            .and_then(|extension| extension.to_str())
            .is_some_and(|extension| {
                self.extensions
                    .iter()
                    .any(|accepted| extension.eq_ignore_ascii_case(accepted))
            })
    }
}

/// One entry of a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolderEntry {
    /// The entry's name.
    pub name: String,
    /// Its full path.
    pub path: PathBuf,
    /// True for a folder.
    pub is_folder: bool,
    /// A file's size in bytes.
    pub size: Option<u64>,
}

/// The subfolders and the files of `folder` that `filter` lets through (no files when
/// `folders_only`); an error in words when the folder cannot be read.
pub fn read_folder(
    folder: &Path,
    filter: &FileFilter,
    folders_only: bool,
) -> Result<Vec<FolderEntry>, String> {
    let reader = std::fs::read_dir(folder)
        .map_err(|error| format!("{} cannot be read: {error}.", folder.display()))?;
    let mut entries: Vec<FolderEntry> = reader
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                return None;
            }
            let path = entry.path();
            // Follow links, so that a linked folder opens like a folder.
            let metadata = std::fs::metadata(&path).ok()?;
            let is_folder = metadata.is_dir();
            if !is_folder && (folders_only || !filter.accepts(&path)) {
                return None;
            }
            Some(FolderEntry {
                name,
                path,
                is_folder,
                size: (!is_folder).then_some(metadata.len()),
            })
        })
        .collect();
    entries.sort_by_cached_key(|entry| (!entry.is_folder, entry.name.to_lowercase()));
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PICTURES: FileFilter = FileFilter {
        label: "Pictures",
        extensions: &["png", "jpg"],
    };

    #[test]
    fn folders_come_first_and_the_filter_hides_other_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("zeta")).unwrap();
        std::fs::write(dir.path().join("B.PNG"), b"x").unwrap();
        std::fs::write(dir.path().join("a.jpg"), b"xy").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"x").unwrap();
        std::fs::write(dir.path().join(".hidden.png"), b"x").unwrap();
        let names: Vec<String> = read_folder(dir.path(), &PICTURES, false)
            .unwrap()
            .into_iter()
            .map(|entry| entry.name)
            .collect();
        assert_eq!(names, ["zeta", "a.jpg", "B.PNG"]);
        let folders = read_folder(dir.path(), &FileFilter::ALL, true).unwrap();
        assert_eq!(folders.len(), 1);
        assert!(read_folder(&dir.path().join("missing"), &PICTURES, false).is_err());
    }
}
