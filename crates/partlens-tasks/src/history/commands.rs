//! The backend's history commands: keeping a finished search (the backend records it itself when
//! the search ends), naming, removing and clearing. Each runs on a blocking thread, one at a time
//! (the store's lock); every change answers `Event::HistoryChanged` with the whole list.

use std::sync::PoisonError;

use super::{HistoryError, HistoryStore, NameRefused, SearchDraft};
use crate::backend::Backend;
use crate::command::Command;
use crate::event::{Event, NoticeLevel};
use crate::search::view_search::{ViewSearchRequest, ViewSource};

impl Backend {
    /// Runs a history command (name, remove, clear) on a blocking thread; answers
    /// `HistoryChanged`, or a notice saying what went wrong.
    pub(crate) fn run_history_command(&self, command: Command) {
        self.change_history(move |store, _service| apply(store, command));
    }

    /// Keeps a search that just finished: `request` as it ran (each view with the input UID it was
    /// searched by) and `total_results`. A result's image that this search downloaded is kept from
    /// those bytes (`downloaded`, by slot); one searched by an earlier UID is downloaded once to
    /// keep a copy (its link is fresh: the search just used it).
    pub(crate) fn record_finished_search(
        &self,
        request: &ViewSearchRequest,
        downloaded: Vec<(u64, bytes::Bytes)>,
        total_results: u64,
    ) {
        let draft = SearchDraft::of_request(request, total_results);
        let (mut result_images, to_download) = result_images(request, downloaded);
        let client = self.lock().session().map(|session| session.client.clone());
        let backend = self.clone();
        self.spawn(async move {
            if let Some(client) = client {
                for (index, image_url) in to_download {
                    match client.fetch_image(&image_url).await {
                        Ok(bytes) => result_images.push((index, bytes.to_vec())),
                        Err(error) => tracing::info!("a result's image was not kept: {error}"),
                    }
                }
            }
            backend.change_history(move |store, service| {
                store
                    .record(draft, &result_images, service, chrono::Utc::now())
                    .map(drop)
                    .map_err(failed)
            });
        });
    }

    /// Runs `change` on the store on a blocking thread (with the label of the service in use);
    /// answers `HistoryChanged`, and a notice with the sentence of a failure.
    fn change_history(
        &self,
        change: impl FnOnce(&mut HistoryStore, &str) -> Result<(), String> + Send + 'static,
    ) {
        let backend = self.clone();
        let service = self
            .lock()
            .service
            .as_ref()
            .map(|service| service.label())
            .unwrap_or_default();
        self.spawn(async move {
            let store = backend.shared.history.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                let mut store = store.lock().unwrap_or_else(PoisonError::into_inner);
                let outcome = change(&mut store, &service);
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

/// A result's image to keep: the index of its view in the draft and its bytes.
type KeptImage = (usize, Vec<u8>);

/// The result images of a search's views, by the view's index: the bytes this search downloaded
/// (kept as they are, found by slot), and the links of those it did not (searched by an earlier
/// UID: to download for a copy).
fn result_images(
    request: &ViewSearchRequest,
    mut downloaded: Vec<(u64, bytes::Bytes)>,
) -> (Vec<KeptImage>, Vec<(usize, String)>) {
    let mut kept = Vec::new();
    let mut to_download = Vec::new();
    for (index, view) in request.views.iter().enumerate() {
        let ViewSource::ResultImage { image_url, .. } = &view.source else {
            continue;
        };
        match downloaded.iter().position(|(slot, _)| *slot == view.slot) {
            Some(at) => kept.push((index, downloaded.swap_remove(at).1.to_vec())),
            None => to_download.push((index, image_url.clone())),
        }
    }
    (kept, to_download)
}

/// A store that failed, in words.
fn failed(error: HistoryError) -> String {
    format!(
        "The search history could not be saved: {error}. Check the free space of the data folder."
    )
}

/// Carries out one history command on the store; a failure in words.
fn apply(store: &mut HistoryStore, command: Command) -> Result<(), String> {
    match command {
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use partlens_api::{FileUid, FilterTerm, SearchFilter};

    use super::*;
    use crate::search::view_search::SearchView;

    fn uid(last: u8) -> FileUid {
        FileUid::from_reply(&format!("3f2504e0-4f89-41d3-9a0c-0305e82c33{last:02}"))
    }

    fn result_image(name: &str) -> ViewSource {
        ViewSource::ResultImage {
            name: name.into(),
            image_url: format!("http://127.0.0.1:9/{name}.png"),
        }
    }

    #[test]
    fn a_finished_search_keeps_its_uids_and_the_images_it_downloaded_without_fetching_them_again() {
        let file = ViewSource::File(PathBuf::from("/parts/flange.png"));
        let view = |slot: u64, source: ViewSource, input: Option<FileUid>| SearchView {
            slot,
            source,
            input,
        };
        let request = ViewSearchRequest {
            views: vec![
                view(3, result_image("kept"), Some(uid(1))),
                view(5, file.clone(), Some(uid(2))),
                view(8, result_image("new"), Some(uid(3))),
            ],
            terms: SearchFilter::new().text("pump").term(FilterTerm::Exact {
                name: "material".into(),
                value: "steel".into(),
            }),
            extra_params: Vec::new(),
        };
        let draft = SearchDraft::of_request(&request, 42);
        assert_eq!(draft.total_results, 42);
        assert_eq!(draft.text, "pump");
        assert_eq!(draft.filters.len(), 1);
        let uids: Vec<_> = draft
            .views
            .iter()
            .map(|view| view.input_uid.clone())
            .collect();
        assert_eq!(uids, vec![Some(uid(1)), Some(uid(2)), Some(uid(3))]);
        assert_eq!(draft.views[1].source, file);
        let (images, to_download) =
            result_images(&request, vec![(8, bytes::Bytes::from_static(b"png bytes"))]);
        assert_eq!(images, vec![(2, b"png bytes".to_vec())]);
        assert_eq!(
            to_download,
            vec![(0, "http://127.0.0.1:9/kept.png".to_owned())]
        );
    }
}
