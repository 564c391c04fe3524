//! The async task layer between the front ends (app, CLI) and the wire layer: workflows that take
//! several calls (upload → index → poll, search by views), cancellation, progress reporting.
//!
//! The app talks to it through [`Backend`]: [`Command`]s in, [`Event`]s out (see DESIGN.md). No UI
//! toolkit here, and no `service`: the local workspace comes in through [`LocalWorkspaceLauncher`].

pub mod atomic_write;
pub mod backend;
pub mod command;
pub mod event;
pub mod file_picker;
pub mod job;
mod job_runner;
pub mod job_store;
pub mod local_workspace;
mod pmi_runner;
pub mod poll;
pub mod search_flow;
mod search_runner;
pub mod secrets;
pub mod service_choice;
pub mod thumbnails;
pub mod view_search;
pub mod wording;

pub use backend::{Backend, BackendParts, DEFAULT_UPLOAD_SLOTS, RepaintFn};
pub use command::Command;
pub use event::{Event, NoticeLevel, SessionInfo};
pub use file_picker::{FilePicker, NativeFilePicker, PreparedFilePicker};
pub use job::{Job, JobId, JobPhase, JobRole, UploadSpec};
pub use local_workspace::{
    LocalWorkspaceLauncher, OpenedWorkspace, RunningWorkspace, WorkspaceError, WorkspaceProgressFn,
};
pub use secrets::{KeyringStore, MemoryStore, SecretError, SecretStore};
pub use service_choice::ServiceChoice;
