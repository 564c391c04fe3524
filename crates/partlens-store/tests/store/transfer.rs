//! A SQLite data directory's records copied into a PostgreSQL store: every described table, the
//! counts of both sides, a second run writing nothing, and a target of another team refused.

use partlens_store::model::{IndexState, NewContent};
use partlens_store::{Store, StoreError};

use crate::support::{database_file, indexed, postgres};

/// Writes a company with a user, a token, an indexed file with attributes and views, a file
/// left in progress and a feedback into the SQLite store of `dir`.
fn fill_source(dir: &std::path::Path) {
    let store = Store::open_blocking(dir).unwrap();
    store
        .write_tx_blocking(|tx| -> Result<(), StoreError> {
            let company = tx.ensure_company("Acme")?;
            tx.upsert_user(&company, "ann", "hash", true)?;
            let (user, _) = tx.login_of("ann")?.unwrap();
            tx.insert_token("token", user, "partlens", i64::MAX, 0)?;
            tx.secret("images", &mut || vec![7; 32])?;
            indexed(
                tx,
                &database_file("f1", &company, "Parts/flange.png"),
                &["material=steel|brass", "weight(kg)=2"],
                "flange bolt circle",
                &[b"v1", b"v2"],
            )?;
            let waiting = NewContent {
                state: IndexState::Queued,
                ..database_file("f2", &company, "Parts/shaft.png")
            };
            tx.upsert_file(&waiting, "t")?;
            tx.enqueue_job("f2", "t")?;
            tx.set_file_state("f2", IndexState::InProgress)?;
            tx.save_feedback(
                &partlens_store::model::Feedback {
                    id: "fb".into(),
                    file_uid: "f1".into(),
                    company_id: company,
                    user_id: user,
                    external_user: String::new(),
                    feedback: "ok".into(),
                    attributes: vec!["material=steel".into()],
                },
                "t",
            )?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn every_table_is_copied_counted_and_read_back_and_a_second_run_writes_nothing() {
    let Some(target) = postgres() else {
        return;
    };
    let source = tempfile::tempdir().unwrap();
    fill_source(source.path());
    let mut lines = Vec::new();
    let counts = target
        .store
        .copy_from_sqlite_blocking(source.path(), &mut |line| lines.push(line))
        .unwrap();
    for count in &counts {
        assert_eq!(count.source, count.target, "{count:?}");
    }
    let held = |table: &str| {
        counts
            .iter()
            .find(|count| count.table == table)
            .unwrap()
            .source
    };
    assert_eq!(held("views"), 2);
    assert_eq!(held("attribute_values"), 3);
    assert_eq!(held("jobs"), 1);
    assert!(
        lines.iter().any(|line| line.starts_with("files: ")),
        "{lines:?}"
    );
    target.read(|tx| {
        let caller = tx.caller_of_token("token", 1)?.unwrap();
        assert!(caller.admin);
        let record = tx.find_file(&caller.company_id, "f1")?.unwrap();
        assert_eq!(record.state, IndexState::Completed);
        assert_eq!(tx.views_of("f1")?, vec![b"v1".to_vec(), b"v2".to_vec()]);
        assert_eq!(
            tx.attribute_texts_of("f1")?,
            ["material=steel|brass", "weight(kg)=2"]
        );
        // Free text and attributes are searched on the copy (its term index filled in).
        let found = tx.matching_database_files(
            &caller.company_id,
            &[partlens_api::FilterTerm::Text("bolt".into())],
        )?;
        assert_eq!(found.len(), 1);
        // A file left in progress waits in the queue there.
        assert_eq!(tx.find_any_file("f2")?.unwrap().state, IndexState::Queued);
        Ok(())
    });
    // New rows made in the target get ids past the copied ones (another company's, which the
    // counts leave out).
    target.write(|tx| {
        let company = tx.ensure_company("Globex")?;
        tx.upsert_user(&company, "bob", "h", false)?;
        Ok(())
    });
    let again = target
        .store
        .copy_from_sqlite_blocking(source.path(), &mut |_| {})
        .unwrap();
    assert_eq!(again, counts, "a second run changes no count");
}

#[test]
fn a_target_holding_another_teams_company_of_that_name_is_refused_with_nothing_copied() {
    let Some(target) = postgres() else {
        return;
    };
    target.write(|tx| tx.ensure_company("acme"));
    let source = tempfile::tempdir().unwrap();
    fill_source(source.path());
    let refused = target
        .store
        .copy_from_sqlite_blocking(source.path(), &mut |_| {});
    match refused {
        Err(StoreError::Refused(sentence)) => {
            assert!(sentence.contains("company Acme"), "{sentence}");
            assert!(sentence.contains("nothing was copied"), "{sentence}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(target.read(|tx| tx.find_any_file("f1")).is_none());
    // Nor is a SQLite store a target, nor a folder without a database a source.
    let sqlite = crate::support::sqlite();
    assert!(matches!(
        sqlite
            .store
            .copy_from_sqlite_blocking(source.path(), &mut |_| {}),
        Err(StoreError::Refused(_))
    ));
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(
        target
            .store
            .copy_from_sqlite_blocking(empty.path(), &mut |_| {}),
        Err(StoreError::Refused(_))
    ));
}
