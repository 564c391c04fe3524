//! File records on PostgreSQL: the behaviour of `../files.rs` (and of `../search_text.rs`, which
//! every write that changes the searched fields calls), the same sentences.

use r2d2_postgres::postgres::Row;

use super::super::files::{
    FileRecord, IndexState, IndexedContent, IndexingFailure, NewContent, path_key,
};
use super::super::tx::FilesTx;
use super::PgTx;
use crate::error::ServiceError;

/// The columns [`record_from_row`] reads, in its order.
const COLUMNS: &str = "uid, company_id, owner_user_id, is_search_input, stored_path, display_name, \
     extension, size, state, revision, uploaded_at, indexed_at, text, extracted_attributes, pmi, \
     has_thumbnail, has_large_image, failure_reason";

/// A record from a row of [`COLUMNS`].
fn record_from_row(row: &Row) -> Result<FileRecord, ServiceError> {
    let extracted: String = row.try_get(13)?;
    let state: String = row.try_get(8)?;
    Ok(FileRecord {
        uid: row.try_get(0)?,
        company_id: row.try_get(1)?,
        owner_user_id: row.try_get(2)?,
        is_search_input: row.try_get(3)?,
        stored_path: row.try_get(4)?,
        display_name: row.try_get(5)?,
        extension: row.try_get(6)?,
        size: row.try_get::<_, i64>(7)?.max(0) as u64,
        state: IndexState::parse(&state),
        revision: row.try_get(9)?,
        uploaded_at: row.try_get(10)?,
        indexed_at: row.try_get(11)?,
        text: row.try_get(12)?,
        extracted_attributes: serde_json::from_str(&extracted).unwrap_or_default(),
        pmi_json: row.try_get(14)?,
        has_thumbnail: row.try_get(15)?,
        has_large_image: row.try_get(16)?,
        failure_reason: row.try_get(17)?,
    })
}

/// The JSON text of extracted attributes, as SQLite stores it.
fn attributes_json(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".into())
}

impl PgTx<'_, '_> {
    /// The current revision of file `uid`, if it exists.
    fn revision_of(&mut self, uid: &str) -> Result<Option<i64>, ServiceError> {
        self.tx
            .query_opt("SELECT revision FROM files WHERE uid = $1", &[&uid])?
            .map(|row| row.try_get(0))
            .transpose()
            .map_err(ServiceError::from)
    }

    /// Rebuilds the search text of file `uid` from what is stored now (`../search_text.rs`); a
    /// file that is not there is left alone.
    pub(super) fn refresh_search_text(&mut self, uid: &str) -> Result<(), ServiceError> {
        let Some(row) = self.tx.query_opt(
            "SELECT stored_path, display_name, text, extracted_attributes FROM files WHERE uid = $1",
            &[&uid],
        )?
        else {
            return Ok(());
        };
        let (stored_path, display_name, text, extracted): (String, String, String, String) = (
            row.try_get(0)?,
            row.try_get(1)?,
            row.try_get(2)?,
            row.try_get(3)?,
        );
        let saved = self.attribute_texts(uid)?;
        let extracted: Vec<String> = serde_json::from_str(&extracted).unwrap_or_default();
        let mut search_text = format!("{stored_path}\n{display_name}\n");
        for line in saved.iter().chain(&extracted) {
            search_text.push_str(line);
            search_text.push('\n');
        }
        search_text.push_str(&text);
        let search_text = search_text.to_lowercase();
        self.tx.execute(
            "UPDATE files SET search_text = $2 WHERE uid = $1",
            &[&uid, &search_text],
        )?;
        super::text_terms::index_file(self.tx, uid, &search_text)?;
        Ok(())
    }

    /// The saved attributes of a file in their wire form, in order.
    pub(super) fn attribute_texts(&mut self, uid: &str) -> Result<Vec<String>, ServiceError> {
        self.tx
            .query(
                "SELECT text FROM file_attributes WHERE file_uid = $1 ORDER BY position",
                &[&uid],
            )?
            .iter()
            .map(|row| row.try_get(0).map_err(ServiceError::from))
            .collect()
    }
}

impl FilesTx for PgTx<'_, '_> {
    fn find_file(
        &mut self,
        company_id: &str,
        uid: &str,
    ) -> Result<Option<FileRecord>, ServiceError> {
        self.tx
            .query_opt(
                &format!("SELECT {COLUMNS} FROM files WHERE uid = $1 AND company_id = $2"),
                &[&uid, &company_id],
            )?
            .as_ref()
            .map(record_from_row)
            .transpose()
    }

    fn find_any_file(&mut self, uid: &str) -> Result<Option<FileRecord>, ServiceError> {
        self.tx
            .query_opt(
                &format!("SELECT {COLUMNS} FROM files WHERE uid = $1"),
                &[&uid],
            )?
            .as_ref()
            .map(record_from_row)
            .transpose()
    }

    fn find_file_by_path(
        &mut self,
        company_id: &str,
        stored_path: &str,
    ) -> Result<Option<FileRecord>, ServiceError> {
        self.tx
            .query_opt(
                &format!("SELECT {COLUMNS} FROM files WHERE company_id = $1 AND path_key = $2"),
                &[&company_id, &path_key(stored_path)],
            )?
            .as_ref()
            .map(record_from_row)
            .transpose()
    }

    fn find_files(
        &mut self,
        company_id: &str,
        uids: &[String],
    ) -> Result<Vec<FileRecord>, ServiceError> {
        let rows = self.tx.query(
            &format!("SELECT {COLUMNS} FROM files WHERE uid = ANY($1) AND company_id = $2"),
            &[&uids, &company_id],
        )?;
        let found: std::collections::HashMap<String, FileRecord> = rows
            .iter()
            .map(|row| record_from_row(row).map(|record| (record.uid.clone(), record)))
            .collect::<Result<_, _>>()?;
        // In the order asked; a UID asked twice is answered twice, as in SQLite.
        Ok(uids
            .iter()
            .filter_map(|uid| found.get(uid).cloned())
            .collect())
    }

    fn upsert_file(&mut self, content: &NewContent, now: &str) -> Result<i64, ServiceError> {
        let previous = self
            .tx
            .query_opt(
                "SELECT revision, owner_user_id FROM files WHERE uid = $1",
                &[&content.uid],
            )?
            .map(|row| -> Result<(i64, i64), ServiceError> {
                Ok((row.try_get(0)?, row.try_get(1)?))
            })
            .transpose()?;
        let key = (!content.is_search_input).then(|| path_key(&content.stored_path));
        let size = content.size as i64;
        let revision = match previous {
            Some((revision, owner)) => {
                self.tx.execute(
                    "UPDATE files SET company_id = $2, owner_user_id = $3, is_search_input = $4,
                        stored_path = $5, path_key = $6, display_name = $7, extension = $8,
                        size = $9, state = $10, revision = $11, uploaded_at = $12,
                        indexed_at = NULL, text = '', extracted_attributes = '[]', pmi = '[]',
                        has_thumbnail = false, has_large_image = false, callback_param = $13,
                        failure_reason = NULL
                     WHERE uid = $1",
                    &[
                        &content.uid,
                        &content.company_id,
                        &owner,
                        &content.is_search_input,
                        &content.stored_path,
                        &key,
                        &content.display_name,
                        &content.extension,
                        &size,
                        &content.state.as_str(),
                        &(revision + 1),
                        &now,
                        &content.callback_param,
                    ],
                )?;
                self.tx
                    .execute("DELETE FROM views WHERE file_uid = $1", &[&content.uid])?;
                revision + 1
            }
            None => {
                self.tx.execute(
                    "INSERT INTO files (uid, company_id, owner_user_id, is_search_input,
                        stored_path, path_key, display_name, extension, size, state, revision,
                        uploaded_at, callback_param)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, $11, $12)",
                    &[
                        &content.uid,
                        &content.company_id,
                        &content.owner_user_id,
                        &content.is_search_input,
                        &content.stored_path,
                        &key,
                        &content.display_name,
                        &content.extension,
                        &size,
                        &content.state.as_str(),
                        &now,
                        &content.callback_param,
                    ],
                )?;
                1
            }
        };
        self.refresh_search_text(&content.uid)?;
        Ok(revision)
    }

    fn delete_file(&mut self, uid: &str) -> Result<bool, ServiceError> {
        Ok(self
            .tx
            .execute("DELETE FROM files WHERE uid = $1", &[&uid])?
            > 0)
    }

    fn set_file_state(&mut self, uid: &str, state: IndexState) -> Result<(), ServiceError> {
        self.tx.execute(
            "UPDATE files SET state = $2 WHERE uid = $1",
            &[&uid, &state.as_str()],
        )?;
        Ok(())
    }

    fn save_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        outcome: Option<&IndexedContent>,
        now: &str,
    ) -> Result<bool, ServiceError> {
        let Some(content) = outcome else {
            let failure = IndexingFailure {
                reason: "the service failed while indexing the file".to_owned(),
                ..IndexingFailure::default()
            };
            return self.save_failed_indexing(uid, revision, &failure);
        };
        if self.revision_of(uid)? != Some(revision) {
            return Ok(false);
        }
        self.tx.execute(
            "UPDATE files SET state = 'completed', indexed_at = $2, text = $3,
                extracted_attributes = $4, pmi = $5, has_thumbnail = $6, has_large_image = $7,
                failure_reason = NULL
             WHERE uid = $1",
            &[
                &uid,
                &now,
                &content.text,
                &attributes_json(&content.extracted_attributes),
                &content.pmi_json,
                &content.has_thumbnail,
                &content.has_large_image,
            ],
        )?;
        self.tx
            .execute("DELETE FROM views WHERE file_uid = $1", &[&uid])?;
        let insert = self
            .tx
            .prepare("INSERT INTO views (file_uid, position, descriptor) VALUES ($1, $2, $3)")?;
        for (position, descriptor) in content.views.iter().enumerate() {
            self.tx
                .execute(&insert, &[&uid, &(position as i32), descriptor])?;
        }
        self.write_view_vectors(uid)?;
        self.refresh_search_text(uid)?;
        self.tx
            .execute("DELETE FROM jobs WHERE file_uid = $1", &[&uid])?;
        Ok(true)
    }

    fn save_failed_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        failure: &IndexingFailure,
    ) -> Result<bool, ServiceError> {
        if self.revision_of(uid)? != Some(revision) {
            return Ok(false);
        }
        self.tx.execute(
            "UPDATE files SET state = 'failed', indexed_at = NULL, failure_reason = $2, text = $3,
                extracted_attributes = $4, pmi = '[]', has_thumbnail = false,
                has_large_image = false
             WHERE uid = $1",
            &[
                &uid,
                &failure.reason,
                &failure.text,
                &attributes_json(&failure.extracted_attributes),
            ],
        )?;
        self.tx
            .execute("DELETE FROM views WHERE file_uid = $1", &[&uid])?;
        self.refresh_search_text(uid)?;
        self.tx
            .execute("DELETE FROM jobs WHERE file_uid = $1", &[&uid])?;
        Ok(true)
    }

    fn views_of(&mut self, uid: &str) -> Result<Vec<Vec<u8>>, ServiceError> {
        self.tx
            .query(
                "SELECT descriptor FROM views WHERE file_uid = $1 ORDER BY position",
                &[&uid],
            )?
            .iter()
            .map(|row| row.try_get(0).map_err(ServiceError::from))
            .collect()
    }

    fn expired_search_inputs(
        &mut self,
        cutoff: &str,
        limit: usize,
    ) -> Result<Vec<String>, ServiceError> {
        self.tx
            .query(
                "SELECT uid FROM files WHERE is_search_input AND uploaded_at < $1
                 ORDER BY uploaded_at LIMIT $2",
                &[&cutoff, &(limit.min(i64::MAX as usize) as i64)],
            )?
            .iter()
            .map(|row| row.try_get(0).map_err(ServiceError::from))
            .collect()
    }
}
