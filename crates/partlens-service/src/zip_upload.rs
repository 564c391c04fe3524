//! `.zip` uploads read as what they hold, through the limits of `partlens_archive` (entries, sizes,
//! compression ratio, nesting, names, links). The archive is unpacked and checked **before anything
//! is stored**: a refused archive is a 400 that names the limit, and leaves no record and no bytes.
//!
//! - **A company-database `.zip` is a bundle.** The zip is stored as a record of its own; each entry
//!   partlens reads (a model, a drawing or a picture) becomes a company-database record at
//!   `<zip folder>/<zip stem>/<entry path>` (`Design/parts.zip`'s `brackets/L.step` is
//!   `Design/parts/brackets/L.step`), uploaded and indexed as that file would be on its own (views,
//!   thumbnail, status; the zip's `attributes`, when sent, are given to each entry too). A file
//!   already at such a path is replaced in place (its UID kept). The zip's record lists the entries
//!   in `AssemblyChildren` (quantity 1, in archive order) and each entry's record names the zip in
//!   `AssemblyParents` (the store's file relations). Entries partlens does not read, and entries
//!   whose path is no valid stored path, are skipped and listed on the zip's record as the extracted
//!   attribute `archive_skipped=<name>|<name>…` beside `archive_entries=<records made>`; the entry
//!   names are the zip's text (found by free text). The zip is completed once its entries are
//!   indexed, during the call. Uploading it again replaces its entries: an entry of the same path
//!   keeps its record, one no longer in the archive is deleted; deleting the zip deletes its
//!   entries ([`delete_bundle_entries`]), and so does replacing it by another file (of another UID
//!   at its path, or in place by one that is no database `.zip`: [`forget_replaced_bundles`]). An
//!   entry that another bundle also lists is left to it. A zip whose upload the service did not
//!   finish (it stopped meanwhile) ends failed after the restart, its reason saying to upload it
//!   again.
//! - **A `.zip` search input holds the views of one part**: at most [`MAX_SEARCH_ZIP_ENTRIES`]
//!   pictures or models (anything else is a 400). Its record's views are those of its files in
//!   archive order ([`analyze_search_zip`]), so a search by its UID is the multi-view search by
//!   those files' UIDs. Its thumbnail is its first file's.

use std::collections::HashSet;

use partlens_api::encoding::file_extension;
use partlens_archive::{ArchiveEntry, ArchiveError, ArchiveLimits, read_zip};
use partlens_callbacks::events::record_event_of;
use partlens_store::model::callbacks::{
    EVENT_FILE_DELETED, EVENT_INDEXING_COMPLETED, EVENT_INDEXING_FAILED,
};
use partlens_store::model::{ClaimedJob, FileRecord, IndexedContent, IndexingFailure, NewRelation};
use partlens_store::{StoreTx, iso_now};
use partlens_visual::{ViewSearch, VisualKeeper};

use super::blobs::Blobs;
use super::body::TempFile;
use super::error::ServiceError;
use super::failure_reason::FailureReason;
use super::indexing::{Indexer, Read};
use super::reader_pool::ReaderSlot;
use super::state::AppState;
use super::stored_path::StoredPath;
use super::upload::{UploadParams, UploadTarget, ZIP_EXTENSION, store_and_index_file, store_file};
use crate::auth::Caller;

/// Most files a `.zip` search input may hold: the views of one part, as many as one
/// `PUT /api/Search` takes.
pub const MAX_SEARCH_ZIP_ENTRIES: usize = 10;

/// The extracted attribute of a bundle's record that counts the records its entries became.
pub const ENTRIES_ATTRIBUTE: &str = "archive_entries";

/// The extracted attribute of a bundle's record that lists the entries skipped (`|` between
/// names).
pub const SKIPPED_ATTRIBUTE: &str = "archive_skipped";

/// Most skipped names listed on a bundle's record; more are counted (`… and N more`).
pub const MAX_LISTED_SKIPPED: usize = 100;

/// True for the formats partlens reads: models, drawings and pictures.
fn is_read(extension: &str) -> bool {
    is_picture_or_model(extension) || partlens_engine::drawing::is_drawing_extension(extension)
}

/// True for the formats a `.zip` search input may hold.
fn is_picture_or_model(extension: &str) -> bool {
    partlens_geometry::is_model_extension(extension)
        || partlens_engine::is_image_extension(extension)
}

/// Stores a `.zip` upload (search input or database file) once its archive passed the limits.
pub(crate) async fn store_zip(
    state: &AppState,
    caller: &Caller,
    params: UploadParams,
    file: TempFile,
    size: u64,
) -> Result<FileRecord, ServiceError> {
    let limits = ArchiveLimits {
        max_archive_bytes: state.config.max_body_bytes,
        ..ArchiveLimits::default()
    };
    let entries = unpack(file.path(), limits).await?;
    match params.target.clone() {
        UploadTarget::SearchInput { .. } => {
            check_search_entries(&entries).map_err(ServiceError::BadRequest)?;
            drop(entries);
            store_and_index_file(state, caller, params, file, size).await
        }
        UploadTarget::Database(path) => {
            store_bundle(state, caller, params, &path, (file, size), entries).await
        }
    }
}

/// Unpacks the archive at `archive` beside it (its folder is the service's temporary one), on a
/// blocking thread; a refusal is a 400 that says which limit.
async fn unpack(
    archive: &std::path::Path,
    limits: ArchiveLimits,
) -> Result<Vec<ArchiveEntry>, ServiceError> {
    let archive = archive.to_owned();
    let read = tokio::task::spawn_blocking(move || {
        let folder = archive.parent().unwrap_or(std::path::Path::new("."));
        read_zip(&archive, folder, &limits)
    })
    .await?;
    read.map_err(|error| match error {
        ArchiveError::Storage(error) => ServiceError::Io(error),
        refusal => ServiceError::BadRequest(format!("the .zip is refused: {refusal}")),
    })
}

/// Why the files of a `.zip` search input are not the views of one part, if they are not.
fn check_search_entries(entries: &[ArchiveEntry]) -> Result<(), String> {
    if entries.is_empty() {
        return Err(
            "the .zip search input holds no file; put the pictures or models of one part in it"
                .into(),
        );
    }
    if entries.len() > MAX_SEARCH_ZIP_ENTRIES {
        return Err(format!(
            "the .zip search input holds {} files; it holds the views of one part, at most \
             {MAX_SEARCH_ZIP_ENTRIES} pictures or models",
            entries.len()
        ));
    }
    if let Some(entry) = entries
        .iter()
        .find(|entry| !is_picture_or_model(&file_extension(&entry.name)))
    {
        return Err(format!(
            "the file \"{}\" of the .zip search input is not a picture or a model; a .zip search \
             input holds only the pictures or models of one part",
            entry.name
        ));
    }
    Ok(())
}

/// The entries of a bundle that become records (each with its stored path), and the names of
/// those skipped.
struct BundlePlan {
    read: Vec<(StoredPath, ArchiveEntry)>,
    skipped: Vec<String>,
}

/// The folder a bundle's entries are stored under: the zip's stored path without its extension.
fn bundle_folder(zip_path: &str) -> &str {
    zip_path
        .strip_suffix(ZIP_EXTENSION)
        .or_else(|| zip_path.rsplit_once('.').map(|(stem, _)| stem))
        .unwrap_or(zip_path)
}

fn plan_bundle(zip_path: &str, entries: Vec<ArchiveEntry>) -> BundlePlan {
    let folder = bundle_folder(zip_path);
    let mut plan = BundlePlan {
        read: Vec::new(),
        skipped: Vec::new(),
    };
    for entry in entries {
        match StoredPath::parse(&format!("{folder}/{}", entry.name)) {
            Ok(path) if is_read(&path.extension) => plan.read.push((path, entry)),
            _ => plan.skipped.push(entry.name),
        }
    }
    plan
}

/// A database `.zip`: the zip's record, its entries' records (each indexed), the relations, the
/// entries no longer in it deleted, the zip completed with what was skipped.
async fn store_bundle(
    state: &AppState,
    caller: &Caller,
    params: UploadParams,
    path: &StoredPath,
    (file, size): (TempFile, u64),
    entries: Vec<ArchiveEntry>,
) -> Result<FileRecord, ServiceError> {
    let plan = plan_bundle(&path.path, entries);
    // Each entry is uploaded as the zip was: its attributes, textOnly and category.
    let template = params.clone();
    let (zip_uid, revision) = store_file(state, caller, params, file, size).await?;
    let mut names = Vec::with_capacity(plan.read.len());
    let mut children = Vec::with_capacity(plan.read.len());
    let mut failure = None;
    for (entry_path, entry) in plan.read {
        names.push(entry.name.clone());
        match store_entry(state, caller, entry_path, entry, &template).await {
            Ok(uid) => children.push(uid),
            Err(error) => {
                failure = Some(error);
                break;
            }
        }
    }
    names.extend(plan.skipped.iter().cloned());
    let bundle = Bundle {
        zip_uid: zip_uid.clone(),
        revision,
        children,
        skipped: plan.skipped,
        text: names.join("\n"),
        failure: failure.as_ref().map(ToString::to_string),
    };
    finish_bundle(state, caller, bundle).await?;
    if let Some(error) = failure {
        return Err(error);
    }
    let company_id = caller.company_id.clone();
    state
        .store
        .read_tx(move |tx| tx.find_file(&company_id, &zip_uid))
        .await?
        .ok_or_else(|| ServiceError::NotFound("the file was deleted while it was uploaded".into()))
}

/// Uploads one entry of a bundle as a database file at `path`, indexed during the call, with the
/// attributes, `textOnly` and `categoryId` of the zip's upload (`template`); returns its UID.
async fn store_entry(
    state: &AppState,
    caller: &Caller,
    path: StoredPath,
    entry: ArchiveEntry,
    template: &UploadParams,
) -> Result<String, ServiceError> {
    let size = entry.size;
    let target = state.disk.temp_path();
    entry
        .file
        .persist(&target)
        .map_err(|error| ServiceError::Io(error.error))?;
    let params = UploadParams {
        target: UploadTarget::Database(path),
        index_async: false,
        uid: None,
        overwrite_file: None,
        attributes: template.attributes.clone(),
        gzipped: false,
        callback_param: None,
        text_only: template.text_only,
        category_id: template.category_id,
        index_assembly_components: false,
    };
    let record = store_and_index_file(state, caller, params, TempFile::new(target), size).await?;
    Ok(record.uid)
}

/// What a bundle's last write saves.
struct Bundle {
    zip_uid: String,
    revision: i64,
    children: Vec<String>,
    skipped: Vec<String>,
    text: String,
    failure: Option<String>,
}

/// The extracted attributes of a bundle's record: how many records its entries became, and the
/// names skipped (when any).
fn bundle_attributes(records: usize, skipped: &[String]) -> Vec<String> {
    let mut attributes = vec![format!("{ENTRIES_ATTRIBUTE}={records}")];
    if !skipped.is_empty() {
        let mut listed: Vec<String> = skipped
            .iter()
            .take(MAX_LISTED_SKIPPED)
            .map(|name| name.replace('|', "/"))
            .collect();
        if skipped.len() > MAX_LISTED_SKIPPED {
            listed.push(format!("… and {} more", skipped.len() - MAX_LISTED_SKIPPED));
        }
        attributes.push(format!("{SKIPPED_ATTRIBUTE}={}", listed.join("|")));
    }
    attributes
}

/// One write: the zip's children replaced by `bundle.children`, the entries it no longer holds
/// deleted, and the zip's indexing saved (completed, or failed with the reason).
async fn finish_bundle(
    state: &AppState,
    caller: &Caller,
    bundle: Bundle,
) -> Result<(), ServiceError> {
    let visual = state.indexer.visual().clone();
    let blobs = state.blobs.clone();
    let company_id = caller.company_id.clone();
    state
        .store
        .write_tx(move |tx| -> Result<(), ServiceError> {
            let old = tx.children_of(&bundle.zip_uid)?;
            let relations: Vec<NewRelation> = bundle
                .children
                .iter()
                .map(|uid| NewRelation {
                    child_uid: uid.clone(),
                    quantity: 1,
                    reference: None,
                })
                .collect();
            tx.replace_children(&bundle.zip_uid, &relations)?;
            let kept: HashSet<&str> = bundle.children.iter().map(String::as_str).collect();
            for gone in old
                .iter()
                .filter(|old| !kept.contains(old.child_uid.as_str()))
            {
                let place = (&visual, &blobs);
                delete_entry(tx, place, &company_id, &bundle.zip_uid, &gone.child_uid)?;
            }
            let extracted_attributes = bundle_attributes(bundle.children.len(), &bundle.skipped);
            let now = iso_now();
            match &bundle.failure {
                None => {
                    let content = IndexedContent {
                        views: Vec::new(),
                        text: bundle.text.clone(),
                        extracted_attributes,
                        pmi_json: "[]".into(),
                        has_thumbnail: false,
                        has_large_image: false,
                        pages_json: "[]".into(),
                    };
                    if tx.save_indexing(&bundle.zip_uid, bundle.revision, Some(&content), &now)? {
                        record_event_of(tx, &bundle.zip_uid, EVENT_INDEXING_COMPLETED)?;
                    }
                }
                Some(reason) => {
                    let words =
                        format!("the service failed while storing the archive's files: {reason}");
                    let failure = IndexingFailure {
                        reason: FailureReason::new(&words).as_str().to_owned(),
                        text: bundle.text.clone(),
                        extracted_attributes,
                    };
                    if tx.save_failed_indexing(&bundle.zip_uid, bundle.revision, &failure)? {
                        record_event_of(tx, &bundle.zip_uid, EVENT_INDEXING_FAILED)?;
                    }
                }
            }
            Ok(())
        })
        .await
}

/// Deletes the entries of a `.zip` bundle (`record`), in the caller's transaction, before the
/// zip itself is deleted; an entry another bundle also lists stays. Nothing for another file.
pub fn delete_bundle_entries(
    tx: &mut dyn StoreTx,
    visual: &VisualKeeper,
    blobs: &Blobs,
    record: &FileRecord,
) -> Result<(), ServiceError> {
    if record.is_search_input || !record.extension.eq_ignore_ascii_case(ZIP_EXTENSION) {
        return Ok(());
    }
    for child in tx.children_of(&record.uid)? {
        delete_entry(
            tx,
            (visual, blobs),
            &record.company_id,
            &record.uid,
            &child.child_uid,
        )?;
    }
    Ok(())
}

/// Before an upload replaces files (in its own write): the entries of a `.zip` bundle go with the
/// bundle the upload deletes (`replaced`, a file of another UID at its stored path), and with the
/// bundle it overwrites in place (`uid`) unless it stays a bundle (a database `.zip`, whose
/// entries are reconciled once they are stored).
pub(crate) fn forget_replaced_bundles(
    tx: &mut dyn StoreTx,
    (visual, blobs): (&VisualKeeper, &Blobs),
    company_id: &str,
    uid: &str,
    replaced: Option<&str>,
    stays_a_bundle: bool,
) -> Result<(), ServiceError> {
    let overwritten = (!stays_a_bundle).then_some(uid);
    for gone in overwritten.into_iter().chain(replaced) {
        if let Some(record) = tx.find_file(company_id, gone)? {
            delete_bundle_entries(tx, visual, blobs, &record)?;
            tx.replace_children(gone, &[])?;
        }
    }
    Ok(())
}

/// Deletes entry `child` of bundle `parent` (record, views, bytes) unless another file also lists
/// it as a child, or it is not the company's.
fn delete_entry(
    tx: &mut dyn StoreTx,
    (visual, blobs): (&VisualKeeper, &Blobs),
    company_id: &str,
    parent: &str,
    child: &str,
) -> Result<(), ServiceError> {
    let shared = tx
        .parents_of(child)?
        .iter()
        .any(|relation| relation.parent_uid != parent);
    if shared || tx.find_file(company_id, child)?.is_none() {
        return Ok(());
    }
    record_event_of(tx, child, EVENT_FILE_DELETED)?;
    tx.delete_file(child)?;
    visual.write()?.remove(company_id, child)?;
    if let Err(error) = blobs.remove_file_blocking(child) {
        tracing::warn!(uid = child, %error, "a deleted entry's bytes or images stay on disk");
    }
    Ok(())
}

/// Reads a `.zip` search input (its stored `bytes`, unpacked through `archive`, a temporary
/// file's place) as the views of one part: each of its files analysed as that file would be,
/// the views joined in archive order, the first thumbnail kept. A file that cannot be read fails
/// the input with its reason; a preempted or stopped read is passed on.
pub(crate) async fn analyze_search_zip(
    indexer: &Indexer,
    job: &ClaimedJob,
    slot: &ReaderSlot,
    bytes: Vec<u8>,
    archive: TempFile,
) -> Result<Read, ServiceError> {
    let path = archive.path().to_owned();
    let written = tokio::task::spawn_blocking(move || super::disk::write_private(&path, &bytes));
    written.await??;
    let entries = match unpack(archive.path(), ArchiveLimits::default()).await {
        Ok(entries) => entries,
        Err(ServiceError::BadRequest(reason)) => return Ok(Read::Done(Err(unreadable(reason)))),
        Err(error) => return Err(error),
    };
    drop(archive);
    if let Err(reason) = check_search_entries(&entries) {
        return Ok(Read::Done(Err(unreadable(reason))));
    }
    let mut merged = partlens_engine::Analysis::default();
    for entry in entries {
        let entry_job = ClaimedJob {
            extension: file_extension(&entry.name),
            ..job.clone()
        };
        let bytes = entry.bytes()?;
        let analysis = match indexer.analyze_file(&entry_job, slot, bytes).await? {
            Read::Done(Ok(analysis)) => analysis,
            Read::Done(Err(error)) => return Ok(Read::Done(Err(in_entry(&entry.name, error)))),
            other => return Ok(other),
        };
        merged.views.extend(analysis.views);
        if merged.thumbnail_jpeg.is_none() {
            merged.thumbnail_jpeg = analysis.thumbnail_jpeg;
        }
        if !analysis.text.is_empty() {
            if !merged.text.is_empty() {
                merged.text.push('\n');
            }
            merged.text.push_str(&analysis.text);
        }
        merged
            .extracted_attributes
            .extend(analysis.extracted_attributes);
        merged.pmi_pages.extend(analysis.pmi_pages);
    }
    Ok(Read::Done(Ok(merged)))
}

/// Why a database `.zip` whose upload the service did not finish (it stopped while it stored the
/// entries) ends failed when a worker meets its job after a restart.
pub(crate) fn interrupted_bundle() -> partlens_engine::EngineError {
    unreadable(
        "the service stopped while it stored the archive's files; upload the .zip again".into(),
    )
}

/// A `.zip` search input that cannot be read, in the engine's words.
fn unreadable(reason: String) -> partlens_engine::EngineError {
    partlens_engine::EngineError::Undecodable {
        extension: ZIP_EXTENSION.into(),
        reason,
    }
}

/// An entry's refusal, its reason naming the entry.
fn in_entry(name: &str, error: partlens_engine::EngineError) -> partlens_engine::EngineError {
    use partlens_engine::EngineError;
    let named = |reason: String| format!("{reason} (the file \"{name}\" of the .zip)");
    match error {
        EngineError::Undecodable { extension, reason } => EngineError::Undecodable {
            extension,
            reason: named(reason),
        },
        EngineError::OverLimit { extension, reason } => EngineError::OverLimit {
            extension,
            reason: named(reason),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_store::model::{IndexState, NewContent};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bundle_whose_upload_was_interrupted_ends_failed_saying_to_upload_it_again() {
        let dir = tempfile::tempdir().unwrap();
        let (state, caller) = crate::state::state_for_tests(dir.path()).await;
        let uid = "3f2504e0-4f89-41d3-9a0c-0305e82c3302".to_owned();
        let content = NewContent {
            uid: uid.clone(),
            company_id: caller.company_id.clone(),
            owner_user_id: caller.user_id,
            is_search_input: false,
            stored_path: "Design/kit.zip".into(),
            display_name: "kit.zip".into(),
            extension: ZIP_EXTENSION.into(),
            size: 2000,
            // As a restart leaves it: queued again.
            state: IndexState::Queued,
            callback_param: None,
            text_only: false,
        };
        state
            .store
            .write_tx(move |tx| -> Result<i64, ServiceError> {
                let revision = tx.upsert_file(&content, &iso_now())?;
                tx.enqueue_job(&content.uid, &iso_now())?;
                Ok(revision)
            })
            .await
            .unwrap();
        let archive = TempFile::new(state.disk.temp_path());
        super::super::disk::write_private(archive.path(), b"PK\x05\x06").unwrap();
        state
            .blobs
            .persist_blocking(crate::blobs::BlobKey::Content(&uid), archive)
            .unwrap();
        let job = state
            .store
            .queue_tx(|tx| -> Result<_, ServiceError> { Ok(tx.claim_next_job()?) })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            state.indexer.index(job).await.unwrap(),
            Some(IndexState::Failed)
        );
        let record = state
            .store
            .read_tx(move |tx| tx.find_any_file(&uid))
            .await
            .unwrap()
            .unwrap();
        let reason = record.failure_reason.unwrap_or_default();
        assert!(reason.contains("upload the .zip again"), "{reason}");
    }

    #[test]
    fn a_bundle_is_stored_under_its_zip_without_the_extension() {
        assert_eq!(bundle_folder("Design/parts.zip"), "Design/parts");
        assert_eq!(bundle_folder("parts.ZIP"), "parts");
        let skipped: Vec<String> = (0..MAX_LISTED_SKIPPED + 2)
            .map(|index| format!("{index}|a.txt"))
            .collect();
        let attributes = bundle_attributes(3, &skipped);
        assert_eq!(attributes[0], "archive_entries=3");
        assert!(attributes[1].starts_with("archive_skipped=0/a.txt|1/a.txt|"));
        assert!(
            attributes[1].ends_with("|… and 2 more"),
            "{}",
            attributes[1]
        );
        assert_eq!(bundle_attributes(1, &[]), ["archive_entries=1"]);
    }
}
