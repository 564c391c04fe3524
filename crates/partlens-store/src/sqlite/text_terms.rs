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
mod tests {
    use super::*;
    use crate::model::{IndexState, NewContent};
    use crate::sqlite::{in_memory, schema, tx};
    use crate::traits::{AccountsTx, FilesTx};

    fn stored(connection: &Connection, company: &str, uid: &str, stored_path: &str) {
        tx(connection)
            .upsert_file(
                &NewContent {
                    uid: uid.into(),
                    company_id: company.into(),
                    owner_user_id: 1,
                    is_search_input: false,
                    stored_path: stored_path.into(),
                    display_name: stored_path.rsplit('/').next().unwrap_or_default().into(),
                    extension: ".png".into(),
                    size: 10,
                    state: IndexState::InProgress,
                    callback_param: None,
                },
                "2026-01-01T00:00:00Z",
            )
            .unwrap();
    }

    fn set_text(connection: &Connection, uid: &str, text: &str) {
        connection
            .execute(
                "UPDATE files SET text = ?2 WHERE uid = ?1",
                params![uid, text],
            )
            .unwrap();
        tx(connection).refresh_search_text(uid).unwrap();
    }

    /// The postings as (term, file uid) pairs, sorted.
    fn postings(connection: &Connection) -> Vec<(String, String)> {
        connection
            .prepare(
                "SELECT t.term, k.uid FROM search_postings p
                 JOIN search_terms t ON t.id = p.term_id JOIN file_listing k ON k.id = p.file_key
                 ORDER BY 1, 2",
            )
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    /// The postings as they should be: every stored file's search-text terms.
    fn postings_from_texts(connection: &Connection) -> Vec<(String, String)> {
        let texts: Vec<(String, String)> = connection
            .prepare("SELECT uid, search_text FROM files")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let mut expected: Vec<(String, String)> = texts
            .iter()
            .flat_map(|(uid, text)| {
                terms_of(text)
                    .into_iter()
                    .map(|term| (term.to_owned(), uid.clone()))
                    .collect::<Vec<_>>()
            })
            .collect();
        expected.sort();
        expected
    }

    fn count(connection: &Connection, sql: &str) -> i64 {
        connection.query_row(sql, [], |row| row.get(0)).unwrap()
    }

    fn files_holding(connection: &Connection, word: &str) -> Vec<String> {
        let mut uids: Vec<String> = connection
            .prepare(&format!(
                "SELECT uid FROM file_listing WHERE id IN ({FILE_KEYS_HOLDING_WORD})"
            ))
            .unwrap()
            .query_map([format!("\"{word}\"")], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        uids.sort();
        uids
    }

    #[test]
    fn the_index_follows_every_change_and_delete_and_keeps_no_unused_term() {
        let connection = in_memory();
        let company = tx(&connection).ensure_company("Acme").unwrap();
        stored(&connection, &company, "a", "Design/Pump Housing.png");
        stored(&connection, &company, "b", "Design/Valve.png");
        set_text(&connection, "a", "flange Ø60 H7\u{a0}bolt\u{3000}circle");
        set_text(&connection, "b", "flange gasket");
        assert_eq!(postings(&connection), postings_from_texts(&connection));
        assert!(postings(&connection).contains(&("h7".into(), "a".into())));
        // No-break and ideographic spaces separate terms, as `split_whitespace` splits a query.
        assert!(postings(&connection).contains(&("bolt".into(), "a".into())));
        assert_eq!(files_holding(&connection, "ange"), ["a", "b"]);
        assert_eq!(files_holding(&connection, "ircl"), ["a"]);

        set_text(&connection, "a", "sleeve");
        assert_eq!(postings(&connection), postings_from_texts(&connection));
        assert_eq!(files_holding(&connection, "ange"), ["b"]);
        assert_eq!(files_holding(&connection, "ircl"), Vec::<String>::new());
        connection
            .execute("DELETE FROM files WHERE uid = 'b'", [])
            .unwrap();
        assert_eq!(postings(&connection), postings_from_texts(&connection));
        assert_eq!(files_holding(&connection, "gasket"), Vec::<String>::new());
        // Only the terms some file holds are left, each with its trigram row.
        let terms = count(&connection, "SELECT count(*) FROM search_terms");
        let held = count(
            &connection,
            "SELECT count(DISTINCT term_id) FROM search_postings",
        );
        assert_eq!(terms, held);
        assert_eq!(
            terms,
            postings_from_texts(&connection).len() as i64,
            "file a alone is left, each of its terms once"
        );
        assert_eq!(count(&connection, "SELECT count(*) FROM file_listing"), 1);
        assert_eq!(count(&connection, "SELECT count(*) FROM file_terms"), 1);
    }

    #[test]
    fn the_listing_row_follows_the_file_record() {
        let connection = in_memory();
        let company = tx(&connection).ensure_company("Acme").unwrap();
        // The listed columns of `table`, by UID.
        let columns = |connection: &Connection, table: &str| {
            connection
                .prepare(&format!(
                    "SELECT uid, company_id, is_search_input, state, display_name
                     FROM {table} ORDER BY uid"
                ))
                .unwrap()
                .query_map([], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, i64>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, String>(4)?,
                    ))
                })
                .unwrap()
                .collect::<rusqlite::Result<Vec<_>>>()
                .unwrap()
        };
        let listing = |connection: &Connection| columns(connection, "file_listing");
        let from_files = |connection: &Connection| columns(connection, "files");
        stored(&connection, &company, "a", "parts/flange.png");
        stored(&connection, &company, "b", "parts/shaft.png");
        assert_eq!(listing(&connection), from_files(&connection));
        assert_eq!(listing(&connection)[0].3, "in_progress");
        tx(&connection)
            .set_file_state("a", IndexState::Completed)
            .unwrap();
        // Overwritten under another name.
        stored(&connection, &company, "b", "parts/stepped shaft.png");
        connection
            .execute("UPDATE files SET is_search_input = 1 WHERE uid = 'b'", [])
            .unwrap();
        assert_eq!(listing(&connection), from_files(&connection));
        assert_eq!(listing(&connection)[0].3, "completed");
        assert_eq!(listing(&connection)[1].4, "stepped shaft.png");
        connection
            .execute("DELETE FROM files WHERE uid = 'a'", [])
            .unwrap();
        assert_eq!(listing(&connection), from_files(&connection));
    }

    #[test]
    fn a_damaged_term_list_is_repaired_from_the_postings() {
        let connection = in_memory();
        let company = tx(&connection).ensure_company("Acme").unwrap();
        stored(&connection, &company, "a", "parts/bracket.png");
        set_text(&connection, "a", "gusset plate");
        connection
            .execute("UPDATE file_terms SET term_ids = 'not json'", [])
            .unwrap();
        set_text(&connection, "a", "gusset rib");
        assert_eq!(postings(&connection), postings_from_texts(&connection));
        assert_eq!(files_holding(&connection, "plate"), Vec::<String>::new());
        // A delete with a damaged list still succeeds (the trigger reads it as empty).
        connection
            .execute("UPDATE file_terms SET term_ids = 'not json'", [])
            .unwrap();
        connection
            .execute("DELETE FROM files WHERE uid = 'a'", [])
            .unwrap();
        assert_eq!(count(&connection, "SELECT count(*) FROM file_listing"), 0);
        assert_eq!(count(&connection, "SELECT count(*) FROM file_terms"), 0);
    }

    #[test]
    fn a_text_of_many_distinct_terms_is_indexed_and_removed_whole() {
        let connection = in_memory();
        let company = tx(&connection).ensure_company("Acme").unwrap();
        stored(&connection, &company, "a", "parts/table.pdf");
        let text: Vec<String> = (0..20_000).map(|number| format!("w{number:05}")).collect();
        set_text(&connection, "a", &text.join(" "));
        assert_eq!(files_holding(&connection, "w19999"), ["a"]);
        assert!(count(&connection, "SELECT count(*) FROM search_postings") > 20_000);
        connection
            .execute("DELETE FROM files WHERE uid = 'a'", [])
            .unwrap();
        assert_eq!(
            count(&connection, "SELECT count(*) FROM search_postings"),
            0
        );
        assert_eq!(count(&connection, "SELECT count(*) FROM search_terms"), 0);
    }

    #[test]
    fn migrating_a_store_of_the_whole_text_index_fills_the_term_index() {
        let mut connection = Connection::open_in_memory().unwrap();
        schema::migrate_to(&mut connection, TERM_INDEX_SCHEMA_STEP - 1).unwrap();
        let company = tx(&connection).ensure_company("Acme").unwrap();
        connection
            .execute(
                "INSERT INTO files (uid, company_id, owner_user_id, is_search_input, stored_path,
                   display_name, extension, size, state, revision, uploaded_at, search_text)
                 VALUES ('old', ?1, 1, 0, 'a/b.png', 'b.png', '.png', 1, 'completed', 1, 'now',
                   'a/b.png b.png knurled handle')",
                [&company],
            )
            .unwrap();
        schema::migrate(&mut connection).unwrap();
        assert_eq!(files_holding(&connection, "urled"), ["old"]);
        let listed: (String, String) = connection
            .query_row(
                "SELECT state, display_name FROM file_listing WHERE uid = 'old'",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert_eq!(listed, ("completed".to_owned(), "b.png".to_owned()));
        assert_eq!(postings(&connection), postings_from_texts(&connection));
    }
}
