//! The sync record: what went up from one folder to one prefix of one service, kept in the data
//! folder (`sync/<key>.json`, `sync/<key>.journal`, `sync/<key>.lock`).
//!
//! The record says, for each file of the folder that went up, its content hash, the UID the service
//! gave it and the attributes sent with it; and, for a file on its way up, the intent (hash, the UID
//! it will have, whether that UID is new). During a run every change is appended to the journal as
//! one JSON line and synced to disk before the run goes on; a crash can tear only the last line,
//! which is then ignored. At the start and end of a run the journal is folded into the record file,
//! which is written whole to a temporary file and renamed over the old one, and the journal is
//! emptied (replaying a journal over a record that already holds it changes nothing). Writing the
//! record whole after every file would cost the square of the folder's size.
//!
//! One run at a time holds a record: the lock file is locked by the operating system for the run
//! (released even when the process dies), so the app and `partlens-cli` never write one record at
//! the same time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha1::Digest as _;
use tokio::io::AsyncWriteExt as _;

use super::report::SyncSummary;
use super::{SyncError, SyncSetup};
use crate::atomic_write::write_atomically;
use partlens_api::FileUid;

/// The folder of the data directory that holds the sync records.
pub const SYNC_DIR_NAME: &str = "sync";

/// The version of the record's format.
const RECORD_VERSION: u32 = 1;

/// Identifies one sync: a service, a folder and a prefix (the same folder synced to two services or
/// two prefixes has two records).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SyncKey(pub String);

impl SyncKey {
    /// The key of `folder` (absolute) synced to `prefix` (normalised) of the service `service_key`.
    pub fn new(service_key: &str, folder: &Path, prefix: &str) -> Self {
        let mut hasher = sha1::Sha1::new();
        for part in [service_key, &folder.to_string_lossy(), prefix] {
            hasher.update(part.as_bytes());
            hasher.update([0u8]);
        }
        Self(hex::encode(hasher.finalize())[..20].to_owned())
    }
}

impl std::fmt::Display for SyncKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who started a run: the app resumes its own unfinished runs when it starts again, never those of
/// a script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SyncOrigin {
    /// The desktop app.
    #[default]
    App,
    /// `partlens-cli sync`.
    Cli,
}

/// Where the last run of a record is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunStatus {
    /// Running, or stopped without saying so (the program closed or crashed): carries on at the
    /// next start.
    #[default]
    Running,
    /// Paused by the user: carries on when the user says.
    Paused,
    /// Stopped by a dropped connection or an ended session: carries on at the next start or login.
    Interrupted,
    /// Ran to the end.
    Finished,
}

/// A file of the folder that went up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncedFile {
    /// The SHA-1 of the content that went up.
    pub hash: String,
    /// Its UID on the service.
    pub uid: FileUid,
    /// The attributes sent (wire strings), or `None` when no CSV row gave it any (the service keeps
    /// what it has).
    pub attributes: Option<Vec<String>>,
}

/// A file on its way up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingUpload {
    /// The SHA-1 of the content going up.
    pub hash: String,
    /// The UID it is uploaded with (new files) or had before (changed files).
    pub uid: FileUid,
    /// True when the UID was chosen for this upload: finding it on the service proves the upload
    /// went through.
    pub new_uid: bool,
    /// The attributes sent with it.
    pub attributes: Option<Vec<String>>,
}

/// Everything the record file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyncRecord {
    /// The format's version.
    pub version: u32,
    /// The service's key.
    pub service: String,
    /// The setup of the last run (absolute folder, normalised prefix).
    pub setup: SyncSetup,
    /// Who started the last run.
    #[serde(default)]
    pub origin: SyncOrigin,
    /// Where the last run is.
    #[serde(default)]
    pub status: RunStatus,
    /// The files that went up, by their path in the folder.
    #[serde(default)]
    pub files: BTreeMap<String, SyncedFile>,
    /// The files on their way up, by their path in the folder.
    #[serde(default)]
    pub pending: BTreeMap<String, PendingUpload>,
    /// What the last run that ended did.
    #[serde(default)]
    pub last_summary: Option<SyncSummary>,
    /// When the record was last written whole.
    pub updated: DateTime<Utc>,
}

impl SyncRecord {
    /// An empty record for a first run.
    pub fn new(service: &str, setup: SyncSetup, origin: SyncOrigin) -> Self {
        Self {
            version: RECORD_VERSION,
            service: service.to_owned(),
            setup,
            origin,
            status: RunStatus::Running,
            files: BTreeMap::new(),
            pending: BTreeMap::new(),
            last_summary: None,
            updated: Utc::now(),
        }
    }

    fn apply(&mut self, entry: JournalEntry) {
        match entry {
            JournalEntry::Pending { path, upload } => {
                self.pending.insert(path, upload);
            }
            JournalEntry::Done { path, file } => {
                self.pending.remove(&path);
                self.files.insert(path, file);
            }
            JournalEntry::Dropped { path } => {
                self.pending.remove(&path);
            }
            JournalEntry::Removed { path } => {
                self.pending.remove(&path);
                self.files.remove(&path);
            }
        }
    }
}

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum JournalEntry {
    /// A file is about to go up.
    Pending { path: String, upload: PendingUpload },
    /// A file went up (or its attributes were set, or an earlier upload was found on the service).
    Done { path: String, file: SyncedFile },
    /// An upload failed for good; nothing of it is on the service.
    Dropped { path: String },
    /// A file left the folder and the record (deleted from the service).
    Removed { path: String },
}

/// The files of one record.
#[derive(Clone, Debug)]
struct RecordPaths {
    record: PathBuf,
    journal: PathBuf,
    lock: PathBuf,
}

impl RecordPaths {
    fn new(sync_dir: &Path, key: &SyncKey) -> Self {
        Self {
            record: sync_dir.join(format!("{key}.json")),
            journal: sync_dir.join(format!("{key}.journal")),
            lock: sync_dir.join(format!("{key}.lock")),
        }
    }
}

fn state_error(path: &Path, error: impl std::fmt::Display) -> SyncError {
    SyncError::State {
        path: path.display().to_string(),
        message: error.to_string(),
    }
}

/// Reads a record and replays its journal; `None` when there is none.
async fn read_record(paths: &RecordPaths) -> Result<Option<SyncRecord>, SyncError> {
    let mut record = match tokio::fs::read(&paths.record).await {
        Ok(bytes) => Some(
            serde_json::from_slice::<SyncRecord>(&bytes)
                .map_err(|error| state_error(&paths.record, error))?,
        ),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(state_error(&paths.record, error)),
    };
    let journal = match tokio::fs::read_to_string(&paths.journal).await {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(state_error(&paths.journal, error)),
    };
    if let Some(record) = record.as_mut() {
        for line in journal.lines().filter(|line| !line.trim().is_empty()) {
            match serde_json::from_str::<JournalEntry>(line) {
                Ok(entry) => record.apply(entry),
                // A line torn by a crash; the work it stood for is done again.
                Err(error) => tracing::warn!(
                    "a line of the sync journal {} is left out: {error}",
                    paths.journal.display()
                ),
            }
        }
    }
    Ok(record)
}

/// Reads the record of a sync without taking it (previews, the app's list of syncs).
pub async fn load_record(sync_dir: &Path, key: &SyncKey) -> Result<Option<SyncRecord>, SyncError> {
    read_record(&RecordPaths::new(sync_dir, key)).await
}

/// Every record of the data folder that can be read, with its key.
pub async fn list_records(sync_dir: &Path) -> Vec<(SyncKey, SyncRecord)> {
    let Ok(mut entries) = tokio::fs::read_dir(sync_dir).await else {
        return Vec::new();
    };
    let mut records = Vec::new();
    while let Ok(Some(entry)) = entries.next_entry().await {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(key) = name.strip_suffix(".json") else {
            continue;
        };
        let key = SyncKey(key.to_owned());
        match load_record(sync_dir, &key).await {
            Ok(Some(record)) => records.push((key, record)),
            Ok(None) => {}
            Err(error) => tracing::warn!("{error}"),
        }
    }
    records.sort_by(|a, b| a.0.cmp(&b.0));
    records
}

/// A record taken by one run: read, locked, written as the run goes.
#[derive(Debug)]
pub struct SyncStore {
    paths: RecordPaths,
    record: SyncRecord,
    journal: tokio::fs::File,
    /// Holds the operating system's lock for as long as the store lives.
    _lock: std::fs::File,
}

impl SyncStore {
    /// Takes the record of `key` in `sync_dir` (a new one from `fresh` when there is none), or
    /// refuses with [`SyncError::Busy`] when another run holds it.
    pub async fn open(
        sync_dir: &Path,
        key: &SyncKey,
        fresh: impl FnOnce() -> SyncRecord,
    ) -> Result<Self, SyncError> {
        let paths = RecordPaths::new(sync_dir, key);
        tokio::fs::create_dir_all(sync_dir)
            .await
            .map_err(|error| state_error(sync_dir, error))?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&paths.lock)
            .map_err(|error| state_error(&paths.lock, error))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(SyncError::Busy),
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(state_error(&paths.lock, error));
            }
        }
        let record = match read_record(&paths).await? {
            Some(record) => record,
            None => fresh(),
        };
        let journal = tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&paths.journal)
            .await
            .map_err(|error| state_error(&paths.journal, error))?;
        Ok(Self {
            paths,
            record,
            journal,
            _lock: lock,
        })
    }

    /// The record as it is now.
    pub fn record(&self) -> &SyncRecord {
        &self.record
    }

    /// The record, to change what is written whole (setup, status, summary) before [`Self::save`].
    pub fn record_mut(&mut self) -> &mut SyncRecord {
        &mut self.record
    }

    /// Records that `path` is about to go up.
    pub async fn pending(&mut self, path: &str, upload: PendingUpload) -> Result<(), SyncError> {
        self.append(JournalEntry::Pending {
            path: path.to_owned(),
            upload,
        })
        .await
    }

    /// Records that `path` is on the service as `file`.
    pub async fn done(&mut self, path: &str, file: SyncedFile) -> Result<(), SyncError> {
        self.append(JournalEntry::Done {
            path: path.to_owned(),
            file,
        })
        .await
    }

    /// Records that the upload of `path` failed for good.
    pub async fn dropped(&mut self, path: &str) -> Result<(), SyncError> {
        self.append(JournalEntry::Dropped {
            path: path.to_owned(),
        })
        .await
    }

    /// Records that `path` is no longer synced (deleted from the service).
    pub async fn removed(&mut self, path: &str) -> Result<(), SyncError> {
        self.append(JournalEntry::Removed {
            path: path.to_owned(),
        })
        .await
    }

    async fn append(&mut self, entry: JournalEntry) -> Result<(), SyncError> {
        let mut line =
            serde_json::to_vec(&entry).map_err(|error| state_error(&self.paths.journal, error))?;
        line.push(b'\n');
        let written = async {
            self.journal.write_all(&line).await?;
            self.journal.sync_data().await
        }
        .await;
        written.map_err(|error| state_error(&self.paths.journal, error))?;
        self.record.apply(entry);
        Ok(())
    }

    /// Writes the record whole (atomically) and empties the journal.
    pub async fn save(&mut self) -> Result<(), SyncError> {
        self.record.updated = Utc::now();
        self.record.version = RECORD_VERSION;
        let bytes = serde_json::to_vec_pretty(&self.record)
            .map_err(|error| state_error(&self.paths.record, error))?;
        write_atomically(&self.paths.record, &bytes)
            .await
            .map_err(|error| state_error(&self.paths.record, error))?;
        self.journal
            .set_len(0)
            .await
            .map_err(|error| state_error(&self.paths.journal, error))
    }
}

/// The folder of the sync records in a data directory.
pub fn sync_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(SYNC_DIR_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> SyncSetup {
        SyncSetup {
            folder: "/parts".into(),
            prefix: "Library".into(),
            ..SyncSetup::default()
        }
    }

    fn synced(hash: &str) -> SyncedFile {
        SyncedFile {
            hash: hash.into(),
            uid: FileUid::from_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3301"),
            attributes: Some(vec!["weight(kg)=1.2".into()]),
        }
    }

    fn fresh() -> SyncRecord {
        SyncRecord::new("local", setup(), SyncOrigin::App)
    }

    #[tokio::test]
    async fn the_journal_survives_without_a_save_and_a_torn_line_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let key = SyncKey::new("local", Path::new("/parts"), "Library");
        {
            let mut store = SyncStore::open(dir.path(), &key, fresh).await.unwrap();
            store.save().await.unwrap();
            store
                .pending(
                    "a.png",
                    PendingUpload {
                        hash: "1".into(),
                        uid: FileUid::new_random(),
                        new_uid: true,
                        attributes: None,
                    },
                )
                .await
                .unwrap();
            store.done("b.png", synced("2")).await.unwrap();
            // Dropped without a save, as when the program dies.
        }
        let journal = dir.path().join(format!("{key}.journal"));
        let mut text = std::fs::read_to_string(&journal).unwrap();
        text.push_str("{\"op\":\"done\",\"path\":\"c.p");
        std::fs::write(&journal, text).unwrap();

        let record = load_record(dir.path(), &key).await.unwrap().unwrap();
        assert_eq!(record.files.len(), 1);
        assert_eq!(record.files["b.png"], synced("2"));
        assert!(record.pending.contains_key("a.png"));

        let mut store = SyncStore::open(dir.path(), &key, fresh).await.unwrap();
        store.done("a.png", synced("1")).await.unwrap();
        store.removed("b.png").await.unwrap();
        store.save().await.unwrap();
        assert_eq!(std::fs::metadata(&journal).unwrap().len(), 0);
        drop(store);
        let record = load_record(dir.path(), &key).await.unwrap().unwrap();
        assert_eq!(record.files.keys().collect::<Vec<_>>(), ["a.png"]);
        assert!(record.pending.is_empty());
    }

    #[tokio::test]
    async fn one_run_at_a_time_holds_a_record() {
        let dir = tempfile::tempdir().unwrap();
        let key = SyncKey::new("local", Path::new("/parts"), "Library");
        let first = SyncStore::open(dir.path(), &key, fresh).await.unwrap();
        assert_eq!(
            SyncStore::open(dir.path(), &key, fresh).await.unwrap_err(),
            SyncError::Busy
        );
        drop(first);
        assert!(SyncStore::open(dir.path(), &key, fresh).await.is_ok());
    }

    #[tokio::test]
    async fn records_are_listed_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let key = SyncKey::new("local", Path::new("/parts"), "Library");
        let mut store = SyncStore::open(dir.path(), &key, fresh).await.unwrap();
        store.record_mut().status = RunStatus::Paused;
        store.save().await.unwrap();
        drop(store);
        let listed = list_records(dir.path()).await;
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].1.status, RunStatus::Paused);
        std::fs::write(dir.path().join(format!("{key}.json")), "{broken").unwrap();
        assert!(matches!(
            load_record(dir.path(), &key).await,
            Err(SyncError::State { .. })
        ));
        assert!(list_records(dir.path()).await.is_empty());
    }

    #[test]
    fn keys_differ_by_service_folder_and_prefix() {
        let folder = Path::new("/parts");
        let key = SyncKey::new("local", folder, "Library");
        assert_eq!(key, SyncKey::new("local", folder, "Library"));
        assert_ne!(key, SyncKey::new("https://x", folder, "Library"));
        assert_ne!(key, SyncKey::new("local", Path::new("/other"), "Library"));
        assert_ne!(key, SyncKey::new("local", folder, "Other"));
        assert_eq!(key.0.len(), 20);
    }
}
