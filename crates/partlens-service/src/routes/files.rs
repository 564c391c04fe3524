//! `GET /api/File` (a record by UID or stored path) and `DELETE /api/File`.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::auth::Caller;
use crate::error::ServiceError;
use crate::params::required_uid_param;
use crate::records::{FileRelations, ImageUrls, file_map};
use crate::routes::caller_file::{find_caller_file, read_caller_file_by_uid_or_name};
use crate::routes::{Params, json, json_bool};
use crate::state::AppState;
use crate::upload::may_delete;
use crate::zip_upload::delete_bundle_entries;
use partlens_store::model::FileRecord;
use partlens_store::unix_now;
use partlens_visual::ViewSearch;

/// The FileMap reply of a record for `caller` (also used by `PUT /api/FileBinaryDirect`).
pub async fn file_map_reply(
    state: &AppState,
    caller: &Caller,
    record: FileRecord,
) -> Result<Response, ServiceError> {
    let (uid, company_id) = (record.uid.clone(), record.company_id.clone());
    let (texts, relations) = state
        .store
        .read_tx(move |tx| -> Result<_, ServiceError> {
            let texts = tx.attribute_texts_of(&uid)?;
            Ok((texts, FileRelations::read(tx, &company_id, &uid)?))
        })
        .await?;
    let urls = ImageUrls {
        links: &state.image_links,
        origin: &state.public_origin,
        viewer: caller,
        now: unix_now(),
    };
    json(&file_map(&record, texts, &relations, &urls))
}

/// Fetches a file record: `fileUID` first, else `fileName` (a database file's stored path).
pub async fn get_file(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let record = read_caller_file_by_uid_or_name(&state, &caller, &query).await?;
    file_map_reply(&state, &caller, record).await
}

/// Deletes a file: admins any file of their company, other users their own search inputs (403
/// `false` otherwise); unknown or already deleted is 404; an unexpected failure is 500 `false`.
///
/// The bytes and images are removed inside the same transaction (under the store's writer, so no
/// upload reusing the UID can come in between). One that cannot be removed (held open by another
/// program) stays on disk unused rather than failing the delete after the index entry is gone.
pub async fn delete_file(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let uid = required_uid_param(&query, "fileUID")?;
    let visual = state.indexer.visual().clone();
    let blobs = state.blobs.clone();
    let deleted = state
        .store
        .write_tx(move |tx| {
            let record = find_caller_file(tx, &caller.company_id, &uid)?;
            if !may_delete(&caller, &record) {
                return Err(ServiceError::Forbidden(if record.is_search_input {
                    "another user's search input".into()
                } else {
                    "deleting a company file needs an admin".into()
                }));
            }
            // A `.zip` bundle's entries go with it (zip_upload.rs).
            delete_bundle_entries(tx, &visual, &blobs, &record)?;
            tx.delete_file(&uid)?;
            visual.write()?.remove(&caller.company_id, &uid)?;
            if let Err(error) = blobs.remove_file_blocking(&uid) {
                tracing::warn!(uid, %error, "a deleted file's bytes or images stay on disk");
            }
            Ok(())
        })
        .await;
    match deleted {
        Ok(()) => {}
        Err(error) if error.status() == StatusCode::INTERNAL_SERVER_ERROR => {
            // The interface's 500 of this endpoint has the body `false`.
            tracing::error!(%error, "a delete failed");
            return Ok((
                StatusCode::INTERNAL_SERVER_ERROR,
                [(header::CONTENT_TYPE, "application/json")],
                "false",
            )
                .into_response());
        }
        Err(error) => return Err(error),
    }
    Ok(json_bool(true))
}
