//! The [`Store`] handle: opens the store a service is configured with (the SQLite database of its
//! data directory, or a PostgreSQL database) and runs work in its transactions, on tokio's
//! blocking threads, never on the async runtime. Which engine holds the store stays inside: work is
//! written once against [`StoreTx`] and runs on either.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::error::StoreError;
use crate::postgres::{self, PgStore};
use crate::sqlite::SqliteStore;
use crate::traits::StoreTx;
use crate::usage::{Counters, Kind, PoolUse, TransactionCounts};

pub use crate::postgres::DatabaseUrl;
pub use crate::postgres::bulk_vectors::BulkVectors;
pub use crate::sqlite::DATABASE_FILE;

/// The store of one data directory (SQLite) or of a PostgreSQL database. Cheap to clone; clones
/// share the engine and the transaction counts.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Opened>,
}

/// An open store: its engine and its counters.
struct Opened {
    engine: Engine,
    counters: Counters,
}

/// The engine a store runs on.
enum Engine {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

impl Store {
    /// A store of `engine`.
    fn of(engine: Engine) -> Self {
        Self {
            inner: Arc::new(Opened {
                engine,
                counters: Counters::default(),
            }),
        }
    }

    /// Opens (creating if needed) the SQLite database of a data directory and brings its schema
    /// up to date. The directory and the database file are private to the service's user.
    /// Blocking: call it from a blocking context or at start-up.
    pub fn open_blocking(data_dir: &Path) -> Result<Self, StoreError> {
        private::create_dir(data_dir)?;
        let path = data_dir.join(DATABASE_FILE);
        // Private before SQLite opens it: its WAL and shared-memory files take the database
        // file's permissions.
        private::ensure_file(&path)?;
        Ok(Self::of(Engine::Sqlite(SqliteStore::open_blocking(path)?)))
    }

    /// Opens the store a service is configured with: the PostgreSQL database when `database` is
    /// given (schema brought up to date; `data_dir` then holds only files and caches), else the
    /// SQLite database of `data_dir`. Blocking.
    pub fn open_configured_blocking(
        data_dir: &Path,
        database: Option<&DatabaseUrl>,
    ) -> Result<Self, StoreError> {
        match database {
            Some(url) => Ok(Self::of(Engine::Postgres(PgStore::open_blocking(
                url,
                postgres::DEFAULT_POOL_SIZE,
            )?))),
            None => Self::open_blocking(data_dir),
        }
    }

    /// [`Store::open_configured_blocking`] on a blocking thread.
    pub async fn open_configured(
        data_dir: PathBuf,
        database: Option<DatabaseUrl>,
    ) -> Result<Self, StoreError> {
        tokio::task::spawn_blocking(move || {
            Self::open_configured_blocking(&data_dir, database.as_ref())
        })
        .await?
    }

    /// [`Store::open_blocking`] on a blocking thread.
    pub async fn open(data_dir: PathBuf) -> Result<Self, StoreError> {
        tokio::task::spawn_blocking(move || Self::open_blocking(&data_dir)).await?
    }

    /// What `partlens-service check` finds in the store a service is configured with, changing
    /// nothing: one line a finding, and whether the service can start on it as it is (a schema
    /// that is only older is brought up to date at start). Blocking, on a thread that drives no
    /// async tasks.
    pub fn check_blocking(
        data_dir: &Path,
        database: Option<&DatabaseUrl>,
    ) -> Result<(Vec<String>, bool), StoreError> {
        match database {
            Some(url) => PgStore::check_blocking(url),
            None => SqliteStore::check_blocking(&data_dir.join(DATABASE_FILE)),
        }
    }

    /// True when several service processes (nodes) may work on this store at once (PostgreSQL):
    /// what a process keeps in memory about it (the visual index) is then a cache caught up from
    /// the store's journal, and nothing is saved beside it for a restart. False on SQLite, whose one
    /// service process is the only writer of its records.
    pub fn shared_by_nodes(&self) -> bool {
        matches!(self.inner.engine, Engine::Postgres(_))
    }

    /// The id this process claims jobs as when nodes share the store (a new one each open); `None`
    /// when one process owns it.
    pub fn node_id(&self) -> Option<&str> {
        match &self.inner.engine {
            Engine::Sqlite(_) => None,
            Engine::Postgres(store) => Some(store.node()),
        }
    }

    /// How the database connections are used now (a look at counters, no database work).
    pub fn pool_use(&self) -> PoolUse {
        match &self.inner.engine {
            Engine::Sqlite(store) => store.pool_use(),
            Engine::Postgres(store) => store.pool_use(),
        }
    }

    /// How many transactions of each kind this store (and its clones) ran since it was opened.
    pub fn transaction_counts(&self) -> TransactionCounts {
        self.inner.counters.now()
    }

    /// Runs `work` in one read transaction (one snapshot), on a blocking thread.
    pub async fn read_tx<T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&mut dyn StoreTx) -> Result<T, E> + Send + 'static,
    {
        let store = self.clone();
        spawned(move || store.read_tx_blocking(work)).await
    }

    /// Runs `work` in one write transaction, after every other writer, on a blocking thread;
    /// commits when it returns `Ok`, rolls back otherwise.
    pub async fn write_tx<T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&mut dyn StoreTx) -> Result<T, E> + Send + 'static,
    {
        let store = self.clone();
        spawned(move || store.write_tx_blocking(work)).await
    }

    /// Runs `work` in one write transaction for the indexing queue's claims and returns, on a
    /// blocking thread. When nodes share the store it does not wait for the writer lock: the
    /// queue's statements lock the rows they take (`FOR UPDATE SKIP LOCKED`), so workers of every
    /// node claim side by side. On SQLite it is [`Store::write_tx`].
    pub async fn queue_tx<T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&mut dyn StoreTx) -> Result<T, E> + Send + 'static,
    {
        let store = self.clone();
        spawned(move || store.queue_tx_blocking(work)).await
    }

    /// [`Store::read_tx`] for callers already on a blocking thread.
    pub fn read_tx_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        self.inner.counters.count(Kind::Read);
        match &self.inner.engine {
            Engine::Sqlite(store) => store.read_blocking(work),
            Engine::Postgres(store) => store.read_blocking(work),
        }
    }

    /// [`Store::read_tx_blocking`] that gives up when the database gives no connection within
    /// `wait` (PostgreSQL; SQLite's file is always there): for health checks and metrics.
    pub fn read_tx_within_blocking<T, E: From<StoreError>>(
        &self,
        wait: Duration,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        self.inner.counters.count(Kind::Read);
        match &self.inner.engine {
            Engine::Sqlite(store) => store.read_blocking(work),
            Engine::Postgres(store) => store.read_within_blocking(wait, work),
        }
    }

    /// [`Store::write_tx`] for callers already on a blocking thread.
    pub fn write_tx_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        self.inner.counters.count(Kind::Write);
        match &self.inner.engine {
            Engine::Sqlite(store) => store.write_blocking(work),
            Engine::Postgres(store) => store.write_blocking(work),
        }
    }

    /// [`Store::queue_tx`] for callers already on a blocking thread.
    pub fn queue_tx_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        self.inner.counters.count(Kind::Queue);
        match &self.inner.engine {
            Engine::Sqlite(store) => store.write_blocking(work),
            Engine::Postgres(store) => store.queue_blocking(work),
        }
    }

    /// Runs `load` (many files written through this store, e.g. a library loaded or copied in) as
    /// one bulk load of about `views` views. On PostgreSQL with pgvector, a load of more than
    /// 50,000 views into a vector table holding fewer drops the HNSW index first; the load's
    /// writes leave the views' vectors out; its end fills them in by `COPY` and builds the index
    /// once (then ordinary writes keep it row by row); a load that stops half way has its index
    /// built by the next store to open the database. The end runs even when `load` fails, whose
    /// error then comes first. On SQLite, `load` alone runs (nothing to report). Blocking, on a
    /// thread that drives no async tasks.
    pub fn bulk_load_blocking<T, E: From<StoreError>>(
        &self,
        views: usize,
        load: impl FnOnce() -> Result<T, E>,
    ) -> Result<(T, BulkVectors), E> {
        match &self.inner.engine {
            Engine::Sqlite(_) => Ok((load()?, BulkVectors::default())),
            Engine::Postgres(store) => store.bulk_load_blocking(views, load),
        }
    }

    /// The PostgreSQL engine of this store, or why there is none (for a copy into it).
    pub(crate) fn postgres(&self) -> Result<&PgStore, StoreError> {
        match &self.inner.engine {
            Engine::Postgres(store) => Ok(store),
            Engine::Sqlite(_) => Err(StoreError::Refused(
                "records are copied from a SQLite data directory into a PostgreSQL database: \
                 open the target with its postgres:// address"
                    .into(),
            )),
        }
    }
}

/// Runs blocking store work on tokio's blocking threads and waits for it.
async fn spawned<T, E>(work: impl FnOnce() -> Result<T, E> + Send + 'static) -> Result<T, E>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(done) => done,
        Err(error) => Err(StoreError::from(error).into()),
    }
}

/// The data directory and the database file, private to the service's user: the folder `0700`,
/// the file `0600` (Unix; elsewhere the system's defaults).
mod private {
    use std::path::Path;

    /// Creates `dir` (and its parents) private to this user; an existing one is made private.
    pub(super) fn create_dir(dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }

    /// Creates the file at `path` empty when it is missing, and makes it private either way.
    pub(super) fn ensure_file(path: &Path) -> std::io::Result<()> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        drop(options.open(path)?);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(())
    }
}
