//! The upload endpoints: `PUT /api/File` (JSON string of base64), `PUT /api/FileBinary` (raw bytes)
//! and `PUT /api/FileBinaryDirect` (raw bytes, FileMap reply). The work is in `service::upload`.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::body::BodyEncoding;
use crate::caller::Caller;
use crate::error::ServiceError;
use crate::routes::files::{PageChoice, file_map_reply};
use crate::routes::{Params, json_string};
use crate::state::AppState;
use crate::upload::upload;
use crate::upload_params::UploadParams;

/// `PUT /api/File`: the body is a JSON string holding the base64 of the file; replies with the UID.
pub async fn put_file(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let params = UploadParams::from_query(&query, true)?;
    let record = upload(
        &state,
        &caller,
        params,
        &headers,
        body,
        BodyEncoding::Base64JsonString,
    )
    .await?;
    Ok(json_string(&record.uid))
}

/// `PUT /api/FileBinary`: raw bytes; replies with the UID.
pub async fn put_file_binary(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let params = UploadParams::from_query(&query, true)?;
    let record = upload(&state, &caller, params, &headers, body, BodyEncoding::Raw).await?;
    Ok(json_string(&record.uid))
}

/// `PUT /api/FileBinaryDirect`: raw bytes, indexed during the call; replies with the FileMap, of page
/// `lgFileNumber` and with every page listed when `includeShapelets=true` (as `GET /api/File`; a
/// value that is no page number is refused before anything is stored, a page past the file's last
/// after it was stored, with a 400 that names the stored file's UID and its page count).
pub async fn put_file_binary_direct(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let params = UploadParams::from_query(&query, false)?;
    // Read before the upload, so that a value that is no page number stores nothing.
    let choice = PageChoice::from_query(&query)?;
    let record = upload(&state, &caller, params, &headers, body, BodyEncoding::Raw).await?;
    file_map_reply(&state, &caller, record, choice).await
}
