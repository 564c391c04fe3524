//! Storing one uploaded file of the caller's company and indexing it, as every upload does it
//! (one file, each entry of a `.zip` bundle, each component of an assembly).
//!
//! Storing is one store transaction taken step by step: permission (`check_overwrite_allowed`),
//! UID choice (`choose_uid`), database (`save_record`), the records derived from a replaced file
//! ([`crate::derived_records`]), disk (the bytes move in, the replaced file's go) and the visual
//! index (`forget_old_views`); indexing follows, during the call or by a worker.

use partlens_callbacks::events::record_event_of;
use partlens_store::StoreTx;
use partlens_store::iso_now;
use partlens_store::model::ClaimedJob;
use partlens_store::model::attributes;
use partlens_store::model::callbacks::EVENT_FILE_DELETED;
use partlens_store::model::{FileRecord, IndexState, NewContent};
use partlens_visual::{ViewSearch, VisualKeeper};

use super::blobs::BlobKey;
use super::body::TempFile;
use super::caller::Caller;
use super::error::ServiceError;
use super::state::AppState;
use super::upload_params::{UploadParams, UploadTarget, ZIP_EXTENSION};

/// True when the caller may replace or delete the file: admins anything of their company, others
/// their own search inputs.
pub fn may_delete(caller: &Caller, record: &FileRecord) -> bool {
    caller.admin || (record.is_search_input && record.owner_user_id == caller.user_id)
}

/// Stores one file as [`crate::upload::store_and_index`] says and indexes it (a `.zip` bundle and
/// an assembly call it for each file they store).
pub(crate) async fn store_and_index_file(
    state: &AppState,
    caller: &Caller,
    params: UploadParams,
    file: TempFile,
    size: u64,
) -> Result<FileRecord, ServiceError> {
    let index_async = params.index_async;
    let is_search_input = params.is_search_input();
    let extension = params.extension().to_owned();
    let text_only = params.text_only;
    let (uid, revision) = store_file(state, caller, params, file, size).await?;
    if index_async {
        state
            .indexer
            .job_queued(&caller.company_id, is_search_input);
    } else {
        state
            .indexer
            .index(ClaimedJob {
                uid: uid.clone(),
                revision,
                extension,
                company_id: caller.company_id.clone(),
                is_search_input,
                text_only,
            })
            .await?;
    }
    let company_id = caller.company_id.clone();
    state
        .store
        .read_tx(move |tx| tx.find_file(&company_id, &uid))
        .await?
        .ok_or_else(|| ServiceError::NotFound("the file was deleted while it was uploaded".into()))
}

/// The store transaction of an upload (permission, UID, record, bytes, old views), leaving the
/// record in progress (queued with `indexAsync`) with its job queued. Returns its UID and revision.
pub(crate) async fn store_file(
    state: &AppState,
    caller: &Caller,
    params: UploadParams,
    file: TempFile,
    size: u64,
) -> Result<(String, i64), ServiceError> {
    let caps = state.config.limits.attribute_caps();
    let blobs = state.blobs.clone();
    let visual = state.indexer.visual().clone();
    let caller_in = caller.clone();
    state
        .store
        .write_tx(move |tx| -> Result<_, ServiceError> {
            let caller = caller_in;
            check_overwrite_allowed(tx, &caller, &params)?;
            let place = choose_uid(tx, &caller, &params)?;
            let stays_a_bundle = !params.is_search_input() && params.extension() == ZIP_EXTENSION;
            crate::derived_records::forget_replaced_bundles(
                tx,
                (&visual, &blobs),
                &caller.company_id,
                &place.uid,
                place.replaced.as_deref(),
                stays_a_bundle,
            )?;
            crate::derived_records::forget_replaced_components(
                tx,
                (&visual, &blobs),
                &caller.company_id,
                (&place.uid, place.replaced.as_deref()),
                params.index_assembly_components && !params.is_search_input(),
            )?;
            let revision = save_record(tx, &caller, &params, &place, size, &caps)?;
            // The old images go and the bytes move in before the commit, so no worker can see the
            // job without them; what fails here fails before anything else changed on disk.
            blobs.remove_images_blocking(&place.uid)?;
            blobs.persist_blocking(BlobKey::Content(&place.uid), file)?;
            forget_old_views(&visual, &caller.company_id, &place, revision)?;
            if let Some(replaced) = &place.replaced {
                // Its record is gone with this commit; bytes that cannot be removed (held open by
                // another program) stay on disk unused rather than failing the upload.
                if let Err(error) = blobs.remove_file_blocking(replaced) {
                    tracing::warn!(uid = replaced, %error, "a replaced file's bytes stay on disk");
                }
            }
            Ok((place.uid, revision))
        })
        .await
}

/// Permission: an upload with the UID of an existing file may overwrite it only within the caller's
/// company, another user's search input only as an admin, and a database file with a search input
/// only as an admin (that takes it out of the database, like a delete).
fn check_overwrite_allowed(
    tx: &mut dyn StoreTx,
    caller: &Caller,
    params: &UploadParams,
) -> Result<(), ServiceError> {
    let Some(uid) = &params.uid else {
        return Ok(());
    };
    let Some(existing) = tx.find_any_file(uid)? else {
        return Ok(());
    };
    if existing.company_id != caller.company_id {
        // 409 whoever holds it: the answer must not tell one company's UIDs from another's.
        return Err(ServiceError::Conflict(format!(
            "the UID {uid} cannot be used; choose another or leave uid out"
        )));
    }
    if existing.is_search_input && !may_delete(caller, &existing) {
        return Err(ServiceError::Forbidden(
            "only an admin may overwrite another user's search input".into(),
        ));
    }
    // Turning a database file into a search input takes it out of the database (and lets its owner
    // delete it): that is a delete, which needs an admin.
    if !existing.is_search_input && params.is_search_input() && !caller.admin {
        return Err(ServiceError::Forbidden(
            "only an admin may overwrite a company-database file with a search input".into(),
        ));
    }
    Ok(())
}

/// Where an upload goes: the UID it is stored under, and the file it replaces at its stored path
/// (a database file uploaded with a UID of its own over another file at that path).
struct Placement {
    /// The UID the upload is stored under.
    uid: String,
    /// The UID of the file it replaces (its record and bytes go), if any.
    replaced: Option<String>,
}

/// UID choice: the UID asked for; else that of the database file already at the stored path
/// (overwritten in place); else a new one. A file already at the path is refused with
/// `overwriteFile=false`; replacing it by a file of another UID deletes it, so it needs the
/// permission a delete needs (an admin; 403 otherwise).
fn choose_uid(
    tx: &mut dyn StoreTx,
    caller: &Caller,
    params: &UploadParams,
) -> Result<Placement, ServiceError> {
    let path_holder = match &params.target {
        UploadTarget::Database(path) => tx.find_file_by_path(&caller.company_id, &path.path)?,
        UploadTarget::SearchInput { .. } => None,
    };
    if let Some(holder) = &path_holder
        && params.overwrite_file == Some(false)
        && params.uid.as_deref() != Some(holder.uid.as_str())
    {
        return Err(ServiceError::BadRequest(format!(
            "a file is already stored at {}; send overwriteFile=true to replace it",
            holder.stored_path
        )));
    }
    let (uid, replaced) = match (&params.uid, path_holder) {
        (Some(uid), Some(holder)) if holder.uid != *uid => {
            if !may_delete(caller, &holder) {
                return Err(ServiceError::Forbidden(
                    "only an admin may replace a company file with a file of another UID: that \
                     deletes it"
                        .into(),
                ));
            }
            (uid.clone(), Some(holder.uid))
        }
        (Some(uid), _) => (uid.clone(), None),
        (None, Some(holder)) => (holder.uid, None),
        (None, None) => (uuid::Uuid::new_v4().hyphenated().to_string(), None),
    };
    Ok(Placement { uid, replaced })
}

/// Database: deletes the record of the replaced file, writes the file's record (queued, or in
/// progress when it is indexed during the call) with its attributes (and category, within
/// `caps`), and queues its indexing job. Returns the record's revision.
fn save_record(
    tx: &mut dyn StoreTx,
    caller: &Caller,
    params: &UploadParams,
    place: &Placement,
    size: u64,
    caps: &attributes::AttributeCaps,
) -> Result<i64, ServiceError> {
    let now = iso_now();
    let category = crate::categories::category_of_upload(tx, &caller.company_id, params)?;
    if let Some(replaced) = &place.replaced {
        record_event_of(tx, replaced, EVENT_FILE_DELETED)?;
        tx.delete_file(replaced)?;
    }
    let uid = &place.uid;
    let (stored_path, display_name) = match &params.target {
        UploadTarget::Database(path) => (path.path.clone(), path.name.clone()),
        UploadTarget::SearchInput { extension } => {
            let name = format!("{uid}{extension}");
            (name.clone(), name)
        }
    };
    let revision = tx.upsert_file(
        &NewContent {
            uid: uid.clone(),
            company_id: caller.company_id.clone(),
            owner_user_id: caller.user_id,
            is_search_input: params.is_search_input(),
            stored_path,
            display_name,
            extension: params.extension().to_owned(),
            size,
            state: if params.index_async {
                IndexState::Queued
            } else {
                IndexState::InProgress
            },
            callback_param: params.callback_param.clone(),
            text_only: params.text_only,
        },
        &now,
    )?;
    let filed = match &category {
        Some(category) => Some(crate::categories::attributes_with_category(
            tx,
            uid,
            params.attributes.as_deref(),
            category,
            caps,
        )?),
        None => params.attributes.clone(),
    };
    if let Some(list) = &filed {
        tx.replace_attributes(&caller.company_id, uid, list)?;
    }
    tx.enqueue_job(uid, &now)?;
    Ok(revision)
}

/// Index: the stored file's old views, and those of the file it replaces, leave the visual index
/// (indexing puts the new ones in). A new file (its first revision, replacing none) has none, and
/// the index is not locked for it: a ranking under way (a search, a pairing) holds it for reading,
/// and this runs inside the store's write transaction, which every other writer would wait behind.
fn forget_old_views(
    visual: &VisualKeeper,
    company_id: &str,
    place: &Placement,
    revision: i64,
) -> Result<(), ServiceError> {
    if revision <= 1 && place.replaced.is_none() {
        return Ok(());
    }
    let mut library = visual.write()?;
    library.remove(company_id, &place.uid)?;
    if let Some(replaced) = &place.replaced {
        library.remove(company_id, replaced)?;
    }
    Ok(())
}
