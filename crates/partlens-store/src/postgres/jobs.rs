//! The indexing queue on PostgreSQL: the model's order ([`crate::model::jobs`]: search inputs
//! first, then the company with the fewest files being indexed, then the oldest), taken by the
//! workers of every node on the database.
//!
//! **Claims.** A claim locks the job's row and its file's row with `FOR UPDATE SKIP LOCKED`: workers
//! of any node claim at the same time, each skipping what another is taking, without waiting for
//! the store's writer lock (claims and returns run in [`super::PgStore::queue_blocking`]). The
//! claimed job's row names the node that took it (`claimed_by`), and a file indexed during an
//! upload names the node of the upload the same way.
//!
//! **A node that died.** On SQLite every job left in progress goes back in the queue at start: one
//! process owns the queue. Here many do, so a job in progress is taken again only when
//! its node stopped beating: every running store renews its row of `nodes` every
//! [`super::HEARTBEAT`] (a thread of its own, on the database's clock), and a job whose node's beat
//! is older than [`super::NODE_TIMEOUT`] (or that names no node) is claimable like a queued one. A
//! heartbeat per node, not a lease per job, because a read may take as long as the reader's limits
//! allow, and a synchronous upload may wait for a reader slot for as long as other companies keep
//! them busy: a node alive is working on its jobs, however long they take. A node that restarts
//! has a new id, so its earlier jobs are taken again once its old beat is old enough.

use super::{NODE_TIMEOUT, PgTx};
use crate::error::StoreError;
use crate::model::{ClaimedJob, IndexState, QueueDepth};
use crate::rows;
use crate::traits::{FilesTx, JobsTx};

/// How old, in seconds, a node's beat may be before its jobs are taken again.
fn timeout_seconds() -> f64 {
    NODE_TIMEOUT.as_secs_f64()
}

impl JobsTx for PgTx<'_, '_> {
    fn enqueue_job(&mut self, uid: &str, now: &str) -> Result<(), StoreError> {
        // A file already in progress (indexed during its upload) is this node's.
        self.tx.execute(
            "INSERT INTO jobs (file_uid, seq, queued_at, claimed_by)
             SELECT uid, nextval('job_seq'), $2,
                    CASE WHEN state = 'in_progress' THEN $3 END
             FROM files WHERE uid = $1
             ON CONFLICT (file_uid) DO UPDATE SET seq = excluded.seq,
                 queued_at = excluded.queued_at, claimed_by = excluded.claimed_by",
            &[&uid, &now, &self.node],
        )?;
        Ok(())
    }

    fn requeue_for_indexing(&mut self, uid: &str, now: &str) -> Result<(), StoreError> {
        self.set_file_state(uid, IndexState::Queued)?;
        self.tx
            .execute("DELETE FROM views WHERE file_uid = $1", &[&uid])?;
        self.enqueue_job(uid, now)
    }

    fn claim_next_job(&mut self) -> Result<Option<ClaimedJob>, StoreError> {
        let row = self.tx.query_opt(
            "WITH busy AS (
                 SELECT company_id, count(*) AS indexing FROM files WHERE state = 'in_progress'
                 GROUP BY company_id)
             SELECT f.uid, f.revision, f.extension, f.company_id, f.is_search_input, f.text_only
             FROM jobs j JOIN files f ON f.uid = j.file_uid
             LEFT JOIN busy b ON b.company_id = f.company_id
             WHERE f.state = 'queued'
                OR (f.state = 'in_progress' AND NOT EXISTS (
                        SELECT 1 FROM nodes n WHERE n.id = j.claimed_by
                          AND n.heartbeat_at > now() - make_interval(secs => $1)))
             ORDER BY f.is_search_input DESC, coalesce(b.indexing, 0), j.seq
             LIMIT 1
             FOR UPDATE OF j, f SKIP LOCKED",
            &[&timeout_seconds()],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let job = ClaimedJob {
            uid: row.try_get(0)?,
            revision: row.try_get(1)?,
            extension: row.try_get(2)?,
            company_id: row.try_get(3)?,
            is_search_input: row.try_get(4)?,
            text_only: row.try_get(5)?,
        };
        self.set_file_state(&job.uid, IndexState::InProgress)?;
        self.tx.execute(
            "UPDATE jobs SET claimed_by = $2 WHERE file_uid = $1",
            &[&job.uid, &self.node],
        )?;
        Ok(Some(job))
    }

    fn return_job_to_queue(&mut self, job: &ClaimedJob) -> Result<(), StoreError> {
        let returned = self.tx.execute(
            "UPDATE files SET state = 'queued'
             WHERE uid = $1 AND revision = $2 AND state = 'in_progress'",
            &[&job.uid, &job.revision],
        )?;
        if returned > 0 {
            self.tx.execute(
                "UPDATE jobs SET claimed_by = NULL WHERE file_uid = $1",
                &[&job.uid],
            )?;
        }
        Ok(())
    }

    fn requeue_unfinished_jobs(&mut self, now: &str) -> Result<usize, StoreError> {
        // Jobs in progress stay with their nodes (taken again when a node stops beating, see the
        // module comment); an unfinished file without a queue row gets one.
        self.tx.execute(
            "INSERT INTO jobs (file_uid, seq, queued_at)
             SELECT uid, nextval('job_seq'), $1 FROM (
                 SELECT uid FROM files f
                 WHERE state IN ('queued', 'in_progress')
                   AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.file_uid = f.uid)
                 ORDER BY uploaded_at, uid) unqueued
             ON CONFLICT (file_uid) DO NOTHING",
            &[&now],
        )?;
        // Nodes gone for a day are forgotten (their jobs are claimable either way).
        self.tx.execute(
            "DELETE FROM nodes WHERE heartbeat_at < now() - interval '1 day'",
            &[],
        )?;
        let count: i64 = self
            .tx
            .query_one("SELECT count(*) FROM jobs", &[])?
            .try_get(0)?;
        Ok(count.max(0) as usize)
    }

    fn known_nodes(&mut self) -> Result<Vec<String>, StoreError> {
        self.tx
            .query("SELECT id FROM nodes", &[])?
            .iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }

    fn queue_depths(&mut self) -> Result<Vec<QueueDepth>, StoreError> {
        self.tx
            .query(
                "SELECT c.id, coalesce(q.queued, 0), coalesce(q.in_progress, 0)
                 FROM companies c LEFT JOIN (
                     SELECT f.company_id,
                            count(*) FILTER (WHERE f.state = 'queued') AS queued,
                            count(*) FILTER (WHERE f.state = 'in_progress') AS in_progress
                     FROM jobs j JOIN files f ON f.uid = j.file_uid
                     GROUP BY f.company_id) q ON q.company_id = c.id
                 ORDER BY c.id",
                &[],
            )?
            .iter()
            .map(rows::queue_depth)
            .collect()
    }
}
