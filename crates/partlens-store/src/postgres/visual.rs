//! The visual journal and the stored views on PostgreSQL (schema step 5): what a node's visual
//! index is loaded from at start and caught up with before it answers (the visual index's
//! keeper), so that views indexed and files deleted through any node are searched through every
//! node. Old changes are forgotten by age, and `visual_journal.trimmed_through` says up to where.

use r2d2_postgres::postgres::fallible_iterator::FallibleIterator;

use super::PgTx;
use crate::error::StoreError;
use crate::model::VisualChange;
use crate::model::visual::{EachSearchedFile, by_file};
use crate::traits::VisualTx;

/// The condition a file must meet to be searched visually (its alias in queries is `f`).
const SEARCHED: &str = "NOT f.is_search_input AND f.state = 'completed'";

impl VisualTx for PgTx<'_, '_> {
    fn visual_position(&mut self) -> Result<i64, StoreError> {
        // The rows forgotten count too: with every row forgotten, the position is where they
        // ended, not 0 (a node behind them must see that it is).
        Ok(self
            .tx
            .query_one(
                "SELECT greatest(coalesce(max(seq), 0),
                                 (SELECT trimmed_through FROM visual_journal WHERE id = 1))
                 FROM visual_changes",
                &[],
            )?
            .try_get(0)?)
    }

    fn visual_trimmed_through(&mut self) -> Result<i64, StoreError> {
        Ok(self
            .tx
            .query_one(
                "SELECT trimmed_through FROM visual_journal WHERE id = 1",
                &[],
            )?
            .try_get(0)?)
    }

    fn visual_changes_since(&mut self, after: i64) -> Result<Vec<VisualChange>, StoreError> {
        self.tx
            .query(
                "SELECT DISTINCT file_uid, company_id FROM visual_changes WHERE seq > $1",
                &[&after],
            )?
            .iter()
            .map(|row| Ok((row.try_get(0)?, Some(row.try_get(1)?))))
            .collect()
    }

    fn searched_company(&mut self, uid: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .tx
            .query_opt(
                &format!("SELECT f.company_id FROM files f WHERE f.uid = $1 AND {SEARCHED}"),
                &[&uid],
            )?
            .map(|row| row.try_get(0))
            .transpose()?)
    }

    fn visual_view_counts(&mut self, at_most: usize) -> Result<Vec<(String, usize)>, StoreError> {
        // Each company's views counted through its files, stopping at `at_most`.
        // At least one: a company with views is listed whatever the cap (a cap of 0 left every
        // company out, and a start then discarded their saved graphs).
        let at_most = i64::try_from(at_most.max(1)).unwrap_or(i64::MAX);
        self.tx
            .query(
                &format!(
                    "SELECT id, views FROM (
                         SELECT c.id AS id, (SELECT count(*) FROM (
                             SELECT 1 FROM files f JOIN views v ON v.file_uid = f.uid
                             WHERE f.company_id = c.id AND {SEARCHED} LIMIT $1) AS first) AS views
                         FROM companies c) AS counted
                     WHERE views > 0 ORDER BY id"
                ),
                &[&at_most],
            )?
            .iter()
            .map(|row| {
                let count: i64 = row.try_get(1)?;
                Ok((row.try_get(0)?, count.max(0) as usize))
            })
            .collect()
    }

    fn for_each_searched_file(
        &mut self,
        company: &str,
        each: &mut EachSearchedFile<'_>,
    ) -> Result<(), StoreError> {
        // Streamed: a company's views need not fit in memory twice.
        let rows = self.tx.query_raw(
            &format!(
                "SELECT v.file_uid, v.descriptor FROM files f JOIN views v ON v.file_uid = f.uid
                 WHERE f.company_id = $1 AND {SEARCHED}
                 ORDER BY v.file_uid COLLATE \"C\", v.position"
            ),
            [company],
        )?;
        let rows = rows
            .iterator()
            .map(|row| -> Result<(String, Vec<u8>), StoreError> {
                let row = row?;
                Ok((row.try_get(0)?, row.try_get(1)?))
            });
        by_file(rows, each)
    }

    fn has_view_vector_index(&mut self) -> Result<bool, StoreError> {
        Ok(self.view_vectors)
    }

    fn nearest_view_files(
        &mut self,
        company: &str,
        vectors: &[Vec<f32>],
        views_each: usize,
    ) -> Result<Option<Vec<String>>, StoreError> {
        self.nearest_files(company, vectors, views_each)
    }

    fn forget_visual_changes_through(&mut self, position: i64) -> Result<u64, StoreError> {
        self.forget_visual_changes_where("seq <= $1", &position)
    }

    fn forget_visual_changes_older_than(&mut self, seconds: i64) -> Result<u64, StoreError> {
        self.forget_visual_changes_where(
            "at < now() - make_interval(secs => $1::double precision)",
            &(seconds as f64),
        )
    }
}

impl PgTx<'_, '_> {
    /// Forgets the journal's changes that satisfy `condition` (of one argument) and moves
    /// `trimmed_through` past them; returns how many went.
    fn forget_visual_changes_where(
        &mut self,
        condition: &str,
        argument: &(dyn r2d2_postgres::postgres::types::ToSql + Sync),
    ) -> Result<u64, StoreError> {
        let row = self.tx.query_one(
            &format!(
                "WITH gone AS (
                     DELETE FROM visual_changes WHERE {condition} RETURNING seq
                 ), moved AS (
                     UPDATE visual_journal
                     SET trimmed_through = greatest(trimmed_through, (SELECT max(seq) FROM gone))
                     WHERE id = 1 AND EXISTS (SELECT 1 FROM gone)
                 )
                 SELECT count(*) FROM gone"
            ),
            &[argument],
        )?;
        let count: i64 = row.try_get(0)?;
        Ok(count.max(0) as u64)
    }
}
