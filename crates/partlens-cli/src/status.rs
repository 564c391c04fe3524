//! `status UID [--wait]`, and the waiting for indexing that `upload --wait` shares with it.

use std::time::Duration;

use clap::Args;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::error::CliError;
use super::output::print_json;
use super::session::{Session, poll_policy};
use partlens_api::{ApiClient, FileStatus, FileUid};
use partlens_tasks::poll::{WaitOutcome, wait_for_indexing};

/// The long help of `status` (shown by `--help`).
pub const STATUS_HELP: &str = "Show the indexing state of an uploaded file (GET /api/FileStatus).\n\n\
Prints {\"uid\": \"...\", \"state\": \"in_progress|completed|failed|unknown\", \"indexed_at\": \"...|null\"}; \
indexed_at is the service's ISO 8601 index timestamp once completed, null otherwise. A failed file \
also gets \"reason\": why, in the service's words, when the service says (X-Failure-Reason).\n\n\
With --wait it polls every 2 s, backing off to 5 s, until the state is completed, failed or unknown, \
then prints the final state; it exits with status 1 (after printing) unless indexing completed.";

/// Arguments of `status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The file's UID (a GUID).
    pub uid: String,
    /// Poll until indexing ends; exit 1 when it failed, the file is unknown, or the deadline passed.
    #[arg(long)]
    pub wait: bool,
}

/// The JSON line of `status`.
#[derive(Debug, Serialize)]
struct StatusLine<'a> {
    uid: &'a str,
    state: &'static str,
    indexed_at: Option<&'a str>,
    /// Why indexing failed, in the service's words (only for a failed file whose service says).
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// How a wait for indexing ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexingEnd {
    /// The last state the service reported.
    pub status: FileStatus,
    /// Set when the deadline passed while the file was still in progress: how long was waited.
    pub timed_out_after: Option<Duration>,
}

impl IndexingEnd {
    /// The error that makes the command exit 1 when indexing did not complete.
    pub fn failure(&self, uid: &FileUid) -> Option<CliError> {
        if let Some(waited) = self.timed_out_after {
            return Some(CliError::Indexing(format!(
                "file {uid} was still being indexed after {}s; check again later with `partlens-cli status {uid} --wait`",
                waited.as_secs()
            )));
        }
        match &self.status {
            FileStatus::Completed { .. } => None,
            FileStatus::Failed { reason: None } => Some(CliError::Indexing(format!(
                "indexing of file {uid} failed (HTTP 422); upload the file again"
            ))),
            FileStatus::Failed {
                reason: Some(reason),
            } => Some(CliError::Indexing(format!(
                "indexing of file {uid} failed (HTTP 422): {reason}; fix or replace the file and upload it again"
            ))),
            FileStatus::Unknown => Some(CliError::Indexing(format!(
                "file {uid} is unknown to the service (HTTP 404): never uploaded, or deleted"
            ))),
            FileStatus::InProgress => Some(CliError::Indexing(format!(
                "file {uid} is still being indexed"
            ))),
        }
    }
}

/// Polls FileStatus until indexing of `uid` (a file of `size_bytes`) ends or the deadline passes.
pub async fn wait_until_indexed(
    client: &ApiClient,
    uid: &FileUid,
    size_bytes: u64,
) -> Result<IndexingEnd, CliError> {
    let policy = poll_policy();
    // Nothing cancels a CLI wait but the deadline (Ctrl-C ends the process).
    let cancel = CancellationToken::new();
    let mut last = FileStatus::InProgress;
    let outcome = wait_for_indexing(client, uid, size_bytes, &policy, &cancel, |status, _| {
        last = status.clone();
    })
    .await?;
    match outcome {
        WaitOutcome::Finished(status) => Ok(IndexingEnd {
            status,
            timed_out_after: None,
        }),
        WaitOutcome::TimedOut { waited } => Ok(IndexingEnd {
            status: last,
            timed_out_after: Some(waited),
        }),
        WaitOutcome::Cancelled => Err(CliError::Local("the wait was cancelled".into())),
    }
}

/// Runs `status`.
pub async fn run(args: StatusArgs, session: &mut Session) -> Result<(), CliError> {
    let uid = FileUid::parse(&args.uid)?;
    let client = session.client().await?;
    let end = if args.wait {
        wait_until_indexed(client, &uid, 0).await?
    } else {
        IndexingEnd {
            status: client.file_status(&uid).await?,
            timed_out_after: None,
        }
    };
    let indexed_at = match &end.status {
        FileStatus::Completed { indexed_at } => Some(indexed_at.as_str()),
        _ => None,
    };
    let reason = match &end.status {
        FileStatus::Failed { reason } => reason.as_deref(),
        _ => None,
    };
    print_json(&StatusLine {
        uid: uid.as_str(),
        state: end.status.name(),
        indexed_at,
        reason,
    })?;
    match end.failure(&uid) {
        Some(error) if args.wait => Err(error),
        _ => Ok(()),
    }
}
