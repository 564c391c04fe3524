//! The search history and saved searches: every finished search is kept (its views with their input
//! UIDs and a copy of each, its text and filters), a search can be saved under a name, and the list
//! survives a restart. The data is in [`entry`], the file and its limits in [`store`]; this file holds
//! the backend's history commands. Every change answers `Event::HistoryChanged` with the whole list
//! (it is small: see the limits in [`store`]).
//!
//! The store works on the disk, so each command runs on a blocking thread, one at a time (the
//! store's lock); the front end never waits for it.

pub mod entry;
pub mod store;

use std::sync::{Mutex, PoisonError};

pub use self::entry::{DraftView, HistoryEntry, HistoryView, SearchDraft, SearchHistory};
pub use self::store::{HistoryError, HistoryLimits, HistoryStore, NameRefused, check_name};
use super::backend::Backend;
use super::command::Command;
use super::event::{Event, NoticeLevel};
use super::search::view_search::ViewSource;

impl Backend {
    /// Runs a history command (record, name, remove, clear) on a blocking thread; answers
    /// `HistoryChanged`, or a notice saying what went wrong.
    pub(crate) fn run_history_command(&self, command: Command) {
        let backend = self.clone();
        let (client, service) = {
            let state = self.lock();
            (
                state.session().map(|session| session.client.clone()),
                state
                    .service
                    .as_ref()
                    .map(|service| service.label())
                    .unwrap_or_default(),
            )
        };
        self.spawn(async move {
            // A result's image that became a view is downloaded again to keep a copy of it (its
            // link is fresh: the search just used it).
            let mut result_images = Vec::new();
            if let (Command::RecordSearch(draft), Some(client)) = (&command, &client) {
                for (index, view) in draft.views.iter().enumerate() {
                    if let ViewSource::ResultImage { image_url, .. } = &view.source {
                        match client.fetch_image(image_url).await {
                            Ok(bytes) => result_images.push((index, bytes.to_vec())),
                            Err(error) => {
                                tracing::info!("a result's image was not kept: {error}");
                            }
                        }
                    }
                }
            }
            let store = backend.shared.history.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                let mut store = store.lock().unwrap_or_else(PoisonError::into_inner);
                let outcome = apply(&mut store, command, &result_images, &service);
                (outcome, store.snapshot())
            })
            .await;
            match outcome {
                Ok((outcome, history)) => {
                    backend.emit(Event::HistoryChanged(history));
                    if let Err(sentence) = outcome {
                        backend.notice(NoticeLevel::Warning, sentence);
                    }
                }
                Err(error) => tracing::error!("the history task stopped: {error}"),
            }
        });
    }
}

/// The store, shared by the backend's tasks.
pub(crate) type SharedHistory = std::sync::Arc<Mutex<HistoryStore>>;

/// Carries out one history command on the store; a failure in words.
fn apply(
    store: &mut HistoryStore,
    command: Command,
    result_images: &[(usize, Vec<u8>)],
    service: &str,
) -> Result<(), String> {
    let failed = |error: HistoryError| {
        format!(
            "The search history could not be saved: {error}. Check the free space of the data folder."
        )
    };
    match command {
        Command::RecordSearch(draft) => store
            .record(draft, result_images, service, chrono::Utc::now())
            .map(drop)
            .map_err(failed),
        Command::NameSearch { id, name } => match store.set_name(id, name.as_deref()) {
            Ok(()) => Ok(()),
            Err(NameRefused::Refused(sentence)) => Err(sentence),
            Err(NameRefused::Store(error)) => Err(failed(error)),
        },
        Command::RemoveSearch(id) => store.remove(id).map_err(failed),
        Command::ClearHistory => store.clear_recent().map_err(failed),
        _ => Ok(()),
    }
}
