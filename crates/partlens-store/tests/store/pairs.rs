//! Candidate duplicates: a file's pairs replaced as a whole, read for a company above a score
//! between indexed files only, forgotten from both sides when a file is indexed again, gone with
//! either file; the marks that say which files are paired, and the backfill's list of the others;
//! alike on both engines.

use partlens_store::model::FilePair;

use crate::support::{database_file, indexed, stores};

fn pair(file: &str, other: &str, score: f32) -> FilePair {
    FilePair {
        file_uid: file.into(),
        other_uid: other.into(),
        score,
    }
}

/// The pairs of `company` at `min_score`, as (file, other, score to the thousandth), sorted.
fn pairs_at(
    tx: &mut dyn partlens_store::StoreTx,
    company: &str,
    min_score: f32,
) -> Vec<(String, String, i64)> {
    let mut found: Vec<(String, String, i64)> = tx
        .pairs_of_company(company, min_score)
        .unwrap()
        .into_iter()
        .map(|p| (p.file_uid, p.other_uid, (p.score * 1000.0).round() as i64))
        .collect();
    found.sort();
    found
}

#[test]
fn pairs_are_kept_a_file_at_a_time_read_above_a_score_and_go_with_either_file() {
    for store in stores() {
        let engine = store.engine;
        store.write(|tx| {
            let company = tx.ensure_company("Acme")?;
            let other_company = tx.ensure_company("Globex")?;
            for uid in ["a", "b", "c", "d"] {
                let file = database_file(uid, &company, &format!("p/{uid}.png"));
                indexed(tx, &file, &[], "", &[b"view"])?;
            }
            let textual = database_file("t", &company, "p/t.png");
            indexed(tx, &textual, &[], "words", &[])?;
            let elsewhere = database_file("g", &other_company, "p/g.png");
            indexed(tx, &elsewhere, &[], "", &[b"view"])?;
            // Nothing paired yet: every indexed file with views is the backfill's, in UID order.
            assert_eq!(tx.unpaired_files(1, "", 10)?, ["a", "b", "c", "d", "g"]);
            assert_eq!(tx.unpaired_files(1, "b", 2)?, ["c", "d"]);
            assert_eq!(tx.unpaired_file_count(1)?, 5, "{engine}");

            tx.save_pairs(
                "a",
                &company,
                1,
                &[pair("a", "b", 0.95), pair("a", "c", 0.5)],
            )?;
            tx.save_pairs("b", &company, 1, &[pair("b", "a", 0.96)])?;
            tx.save_pairs("d", &company, 1, &[])?;
            assert_eq!(tx.unpaired_files(1, "", 10)?, ["c", "g"], "{engine}");
            // Another version of the pairing pairs every file again.
            assert_eq!(tx.unpaired_file_count(2)?, 5, "{engine}");
            assert_eq!(tx.paired_file_count(&company, 1)?, 3, "{engine}");
            assert_eq!(tx.paired_file_count(&other_company, 1)?, 0, "{engine}");
            assert_eq!(
                pairs_at(tx, &company, 0.9),
                [("a".into(), "b".into(), 950), ("b".into(), "a".into(), 960)],
                "{engine}"
            );
            assert_eq!(pairs_at(tx, &company, 0.0).len(), 3, "{engine}");
            assert!(pairs_at(tx, &other_company, 0.0).is_empty());

            // Replaced as a whole.
            tx.save_pairs("a", &company, 1, &[pair("a", "d", 0.91)])?;
            assert_eq!(
                pairs_at(tx, &company, 0.0),
                [("a".into(), "d".into(), 910), ("b".into(), "a".into(), 960)],
                "{engine}"
            );
            // A file not indexed (being indexed again) is in no pair that is read.
            tx.set_file_state("d", partlens_store::model::IndexState::InProgress)?;
            assert_eq!(pairs_at(tx, &company, 0.0).len(), 1, "{engine}");
            assert_eq!(tx.paired_file_count(&company, 1)?, 2, "{engine}");
            // Its views changed: its pairs go, from both sides, and its mark.
            tx.forget_pairs("a")?;
            assert!(pairs_at(tx, &company, 0.0).is_empty(), "{engine}");
            assert_eq!(tx.unpaired_files(1, "", 10)?, ["a", "c", "g"], "{engine}");

            // Deleted: its pairs go from both sides with it.
            tx.save_pairs("c", &company, 1, &[pair("c", "b", 0.99)])?;
            tx.save_pairs("b", &company, 1, &[pair("b", "c", 0.98)])?;
            assert_eq!(pairs_at(tx, &company, 0.0).len(), 2, "{engine}");
            tx.delete_file("c")?;
            assert!(pairs_at(tx, &company, 0.0).is_empty(), "{engine}");
            assert_eq!(tx.paired_file_count(&company, 1)?, 1, "{engine}");
            Ok(())
        });
    }
}
