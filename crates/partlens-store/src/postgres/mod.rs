//! The PostgreSQL engine (`--database postgres://…`): the store's traits ([`crate::traits`]) on a
//! pool of connections shared by every request of this process, and by every service process (a
//! node) on the same database. Each concern's module implements its trait for [`PgTx`].
//!
//! Why the synchronous `postgres` client with an `r2d2` pool: the store's work already runs in
//! closures on tokio's blocking threads (rusqlite is synchronous), several store calls compose into
//! one transaction inside such a closure, and the visual index is changed inside write transactions
//! under a lock that is not held across an `await`. The synchronous client keeps that shape
//! unchanged; an async driver (`tokio-postgres` with `deadpool`, or `sqlx`) would turn every
//! closure into a future and every store function into an `async fn` for no gain, since a store
//! call is one round trip or a few.
//!
//! **Writers are serialised**, as SQLite's single writer serialises them: every write transaction
//! takes one transaction-level advisory lock first, across every node on the database. The store's
//! read-check-write sequences (a UID chosen, a path checked) keep their SQLite meaning this way.
//! The job queue's claims and returns are the exception: they lock the rows they take (`FOR UPDATE
//! SKIP LOCKED`, see `jobs.rs`) and run without the writer lock ([`PgStore::queue_blocking`]), so
//! the workers of every node claim side by side and never wait behind an upload. Reads run in `REPEATABLE READ` read-only transactions: one snapshot, like a
//! SQLite read.

mod accounts;
mod arguments;
mod attributes;
mod bulk_records;
pub(crate) mod bulk_vectors;
mod callbacks;
mod categories;
mod files;
pub(crate) mod first_matches;
#[cfg(test)]
mod first_matches_tests;
mod jobs;
mod library;
mod matching;
mod pairs;
mod relations;
pub(crate) mod schema;
mod search;
mod selection;
mod text_terms;
pub(crate) mod transfer;
mod view_vectors;
mod visual;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use r2d2_postgres::PostgresConnectionManager;
use r2d2_postgres::postgres::{self, IsolationLevel, NoTls};

use crate::error::StoreError;
use crate::rows::Columns;
use crate::traits::StoreTx;
use crate::usage::PoolUse;

/// The advisory lock every write transaction takes (an arbitrary constant: "partlens" in ASCII).
const WRITER_LOCK: i64 = 0x7061_7274_6c65_6e73;

/// Connections kept by one service process by default.
pub(crate) const DEFAULT_POOL_SIZE: u32 = 8;

/// How long a request waits for a pooled connection before it fails.
const POOL_WAIT: Duration = Duration::from_secs(30);

/// How often a running store renews its node's heartbeat (see `jobs.rs`).
const HEARTBEAT: Duration = Duration::from_secs(5);

/// How old a node's heartbeat may be before the jobs it claimed are taken by others (see
/// `jobs.rs`): several beats, so a busy database or a paused process does not lose its jobs.
const NODE_TIMEOUT: Duration = Duration::from_secs(30);

/// A PostgreSQL connection string, kept out of logs and `Debug` output (it may hold a password).
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl(String);

impl DatabaseUrl {
    /// Checks that `text` is a `postgres://` or `postgresql://` URL (or a `key=value` connection
    /// string) the client can read.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        text.parse::<postgres::Config>()
            .map_err(|error| format!("not a PostgreSQL connection string: {error}"))?;
        Ok(Self(text.to_owned()))
    }

    /// The connection string itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("DatabaseUrl(…)")
    }
}

/// The pool of one PostgreSQL store.
pub(crate) struct PgStore {
    /// Always `Some` until the store is dropped (see its `Drop`).
    pool: Option<r2d2::Pool<PostgresConnectionManager<NoTls>>>,
    /// This store's node id: the `claimed_by` of the jobs it takes (a new one each open).
    node: String,
    /// Dropped with the store, which ends the heartbeat thread.
    heartbeat: Option<mpsc::Sender<()>>,
    /// The schema has the views' vector index (pgvector was there when step 6 ran; fixed from
    /// then on).
    view_vectors: bool,
    /// The database's connection settings, for a connection outside the pool (a bulk load's).
    config: postgres::Config,
    /// A bulk load runs on this store: its writes leave the views' vectors to the load's end
    /// (`bulk_vectors.rs`).
    vectors_deferred: AtomicBool,
}

/// The synchronous client closes a connection by blocking on its own runtime, which panics on a
/// thread that drives async tasks; the last clone of a store may well be dropped on one (when a
/// running service's state goes). So the pool, with its connections, is dropped on a thread of its
/// own then.
impl Drop for PgStore {
    fn drop(&mut self) {
        drop(self.heartbeat.take());
        if let Some(pool) = self.pool.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                std::thread::spawn(move || drop(pool));
            } else {
                drop(pool);
            }
        }
    }
}

/// One transaction of the PostgreSQL store.
pub(crate) struct PgTx<'t, 'c> {
    /// The open transaction.
    pub(crate) tx: &'t mut postgres::Transaction<'c>,
    /// The node id of the store it runs on.
    pub(crate) node: &'t str,
    /// The schema has the views' vector index (`view_vectors.rs`).
    pub(crate) view_vectors: bool,
    /// Writes leave the views' vectors to a bulk load's end (`bulk_vectors.rs`).
    pub(crate) vectors_deferred: bool,
    /// The store's pool, whose idle connections a query of several vectors may ask beside this
    /// transaction (`view_vectors.rs`); `None` where there is none to share.
    pub(crate) pool: Option<&'t Pool>,
}

/// The store's pool of connections.
pub(crate) type Pool = r2d2::Pool<PostgresConnectionManager<NoTls>>;

impl StoreTx for PgTx<'_, '_> {
    fn engine(&self) -> &'static str {
        "PostgreSQL"
    }

    fn schema_versions(&mut self) -> Result<(i64, i64), StoreError> {
        let found: i64 = self
            .tx
            .query_one("SELECT version FROM partlens_schema", &[])?
            .try_get(0)?;
        Ok((found, schema::current_version()))
    }

    fn write_loaded_files(
        &mut self,
        files: &[crate::model::LoadedFile],
        now: &str,
    ) -> Result<(), StoreError> {
        bulk_records::write(self, files, now)
    }
}

impl PgStore {
    /// Connects to the database, checks that it answers and brings its schema up to date.
    /// Blocking: call it from a blocking thread.
    pub(crate) fn open_blocking(url: &DatabaseUrl, pool_size: u32) -> Result<Self, StoreError> {
        let config = url
            .expose()
            .parse::<postgres::Config>()
            .map_err(|error| StoreError::Refused(format!("--database: {error}")))?;
        let manager = PostgresConnectionManager::new(config.clone(), NoTls);
        let pool = r2d2::Pool::builder()
            .max_size(pool_size.max(1))
            .min_idle(Some(1))
            .connection_timeout(POOL_WAIT)
            .build(manager)
            .map_err(|error| {
                StoreError::Internal(format!(
                    "cannot connect to the PostgreSQL database: {error}"
                ))
            })?;
        let mut client = pool.get()?;
        schema::migrate(&mut client)?;
        let has_view_vectors = view_vectors::table_exists(&mut *client)?;
        let filled = bulk_vectors::fill_missing(&mut client)?;
        if filled > 0 {
            tracing::info!(files = filled, "view vectors filled in");
        }
        bulk_vectors::restore_index(&mut client)?;
        let indexed = text_terms::fill_missing(&mut client)?;
        if indexed > 0 {
            tracing::info!(files = indexed, "free-text terms indexed");
        }
        let node = uuid::Uuid::new_v4().hyphenated().to_string();
        beat(&mut client, &node)?;
        drop(client);
        let (heartbeat, stopped) = mpsc::channel();
        let (beating_pool, beating_node) = (pool.clone(), node.clone());
        std::thread::Builder::new()
            .name("partlens-pg-heartbeat".into())
            .spawn(move || keep_beating(&beating_pool, &beating_node, &stopped))?;
        Ok(Self {
            pool: Some(pool),
            node,
            heartbeat: Some(heartbeat),
            view_vectors: has_view_vectors,
            config,
            vectors_deferred: AtomicBool::new(false),
        })
    }

    /// Connects once and reports what `partlens-service check` finds (see [`schema::check`]),
    /// changing nothing. Blocking, on a thread that drives no async tasks.
    pub(crate) fn check_blocking(url: &DatabaseUrl) -> Result<(Vec<String>, bool), StoreError> {
        let config = url
            .expose()
            .parse::<postgres::Config>()
            .map_err(|error| StoreError::Refused(format!("--database: {error}")))?;
        let mut client = config.connect(NoTls)?;
        schema::check(&mut client)
    }

    /// A connection of the pool, waiting for one to come free.
    fn connection(
        &self,
    ) -> Result<r2d2::PooledConnection<PostgresConnectionManager<NoTls>>, StoreError> {
        match &self.pool {
            Some(pool) => Ok(pool.get()?),
            None => Err(StoreError::Internal("the store is closed".into())),
        }
    }

    /// Runs `work` in a read-only snapshot (`REPEATABLE READ`).
    pub(crate) fn read_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        self.read_within_blocking(POOL_WAIT, work)
    }

    /// [`PgStore::read_blocking`], failing when no connection comes free within `wait`.
    pub(crate) fn read_within_blocking<T, E: From<StoreError>>(
        &self,
        wait: Duration,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut client = match &self.pool {
            Some(pool) => pool.get_timeout(wait).map_err(StoreError::from)?,
            None => return Err(StoreError::Internal("the store is closed".into()).into()),
        };
        let mut transaction = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(StoreError::from)?;
        self.run(&mut transaction, work)?.commit_with(transaction)
    }

    /// Runs `work` in one write transaction that does not wait for the writer lock: for the job
    /// queue's claims and returns, which lock the rows they change (see `jobs.rs`).
    pub(crate) fn queue_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut client = self.connection()?;
        let mut transaction = client.transaction().map_err(StoreError::from)?;
        self.run(&mut transaction, work)?.commit_with(transaction)
    }

    /// Runs `work` in `transaction` as this store's [`PgTx`].
    fn run<T, E>(
        &self,
        transaction: &mut postgres::Transaction<'_>,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<Done<T>, E> {
        work(&mut PgTx {
            tx: transaction,
            node: &self.node,
            view_vectors: self.view_vectors,
            vectors_deferred: self.vectors_deferred.load(Ordering::Relaxed),
            pool: self.pool.as_ref(),
        })
        .map(Done)
    }

    /// How the pool's connections are used now (see [`PoolUse`]).
    pub(crate) fn pool_use(&self) -> PoolUse {
        let (idle, open, max) = self.pool.as_ref().map_or((0, 0, 0), |pool| {
            let state = pool.state();
            (state.idle_connections, state.connections, pool.max_size())
        });
        PoolUse {
            engine: "postgresql",
            idle: idle as usize,
            in_use: open.saturating_sub(idle) as usize,
            max: Some(max as usize),
        }
    }

    /// This store's node id (the `claimed_by` of the jobs it takes).
    pub(crate) fn node(&self) -> &str {
        &self.node
    }

    /// Runs `work` in one write transaction, after every other writer (see the module comment);
    /// commits when it returns `Ok`, rolls back otherwise.
    pub(crate) fn write_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut client = self.connection()?;
        let mut transaction = client.transaction().map_err(StoreError::from)?;
        transaction
            .execute("SELECT pg_advisory_xact_lock($1)", &[&WRITER_LOCK])
            .map_err(StoreError::from)?;
        self.run(&mut transaction, work)?.commit_with(transaction)
    }

    /// Runs `load` (writes through this store, typically many files) as one bulk load of about
    /// `views` views (see `bulk_vectors.rs`): the index dropped before a large one, the vectors
    /// left out of its writes and filled in by `COPY` at its end, the index built once. The end
    /// runs whether `load` succeeded or not (nothing it wrote loses its vectors); `load`'s error
    /// comes first. Blocking, on a thread that drives no async tasks.
    pub(crate) fn bulk_load_blocking<T, E: From<StoreError>>(
        &self,
        views: usize,
        load: impl FnOnce() -> Result<T, E>,
    ) -> Result<(T, bulk_vectors::BulkVectors), E> {
        // A connection of its own: the load's advisory lock goes with it, however the load ends.
        let client = self.config.connect(NoTls).map_err(StoreError::from)?;
        let bulk = bulk_vectors::BulkLoad::begin(client, views)?;
        self.vectors_deferred.store(true, Ordering::Relaxed);
        let loaded = load();
        self.vectors_deferred.store(false, Ordering::Relaxed);
        let finished = bulk.finish();
        let value = loaded?;
        Ok((value, finished?))
    }

    /// A connection of the pool for work outside the traits (a copy into the store).
    pub(crate) fn client(
        &self,
    ) -> Result<r2d2::PooledConnection<PostgresConnectionManager<NoTls>>, StoreError> {
        self.connection()
    }
}

/// The value of work that ended well, to be kept once its transaction commits.
struct Done<T>(T);

impl<T> Done<T> {
    /// Commits `transaction` and hands the value over.
    fn commit_with<E: From<StoreError>>(
        self,
        transaction: postgres::Transaction<'_>,
    ) -> Result<T, E> {
        transaction.commit().map_err(StoreError::from)?;
        Ok(self.0)
    }
}

impl Columns for postgres::Row {
    fn text(&self, index: usize) -> Result<String, StoreError> {
        Ok(self.try_get(index)?)
    }

    fn optional_text(&self, index: usize) -> Result<Option<String>, StoreError> {
        Ok(self.try_get(index)?)
    }

    fn integer(&self, index: usize) -> Result<i64, StoreError> {
        Ok(self.try_get(index)?)
    }

    fn flag(&self, index: usize) -> Result<bool, StoreError> {
        Ok(self.try_get(index)?)
    }
}

/// Renews node `node`'s heartbeat, on the database's clock.
fn beat(client: &mut postgres::Client, node: &str) -> Result<(), StoreError> {
    client.execute(
        "INSERT INTO nodes (id, heartbeat_at) VALUES ($1, now())
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()",
        &[&node],
    )?;
    Ok(())
}

/// The heartbeat thread: beats every [`HEARTBEAT`] until the store is dropped (`stopped`
/// disconnects). A beat that fails is logged and tried again at the next one.
fn keep_beating(
    pool: &r2d2::Pool<PostgresConnectionManager<NoTls>>,
    node: &str,
    stopped: &mpsc::Receiver<()>,
) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(HEARTBEAT) {
        let beaten = pool
            .get_timeout(HEARTBEAT)
            .map_err(StoreError::from)
            .and_then(|mut client| beat(&mut client, node));
        if let Err(error) = beaten {
            tracing::warn!(node, %error, "this node's heartbeat could not be renewed");
        }
    }
}
