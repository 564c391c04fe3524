//! The caller's file, or the 404 that names what was looked for: how every handler that takes a
//! `fileUID` (or a `fileName`) finds the record it works on. A file of another company is as
//! absent as one that never existed.

use partlens_api::encoding::QueryString;

use crate::caller::Caller;
use crate::error::ServiceError;
use crate::params::{optional_uid_param, text_param};
use crate::state::AppState;
use crate::stored_path::lookup_path;
use partlens_store::StoreTx;
use partlens_store::model::FileRecord;

/// The record of file `uid` of company `company_id`, or a 404 naming `uid`. For use inside a
/// transaction (the check and what follows it see the same store).
pub fn find_caller_file(
    tx: &mut dyn StoreTx,
    company_id: &str,
    uid: &str,
) -> Result<FileRecord, ServiceError> {
    tx.find_file(company_id, uid)?
        .ok_or_else(|| ServiceError::file_not_found(uid))
}

/// The record of the caller's file `uid`, read on its own, or a 404 naming `uid`.
pub async fn read_caller_file(
    state: &AppState,
    caller: &Caller,
    uid: &str,
) -> Result<FileRecord, ServiceError> {
    let company_id = caller.company_id.clone();
    let uid = uid.to_owned();
    state
        .store
        .read_tx(move |tx| find_caller_file(tx, &company_id, &uid))
        .await
}

/// The record of the caller's file named by `fileUID`, else by `fileName` (a stored path): 400 when
/// neither is given, 404 naming the UID or path when there is no such file.
pub async fn read_caller_file_by_uid_or_name(
    state: &AppState,
    caller: &Caller,
    query: &QueryString,
) -> Result<FileRecord, ServiceError> {
    if let Some(uid) = optional_uid_param(query, "fileUID")? {
        return read_caller_file(state, caller, &uid).await;
    }
    let Some(name) = text_param(query, "fileName") else {
        return Err(ServiceError::BadRequest("give fileUID or fileName".into()));
    };
    let company_id = caller.company_id.clone();
    let path = lookup_path(name);
    let record = state
        .store
        .read_tx({
            let path = path.clone();
            move |tx| tx.find_file_by_path(&company_id, &path)
        })
        .await?;
    record.ok_or_else(|| ServiceError::file_not_found(&path))
}
