//! File records: written, overwritten, indexed or failed, found, deleted; alike on both engines.

use partlens_store::model::{IndexState, IndexedContent, IndexingFailure, NewContent};

use crate::support::{database_file, stores};

#[test]
fn a_record_is_found_by_uid_and_path_and_an_overwrite_bumps_its_revision() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            let content = NewContent {
                callback_param: Some("cb".into()),
                text_only: false,
                ..database_file("a", &company, "Design/Pump.PNG")
            };
            assert_eq!(tx.upsert_file(&content, "2026-01-01T00:00:00Z")?, 1);
            let record = tx.find_file(&company, "a")?.unwrap();
            assert_eq!(record.stored_path, "Design/Pump.PNG");
            assert_eq!(record.display_name, "Pump.PNG");
            assert_eq!(record.state, IndexState::InProgress);
            assert_eq!(record.size, 2000);
            assert!(!record.is_search_input);
            assert_eq!(tx.find_file("another", "a")?, None, "{}", store.engine);
            assert_eq!(tx.find_any_file("a")?, Some(record.clone()));
            assert_eq!(
                tx.find_file_by_path(&company, "design/pump.png")?,
                Some(record),
                "{}: paths are compared case-insensitively",
                store.engine
            );
            // An overwrite by another user keeps the uploader, bumps the revision and clears
            // what indexing learned.
            let revision = tx.upsert_file(
                &NewContent {
                    owner_user_id: 2,
                    ..database_file("a", &company, "Design/Pump.PNG")
                },
                "2026-01-02T00:00:00Z",
            )?;
            assert_eq!(revision, 2);
            let record = tx.find_file(&company, "a")?.unwrap();
            assert_eq!(record.owner_user_id, 1, "{}", store.engine);
            assert_eq!(record.uploaded_at, "2026-01-02T00:00:00Z");
            Ok(())
        });
    }
}

#[test]
fn indexing_is_saved_only_for_the_revision_indexed_and_a_failure_keeps_what_was_read() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            let revision = tx.upsert_file(&database_file("a", &company, "d/a.png"), "t")?;
            let outcome = IndexedContent {
                views: vec![vec![1, 2], vec![3]],
                text: "flange".into(),
                extracted_attributes: vec!["Width_px=128".into()],
                pmi_json: "[{}]".into(),
                has_thumbnail: true,
                has_large_image: false,
                pages_json: r#"[{"number":1},{"number":2}]"#.into(),
            };
            assert!(!tx.save_indexing("a", revision + 1, Some(&outcome), "now")?);
            assert!(!tx.save_indexing("gone", 1, Some(&outcome), "now")?);
            assert!(tx.save_indexing("a", revision, Some(&outcome), "now")?);
            let record = tx.find_any_file("a")?.unwrap();
            assert_eq!(record.state, IndexState::Completed, "{}", store.engine);
            assert_eq!(record.indexed_at.as_deref(), Some("now"));
            assert_eq!(record.extracted_attributes, ["Width_px=128"]);
            assert_eq!(record.pmi_json, "[{}]");
            assert_eq!(record.pages_json, r#"[{"number":1},{"number":2}]"#);
            assert!(record.has_thumbnail && !record.has_large_image);
            assert_eq!(tx.views_of("a")?, vec![vec![1, 2], vec![3]]);
            assert_eq!(tx.views_at("a", &[1, 7, 0])?, vec![vec![3], vec![1, 2]]);

            let failure = IndexingFailure {
                reason: "the model has no faces".into(),
                text: "partly read".into(),
                extracted_attributes: vec!["layers=3".into()],
            };
            assert!(tx.save_failed_indexing("a", revision, &failure)?);
            let record = tx.find_any_file("a")?.unwrap();
            assert_eq!(record.state, IndexState::Failed, "{}", store.engine);
            assert_eq!(
                record.failure_reason.as_deref(),
                Some("the model has no faces")
            );
            assert_eq!(record.text, "partly read");
            assert_eq!(record.extracted_attributes, ["layers=3"]);
            assert_eq!(record.indexed_at, None);
            assert!(!record.has_thumbnail);
            assert_eq!(
                record.pages_json, "[]",
                "{}: a failed file has no pages",
                store.engine
            );
            assert!(tx.views_of("a")?.is_empty());
            // Without an outcome, the failure says the service failed.
            assert!(tx.save_indexing("a", revision, None, "now")?);
            assert_eq!(
                tx.find_any_file("a")?.unwrap().failure_reason.as_deref(),
                Some("the service failed while indexing the file")
            );
            Ok(())
        });
    }
}

#[test]
fn several_records_come_in_the_order_asked_and_a_delete_takes_everything_of_a_file() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            for uid in ["a", "b", "c"] {
                tx.upsert_file(&database_file(uid, &company, &format!("d/{uid}.png")), "t")?;
            }
            let asked = ["c", "gone", "a", "c"].map(String::from);
            let found: Vec<String> = tx
                .find_files(&company, &asked)?
                .into_iter()
                .map(|record| record.uid)
                .collect();
            assert_eq!(found, ["c", "a", "c"], "{}", store.engine);
            assert!(tx.delete_file("b")?);
            assert!(!tx.delete_file("b")?);
            assert!(tx.find_any_file("b")?.is_none());
            Ok(())
        });
    }
}

#[test]
fn expired_search_inputs_are_listed_oldest_first() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            for (uid, at) in [
                ("new", "2026-01-03"),
                ("old", "2026-01-01"),
                ("mid", "2026-01-02"),
            ] {
                let input = NewContent {
                    is_search_input: true,
                    ..database_file(uid, &company, &format!("{uid}.png"))
                };
                tx.upsert_file(&input, at)?;
            }
            tx.upsert_file(&database_file("kept", &company, "d/kept.png"), "2026-01-01")?;
            assert_eq!(
                tx.expired_search_inputs("2026-01-02T12", 10)?,
                ["old", "mid"],
                "{}",
                store.engine
            );
            assert_eq!(tx.expired_search_inputs("2026-01-04", 1)?, ["old"]);
            Ok(())
        });
    }
}
