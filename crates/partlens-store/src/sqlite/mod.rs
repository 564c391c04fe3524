//! The SQLite engine: records, attributes, users, tokens, feedback, the indexing queue and the
//! visual journal in one database file under the data directory ([`DATABASE_FILE`]).
//!
//! The database file is private to the service's user (`0600` on Unix; its WAL and shared-memory
//! files follow). WAL mode with a busy timeout, so the administration commands can write while a
//! service runs on the same directory. Writes go through one connection (our own writers queue on
//! its mutex instead of failing with `SQLITE_BUSY`), reads take a connection from a small pool (WAL
//! lets them run beside the writer), each in one snapshot, as PostgreSQL's `REPEATABLE READ`
//! reads. Each concern's module implements its trait of [`crate::traits`] for [`SqliteTx`].

mod accounts;
mod attributes;
mod callbacks;
mod categories;
mod files;
mod jobs;
mod library;
mod pairs;
mod relations;
pub(crate) mod schema;
mod search;
mod search_text;
mod text_terms;
pub(crate) mod transfer;
mod visual;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, TryLockError};
use std::time::Duration;

use rusqlite::Connection;

use crate::error::StoreError;
use crate::rows::Columns;
use crate::traits::StoreTx;
use crate::usage::PoolUse;

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

/// The SQLite database of one data directory: its writer and its pool of readers.
pub(crate) struct SqliteStore {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    /// Read connections taken from (or opened beside) `readers` and not yet given back.
    readers_in_use: AtomicUsize,
}

/// One transaction (or read snapshot) of the SQLite engine.
pub(crate) struct SqliteTx<'a>(&'a Connection);

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
fn connect(path: &Path) -> Result<Connection, StoreError> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    connection.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    connection.pragma_update(None, "cache_size", -PAGE_CACHE_KIB)?;
    Ok(connection)
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub(crate) fn open_blocking(path: PathBuf) -> Result<Self, StoreError> {
        let mut writer = connect(&path)?;
        schema::migrate(&mut writer)?;
        Ok(Self {
            path,
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            readers_in_use: AtomicUsize::new(0),
        })
    }

    /// What `partlens-service check` reports about the database at `path`, changing nothing.
    pub(crate) fn check_blocking(path: &Path) -> Result<(Vec<String>, bool), StoreError> {
        if !path.exists() {
            return Ok((
                vec![format!(
                    "no database at {} yet: the service creates it at start",
                    path.display()
                )],
                true,
            ));
        }
        let connection =
            Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let found = schema::version(&connection)?;
        let current = schema::current_version();
        let agreement = if found == current {
            let catalogued = schema::catalogue(&connection)?;
            let found = crate::schema::disagreements(&schema::DIALECT, &schema::OWN, &catalogued);
            format!("; {}", crate::schema::agreement_line(&found))
        } else {
            String::new()
        };
        Ok(if found > current {
            (
                vec![format!(
                    "schema version {found} of {} is newer than this program's {current}: run the \
                     newer partlens-service",
                    path.display()
                )],
                false,
            )
        } else {
            (
                vec![format!(
                    "SQLite database {} at schema version {found} (this program writes \
                     {current}){agreement}",
                    path.display()
                )],
                true,
            )
        })
    }

    /// How the connections are used now: the writer counts as in use while a write holds it.
    pub(crate) fn pool_use(&self) -> PoolUse {
        let idle_readers = self.readers.lock().map_or(0, |readers| readers.len());
        let writing = matches!(self.writer.try_lock(), Err(TryLockError::WouldBlock));
        PoolUse {
            engine: "sqlite",
            idle: idle_readers + usize::from(!writing),
            in_use: self.readers_in_use.load(Ordering::Relaxed) + usize::from(writing),
            max: None,
        }
    }

    /// Runs `work` in one read snapshot on a pooled read connection.
    pub(crate) fn read_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let pooled = self
            .readers
            .lock()
            .map_err(|_| StoreError::Internal("the reader pool is poisoned".into()))?
            .pop();
        let in_use = ReaderInUse::new(&self.readers_in_use);
        let connection = match pooled {
            Some(connection) => connection,
            None => connect(&self.path)?,
        };
        let result = (|| {
            // One snapshot for the whole work, as PostgreSQL's `REPEATABLE READ` reads.
            let snapshot = connection
                .unchecked_transaction()
                .map_err(StoreError::from)?;
            let value = work(&mut SqliteTx(&snapshot))?;
            snapshot.commit().map_err(StoreError::from)?;
            Ok(value)
        })();
        drop(in_use);
        if let Ok(mut readers) = self.readers.lock()
            && readers.len() < MAX_IDLE_READERS
        {
            readers.push(connection);
        }
        result
    }

    /// Runs `work` in one write transaction (`IMMEDIATE`: the writer's lock is taken first);
    /// commits when it returns `Ok`.
    pub(crate) fn write_blocking<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut connection = self
            .writer
            .lock()
            .map_err(|_| StoreError::Internal("the writer is poisoned".into()))?;
        let transaction = connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(StoreError::from)?;
        let value = work(&mut SqliteTx(&transaction))?;
        transaction.commit().map_err(StoreError::from)?;
        Ok(value)
    }
}

impl StoreTx for SqliteTx<'_> {
    fn engine(&self) -> &'static str {
        "SQLite"
    }

    fn schema_versions(&mut self) -> Result<(i64, i64), StoreError> {
        Ok((schema::version(self.0)?, schema::current_version()))
    }
}

impl Columns for rusqlite::Row<'_> {
    fn text(&self, index: usize) -> Result<String, StoreError> {
        Ok(self.get(index)?)
    }

    fn optional_text(&self, index: usize) -> Result<Option<String>, StoreError> {
        Ok(self.get(index)?)
    }

    fn integer(&self, index: usize) -> Result<i64, StoreError> {
        Ok(self.get(index)?)
    }

    fn flag(&self, index: usize) -> Result<bool, StoreError> {
        Ok(self.get(index)?)
    }
}

/// A database in memory with the current schema, for the engine's tests.
#[cfg(test)]
pub(crate) fn in_memory() -> Connection {
    let mut connection = Connection::open_in_memory().expect("an in-memory database");
    connection
        .pragma_update(None, "foreign_keys", "ON")
        .expect("foreign keys on");
    schema::migrate(&mut connection).expect("the schema");
    connection
}

/// The transaction seam over a bare connection, for the engine's tests.
#[cfg(test)]
pub(crate) fn tx(connection: &Connection) -> SqliteTx<'_> {
    SqliteTx(connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_read_the_database_through_a_map_of_the_asked_size() {
        let dir = tempfile::tempdir().unwrap();
        let connection = connect(&dir.path().join("db")).unwrap();
        let mapped: i64 = connection
            .query_row("PRAGMA mmap_size", [], |row| row.get(0))
            .unwrap();
        let cache: i64 = connection
            .query_row("PRAGMA cache_size", [], |row| row.get(0))
            .unwrap();
        // SQLite silently caps the map at its compile-time limit: equal only when the build
        // raised it (`.cargo/config.toml`).
        assert_eq!(mapped, MMAP_BYTES);
        assert_eq!(cache, -PAGE_CACHE_KIB);
    }
}
