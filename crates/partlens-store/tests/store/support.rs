//! What the store's tests share: a store of each engine, and records written through the traits.

use partlens_api::Attribute;
use partlens_store::model::{IndexState, IndexedContent, NewContent};
use partlens_store::{DatabaseUrl, Store, StoreError, StoreTx};

/// A store of one engine with what keeps it (its folder, its database).
pub struct TestStore {
    /// The store.
    pub store: Store,
    /// `SQLite` or `PostgreSQL`.
    pub engine: &'static str,
    _kept: Kept,
}

/// What a test store needs kept while it is used.
enum Kept {
    /// The SQLite store's data folder.
    Folder(#[allow(dead_code, reason = "held for its drop")] tempfile::TempDir),
    /// The PostgreSQL store's database and its (empty) data folder.
    Database(
        #[allow(dead_code, reason = "held for its drop")] partlens_testkit::postgres::TestDatabase,
        #[allow(dead_code, reason = "held for its drop")] tempfile::TempDir,
    ),
}

/// A SQLite store in a temporary folder.
pub fn sqlite() -> TestStore {
    let dir = tempfile::tempdir().unwrap();
    TestStore {
        store: Store::open_blocking(dir.path()).unwrap(),
        engine: "SQLite",
        _kept: Kept::Folder(dir),
    }
}

/// A PostgreSQL store on a fresh database of the test server, or `None` when there is none (the
/// test server says so off CI, fails under CI).
pub fn postgres() -> Option<TestStore> {
    let database = partlens_testkit::postgres::database()?;
    let folder = tempfile::tempdir().unwrap();
    let url = DatabaseUrl::parse(&database.url).unwrap();
    let store = Store::open_configured_blocking(folder.path(), Some(&url)).unwrap();
    Some(TestStore {
        store,
        engine: "PostgreSQL",
        _kept: Kept::Database(database, folder),
    })
}

/// A store of each engine: SQLite always, PostgreSQL when the test server is there.
pub fn stores() -> Vec<TestStore> {
    let mut stores = vec![sqlite()];
    stores.extend(postgres());
    stores
}

impl TestStore {
    /// Runs `work` in one write transaction.
    pub fn write<T>(&self, work: impl FnOnce(&mut dyn StoreTx) -> Result<T, StoreError>) -> T {
        self.store
            .write_tx_blocking(work)
            .unwrap_or_else(|error| panic!("{}: {error:?}", self.engine))
    }

    /// Runs `work` in one read transaction.
    pub fn read<T>(&self, work: impl FnOnce(&mut dyn StoreTx) -> Result<T, StoreError>) -> T {
        self.store
            .read_tx_blocking(work)
            .unwrap_or_else(|error| panic!("{}: {error:?}", self.engine))
    }
}

/// What an upload of a database file `uid` at `stored_path` of `company` writes.
pub fn database_file(uid: &str, company: &str, stored_path: &str) -> NewContent {
    NewContent {
        uid: uid.into(),
        company_id: company.into(),
        owner_user_id: 1,
        is_search_input: false,
        stored_path: stored_path.into(),
        display_name: stored_path.rsplit('/').next().unwrap_or(stored_path).into(),
        extension: ".png".into(),
        size: 2000,
        state: IndexState::InProgress,
        callback_param: None,
        text_only: false,
    }
}

/// Writes an indexed database file with its saved attributes, extracted text and views, as an
/// upload indexed during the call does.
pub fn indexed(
    tx: &mut dyn StoreTx,
    content: &NewContent,
    attributes: &[&str],
    text: &str,
    views: &[&[u8]],
) -> Result<(), StoreError> {
    let revision = tx.upsert_file(content, "2026-01-01T00:00:00Z")?;
    let parsed: Vec<Attribute> = attributes
        .iter()
        .map(|text| Attribute::parse(text).unwrap())
        .collect();
    tx.replace_attributes(&content.company_id, &content.uid, &parsed)?;
    let outcome = IndexedContent {
        views: views.iter().map(|view| view.to_vec()).collect(),
        text: text.into(),
        pmi_json: "[]".into(),
        ..IndexedContent::default()
    };
    assert!(tx.save_indexing(
        &content.uid,
        revision,
        Some(&outcome),
        "2026-01-01T00:00:01Z"
    )?);
    Ok(())
}
