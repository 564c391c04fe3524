//! The backend's work for the PMI viewer: loading a file's extracted PMI, free text and attributes,
//! and sending feedback on the extracted attributes.
//!
//! Both meet a 401 the same way: the command is parked and runs again after the login. For the
//! feedback this is safe to repeat because the request carries a feedback id chosen by the front end
//! (a GUID): the service replaces a feedback with the same id instead of storing a second one.

use super::backend::Backend;
use super::command::Command;
use super::event::Event;
use partlens_api::{ApiError, FileUid};

impl Backend {
    /// Runs `LoadPmi` or `SendFeedback`.
    pub(super) fn run_pmi_command(&self, command: Command) {
        // Refused before anything is sent (or parked): a form that breaks the limits never leaves.
        if let Command::SendFeedback(request) = &command
            && let Err(error) = request.validate()
        {
            let uid = request
                .file_uid
                .clone()
                .unwrap_or_else(|| FileUid::from_reply(""));
            self.emit(Event::FeedbackFailed { uid, error });
            return;
        }
        let Some((client, generation, _)) = self.client_or_park(&command) else {
            return;
        };
        let backend = self.clone();
        self.spawn(async move {
            match command.clone() {
                Command::LoadPmi(uid) => match client.pmi_data(&uid).await {
                    Ok(data) => backend.emit(Event::PmiLoaded { uid, data }),
                    Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                    Err(error) => {
                        tracing::info!("PMI of {uid} not loaded: {error}");
                        backend.emit(Event::PmiFailed { uid, error });
                    }
                },
                Command::SendFeedback(request) => {
                    let uid = request
                        .file_uid
                        .clone()
                        .unwrap_or_else(|| FileUid::from_reply(""));
                    match client.send_feedback(&request).await {
                        Ok(feedback_id) => backend.emit(Event::FeedbackSent { uid, feedback_id }),
                        Err(ApiError::Unauthorized) => {
                            backend.emit(Event::FeedbackAwaitingLogin { uid });
                            backend.on_unauthorized(generation, command);
                        }
                        Err(error) => {
                            tracing::info!("feedback on {uid} not sent: {error}");
                            backend.emit(Event::FeedbackFailed { uid, error });
                        }
                    }
                }
                other => tracing::debug!("not a PMI call: {other}"),
            }
        });
    }
}
