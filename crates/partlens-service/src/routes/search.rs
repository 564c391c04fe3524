//! `GET /api/Search` (by input UIDs and/or FT conditions in `filterStr`) and `PUT /api/Search` (up to
//! ten input files uploaded in the call, streamed). Extensions: `maxResults` (1..=10000, default
//! 200), `sizeFirst` (default true) and `ignoreMirrored` (default false) ([`SearchOptions`]). The
//! handlers only parse: the query and its limits ([`SearchQuery::parse`]) before anything
//! is read or stored, then the body of `PUT` as it streams; [`crate::search`] does the rest.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use futures_util::StreamExt as _;
use tokio::io::AsyncWriteExt as _;

use crate::body::{TempFile, check_declared_length, unreadable};
use crate::caller::Caller;
use crate::disk::create_private_file_async;
use crate::error::ServiceError;
use crate::params::bool_param;
use crate::routes::{Params, json};
use crate::search::{run, run_with_files};
use crate::search_body::{FileAllowance, SearchBodyDecoder, SearchBodyEvent};
use crate::search_request::{SearchInputs, SearchQuery};
use crate::state::AppState;
use crate::stored_path::parse_search_input_extension;
use partlens_api::SearchOptions;
use partlens_api::encoding::QueryString;
use partlens_api::limits::MIN_UPLOAD_SIZE;
use partlens_api::search_options::{IGNORE_MIRRORED_PARAM, SIZE_FIRST_PARAM};

/// The search `query` asks for (`filterStr`, `maxResults`, `sizeFirst`, `ignoreMirrored`),
/// checked against the service's limits.
fn search_of(state: &AppState, query: &QueryString) -> Result<SearchQuery, ServiceError> {
    let filter = crate::assembly_filter::parse_filter(query.get("filterStr").unwrap_or_default());
    let defaults = SearchOptions::default();
    let options = SearchOptions {
        size_first: bool_param(query, SIZE_FIRST_PARAM, defaults.size_first)?,
        ignore_mirrored: bool_param(query, IGNORE_MIRRORED_PARAM, defaults.ignore_mirrored)?,
    };
    Ok(
        SearchQuery::parse(&filter, query.get("maxResults"), &state.config.limits)?
            .with_options(options),
    )
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
    let search = search_of(&state, &query)?;
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
    // The query is checked before anything is uploaded, so a bad one leaves no new input behind;
    // the body's files are held to the room it leaves as they arrive.
    let search = search_of(&state, &query)?;
    let allowance = search.file_allowance(&state.config.limits);
    let files = receive_search_files(&state, &headers, body, &allowance).await?;
    let inputs = SearchInputs::received(extension, files, &allowance)?;
    json(&run_with_files(&state, &caller, search, inputs).await?)
}

/// Streams the body of `PUT /api/Search` into one temporary file per file it holds, refusing more
/// than the body limit (413), more files than `allowance` or a malformed body (400).
async fn receive_search_files(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
    allowance: &FileAllowance,
) -> Result<Vec<(TempFile, u64)>, ServiceError> {
    let limit = state.config.max_body_bytes;
    check_declared_length(headers, limit)?;
    let mut decoder = SearchBodyDecoder::new(allowance.clone(), MIN_UPLOAD_SIZE);
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
