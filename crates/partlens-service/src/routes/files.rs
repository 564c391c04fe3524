//! `GET /api/File` (a record by UID or stored path) and `DELETE /api/File`.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::caller::Caller;
use crate::derived_records::{delete_bundle_entries, delete_components};
use crate::error::ServiceError;
use crate::file_storing::may_delete;
use crate::pages::{check_page, page_param, pages_of};
use crate::params::{bool_param, required_uid_param};
use crate::records::{FileRelations, ImageUrls, file_map, page_detail, show_page};
use crate::routes::caller_file::{find_caller_file, read_caller_file_by_uid_or_name};
use crate::routes::{Params, json, json_bool};
use crate::same_part_links::same_part_parents;
use crate::state::AppState;
use partlens_api::encoding::QueryString;
use partlens_callbacks::events::record_file_event;
use partlens_store::model::FileRecord;
use partlens_store::model::callbacks::EVENT_FILE_DELETED;
use partlens_store::unix_now;
use partlens_visual::ViewSearch;

/// What a FileMap shows of a drawing's pages: the page its image URLs give (`lgFileNumber`; `None`:
/// page 1, and no `Page` field) and whether it lists every page (`includeShapelets`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageChoice {
    /// The page selected, from 1.
    pub page: Option<u32>,
    /// List every page with its pictures and view count (`Pages`, `ViewCount`).
    pub detail: bool,
}

impl PageChoice {
    /// Reads `lgFileNumber` and `includeShapelets` (400 for a value that is neither).
    pub fn from_query(query: &QueryString) -> Result<Self, ServiceError> {
        Ok(Self {
            page: page_param(query)?,
            detail: bool_param(query, "includeShapelets", false)?,
        })
    }
}

/// The FileMap reply of a record for `caller` (also used by `PUT /api/FileBinaryDirect`), showing
/// the page `choice` selects (a 400 that says the page count for a page the file does not have).
pub async fn file_map_reply(
    state: &AppState,
    caller: &Caller,
    record: FileRecord,
    choice: PageChoice,
) -> Result<Response, ServiceError> {
    let pages = pages_of(&record);
    if let Some(page) = choice.page {
        check_page(&record.uid, &pages, page)?;
    }
    let (uid, company_id) = (record.uid.clone(), record.company_id.clone());
    let (shared, read) = (state.clone(), record.clone());
    let (texts, relations, view_count) = state
        .store
        .read_tx(move |tx| -> Result<_, ServiceError> {
            let views = if choice.detail {
                tx.views_of(&uid)?.len()
            } else {
                0
            };
            let texts = tx.attribute_texts_of(&uid)?;
            let mut relations = FileRelations::read(tx, &company_id, &uid)?;
            // Where-used across the library (same_part_links.rs).
            relations.same_part_parents =
                same_part_parents(tx, &shared, &read, &relations.parents)?;
            Ok((texts, relations, views))
        })
        .await?;
    let urls = ImageUrls {
        links: &state.image_links,
        origin: &state.public_origin,
        viewer: caller,
        now: unix_now(),
    };
    let mut map = file_map(&record, texts, &relations, &urls);
    if let Some(page) = choice.page {
        let images = (&mut map.thumbnail_url, &mut map.large_image_url);
        show_page(&mut map.extra, images, &record, &pages, page, &urls);
        map.has_thumbnail = !map.thumbnail_url.is_empty();
    }
    if choice.detail {
        map.extra
            .insert("Pages".into(), page_detail(&record, &pages, &urls));
        map.extra
            .insert("ViewCount".into(), serde_json::Value::from(view_count));
    }
    json(&map)
}

/// Fetches a file record: `fileUID` first, else `fileName` (a database file's stored path); its
/// image URLs are page `lgFileNumber`'s, with every page listed when `includeShapelets=true`.
pub async fn get_file(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let choice = PageChoice::from_query(&query)?;
    let record = read_caller_file_by_uid_or_name(&state, &caller, &query).await?;
    file_map_reply(&state, &caller, record, choice).await
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
            // The callback's event, committed with the delete (partlens_callbacks::events).
            record_file_event(tx, &record, EVENT_FILE_DELETED)?;
            // A `.zip` bundle's entries go with it (zip_upload.rs).
            delete_bundle_entries(tx, &visual, &blobs, &record)?;
            // An assembly's components go with it (assembly_components.rs).
            delete_components(tx, &visual, &blobs, &record)?;
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
