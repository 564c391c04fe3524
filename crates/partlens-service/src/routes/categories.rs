//! `GET /api/Categories` (beyond the interface, see [`partlens_api::categories`]): the caller's
//! company's file categories, by id, for an upload form to offer.

use axum::extract::State;
use axum::response::Response;

use crate::caller::Caller;
use crate::error::ServiceError;
use crate::routes::json;
use crate::state::AppState;
use partlens_api::FileCategory;

/// The caller's company's file categories, by id (an empty array when it has none).
pub async fn company_categories(
    caller: Caller,
    State(state): State<AppState>,
) -> Result<Response, ServiceError> {
    let categories = state
        .store
        .read_tx(move |tx| tx.categories_of(&caller.company_id))
        .await?;
    let list: Vec<FileCategory> = categories
        .into_iter()
        .map(|category| FileCategory {
            id: category.id,
            name: category.name,
            required_attributes: category.required_attributes,
        })
        .collect();
    json(&list)
}
