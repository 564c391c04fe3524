//! What the front end asks the backend to do. Plain data: views push Commands, the app hands them to
//! the [`Backend`](super::backend::Backend), which answers with [`Event`](super::event::Event)s.

use super::job::{JobId, UploadSpec};
use super::poll::PollPolicy;
use super::service_choice::ServiceChoice;

/// A request to the backend.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Use this service: open the local workspace (logged in without a prompt) or a remote service
    /// (with the remembered token of `user`, or by asking for a login).
    Connect {
        /// The service.
        service: ServiceChoice,
        /// The last user of a remote service: their remembered token is looked up, and the login
        /// form is prefilled with the name.
        user: Option<String>,
    },
    /// Log in to a remote service.
    LogIn {
        /// The service (its address and client id as typed in the login form).
        service: ServiceChoice,
        /// The user name.
        user: String,
        /// The plain password; only its digest is sent and it is never stored.
        password: String,
        /// Keep the token in the OS keyring.
        remember: bool,
    },
    /// Forget the session and any remembered token of the current user.
    LogOut,
    /// Ask the user for files with the native dialog; answers `Event::FilesPicked`.
    PickFiles,
    /// Upload these files, one job each.
    Upload(Vec<UploadSpec>),
    /// Stop a job that is queued, uploading or being indexed.
    CancelJob(JobId),
    /// Start a failed or cancelled job again (the file is uploaded again).
    RetryJob(JobId),
    /// Take a finished job off the list.
    RemoveJob(JobId),
    /// Take every finished job off the list.
    ClearFinishedJobs,
    /// Poll indexing with this policy from now on.
    SetPollPolicy(PollPolicy),
    /// Carry on with an unfinished job: upload it, or poll its indexing when the upload went through
    /// (after a restart, or after a login that a 401 asked for).
    ResumeJob(JobId),
}

impl std::fmt::Display for Command {
    /// A short description for logs (never the password).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Connect { service, .. } => write!(f, "connect to {}", service.label()),
            Self::LogIn { service, user, .. } => {
                write!(f, "log in to {} as {user}", service.label())
            }
            Self::LogOut => f.write_str("log out"),
            Self::PickFiles => f.write_str("pick files"),
            Self::Upload(specs) => write!(f, "upload {} files", specs.len()),
            Self::CancelJob(id) => write!(f, "cancel job {id}"),
            Self::RetryJob(id) => write!(f, "retry job {id}"),
            Self::RemoveJob(id) => write!(f, "remove job {id}"),
            Self::ClearFinishedJobs => f.write_str("clear finished jobs"),
            Self::SetPollPolicy(_) => f.write_str("set poll policy"),
            Self::ResumeJob(id) => write!(f, "resume job {id}"),
        }
    }
}
