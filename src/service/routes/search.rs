//! `GET /api/Search` (by input UIDs and/or FT conditions in `filterStr`) and `PUT /api/Search` (up to
//! ten input files uploaded in the call). Extension: `maxResults` (1..=10000, default 200).

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::api::SearchFilter;
use crate::api::encoding::{QueryString, base64_decode, decode_double_encoded_strings};
use crate::api::limits::MAX_SEARCH_FILES;
use crate::service::body::{TempFile, read_limited};
use crate::service::error::ServiceError;
use crate::service::params::canonical_uid;
use crate::service::routes::{Origin, Params, json};
use crate::service::search::{SearchQuery, max_results_param, run};
use crate::service::state::AppState;
use crate::service::store::accounts::Caller;
use crate::service::stored_path::parse_search_input_extension;
use crate::service::upload::{UploadParams, UploadTarget, store_and_index};

fn filter_of(query: &QueryString) -> SearchFilter {
    SearchFilter::parse_inner(query.get("filterStr").unwrap_or_default())
}

/// Searches by `filterStr`: input UIDs, FT conditions, or both. A missing `filterStr` is a 400; an
/// empty one lists every indexed database file of the company.
pub async fn search_by_filter(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    Origin(origin): Origin,
) -> Result<Response, ServiceError> {
    if query.get("filterStr").is_none() {
        return Err(ServiceError::BadRequest(
            "the filterStr parameter is required".into(),
        ));
    }
    let max_results = max_results_param(query.get("maxResults"))?;
    let search = SearchQuery::from_filter(&filter_of(&query), max_results);
    json(&run(&state, &caller, &origin, search).await?)
}

/// Uploads up to ten files of one extension as search inputs (indexed during the call) and searches
/// by them, appended to any `fileUID` list already in `filterStr`.
pub async fn search_with_files(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    Origin(origin): Origin,
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
    // Earlier inputs are checked before anything is uploaded, so a bad one leaves no new input behind.
    for uid in &search.input_uids {
        canonical_uid(uid, "fileUID")?;
    }
    let body = read_limited(body, &headers, state.config.max_body_bytes).await?;
    let encoded = decode_double_encoded_strings(&body)
        .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
    if encoded.is_empty() {
        return Err(ServiceError::BadRequest(
            "the body holds no file: send a JSON string holding an array of base64 files".into(),
        ));
    }
    if encoded.len() > MAX_SEARCH_FILES {
        return Err(ServiceError::BadRequest(format!(
            "{} files were sent; one search takes at most {MAX_SEARCH_FILES}",
            encoded.len()
        )));
    }
    let mut contents = Vec::with_capacity(encoded.len());
    for (number, text) in encoded.iter().enumerate() {
        let bytes = base64_decode(text).map_err(|error| {
            ServiceError::BadRequest(format!("file {} of the body: {error}", number + 1))
        })?;
        contents.push(bytes);
    }
    drop(encoded);
    for bytes in contents {
        let temp = TempFile::new(state.disk.temp_path());
        let size = bytes.len() as u64;
        tokio::fs::write(temp.path(), bytes).await?;
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
        };
        let record = store_and_index(&state, &caller, params, temp, size).await?;
        search.input_uids.push(record.uid);
    }
    json(&run(&state, &caller, &origin, search).await?)
}
