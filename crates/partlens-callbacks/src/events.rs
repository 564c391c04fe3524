//! Recording an event in the outbox, inside the transaction of the change it tells of (a file's
//! indexing completed or failed, a file deleted): committed together or not at all, so an event
//! is never lost by a crash between the two, nor sent for a change that did not commit.

use partlens_store::model::callbacks::EVENT_FILE_DELETED;
use partlens_store::model::{CallbackSettings, FileRecord};
use partlens_store::{StoreError, StoreTx};

use crate::payload::{EventData, new_delivery, now_ms};

/// Records `event` about `record` for sending, when its company's callbacks are on and subscribe
/// to it. Only company-database files have events (search inputs are temporary and have none).
/// For [`EVENT_FILE_DELETED`] call it before the record is deleted (its `callbackParam` is read
/// here).
pub fn record_file_event(
    tx: &mut dyn StoreTx,
    record: &FileRecord,
    event: &str,
) -> Result<(), StoreError> {
    if record.is_search_input {
        return Ok(());
    }
    let wanted = tx
        .callback_settings(&record.company_id)?
        .is_some_and(|settings: CallbackSettings| settings.wants(event));
    if !wanted {
        return Ok(());
    }
    let callback_param = tx.callback_param_of(&record.uid)?;
    let data = EventData::of_file(event, record, callback_param, event == EVENT_FILE_DELETED);
    tx.insert_delivery(&new_delivery(&record.company_id, &data, now_ms()))
}

/// [`record_file_event`] for file `uid`, read in this transaction (nothing when it is gone).
pub fn record_event_of(tx: &mut dyn StoreTx, uid: &str, event: &str) -> Result<(), StoreError> {
    match tx.find_any_file(uid)? {
        Some(record) => record_file_event(tx, &record, event),
        None => Ok(()),
    }
}
