//! The indexing queue on SQLite: one row a file waiting to be (or being) indexed, claimed in the
//! model's order ([`crate::model::jobs`]) by the one service process that owns the database.

use rusqlite::{OptionalExtension, params};

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::{ClaimedJob, IndexState, QueueDepth};
use crate::rows;
use crate::traits::{FilesTx, JobsTx};

impl JobsTx for SqliteTx<'_> {
    fn enqueue_job(&mut self, uid: &str, now: &str) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO jobs (file_uid, seq, queued_at)
             VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM jobs), ?2)
             ON CONFLICT (file_uid) DO UPDATE SET seq = excluded.seq, queued_at = excluded.queued_at",
            params![uid, now],
        )?;
        Ok(())
    }

    fn requeue_for_indexing(&mut self, uid: &str, now: &str) -> Result<(), StoreError> {
        self.set_file_state(uid, IndexState::Queued)?;
        self.0
            .execute("DELETE FROM views WHERE file_uid = ?1", [uid])?;
        self.enqueue_job(uid, now)
    }

    fn claim_next_job(&mut self) -> Result<Option<ClaimedJob>, StoreError> {
        let job = self
            .0
            .query_row(
                "WITH busy AS (
                     SELECT company_id, count(*) AS indexing FROM files WHERE state = ?2
                     GROUP BY company_id)
                 SELECT f.uid, f.revision, f.extension, f.company_id, f.is_search_input,
                        f.text_only
                 FROM jobs j JOIN files f ON f.uid = j.file_uid
                 LEFT JOIN busy b ON b.company_id = f.company_id
                 WHERE f.state = ?1
                 ORDER BY f.is_search_input DESC, coalesce(b.indexing, 0), j.seq LIMIT 1",
                [IndexState::Queued.as_str(), IndexState::InProgress.as_str()],
                |row| {
                    Ok(ClaimedJob {
                        uid: row.get(0)?,
                        revision: row.get(1)?,
                        extension: row.get(2)?,
                        company_id: row.get(3)?,
                        is_search_input: row.get(4)?,
                        text_only: row.get(5)?,
                    })
                },
            )
            .optional()?;
        if let Some(job) = &job {
            self.set_file_state(&job.uid, IndexState::InProgress)?;
        }
        Ok(job)
    }

    fn return_job_to_queue(&mut self, job: &ClaimedJob) -> Result<(), StoreError> {
        self.0.execute(
            "UPDATE files SET state = ?1 WHERE uid = ?2 AND revision = ?3 AND state = ?4",
            params![
                IndexState::Queued.as_str(),
                job.uid,
                job.revision,
                IndexState::InProgress.as_str()
            ],
        )?;
        Ok(())
    }

    fn requeue_unfinished_jobs(&mut self, now: &str) -> Result<usize, StoreError> {
        // One process owns the database: whatever was in progress stopped with it.
        self.0.execute(
            "UPDATE files SET state = 'queued' WHERE state = 'in_progress'",
            [],
        )?;
        self.0.execute(
            "INSERT OR IGNORE INTO jobs (file_uid, seq, queued_at)
             SELECT uid, (SELECT coalesce(max(seq), 0) FROM jobs)
                         + row_number() OVER (ORDER BY uploaded_at, uid), ?1
             FROM files WHERE state = 'queued'",
            [now],
        )?;
        Ok(self
            .0
            .query_row("SELECT count(*) FROM jobs", [], |row| row.get::<_, i64>(0))?
            as usize)
    }

    fn known_nodes(&mut self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    fn queue_depths(&mut self) -> Result<Vec<QueueDepth>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT c.id, coalesce(q.queued, 0), coalesce(q.in_progress, 0)
             FROM companies c LEFT JOIN (
                 SELECT f.company_id,
                        sum(CASE WHEN f.state = 'queued' THEN 1 ELSE 0 END) AS queued,
                        sum(CASE WHEN f.state = 'in_progress' THEN 1 ELSE 0 END) AS in_progress
                 FROM jobs j JOIN files f ON f.uid = j.file_uid
                 GROUP BY f.company_id) q ON q.company_id = c.id
             ORDER BY c.id",
        )?;
        let mut found = statement.query([])?;
        let mut depths = Vec::new();
        while let Some(row) = found.next()? {
            depths.push(rows::queue_depth(row)?);
        }
        Ok(depths)
    }
}
