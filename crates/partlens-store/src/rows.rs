//! How the model's types are read from a row of either engine: the engines hand over their rows
//! through [`Columns`] (each implements it for its own row type), and the columns are read into a
//! type here, once, whichever engine the row came from.

use crate::error::StoreError;
use crate::model::files::attributes_from_json;
use crate::model::search_text::SearchedFields;
use crate::model::{
    AttributeName, Caller, Candidate, FileRecord, IndexState, QueueDepth, credential_stamp,
};

/// A row of a query, read by column position.
pub(crate) trait Columns {
    /// A text column.
    fn text(&self, index: usize) -> Result<String, StoreError>;
    /// A text column that may be NULL.
    fn optional_text(&self, index: usize) -> Result<Option<String>, StoreError>;
    /// A 64-bit integer column.
    fn integer(&self, index: usize) -> Result<i64, StoreError>;
    /// A flag (SQLite's 0/1 integer, PostgreSQL's boolean).
    fn flag(&self, index: usize) -> Result<bool, StoreError>;
}

/// The columns of `files` that [`file_record`] reads, in its order.
pub(crate) const FILE_COLUMNS: &str = "uid, company_id, owner_user_id, is_search_input, \
     stored_path, display_name, extension, size, state, revision, uploaded_at, indexed_at, text, \
     extracted_attributes, pmi, has_thumbnail, has_large_image, failure_reason, pages, text_only";

/// A file record from a row of [`FILE_COLUMNS`].
pub(crate) fn file_record(row: &impl Columns) -> Result<FileRecord, StoreError> {
    Ok(FileRecord {
        uid: row.text(0)?,
        company_id: row.text(1)?,
        owner_user_id: row.integer(2)?,
        is_search_input: row.flag(3)?,
        stored_path: row.text(4)?,
        display_name: row.text(5)?,
        extension: row.text(6)?,
        size: row.integer(7)?.max(0) as u64,
        state: IndexState::parse(&row.text(8)?),
        revision: row.integer(9)?,
        uploaded_at: row.text(10)?,
        indexed_at: row.optional_text(11)?,
        text: row.text(12)?,
        extracted_attributes: attributes_from_json(&row.text(13)?),
        pmi_json: row.text(14)?,
        has_thumbnail: row.flag(15)?,
        has_large_image: row.flag(16)?,
        failure_reason: row.optional_text(17)?,
        pages_json: row.text(18)?,
        text_only: row.flag(19)?,
    })
}

/// A caller from a row of a user's id, company, admin flag and password hash.
pub(crate) fn caller(row: &impl Columns) -> Result<Caller, StoreError> {
    Ok(Caller {
        user_id: row.integer(0)?,
        company_id: row.text(1)?,
        admin: row.flag(2)?,
        credential_stamp: credential_stamp(&row.text(3)?),
    })
}

/// A queue depth from a row of a company's id, its queued files and those in progress.
pub(crate) fn queue_depth(row: &impl Columns) -> Result<QueueDepth, StoreError> {
    Ok(QueueDepth {
        company_id: row.text(0)?,
        queued: row.integer(1)?.max(0) as u64,
        in_progress: row.integer(2)?.max(0) as u64,
    })
}

/// The columns of `attribute_names` (as `a`) that [`attribute_name`] reads, in its order: the
/// single value is that of the name's values when they all have one key (the least of its
/// spellings by code point, `binary` being the engine's name of that collation, so both engines
/// give the same one).
pub(crate) fn attribute_name_columns(binary: &str) -> String {
    format!(
        "a.id, a.name, a.unit, a.custom, a.last_set_at, \
         (SELECT CASE WHEN min(v.value_key) = max(v.value_key) \
                 THEN min(v.value COLLATE {binary}) END \
          FROM attribute_values v WHERE v.attribute_id = a.id)"
    )
}

/// An attribute name from a row of [`attribute_name_columns`].
pub(crate) fn attribute_name(row: &impl Columns) -> Result<AttributeName, StoreError> {
    Ok(AttributeName {
        id: row.integer(0)?,
        name: row.text(1)?,
        unit: row.text(2)?,
        custom: row.flag(3)?,
        last_set_at: row.optional_text(4)?,
        single_value: row.optional_text(5)?,
    })
}

/// A candidate from a row of its UID and display name.
pub(crate) fn candidate(row: &impl Columns) -> Result<Candidate, StoreError> {
    Ok(Candidate {
        uid: row.text(0)?,
        display_name: row.text(1)?,
    })
}

/// The columns of `files` that [`search_text`] reads, in its order.
pub(crate) const SEARCHED_COLUMNS: &str = "stored_path, display_name, text, extracted_attributes";

/// A record's search text from a row of [`SEARCHED_COLUMNS`] and its saved attributes.
pub(crate) fn search_text(row: &impl Columns, saved: &[String]) -> Result<String, StoreError> {
    Ok(SearchedFields {
        stored_path: &row.text(0)?,
        display_name: &row.text(1)?,
        saved_attributes: saved,
        extracted_attributes: &attributes_from_json(&row.text(3)?),
        text: &row.text(2)?,
    }
    .search_text())
}
