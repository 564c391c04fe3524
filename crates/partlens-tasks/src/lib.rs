//! The async task layer between the front ends (app, CLI) and the wire layer: workflows that take
//! several calls (upload → index → poll, search by views), cancellation, progress reporting.
//!
//! The app talks to it through [`Backend`]: [`Command`]s in, [`Event`]s out (see DESIGN.md). No UI
//! toolkit here, and no `service`: the local workspace comes in through [`LocalWorkspaceLauncher`].
//!
//! Where things live: [`backend`] (shared state, dispatcher), [`session`] (connect, log in, 401s),
//! [`jobs`] (uploads and indexing), [`search`] (searches and the result list), [`records`] (a file's
//! record, attributes, delete), [`duplicates`] (duplicate parts with their files' records),
//! [`images`] and [`thumbnails`] (pictures), [`pmi`] (drawing data and feedback), [`history`]
//! (searches kept and saved), [`models`] (3D models read for the preview),
//! [`sync`] (library sync: a folder kept in step with the company database),
//! [`wording`] (the sentences users read when something fails).

pub mod atomic_write;
pub mod backend;
mod callbacks;
pub mod command;
pub mod data_dir;
pub mod duplicates;
pub mod event;
pub mod file_picker;
pub mod history;
mod images;
pub mod jobs;
mod library;
pub mod local_workspace;
pub mod models;
mod pmi;
pub mod reachability;
mod records;
pub mod samples;
pub mod search;
pub mod secrets;
pub mod service_choice;
mod session;
pub mod sync;
pub mod thumbnails;
pub mod wording;

// The paths the command line and the wire tests import these workflows by.
pub use jobs::poll;
pub use search::search_flow;

pub use backend::{Backend, BackendParts, DEFAULT_UPLOAD_SLOTS, RepaintFn};
pub use command::Command;
pub use event::{Event, NoticeLevel, SessionInfo};
pub use file_picker::{FilePicker, PreparedFilePicker};
pub use jobs::job::{Job, JobId, JobPhase, JobRole, UploadSpec};
pub use local_workspace::{
    LocalWorkspaceLauncher, NoLocalWorkspace, OpenedWorkspace, RunningWorkspace, StoredContent,
    StoredFile, WorkspaceError, WorkspaceProgressFn,
};
pub use secrets::{MemoryStore, SecretError, SecretStore};
pub use service_choice::ServiceChoice;
