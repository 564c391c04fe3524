//! `GET /api/Search` (by input UIDs and/or FT conditions in `filterStr`) and `PUT /api/Search` (up to
//! ten input files uploaded in the call, streamed). Extension: `maxResults` (1..=10000, default
//! 200). The filter's limits (conditions, inputs) are checked before anything is read or stored.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use futures_util::StreamExt as _;
use tokio::io::AsyncWriteExt as _;

use crate::auth::Caller;
use crate::body::{TempFile, check_declared_length, unreadable};
use crate::disk::create_private_file_async;
use crate::error::ServiceError;
use crate::params::canonical_uid;
use crate::routes::{Params, json};
use crate::search::{SearchQuery, max_results_param, run};
use crate::search_body::{SearchBodyDecoder, SearchBodyEvent};
use crate::state::AppState;
use crate::stored_path::parse_search_input_extension;
use crate::upload::{UploadParams, UploadTarget, store_and_index};
use partlens_api::SearchFilter;
use partlens_api::encoding::QueryString;
use partlens_api::limits::{MAX_SEARCH_FILES, MIN_UPLOAD_SIZE};

fn filter_of(query: &QueryString) -> SearchFilter {
    crate::assembly_filter::parse_filter(query.get("filterStr").unwrap_or_default())
}

/// Searches by `filterStr`: input UIDs, FT conditions, or both. A missing `filterStr` is a 400; an
/// empty one lists every indexed database file of the company.
pub async fn search_by_filter(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    if query.get("filterStr").is_none() {
        return Err(ServiceError::BadRequest(
            "the filterStr parameter is required".into(),
        ));
    }
    let max_results = max_results_param(query.get("maxResults"))?;
    let search = SearchQuery::from_filter(&filter_of(&query), max_results);
    json(&run(&state, &caller, search).await?)
}

/// Uploads up to ten files of one extension as search inputs (indexed during the call) and searches
/// by them, appended to any `fileUID` list already in `filterStr`. The body streams through
/// [`SearchBodyDecoder`] into temporary files: it is never held whole (its size is bounded by the
/// service's body limit, 413 past it).
pub async fn search_with_files(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let extension = parse_search_input_extension(query.get("fileExtension").ok_or_else(|| {
        ServiceError::BadRequest(
            "the fileExtension parameter is required (for example .png)".into(),
        )
    })?)?;
    let max_results = max_results_param(query.get("maxResults"))?;
    let mut search = SearchQuery::from_filter(&filter_of(&query), max_results);
    // The filter and earlier inputs are checked before anything is uploaded, so a bad one leaves no
    // new input behind.
    search.check_within(&state.config.limits)?;
    for uid in &search.input_uids {
        canonical_uid(uid, "fileUID")?;
    }
    let files = receive_search_files(&state, &headers, body).await?;
    if files.is_empty() {
        return Err(ServiceError::BadRequest(
            "the body holds no file: send a JSON string holding an array of base64 files".into(),
        ));
    }
    for (temp, size) in files {
        let params = UploadParams {
            target: UploadTarget::SearchInput {
                extension: extension.clone(),
            },
            index_async: false,
            uid: None,
            overwrite_file: None,
            attributes: None,
            gzipped: false,
            callback_param: None,
            text_only: false,
            category_id: None,
            index_assembly_components: false,
        };
        let record = store_and_index(&state, &caller, params, temp, size).await?;
        search.input_uids.push(record.uid);
    }
    json(&run(&state, &caller, search).await?)
}

/// Streams the body of `PUT /api/Search` into one temporary file per file it holds, refusing more
/// than the body limit (413), more than [`MAX_SEARCH_FILES`] files or a malformed body (400).
async fn receive_search_files(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<Vec<(TempFile, u64)>, ServiceError> {
    let limit = state.config.max_body_bytes;
    check_declared_length(headers, limit)?;
    let mut decoder = SearchBodyDecoder::new(MAX_SEARCH_FILES, MIN_UPLOAD_SIZE);
    let mut files: Vec<(TempFile, u64)> = Vec::new();
    let mut writer: Option<tokio::io::BufWriter<tokio::fs::File>> = None;
    let mut stream = body.into_data_stream();
    let mut received = 0u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(unreadable)?;
        received += chunk.len() as u64;
        if received > limit {
            return Err(ServiceError::PayloadTooLarge { limit });
        }
        for event in decoder.feed(&chunk).map_err(ServiceError::BadRequest)? {
            match event {
                SearchBodyEvent::FileStarted => {
                    let temp = TempFile::new(state.disk.temp_path());
                    writer = Some(tokio::io::BufWriter::new(
                        create_private_file_async(temp.path()).await?,
                    ));
                    files.push((temp, 0));
                }
                SearchBodyEvent::Bytes(bytes) => {
                    if let (Some(writer), Some((_, size))) = (writer.as_mut(), files.last_mut()) {
                        writer.write_all(&bytes).await?;
                        *size += bytes.len() as u64;
                    }
                }
                SearchBodyEvent::FileEnded => {
                    if let Some(mut finished) = writer.take() {
                        finished.flush().await?;
                    }
                }
            }
        }
    }
    decoder.finish().map_err(ServiceError::BadRequest)?;
    Ok(files)
}
