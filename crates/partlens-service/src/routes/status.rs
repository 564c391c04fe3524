//! `GET /api/FileStatus`: 204 while indexing, 200 with the ISO 8601 index time when done, 422
//! `failed` (the spec's body; why, in words, in the `X-Failure-Reason` header), 404 unknown; every
//! reply `Cache-Control: no-store`.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::caller::Caller;
use crate::error::ServiceError;
use crate::failure_reason::{FAILURE_REASON_HEADER, FailureReason};
use crate::params::required_uid_param;
use crate::routes::caller_file::read_caller_file;
use crate::routes::{Params, json_string};
use crate::state::AppState;
use partlens_store::model::IndexState;

/// The indexing state of a file of the caller's company.
pub async fn file_status(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let uid = required_uid_param(&query, "fileUID")?;
    let record = read_caller_file(&state, &caller, &uid).await?;
    Ok(match record.state {
        IndexState::Queued | IndexState::InProgress => StatusCode::NO_CONTENT.into_response(),
        IndexState::Completed => json_string(record.indexed_at.as_deref().unwrap_or_default()),
        IndexState::Failed => {
            let mut response = (
                StatusCode::UNPROCESSABLE_ENTITY,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "failed",
            )
                .into_response();
            // Stored reasons are ASCII on one line; an older or damaged one is made so here.
            let reason = record
                .failure_reason
                .as_deref()
                .map(FailureReason::new)
                .and_then(|reason| HeaderValue::from_str(reason.as_str()).ok());
            if let Some(reason) = reason {
                response.headers_mut().insert(FAILURE_REASON_HEADER, reason);
            }
            response
        }
    })
}

/// Adds `Cache-Control: no-store` to a reply (every FileStatus reply, errors included).
pub async fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
