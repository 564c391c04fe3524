//! Candidate duplicates on SQLite (see [`crate::model::pairs`]).

use rusqlite::{OptionalExtension as _, params};

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::FilePair;
use crate::model::pairs::{score_of, stored_score};
use crate::traits::PairsTx;

/// An indexed company database file `f` with views, not text-only, not paired at version `?1`.
const UNPAIRED: &str = "f.state = 'completed' AND f.is_search_input = 0 AND f.text_only = 0
     AND EXISTS (SELECT 1 FROM views v WHERE v.file_uid = f.uid)
     AND NOT EXISTS (SELECT 1 FROM paired_files p WHERE p.file_uid = f.uid AND p.version = ?1)";

impl PairsTx for SqliteTx<'_> {
    fn save_pairs(
        &mut self,
        uid: &str,
        company_id: &str,
        version: i64,
        pairs: &[FilePair],
    ) -> Result<(), StoreError> {
        self.0
            .execute("DELETE FROM file_pairs WHERE file_uid = ?1", [uid])?;
        let mut insert = self.0.prepare_cached(
            "INSERT INTO file_pairs (file_uid, other_uid, company_id, score) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (file_uid, other_uid) DO UPDATE SET score = max(score, excluded.score)",
        )?;
        for pair in pairs.iter().filter(|pair| pair.other_uid != uid) {
            insert.execute(params![
                uid,
                pair.other_uid,
                company_id,
                stored_score(pair.score)
            ])?;
        }
        self.0.execute(
            "INSERT INTO paired_files (file_uid, company_id, version) VALUES (?1, ?2, ?3)
             ON CONFLICT (file_uid) DO UPDATE SET version = excluded.version",
            params![uid, company_id, version],
        )?;
        Ok(())
    }

    fn forget_pairs(&mut self, uid: &str) -> Result<(), StoreError> {
        self.0.execute(
            "DELETE FROM file_pairs WHERE file_uid = ?1 OR other_uid = ?1",
            [uid],
        )?;
        self.0
            .execute("DELETE FROM paired_files WHERE file_uid = ?1", [uid])?;
        Ok(())
    }

    fn pairs_of_company(
        &mut self,
        company_id: &str,
        min_score: f32,
    ) -> Result<Vec<FilePair>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT p.file_uid, p.other_uid, p.score FROM file_pairs p
             JOIN files a ON a.uid = p.file_uid
             JOIN files b ON b.uid = p.other_uid
             WHERE p.company_id = ?1 AND p.score >= ?2
               AND a.state = 'completed' AND a.is_search_input = 0
               AND b.state = 'completed' AND b.is_search_input = 0 AND b.company_id = ?1",
        )?;
        let pairs = statement
            .query_map(params![company_id, stored_score(min_score)], |row| {
                Ok(FilePair {
                    file_uid: row.get(0)?,
                    other_uid: row.get(1)?,
                    score: score_of(row.get(2)?),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(pairs)
    }

    fn paired_file_count(&mut self, company_id: &str, version: i64) -> Result<u64, StoreError> {
        let count: i64 = self.0.query_row(
            "SELECT count(*) FROM paired_files p JOIN files f ON f.uid = p.file_uid
             WHERE p.company_id = ?1 AND p.version = ?2
               AND f.state = 'completed' AND f.is_search_input = 0",
            params![company_id, version],
            |row| row.get(0),
        )?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    fn unpaired_files(
        &mut self,
        version: i64,
        after: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self.0.prepare_cached(&format!(
            "SELECT f.uid FROM files f WHERE f.uid > ?2 AND {UNPAIRED} ORDER BY f.uid LIMIT ?3"
        ))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let uids = statement
            .query_map(params![version, after, limit], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(uids)
    }

    fn unpaired_file_count(&mut self, version: i64) -> Result<u64, StoreError> {
        let count: Option<i64> = self
            .0
            .query_row(
                &format!("SELECT count(*) FROM files f WHERE {UNPAIRED}"),
                [version],
                |row| row.get(0),
            )
            .optional()?;
        Ok(count
            .and_then(|count| u64::try_from(count).ok())
            .unwrap_or(0))
    }
}
