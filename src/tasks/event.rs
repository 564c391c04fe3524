//! What the backend tells the front end. Plain data; every Event is followed by a repaint request.

use std::path::PathBuf;

use super::job::{Job, JobId};
use super::service_choice::ServiceChoice;

/// Who is logged in where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    /// The service.
    pub service: ServiceChoice,
    /// The base address the session talks to (for the local workspace, its loopback address).
    pub address: String,
    /// The user name.
    pub user: String,
    /// The company, when the service says (the local workspace does; the interface has no call for it).
    pub company: Option<String>,
}

/// How a message to the user weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeLevel {
    /// Good to know.
    Info,
    /// Something did not work as the user wanted; the app carries on.
    Warning,
    /// Something failed.
    Error,
}

/// A message from the backend.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Opening a service is under way ("Starting the local service…").
    Connecting {
        /// What is happening, in words.
        detail: String,
    },
    /// Logged in; parked commands run again.
    LoggedIn(SessionInfo),
    /// The service needs a login (first start of a remote service, or a 401 at any time). What the
    /// user was doing is kept and runs again after the login.
    LoginRequired {
        /// The service to log in to.
        service: ServiceChoice,
        /// The user name to prefill.
        user: Option<String>,
        /// Why, when it is not the first login ("Your session has expired.").
        reason: Option<String>,
    },
    /// A login attempt failed; the form stays open.
    LoginFailed {
        /// What happened and what to do.
        message: String,
    },
    /// The service could not be opened at all (local workspace failed to start, bad address).
    ConnectFailed {
        /// What happened and what to do.
        message: String,
    },
    /// Logged out.
    LoggedOut,
    /// A message for the user.
    Notice {
        /// How it weighs.
        level: NoticeLevel,
        /// The sentence.
        message: String,
    },
    /// The jobs saved by an earlier run.
    JobsRestored(Vec<Job>),
    /// A job was added or changed.
    JobUpdated(Job),
    /// A job was taken off the list.
    JobRemoved(JobId),
    /// The user chose files in the dialog (empty when cancelled).
    FilesPicked(Vec<PathBuf>),
}
