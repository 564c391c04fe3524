//! The backend's history commands: keeping a finished search (the backend records it itself when
//! the search ends), naming, removing and clearing. Each runs on a blocking thread, one at a time
//! (the store's lock); every change answers `Event::HistoryChanged` with the whole list.

use std::sync::PoisonError;

use super::{HistoryError, HistoryStore, NameRefused, SearchDraft};
use crate::backend::Backend;
use crate::command::Command;
use crate::event::{Event, NoticeLevel};
use crate::search::view_search::{UploadedView, ViewSource};

impl Backend {
    /// Runs a history command (name, remove, clear) on a blocking thread; answers
    /// `HistoryChanged`, or a notice saying what went wrong.
    pub(crate) fn run_history_command(&self, command: Command) {
        self.change_history(move |store, _service| apply(store, command));
    }

    /// Keeps a search that just finished: `draft` as the search bar had it when the search began,
    /// completed with the input UIDs its uploaded views got and `total_results`. A result's image
    /// that this search downloaded is kept from those bytes; one searched by an earlier UID is
    /// downloaded once to keep a copy (its link is fresh: the search just used it).
    pub(crate) fn record_finished_search(
        &self,
        draft: SearchDraft,
        uploaded: Vec<UploadedView>,
        total_results: u64,
    ) {
        let (draft, mut result_images, to_download) =
            complete_draft(draft, uploaded, total_results);
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

/// `draft` completed after its search: `total_results`, and each uploaded view's input UID on the
/// draft's view with the same source (the first not yet matched). Also the bytes of the result
/// images the search downloaded (kept as they are) and the links of the result images it did not
/// (searched by an earlier UID: to download for a copy), each with its view's index.
fn complete_draft(
    mut draft: SearchDraft,
    uploaded: Vec<UploadedView>,
    total_results: u64,
) -> (SearchDraft, Vec<KeptImage>, Vec<(usize, String)>) {
    draft.total_results = total_results;
    let mut result_images = Vec::new();
    let mut to_download = Vec::new();
    let mut unmatched: Vec<Option<UploadedView>> = uploaded.into_iter().map(Some).collect();
    for (index, view) in draft.views.iter_mut().enumerate() {
        let upload = unmatched
            .iter_mut()
            .find(|upload| {
                upload
                    .as_ref()
                    .is_some_and(|upload| upload.source == view.source)
            })
            .and_then(Option::take);
        if let Some(upload) = upload {
            view.input_uid = Some(upload.uid);
            if let Some(bytes) = upload.downloaded {
                result_images.push((index, bytes.to_vec()));
                continue;
            }
        }
        if let ViewSource::ResultImage { image_url, .. } = &view.source {
            to_download.push((index, image_url.clone()));
        }
    }
    (draft, result_images, to_download)
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

    use partlens_api::FileUid;

    use super::*;
    use crate::history::DraftView;

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
    fn a_finished_search_keeps_its_new_uids_and_the_images_it_downloaded_without_fetching_them_again()
     {
        let file = ViewSource::File(PathBuf::from("/parts/flange.png"));
        let draft = SearchDraft {
            views: vec![
                DraftView {
                    source: result_image("kept"),
                    input_uid: Some(uid(1)),
                },
                DraftView {
                    source: file.clone(),
                    input_uid: None,
                },
                DraftView {
                    source: result_image("new"),
                    input_uid: None,
                },
            ],
            text: "pump".into(),
            filters: Vec::new(),
            total_results: 0,
        };
        let uploaded = vec![
            UploadedView {
                source: file,
                uid: uid(2),
                downloaded: None,
            },
            UploadedView {
                source: result_image("new"),
                uid: uid(3),
                downloaded: Some(bytes::Bytes::from_static(b"png bytes")),
            },
        ];
        let (draft, images, to_download) = complete_draft(draft, uploaded, 42);
        assert_eq!(draft.total_results, 42);
        let uids: Vec<_> = draft
            .views
            .iter()
            .map(|view| view.input_uid.clone())
            .collect();
        assert_eq!(uids, vec![Some(uid(1)), Some(uid(2)), Some(uid(3))]);
        assert_eq!(images, vec![(2, b"png bytes".to_vec())]);
        assert_eq!(
            to_download,
            vec![(0, "http://127.0.0.1:9/kept.png".to_owned())]
        );
    }
}
