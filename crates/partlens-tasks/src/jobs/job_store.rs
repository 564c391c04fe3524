//! The job list on disk (`jobs.json` in the app's data directory), so jobs survive a restart of the
//! app: unfinished uploads start again and indexing jobs resume polling.
//!
//! The file is small (one entry a job) and rewritten whole, atomically (write a temporary file, then
//! rename), whenever a job changes phase; upload progress alone is not saved.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::job::Job;

/// The file name of the job list inside the data directory.
pub const JOBS_FILE_NAME: &str = "jobs.json";

/// Why the job list could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum JobStoreError {
    /// The file could not be read or written.
    #[error("cannot {action} the job list {path}: {source}")]
    Io {
        /// "read" or "write".
        action: &'static str,
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a job list.
    #[error("the job list {path} could not be read: {message}")]
    Format {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
}

#[derive(Serialize, Deserialize)]
struct JobsFile {
    version: u32,
    jobs: Vec<Job>,
}

/// The job list file of one data directory.
#[derive(Clone, Debug)]
pub struct JobStore {
    path: PathBuf,
}

impl JobStore {
    /// The job list of the data directory `data_dir` (the file need not exist yet).
    pub fn new(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join(JOBS_FILE_NAME),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the saved jobs; no file means no jobs.
    pub fn load(&self) -> Result<Vec<Job>, JobStoreError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(JobStoreError::Io {
                    action: "read",
                    path: self.path.display().to_string(),
                    source,
                });
            }
        };
        let file: JobsFile =
            serde_json::from_str(&text).map_err(|error| JobStoreError::Format {
                path: self.path.display().to_string(),
                message: error.to_string(),
            })?;
        Ok(file.jobs)
    }

    /// Writes the whole list, atomically.
    pub fn save(&self, jobs: &[Job]) -> Result<(), JobStoreError> {
        let io_error = |source| JobStoreError::Io {
            action: "write",
            path: self.path.display().to_string(),
            source,
        };
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(io_error)?;
        }
        let text = serde_json::to_string_pretty(&JobsFile {
            version: 1,
            jobs: jobs.to_vec(),
        })
        .map_err(|error| JobStoreError::Format {
            path: self.path.display().to_string(),
            message: error.to_string(),
        })?;
        let temporary = self.path.with_extension("json.tmp");
        std::fs::write(&temporary, text).map_err(io_error)?;
        std::fs::rename(&temporary, &self.path).map_err(io_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::job::{JobPhase, JobRole, UploadSpec};

    #[test]
    fn saved_jobs_load_back_and_a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let store = JobStore::new(&dir.path().join("nested"));
        assert!(store.load().unwrap().is_empty());
        let mut job = Job::new(
            UploadSpec {
                path: "/tmp/a.png".into(),
                role: JobRole::SearchInput,
                index_async: true,
            },
            "local".into(),
        );
        job.phase = JobPhase::Failed {
            reason: "bad".into(),
        };
        store.save(std::slice::from_ref(&job)).unwrap();
        assert_eq!(store.load().unwrap(), vec![job]);
    }

    #[test]
    fn a_damaged_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let store = JobStore::new(dir.path());
        std::fs::write(store.path(), "{not json").unwrap();
        assert!(matches!(store.load(), Err(JobStoreError::Format { .. })));
    }
}
