//! File records on SQLite: who uploaded what, where it is stored, its indexing state and what
//! indexing learned. Every write that changes the searched fields rebuilds the record's search
//! text and its terms (`search_text.rs`) in the same transaction.

use rusqlite::{OptionalExtension, params};

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::files::{attributes_json, pages_json};
use crate::model::{FileRecord, IndexState, IndexedContent, IndexingFailure, NewContent, path_key};
use crate::rows::{self, FILE_COLUMNS};
use crate::traits::{FilesSteps, FilesTx};

impl SqliteTx<'_> {
    /// The record a statement of [`FILE_COLUMNS`] selects with `arguments`, if any.
    fn record_where(
        &self,
        condition: &str,
        arguments: impl rusqlite::Params,
    ) -> Result<Option<FileRecord>, StoreError> {
        let mut statement = self.0.prepare_cached(&format!(
            "SELECT {FILE_COLUMNS} FROM files WHERE {condition}"
        ))?;
        let mut found = statement.query(arguments)?;
        found.next()?.map(rows::file_record).transpose()
    }
}

impl FilesTx for SqliteTx<'_> {
    fn find_file(&mut self, company_id: &str, uid: &str) -> Result<Option<FileRecord>, StoreError> {
        self.record_where("uid = ?1 AND company_id = ?2", params![uid, company_id])
    }

    fn find_any_file(&mut self, uid: &str) -> Result<Option<FileRecord>, StoreError> {
        self.record_where("uid = ?1", [uid])
    }

    fn find_file_by_path(
        &mut self,
        company_id: &str,
        stored_path: &str,
    ) -> Result<Option<FileRecord>, StoreError> {
        self.record_where(
            "company_id = ?1 AND path_key = ?2",
            params![company_id, path_key(stored_path)],
        )
    }

    fn find_files(
        &mut self,
        company_id: &str,
        uids: &[String],
    ) -> Result<Vec<FileRecord>, StoreError> {
        let mut records = Vec::with_capacity(uids.len());
        for uid in uids {
            if let Some(record) = self.find_file(company_id, uid)? {
                records.push(record);
            }
        }
        Ok(records)
    }

    fn upsert_file(&mut self, content: &NewContent, now: &str) -> Result<i64, StoreError> {
        let previous: Option<(i64, i64)> = self
            .0
            .query_row(
                "SELECT revision, owner_user_id FROM files WHERE uid = ?1",
                [&content.uid],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let revision = match previous {
            Some((revision, owner)) => {
                self.0.execute(
                    "UPDATE files SET company_id = ?2, owner_user_id = ?3, is_search_input = ?4,
                        stored_path = ?5, path_key = ?6, display_name = ?7, extension = ?8, size = ?9,
                        state = ?10, revision = ?11, uploaded_at = ?12, indexed_at = NULL, text = '',
                        extracted_attributes = '[]', pmi = '[]', pages = '[]', has_thumbnail = 0,
                        has_large_image = 0, callback_param = ?13, failure_reason = NULL,
                        text_only = ?14
                     WHERE uid = ?1",
                    params![
                        content.uid,
                        content.company_id,
                        owner,
                        content.is_search_input,
                        content.stored_path,
                        content.path_key(),
                        content.display_name,
                        content.extension,
                        content.size as i64,
                        content.state.as_str(),
                        revision + 1,
                        now,
                        content.callback_param,
                        content.text_only,
                    ],
                )?;
                self.0
                    .execute("DELETE FROM views WHERE file_uid = ?1", [&content.uid])?;
                revision + 1
            }
            None => {
                self.0.execute(
                    "INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path,
                        path_key, display_name, extension, size, state, revision, uploaded_at,
                        callback_param, text_only)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1, ?11, ?12, ?13)",
                    params![
                        content.uid,
                        content.company_id,
                        content.owner_user_id,
                        content.is_search_input,
                        content.stored_path,
                        content.path_key(),
                        content.display_name,
                        content.extension,
                        content.size as i64,
                        content.state.as_str(),
                        now,
                        content.callback_param,
                        content.text_only,
                    ],
                )?;
                1
            }
        };
        self.refresh_search_text(&content.uid)?;
        Ok(revision)
    }

    fn delete_file(&mut self, uid: &str) -> Result<bool, StoreError> {
        Ok(self.0.execute("DELETE FROM files WHERE uid = ?1", [uid])? > 0)
    }

    fn set_file_state(&mut self, uid: &str, state: IndexState) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE files SET state = ?2 WHERE uid = ?1",
            params![uid, state.as_str()],
        )?;
        Ok(())
    }

    fn views_of(&mut self, uid: &str) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut statement = self
            .0
            .prepare_cached("SELECT descriptor FROM views WHERE file_uid = ?1 ORDER BY position")?;
        let views = statement
            .query_map([uid], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<Vec<u8>>>>()?;
        Ok(views)
    }

    fn views_at(&mut self, uid: &str, positions: &[u32]) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut statement = self
            .0
            .prepare_cached("SELECT descriptor FROM views WHERE file_uid = ?1 AND position = ?2")?;
        let mut views = Vec::with_capacity(positions.len());
        for &position in positions {
            if let Some(view) = statement
                .query_row(params![uid, i64::from(position)], |row| row.get(0))
                .optional()?
            {
                views.push(view);
            }
        }
        Ok(views)
    }

    fn first_view_of(&mut self, uid: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT descriptor FROM views WHERE file_uid = ?1 ORDER BY position LIMIT 1",
        )?;
        Ok(statement.query_row([uid], |row| row.get(0)).optional()?)
    }

    fn expired_search_inputs(
        &mut self,
        cutoff: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT uid FROM files WHERE is_search_input = 1 AND uploaded_at < ?1
             ORDER BY uploaded_at LIMIT ?2",
        )?;
        let uids = statement
            .query_map(params![cutoff, limit as i64], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(uids)
    }
}

impl FilesSteps for SqliteTx<'_> {
    fn revision_of(&mut self, uid: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .0
            .query_row("SELECT revision FROM files WHERE uid = ?1", [uid], |row| {
                row.get(0)
            })
            .optional()?)
    }

    fn write_indexed(
        &mut self,
        uid: &str,
        content: &IndexedContent,
        now: &str,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE files SET state = 'completed', indexed_at = ?2, text = ?3,
                extracted_attributes = ?4, pmi = ?5, has_thumbnail = ?6, has_large_image = ?7,
                failure_reason = NULL, pages = ?8
             WHERE uid = ?1",
            params![
                uid,
                now,
                content.text,
                attributes_json(&content.extracted_attributes),
                content.pmi_json,
                content.has_thumbnail,
                content.has_large_image,
                pages_json(content),
            ],
        )?;
        self.0
            .execute("DELETE FROM views WHERE file_uid = ?1", [uid])?;
        let mut insert = self.0.prepare_cached(
            "INSERT INTO views (file_uid, position, descriptor) VALUES (?1, ?2, ?3)",
        )?;
        for (position, descriptor) in content.views.iter().enumerate() {
            insert.execute(params![uid, position as i64, descriptor])?;
        }
        self.refresh_search_text(uid)?;
        self.0
            .execute("DELETE FROM jobs WHERE file_uid = ?1", [uid])?;
        Ok(())
    }

    fn write_failed_indexing(
        &mut self,
        uid: &str,
        failure: &IndexingFailure,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE files SET state = 'failed', indexed_at = NULL, failure_reason = ?2, text = ?3,
                extracted_attributes = ?4, pmi = '[]', pages = '[]', has_thumbnail = 0, has_large_image = 0
             WHERE uid = ?1",
            params![
                uid,
                failure.reason,
                failure.text,
                attributes_json(&failure.extracted_attributes),
            ],
        )?;
        self.0
            .execute("DELETE FROM views WHERE file_uid = ?1", [uid])?;
        self.refresh_search_text(uid)?;
        self.0
            .execute("DELETE FROM jobs WHERE file_uid = ?1", [uid])?;
        Ok(())
    }
}
