//! `GET /api/Files?offset=&limit=&kind=&folder=&filterStr=` (this service's extension): one page
//! of the caller's company's database files, newest first ([`crate::library`]). Any user of the
//! company may ask, as for a search; a `limit` outside 1..=500, an `offset` that is not a whole
//! number or a `kind` that names no kind is a 400.

use axum::extract::State;
use axum::response::Response;

use crate::caller::Caller;
use crate::error::ServiceError;
use crate::library::{LibraryRequest, list};
use crate::routes::{Params, json};
use crate::state::AppState;

/// A page of the caller's company's library.
pub async fn list_files(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let request = LibraryRequest::from_query(&query)?;
    json(&list(&state, &caller, request).await?)
}
