//! The service away (stopped, unreachable, restarting after an upgrade): said once, with the work
//! that waits for it, instead of once a failed request.
//!
//! Every session's client tells the backend after each request whether the service answered
//! ([`partlens_api::ReachabilityWatch`]). The first request that gets no answer turns the backend
//! to *away*: `Event::ServiceUnreachable` once, uploads and searches that met it wait instead of
//! failing (`Command::ResumeJob` and the search itself are kept), warnings are logged rather than
//! shown, and the service is asked again every few seconds (or at once with
//! `Command::CheckService`, the banner's *Retry*). The first answer turns it back:
//! `Event::ServiceReachable`, and the waiting work runs again.

use std::sync::{Arc, Weak};
use std::time::Duration;

use super::backend::{Backend, Shared};
use super::command::Command;
use super::event::Event;
use partlens_api::{ApiError, FileUid, ReachabilityWatch};

/// The first wait before the service is asked again; it doubles up to [`LONGEST_RECHECK`].
const FIRST_RECHECK: Duration = Duration::from_secs(3);

/// The longest wait between two checks.
const LONGEST_RECHECK: Duration = Duration::from_secs(30);

/// A UID no file has: asking its status is the cheapest request every service answers.
const PROBE_UID: &str = "00000000-0000-4000-8000-000000000000";

/// True for an error that says the service did not answer at all (not an answer that refused).
pub fn is_unreachable(error: &ApiError) -> bool {
    matches!(error, ApiError::Network(_))
}

impl Backend {
    /// The watch given to each session's client. It holds the backend weakly: the backend holds the
    /// client.
    pub(crate) fn reachability_watch(&self) -> ReachabilityWatch {
        let shared: Weak<Shared> = Arc::downgrade(&self.shared);
        Arc::new(move |outcome: Result<(), &ApiError>| {
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let backend = Backend { shared };
            match outcome {
                Ok(()) => backend.service_answered(),
                Err(error) if is_unreachable(error) => backend.service_away(error),
                Err(_) => backend.service_answered(),
            }
        })
    }

    /// True while the service does not answer.
    pub(crate) fn service_is_away(&self) -> bool {
        self.lock().unreachable.is_some()
    }

    /// Keeps `command` to run again once the service answers.
    pub(crate) fn wait_for_service(&self, command: Command) {
        let mut state = self.lock();
        if !state.waiting_for_service.contains(&command) {
            state.waiting_for_service.push(command);
        }
    }

    /// Asks the service at once whether it answers (the banner's *Retry*).
    pub(crate) fn check_service(&self) {
        let Some(client) = self.lock().session().map(|session| session.client.clone()) else {
            return;
        };
        self.spawn(async move {
            // The watch hears the outcome.
            let _ = client.file_status(&FileUid::from_reply(PROBE_UID)).await;
        });
    }

    /// The first request without an answer: says so once and starts asking again.
    fn service_away(&self, error: &ApiError) {
        let message = away_sentence(error);
        let (first, cancel) = {
            let mut state = self.lock();
            let first = state.unreachable.is_none();
            state.unreachable = Some(message.clone());
            (first, state.session_cancel.child_token())
        };
        if !first {
            return;
        }
        tracing::warn!("the service does not answer: {error}");
        self.emit(Event::ServiceUnreachable { message });
        let backend = self.clone();
        self.spawn(async move {
            let mut wait = FIRST_RECHECK;
            while backend.service_is_away() {
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = cancel.cancelled() => return,
                }
                backend.check_service();
                wait = (wait * 2).min(LONGEST_RECHECK);
            }
        });
    }

    /// An answer: when the service was away, says it is back and runs what waited for it.
    fn service_answered(&self) {
        let waiting = {
            let mut state = self.lock();
            if state.unreachable.take().is_none() {
                return;
            }
            std::mem::take(&mut state.waiting_for_service)
        };
        tracing::info!("the service answers again");
        self.emit(Event::ServiceReachable);
        for command in waiting {
            self.send(command);
        }
    }
}

/// What the banner says of `error`.
fn away_sentence(error: &ApiError) -> String {
    let detail = match error {
        ApiError::Network(detail) => detail.as_str(),
        _ => "",
    };
    let cause = if detail.contains("timed out") || detail.contains("deadline") {
        "it did not answer in time"
    } else if detail.contains("refused") {
        "it refused the connection (stopped, or starting again)"
    } else {
        "the connection failed"
    };
    format!("The service cannot be reached: {cause}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_no_answer_counts_as_away_and_it_reads_as_a_sentence() {
        assert!(is_unreachable(&ApiError::Network(
            "connection refused".into()
        )));
        assert!(!is_unreachable(&ApiError::Unauthorized));
        assert_eq!(
            away_sentence(&ApiError::Network(
                "tcp connect error: Connection refused".into()
            )),
            "The service cannot be reached: it refused the connection (stopped, or starting again)."
        );
        assert!(
            away_sentence(&ApiError::Network("operation timed out".into())).contains("in time")
        );
    }
}
