//! The term index of the search text on SQLite, which free-text words of three characters or more
//! go through (schema step 5; why terms, and why it is exact: [`crate::model::search_text`]): the
//! distinct whitespace-separated terms of every file's search text (`search_terms`), a trigram
//! index of those terms (`search_term_index`, FTS5, substrings of three characters or more; it
//! replaced schema step 4's trigram index of the whole texts) and which files hold each term
//! (`search_postings`, keyed by term then file).
//!
//! A posting names the file by its key, the id of its `file_listing` row (stable, unlike the implicit
//! rowid of `files`), which also holds what a search lists and checks of the file (see
//! `search.rs`).
//!
//! Kept in step in the same transaction as the search text: [`index_file`] after every change of a
//! file's search text (`search_text.rs`), the `file_listing_removed` trigger when a file record
//! is deleted (it reads the file's term ids, kept as a JSON array in `file_terms`, so it deletes
//! postings by key instead of scanning them). A term no file holds any longer is deleted with its
//! trigram row.
//!
//! Limits: a file's terms are bounded by its search text (see the model); indexing costs one
//! look-up a distinct term and one row a (term, file) pair, and nothing in the index is read whole.

use std::collections::BTreeSet;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::StoreError;
use crate::model::search_text::terms_of;

/// The schema step (1-based, `user_version` after it) that created the term index; migrating past
/// it fills the index from the files already stored ([`rebuild`]).
pub(super) const TERM_INDEX_SCHEMA_STEP: usize = 5;

/// The SQL sub-select of the keys (`file_listing.id`) of files whose search text contains the
/// word bound to its one parameter, given as an FTS5 phrase (see `search::substring_phrase`); the
/// word must be three characters or more (the trigram index finds nothing shorter).
pub(super) const FILE_KEYS_HOLDING_WORD: &str = "SELECT p.file_key FROM search_postings p
    WHERE p.term_id IN (SELECT t.rowid FROM search_term_index t WHERE search_term_index MATCH ?)";

/// The id of `term`, added to the terms (and their trigram index, by trigger) when new.
fn term_id(connection: &Connection, term: &str) -> Result<i64, StoreError> {
    let known = connection
        .prepare_cached("SELECT id FROM search_terms WHERE term = ?1")?
        .query_row([term], |row| row.get::<_, i64>(0))
        .optional()?;
    if let Some(id) = known {
        return Ok(id);
    }
    connection
        .prepare_cached("INSERT INTO search_terms (term) VALUES (?1)")?
        .execute([term])?;
    Ok(connection.last_insert_rowid())
}

/// Deletes the term `term_id` (and its trigram row, by trigger) when no file holds it any longer.
fn forget_if_unused(connection: &Connection, term_id: i64) -> Result<(), StoreError> {
    connection
        .prepare_cached(
            "DELETE FROM search_terms WHERE id = ?1
               AND NOT EXISTS (SELECT 1 FROM search_postings WHERE term_id = ?1)",
        )?
        .execute([term_id])?;
    Ok(())
}

/// Brings the term index of file `uid` in line with `search_text` (its new, lower-cased search
/// text): postings of terms it no longer holds are deleted, postings of new terms added. A file
/// without a text key (not stored) is left alone.
pub(super) fn index_file(
    connection: &Connection,
    uid: &str,
    search_text: &str,
) -> Result<(), StoreError> {
    let Some((file_key, stored_ids)) = connection
        .prepare_cached(
            "SELECT l.id, coalesce(t.term_ids, '[]') FROM file_listing l
             LEFT JOIN file_terms t ON t.file_key = l.id WHERE l.uid = ?1",
        )?
        .query_row([uid], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .optional()?
    else {
        return Ok(());
    };
    let old: BTreeSet<i64> = match serde_json::from_str::<Vec<i64>>(&stored_ids) {
        Ok(ids) => ids.into_iter().collect(),
        Err(_) => {
            // Not written by this module: find the file's postings the slow way.
            connection
                .prepare_cached("SELECT term_id FROM search_postings WHERE file_key = ?1")?
                .query_map([file_key], |row| row.get::<_, i64>(0))?
                .collect::<rusqlite::Result<_>>()?
        }
    };
    let mut new = BTreeSet::new();
    for term in terms_of(search_text) {
        new.insert(term_id(connection, term)?);
    }
    for &gone in old.difference(&new) {
        connection
            .prepare_cached("DELETE FROM search_postings WHERE term_id = ?1 AND file_key = ?2")?
            .execute(params![gone, file_key])?;
        forget_if_unused(connection, gone)?;
    }
    for &added in new.difference(&old) {
        connection
            .prepare_cached(
                "INSERT OR IGNORE INTO search_postings (term_id, file_key) VALUES (?1, ?2)",
            )?
            .execute(params![added, file_key])?;
    }
    if new != old {
        let ids: Vec<String> = new.iter().map(i64::to_string).collect();
        connection
            .prepare_cached(
                "INSERT INTO file_terms (file_key, term_ids) VALUES (?1, ?2)
                 ON CONFLICT (file_key) DO UPDATE SET term_ids = excluded.term_ids",
            )?
            .execute(params![file_key, format!("[{}]", ids.join(","))])?;
    }
    Ok(())
}

/// Fills the term index from every stored file's search text (the migration to the term index).
pub(super) fn rebuild(connection: &Connection) -> Result<(), StoreError> {
    let files = connection
        .prepare("SELECT uid, search_text FROM files")?
        .query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for (uid, search_text) in files {
        index_file(connection, &uid, &search_text)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "text_terms_tests.rs"]
mod tests;
