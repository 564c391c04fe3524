//! Candidate duplicates on PostgreSQL (see [`crate::model::pairs`]).

use super::PgTx;
use crate::error::StoreError;
use crate::model::FilePair;
use crate::model::pairs::{score_of, stored_score};
use crate::traits::PairsTx;

/// An indexed company database file `f` with views, not text-only, not paired at version `$1`.
const UNPAIRED: &str = "f.state = 'completed' AND NOT f.is_search_input AND NOT f.text_only
     AND EXISTS (SELECT 1 FROM views v WHERE v.file_uid = f.uid)
     AND NOT EXISTS (SELECT 1 FROM paired_files p WHERE p.file_uid = f.uid AND p.version = $1)";

impl PairsTx for PgTx<'_, '_> {
    fn save_pairs(
        &mut self,
        uid: &str,
        company_id: &str,
        version: i64,
        pairs: &[FilePair],
    ) -> Result<(), StoreError> {
        self.tx
            .execute("DELETE FROM file_pairs WHERE file_uid = $1", &[&uid])?;
        let insert = self.tx.prepare(
            "INSERT INTO file_pairs (file_uid, other_uid, company_id, score) VALUES ($1, $2, $3, $4)
             ON CONFLICT (file_uid, other_uid)
             DO UPDATE SET score = greatest(file_pairs.score, excluded.score)",
        )?;
        for pair in pairs.iter().filter(|pair| pair.other_uid != uid) {
            self.tx.execute(
                &insert,
                &[
                    &uid,
                    &pair.other_uid,
                    &company_id,
                    &stored_score(pair.score),
                ],
            )?;
        }
        self.tx.execute(
            "INSERT INTO paired_files (file_uid, company_id, version) VALUES ($1, $2, $3)
             ON CONFLICT (file_uid) DO UPDATE SET version = excluded.version",
            &[&uid, &company_id, &version],
        )?;
        Ok(())
    }

    fn forget_pairs(&mut self, uid: &str) -> Result<(), StoreError> {
        self.tx.execute(
            "DELETE FROM file_pairs WHERE file_uid = $1 OR other_uid = $1",
            &[&uid],
        )?;
        self.tx
            .execute("DELETE FROM paired_files WHERE file_uid = $1", &[&uid])?;
        Ok(())
    }

    fn pairs_of_company(
        &mut self,
        company_id: &str,
        min_score: f32,
    ) -> Result<Vec<FilePair>, StoreError> {
        self.tx
            .query(
                "SELECT p.file_uid, p.other_uid, p.score FROM file_pairs p
                 JOIN files a ON a.uid = p.file_uid
                 JOIN files b ON b.uid = p.other_uid
                 WHERE p.company_id = $1 AND p.score >= $2
                   AND a.state = 'completed' AND NOT a.is_search_input
                   AND b.state = 'completed' AND NOT b.is_search_input AND b.company_id = $1",
                &[&company_id, &stored_score(min_score)],
            )?
            .iter()
            .map(|row| {
                Ok(FilePair {
                    file_uid: row.try_get(0)?,
                    other_uid: row.try_get(1)?,
                    score: score_of(row.try_get(2)?),
                })
            })
            .collect()
    }

    fn paired_file_count(&mut self, company_id: &str, version: i64) -> Result<u64, StoreError> {
        let count: i64 = self
            .tx
            .query_one(
                "SELECT count(*) FROM paired_files p JOIN files f ON f.uid = p.file_uid
                 WHERE p.company_id = $1 AND p.version = $2
                   AND f.state = 'completed' AND NOT f.is_search_input",
                &[&company_id, &version],
            )?
            .try_get(0)?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    fn unpaired_files(
        &mut self,
        version: i64,
        after: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.tx
            .query(
                &format!(
                    "SELECT f.uid FROM files f WHERE f.uid > $2 AND {UNPAIRED}
                     ORDER BY f.uid LIMIT $3"
                ),
                &[&version, &after, &limit],
            )?
            .iter()
            .map(|row| Ok(row.try_get(0)?))
            .collect()
    }

    fn unpaired_file_count(&mut self, version: i64) -> Result<u64, StoreError> {
        let count: i64 = self
            .tx
            .query_one(
                &format!("SELECT count(*) FROM files f WHERE {UNPAIRED}"),
                &[&version],
            )?
            .try_get(0)?;
        Ok(u64::try_from(count).unwrap_or(0))
    }
}
