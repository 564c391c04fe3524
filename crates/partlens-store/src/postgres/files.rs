//! File records on PostgreSQL: who uploaded what, where it is stored, its indexing state and what
//! indexing learned. Every write that changes the searched fields rebuilds the record's search text
//! and its terms (`text_terms.rs`) in the same transaction, and a file's views are written with
//! their vectors (`view_vectors.rs`).

use std::collections::HashMap;

use r2d2_postgres::postgres::types::ToSql;

use super::PgTx;
use crate::error::StoreError;
use crate::model::files::{attributes_json, pages_json};
use crate::model::{FileRecord, IndexState, IndexedContent, IndexingFailure, NewContent, path_key};
use crate::rows::{self, FILE_COLUMNS, SEARCHED_COLUMNS};
use crate::traits::{AttributesTx, FilesSteps, FilesTx};

impl PgTx<'_, '_> {
    /// Rebuilds the search text of file `uid` from what is stored now
    /// ([`crate::model::search_text`]); a file that is not there is left alone.
    pub(super) fn refresh_search_text(&mut self, uid: &str) -> Result<(), StoreError> {
        let saved = self.attribute_texts_of(uid)?;
        let Some(row) = self.tx.query_opt(
            &format!("SELECT {SEARCHED_COLUMNS} FROM files WHERE uid = $1"),
            &[&uid],
        )?
        else {
            return Ok(());
        };
        let search_text = rows::search_text(&row, &saved)?;
        self.tx.execute(
            "UPDATE files SET search_text = $2 WHERE uid = $1",
            &[&uid, &search_text],
        )?;
        super::text_terms::index_file(self.tx, uid, &search_text)?;
        Ok(())
    }

    /// The record a statement of [`FILE_COLUMNS`] selects with `arguments`, if any.
    fn record_where(
        &mut self,
        condition: &str,
        arguments: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<FileRecord>, StoreError> {
        self.tx
            .query_opt(
                &format!("SELECT {FILE_COLUMNS} FROM files WHERE {condition}"),
                arguments,
            )?
            .as_ref()
            .map(rows::file_record)
            .transpose()
    }
}

impl FilesTx for PgTx<'_, '_> {
    fn find_file(&mut self, company_id: &str, uid: &str) -> Result<Option<FileRecord>, StoreError> {
        self.record_where("uid = $1 AND company_id = $2", &[&uid, &company_id])
    }

    fn find_any_file(&mut self, uid: &str) -> Result<Option<FileRecord>, StoreError> {
        self.record_where("uid = $1", &[&uid])
    }

    fn find_file_by_path(
        &mut self,
        company_id: &str,
        stored_path: &str,
    ) -> Result<Option<FileRecord>, StoreError> {
        self.record_where(
            "company_id = $1 AND path_key = $2",
            &[&company_id, &path_key(stored_path)],
        )
    }

    fn find_files(
        &mut self,
        company_id: &str,
        uids: &[String],
    ) -> Result<Vec<FileRecord>, StoreError> {
        let rows = self.tx.query(
            &format!("SELECT {FILE_COLUMNS} FROM files WHERE uid = ANY($1) AND company_id = $2"),
            &[&uids, &company_id],
        )?;
        let found: HashMap<String, FileRecord> = rows
            .iter()
            .map(|row| rows::file_record(row).map(|record| (record.uid.clone(), record)))
            .collect::<Result<_, _>>()?;
        // In the order asked; a UID asked twice is answered twice, as in SQLite.
        Ok(uids
            .iter()
            .filter_map(|uid| found.get(uid).cloned())
            .collect())
    }

    fn upsert_file(&mut self, content: &NewContent, now: &str) -> Result<i64, StoreError> {
        let previous = self
            .tx
            .query_opt(
                "SELECT revision, owner_user_id FROM files WHERE uid = $1",
                &[&content.uid],
            )?
            .map(|row| -> Result<(i64, i64), StoreError> { Ok((row.try_get(0)?, row.try_get(1)?)) })
            .transpose()?;
        let key = content.path_key();
        let size = content.size as i64;
        let revision = match previous {
            Some((revision, owner)) => {
                self.tx.execute(
                    "UPDATE files SET company_id = $2, owner_user_id = $3, is_search_input = $4,
                        stored_path = $5, path_key = $6, display_name = $7, extension = $8,
                        size = $9, state = $10, revision = $11, uploaded_at = $12,
                        indexed_at = NULL, text = '', extracted_attributes = '[]', pmi = '[]', pages = '[]',
                        has_thumbnail = false, has_large_image = false, callback_param = $13,
                        failure_reason = NULL, text_only = $14
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
                        &content.text_only,
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
                        uploaded_at, callback_param, text_only)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, $11, $12, $13)",
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
                        &content.text_only,
                    ],
                )?;
                1
            }
        };
        self.refresh_search_text(&content.uid)?;
        Ok(revision)
    }

    fn delete_file(&mut self, uid: &str) -> Result<bool, StoreError> {
        Ok(self
            .tx
            .execute("DELETE FROM files WHERE uid = $1", &[&uid])?
            > 0)
    }

    fn set_file_state(&mut self, uid: &str, state: IndexState) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE files SET state = $2 WHERE uid = $1",
            &[&uid, &state.as_str()],
        )?;
        Ok(())
    }

    fn views_of(&mut self, uid: &str) -> Result<Vec<Vec<u8>>, StoreError> {
        self.tx
            .query(
                "SELECT descriptor FROM views WHERE file_uid = $1 ORDER BY position",
                &[&uid],
            )?
            .iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }

    fn views_at(&mut self, uid: &str, positions: &[u32]) -> Result<Vec<Vec<u8>>, StoreError> {
        let wanted: Vec<i32> = positions
            .iter()
            .filter_map(|&position| i32::try_from(position).ok())
            .collect();
        let mut found: Vec<(i32, Vec<u8>)> = self
            .tx
            .query(
                "SELECT position, descriptor FROM views WHERE file_uid = $1 AND position = ANY($2)",
                &[&uid, &wanted],
            )?
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect::<Result<_, StoreError>>()?;
        // In the order asked, as SQLite answers.
        let order = |position: i32| wanted.iter().position(|&asked| asked == position);
        found.sort_by_key(|(position, _)| order(*position));
        Ok(found.into_iter().map(|(_, view)| view).collect())
    }

    fn first_view_of(&mut self, uid: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.tx
            .query_opt(
                "SELECT descriptor FROM views WHERE file_uid = $1 ORDER BY position LIMIT 1",
                &[&uid],
            )?
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .transpose()
    }

    fn expired_search_inputs(
        &mut self,
        cutoff: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.tx
            .query(
                "SELECT uid FROM files WHERE is_search_input AND uploaded_at < $1
                 ORDER BY uploaded_at LIMIT $2",
                &[&cutoff, &(limit.min(i64::MAX as usize) as i64)],
            )?
            .iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }
}

impl FilesSteps for PgTx<'_, '_> {
    fn revision_of(&mut self, uid: &str) -> Result<Option<i64>, StoreError> {
        self.tx
            .query_opt("SELECT revision FROM files WHERE uid = $1", &[&uid])?
            .map(|row| row.try_get(0))
            .transpose()
            .map_err(StoreError::from)
    }

    fn write_indexed(
        &mut self,
        uid: &str,
        content: &IndexedContent,
        now: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE files SET state = 'completed', indexed_at = $2, text = $3,
                extracted_attributes = $4, pmi = $5, has_thumbnail = $6, has_large_image = $7,
                failure_reason = NULL, pages = $8
             WHERE uid = $1",
            &[
                &uid,
                &now,
                &content.text,
                &attributes_json(&content.extracted_attributes),
                &content.pmi_json,
                &content.has_thumbnail,
                &content.has_large_image,
                &pages_json(content),
            ],
        )?;
        self.tx
            .execute("DELETE FROM views WHERE file_uid = $1", &[&uid])?;
        // One statement for every view (arrays unnested), not a round trip a view.
        let positions = (0..content.views.len())
            .map(i32::try_from)
            .collect::<Result<Vec<i32>, _>>()
            .map_err(|_| StoreError::Internal("more views than a file can number".into()))?;
        self.tx.execute(
            "INSERT INTO views (file_uid, position, descriptor)
             SELECT $1, given.position, given.descriptor
             FROM unnest($2::integer[], $3::bytea[]) AS given(position, descriptor)",
            &[&uid, &positions, &content.views],
        )?;
        self.write_view_vectors(uid)?;
        self.refresh_search_text(uid)?;
        self.tx
            .execute("DELETE FROM jobs WHERE file_uid = $1", &[&uid])?;
        Ok(())
    }

    fn write_failed_indexing(
        &mut self,
        uid: &str,
        failure: &IndexingFailure,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE files SET state = 'failed', indexed_at = NULL, failure_reason = $2, text = $3,
                extracted_attributes = $4, pmi = '[]', pages = '[]', has_thumbnail = false,
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
        Ok(())
    }
}
