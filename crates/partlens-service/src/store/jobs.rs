//! The indexing queue: one row per file waiting to be (or being) indexed. A row leaves the queue only
//! when the outcome is saved, so queued and in-progress work survives a restart.

use rusqlite::{Connection, OptionalExtension, params};

use super::files::IndexState;
use crate::error::ServiceError;

/// A file a worker took from the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedJob {
    /// Canonical UID.
    pub uid: String,
    /// The revision being indexed.
    pub revision: i64,
    /// The file's extension (what the engine decodes it as).
    pub extension: String,
    /// The company the file belongs to (readers are shared fairly between companies).
    pub company_id: String,
    /// A search input (someone waits at the search bar): goes before database files.
    pub is_search_input: bool,
}

/// How many files of one company are in the indexing queue (rows of `jobs`), by their state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueDepth {
    /// The company's id (a GUID: names are chosen by people and may be anything).
    pub company_id: String,
    /// Files waiting for a reader.
    pub queued: u64,
    /// Files being read now (on PostgreSQL, by any node).
    pub in_progress: u64,
}

/// The statement of [`queue_depths`], read by both engines alike: every company, those with
/// nothing queued at 0, so a scraper sees a company's queue empty rather than gone.
pub const QUEUE_DEPTHS_SQL: &str = "
    SELECT c.id, coalesce(q.queued, 0), coalesce(q.in_progress, 0)
    FROM companies c LEFT JOIN (
        SELECT f.company_id,
               sum(CASE WHEN f.state = 'queued' THEN 1 ELSE 0 END) AS queued,
               sum(CASE WHEN f.state = 'in_progress' THEN 1 ELSE 0 END) AS in_progress
        FROM jobs j JOIN files f ON f.uid = j.file_uid
        GROUP BY f.company_id) q ON q.company_id = c.id
    ORDER BY c.id";

/// The depth of the indexing queue of every company (see [`QUEUE_DEPTHS_SQL`]).
pub fn queue_depths(connection: &Connection) -> Result<Vec<QueueDepth>, ServiceError> {
    let mut statement = connection.prepare(QUEUE_DEPTHS_SQL)?;
    let rows = statement.query_map([], |row| {
        Ok(QueueDepth {
            company_id: row.get(0)?,
            queued: row.get::<_, i64>(1)?.max(0) as u64,
            in_progress: row.get::<_, i64>(2)?.max(0) as u64,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Puts a file in the queue (again), behind everything already there.
pub fn enqueue(connection: &Connection, uid: &str, now: &str) -> Result<(), ServiceError> {
    connection.execute(
        "INSERT INTO jobs (file_uid, seq, queued_at)
         VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM jobs), ?2)
         ON CONFLICT (file_uid) DO UPDATE SET seq = excluded.seq, queued_at = excluded.queued_at",
        params![uid, now],
    )?;
    Ok(())
}

/// Queues a file to be indexed again from its stored bytes: its state becomes queued and its stored
/// views are dropped (they could not be read back).
pub fn requeue_for_indexing(
    connection: &Connection,
    uid: &str,
    now: &str,
) -> Result<(), ServiceError> {
    super::files::set_state(connection, uid, IndexState::Queued)?;
    connection.execute("DELETE FROM views WHERE file_uid = ?1", [uid])?;
    enqueue(connection, uid, now)
}

/// Takes the next queued job, fairly, and marks its file in progress: search inputs first (someone
/// waits at the search bar), then the company with the fewest files being indexed (round robin
/// between companies), then the oldest.
pub fn claim_next(connection: &Connection) -> Result<Option<ClaimedJob>, ServiceError> {
    let job = connection
        .query_row(
            "WITH busy AS (
                 SELECT company_id, count(*) AS indexing FROM files WHERE state = ?2
                 GROUP BY company_id)
             SELECT f.uid, f.revision, f.extension, f.company_id, f.is_search_input
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
                })
            },
        )
        .optional()?;
    if let Some(job) = &job {
        super::files::set_state(connection, &job.uid, IndexState::InProgress)?;
    }
    Ok(job)
}

/// Puts a claimed job back in the queue, in its place (its read was preempted or the service is
/// stopping), if its file is still in progress at that revision.
pub fn return_to_queue(connection: &Connection, job: &ClaimedJob) -> Result<(), ServiceError> {
    connection.execute(
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

/// At start: work that was in progress when the service stopped goes back to the queue, and every
/// unfinished file has a queue row. Returns how many files wait.
pub fn requeue_unfinished(connection: &Connection, now: &str) -> Result<usize, ServiceError> {
    connection.execute(
        "UPDATE files SET state = 'queued' WHERE state = 'in_progress'",
        [],
    )?;
    connection.execute(
        "INSERT OR IGNORE INTO jobs (file_uid, seq, queued_at)
         SELECT uid, (SELECT coalesce(max(seq), 0) FROM jobs) + row_number() OVER (ORDER BY uploaded_at, uid), ?1
         FROM files WHERE state = 'queued'",
        [now],
    )?;
    Ok(connection.query_row("SELECT count(*) FROM jobs", [], |row| row.get::<_, i64>(0))? as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::files::{NewContent, find_any, upsert};

    /// An empty store in memory.
    fn store() -> Connection {
        let mut connection = Connection::open_in_memory().unwrap();
        crate::store::schema::migrate(&mut connection).unwrap();
        connection
    }

    /// Records a queued file of `company` and puts it in the queue.
    fn queue(
        connection: &Connection,
        uid: &str,
        company: &str,
        search_input: bool,
        extension: &str,
    ) {
        upsert(
            connection,
            &NewContent {
                uid: uid.into(),
                company_id: company.to_owned(),
                owner_user_id: 1,
                is_search_input: search_input,
                stored_path: format!("{uid}{extension}"),
                display_name: format!("{uid}{extension}"),
                extension: extension.into(),
                size: 2000,
                state: IndexState::Queued,
                callback_param: None,
            },
            "t",
        )
        .unwrap();
        enqueue(connection, uid, "t").unwrap();
    }

    #[test]
    fn jobs_are_claimed_in_order_and_requeued_after_a_stop() {
        let connection = store();
        let company = crate::store::accounts::ensure_company(&connection, "A").unwrap();
        for uid in ["b", "a"] {
            queue(&connection, uid, &company, true, ".png");
        }
        let first = claim_next(&connection).unwrap().unwrap();
        assert_eq!(first.uid, "b");
        assert_eq!(first.company_id, company);
        assert!(first.is_search_input);
        assert_eq!(
            find_any(&connection, "b").unwrap().unwrap().state,
            IndexState::InProgress
        );
        assert_eq!(requeue_unfinished(&connection, "t").unwrap(), 2);
        assert_eq!(
            find_any(&connection, "b").unwrap().unwrap().state,
            IndexState::Queued
        );
        assert_eq!(claim_next(&connection).unwrap().unwrap().uid, "b");
        assert_eq!(claim_next(&connection).unwrap().unwrap().uid, "a");
        assert!(claim_next(&connection).unwrap().is_none());
    }

    #[test]
    fn search_inputs_go_first_then_companies_take_turns() {
        let connection = store();
        let a = crate::store::accounts::ensure_company(&connection, "A").unwrap();
        let b = crate::store::accounts::ensure_company(&connection, "B").unwrap();
        // A queues three database files, then B one, then B a search input.
        for (uid, company, search_input) in [
            ("a1", &a, false),
            ("a2", &a, false),
            ("a3", &a, false),
            ("b1", &b, false),
            ("b2", &b, true),
        ] {
            queue(&connection, uid, company, search_input, ".step");
        }
        let order: Vec<String> = (0..5)
            .map(|_| claim_next(&connection).unwrap().unwrap().uid)
            .collect();
        // The search input first; then A (B is busy with it); then, each busy with one, the older
        // file (a2); then B's (A is busy with two); then A's last.
        assert_eq!(order, ["b2", "a1", "a2", "b1", "a3"]);
        // A preempted job goes back in its place.
        let a3 = ClaimedJob {
            uid: "a3".into(),
            revision: find_any(&connection, "a3").unwrap().unwrap().revision,
            extension: ".step".into(),
            company_id: a.clone(),
            is_search_input: false,
        };
        return_to_queue(&connection, &a3).unwrap();
        assert_eq!(claim_next(&connection).unwrap().unwrap().uid, "a3");
    }

    #[test]
    fn the_queue_depth_of_every_company_counts_its_waiting_and_running_jobs() {
        let connection = store();
        let a = crate::store::accounts::ensure_company(&connection, "A").unwrap();
        let b = crate::store::accounts::ensure_company(&connection, "B").unwrap();
        for uid in ["a1", "a2", "a3"] {
            queue(&connection, uid, &a, false, ".step");
        }
        assert_eq!(claim_next(&connection).unwrap().unwrap().uid, "a1");
        let depths = queue_depths(&connection).unwrap();
        let of = |company: &str| depths.iter().find(|depth| depth.company_id == company);
        assert_eq!(
            of(&a),
            Some(&QueueDepth {
                company_id: a.clone(),
                queued: 2,
                in_progress: 1,
            })
        );
        // A company with nothing queued is there, at zero.
        assert_eq!(
            of(&b),
            Some(&QueueDepth {
                company_id: b.clone(),
                queued: 0,
                in_progress: 0,
            })
        );
        assert_eq!(depths.len(), 2);
    }
}
