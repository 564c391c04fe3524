//! A search from the app's query bar: the views that still need uploading (local files, or the image of
//! a result for "More like this") plus a filter that already holds the UIDs of the views indexed
//! earlier, the text and the attribute terms.
//!
//! With nothing to upload it is one `GET /api/Search`; otherwise the views go through
//! [`run_file_search`]: one single-call `PUT /api/Search` when they share an extension, otherwise
//! two-step with asynchronous indexing (`indexAsync=true`, progress while polling).
//! A result's image is downloaded first ([`ApiClient::fetch_image`], the URL exactly as given) and
//! uploaded under a name whose extension matches its bytes; a sketch goes up from its bytes in memory.

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use super::search_flow::{
    FileSearchError, FileSearchOptions, FileSearchOutcome, FileSearchProgress, run_file_search,
};
use crate::jobs::poll::PollPolicy;
use partlens_api::{ApiClient, ApiError, FileUid, SearchFilter, SearchRequest, UploadSource};

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
    /// The name shown for the view.
    pub fn name(&self) -> String {
        match self {
            Self::File(path) => path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string()),
            Self::ResultImage { name, .. } => name.clone(),
            Self::Sketch(image) => image.name.clone(),
        }
    }
}

/// A search to run: views to upload (may be none) and the filter with the kept UIDs and the terms.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSearchRequest {
    /// Views without a search-input UID yet.
    pub uploads: Vec<ViewSource>,
    /// Kept input UIDs, text and attribute terms.
    pub filter: SearchFilter,
    /// Further search parameters the interface leaves open (for example `maxResults`).
    pub extra_params: Vec<(String, String)>,
    /// The views whose kept UIDs ride in the filter, with where their bytes are: the backend checks
    /// that the service still has each and uploads one it no longer has again
    /// ([`super::kept_inputs`]).
    pub kept: Vec<KeptInput>,
}

/// A view searched by the input UID it got earlier, with where its bytes are.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptInput {
    /// The search-input UID.
    pub uid: FileUid,
    /// Where to upload it from again if the service no longer has it.
    pub source: ViewSource,
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

/// The workflow for these views: a single call when they share an extension, otherwise two-step
/// with asynchronous indexing.
pub fn workflow_for(sources: &[UploadSource]) -> FileSearchOptions {
    let shared = partlens_api::search::shared_extension(sources).is_ok();
    FileSearchOptions {
        two_step: !shared,
        index_async: !shared,
    }
}

/// Turns a view into an upload source, downloading a result's image.
pub async fn upload_source(
    client: &ApiClient,
    view: &ViewSource,
) -> Result<UploadSource, ApiError> {
    match view {
        ViewSource::File(path) => Ok(UploadSource::Path(path.clone())),
        ViewSource::ResultImage { name, image_url } => {
            let bytes = client.fetch_image(image_url).await?;
            let name = result_image_file_name(name, &bytes)?;
            Ok(UploadSource::Bytes { name, bytes })
        }
        ViewSource::Sketch(image) => Ok(UploadSource::Bytes {
            name: image.name.clone(),
            bytes: image.png.clone(),
        }),
    }
}

/// What a search by views gave: the search's outcome, and each view it uploaded with the input UID
/// it got and, for a result's image, the bytes downloaded for it (the history keeps a copy of them,
/// so they are not downloaded twice).
#[derive(Debug)]
pub struct ViewSearchOutcome {
    /// The search's outcome (input UIDs and result).
    pub search: FileSearchOutcome,
    /// The views uploaded by this search, in the order of the request's uploads.
    pub uploaded: Vec<UploadedView>,
}

/// A view a search uploaded.
#[derive(Clone, Debug)]
pub struct UploadedView {
    /// Where its bytes came from.
    pub source: ViewSource,
    /// The input UID the service gave it.
    pub uid: FileUid,
    /// The bytes downloaded for a result's image; `None` for a file or a sketch.
    pub downloaded: Option<bytes::Bytes>,
}

/// Runs the search. `progress` sees the upload and indexing of each uploaded view (`view` counts
/// within `request.uploads`).
pub async fn run_view_search(
    client: &ApiClient,
    request: &ViewSearchRequest,
    poll_policy: &PollPolicy,
    cancel: &CancellationToken,
    progress: impl Fn(FileSearchProgress) + Send + Sync + Clone + 'static,
) -> Result<ViewSearchOutcome, FileSearchError> {
    if request.uploads.is_empty() {
        progress(FileSearchProgress::Searching);
        let mut search = SearchRequest::new(request.filter.clone());
        search.extra_params = request.extra_params.clone();
        let reply = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            reply = client.search_decoded(&search) => reply?,
        };
        return Ok(ViewSearchOutcome {
            search: FileSearchOutcome::new(request.filter.file_uids.clone(), reply),
            uploaded: Vec::new(),
        });
    }
    let mut sources = Vec::with_capacity(request.uploads.len());
    for view in &request.uploads {
        let source = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            source = upload_source(client, view) => source?,
        };
        sources.push(source);
    }
    let downloaded: Vec<Option<bytes::Bytes>> = request
        .uploads
        .iter()
        .zip(&sources)
        .map(|(view, source)| match (view, source) {
            (ViewSource::ResultImage { .. }, UploadSource::Bytes { bytes, .. }) => {
                Some(bytes.clone())
            }
            _ => None,
        })
        .collect();
    let search = run_file_search(
        client,
        &sources,
        request.filter.clone(),
        &workflow_for(&sources),
        poll_policy,
        cancel,
        progress,
    )
    .await?;
    // The uploaded views' UIDs are the last ones, in the order of the uploads.
    let new_uids = &search.input_uids[search
        .input_uids
        .len()
        .saturating_sub(request.uploads.len())..];
    let uploaded = request
        .uploads
        .iter()
        .zip(downloaded)
        .zip(new_uids)
        .map(|((source, downloaded), uid)| UploadedView {
            source: source.clone(),
            uid: uid.clone(),
            downloaded,
        })
        .collect();
    Ok(ViewSearchOutcome { search, uploaded })
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
    fn mixed_formats_go_two_step_with_asynchronous_indexing() {
        let view = |name: &str| UploadSource::Bytes {
            name: name.into(),
            bytes: bytes::Bytes::from_static(b"x"),
        };
        let single = workflow_for(&[view("a.png"), view("b.PNG")]);
        assert!(super::super::search_flow::uses_single_call(
            &[view("a.png"), view("b.png")],
            &single
        ));
        let mixed = workflow_for(&[view("a.png"), view("b.jpg")]);
        assert_eq!(
            mixed,
            FileSearchOptions {
                two_step: true,
                index_async: true
            }
        );
    }

    #[tokio::test]
    async fn an_empty_search_is_refused_before_sending() {
        let client = ApiClient::new("http://127.0.0.1:9").unwrap();
        let request = ViewSearchRequest {
            uploads: Vec::new(),
            filter: SearchFilter::new(),
            extra_params: Vec::new(),
            kept: Vec::new(),
        };
        let error = run_view_search(
            &client,
            &request,
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
