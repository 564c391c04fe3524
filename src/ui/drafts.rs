//! Unsaved work kept per file: the attribute editor's drafts and the feedback forms. The app persists
//! a [`DraftsByFile`] with eframe's storage, so edits survive leaving a view, a failed save, a 401 and
//! closing the app.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use partlens_api::FileUid;

/// A draft that belongs to one file.
pub trait FileDraft {
    /// The file the draft is about.
    fn file_uid(&self) -> &FileUid;
}

/// Drafts by file (keyed by the canonical UID, so case and braces do not make two drafts of one
/// file). Serialised as `{"by_file": {uid: draft}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DraftsByFile<T> {
    by_file: BTreeMap<String, T>,
}

impl<T> Default for DraftsByFile<T> {
    fn default() -> Self {
        Self {
            by_file: BTreeMap::new(),
        }
    }
}

impl<T: FileDraft> DraftsByFile<T> {
    /// The draft of a file, if one is kept.
    pub fn get(&self, uid: &FileUid) -> Option<&T> {
        self.by_file.get(&uid.canonical())
    }

    /// Keeps a draft (replacing the file's previous one).
    pub fn put(&mut self, draft: T) {
        self.by_file.insert(draft.file_uid().canonical(), draft);
    }

    /// Drops the draft of a file.
    pub fn remove(&mut self, uid: &FileUid) -> Option<T> {
        self.by_file.remove(&uid.canonical())
    }

    /// Number of drafts kept.
    pub fn len(&self) -> usize {
        self.by_file.len()
    }

    /// True when no draft is kept.
    pub fn is_empty(&self) -> bool {
        self.by_file.is_empty()
    }

    /// Every draft kept, by file.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.by_file.values()
    }
}
