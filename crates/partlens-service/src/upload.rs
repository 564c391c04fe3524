//! Uploads: reading the parameters, receiving the body within the limits, storing the file as a
//! search input or a company-database file, and indexing it (during the call, or queued).
//!
//! Behaviour the spec leaves open, as this service defines it:
//! - `overwriteFile` (database files): `true` or omitted replaces the file already stored at that path
//!   in place, keeping its UID; `false` refuses the upload with 400 and a message saying so.
//! - `uid` of an existing file of the caller's company overwrites it (a UID used by another company is
//!   refused with 409, worded as for any UID that cannot be used, so it reveals no other company's
//!   UIDs). Overwriting another user's search input needs an admin (403 otherwise);
//!   database files may be uploaded and overwritten in place (same UID) by every user of the
//!   company, but what deletes one needs an admin, as `DELETE /api/File` does (403 otherwise):
//!   overwriting it with a search input (that takes it out of the database) and uploading a file of
//!   another UID to its stored path (that replaces it).
//! - A replaced file keeps its attributes unless the upload sends `attributes`, which are held to
//!   the attribute caps of a file (400 before the body is read).
//! - `indexAsync` is honoured for search inputs only; database files are indexed during the call.
//! - Content that cannot be decoded still gets its UID; its status is then 422 `failed`.
//! - `isGZipCompressed=true`: the bytes are gunzipped before they are stored.
//! - `textOnly=true`: the file is indexed for its text and attributes only (no views, no
//!   pictures: [`partlens_engine::analyze_text_only`]), either role.
//! - `categoryId`: see [`crate::categories`] (checked before the body is read, and again as the
//!   file is stored).
//! - A `.zip` is read as what it holds, its archive checked before anything is stored
//!   ([`crate::zip_upload`]).
//! - `indexAssemblyComponents=true`: see [`crate::assembly_components`].
//!
//! Storing one file and indexing it is [`crate::file_storing`]'s.

use axum::body::Body;
use axum::http::HeaderMap;

use partlens_api::limits::MIN_UPLOAD_SIZE;

use super::body::{BodyEncoding, TempFile, receive_upload};
use super::error::ServiceError;
use super::state::AppState;
use super::upload_params::{UploadParams, ZIP_EXTENSION};
use crate::caller::Caller;
use partlens_store::model::FileRecord;
use partlens_store::model::attributes;

/// Receives the body of an upload endpoint, stores and indexes the file, and returns its record.
pub async fn upload(
    state: &AppState,
    caller: &Caller,
    mut params: UploadParams,
    headers: &HeaderMap,
    body: Body,
    encoding: BodyEncoding,
) -> Result<FileRecord, ServiceError> {
    // Attributes over the caps are refused before the body is read.
    if let Some(list) = params.attributes.take() {
        let list = attributes::one_per_name(list);
        state.config.limits.attribute_caps().check(&list)?;
        params.attributes = Some(list);
    }
    // A category that cannot be used is refused before the body is read (and checked again as
    // the file is stored).
    let (company_id, checked) = (caller.company_id.clone(), params.clone());
    state
        .store
        .read_tx(move |tx| crate::categories::category_of_upload(tx, &company_id, &checked))
        .await?;
    let limit = state.config.max_body_bytes;
    let received = receive_upload(body, headers, limit, encoding, state.disk.temp_path()).await?;
    if received.measured_size < MIN_UPLOAD_SIZE {
        let unit = match encoding {
            BodyEncoding::Raw => "bytes",
            BodyEncoding::Base64JsonString => "base64 characters",
        };
        return Err(ServiceError::BadRequest(format!(
            "the upload is {} {unit}; the minimum is {MIN_UPLOAD_SIZE}",
            received.measured_size
        )));
    }
    let (file, size) = if params.gzipped {
        gunzip(state, received.file, limit).await?
    } else {
        (received.file, received.size)
    };
    store_and_index(state, caller, params, file, size).await
}

/// Decompresses a gzipped upload into a new temporary file, refusing more than `limit` bytes.
async fn gunzip(
    state: &AppState,
    file: TempFile,
    limit: u64,
) -> Result<(TempFile, u64), ServiceError> {
    let output = TempFile::new(state.disk.temp_path());
    tokio::task::spawn_blocking(move || {
        use std::io::Read as _;
        let input = std::fs::File::open(file.path())?;
        let mut decoder =
            flate2::read::GzDecoder::new(std::io::BufReader::new(input)).take(limit + 1);
        let mut writer = std::io::BufWriter::new(super::disk::create_private_file(output.path())?);
        let size = std::io::copy(&mut decoder, &mut writer).map_err(|error| {
            ServiceError::BadRequest(format!(
                "isGZipCompressed=true but the bytes are not gzip: {error}"
            ))
        })?;
        if size > limit {
            return Err(ServiceError::PayloadTooLarge { limit });
        }
        std::io::Write::flush(&mut writer)?;
        Ok((output, size))
    })
    .await?
}

/// Stores received bytes as a file of the caller's company and indexes them (during the call unless
/// `indexAsync`). Returns the record as it is after the call.
///
/// The work runs in a task of its own: a client that gives up (a timeout, a closed connection) while
/// the file is being stored or indexed cancels only its wait for the answer, never the work, so no
/// file is left stored but not indexed (in progress for ever).
pub async fn store_and_index(
    state: &AppState,
    caller: &Caller,
    params: UploadParams,
    file: TempFile,
    size: u64,
) -> Result<FileRecord, ServiceError> {
    let (state, caller) = (state.clone(), caller.clone());
    tokio::spawn(async move { store_and_index_now(&state, &caller, params, file, size).await })
        .await?
}

async fn store_and_index_now(
    state: &AppState,
    caller: &Caller,
    params: UploadParams,
    file: TempFile,
    size: u64,
) -> Result<FileRecord, ServiceError> {
    // A `.zip` is read as what it holds (zip_upload.rs), its archive checked before anything is
    // stored.
    if params.extension() == ZIP_EXTENSION {
        return crate::zip_upload::store_zip(state, caller, params, file, size).await;
    }
    // An assembly's components get records of their own (assembly_components.rs).
    if params.index_assembly_components && !params.is_search_input() {
        return crate::assembly_components::store_assembly(state, caller, params, file, size).await;
    }
    crate::file_storing::store_and_index_file(state, caller, params, file, size).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upload_params::UploadTarget;
    use partlens_store::model::IndexState;

    async fn final_state(state: &AppState, uid: &str) -> IndexState {
        let started = std::time::Instant::now();
        loop {
            let uid = uid.to_owned();
            let record = state
                .store
                .read_tx(move |tx| tx.find_any_file(&uid))
                .await
                .unwrap();
            let state_now = record.as_ref().map(|record| record.state);
            if let Some(ended @ (IndexState::Completed | IndexState::Failed)) = state_now {
                return ended;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "indexing never ended: {state_now:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_upload_whose_client_gives_up_while_it_waits_is_still_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let (state, caller) = crate::state::state_for_tests(dir.path()).await;
        // Another write holds the store, so the upload waits for it.
        let (held, holding) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let holder = state.store.clone();
        let holding_thread = std::thread::spawn(move || {
            holder.write_tx_blocking(|_| -> Result<(), ServiceError> {
                held.send(()).unwrap();
                released.recv().unwrap();
                Ok(())
            })
        });
        holding.recv().unwrap();
        let uid = uuid::Uuid::new_v4().hyphenated().to_string();
        let file = TempFile::new(state.disk.temp_path());
        std::fs::write(file.path(), b"ISO-10303-21;\n".repeat(100)).unwrap();
        let params = UploadParams {
            target: UploadTarget::SearchInput {
                extension: ".dwg".into(),
            },
            index_async: false,
            uid: Some(uid.clone()),
            overwrite_file: None,
            attributes: None,
            gzipped: false,
            callback_param: None,
            text_only: false,
            category_id: None,
            index_assembly_components: false,
        };
        // The request is polled once (it starts, then waits for the store) and then dropped, as
        // when its client disconnects.
        let upload = store_and_index(&state, &caller, params, file, 1400);
        assert!(futures_util::FutureExt::now_or_never(upload).is_none());
        release.send(()).unwrap();
        holding_thread.join().unwrap().unwrap();
        assert_eq!(final_state(&state, &uid).await, IndexState::Completed);
    }
}
