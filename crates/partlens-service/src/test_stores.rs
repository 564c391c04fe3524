//! Stores of both engines for the service's unit tests: the SQLite store of a temporary data
//! folder, and a PostgreSQL store on a fresh database of the test server when there is one
//! (`partlens_testkit::postgres`: skipped off CI without one, a failure under CI).

use std::path::Path;

use partlens_store::{DatabaseUrl, Store};
use partlens_testkit::postgres::TestDatabase;

/// What a test store needs kept while it is used: its data folder and, on PostgreSQL, its database.
pub(crate) struct Kept {
    dir: tempfile::TempDir,
    _database: Option<TestDatabase>,
}

impl Kept {
    /// The store's data folder (files, caches and snapshots; on SQLite its database too).
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// A store of each engine: SQLite always, PostgreSQL when the test server is there.
pub(crate) fn both() -> Vec<(Store, Kept)> {
    let dir = tempfile::tempdir().unwrap();
    let mut stores = vec![(
        Store::open_blocking(dir.path()).unwrap(),
        Kept {
            dir,
            _database: None,
        },
    )];
    if let Some(database) = partlens_testkit::postgres::database() {
        let dir = tempfile::tempdir().unwrap();
        let url = DatabaseUrl::parse(&database.url).unwrap();
        let store = Store::open_configured_blocking(dir.path(), Some(&url)).unwrap();
        stores.push((
            store,
            Kept {
                dir,
                _database: Some(database),
            },
        ));
    }
    stores
}
