//! The backend's calls about the company's callback (this service's own `GET|PUT /api/Callback`
//! and `POST /api/Callback/Test`, for admins): load it, save it, send a test. A load that meets a
//! 401 is parked until the next login; a save or a test is never repeated behind the user's
//! back: it answers with the failure (the form keeps what was typed) and asks for the login.

use super::backend::Backend;
use super::command::Command;
use super::event::Event;
use partlens_api::ApiError;

impl Backend {
    /// Runs one of the callback commands.
    pub(super) fn run_callback_command(&self, command: Command) {
        let Some((client, generation, _)) = self.client_or_park(&command) else {
            return;
        };
        let backend = self.clone();
        self.spawn(async move {
            match command.clone() {
                Command::LoadCallback => match client.callback().await {
                    Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                    loaded => backend.emit(Event::CallbackLoaded(loaded)),
                },
                Command::SaveCallback(update) => {
                    let saved = client.set_callback(&update).await;
                    let unauthorized = saved.as_ref().err() == Some(&ApiError::Unauthorized);
                    backend.emit(Event::CallbackSaved(saved));
                    if unauthorized {
                        backend.on_unauthorized(generation, Command::LoadCallback);
                    }
                }
                Command::TestCallback => {
                    let tested = client.test_callback().await;
                    let unauthorized = tested.as_ref().err() == Some(&ApiError::Unauthorized);
                    backend.emit(Event::CallbackTested(tested));
                    if unauthorized {
                        backend.on_unauthorized(generation, Command::LoadCallback);
                    } else {
                        // The test is a delivery of its own: the list shows it.
                        backend.run_callback_command(Command::LoadCallback);
                    }
                }
                other => tracing::debug!("not a callback call: {other}"),
            }
        });
    }
}
