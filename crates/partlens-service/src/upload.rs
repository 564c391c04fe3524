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
//! Storing is one store transaction taken step by step: permission (`check_overwrite_allowed`),
//! UID choice (`choose_uid`), database (`save_record`), disk (the bytes move in, the replaced
//! file's go) and the visual index (`forget_old_views`); indexing follows, during the call or by a
//! worker.

use axum::body::Body;
use axum::http::HeaderMap;

use partlens_api::Attribute;
use partlens_api::encoding::{QueryString, decode_nested_attributes_query};
use partlens_api::limits::MIN_UPLOAD_SIZE;

use super::blobs::BlobKey;
use super::body::{BodyEncoding, TempFile, receive_upload};
use super::error::ServiceError;
use super::params::{
    bool_param, optional_bool_param, optional_integer_param, optional_uid_param, text_param,
};
use super::state::AppState;
use super::stored_path::{StoredPath, parse_search_input_extension};
use crate::auth::Caller;
use partlens_callbacks::events::record_event_of;
use partlens_store::StoreTx;
use partlens_store::iso_now;
use partlens_store::model::ClaimedJob;
use partlens_store::model::attributes;
use partlens_store::model::callbacks::EVENT_FILE_DELETED;
use partlens_store::model::{FileRecord, IndexState, NewContent};
use partlens_visual::{ViewSearch, VisualKeeper};

/// The extension of the archives read as what they hold (zip_upload.rs).
pub const ZIP_EXTENSION: &str = ".zip";

/// What the upload becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadTarget {
    /// A search input with this extension.
    SearchInput {
        /// Lower-case extension with the dot.
        extension: String,
    },
    /// A company-database file at this stored path.
    Database(StoredPath),
}

/// The parameters of an upload that this service acts on (legacy and internal ones are accepted and
/// ignored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadParams {
    /// Search input or database file.
    pub target: UploadTarget,
    /// Queue for indexing and answer at once (search inputs only).
    pub index_async: bool,
    /// The UID to use (canonical), overwriting a file of the company with that UID.
    pub uid: Option<String>,
    /// Duplicate-path behaviour of database uploads.
    pub overwrite_file: Option<bool>,
    /// Attributes of a database upload.
    pub attributes: Option<Vec<Attribute>>,
    /// The body is gzipped.
    pub gzipped: bool,
    /// Kept with the record for callbacks.
    pub callback_param: Option<String>,
    /// `textOnly=true`: index the file's text and attributes only.
    pub text_only: bool,
    /// `categoryId`: the company's category a database file is filed under.
    pub category_id: Option<i64>,
    /// `indexAssemblyComponents=true`: a database assembly's components get records of their own
    /// ([`crate::assembly_components`]).
    pub index_assembly_components: bool,
}

impl UploadParams {
    /// Reads the query of `PUT /api/File` and the binary endpoints. `async_allowed` is false for
    /// `PUT /api/FileBinaryDirect`, where `indexAsync` does not exist.
    pub fn from_query(query: &QueryString, async_allowed: bool) -> Result<Self, ServiceError> {
        let file = text_param(query, "file").ok_or_else(|| {
            ServiceError::BadRequest(
                "the file parameter is required: the extension of a search input (file=.png) or the \
                 stored path of a database file"
                    .into(),
            )
        })?;
        let is_search_input = bool_param(query, "isSearchInput", true)?;
        let index_async = async_allowed && bool_param(query, "indexAsync", false)?;
        let target = if is_search_input {
            UploadTarget::SearchInput {
                extension: parse_search_input_extension(file)?,
            }
        } else {
            UploadTarget::Database(StoredPath::parse(file)?)
        };
        if let UploadTarget::SearchInput { extension } = &target
            && index_async
            && extension == ".zip"
        {
            return Err(ServiceError::BadRequest(
                ".zip search inputs cannot be indexed asynchronously; upload without indexAsync"
                    .into(),
            ));
        }
        let attributes = match (&target, text_param(query, "attributes")) {
            (UploadTarget::Database(_), Some(nested)) => Some(
                decode_nested_attributes_query(nested)
                    .into_iter()
                    .map(|(name, value)| {
                        let attribute = Attribute::parse(&format!("{name}={value}"))
                            .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
                        attribute
                            .validate()
                            .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
                        Ok(attribute)
                    })
                    .collect::<Result<Vec<_>, ServiceError>>()?,
            ),
            _ => None,
        };
        Ok(Self {
            index_async: index_async && matches!(target, UploadTarget::SearchInput { .. }),
            target,
            uid: optional_uid_param(query, "uid")?,
            overwrite_file: optional_bool_param(query, "overwriteFile")?,
            attributes,
            gzipped: bool_param(query, "isGZipCompressed", false)?,
            callback_param: text_param(query, "callbackParam").map(str::to_owned),
            text_only: bool_param(query, "textOnly", false)?,
            category_id: optional_integer_param(query, "categoryId")?,
            index_assembly_components: bool_param(query, "indexAssemblyComponents", false)?,
        })
    }

    /// True for a search input, false for a company-database file.
    pub fn is_search_input(&self) -> bool {
        matches!(self.target, UploadTarget::SearchInput { .. })
    }

    /// The lower-case extension with the dot.
    pub fn extension(&self) -> &str {
        match &self.target {
            UploadTarget::SearchInput { extension } => extension,
            UploadTarget::Database(path) => &path.extension,
        }
    }
}

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

/// True when the caller may replace or delete the file: admins anything of their company, others
/// their own search inputs.
pub fn may_delete(caller: &Caller, record: &FileRecord) -> bool {
    caller.admin || (record.is_search_input && record.owner_user_id == caller.user_id)
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
    store_and_index_file(state, caller, params, file, size).await
}

/// Stores one file as [`store_and_index`] says and indexes it (the `.zip` hook calls it for each
/// file it stores).
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
            crate::zip_upload::forget_replaced_bundles(
                tx,
                (&visual, &blobs),
                &caller.company_id,
                &place.uid,
                place.replaced.as_deref(),
                stays_a_bundle,
            )?;
            crate::assembly_components::forget_replaced_components(
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
            forget_old_views(&visual, &caller.company_id, &place)?;
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
/// (indexing puts the new ones in).
fn forget_old_views(
    visual: &VisualKeeper,
    company_id: &str,
    place: &Placement,
) -> Result<(), ServiceError> {
    let mut library = visual.write()?;
    library.remove(company_id, &place.uid)?;
    if let Some(replaced) = &place.replaced {
        library.remove(company_id, replaced)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_as_documented() {
        let query = QueryString::parse(
            "file=Design%2Fbracket.png&isSearchInput=false&indexAsync=true&attributes=material%3Dsteel%26region%3DEU%257CUS&overwriteFile=false&rmIfDup=true&isPriority=true",
        );
        let params = UploadParams::from_query(&query, true).unwrap();
        assert!(
            !params.index_async,
            "database files are indexed during the call"
        );
        assert_eq!(params.overwrite_file, Some(false));
        let attributes = params.attributes.unwrap();
        assert_eq!(attributes[1].values, vec!["EU", "US"]);
        match params.target {
            UploadTarget::Database(path) => assert_eq!(path.path, "Design/bracket.png"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn zip_with_index_async_and_bad_values_are_refused() {
        for query in [
            "file=.zip&indexAsync=true",
            "",
            "file=.png&uid=nope",
            "file=.png&indexAsync=maybe",
            "file=..%2Fx.png&isSearchInput=false",
        ] {
            assert!(
                matches!(
                    UploadParams::from_query(&QueryString::parse(query), true),
                    Err(ServiceError::BadRequest(_))
                ),
                "{query}"
            );
        }
        let direct =
            UploadParams::from_query(&QueryString::parse("file=.zip&indexAsync=true"), false);
        assert!(!direct.unwrap().index_async);
    }

    /// Waits (with a deadline) until the file's indexing has ended, and returns its state.
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

    #[test]
    fn search_inputs_ignore_attributes() {
        let query = QueryString::parse("file=.png&attributes=a%3Db");
        assert_eq!(
            UploadParams::from_query(&query, true).unwrap().attributes,
            None
        );
    }
}
