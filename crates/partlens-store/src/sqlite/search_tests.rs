//! The tests of `search.rs`: every form of term through the indexes and the scan, the plans SQLite
//! takes for them, the broad-word and broad-condition choices, the metadata generation.

use super::*;
use crate::model::{IndexState, IndexedContent, NewContent};
use crate::sqlite::{in_memory, tx};
use crate::traits::{AccountsTx, AttributesTx, FilesTx};
use partlens_api::Attribute;

fn matching_database_files(
    connection: &Connection,
    company: &str,
    terms: &[FilterTerm],
) -> Result<Vec<Candidate>, StoreError> {
    tx(connection).matching_database_files(company, terms)
}

fn matching_database_files_by_scanning(
    connection: &Connection,
    company: &str,
    terms: &[FilterTerm],
) -> Result<Vec<Candidate>, StoreError> {
    tx(connection).matching_database_files_by_scanning(company, terms)
}

fn still_matching(
    connection: &Connection,
    company: &str,
    terms: &[FilterTerm],
    uids: &[String],
) -> Result<HashSet<String>, StoreError> {
    tx(connection).still_matching(company, terms, uids)
}

fn one_condition_held_by_more_than(
    connection: &Connection,
    company: &str,
    terms: &[FilterTerm],
    cap: usize,
) -> Result<bool, StoreError> {
    tx(connection).one_condition_held_by_more_than(company, terms, cap)
}

fn metadata_generation(connection: &Connection) -> Result<i64, StoreError> {
    tx(connection).metadata_generation()
}

fn save_indexing(
    connection: &Connection,
    uid: &str,
    revision: i64,
    content: Option<&IndexedContent>,
    now: &str,
) -> Result<bool, StoreError> {
    tx(connection).save_indexing(uid, revision, content, now)
}

fn store(files: &[(&str, &str, &[&str], &str)]) -> (Connection, String) {
    let connection = in_memory();
    let company = tx(&connection).ensure_company("A").unwrap();
    for (uid, path, attributes, text) in files {
        tx(&connection)
            .upsert_file(
                &NewContent {
                    uid: (*uid).into(),
                    company_id: company.clone(),
                    owner_user_id: 1,
                    is_search_input: false,
                    stored_path: (*path).into(),
                    display_name: path.rsplit('/').next().unwrap().into(),
                    extension: ".png".into(),
                    size: 2000,
                    state: IndexState::InProgress,
                    callback_param: None,
                    text_only: false,
                },
                "t",
            )
            .unwrap();
        let parsed: Vec<Attribute> = attributes
            .iter()
            .map(|text| Attribute::parse(text).unwrap())
            .collect();
        tx(&connection)
            .replace_attributes(&company, uid, &parsed)
            .unwrap();
        let content = IndexedContent {
            text: (*text).into(),
            pmi_json: "[]".into(),
            ..Default::default()
        };
        assert!(save_indexing(&connection, uid, 1, Some(&content), "t").unwrap());
    }
    (connection, company)
}

fn uids(connection: &Connection, company: &str, terms: &[FilterTerm]) -> Vec<String> {
    matching_database_files(connection, company, terms)
        .unwrap()
        .into_iter()
        .map(|candidate| candidate.uid)
        .collect()
}

/// The detail lines of SQLite's plan for `sql`.
fn plan(connection: &Connection, sql: &str, arguments: Vec<Value>) -> Vec<String> {
    connection
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .unwrap()
        .query_map(rusqlite::params_from_iter(arguments), |row| row.get(3))
        .unwrap()
        .collect::<rusqlite::Result<Vec<String>>>()
        .unwrap()
}

#[test]
fn a_term_that_lists_files_drives_the_query_and_no_term_reads_the_company() {
    let (connection, company) = store(&[(
        "1",
        "Design/pump housing.png",
        &["material=steel"],
        "cast iron",
    )]);
    // Listed files are looked up one by one (by UID, or by their listing key).
    let by_uid = |lines: &[String]| {
        lines
            .iter()
            .any(|line| line.contains("(uid=?)") || line.contains("(rowid=?)"))
    };
    let by_company = |lines: &[String]| lines.iter().any(|line| line.contains("files_by_company"));
    for terms in [
        vec![FilterTerm::parse("material=[steel]")],
        vec![FilterTerm::parse("material=st*")],
        vec![FilterTerm::Text("iron".into())],
        // A size range is checked on the files an attribute term lists.
        vec![
            FilterTerm::parse("length=40..60"),
            FilterTerm::parse("material=[steel]"),
        ],
    ] {
        let (sql, arguments) = matching_sql(&connection, &company, &terms, false).unwrap();
        let lines = plan(&connection, &sql, arguments);
        assert!(
            by_uid(&lines) && !by_company(&lines),
            "{terms:?}: {lines:?}"
        );
    }
    // A free-text word reads the postings of the terms that hold it, not all postings.
    let (sql, arguments) = matching_sql(
        &connection,
        &company,
        &[FilterTerm::Text("iron".into())],
        false,
    )
    .unwrap();
    let lines = plan(&connection, &sql, arguments);
    assert!(
        lines
            .iter()
            .any(|line| line == "SEARCH p USING PRIMARY KEY (term_id=?)"),
        "{lines:?}"
    );
    let (mut sql, mut arguments) = matching_sql(&connection, &company, &[], true).unwrap();
    sql.push_str(" AND f.uid IN (?, ?)");
    arguments.extend([Value::Text("1".into()), Value::Text("2".into())]);
    let lines = plan(&connection, &sql, arguments);
    assert!(by_uid(&lines) && !by_company(&lines), "{lines:?}");
    // Listed files are checked against an attribute term by their own values, not by every
    // file that holds the value.
    for term in ["material=[steel]", "material=st*", "material=ee"] {
        let (mut sql, mut arguments) =
            matching_sql(&connection, &company, &[FilterTerm::parse(term)], true).unwrap();
        sql.push_str(" AND f.uid IN (?, ?)");
        arguments.extend([Value::Text("1".into()), Value::Text("2".into())]);
        let lines = plan(&connection, &sql, arguments);
        assert!(
            lines
                .iter()
                .any(|line| line.contains("attribute_values_by_file"))
                && !lines
                    .iter()
                    .any(|line| line.contains("attribute_values_by_attribute")),
            "{term}: {lines:?}"
        );
        assert_eq!(
            still_matching(
                &connection,
                &company,
                &[FilterTerm::parse(term)],
                &["1".into(), "2".into()]
            )
            .unwrap(),
            HashSet::from(["1".to_owned()]),
            "{term}"
        );
    }
    let (sql, arguments) = matching_sql(&connection, &company, &[], false).unwrap();
    assert!(by_company(&plan(&connection, &sql, arguments)));
    // Alone, a size range lists nothing: it is checked on each of the company's files.
    let (sql, arguments) = matching_sql(
        &connection,
        &company,
        &[FilterTerm::parse("thickness=..3mm")],
        false,
    )
    .unwrap();
    assert!(by_company(&plan(&connection, &sql, arguments)));
}

#[test]
fn a_word_most_files_hold_is_checked_on_each_and_a_rare_one_listed() {
    let owned: Vec<(String, String, String)> = (0..8_000)
        .map(|number| {
            let text = if number % 1_000 == 7 {
                "common rare"
            } else {
                "common"
            };
            (
                format!("{number}"),
                format!("Parts/part {number}.png"),
                text.to_owned(),
            )
        })
        .collect();
    let files: Vec<(&str, &str, &[&str], &str)> = owned
        .iter()
        .map(|(uid, path, text)| (uid.as_str(), path.as_str(), &[][..], text.as_str()))
        .collect();
    let (connection, company) = store(&files);
    let lists_from_terms = |lines: &[String]| {
        lines
            .iter()
            .any(|line| line == "SEARCH p USING PRIMARY KEY (term_id=?)")
    };
    for (word, broad, found) in [("common", true, 8_000), ("rare", false, 8)] {
        let terms = [FilterTerm::Text(word.into())];
        let (sql, arguments) = matching_sql(&connection, &company, &terms, false).unwrap();
        assert_eq!(
            lists_from_terms(&plan(&connection, &sql, arguments)),
            !broad,
            "{word}"
        );
        let indexed = matching_database_files(&connection, &company, &terms).unwrap();
        assert_eq!(indexed.len(), found, "{word}");
        assert_eq!(
            indexed,
            matching_database_files_by_scanning(&connection, &company, &terms).unwrap()
        );
    }
    // Checking a few listed files never reads the postings.
    let (mut sql, mut arguments) = matching_sql(
        &connection,
        &company,
        &[FilterTerm::Text("rare".into())],
        true,
    )
    .unwrap();
    sql.push_str(" AND f.uid IN (?)");
    arguments.push(Value::Text("7".into()));
    assert!(!lists_from_terms(&plan(&connection, &sql, arguments)));
    assert_eq!(
        still_matching(
            &connection,
            &company,
            &[FilterTerm::Text("rare".into())],
            &["7".into(), "8".into()]
        )
        .unwrap(),
        HashSet::from(["7".to_owned()])
    );
}

#[test]
fn one_condition_many_files_hold_is_told_from_the_indexes() {
    let owned: Vec<(String, String)> = (0..11)
        .map(|number| (format!("{number}"), format!("Parts/part {number}.png")))
        .collect();
    let steel: &[&str] = &["material=steel"];
    let brass: &[&str] = &["material=brass"];
    let files: Vec<(&str, &str, &[&str], &str)> = owned
        .iter()
        .map(|(uid, path)| {
            let attributes = if uid == "10" { brass } else { steel };
            (uid.as_str(), path.as_str(), attributes, "common words")
        })
        .collect();
    let (connection, company) = store(&files);
    let broad = |terms: &[FilterTerm], cap| {
        one_condition_held_by_more_than(&connection, &company, terms, cap).unwrap()
    };
    let parse = FilterTerm::parse;
    assert!(broad(&[parse("material=[steel]")], 9));
    assert!(!broad(&[parse("material=[steel]")], 10), "held by 10");
    assert!(broad(&[parse("material=[brass]")], 0));
    assert!(!broad(&[parse("material=[brass]")], 1));
    assert!(broad(&[parse("material=st*")], 9));
    assert!(broad(&[FilterTerm::Text("COMMON".into())], 10));
    assert!(!broad(&[FilterTerm::Text("common".into())], 11));
    // Not countable through the indexes alone, or not one condition.
    assert!(!broad(&[FilterTerm::Text("co".into())], 1));
    assert!(!broad(&[FilterTerm::Text("common words".into())], 1));
    assert!(!broad(&[parse("material=ee")], 1));
    assert!(!broad(
        &[parse("material=[steel]"), FilterTerm::Text("common".into())],
        1
    ));
    assert!(!broad(&[], 0));
}

#[test]
fn every_change_a_filter_sees_moves_the_metadata_generation_and_nothing_else_does() {
    let (connection, company) = store(&[("1", "Design/a.png", &["material=steel"], "bolt")]);
    let generation = || metadata_generation(&connection).unwrap();
    let last = std::cell::Cell::new(generation());
    let moved = |label: &str| {
        let now = generation();
        assert!(now > last.get(), "{label} did not move the generation");
        last.set(now);
    };
    tx(&connection)
        .replace_attributes(
            &company,
            "1",
            &[Attribute::parse("material=brass").unwrap()],
        )
        .unwrap();
    moved("an attribute write");
    tx(&connection)
        .set_file_state("1", IndexState::Failed)
        .unwrap();
    moved("a state change");
    connection
        .execute(
            "INSERT INTO views (file_uid, position, descriptor) VALUES ('1', 0, x'00')",
            [],
        )
        .unwrap();
    moved("a view added");
    connection
        .execute("UPDATE files SET search_text = 'nut' WHERE uid = '1'", [])
        .unwrap();
    moved("a new search text");
    // Writes no filter looks at leave it alone.
    tx(&connection).ensure_company("Other").unwrap();
    connection
        .execute("UPDATE files SET has_thumbnail = 1 WHERE uid = '1'", [])
        .unwrap();
    assert_eq!(generation(), last.get());
    connection
        .execute("DELETE FROM files WHERE uid = '1'", [])
        .unwrap();
    moved("a delete");
}

#[test]
fn every_term_form_matches_as_specified() {
    let (connection, company) = store(&[
        (
            "1",
            "Design/pump housing.png",
            &["document_number=AX-1000", "region=EU|US"],
            "cast iron",
        ),
        (
            "2",
            "Design/bracket.png",
            &["document_number=BX-2000", "weight(kg)=12.3"],
            "Pump base",
        ),
    ]);
    let parse = FilterTerm::parse;
    assert_eq!(
        uids(&connection, &company, &[FilterTerm::Text("PUMP".into())]),
        vec!["2", "1"]
    );
    assert_eq!(
        uids(
            &connection,
            &company,
            &[FilterTerm::Text("pump iron".into())]
        ),
        vec!["1"]
    );
    assert_eq!(
        uids(&connection, &company, &[parse("Document_Number=ax-1")]),
        vec!["1"]
    );
    assert_eq!(
        uids(&connection, &company, &[parse("region=[us]")]),
        vec!["1"]
    );
    assert!(uids(&connection, &company, &[parse("region=[U]")]).is_empty());
    assert_eq!(
        uids(&connection, &company, &[parse("document_number=BX-*")]),
        vec!["2"]
    );
    assert_eq!(
        uids(&connection, &company, &[parse("weight=12")]),
        vec!["2"]
    );
    assert!(uids(&connection, &company, &[parse("weight(lb)=12")]).is_empty());
    // Numeric ranges: both ends included, open ends, a value that is no number never matches.
    for (range, found) in [
        ("weight(kg)=12..13", vec!["2"]),
        ("weight=12,3..12,3", vec!["2"]),
        ("weight=..12.3", vec!["2"]),
        ("weight=12.4..", vec![]),
        ("weight=..12", vec![]),
        ("document_number=0..9999", vec![]),
    ] {
        assert_eq!(
            uids(&connection, &company, &[parse(range)]),
            found,
            "{range}"
        );
    }
    assert_eq!(
        uids(
            &connection,
            &company,
            &[parse("region=[EU]"), FilterTerm::Text("cast".into())]
        ),
        vec!["1"]
    );
    // A word too short for the term index, checked on the files an attribute term lists.
    assert_eq!(
        uids(
            &connection,
            &company,
            &[parse("document_number=*"), FilterTerm::Text("ba".into())]
        ),
        vec!["2"]
    );
    assert!(
        uids(
            &connection,
            &company,
            &[parse("region=[EU]"), parse("weight=12")]
        )
        .is_empty()
    );
}

#[test]
fn the_indexes_find_exactly_what_the_scan_finds() {
    let (connection, company) = store(&[
        (
            "1",
            "Design/Pump Housing.png",
            &[
                "document_number=AX-1000",
                "region=EU|US",
                "note=50% \"off\"",
            ],
            "Gußeisen ÄRGER cast iron",
        ),
        (
            "2",
            "Design/bracket.png",
            &["document_number=AX-1001", "weight(kg)=12.3"],
            "pump base, steel",
        ),
        ("3", "Other/ax.png", &["document_number=BX-1"], "x"),
    ]);
    let terms: Vec<Vec<FilterTerm>> = [
        vec!["pump"],
        vec!["PUMP", "ousi"],
        vec!["ax"],
        vec!["x"],
        vec!["gußeisen", "ärger"],
        vec!["\"off\""],
        vec!["50%"],
        vec!["nothing-like-this"],
    ]
    .into_iter()
    .map(|words| vec![FilterTerm::Text(words.join(" "))])
    .chain(
        [
            "document_number=[ax-1000]",
            "document_number=AX-*",
            "document_number=ax-100*",
            "document_number=*",
            "document_number=[AX-1]",
            "region=[us]",
            "weight(kg)=[12.3]",
            "weight(lb)=[12.3]",
            "note=[50% \"off\"]",
            "document_number=100",
            "weight(kg)=12..13",
            "weight=..12",
            "document_number=1..2",
            "length=1..2",
        ]
        .iter()
        .map(|text| vec![FilterTerm::parse(text)]),
    )
    .collect();
    for terms in &terms {
        let indexed = matching_database_files(&connection, &company, terms).unwrap();
        let scanned = matching_database_files_by_scanning(&connection, &company, terms).unwrap();
        assert_eq!(indexed, scanned, "{terms:?}");
    }
    // The cases above do find files (the comparison is not between empty lists).
    assert_eq!(
        uids(&connection, &company, &[FilterTerm::Text("ousi".into())]),
        vec!["1"]
    );
    assert_eq!(
        uids(
            &connection,
            &company,
            &[FilterTerm::parse("document_number=ax-100*")]
        ),
        vec!["2", "1"]
    );
    // A file's text index follows its text: re-indexed with other text, then deleted.
    let content = IndexedContent {
        text: "completely different".into(),
        pmi_json: "[]".into(),
        ..Default::default()
    };
    let revision: i64 = connection
        .query_row("SELECT revision FROM files WHERE uid = '2'", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert!(save_indexing(&connection, "2", revision, Some(&content), "t").unwrap());
    assert!(uids(&connection, &company, &[FilterTerm::Text("steel".into())]).is_empty());
    assert_eq!(
        uids(
            &connection,
            &company,
            &[FilterTerm::Text("different".into())]
        ),
        vec!["2"]
    );
    tx(&connection).delete_file("2").unwrap();
    assert!(
        uids(
            &connection,
            &company,
            &[FilterTerm::Text("different".into())]
        )
        .is_empty()
    );
    let indexed: i64 = connection
        .query_row("SELECT count(*) FROM file_listing", [], |row| row.get(0))
        .unwrap();
    assert_eq!(indexed, 2);
}

#[test]
fn still_matching_checks_only_the_given_files() {
    let (connection, company) = store(&[
        ("1", "Design/a.png", &["region=EU"], ""),
        ("2", "Design/b.png", &["region=EU"], ""),
        ("3", "Design/c.png", &["region=US"], ""),
    ]);
    let given = ["1".to_owned(), "3".to_owned(), "gone".to_owned()];
    let terms = [FilterTerm::parse("region=[eu]")];
    assert_eq!(
        still_matching(&connection, &company, &terms, &given).unwrap(),
        HashSet::from(["1".to_owned()])
    );
    assert_eq!(
        still_matching(&connection, &company, &[], &given).unwrap(),
        HashSet::from(["1".to_owned(), "3".to_owned()])
    );
    assert!(
        still_matching(&connection, "other", &[], &given)
            .unwrap()
            .is_empty()
    );
    assert!(
        still_matching(&connection, &company, &terms, &[])
            .unwrap()
            .is_empty()
    );
}
