//! A search from the app's query bar: one request that holds each view once, with its slot in the
//! bar, where its bytes are and the input UID it got from an earlier search ([`SearchView`]), plus
//! the text and attribute terms. Views with a UID are searched by it; the others go up.
//!
//! With nothing to upload it is one `GET /api/Search`; otherwise the views go through
//! [`run_file_search`], which chooses the workflow ([`Workflow::choose`](super::search_flow::Workflow::choose)).
//! A result's image is downloaded first ([`ApiClient::fetch_image`], the URL exactly as given) and
//! uploaded under a name whose extension matches its bytes; a sketch goes up from its bytes in
//! memory; a file of the company's library ("More like this" on a stored model, picture or drawing)
//! is searched by its own UID and never uploaded. Every answer names views by their slot, so the
//! bar never matches UIDs to views by position.

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use super::search_flow::{FileSearchError, FileSearchOptions, FileSearchProgress, run_file_search};
use crate::jobs::poll::PollPolicy;
use partlens_api::{
    ApiClient, ApiError, FileUid, SearchFilter, SearchRequest, SearchResult, UploadSource,
};

/// Where a view's bytes come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewSource {
    /// A local file, dropped or picked.
    File(PathBuf),
    /// The image of a result ("More like this"), downloaded before upload.
    ResultImage {
        /// The result's name, shown on the view slot and used for the upload's file name.
        name: String,
        /// The image URL, used exactly as given.
        image_url: String,
    },
    /// A picture made in the app (the sketch pad's drawing), in memory.
    Sketch(SketchImage),
    /// A sketch the search history kept, put back into the bar: searched as a sketch, its bytes
    /// go up from the history's copy (read by the upload, never on the UI thread).
    KeptSketch(PathBuf),
    /// A file of the company's library searched by itself ("More like this" on a stored model,
    /// picture or drawing): its own UID is the search input, so nothing is uploaded and a model is
    /// searched as a model (model → model), not by its picture.
    LibraryFile {
        /// The library file's UID.
        uid: FileUid,
        /// Its name, shown on the view slot.
        name: String,
    },
}

/// A picture made in the app, kept in memory: a PNG with the file name it goes up under.
#[derive(Clone, PartialEq, Eq)]
pub struct SketchImage {
    name: String,
    png: bytes::Bytes,
    key: String,
}

impl SketchImage {
    /// The PNG `png`, uploaded as `name` (whose extension says the format).
    pub fn new(name: impl Into<String>, png: bytes::Bytes) -> Self {
        use sha1::Digest as _;
        let key = format!("sketch:{}", hex::encode(sha1::Sha1::digest(&png)));
        Self {
            name: name.into(),
            png,
            key,
        }
    }

    /// The file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The PNG bytes.
    pub fn png(&self) -> &bytes::Bytes {
        &self.png
    }

    /// A key naming these bytes (their SHA-1), for the thumbnail cache.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl std::fmt::Debug for SketchImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The bytes are noise in a log or a failed assertion.
        f.debug_struct("SketchImage")
            .field("name", &self.name)
            .field("bytes", &self.png.len())
            .finish_non_exhaustive()
    }
}

impl ViewSource {
    /// True for a picture drawn on the sketch pad, in memory or kept by the history: its scores
    /// are a sketch's.
    pub fn is_sketch(&self) -> bool {
        matches!(self, Self::Sketch(_) | Self::KeptSketch(_))
    }

    /// The name shown for the view.
    pub fn name(&self) -> String {
        match self {
            Self::File(path) | Self::KeptSketch(path) => path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string()),
            Self::ResultImage { name, .. } | Self::LibraryFile { name, .. } => name.clone(),
            Self::Sketch(image) => image.name.clone(),
        }
    }
}

/// One view of a search: its slot in the query bar (which every answer names it by), where its
/// bytes are, and the search-input UID it got earlier (searched by without an upload) or `None`
/// (it goes up with this search).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchView {
    /// The slot of the query bar the view is in.
    pub slot: u64,
    /// Where its bytes are.
    pub source: ViewSource,
    /// The search-input UID it is searched by; `None` until it is uploaded.
    pub input: Option<FileUid>,
}

impl SearchView {
    /// A view in `slot` that is not uploaded yet, or, for a library file, searched by its own UID.
    pub fn new(slot: u64, source: ViewSource) -> Self {
        let input = match &source {
            ViewSource::LibraryFile { uid, .. } => Some(uid.clone()),
            _ => None,
        };
        Self {
            slot,
            source,
            input,
        }
    }
}

/// A search to run: its views, each once, and the text and attribute terms.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSearchRequest {
    /// The views in the bar's order (may be none: a search by text and attributes).
    pub views: Vec<SearchView>,
    /// The text and attribute terms (no input UIDs: those are the views').
    pub terms: SearchFilter,
    /// Further search parameters the interface leaves open (for example `maxResults`, and the
    /// search bar's [`partlens_api::SearchOptions::params`]), sent with the search call whether or
    /// not views go up with it.
    pub extra_params: Vec<(String, String)>,
}

impl ViewSearchRequest {
    /// The filter of the call: the terms and the input UID of every view that has one.
    pub fn filter(&self) -> SearchFilter {
        self.terms
            .clone()
            .with_uids(self.views.iter().filter_map(|view| view.input.clone()))
    }

    /// The views without an input UID: they go up with this search.
    pub fn uploads(&self) -> impl Iterator<Item = &SearchView> {
        self.views.iter().filter(|view| view.input.is_none())
    }
}

/// Where a search by views is, each view named by its slot.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewSearchProgress {
    /// The view in `slot` is going up: `sent` of `total` bytes.
    Uploading {
        /// The view's slot.
        slot: u64,
        /// Bytes sent so far.
        sent: u64,
        /// Size of the view.
        total: u64,
    },
    /// The view in `slot` is uploaded and being indexed.
    Indexing {
        /// The view's slot.
        slot: u64,
        /// Time waited so far.
        waited: std::time::Duration,
    },
    /// Every input is ready; the search is running.
    Searching,
    /// The service does not answer: the search runs again once it does.
    WaitingForService,
}

/// The input UID the view in `slot` was searched by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewInput {
    /// The view's slot.
    pub slot: u64,
    /// Its search-input UID.
    pub uid: FileUid,
}

/// The file name a downloaded result image is uploaded under: the result's name made safe, with the
/// extension of the image format its bytes are in.
pub fn result_image_file_name(name: &str, bytes: &[u8]) -> Result<String, ApiError> {
    let format = image::guess_format(bytes).map_err(|_| {
        ApiError::Decode(format!(
            "the image of {name} is in a format this client does not know"
        ))
    })?;
    let extension = format.extensions_str().first().copied().unwrap_or("png");
    let stem: String = name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(name)
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let stem = if stem.is_empty() {
        "result".to_owned()
    } else {
        stem
    };
    Ok(format!("{stem}.{extension}"))
}

/// Turns a view into an upload source, downloading a result's image.
pub async fn upload_source(
    client: &ApiClient,
    view: &ViewSource,
) -> Result<UploadSource, ApiError> {
    match view {
        ViewSource::File(path) | ViewSource::KeptSketch(path) => {
            Ok(UploadSource::Path(path.clone()))
        }
        ViewSource::ResultImage { name, image_url } => {
            let bytes = client.fetch_image(image_url).await?;
            let name = result_image_file_name(name, &bytes)?;
            Ok(UploadSource::Bytes { name, bytes })
        }
        ViewSource::Sketch(image) => Ok(UploadSource::Bytes {
            name: image.name.clone(),
            bytes: image.png.clone(),
        }),
        // Searched by its own UID; one the service no longer has is refused before this
        // (`kept_inputs`), never uploaded.
        ViewSource::LibraryFile { name, .. } => Err(ApiError::InvalidInput(format!(
            "{name} is a file of the library and is searched by its UID, not uploaded"
        ))),
    }
}

/// What a search by views gave: the request with every view's input UID filled in, the result,
/// and the bytes downloaded for the result images it uploaded, by slot (the history keeps a copy
/// of them, so they are not downloaded twice).
#[derive(Debug)]
pub struct ViewSearchOutcome {
    /// The request as it ran, each view with the input UID it was searched by.
    pub request: ViewSearchRequest,
    /// The result.
    pub result: SearchResult,
    /// The bytes downloaded for each uploaded result image, by slot.
    pub downloaded: Vec<(u64, bytes::Bytes)>,
}

impl ViewSearchOutcome {
    /// The input UID each view was searched by, by slot.
    pub fn inputs(&self) -> Vec<ViewInput> {
        self.request
            .views
            .iter()
            .filter_map(|view| {
                Some(ViewInput {
                    slot: view.slot,
                    uid: view.input.clone()?,
                })
            })
            .collect()
    }
}

/// Runs the search; `progress` hears each uploaded view by its slot.
pub async fn run_view_search(
    client: &ApiClient,
    request: ViewSearchRequest,
    poll_policy: &PollPolicy,
    cancel: &CancellationToken,
    progress: impl Fn(ViewSearchProgress) + Send + Sync + Clone + 'static,
) -> Result<ViewSearchOutcome, FileSearchError> {
    let upload_slots: Vec<u64> = request.uploads().map(|view| view.slot).collect();
    if upload_slots.is_empty() {
        progress(ViewSearchProgress::Searching);
        let mut search = SearchRequest::new(request.filter());
        search.extra_params = request.extra_params.clone();
        let reply = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            reply = client.search_decoded(&search) => reply?,
        };
        return Ok(ViewSearchOutcome {
            request,
            result: reply.value,
            downloaded: Vec::new(),
        });
    }
    let (sources, downloaded) = upload_sources(client, &request, cancel).await?;
    let options = FileSearchOptions {
        poll_when_mixed: true,
        search_params: request.extra_params.clone(),
        ..FileSearchOptions::default()
    };
    let slots = upload_slots.clone();
    let search = run_file_search(
        client,
        &sources,
        request.filter(),
        &options,
        poll_policy,
        cancel,
        move |file_progress| {
            if let Some(view_progress) = by_slot(&slots, file_progress) {
                progress(view_progress);
            }
        },
    )
    .await?;
    let mut request = request;
    for (slot, uid) in upload_slots.iter().zip(search.view_uids) {
        if let Some(view) = request.views.iter_mut().find(|view| view.slot == *slot) {
            view.input = Some(uid);
        }
    }
    Ok(ViewSearchOutcome {
        request,
        result: search.result,
        downloaded,
    })
}

/// The upload source of each view to upload, in order, and the bytes downloaded for the result
/// images among them, by slot.
async fn upload_sources(
    client: &ApiClient,
    request: &ViewSearchRequest,
    cancel: &CancellationToken,
) -> Result<(Vec<UploadSource>, Vec<(u64, bytes::Bytes)>), FileSearchError> {
    let mut sources = Vec::new();
    let mut downloaded = Vec::new();
    for view in request.uploads() {
        let source = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            source = upload_source(client, &view.source) => source?,
        };
        if let (ViewSource::ResultImage { .. }, UploadSource::Bytes { bytes, .. }) =
            (&view.source, &source)
        {
            downloaded.push((view.slot, bytes.clone()));
        }
        sources.push(source);
    }
    Ok((sources, downloaded))
}

/// A file search's progress, whose views count within the uploads, named by the uploads' slots.
fn by_slot(slots: &[u64], progress: FileSearchProgress) -> Option<ViewSearchProgress> {
    Some(match progress {
        FileSearchProgress::Uploading { view, sent, total } => ViewSearchProgress::Uploading {
            slot: *slots.get(view)?,
            sent,
            total,
        },
        FileSearchProgress::Indexing { view, waited } => ViewSearchProgress::Indexing {
            slot: *slots.get(view)?,
            waited,
        },
        FileSearchProgress::Searching => ViewSearchProgress::Searching,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png() -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        image::RgbaImage::new(4, 4)
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn a_result_image_is_named_for_its_format() {
        assert_eq!(
            result_image_file_name("Bracket 01", &png()).unwrap(),
            "Bracket_01.png"
        );
        assert_eq!(
            result_image_file_name("Parts/a.b", &png()).unwrap(),
            "a_b.png"
        );
        assert_eq!(result_image_file_name("", &png()).unwrap(), "result.png");
        assert!(result_image_file_name("x", b"solid cube").is_err());
    }

    #[test]
    fn the_filter_holds_the_terms_and_each_view_input_once() {
        let uid = FileUid::from_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3301");
        let library = FileUid::from_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3302");
        let mut kept = SearchView::new(4, ViewSource::File(PathBuf::from("/parts/a.png")));
        kept.input = Some(uid.clone());
        let request = ViewSearchRequest {
            views: vec![
                kept,
                SearchView::new(7, ViewSource::File(PathBuf::from("/parts/b.png"))),
                SearchView::new(
                    9,
                    ViewSource::LibraryFile {
                        uid: library.clone(),
                        name: "flange.stl".into(),
                    },
                ),
            ],
            terms: SearchFilter::new().text("flange"),
            extra_params: Vec::new(),
        };
        assert_eq!(request.filter().file_uids, vec![uid, library]);
        assert_eq!(request.filter().inner().matches("FT=flange").count(), 1);
        let uploads: Vec<u64> = request.uploads().map(|view| view.slot).collect();
        assert_eq!(uploads, [7], "a library file is never uploaded");
    }

    #[test]
    fn progress_names_the_view_by_its_slot() {
        let slots = [4, 9];
        assert_eq!(
            by_slot(
                &slots,
                FileSearchProgress::Uploading {
                    view: 1,
                    sent: 2,
                    total: 3
                }
            ),
            Some(ViewSearchProgress::Uploading {
                slot: 9,
                sent: 2,
                total: 3
            })
        );
        assert_eq!(
            by_slot(
                &slots,
                FileSearchProgress::Indexing {
                    view: 2,
                    waited: std::time::Duration::ZERO
                }
            ),
            None
        );
    }

    #[tokio::test]
    async fn an_empty_search_is_refused_before_sending() {
        let client = ApiClient::new("http://127.0.0.1:9").unwrap();
        let request = ViewSearchRequest {
            views: Vec::new(),
            terms: SearchFilter::new(),
            extra_params: Vec::new(),
        };
        let error = run_view_search(
            &client,
            request,
            &PollPolicy::default(),
            &CancellationToken::new(),
            |_| {},
        )
        .await
        .unwrap_err();
        assert!(
            matches!(error, FileSearchError::Api(ApiError::InvalidInput(_))),
            "{error:?}"
        );
    }
}
