//! What the PostgreSQL modes of the scale benches share: a store on a fresh database of the test
//! server (`partlens_testkit::postgres`).

use partlens_store::{DatabaseUrl, Store};
use partlens_testkit::postgres::TestDatabase;

/// A PostgreSQL store on a fresh test database, with the database (dropped with it) and the
/// store's data folder (keep both while the store is used); `None`, said on stderr, when there is
/// no server. A bench that cannot set itself up has nothing to measure: it stops with the reason.
pub fn open() -> Option<(Store, TestDatabase, tempfile::TempDir)> {
    let Some(database) = partlens_testkit::postgres::database() else {
        eprintln!("no PostgreSQL server (see partlens_testkit::postgres): nothing measured");
        return None;
    };
    let folder = match tempfile::tempdir() {
        Ok(folder) => folder,
        Err(error) => panic!("no temporary directory: {error}"),
    };
    let url = match DatabaseUrl::parse(&database.url) {
        Ok(url) => url,
        Err(error) => panic!("the test database's address: {error}"),
    };
    match Store::open_configured_blocking(folder.path(), Some(&url)) {
        Ok(store) => Some((store, database, folder)),
        Err(error) => panic!("the PostgreSQL store does not open: {error}"),
    }
}

/// A PostgreSQL store on the database at `url` (a server of the caller's, kept between runs), with
/// the store's data folder.
#[allow(
    dead_code,
    reason = "text_scale keeps a database; visual_scale does not"
)]
pub fn open_kept(url: &str) -> (Store, tempfile::TempDir) {
    let folder = match tempfile::tempdir() {
        Ok(folder) => folder,
        Err(error) => panic!("no temporary directory: {error}"),
    };
    let parsed = match DatabaseUrl::parse(url) {
        Ok(url) => url,
        Err(error) => panic!("postgres_url: {error}"),
    };
    match Store::open_configured_blocking(folder.path(), Some(&parsed)) {
        Ok(store) => (store, folder),
        Err(error) => panic!("the PostgreSQL store at {url} does not open: {error}"),
    }
}
