//! Upload jobs: one file going up, then being indexed. Plain data (serde), so the list is saved to
//! disk and restored when the app starts again, and tests can inspect it.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use partlens_api::{Attribute, FileUid, UploadRole};

/// Identifies a job for the whole of its life (and across restarts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(pub uuid::Uuid);

impl JobId {
    /// A new, unique id.
    pub fn new() -> Self {
        Self(uuid::Uuid::new_v4())
    }
}

impl Default for JobId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What the uploaded file becomes on the service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobRole {
    /// A temporary file to search by.
    SearchInput,
    /// A file of the company database, stored at a full path with attributes.
    Database {
        /// `<folder>/<name>.<ext>`.
        stored_path: String,
        /// Attributes sent with the upload.
        attributes: Vec<Attribute>,
        /// The file category, for companies that use categories.
        category_id: Option<i64>,
        /// Also index an assembly's components (`indexAssemblyComponents=true`); jobs saved
        /// before this existed read as false.
        #[serde(default)]
        index_components: bool,
    },
}

impl JobRole {
    /// The wire role of the upload.
    pub fn upload_role(&self) -> UploadRole {
        match self {
            Self::SearchInput => UploadRole::SearchInput,
            Self::Database {
                stored_path,
                attributes,
                ..
            } => UploadRole::Database {
                stored_path: stored_path.clone(),
                attributes: attributes.clone(),
            },
        }
    }

    /// Whether to ask for the components of an assembly to be indexed too.
    pub fn index_components(&self) -> bool {
        matches!(
            self,
            Self::Database {
                index_components: true,
                ..
            }
        )
    }

    /// The category id to send, if any.
    pub fn category_id(&self) -> Option<i64> {
        match self {
            Self::SearchInput => None,
            Self::Database { category_id, .. } => *category_id,
        }
    }
}

/// Where a job is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobPhase {
    /// Waiting for an upload slot (or for a login).
    Queued,
    /// The bytes are going up.
    Uploading {
        /// Bytes sent so far.
        sent: u64,
        /// Bytes in all.
        total: u64,
    },
    /// Uploaded; the service is indexing it.
    Indexing {
        /// When indexing started (the upload finished).
        since: DateTime<Utc>,
    },
    /// Indexed and searchable.
    Done {
        /// The file's UID.
        uid: FileUid,
        /// The service's index timestamp.
        indexed_at: String,
    },
    /// Upload or indexing failed.
    Failed {
        /// What happened and what to do, in words.
        reason: String,
    },
    /// The user cancelled.
    Cancelled,
}

impl JobPhase {
    /// True once nothing more will happen without the user (done, failed, cancelled).
    pub fn is_finished(&self) -> bool {
        matches!(
            self,
            Self::Done { .. } | Self::Failed { .. } | Self::Cancelled
        )
    }

    /// The phase's name in the user's words, without details.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Queued => "Queued",
            Self::Uploading { .. } => "Uploading",
            Self::Indexing { .. } => "Indexing",
            Self::Done { .. } => "Done",
            Self::Failed { .. } => "Failed",
            Self::Cancelled => "Cancelled",
        }
    }

    /// Upload progress in percent (0–100), while uploading.
    pub fn upload_percent(&self) -> Option<u8> {
        match self {
            Self::Uploading { sent, total } if *total > 0 => {
                Some(((*sent).min(*total) * 100 / *total) as u8)
            }
            Self::Uploading { .. } => Some(0),
            _ => None,
        }
    }

    /// True when two phases differ in more than upload progress (worth saving to disk).
    pub fn differs_in_kind(&self, other: &Self) -> bool {
        std::mem::discriminant(self) != std::mem::discriminant(other)
    }
}

/// One upload: a file, what it becomes, and where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// The job's id.
    pub id: JobId,
    /// The file on disk.
    pub path: PathBuf,
    /// Search input or company-database file.
    pub role: JobRole,
    /// Ask the service to index asynchronously (search inputs; database files are indexed as they
    /// upload).
    pub index_async: bool,
    /// Where the job is.
    pub phase: JobPhase,
    /// The UID the service gave the upload, once known.
    pub uid: Option<FileUid>,
    /// The file size when the job started.
    pub size: u64,
    /// When the job was created.
    pub created: DateTime<Utc>,
    /// The key of the service the job belongs to (see `ServiceChoice::key`).
    pub service: String,
    /// Set while the job waits for the user to log in again.
    #[serde(default)]
    pub waiting_for_login: bool,
    /// Set while the job waits for the service to answer again.
    #[serde(default)]
    pub waiting_for_service: bool,
}

impl Job {
    /// A new queued job.
    pub fn new(spec: UploadSpec, service: String) -> Self {
        Self {
            id: JobId::new(),
            path: spec.path,
            role: spec.role,
            index_async: spec.index_async,
            phase: JobPhase::Queued,
            uid: None,
            size: 0,
            created: Utc::now(),
            service,
            waiting_for_login: false,
            waiting_for_service: false,
        }
    }

    /// The file name shown for the job.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string())
    }

    /// What a restarted app does with this job: nothing for finished jobs, poll again for a job whose
    /// upload went through, upload again for the rest.
    pub fn resume_step(&self) -> ResumeStep {
        match (&self.phase, &self.uid) {
            (phase, _) if phase.is_finished() => ResumeStep::Nothing,
            (JobPhase::Indexing { .. }, Some(_)) => ResumeStep::Poll,
            _ => ResumeStep::Upload,
        }
    }
}

/// What to do with an unfinished job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResumeStep {
    /// The job is finished.
    Nothing,
    /// Upload the file (again, from the start).
    Upload,
    /// The file is on the service: poll its indexing state.
    Poll,
}

/// What the user asked to upload: one file and what it becomes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadSpec {
    /// The file.
    pub path: PathBuf,
    /// Search input or company-database file.
    pub role: JobRole,
    /// Index asynchronously.
    pub index_async: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(phase: JobPhase, uid: Option<&str>) -> Job {
        let mut job = Job::new(
            UploadSpec {
                path: PathBuf::from("/parts/flange.png"),
                role: JobRole::SearchInput,
                index_async: true,
            },
            "local".into(),
        );
        job.phase = phase;
        job.uid = uid.map(FileUid::from_reply);
        job
    }

    #[test]
    fn restart_polls_uploaded_files_and_uploads_the_rest_again() {
        let since = Utc::now();
        assert_eq!(
            job(JobPhase::Queued, None).resume_step(),
            ResumeStep::Upload
        );
        assert_eq!(
            job(JobPhase::Uploading { sent: 5, total: 9 }, None).resume_step(),
            ResumeStep::Upload
        );
        assert_eq!(
            job(JobPhase::Indexing { since }, Some("u")).resume_step(),
            ResumeStep::Poll
        );
        assert_eq!(
            job(JobPhase::Indexing { since }, None).resume_step(),
            ResumeStep::Upload
        );
        for finished in [
            JobPhase::Cancelled,
            JobPhase::Failed { reason: "x".into() },
            JobPhase::Done {
                uid: FileUid::from_reply("u"),
                indexed_at: "t".into(),
            },
        ] {
            assert_eq!(job(finished, Some("u")).resume_step(), ResumeStep::Nothing);
        }
    }

    #[test]
    fn upload_percent_is_bounded() {
        assert_eq!(
            JobPhase::Uploading {
                sent: 50,
                total: 200
            }
            .upload_percent(),
            Some(25)
        );
        assert_eq!(
            JobPhase::Uploading {
                sent: 300,
                total: 200
            }
            .upload_percent(),
            Some(100)
        );
        assert_eq!(
            JobPhase::Uploading { sent: 0, total: 0 }.upload_percent(),
            Some(0)
        );
        assert_eq!(JobPhase::Queued.upload_percent(), None);
    }

    #[test]
    fn progress_alone_is_not_a_change_of_kind() {
        let a = JobPhase::Uploading { sent: 1, total: 9 };
        let b = JobPhase::Uploading { sent: 2, total: 9 };
        assert!(!a.differs_in_kind(&b));
        assert!(a.differs_in_kind(&JobPhase::Queued));
    }

    #[test]
    fn jobs_round_trip_through_json() {
        let original = Job {
            role: JobRole::Database {
                stored_path: "Samples/flange.png".into(),
                attributes: vec![Attribute::parse("material=steel|stainless steel").unwrap()],
                category_id: Some(3),
                index_components: true,
            },
            ..job(JobPhase::Indexing { since: Utc::now() }, Some("abc"))
        };
        let text = serde_json::to_string(&original).unwrap();
        let back: Job = serde_json::from_str(&text).unwrap();
        assert_eq!(back, original);
    }
}
