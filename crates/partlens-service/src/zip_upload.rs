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
//!   entries ([`crate::derived_records::delete_bundle_entries`]), and so does replacing it by another file (of another UID
//!   at its path, or in place by one that is no database `.zip`: [`crate::derived_records::forget_replaced_bundles`]). An
//!   entry that another bundle also lists is left to it. A zip whose upload the service did not
//!   finish (it stopped meanwhile) ends failed after the restart, its reason saying to upload it
//!   again.
//! - **A `.zip` search input holds the views of one part**: at most [`crate::zip_reading::MAX_SEARCH_ZIP_ENTRIES`]
//!   pictures or models (anything else is a 400). Its record's views are those of its files in
//!   archive order ([`crate::zip_reading::analyze_search_zip`]), so a search by its UID is the multi-view search by
//!   those files' UIDs. Its thumbnail is its first file's.

use std::collections::HashSet;

use partlens_archive::{ArchiveEntry, ArchiveLimits};
use partlens_callbacks::events::record_event_of;
use partlens_store::iso_now;
use partlens_store::model::callbacks::{EVENT_INDEXING_COMPLETED, EVENT_INDEXING_FAILED};
use partlens_store::model::{FileRecord, IndexedContent, IndexingFailure, NewRelation};

use super::body::TempFile;
use super::derived_records::delete_entry;
use super::error::ServiceError;
use super::failure_reason::FailureReason;
use super::file_storing::{store_and_index_file, store_file};
use super::state::AppState;
use super::stored_path::StoredPath;
use super::upload_params::{UploadParams, UploadTarget, ZIP_EXTENSION};
use super::zip_reading::{check_search_entries, is_picture_or_model, unpack};
use crate::caller::Caller;

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
