//! The metadata side of search: every form of term, the indexes against the scan, the first page
//! of a filter, the files with views, the broad-filter hint, the metadata generation; alike on
//! both engines.

use std::collections::HashSet;

use partlens_api::FilterTerm;
use partlens_store::model::{IndexState, IndexedContent};
use partlens_store::{StoreError, StoreTx};

use crate::support::{TestStore, database_file, indexed, stores};

/// A company of indexed files `(uid, stored path, attributes, text)`, each with one view.
fn filled(store: &TestStore, files: &[(&str, &str, &[&str], &str)]) -> String {
    store.write(|tx| {
        let company = tx.ensure_company("A")?;
        for (uid, path, attributes, text) in files {
            indexed(
                tx,
                &database_file(uid, &company, path),
                attributes,
                text,
                &[b"view"],
            )?;
        }
        Ok(company)
    })
}

/// The UIDs a filter finds, in its order, checked against the scan without indexes.
fn found(
    tx: &mut dyn StoreTx,
    company: &str,
    terms: &[FilterTerm],
) -> Result<Vec<String>, StoreError> {
    let indexed = tx.matching_database_files(company, terms)?;
    assert_eq!(
        indexed,
        tx.matching_database_files_by_scanning(company, terms)?,
        "{} {terms:?}",
        tx.engine()
    );
    Ok(indexed.into_iter().map(|candidate| candidate.uid).collect())
}

/// Two files of every kind of content a term looks at.
fn pump_and_bracket(store: &TestStore) -> String {
    filled(
        store,
        &[
            (
                "1",
                "Design/pump housing.png",
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
                &["document_number=BX-2000", "weight(kg)=12.3"],
                "Pump base",
            ),
        ],
    )
}

#[test]
fn every_term_form_matches_as_specified_and_as_the_scan_finds() {
    for store in stores() {
        let company = pump_and_bracket(&store);
        let parse = FilterTerm::parse;
        let text = |words: &str| FilterTerm::Text(words.into());
        store.read(|tx| {
            for (terms, expected) in [
                (vec![text("PUMP")], vec!["2", "1"]),
                (vec![text("pump iron")], vec!["1"]),
                (vec![text("gußeisen ärger")], vec!["1"]),
                (vec![text("\"off\"")], vec!["1"]),
                (vec![text("nothing-like-this")], vec![]),
                (vec![parse("Document_Number=ax-1")], vec!["1"]),
                (vec![parse("region=[us]")], vec!["1"]),
                (vec![parse("region=[U]")], vec![]),
                (vec![parse("document_number=BX-*")], vec!["2"]),
                (vec![parse("weight=12")], vec!["2"]),
                (vec![parse("weight(lb)=12")], vec![]),
                // Numeric ranges: both ends included, open ends, a value that is no number.
                (vec![parse("weight(kg)=12..13")], vec!["2"]),
                (vec![parse("weight=12,3..12,3")], vec!["2"]),
                (vec![parse("weight=..12.3")], vec!["2"]),
                (vec![parse("weight=12.4..")], vec![]),
                (vec![parse("document_number=0..9999")], vec![]),
                (vec![parse("region=[EU]"), text("cast")], vec!["1"]),
                // A word too short for the term index, on the files an attribute term lists.
                (vec![parse("document_number=*"), text("ba")], vec!["2"]),
                (vec![parse("region=[EU]"), parse("weight=12")], vec![]),
                (vec![], vec!["2", "1"]),
            ] {
                assert_eq!(
                    found(tx, &company, &terms)?,
                    expected,
                    "{} {terms:?}",
                    store.engine
                );
            }
            Ok(())
        });
    }
}

#[test]
fn a_models_size_is_filtered_by_its_extents() {
    for store in stores() {
        let company = store.write(|tx| {
            let company = tx.ensure_company("A")?;
            for (uid, extents) in [("flat", "40×20×2"), ("block", "40×30×20"), ("odd", "wide")]
            {
                let revision =
                    tx.upsert_file(&database_file(uid, &company, &format!("m/{uid}.stl")), "t")?;
                let outcome = IndexedContent {
                    extracted_attributes: vec![format!("bounding_box(mm)={extents}")],
                    pmi_json: "[]".into(),
                    ..IndexedContent::default()
                };
                tx.save_indexing(uid, revision, Some(&outcome), "t")?;
            }
            Ok(company)
        });
        store.read(|tx| {
            let parse = FilterTerm::parse;
            assert_eq!(found(tx, &company, &[parse("thickness=..3mm")])?, ["flat"]);
            assert_eq!(
                found(tx, &company, &[parse("length=3.9..4.1cm")])?,
                ["block", "flat"]
            );
            assert_eq!(
                found(tx, &company, &[parse("width=25..")])?,
                ["block"],
                "{}",
                store.engine
            );
            Ok(())
        });
    }
}

#[test]
fn the_index_follows_a_files_new_text_and_its_delete() {
    for store in stores() {
        let company = pump_and_bracket(&store);
        store.write(|tx| {
            let revision = tx.find_any_file("2")?.unwrap().revision;
            let outcome = IndexedContent {
                text: "completely different".into(),
                pmi_json: "[]".into(),
                ..IndexedContent::default()
            };
            assert!(tx.save_indexing("2", revision, Some(&outcome), "t")?);
            assert!(found(tx, &company, &[FilterTerm::Text("base".into())])?.is_empty());
            assert_eq!(
                found(tx, &company, &[FilterTerm::Text("ifferent".into())])?,
                ["2"]
            );
            tx.delete_file("2")?;
            assert!(found(tx, &company, &[FilterTerm::Text("ifferent".into())])?.is_empty());
            Ok(())
        });
    }
}

#[test]
fn search_inputs_and_files_not_indexed_are_never_found() {
    for store in stores() {
        let company = pump_and_bracket(&store);
        store.write(|tx| {
            let mut input = database_file("in", &company, "in.png");
            input.is_search_input = true;
            indexed(tx, &input, &[], "pump", &[b"v"])?;
            tx.upsert_file(&database_file("q", &company, "d/pump queued.png"), "t")?;
            tx.set_file_state("1", IndexState::Failed)?;
            // A failed file is found by what was read of it.
            assert_eq!(
                found(tx, &company, &[FilterTerm::Text("pump".into())])?,
                ["2", "1"]
            );
            Ok(())
        });
    }
}

#[test]
fn still_matching_checks_only_the_given_files() {
    for store in stores() {
        let company = filled(
            &store,
            &[
                ("1", "Design/a.png", &["region=EU"], ""),
                ("2", "Design/b.png", &["region=EU"], ""),
                ("3", "Design/c.png", &["region=US"], ""),
            ],
        );
        store.read(|tx| {
            let given = ["1", "3", "gone"].map(String::from);
            let terms = [FilterTerm::parse("region=[eu]")];
            assert_eq!(
                tx.still_matching(&company, &terms, &given)?,
                HashSet::from(["1".to_owned()]),
                "{}",
                store.engine
            );
            assert_eq!(
                tx.still_matching(&company, &[], &given)?,
                HashSet::from(["1".to_owned(), "3".to_owned()])
            );
            assert!(tx.still_matching("other", &[], &given)?.is_empty());
            assert!(tx.still_matching(&company, &terms, &[])?.is_empty());
            Ok(())
        });
    }
}

#[test]
fn a_filters_first_page_is_the_start_of_its_files_with_their_count() {
    for store in stores() {
        let files: Vec<(String, String)> = (0..30)
            .map(|n| {
                (
                    format!("{n:02}"),
                    format!("Parts/{} {n}.png", ["Bolt", "bolt", "nut"][n % 3]),
                )
            })
            .collect();
        let borrowed: Vec<(&str, &str, &[&str], &str)> = files
            .iter()
            .map(|(uid, path)| (uid.as_str(), path.as_str(), &["material=steel"][..], "part"))
            .collect();
        let company = filled(&store, &borrowed);
        store.read(|tx| {
            for terms in [
                vec![],
                vec![FilterTerm::Text("bolt".into())],
                vec![FilterTerm::parse("material=st*")],
            ] {
                let all = tx.matching_database_files(&company, &terms)?;
                let (first, total) = tx.first_matching_database_files(&company, &terms, 7)?;
                assert_eq!(total, all.len(), "{} {terms:?}", store.engine);
                assert_eq!(first, all[..7], "{} {terms:?}", store.engine);
            }
            Ok(())
        });
    }
}

#[test]
fn files_with_views_are_listed_and_a_broad_condition_is_told_from_the_indexes() {
    for store in stores() {
        let company = store.write(|tx| {
            let company = tx.ensure_company("A")?;
            for n in 0..11 {
                let material = if n == 10 {
                    "material=brass"
                } else {
                    "material=steel"
                };
                let views: &[&[u8]] = if n < 4 { &[b"view"] } else { &[] };
                indexed(
                    tx,
                    &database_file(&n.to_string(), &company, &format!("p/{n}.png")),
                    &[material],
                    "common words",
                    views,
                )?;
            }
            Ok(company)
        });
        store.read(|tx| {
            let steel = [FilterTerm::parse("material=[steel]")];
            let mut with_views = tx.matching_uids_with_views(&company, &steel)?;
            with_views.sort();
            assert_eq!(with_views, ["0", "1", "2", "3"], "{}", store.engine);
            assert_eq!(
                tx.some_matching_files_with_views(&company, &steel, 2)?
                    .len(),
                2
            );
            let broad = |tx: &mut dyn StoreTx, terms: &[FilterTerm], cap| {
                tx.one_condition_held_by_more_than(&company, terms, cap)
            };
            assert!(broad(tx, &steel, 9)?, "{}", store.engine);
            assert!(!broad(tx, &steel, 10)?, "held by 10");
            assert!(broad(tx, &[FilterTerm::parse("material=st*")], 9)?);
            assert!(broad(tx, &[FilterTerm::Text("COMMON".into())], 10)?);
            assert!(!broad(tx, &[FilterTerm::Text("common".into())], 11)?);
            // Not countable through the indexes alone, or not one condition.
            assert!(!broad(tx, &[FilterTerm::Text("co".into())], 1)?);
            assert!(!broad(tx, &[FilterTerm::parse("material=ee")], 1)?);
            assert!(!broad(
                tx,
                &[steel[0].clone(), FilterTerm::Text("common".into())],
                1
            )?);
            Ok(())
        });
    }
}

#[test]
fn every_change_a_filter_sees_moves_the_metadata_generation_and_nothing_else_does() {
    for store in stores() {
        let company = filled(
            &store,
            &[("1", "Design/a.png", &["material=steel"], "bolt")],
        );
        let generation = || store.read(|tx| tx.metadata_generation());
        let mut last = generation();
        let mut moved = |label: &str, now: i64| {
            assert!(
                now > last,
                "{}: {label} did not move the generation",
                store.engine
            );
            last = now;
        };
        store.write(|tx| {
            tx.replace_attributes(
                &company,
                "1",
                &[partlens_api::Attribute::parse("material=brass").unwrap()],
            )
        });
        moved("an attribute write", generation());
        store.write(|tx| tx.set_file_state("1", IndexState::Queued));
        moved("a file taken out of the indexed ones", generation());
        store.write(|tx| tx.upsert_file(&database_file("2", &company, "d/2.png"), "t"));
        moved("a file added", generation());
        store.write(|tx| tx.delete_file("2"));
        moved("a file deleted", generation());
        // Writes no filter looks at leave it alone.
        store.write(|tx| {
            tx.ensure_company("Other")?;
            tx.add_client("cli")
        });
        assert_eq!(generation(), last, "{}", store.engine);
    }
}
