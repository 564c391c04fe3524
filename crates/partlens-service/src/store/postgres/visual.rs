//! The visual journal and the stored views on PostgreSQL (schema step 5): what a node's visual
//! index is loaded from at start and caught up with before it answers (`visual/keeper.rs`), so
//! that views indexed and files deleted through any node are searched through every node.

use r2d2_postgres::postgres::fallible_iterator::FallibleIterator;

use super::PgTx;
use crate::error::ServiceError;
use crate::store::tx::{VisualChange, VisualTx};
use crate::store::visual_journal::CompanyViews;

/// The condition a file must meet to be searched visually (its alias in queries is `f`).
const SEARCHED: &str = "NOT f.is_search_input AND f.state = 'completed'";

impl VisualTx for PgTx<'_, '_> {
    fn visual_position(&mut self) -> Result<i64, ServiceError> {
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

    fn visual_trimmed_through(&mut self) -> Result<i64, ServiceError> {
        Ok(self
            .tx
            .query_one(
                "SELECT trimmed_through FROM visual_journal WHERE id = 1",
                &[],
            )?
            .try_get(0)?)
    }

    fn visual_changes_since(&mut self, after: i64) -> Result<Vec<VisualChange>, ServiceError> {
        self.tx
            .query(
                "SELECT DISTINCT file_uid, company_id FROM visual_changes WHERE seq > $1",
                &[&after],
            )?
            .iter()
            .map(|row| Ok((row.try_get(0)?, Some(row.try_get(1)?))))
            .collect()
    }

    fn searched_views(&mut self, uid: &str) -> Result<Option<CompanyViews>, ServiceError> {
        let company: Option<String> = self
            .tx
            .query_opt(
                &format!("SELECT f.company_id FROM files f WHERE f.uid = $1 AND {SEARCHED}"),
                &[&uid],
            )?
            .map(|row| row.try_get(0))
            .transpose()?;
        let Some(company) = company else {
            return Ok(None);
        };
        let views = crate::store::tx::FilesTx::views_of(self, uid)?;
        Ok((!views.is_empty()).then_some((company, views)))
    }

    fn visual_view_counts(&mut self) -> Result<Vec<(String, usize)>, ServiceError> {
        self.tx
            .query(
                &format!(
                    "SELECT f.company_id, count(*) FROM views v JOIN files f ON f.uid = v.file_uid
                     WHERE {SEARCHED} GROUP BY f.company_id ORDER BY f.company_id"
                ),
                &[],
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
        each: &mut dyn FnMut(String, Vec<Vec<u8>>) -> Result<(), ServiceError>,
    ) -> Result<(), ServiceError> {
        // Streamed: a company's views need not fit in memory twice.
        let mut rows = self.tx.query_raw(
            &format!(
                "SELECT v.file_uid, v.descriptor FROM files f JOIN views v ON v.file_uid = f.uid
                 WHERE f.company_id = $1 AND {SEARCHED}
                 ORDER BY v.file_uid COLLATE \"C\", v.position"
            ),
            [company],
        )?;
        let mut current: Option<(String, Vec<Vec<u8>>)> = None;
        while let Some(row) = rows.next()? {
            let uid: String = row.try_get(0)?;
            let descriptor: Vec<u8> = row.try_get(1)?;
            match &mut current {
                Some((last, views)) if *last == uid => views.push(descriptor),
                _ => {
                    if let Some((last, views)) = current.take() {
                        each(last, views)?;
                    }
                    current = Some((uid, vec![descriptor]));
                }
            }
        }
        if let Some((last, views)) = current {
            each(last, views)?;
        }
        Ok(())
    }

    fn has_view_vector_index(&mut self) -> Result<bool, ServiceError> {
        Ok(self.view_vectors)
    }

    fn nearest_view_files(
        &mut self,
        company: &str,
        vectors: &[Vec<f32>],
        views_each: usize,
    ) -> Result<Option<Vec<String>>, ServiceError> {
        self.nearest_files(company, vectors, views_each)
    }

    fn forget_visual_changes_older_than(&mut self, seconds: i64) -> Result<u64, ServiceError> {
        let row = self.tx.query_one(
            "WITH gone AS (
                 DELETE FROM visual_changes
                 WHERE at < now() - make_interval(secs => $1::double precision)
                 RETURNING seq
             ), moved AS (
                 UPDATE visual_journal
                 SET trimmed_through = greatest(trimmed_through, (SELECT max(seq) FROM gone))
                 WHERE id = 1 AND EXISTS (SELECT 1 FROM gone)
             )
             SELECT count(*) FROM gone",
            &[&(seconds as f64)],
        )?;
        let count: i64 = row.try_get(0)?;
        Ok(count.max(0) as u64)
    }
}
