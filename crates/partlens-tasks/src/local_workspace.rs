//! The seam between the task layer and the local workspace: `tasks` does not know the local service;
//! `main.rs` (and tests) hand the backend a [`LocalWorkspaceLauncher`] that starts it, makes sure the OS
//! user has an account, logs in, and hands back the workspace's sample library (its parts and its
//! record), which the task layer adds after the login ([`crate::samples`]). The opened
//! workspace also answers where its store keeps a file's content ([`StoredContent`]), which the 3D
//! preview reads models from (the interface has no call that returns a file's bytes).

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::samples::record::SampleLibrary;
use partlens_api::{ApiClient, Credentials, FileUid};

/// Reports what opening the workspace is doing ("Starting the local service…").
pub type WorkspaceProgressFn = Arc<dyn Fn(String) + Send + Sync>;

/// Why the local workspace could not be opened, as a sentence for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WorkspaceError(pub String);

/// A running local service; dropping it without [`RunningWorkspace::shutdown`] leaves the shutdown to
/// the runtime.
pub trait RunningWorkspace: Send + Sync {
    /// Stops the service gracefully (unfinished indexing stays queued in its store).
    fn shutdown(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// An opened local workspace: a logged-in client of the in-process service.
pub struct OpenedWorkspace {
    /// A client of the local service, already logged in.
    pub client: ApiClient,
    /// The credentials of the OS user's account, kept so a 401 logs in again without a prompt. They
    /// only ever reach the service on 127.0.0.1.
    pub credentials: Credentials,
    /// The company shown in the top bar.
    pub company: String,
    /// The running service.
    pub service: Box<dyn RunningWorkspace>,
    /// Where the service's store keeps the content of its files.
    pub content: Arc<dyn StoredContent>,
    /// The workspace's sample library (none when no library was found): added after the login,
    /// once per workspace, so the app shows who is logged in while it goes up.
    pub samples: Option<SampleLibrary>,
}

/// A file's content as the local workspace's store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFile {
    /// The stored bytes on this computer.
    pub path: PathBuf,
    /// The file's extension as the service records it (lower-case with the dot: `.stl`).
    pub extension: String,
    /// The stored path (`FileName`), for messages.
    pub stored_path: String,
}

/// Where the local workspace keeps the content of its files, by UID.
pub trait StoredContent: Send + Sync {
    /// The stored content of file `uid`, when the workspace has that file and its bytes.
    fn stored_file(&self, uid: &FileUid) -> BoxFuture<'static, Option<StoredFile>>;
}

impl std::fmt::Debug for OpenedWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedWorkspace")
            .field("base_url", &self.client.base_url().as_str())
            .field("user", &self.credentials.username)
            .field("company", &self.company)
            .finish_non_exhaustive()
    }
}

/// Opens the local workspace.
pub trait LocalWorkspaceLauncher: Send + Sync {
    /// Starts the local service and logs the OS user in; `progress` hears what is happening. The
    /// workspace's samples come back as [`OpenedWorkspace::samples`].
    fn open(
        &self,
        progress: WorkspaceProgressFn,
    ) -> BoxFuture<'static, Result<OpenedWorkspace, WorkspaceError>>;
}

/// A launcher that never opens a local workspace (remote-only front ends and tests): opening fails
/// with its sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoLocalWorkspace(pub String);

impl LocalWorkspaceLauncher for NoLocalWorkspace {
    fn open(
        &self,
        _progress: WorkspaceProgressFn,
    ) -> BoxFuture<'static, Result<OpenedWorkspace, WorkspaceError>> {
        let reason = self.0.clone();
        Box::pin(async move { Err(WorkspaceError(reason)) })
    }
}
