//! The database schema and its migrations, numbered by SQLite's `user_version`.
//!
//! Each step runs once, inside one immediate transaction, so two processes opening a new data
//! directory at the same time do not both create it.

use rusqlite::Connection;

use crate::service::error::ServiceError;

/// The client id registered in every new store.
pub const DEFAULT_CLIENT_ID: &str = "partlens";

/// Migration steps; step `n` brings `user_version` from `n` to `n + 1`.
const MIGRATIONS: &[&str] = &[
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
];

/// Brings the schema up to date and makes sure the default client exists.
pub fn migrate(connection: &mut Connection) -> Result<(), ServiceError> {
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: i64 = transaction.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(ServiceError::Internal(format!(
            "the data directory was written by a newer partlens-service (schema {version}, this one knows {known})"
        )));
    }
    for (step, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        transaction.execute_batch(sql)?;
        transaction.pragma_update(None, "user_version", step as i64 + 1)?;
    }
    if version == 0 {
        transaction.execute(
            "INSERT OR IGNORE INTO clients (id, created_at) VALUES (?1, ?2)",
            rusqlite::params![DEFAULT_CLIENT_ID, super::iso_now()],
        )?;
    }
    transaction.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_runs_once_and_registers_the_default_client() {
        let mut connection = Connection::open_in_memory().unwrap();
        migrate(&mut connection).unwrap();
        migrate(&mut connection).unwrap();
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
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
}
