//! The tests of `text_terms.rs`: the term index follows every change and delete of a file's text
//! and its listing row the record, repairs a damaged term list, and is filled by the migration.

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
                text_only: false,
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
