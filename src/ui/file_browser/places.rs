//! The places the file browser offers on its left: the folders the user chose from last (kept
//! across runs, newest first) and the usual folders of the home folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many recent folders are kept.
const RECENT_FOLDERS_KEPT: usize = 8;

/// The folders files were last chosen from, newest first (saved with the app's settings).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RecentFolders {
    folders: Vec<PathBuf>,
}

impl RecentFolders {
    /// Puts `folder` first.
    pub fn remember(&mut self, folder: &Path) {
        self.folders.retain(|known| known != folder);
        self.folders.insert(0, folder.to_path_buf());
        self.folders.truncate(RECENT_FOLDERS_KEPT);
    }

    /// The folders that still exist, newest first.
    pub fn existing(&self) -> impl Iterator<Item = &PathBuf> {
        self.folders.iter().filter(|folder| folder.is_dir())
    }
}

/// A place on the browser's left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// What it is called.
    pub label: String,
    /// The folder.
    pub folder: PathBuf,
}

/// The home folder, its usual subfolders that exist, and the file system's root.
pub fn standard_places() -> Vec<Place> {
    let mut places = Vec::new();
    if let Some(home) = std::env::home_dir() {
        for name in ["Desktop", "Documents", "Downloads", "Pictures"] {
            let folder = home.join(name);
            if folder.is_dir() {
                places.push(Place {
                    label: name.to_owned(),
                    folder,
                });
            }
        }
        places.insert(
            0,
            Place {
                label: "Home".to_owned(),
                folder: home,
            },
        );
    }
    places.push(Place {
        label: "Computer".to_owned(),
        folder: PathBuf::from(std::path::MAIN_SEPARATOR_STR),
    });
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_folders_keep_the_newest_first_without_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let mut recent = RecentFolders::default();
        recent.remember(&a);
        recent.remember(&b);
        recent.remember(&a);
        recent.remember(&dir.path().join("gone"));
        let kept: Vec<&PathBuf> = recent.existing().collect();
        assert_eq!(kept, [&a, &b]);
    }
}
