//! `GET /api/Duplicates?minScore=` (this service's extension): the caller's company database files
//! that are the same part, in groups ([`crate::duplicates`]). Any user of the company may ask, as
//! for a search; `minScore` (0..1, default 0.885) outside its range is a 400.

use axum::extract::State;
use axum::response::Response;

use crate::caller::Caller;
use crate::duplicates::{find, min_score_param};
use crate::error::ServiceError;
use crate::routes::{Params, json};
use crate::state::AppState;

/// The duplicate groups of the caller's company.
pub async fn duplicates(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let min_score = min_score_param(query.get("minScore"))?;
    json(&find(&state, &caller, min_score).await?)
}
