//! Records made from another file, deleted with it: a `.zip` bundle's entries
//! ([`crate::zip_upload`]) and an assembly's components ([`crate::assembly_components`]). They go
//! when the file is deleted (`DELETE /api/File`) and when an upload replaces it, in that write's
//! one transaction, each with its views and bytes and a `file.deleted` event; one that another
//! file also lists stays.

use std::collections::HashSet;

use partlens_callbacks::events::record_event_of;
use partlens_store::StoreTx;
use partlens_store::model::FileRecord;
use partlens_store::model::callbacks::EVENT_FILE_DELETED;
use partlens_visual::{ViewSearch as _, VisualKeeper};

use super::blobs::Blobs;
use super::error::ServiceError;
use super::upload_params::ZIP_EXTENSION;

/// Deletes derived record `uid` of `company_id` (record, views, bytes and images), recording
/// `file.deleted` for callbacks; bytes that cannot be removed stay on disk, with a warning.
fn delete_derived(
    tx: &mut dyn StoreTx,
    (visual, blobs): (&VisualKeeper, &Blobs),
    company_id: &str,
    uid: &str,
) -> Result<(), ServiceError> {
    record_event_of(tx, uid, EVENT_FILE_DELETED)?;
    tx.delete_file(uid)?;
    visual.write()?.remove(company_id, uid)?;
    if let Err(error) = blobs.remove_file_blocking(uid) {
        tracing::warn!(uid, %error, "a deleted file's bytes or images stay on disk");
    }
    Ok(())
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
pub(crate) fn delete_entry(
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
    delete_derived(tx, (visual, blobs), company_id, child)
}

/// Every file below `uid` in the relations (children, their children, …), each once.
pub(crate) fn descendants(tx: &mut dyn StoreTx, uid: &str) -> Result<Vec<String>, ServiceError> {
    let mut seen: HashSet<String> = HashSet::from([uid.to_owned()]);
    let mut found = Vec::new();
    let mut next = vec![uid.to_owned()];
    while let Some(parent) = next.pop() {
        for child in tx.children_of(&parent)? {
            if seen.insert(child.child_uid.clone()) {
                found.push(child.child_uid.clone());
                next.push(child.child_uid);
            }
        }
    }
    Ok(found)
}

/// Deletes (record, views, bytes) those of `candidates` that no file lists as a child except
/// candidates and `leaving` (files being deleted): a component another assembly also uses stays,
/// and with it what it holds. Files not of the company, and search inputs, are left alone.
pub(crate) fn delete_unused(
    tx: &mut dyn StoreTx,
    (visual, blobs): (&VisualKeeper, &Blobs),
    company_id: &str,
    candidates: Vec<String>,
    leaving: &HashSet<String>,
) -> Result<(), ServiceError> {
    let mut going: HashSet<String> = candidates.into_iter().collect();
    loop {
        let mut kept = Vec::new();
        for candidate in &going {
            let listed_elsewhere = tx.parents_of(candidate)?.iter().any(|relation| {
                !going.contains(&relation.parent_uid) && !leaving.contains(&relation.parent_uid)
            });
            if listed_elsewhere {
                kept.push(candidate.clone());
            }
        }
        if kept.is_empty() {
            break;
        }
        for candidate in kept {
            going.remove(&candidate);
        }
    }
    for uid in going {
        let deletable = tx
            .find_file(company_id, &uid)?
            .is_some_and(|record| !record.is_search_input);
        if !deletable {
            continue;
        }
        delete_derived(tx, (visual, blobs), company_id, &uid)?;
    }
    Ok(())
}

/// Deletes the components of `record` (its descendants no other file uses), in the caller's
/// transaction, before the record itself is deleted. Nothing for a `.zip` bundle (its entries are
/// zip_upload.rs's) or a search input.
pub fn delete_components(
    tx: &mut dyn StoreTx,
    visual: &VisualKeeper,
    blobs: &Blobs,
    record: &FileRecord,
) -> Result<(), ServiceError> {
    if record.is_search_input || record.extension.eq_ignore_ascii_case(ZIP_EXTENSION) {
        return Ok(());
    }
    let below = descendants(tx, &record.uid)?;
    if below.is_empty() {
        return Ok(());
    }
    let leaving = HashSet::from([record.uid.clone()]);
    delete_unused(tx, (visual, blobs), &record.company_id, below, &leaving)
}

/// Before an upload replaces files (in its own write): the components of the file it replaces at
/// its stored path (`replaced`, another UID) go, and so do those of the file it overwrites in
/// place (`uid`) unless the upload makes components itself (`makes_components`: they are then
/// reconciled once stored), its children's list then emptied.
pub(crate) fn forget_replaced_components(
    tx: &mut dyn StoreTx,
    (visual, blobs): (&VisualKeeper, &Blobs),
    company_id: &str,
    (uid, replaced): (&str, Option<&str>),
    makes_components: bool,
) -> Result<(), ServiceError> {
    let overwritten = (!makes_components).then_some(uid);
    for gone in overwritten.into_iter().chain(replaced) {
        let Some(record) = tx.find_file(company_id, gone)? else {
            continue;
        };
        if record.extension.eq_ignore_ascii_case(ZIP_EXTENSION) {
            continue;
        }
        delete_components(tx, visual, blobs, &record)?;
        tx.replace_children(gone, &[])?;
    }
    Ok(())
}
