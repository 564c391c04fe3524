//! File records: who uploaded what, where it is stored, its indexing state and what indexing learned.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::search_text;
use crate::error::ServiceError;

/// The indexing state of a file, as `GET /api/FileStatus` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexState {
    /// Waiting for a worker (204).
    Queued,
    /// Being indexed (204).
    InProgress,
    /// Indexed (200 with the timestamp).
    Completed,
    /// The content could not be indexed (422).
    Failed,
}

impl IndexState {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }

    /// The state stored as `text` (an unknown name reads as queued).
    pub(crate) fn parse(text: &str) -> Self {
        match text {
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            "in_progress" => Self::InProgress,
            _ => Self::Queued,
        }
    }
}

/// One stored file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileRecord {
    /// Canonical lower-case GUID.
    pub uid: String,
    /// The owning company's GUID.
    pub company_id: String,
    /// The user who uploaded it.
    pub owner_user_id: i64,
    /// A temporary search input (true) or a company-database file (false).
    pub is_search_input: bool,
    /// The stored path (`FileName`): `<folder>/<name>.<ext>` for database files.
    pub stored_path: String,
    /// The name shown to people (`DisplayName`).
    pub display_name: String,
    /// Lower-case extension with the dot (`.png`, `.step.ifz`).
    pub extension: String,
    /// Size of the stored bytes.
    pub size: u64,
    /// Indexing state.
    pub state: IndexState,
    /// Bumped on every overwrite, so indexing of older content is not saved over newer.
    pub revision: i64,
    /// When the content was uploaded (ISO 8601).
    pub uploaded_at: String,
    /// When indexing completed (ISO 8601).
    pub indexed_at: Option<String>,
    /// Text extracted from the content.
    pub text: String,
    /// Attributes extracted from the content, `name=value`.
    pub extracted_attributes: Vec<String>,
    /// The PMI pages as JSON text (an array).
    pub pmi_json: String,
    /// A thumbnail is on disk.
    pub has_thumbnail: bool,
    /// A large image is on disk.
    pub has_large_image: bool,
    /// Why indexing failed, in words (a failed file indexed by an older service may have none).
    pub failure_reason: Option<String>,
}

const COLUMNS: &str = "uid, company_id, owner_user_id, is_search_input, stored_path, display_name, \
     extension, size, state, revision, uploaded_at, indexed_at, text, extracted_attributes, pmi, \
     has_thumbnail, has_large_image, failure_reason";

fn record_from_row(row: &Row<'_>) -> rusqlite::Result<FileRecord> {
    let extracted: String = row.get(13)?;
    let state: String = row.get(8)?;
    Ok(FileRecord {
        uid: row.get(0)?,
        company_id: row.get(1)?,
        owner_user_id: row.get(2)?,
        is_search_input: row.get(3)?,
        stored_path: row.get(4)?,
        display_name: row.get(5)?,
        extension: row.get(6)?,
        size: row.get::<_, i64>(7)?.max(0) as u64,
        state: IndexState::parse(&state),
        revision: row.get(9)?,
        uploaded_at: row.get(10)?,
        indexed_at: row.get(11)?,
        text: row.get(12)?,
        extracted_attributes: serde_json::from_str(&extracted).unwrap_or_default(),
        pmi_json: row.get(14)?,
        has_thumbnail: row.get(15)?,
        has_large_image: row.get(16)?,
        failure_reason: row.get(17)?,
    })
}

/// The file `uid` of the company, if it exists there.
pub fn find(
    connection: &Connection,
    company_id: &str,
    uid: &str,
) -> Result<Option<FileRecord>, ServiceError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM files WHERE uid = ?1 AND company_id = ?2"),
            params![uid, company_id],
            record_from_row,
        )
        .optional()?)
}

/// The file `uid` in any company (image links and UID reuse checks).
pub fn find_any(connection: &Connection, uid: &str) -> Result<Option<FileRecord>, ServiceError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM files WHERE uid = ?1"),
            [uid],
            record_from_row,
        )
        .optional()?)
}

/// The key a stored path is compared by: lower-cased (paths are case-insensitive, as on the
/// Windows-hosted real service).
pub fn path_key(stored_path: &str) -> String {
    stored_path.to_lowercase()
}

/// The company-database file stored at `stored_path`, if any.
pub fn find_by_path(
    connection: &Connection,
    company_id: &str,
    stored_path: &str,
) -> Result<Option<FileRecord>, ServiceError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM files WHERE company_id = ?1 AND path_key = ?2"),
            params![company_id, path_key(stored_path)],
            record_from_row,
        )
        .optional()?)
}

/// The records of several files of a company, in the order asked (missing ones skipped).
pub fn find_many(
    connection: &Connection,
    company_id: &str,
    uids: &[String],
) -> Result<Vec<FileRecord>, ServiceError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM files WHERE uid = ?1 AND company_id = ?2"
    ))?;
    let mut records = Vec::with_capacity(uids.len());
    for uid in uids {
        if let Some(record) = statement
            .query_row(params![uid, company_id], record_from_row)
            .optional()?
        {
            records.push(record);
        }
    }
    Ok(records)
}

/// What an upload writes into a record (new or overwritten).
#[derive(Clone, Debug)]
pub struct NewContent {
    /// Canonical UID.
    pub uid: String,
    /// Owning company.
    pub company_id: String,
    /// Uploader (kept from the earlier record on overwrite).
    pub owner_user_id: i64,
    /// Search input or database file.
    pub is_search_input: bool,
    /// Stored path.
    pub stored_path: String,
    /// Display name.
    pub display_name: String,
    /// Lower-case extension with the dot.
    pub extension: String,
    /// Byte size.
    pub size: u64,
    /// The state it starts in (queued for the workers, in progress when indexed during the call).
    pub state: IndexState,
    /// `callbackParam` of the upload.
    pub callback_param: Option<String>,
}

/// Inserts a record, or replaces the content fields of an existing one (same UID): the revision is
/// bumped, what indexing learned and the views are cleared. Returns the new revision.
pub fn upsert(
    connection: &Connection,
    content: &NewContent,
    now: &str,
) -> Result<i64, ServiceError> {
    let previous: Option<(i64, i64)> = connection
        .query_row(
            "SELECT revision, owner_user_id FROM files WHERE uid = ?1",
            [&content.uid],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let path_key = (!content.is_search_input).then(|| path_key(&content.stored_path));
    match previous {
        Some((revision, owner)) => {
            connection.execute(
                "UPDATE files SET company_id = ?2, owner_user_id = ?3, is_search_input = ?4,
                    stored_path = ?5, path_key = ?6, display_name = ?7, extension = ?8, size = ?9,
                    state = ?10, revision = ?11, uploaded_at = ?12, indexed_at = NULL, text = '',
                    extracted_attributes = '[]', pmi = '[]', has_thumbnail = 0,
                    has_large_image = 0, callback_param = ?13, failure_reason = NULL
                 WHERE uid = ?1",
                params![
                    content.uid,
                    content.company_id,
                    owner,
                    content.is_search_input,
                    content.stored_path,
                    path_key,
                    content.display_name,
                    content.extension,
                    content.size as i64,
                    content.state.as_str(),
                    revision + 1,
                    now,
                    content.callback_param,
                ],
            )?;
            connection.execute("DELETE FROM views WHERE file_uid = ?1", [&content.uid])?;
            search_text::refresh(connection, &content.uid)?;
            Ok(revision + 1)
        }
        None => {
            connection.execute(
                "INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path,
                    path_key, display_name, extension, size, state, revision, uploaded_at,
                    callback_param)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1, ?11, ?12)",
                params![
                    content.uid,
                    content.company_id,
                    content.owner_user_id,
                    content.is_search_input,
                    content.stored_path,
                    path_key,
                    content.display_name,
                    content.extension,
                    content.size as i64,
                    content.state.as_str(),
                    now,
                    content.callback_param,
                ],
            )?;
            search_text::refresh(connection, &content.uid)?;
            Ok(1)
        }
    }
}

/// Deletes a record with its attributes, views, job and values. True when it existed.
pub fn delete(connection: &Connection, uid: &str) -> Result<bool, ServiceError> {
    Ok(connection.execute("DELETE FROM files WHERE uid = ?1", [uid])? > 0)
}

/// Sets the indexing state.
pub fn set_state(
    connection: &Connection,
    uid: &str,
    state: IndexState,
) -> Result<(), ServiceError> {
    connection.execute(
        "UPDATE files SET state = ?2 WHERE uid = ?1",
        params![uid, state.as_str()],
    )?;
    Ok(())
}

/// What indexing learned about one revision of a file.
#[derive(Clone, Debug, Default)]
pub struct IndexedContent {
    /// Stored view descriptors, in order.
    pub views: Vec<Vec<u8>>,
    /// Extracted text.
    pub text: String,
    /// Extracted attributes.
    pub extracted_attributes: Vec<String>,
    /// PMI pages as JSON text.
    pub pmi_json: String,
    /// A thumbnail was written.
    pub has_thumbnail: bool,
    /// A large image was written.
    pub has_large_image: bool,
}

/// Saves the outcome of indexing `revision` of a file: completed with its content, or failed. Returns
/// false (and saves nothing) when the file is gone or was overwritten meanwhile.
pub fn save_indexing(
    connection: &Connection,
    uid: &str,
    revision: i64,
    outcome: Option<&IndexedContent>,
    now: &str,
) -> Result<bool, ServiceError> {
    let current: Option<i64> = connection
        .query_row("SELECT revision FROM files WHERE uid = ?1", [uid], |row| {
            row.get(0)
        })
        .optional()?;
    if current != Some(revision) {
        return Ok(false);
    }
    match outcome {
        Some(content) => {
            connection.execute(
                "UPDATE files SET state = 'completed', indexed_at = ?2, text = ?3,
                    extracted_attributes = ?4, pmi = ?5, has_thumbnail = ?6, has_large_image = ?7,
                    failure_reason = NULL
                 WHERE uid = ?1",
                params![
                    uid,
                    now,
                    content.text,
                    serde_json::to_string(&content.extracted_attributes)
                        .unwrap_or_else(|_| "[]".into()),
                    content.pmi_json,
                    content.has_thumbnail,
                    content.has_large_image,
                ],
            )?;
            connection.execute("DELETE FROM views WHERE file_uid = ?1", [uid])?;
            let mut insert = connection.prepare_cached(
                "INSERT INTO views (file_uid, position, descriptor) VALUES (?1, ?2, ?3)",
            )?;
            for (position, descriptor) in content.views.iter().enumerate() {
                insert.execute(params![uid, position as i64, descriptor])?;
            }
            search_text::refresh(connection, uid)?;
        }
        None => {
            let failure = IndexingFailure {
                reason: "the service failed while indexing the file".to_owned(),
                ..IndexingFailure::default()
            };
            return save_failed_indexing(connection, uid, revision, &failure);
        }
    }
    connection.execute("DELETE FROM jobs WHERE file_uid = ?1", [uid])?;
    Ok(true)
}

/// Why one revision of a file could not be indexed, with what was read of it before it failed.
#[derive(Clone, Debug, Default)]
pub struct IndexingFailure {
    /// The reason in words (ASCII, one line: see `service::failure_reason`).
    pub reason: String,
    /// Text read before the failure (kept searchable).
    pub text: String,
    /// Attributes read before the failure (kept searchable and shown).
    pub extracted_attributes: Vec<String>,
}

/// Saves that indexing `revision` of a file failed, why, and what was read of it: its views and
/// pictures are cleared, its text and extracted attributes kept searchable. Returns false (and saves
/// nothing) when the file is gone or was overwritten meanwhile.
pub fn save_failed_indexing(
    connection: &Connection,
    uid: &str,
    revision: i64,
    failure: &IndexingFailure,
) -> Result<bool, ServiceError> {
    let current: Option<i64> = connection
        .query_row("SELECT revision FROM files WHERE uid = ?1", [uid], |row| {
            row.get(0)
        })
        .optional()?;
    if current != Some(revision) {
        return Ok(false);
    }
    connection.execute(
        "UPDATE files SET state = 'failed', indexed_at = NULL, failure_reason = ?2, text = ?3,
            extracted_attributes = ?4, pmi = '[]', has_thumbnail = 0, has_large_image = 0
         WHERE uid = ?1",
        params![
            uid,
            failure.reason,
            failure.text,
            serde_json::to_string(&failure.extracted_attributes).unwrap_or_else(|_| "[]".into()),
        ],
    )?;
    connection.execute("DELETE FROM views WHERE file_uid = ?1", [uid])?;
    search_text::refresh(connection, uid)?;
    connection.execute("DELETE FROM jobs WHERE file_uid = ?1", [uid])?;
    Ok(true)
}

/// The stored view descriptors of a file, in order.
pub fn views_of(connection: &Connection, uid: &str) -> Result<Vec<Vec<u8>>, ServiceError> {
    let mut statement = connection
        .prepare_cached("SELECT descriptor FROM views WHERE file_uid = ?1 ORDER BY position")?;
    let views = statement
        .query_map([uid], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<Vec<u8>>>>()?;
    Ok(views)
}

/// An indexed file's stored view descriptors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredViews {
    /// Canonical UID.
    pub uid: String,
    /// A search input (never a search result) rather than a company-database file.
    pub is_search_input: bool,
    /// The stored descriptors, in order.
    pub views: Vec<Vec<u8>>,
}

/// The views of every indexed file, company-database files and search inputs alike (the visual index
/// is rebuilt from the former; both are checked for descriptors an earlier engine stored).
pub fn all_indexed_views(connection: &Connection) -> Result<Vec<StoredViews>, ServiceError> {
    let mut statement = connection.prepare(
        "SELECT v.file_uid, f.is_search_input, v.descriptor FROM views v
         JOIN files f ON f.uid = v.file_uid
         WHERE f.state = 'completed'
         ORDER BY v.file_uid, v.position",
    )?;
    let mut files: Vec<StoredViews> = Vec::new();
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, bool>(1)?,
            row.get::<_, Vec<u8>>(2)?,
        ))
    })?;
    for row in rows {
        let (uid, is_search_input, descriptor) = row?;
        match files.last_mut() {
            Some(last) if last.uid == uid => last.views.push(descriptor),
            _ => files.push(StoredViews {
                uid,
                is_search_input,
                views: vec![descriptor],
            }),
        }
    }
    Ok(files)
}
