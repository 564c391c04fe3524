//! A bulk load's batch (`write_loaded_files`: set-based on PostgreSQL) against the same files
//! written one by one as the service saves an upload: two databases of each engine, and
//! everything the store answers about them compared (records, attributes and their names, search
//! by text and by attribute, the counts the broad-filter hint reads, the visual rows and journal,
//! the metadata generation, the vectors' index).

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use partlens_api::{Attribute, FilterTerm};
use partlens_store::model::{IndexedContent, LoadedFile};
use partlens_store::{StoreError, StoreTx};

use crate::support::{TestStore, database_file, postgres, sqlite};
use crate::visual::picture_view;

const NOW: &str = "2026-01-01T00:00:00Z";

/// A loaded file `uid` of `company` at `path` with saved `attributes`, extracted `text` and
/// attribute texts, and `views`.
fn loaded(
    company: &str,
    uid: &str,
    path: &str,
    attributes: &[&str],
    text: &str,
    extracted: &[&str],
    views: &[Vec<u8>],
) -> LoadedFile {
    LoadedFile {
        content: database_file(uid, company, path),
        attributes: attributes
            .iter()
            .map(|text| Attribute::parse(text).unwrap())
            .collect(),
        indexed: IndexedContent {
            views: views.to_vec(),
            text: text.into(),
            extracted_attributes: extracted.iter().map(|text| (*text).to_owned()).collect(),
            pmi_json: "[]".into(),
            ..IndexedContent::default()
        },
    }
}

/// The batch: models and pictures with attributes (one multi-valued, one name spelt twice),
/// extracted attributes, a file without views, a search input (the first four new), then a file
/// stored before the batch, a UID given again (both overwrites) and a new one given twice.
fn batch(company: &str, views: &[Vec<u8>]) -> Vec<LoadedFile> {
    let mut input = loaded(company, "e", "Inputs/e.png", &[], "query", &[], &views[..1]);
    input.content.is_search_input = true;
    vec![
        loaded(
            company,
            "a",
            "Parts/Bracket A.png",
            &["supplier=Acme", "material=steel"],
            "Bracket common",
            &["mass(kg)=2.5"],
            &views[..2],
        ),
        loaded(
            company,
            "b",
            "Parts/Plate B.png",
            &["Supplier=Bolt Co", "colour=red|blue"],
            "plate common",
            &[],
            &views[1..3],
        ),
        loaded(
            company,
            "c",
            "Parts/c.txt",
            &["supplier=Acme"],
            "common text only",
            &[],
            &[],
        ),
        input,
        loaded(
            company,
            "old",
            "Parts/old.png",
            &["material=brass"],
            "again",
            &[],
            &views[2..],
        ),
        loaded(
            company,
            "a",
            "Parts/Bracket A2.png",
            &["supplier=Acme", "colour=red"],
            "Bracket second common",
            &[],
            &views[..1],
        ),
        loaded(
            company,
            "f",
            "Parts/f.png",
            &["colour=red"],
            "",
            &[],
            &views[3..],
        ),
        loaded(
            company,
            "f",
            "Parts/f.png",
            &["colour=blue"],
            "",
            &[],
            &views[3..],
        ),
    ]
}

/// Writes `file` as the service saves an upload indexed during the call.
fn one_by_one(tx: &mut dyn StoreTx, file: &LoadedFile) -> Result<(), StoreError> {
    let content = &file.content;
    let revision = tx.upsert_file(content, NOW)?;
    tx.replace_attributes(&content.company_id, &content.uid, &file.attributes)?;
    assert!(tx.save_indexing(&content.uid, revision, Some(&file.indexed), NOW)?);
    Ok(())
}

/// Everything the store answers about the company's files, as text to compare.
fn answers(store: &TestStore, company: &str, query: &[f32]) -> Vec<String> {
    store.read(|tx| {
        let uids: Vec<String> = ["a", "b", "c", "e", "f", "old"].map(String::from).to_vec();
        let mut said = vec![format!("{:?}", tx.find_files(company, &uids)?)];
        let texts: std::collections::BTreeMap<_, _> =
            tx.attribute_texts_of_files(&uids)?.into_iter().collect();
        said.push(format!("{texts:?}"));
        let names: Vec<_> = tx
            .company_attribute_names(company)?
            .into_iter()
            .map(|name| (name.name, name.unit, name.single_value, name.custom))
            .collect();
        said.push(format!("{names:?}"));
        for name in ["supplier", "colour", "material", "mass"] {
            said.push(format!(
                "{:?}",
                tx.attribute_value_counts(company, name, None)?
            ));
        }
        let filters = [
            vec![FilterTerm::Text("common".into())],
            vec![FilterTerm::Text("racke".into())],
            vec![FilterTerm::Text("query".into())],
            vec![FilterTerm::parse("supplier=[acme]")],
            vec![FilterTerm::parse("colour=[red]")],
            vec![FilterTerm::parse("supplier=bo*")],
            vec![FilterTerm::Text("mass(kg)".into())],
        ];
        for terms in &filters {
            let found = tx.matching_database_files(company, terms)?;
            assert_eq!(
                found,
                tx.matching_database_files_by_scanning(company, terms)?
            );
            let counted: Vec<bool> = (0..4)
                .map(|cap| tx.one_condition_held_by_more_than(company, terms, cap))
                .collect::<Result<_, _>>()?;
            // A search without inputs: its first page and its count (the shown rows' counts).
            let first = tx.first_matching_database_files(company, terms, 1)?;
            said.push(format!("{terms:?}: {found:?} {counted:?} {first:?}"));
            let mut with_views = tx.matching_uids_with_views(company, terms)?;
            with_views.sort();
            said.push(format!("{with_views:?}"));
        }
        let changed: BTreeSet<String> = tx
            .visual_changes_since(0)?
            .into_iter()
            .map(|(uid, _)| uid)
            .collect();
        said.push(format!("journal {changed:?}"));
        said.push(format!("{:?}", tx.visual_view_counts(usize::MAX)?));
        let mut searched = Vec::new();
        tx.for_each_searched_file(company, &mut |uid, views| {
            searched.push((uid, views));
            ControlFlow::Continue(())
        })?;
        said.push(format!("{searched:?}"));
        let mut nearest = tx.nearest_view_files(company, &[query.to_vec()], 10)?;
        if let Some(found) = nearest.as_mut() {
            found.sort();
        }
        said.push(format!("nearest {nearest:?}"));
        Ok(said)
    })
}

#[test]
fn a_batch_written_at_once_answers_as_the_same_files_written_one_by_one() {
    let views: Vec<Vec<u8>> = (1..=4).map(|seed| picture_view(seed).1).collect();
    let query = picture_view(1).0;
    let pairs = [Some((sqlite(), sqlite())), postgres().zip(postgres())];
    for (by_file, at_once) in pairs.into_iter().flatten() {
        let engine = by_file.engine;
        let mut generations = Vec::new();
        let mut companies = Vec::new();
        for (store, batched) in [(&by_file, false), (&at_once, true)] {
            let company = store.write(|tx| tx.ensure_company("A"));
            let files = batch(&company, &views);
            // A file stored before the batch (`old`), the same way in both.
            store.write(|tx| one_by_one(tx, &files[4]));
            // New files only, then files stored before (`old`) or earlier in the batch (`a`).
            for part in [&files[..4], &files[4..]] {
                let before = store.read(|tx| tx.metadata_generation());
                if batched {
                    // In a bulk load, as the bench loads: vectors filled in at its end.
                    let ((), _) = store
                        .store
                        .bulk_load_blocking(part.len(), || -> Result<(), StoreError> {
                            store.write(|tx| tx.write_loaded_files(part, NOW));
                            Ok(())
                        })
                        .unwrap();
                } else {
                    store.write(|tx| part.iter().try_for_each(|file| one_by_one(tx, file)));
                }
                generations.push(store.read(|tx| tx.metadata_generation()) > before);
            }
            companies.push(company);
        }
        assert_eq!(generations, [true; 4], "{engine}: the generation moves");
        let expected = answers(&by_file, &companies[0], &query);
        let found = answers(&at_once, &companies[1], &query);
        assert_eq!(expected.len(), found.len());
        for (expected, found) in expected.iter().zip(&found) {
            // The companies' ids differ between the two databases.
            let found = found.replace(&companies[1], &companies[0]);
            assert_eq!(*expected, found, "{engine}");
        }
        if engine == "PostgreSQL" {
            assert!(
                expected
                    .iter()
                    .any(|line| line.starts_with("nearest Some(["))
            );
        }
    }
}

#[test]
fn a_batch_too_large_is_refused_and_writes_nothing() {
    let Some(store) = postgres() else {
        return;
    };
    let company = store.write(|tx| tx.ensure_company("A"));
    let files: Vec<LoadedFile> = (0..10_001)
        .map(|n| {
            loaded(
                &company,
                &format!("f{n}"),
                &format!("p/{n}.png"),
                &[],
                "",
                &[],
                &[],
            )
        })
        .collect();
    let refused = store
        .store
        .write_tx_blocking(|tx| tx.write_loaded_files(&files, NOW));
    let Err(StoreError::Refused(message)) = refused else {
        panic!("{refused:?}");
    };
    assert!(message.contains("smaller batches"), "{message}");
    assert!(store.read(|tx| tx.find_any_file("f0")).is_none());
}
