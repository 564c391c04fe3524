//! The SQLite store: records, attributes, users, tokens, feedback and the indexing queue, in one
//! database file under the data directory.
//!
//! The database file is private to the service's user (`0600` on Unix; its WAL and shared-memory
//! files follow). WAL mode with a busy timeout, so `admin` commands can write while a service runs on the same
//! directory. Work runs on tokio's blocking threads, never on the async runtime: writes go through one
//! connection (our own writers queue on its mutex instead of failing with `SQLITE_BUSY`), reads take a
//! connection from a small pool (WAL lets them run beside the writer).
//!
//! The same [`Store`] may instead hold a PostgreSQL database (`--database postgres://…`, see
//! `postgres/`). Work written against the seam ([`tx::StoreTx`], through [`Store::read_tx`] and
//! [`Store::write_tx`]) runs on either engine; work still written against SQLite's connection
//! ([`Store::read`], [`Store::write`]) runs on SQLite only, and a PostgreSQL store answers it with
//! [`not_on_postgres`] until that concern is ported.

pub mod accounts;
pub mod attributes;
pub mod expiry;
pub mod feedback;
pub mod files;
pub mod jobs;
pub mod library;
pub mod postgres;
pub mod range_filter;
pub mod schema;
pub mod search;
pub mod search_text;
pub mod text_terms;
pub mod tx;
pub mod visual_journal;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Duration;

use rusqlite::Connection;

use self::postgres::{DatabaseUrl, PgStore};
use self::tx::{SqliteTx, StoreTx};
use super::error::ServiceError;

/// The database file name inside the data directory.
pub const DATABASE_FILE: &str = "partlens.sqlite3";

/// How long a connection waits for another writer (another process) before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Most idle read connections kept open.
const MAX_IDLE_READERS: usize = 8;

/// Bytes of the database file a connection reads through a memory map instead of `read` calls (at
/// most SQLite's compile-time limit, raised for the bundled build in `.cargo/config.toml`). A search
/// that looks up thousands of records at random in a large library (a free-text word held by 3,000
/// of a million records) spends much of its time getting pages; mapped, they come from the operating
/// system's cache directly, shared by every connection. Only pages read are resident; the map is
/// address space, not memory.
const MMAP_BYTES: i64 = 64 << 30;

/// SQLite's own page cache a connection may fill, in KiB (the default is 2 MiB): the index pages a
/// search walks again and again stay in it.
const PAGE_CACHE_KIB: i64 = 16 * 1024;

/// The store of one data directory (SQLite) or of a PostgreSQL database. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Engine>,
}

/// The engine a store runs on.
enum Engine {
    Sqlite(StoreInner),
    Postgres(PgStore),
}

/// The error of work not yet ported to PostgreSQL (issue 26), run on a PostgreSQL store.
pub fn not_on_postgres() -> ServiceError {
    ServiceError::Internal(
        "this part of the service does not run on PostgreSQL yet (issue 26); \
         use the SQLite store (no --database) for it"
            .into(),
    )
}

struct StoreInner {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    /// Read connections taken from (or opened beside) `readers` and not yet given back.
    readers_in_use: AtomicUsize,
}

/// How a store's database connections are used right now, for `GET /metrics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolUse {
    /// `sqlite` or `postgresql`.
    pub engine: &'static str,
    /// Connections open and waiting for work.
    pub idle: usize,
    /// Connections running a transaction (on SQLite the writer counts when a write holds it).
    pub in_use: usize,
    /// The most connections the pool opens (PostgreSQL); `None` on SQLite, whose read connections
    /// are opened as needed and at most [`MAX_IDLE_READERS`] kept.
    pub max: Option<usize>,
}

/// Counts a read connection in use until dropped (also when the work panics).
struct ReaderInUse<'a>(&'a AtomicUsize);

impl<'a> ReaderInUse<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        Self(count)
    }
}

impl Drop for ReaderInUse<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Opens a connection with the settings every connection needs.
fn connect(path: &Path) -> Result<Connection, ServiceError> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    connection.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    connection.pragma_update(None, "cache_size", -PAGE_CACHE_KIB)?;
    Ok(connection)
}

impl Store {
    /// Opens (creating if needed) the database of a data directory and brings its schema up to date.
    /// Blocking: call it from a blocking context or at start-up.
    pub fn open_blocking(data_dir: &Path) -> Result<Self, ServiceError> {
        super::disk::create_private_dir(data_dir)?;
        let path = data_dir.join(DATABASE_FILE);
        // Private before SQLite opens it: its WAL and shared-memory files take the database
        // file's permissions.
        super::disk::ensure_private_file(&path)?;
        let mut writer = connect(&path)?;
        schema::migrate(&mut writer)?;
        Ok(Self {
            inner: Arc::new(Engine::Sqlite(StoreInner {
                path,
                writer: Mutex::new(writer),
                readers: Mutex::new(Vec::new()),
                readers_in_use: AtomicUsize::new(0),
            })),
        })
    }

    /// Opens the store a service is configured with: the PostgreSQL database when `database` is
    /// given (schema brought up to date; `data_dir` then holds only files and caches), else the
    /// SQLite database of `data_dir`. Blocking.
    pub fn open_configured_blocking(
        data_dir: &Path,
        database: Option<&DatabaseUrl>,
    ) -> Result<Self, ServiceError> {
        match database {
            Some(url) => Ok(Self {
                inner: Arc::new(Engine::Postgres(PgStore::open_blocking(
                    url,
                    self::postgres::DEFAULT_POOL_SIZE,
                )?)),
            }),
            None => Self::open_blocking(data_dir),
        }
    }

    /// [`Store::open_configured_blocking`] on a blocking thread.
    pub async fn open_configured(
        data_dir: PathBuf,
        database: Option<DatabaseUrl>,
    ) -> Result<Self, ServiceError> {
        tokio::task::spawn_blocking(move || {
            Self::open_configured_blocking(&data_dir, database.as_ref())
        })
        .await?
    }

    /// True when the store is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(*self.inner, Engine::Postgres(_))
    }

    /// The node id a PostgreSQL store claims jobs as (see `postgres/jobs.rs`); `None` on SQLite.
    pub fn postgres_node(&self) -> Option<&str> {
        match &*self.inner {
            Engine::Sqlite(_) => None,
            Engine::Postgres(store) => Some(store.node()),
        }
    }

    /// How the database connections are used now (a look at counters, no database work).
    pub fn pool_use(&self) -> PoolUse {
        match &*self.inner {
            Engine::Sqlite(inner) => {
                let idle_readers = inner.readers.lock().map_or(0, |readers| readers.len());
                let writing = matches!(inner.writer.try_lock(), Err(TryLockError::WouldBlock));
                PoolUse {
                    engine: "sqlite",
                    idle: idle_readers + usize::from(!writing),
                    in_use: inner.readers_in_use.load(Ordering::Relaxed) + usize::from(writing),
                    max: None,
                }
            }
            Engine::Postgres(store) => store.pool_use(),
        }
    }

    /// The SQLite side of the store, or [`not_on_postgres`].
    fn sqlite(&self) -> Result<&StoreInner, ServiceError> {
        match &*self.inner {
            Engine::Sqlite(inner) => Ok(inner),
            Engine::Postgres(_) => Err(not_on_postgres()),
        }
    }

    /// Runs `work` in a read transaction of either engine, on a blocking thread.
    pub async fn read_tx<T, F>(&self, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn StoreTx) -> Result<T, ServiceError> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.read_tx_blocking(work)).await?
    }

    /// Runs `work` in one write transaction of either engine, on a blocking thread; commits when it
    /// returns `Ok`.
    pub async fn write_tx<T, F>(&self, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn StoreTx) -> Result<T, ServiceError> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write_tx_blocking(work)).await?
    }

    /// [`Store::read_tx`] for callers already on a blocking thread.
    pub fn read_tx_blocking<T>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        match &*self.inner {
            Engine::Sqlite(_) => self.read_blocking(|connection| {
                // One snapshot for the whole work, as PostgreSQL's `REPEATABLE READ` reads.
                let snapshot = connection.unchecked_transaction()?;
                let value = work(&mut SqliteTx(&snapshot))?;
                snapshot.commit()?;
                Ok(value)
            }),
            Engine::Postgres(store) => store.read_blocking(work),
        }
    }

    /// [`Store::read_tx_blocking`] that gives up when the database gives no connection within
    /// `wait` (PostgreSQL; SQLite's file is always there): for health checks.
    pub fn read_tx_within_blocking<T>(
        &self,
        wait: Duration,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        match &*self.inner {
            Engine::Sqlite(_) => self.read_tx_blocking(work),
            Engine::Postgres(store) => store.read_within_blocking(wait, work),
        }
    }

    /// [`Store::write_tx`] for callers already on a blocking thread.
    pub fn write_tx_blocking<T>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        match &*self.inner {
            Engine::Sqlite(_) => {
                self.write_blocking(|transaction| work(&mut SqliteTx(transaction)))
            }
            Engine::Postgres(store) => store.write_blocking(work),
        }
    }

    /// Runs `work` in one write transaction for the indexing queue's claims and returns, on a
    /// blocking thread. On PostgreSQL it does not wait for the writer lock: the queue's statements
    /// lock the rows they take (`FOR UPDATE SKIP LOCKED`, see `postgres/jobs.rs`), so workers of
    /// every node claim side by side. On SQLite it is [`Store::write_tx`].
    pub async fn queue_tx<T, F>(&self, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn StoreTx) -> Result<T, ServiceError> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.queue_tx_blocking(work)).await?
    }

    /// [`Store::queue_tx`] for callers already on a blocking thread.
    pub fn queue_tx_blocking<T>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        match &*self.inner {
            Engine::Sqlite(_) => self.write_tx_blocking(work),
            Engine::Postgres(store) => store.queue_blocking(work),
        }
    }

    /// Opens the store on a blocking thread.
    pub async fn open(data_dir: PathBuf) -> Result<Self, ServiceError> {
        tokio::task::spawn_blocking(move || Self::open_blocking(&data_dir)).await?
    }

    /// Runs `work` with a read connection of the SQLite store, on a blocking thread (a PostgreSQL
    /// store answers [`not_on_postgres`]; see [`Store::read_tx`]).
    pub async fn read<T, F>(&self, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ServiceError> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.read_blocking(work)).await?
    }

    /// Runs `work` inside one write transaction of the SQLite store, on a blocking thread; commits
    /// when it returns `Ok` (a PostgreSQL store answers [`not_on_postgres`]; see
    /// [`Store::write_tx`]).
    pub async fn write<T, F>(&self, work: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T, ServiceError> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.write_blocking(work)).await?
    }

    /// [`Store::read`] for callers already on a blocking thread.
    pub fn read_blocking<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        let inner = self.sqlite()?;
        let pooled = inner
            .readers
            .lock()
            .map_err(|_| ServiceError::Internal("the reader pool is poisoned".into()))?
            .pop();
        let in_use = ReaderInUse::new(&inner.readers_in_use);
        let connection = match pooled {
            Some(connection) => connection,
            None => connect(&inner.path)?,
        };
        let result = work(&connection);
        drop(in_use);
        if let Ok(mut readers) = inner.readers.lock()
            && readers.len() < MAX_IDLE_READERS
        {
            readers.push(connection);
        }
        result
    }

    /// [`Store::write`] for callers already on a blocking thread.
    pub fn write_blocking<T>(
        &self,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        let mut connection = self
            .sqlite()?
            .writer
            .lock()
            .map_err(|_| ServiceError::Internal("the writer is poisoned".into()))?;
        let transaction =
            connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let value = work(&transaction)?;
        transaction.commit()?;
        Ok(value)
    }
}

/// Now as Unix seconds.
pub fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Now as an ISO 8601 UTC timestamp with milliseconds (`2026-11-22T04:53:09.123Z`).
pub fn iso_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_read_the_database_through_a_map_of_the_asked_size() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_blocking(dir.path()).unwrap();
        let (mapped, cache): (i64, i64) = store
            .read_blocking(|connection| {
                let mapped = connection.query_row("PRAGMA mmap_size", [], |row| row.get(0))?;
                let cache = connection.query_row("PRAGMA cache_size", [], |row| row.get(0))?;
                Ok((mapped, cache))
            })
            .unwrap();
        // SQLite silently caps the map at its compile-time limit: equal only when the build
        // raised it (`.cargo/config.toml`).
        assert_eq!(mapped, MMAP_BYTES);
        assert_eq!(cache, -PAGE_CACHE_KIB);
    }
}
