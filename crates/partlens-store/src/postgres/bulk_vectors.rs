//! Many views' vectors written at once (`view_vectors.rs` writes a file's with its views): the
//! vectors missing for stored views filled in by `COPY`, and the HNSW index built once after a
//! large load instead of row by row during it.
//!
//! - **Filling in** ([`fill_missing`]): the searched files that have views but no vectors, [`FILL_BATCH_FILES`]
//!   a transaction under the writers' lock, their vectors sent by one `COPY … FROM STDIN` (text
//!   form) each. At start (views stored before schema step 6), after `migrate`, and at the end of a
//!   bulk load.
//! - **A bulk load** ([`BulkLoad`]): a load of more than [`REBUILD_FROM_VIEWS`] views into a table
//!   holding fewer drops the index `view_vectors_nearest` first; the store's writes then leave the
//!   vectors out (the `PgStore`'s flag), and the load's end fills them in and builds the index once,
//!   with [`BUILD_MEMORY`] of `maintenance_work_mem` and [`BUILD_WORKERS`] parallel workers for
//!   that transaction. After it, ordinary writes keep the index row by row as before. While a load
//!   runs, searches through the index find only what it held before (without the index, by a scan
//!   of the table): run a large load before the service takes traffic.
//! - **A load that stopped** (a crash, a killed process) leaves the table without its index: the
//!   next store to open the database builds it ([`restore_index`]), unless a load still runs (it
//!   holds the session-level advisory lock [`BULK_LOCK`] on a connection of its own).

use std::io::Write as _;
use std::time::{Duration, Instant};

use r2d2_postgres::postgres::{self, Client};

use super::view_vectors::{SEARCHED, stored_vector, table_exists};
use crate::error::StoreError;

/// Views a load must bring, and more than the table holds already, for the index to be dropped
/// before it and built once after it (below this, keeping it row by row costs less than a build).
pub(crate) const REBUILD_FROM_VIEWS: usize = 50_000;

/// Files whose vectors one transaction of [`fill_missing`] writes: at most seven views a file, so
/// at most 14,000 rows and about 25 MB of `COPY` text in memory at once.
const FILL_BATCH_FILES: i64 = 2_000;

/// `maintenance_work_mem` of the index build: about 1.3 KB a view for `halfvec(256)` with
/// `m = 16`, so a million views' graph is built in memory; a larger table's build goes on on disk,
/// slower (pgvector says so in the server log). The server must have this much memory free.
const BUILD_MEMORY: &str = "2GB";

/// `max_parallel_maintenance_workers` of the index build (besides the leader; the server's
/// `max_parallel_workers` may grant fewer).
const BUILD_WORKERS: i32 = 2;

/// The session-level advisory lock a bulk load holds while it runs ("partbulk" in ASCII).
const BULK_LOCK: i64 = 0x7061_7274_6275_6c6b;

/// The index of schema step 6 (`schema.rs`, kept as it was written), made again after a bulk load
/// or a crash; a test checks that both definitions agree.
const NEAREST_INDEX: &str = "CREATE INDEX IF NOT EXISTS view_vectors_nearest ON view_vectors
     USING hnsw (embedding halfvec_ip_ops) WITH (m = 16, ef_construction = 128)";

/// `text` as a field of `COPY`'s text form (backslash, tab and line breaks escaped).
fn push_copy_field(copy: &mut String, text: &str) {
    for character in text.chars() {
        match character {
            '\\' => copy.push_str("\\\\"),
            '\t' => copy.push_str("\\t"),
            '\n' => copy.push_str("\\n"),
            '\r' => copy.push_str("\\r"),
            other => copy.push(other),
        }
    }
}

/// Writes the vectors of the searched files `uids` (which have none yet) by one `COPY`; the
/// caller holds the writers' lock, so no other writer adds any meanwhile.
fn copy_vectors(tx: &mut postgres::Transaction<'_>, uids: &[String]) -> Result<(), StoreError> {
    let rows = tx.query(
        &format!(
            "SELECT f.uid, f.company_id, v.position, v.descriptor FROM files f
             JOIN views v ON v.file_uid = f.uid
             WHERE f.uid = ANY($1) AND {SEARCHED}"
        ),
        &[&uids],
    )?;
    let mut copy = String::new();
    for row in &rows {
        let descriptor: Vec<u8> = row.try_get(3)?;
        let Some(vector) = stored_vector(&descriptor) else {
            continue;
        };
        let (uid, company): (String, String) = (row.try_get(0)?, row.try_get(1)?);
        let position: i32 = row.try_get(2)?;
        push_copy_field(&mut copy, &uid);
        copy.push('\t');
        copy.push_str(&position.to_string());
        copy.push('\t');
        push_copy_field(&mut copy, &company);
        copy.push('\t');
        copy.push_str(&vector);
        copy.push('\n');
    }
    if copy.is_empty() {
        return Ok(());
    }
    let mut writer =
        tx.copy_in("COPY view_vectors (file_uid, position, company_id, embedding) FROM STDIN")?;
    writer.write_all(copy.as_bytes())?;
    writer.finish()?;
    Ok(())
}

/// Fills in the vectors of searched files that have views but no vectors (views stored before
/// schema step 6, copied in by `migrate`, or written during a bulk load), [`FILL_BATCH_FILES`] a
/// transaction, and returns how many files got them. Nothing when the table is absent. A file
/// whose views have no place in the table (another length) is looked at again at every start;
/// they are few and cheap to skip.
pub(crate) fn fill_missing(client: &mut Client) -> Result<usize, StoreError> {
    if !table_exists(client)? {
        return Ok(0);
    }
    let mut filled = 0;
    let mut after = String::new();
    loop {
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&super::WRITER_LOCK])?;
        let uids: Vec<String> = tx
            .query(
                &format!(
                    "SELECT f.uid FROM files f
                     WHERE {SEARCHED} AND f.uid > $1
                       AND EXISTS (SELECT 1 FROM views v WHERE v.file_uid = f.uid)
                       AND NOT EXISTS (SELECT 1 FROM view_vectors w WHERE w.file_uid = f.uid)
                     ORDER BY f.uid LIMIT $2"
                ),
                &[&after, &FILL_BATCH_FILES],
            )?
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?;
        let Some(last) = uids.last() else {
            tx.commit()?;
            return Ok(filled);
        };
        after = last.clone();
        copy_vectors(&mut tx, &uids)?;
        tx.commit()?;
        filled += uids.len();
        if filled % 50_000 < FILL_BATCH_FILES as usize {
            tracing::info!(filled, "view vectors filled in");
        }
    }
}

/// True when the table has its HNSW index.
fn has_index(client: &mut Client) -> Result<bool, StoreError> {
    Ok(client
        .query_one(
            "SELECT to_regclass('view_vectors_nearest') IS NOT NULL",
            &[],
        )?
        .try_get(0)?)
}

/// Builds the HNSW index when the table has none, with the build's memory and workers raised for
/// its transaction, then gathers the table's statistics; returns how long each took, or `None`
/// when there was nothing to build.
fn build_index(client: &mut Client) -> Result<Option<(Duration, Duration)>, StoreError> {
    if !table_exists(client)? || has_index(client)? {
        return Ok(None);
    }
    let started = Instant::now();
    let mut tx = client.transaction()?;
    tx.batch_execute(&format!(
        "SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}';
         SET LOCAL max_parallel_maintenance_workers = {BUILD_WORKERS};
         {NEAREST_INDEX}"
    ))?;
    tx.commit()?;
    let built = started.elapsed();
    // The table's statistics at once: a table filled by `COPY` a moment ago has none until
    // autovacuum comes by, and without them the planner may sort a scan of every row instead of
    // asking the index (45 ms instead of 12 at 100,000 views).
    client.batch_execute("ANALYZE view_vectors")?;
    Ok(Some((built, started.elapsed() - built)))
}

/// At start: builds the index a bulk load dropped and never built again (it stopped half way),
/// unless a load still runs. Minutes for a million views; the store opens after it.
pub(crate) fn restore_index(client: &mut Client) -> Result<(), StoreError> {
    if !table_exists(client)? || has_index(client)? {
        return Ok(());
    }
    let free: bool = client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&BULK_LOCK])?
        .try_get(0)?;
    if !free {
        tracing::info!("a bulk load is running: it builds the view vector index when it ends");
        return Ok(());
    }
    tracing::warn!("the view vector index is missing (a bulk load stopped half way): building it");
    let built = build_index(client);
    client.execute("SELECT pg_advisory_unlock($1)", &[&BULK_LOCK])?;
    if let Some((took, analysed)) = built? {
        tracing::info!(
            seconds = took.as_secs_f64(),
            analysed_seconds = analysed.as_secs_f64(),
            "view vector index built"
        );
    }
    Ok(())
}

/// What a bulk load did to the vectors besides the load itself.
#[derive(Clone, Debug, Default)]
pub struct BulkVectors {
    /// The index was dropped before the load (it brought more than [`REBUILD_FROM_VIEWS`] views
    /// into a table holding fewer).
    pub index_dropped: bool,
    /// Files whose vectors were filled in at the end.
    pub files_filled: usize,
    /// How long filling them in took.
    pub filling: Duration,
    /// How long building the index took, when it was built.
    pub index_build: Option<Duration>,
    /// How long gathering the table's statistics (`ANALYZE`) took after the build (zero when
    /// nothing was built).
    pub analysing: Duration,
}

/// A bulk load under way: its own connection holds [`BULK_LOCK`] (released when it closes, even
/// after a crash).
pub(crate) struct BulkLoad {
    client: Client,
    index_dropped: bool,
}

impl BulkLoad {
    /// Starts a load of about `views` views on `client` (a connection of its own, not a pooled
    /// one): waits for another load to end, then drops the index when the load is large (see the
    /// module doc). Blocking, on a thread that drives no async tasks.
    pub(crate) fn begin(mut client: Client, views: usize) -> Result<Self, StoreError> {
        client.execute("SELECT pg_advisory_lock($1)", &[&BULK_LOCK])?;
        let mut index_dropped = false;
        if table_exists(&mut client)? && views > REBUILD_FROM_VIEWS {
            let held: i64 = client
                .query_one("SELECT count(*) FROM view_vectors", &[])?
                .try_get(0)?;
            if views as i64 > held && has_index(&mut client)? {
                let mut tx = client.transaction()?;
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&super::WRITER_LOCK])?;
                tx.batch_execute("DROP INDEX IF EXISTS view_vectors_nearest")?;
                tx.commit()?;
                index_dropped = true;
            }
        }
        Ok(Self {
            client,
            index_dropped,
        })
    }

    /// Ends the load: fills in the vectors it left out, builds the index when it is missing, and
    /// lets the next load begin.
    pub(crate) fn finish(mut self) -> Result<BulkVectors, StoreError> {
        let started = Instant::now();
        let files_filled = fill_missing(&mut self.client)?;
        let filling = started.elapsed();
        let built = build_index(&mut self.client)?;
        self.client
            .execute("SELECT pg_advisory_unlock($1)", &[&BULK_LOCK])?;
        Ok(BulkVectors {
            index_dropped: self.index_dropped,
            files_filled,
            filling,
            index_build: built.map(|(build, _)| build),
            analysing: built.map(|(_, analysing)| analysing).unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use r2d2_postgres::postgres::NoTls;

    #[test]
    fn copy_fields_escape_what_the_text_form_reads_as_separators() {
        let mut copy = String::new();
        push_copy_field(&mut copy, "a\tb\\c\nd\re");
        assert_eq!(copy, "a\\tb\\\\c\\nd\\re");
    }

    #[test]
    fn the_index_made_again_is_the_one_of_the_schema_and_a_lost_one_comes_back_at_start() {
        let Some(database) = partlens_testkit::postgres::database() else {
            return;
        };
        let mut client = Client::connect(&database.url, NoTls).unwrap();
        super::super::schema::migrate(&mut client).unwrap();
        if !table_exists(&mut client).unwrap() {
            return;
        }
        let definition = |client: &mut Client| -> Option<String> {
            client
                .query_opt(
                    "SELECT indexdef FROM pg_indexes WHERE indexname = 'view_vectors_nearest'",
                    &[],
                )
                .unwrap()
                .map(|row| row.get(0))
        };
        let made = definition(&mut client).unwrap();
        client
            .batch_execute("DROP INDEX view_vectors_nearest")
            .unwrap();
        // While a load holds its lock, a store that opens leaves the index to it.
        let loading = BulkLoad::begin(Client::connect(&database.url, NoTls).unwrap(), 0).unwrap();
        restore_index(&mut client).unwrap();
        assert_eq!(definition(&mut client), None);
        // The load ends and builds it, as the schema made it.
        let done = loading.finish().unwrap();
        assert!(!done.index_dropped);
        assert!(done.index_build.is_some());
        assert_eq!(definition(&mut client).as_deref(), Some(made.as_str()));
        // A load that stopped half way: the next start builds it.
        client
            .batch_execute("DROP INDEX view_vectors_nearest")
            .unwrap();
        restore_index(&mut client).unwrap();
        assert_eq!(definition(&mut client).as_deref(), Some(made.as_str()));
    }
}
