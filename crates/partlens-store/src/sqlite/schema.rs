//! The SQLite schema: its historic migrations (numbered by SQLite's `user_version`, steps 1–6),
//! then the portable steps of the store's description ([`crate::schema`]) rendered in SQLite's
//! dialect, and what SQLite holds beside the description (the term index with its FTS5 table, the
//! files' listing rows, the visual journal, the metadata generation, all kept by triggers).
//!
//! Each step runs once, inside one immediate transaction, so two processes opening a new data
//! directory at the same time do not both create it.

use std::collections::BTreeMap;

use rusqlite::Connection;

use crate::clock::iso_now;
use crate::error::StoreError;
use crate::schema::{CataloguedColumn, ColumnType, DEFAULT_CLIENT_ID, Dialect, EngineOwn};

/// The historic migration steps; step `n` brings `user_version` from `n` to `n + 1`. They stay as
/// they were written (data directories made by earlier programs migrate through them); what comes
/// after them is the description's portable steps.
const HISTORY: &[&str] = &[
    // 1: the first schema.
    r#"
    CREATE TABLE companies (
        id          TEXT PRIMARY KEY,          -- GUID, the VizSpaceID of the company's files
        name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
        created_at  TEXT NOT NULL
    );
    CREATE TABLE users (
        id            INTEGER PRIMARY KEY,
        company_id    TEXT NOT NULL REFERENCES companies(id),
        name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,           -- argon2 PHC string of the SHA-1 hex digest
        admin         INTEGER NOT NULL,
        created_at    TEXT NOT NULL
    );
    CREATE TABLE clients (
        id          TEXT PRIMARY KEY,
        created_at  TEXT NOT NULL
    );
    CREATE TABLE tokens (
        token_hash  TEXT PRIMARY KEY,          -- SHA-256 of the token; the token itself is never stored
        user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        client_id   TEXT NOT NULL,
        expires_at  INTEGER NOT NULL           -- Unix seconds
    );
    CREATE INDEX tokens_by_expiry ON tokens(expires_at);
    CREATE TABLE files (
        uid                  TEXT PRIMARY KEY, -- canonical lower-case GUID
        company_id           TEXT NOT NULL REFERENCES companies(id),
        owner_user_id        INTEGER NOT NULL,
        is_search_input      INTEGER NOT NULL,
        stored_path          TEXT NOT NULL,
        path_key             TEXT,             -- lower-cased stored path of a database file
        display_name         TEXT NOT NULL,
        extension            TEXT NOT NULL,
        size                 INTEGER NOT NULL,
        state                TEXT NOT NULL,    -- queued, in_progress, completed, failed
        revision             INTEGER NOT NULL, -- bumped on every overwrite; stale indexing is dropped
        uploaded_at          TEXT NOT NULL,
        indexed_at           TEXT,
        text                 TEXT NOT NULL DEFAULT '',
        extracted_attributes TEXT NOT NULL DEFAULT '[]',
        pmi                  TEXT NOT NULL DEFAULT '[]',
        has_thumbnail        INTEGER NOT NULL DEFAULT 0,
        has_large_image      INTEGER NOT NULL DEFAULT 0,
        search_text          TEXT NOT NULL DEFAULT '', -- lower-cased names, attributes and text
        callback_param       TEXT
    );
    CREATE UNIQUE INDEX files_by_path ON files(company_id, path_key) WHERE path_key IS NOT NULL;
    CREATE INDEX files_by_company ON files(company_id, is_search_input, state);
    CREATE TABLE views (
        file_uid    TEXT NOT NULL REFERENCES files(uid) ON DELETE CASCADE,
        position    INTEGER NOT NULL,
        descriptor  BLOB NOT NULL,
        PRIMARY KEY (file_uid, position)
    );
    CREATE TABLE attribute_names (
        id          INTEGER PRIMARY KEY,       -- the stable ID of GET /api/FileAttributes
        company_id  TEXT NOT NULL REFERENCES companies(id),
        name        TEXT NOT NULL,             -- as first written
        unit        TEXT NOT NULL,
        name_key    TEXT NOT NULL,             -- lower-cased
        unit_key    TEXT NOT NULL,
        UNIQUE (company_id, name_key, unit_key)
    );
    CREATE TABLE file_attributes (
        file_uid      TEXT NOT NULL REFERENCES files(uid) ON DELETE CASCADE,
        position      INTEGER NOT NULL,
        attribute_id  INTEGER NOT NULL REFERENCES attribute_names(id),
        text          TEXT NOT NULL,           -- the wire form as uploaded: name(unit)=v1|v2
        PRIMARY KEY (file_uid, position)
    );
    CREATE TABLE attribute_values (
        file_uid      TEXT NOT NULL REFERENCES files(uid) ON DELETE CASCADE,
        attribute_id  INTEGER NOT NULL REFERENCES attribute_names(id),
        value         TEXT NOT NULL,           -- one value of a (possibly multi-valued) attribute
        value_key     TEXT NOT NULL            -- trimmed, lower-cased
    );
    CREATE INDEX attribute_values_by_attribute ON attribute_values(attribute_id, value_key);
    CREATE INDEX attribute_values_by_file ON attribute_values(file_uid);
    CREATE TABLE feedback (
        id             TEXT PRIMARY KEY,
        file_uid       TEXT NOT NULL,
        company_id     TEXT NOT NULL,
        user_id        INTEGER NOT NULL,
        external_user  TEXT NOT NULL,
        feedback       TEXT NOT NULL,
        attributes     TEXT NOT NULL,          -- JSON array of name=value strings
        created_at     TEXT NOT NULL
    );
    CREATE TABLE jobs (
        file_uid    TEXT PRIMARY KEY REFERENCES files(uid) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        queued_at   TEXT NOT NULL
    );
    CREATE INDEX jobs_by_seq ON jobs(seq);
    CREATE TABLE settings (
        name   TEXT PRIMARY KEY,
        value  BLOB NOT NULL
    );
    "#,
    // 2: why a file could not be indexed, in words (NULL while it has not failed).
    r#"
    ALTER TABLE files ADD COLUMN failure_reason TEXT;
    "#,
    // 3: the visual index journal: every change to a file's views or to whether it is searched
    // visually, so that a saved approximate index is brought up to date at start (the visual index).
    r#"
    CREATE TABLE visual_changes (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        file_uid  TEXT NOT NULL
    );
    CREATE TRIGGER visual_view_added AFTER INSERT ON views BEGIN
        INSERT INTO visual_changes (file_uid) VALUES (new.file_uid);
    END;
    CREATE TRIGGER visual_view_removed AFTER DELETE ON views BEGIN
        INSERT INTO visual_changes (file_uid) VALUES (old.file_uid);
    END;
    CREATE TRIGGER visual_file_changed
        AFTER UPDATE OF state, is_search_input, company_id ON files
        WHEN old.state IS NOT new.state OR old.is_search_input IS NOT new.is_search_input
            OR old.company_id IS NOT new.company_id
    BEGIN
        INSERT INTO visual_changes (file_uid) VALUES (new.uid);
    END;
    "#,
    // 4: free text through an index: every file's search text in an FTS5 table with the trigram
    // tokenizer (substrings of three characters or more, exactly as `instr` over the lower-cased
    // text finds them), kept in step by triggers in the same transaction as the text. The FTS row of
    // a file is keyed by a stable integer of `file_text_keys` (a table's implicit rowid may change
    // on VACUUM).
    r#"
    CREATE TABLE file_text_keys (
        id        INTEGER PRIMARY KEY,
        file_uid  TEXT NOT NULL UNIQUE
    );
    CREATE VIRTUAL TABLE search_text_index USING fts5(
        search_text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1'
    );
    INSERT INTO file_text_keys (file_uid) SELECT uid FROM files;
    INSERT INTO search_text_index (rowid, search_text)
        SELECT k.id, f.search_text FROM files f JOIN file_text_keys k ON k.file_uid = f.uid;
    CREATE TRIGGER search_text_added AFTER INSERT ON files BEGIN
        INSERT INTO file_text_keys (file_uid) VALUES (new.uid);
        INSERT INTO search_text_index (rowid, search_text)
            VALUES ((SELECT id FROM file_text_keys WHERE file_uid = new.uid), new.search_text);
    END;
    CREATE TRIGGER search_text_changed AFTER UPDATE OF search_text ON files BEGIN
        DELETE FROM search_text_index
            WHERE rowid = (SELECT id FROM file_text_keys WHERE file_uid = old.uid);
        INSERT INTO search_text_index (rowid, search_text)
            VALUES ((SELECT id FROM file_text_keys WHERE file_uid = new.uid), new.search_text);
    END;
    CREATE TRIGGER search_text_removed AFTER DELETE ON files BEGIN
        DELETE FROM search_text_index
            WHERE rowid = (SELECT id FROM file_text_keys WHERE file_uid = old.uid);
        DELETE FROM file_text_keys WHERE file_uid = old.uid;
    END;
    "#,
    // 5: free text through the terms of the search text instead of the whole text (reasons in
    // `text_terms`): the distinct terms with a trigram index, the (term, file) postings, each file's
    // term ids. `text_terms::rebuild` fills them from the stored files after this step (the terms
    // are split in Rust, by the rule the query words are split by). Each file's text key becomes a
    // row of `file_listing`, which also holds what a search lists and checks of the file (a copy of
    // those columns of `files`, kept in step by triggers): the files a word finds are read from
    // one compact row each instead of the wide `files` rows (at a million records, a word held
    // by 3,000 of them: 27 ms through `files`, 13 ms through `file_listing`).
    r#"
    DROP TRIGGER search_text_added;
    DROP TRIGGER search_text_changed;
    DROP TRIGGER search_text_removed;
    DROP TABLE search_text_index;
    CREATE TABLE file_listing (
        id               INTEGER PRIMARY KEY,  -- the file's key in the postings
        uid              TEXT NOT NULL UNIQUE,
        company_id       TEXT NOT NULL,
        is_search_input  INTEGER NOT NULL,
        state            TEXT NOT NULL,
        display_name     TEXT NOT NULL
    );
    INSERT INTO file_listing (id, uid, company_id, is_search_input, state, display_name)
        SELECT k.id, f.uid, f.company_id, f.is_search_input, f.state, f.display_name
        FROM file_text_keys k JOIN files f ON f.uid = k.file_uid;
    DROP TABLE file_text_keys;
    CREATE TABLE file_terms (
        file_key  INTEGER PRIMARY KEY,         -- file_listing.id
        term_ids  TEXT NOT NULL                -- JSON array of search_terms.id
    );
    CREATE TABLE search_terms (
        id    INTEGER PRIMARY KEY,
        term  TEXT NOT NULL UNIQUE
    );
    CREATE VIRTUAL TABLE search_term_index USING fts5(
        term, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1'
    );
    CREATE TABLE search_postings (
        term_id   INTEGER NOT NULL,
        file_key  INTEGER NOT NULL,
        PRIMARY KEY (term_id, file_key)
    ) WITHOUT ROWID;
    CREATE TRIGGER search_term_added AFTER INSERT ON search_terms BEGIN
        INSERT INTO search_term_index (rowid, term) VALUES (new.id, new.term);
    END;
    CREATE TRIGGER search_term_removed AFTER DELETE ON search_terms BEGIN
        DELETE FROM search_term_index WHERE rowid = old.id;
    END;
    CREATE TRIGGER file_listing_added AFTER INSERT ON files BEGIN
        INSERT INTO file_listing (uid, company_id, is_search_input, state, display_name)
            VALUES (new.uid, new.company_id, new.is_search_input, new.state, new.display_name);
    END;
    CREATE TRIGGER file_listing_changed
        AFTER UPDATE OF uid, company_id, is_search_input, state, display_name ON files
    BEGIN
        UPDATE file_listing SET uid = new.uid, company_id = new.company_id,
            is_search_input = new.is_search_input, state = new.state,
            display_name = new.display_name
        WHERE uid = old.uid;
    END;
    CREATE TRIGGER file_listing_removed AFTER DELETE ON files BEGIN
        DELETE FROM search_postings
            WHERE file_key = (SELECT id FROM file_listing WHERE uid = old.uid)
              AND term_id IN (SELECT value FROM json_each((SELECT CASE WHEN json_valid(t.term_ids)
                  THEN t.term_ids ELSE '[]' END FROM file_terms t
                  WHERE t.file_key = (SELECT id FROM file_listing WHERE uid = old.uid))));
        DELETE FROM search_terms
            WHERE id IN (SELECT value FROM json_each((SELECT CASE WHEN json_valid(t.term_ids)
                  THEN t.term_ids ELSE '[]' END FROM file_terms t
                  WHERE t.file_key = (SELECT id FROM file_listing WHERE uid = old.uid))))
              AND NOT EXISTS (SELECT 1 FROM search_postings p WHERE p.term_id = search_terms.id);
        DELETE FROM file_terms WHERE file_key = (SELECT id FROM file_listing WHERE uid = old.uid);
        DELETE FROM file_listing WHERE uid = old.uid;
    END;
    "#,
    // 6: a counter every change to what a search filters on moves (records, their listed columns
    // and search text, attribute values, views), in the same transaction as the change: a metadata
    // filter resolved at one value of it holds until the value changes (`service::filter_scopes`),
    // whichever process wrote.
    r#"
    CREATE TABLE metadata_generation (
        id     INTEGER PRIMARY KEY CHECK (id = 1),
        value  INTEGER NOT NULL
    );
    INSERT INTO metadata_generation (id, value) VALUES (1, 0);
    CREATE TRIGGER metadata_file_added AFTER INSERT ON files BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    CREATE TRIGGER metadata_file_removed AFTER DELETE ON files BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    CREATE TRIGGER metadata_file_changed
        AFTER UPDATE OF uid, company_id, is_search_input, state, display_name, search_text ON files
    BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    CREATE TRIGGER metadata_value_added AFTER INSERT ON attribute_values BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    CREATE TRIGGER metadata_value_removed AFTER DELETE ON attribute_values BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    CREATE TRIGGER metadata_value_changed AFTER UPDATE ON attribute_values BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    CREATE TRIGGER metadata_view_added AFTER INSERT ON views BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    CREATE TRIGGER metadata_view_removed AFTER DELETE ON views BEGIN
        UPDATE metadata_generation SET value = value + 1;
    END;
    "#,
];

/// How SQLite writes the description.
pub(crate) const DIALECT: Dialect = Dialect {
    engine: "SQLite",
    declared: |kind| match kind {
        ColumnType::Text => "TEXT",
        ColumnType::Integer | ColumnType::Position | ColumnType::Flag => "INTEGER",
        ColumnType::Bytes => "BLOB",
        ColumnType::RowId => "INTEGER PRIMARY KEY",
    },
    catalogued: |kind| match kind {
        ColumnType::Text => "TEXT",
        ColumnType::Integer | ColumnType::Position | ColumnType::Flag | ColumnType::RowId => {
            "INTEGER"
        }
        ColumnType::Bytes => "BLOB",
    },
    flag: |flag| if flag { "1" } else { "0" },
};

/// What SQLite holds beside the description.
pub(crate) const OWN: EngineOwn = EngineOwn {
    tables: &[
        // The term index (step 5): the distinct terms, their FTS5 trigram index, the postings,
        // each file's term ids, and each file's listing row the postings name it by.
        "search_terms",
        "search_term_index",
        "search_postings",
        "file_terms",
        "file_listing",
        // The visual journal (step 3) and the metadata generation (step 6).
        "visual_changes",
        "metadata_generation",
    ],
    columns: &[],
};

/// Brings the schema up to date and makes sure the default client exists.
pub(crate) fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    migrate_to(connection, current_version() as usize)
}

/// The schema version this program writes: the historic steps, then the description's.
pub(crate) fn current_version() -> i64 {
    (HISTORY.len() as u32 + crate::schema::portable_steps()) as i64
}

/// The schema version of a database (0 for a new one).
pub(crate) fn version(connection: &Connection) -> Result<i64, StoreError> {
    Ok(connection.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}

/// The SQL of step `step` (0-based): a historic one, or a portable one of the description.
fn step_sql(step: usize) -> String {
    match HISTORY.get(step) {
        Some(sql) => (*sql).to_owned(),
        None => crate::schema::step_sql(&DIALECT, (step + 1 - HISTORY.len()) as u32),
    }
}

/// Brings the schema up to step `last` (at most the latest); the tests of a migration start from
/// the step before it.
pub(crate) fn migrate_to(connection: &mut Connection, last: usize) -> Result<(), StoreError> {
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: i64 = transaction.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let known = current_version();
    if version > known {
        return Err(StoreError::Internal(format!(
            "the data directory was written by a newer partlens-service (schema {version}, this \
             one knows {known}): run the newer partlens-service on it"
        )));
    }
    for step in (version as usize)..last.min(known as usize) {
        transaction.execute_batch(&step_sql(step))?;
        if step + 1 == super::text_terms::TERM_INDEX_SCHEMA_STEP {
            super::text_terms::rebuild(&transaction)?;
        }
        transaction.pragma_update(None, "user_version", step as i64 + 1)?;
    }
    if version == 0 {
        transaction.execute(
            "INSERT OR IGNORE INTO clients (id, created_at) VALUES (?1, ?2)",
            rusqlite::params![DEFAULT_CLIENT_ID, iso_now()],
        )?;
    }
    transaction.commit()?;
    Ok(())
}

/// Every table of the database (not SQLite's own, nor the FTS5 table and its shadows) with its
/// columns as the catalogue describes them.
pub(crate) fn catalogue(
    connection: &Connection,
) -> Result<BTreeMap<String, Vec<CataloguedColumn>>, StoreError> {
    let tables: Vec<String> = connection
        .prepare(
            "SELECT name FROM pragma_table_list
             WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'",
        )?
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut catalogue = BTreeMap::new();
    for table in tables {
        let columns = connection
            .prepare("SELECT name, type, \"notnull\", pk, dflt_value FROM pragma_table_info(?1)")?
            .query_map([&table], |row| {
                let not_null: bool = row.get(2)?;
                let key: i64 = row.get(3)?;
                Ok(CataloguedColumn {
                    name: row.get(0)?,
                    kind: row.get(1)?,
                    required: not_null || key > 0,
                    defaulted: row.get::<_, Option<String>>(4)?.is_some(),
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        catalogue.insert(table, columns);
    }
    Ok(catalogue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{disagreements, disagreements_of, future};

    #[test]
    fn migration_runs_once_and_registers_the_default_client() {
        let mut connection = Connection::open_in_memory().unwrap();
        migrate(&mut connection).unwrap();
        migrate(&mut connection).unwrap();
        assert_eq!(version(&connection).unwrap(), current_version());
        let clients: i64 = connection
            .query_row(
                "SELECT count(*) FROM clients WHERE id = 'partlens'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(clients, 1);
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let mut connection = Connection::open_in_memory().unwrap();
        connection.pragma_update(None, "user_version", 99).unwrap();
        assert!(migrate(&mut connection).is_err());
    }

    #[test]
    fn the_schema_agrees_with_the_description_column_by_column() {
        let mut fresh = Connection::open_in_memory().unwrap();
        migrate(&mut fresh).unwrap();
        let fresh_catalogue = catalogue(&fresh).unwrap();
        assert_eq!(
            disagreements(&DIALECT, &OWN, &fresh_catalogue),
            Vec::<String>::new()
        );
        // A database of the first schema, with a file in it, migrated: the same.
        let mut oldest = Connection::open_in_memory().unwrap();
        migrate_to(&mut oldest, 1).unwrap();
        oldest
            .execute_batch(
                "INSERT INTO companies VALUES ('c', 'Acme', 't');
                 INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path,
                     path_key, display_name, extension, size, state, revision, uploaded_at)
                 VALUES ('f', 'c', 1, 0, 'a/b.png', 'a/b.png', 'b.png', '.png', 1, 'completed', 1,
                     't');",
            )
            .unwrap();
        migrate(&mut oldest).unwrap();
        assert_eq!(catalogue(&oldest).unwrap(), fresh_catalogue);
        // And the check sees a column that is not described.
        fresh
            .execute_batch("ALTER TABLE jobs ADD COLUMN stray TEXT")
            .unwrap();
        let found = disagreements(&DIALECT, &OWN, &catalogue(&fresh).unwrap());
        assert_eq!(
            found,
            ["SQLite: column jobs.stray is neither described nor the engine's own"]
        );
    }

    #[test]
    fn a_portable_step_adds_its_table_and_columns_to_a_database_of_any_step() {
        let tables = future::tables();
        let mut connection = Connection::open_in_memory().unwrap();
        migrate(&mut connection).unwrap();
        for step in future::FIRST..=future::FIRST + 1 {
            let sql = DIALECT.step_sql(step, &tables, future::INDEXES);
            connection.execute_batch(&sql).unwrap();
        }
        let found = catalogue(&connection).unwrap();
        assert_eq!(
            disagreements_of(&DIALECT, &tables, &OWN, &found),
            Vec::<String>::new()
        );
        let indexed: i64 = connection
            .query_row(
                "SELECT count(*) FROM pragma_index_list('assembly_links')
                 WHERE name = 'assembly_links_by_part'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(indexed, 1);
    }
}
