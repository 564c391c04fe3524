//! The visual journal and the stored views the visual index is built from, alike on both engines.

use std::ops::ControlFlow;

use partlens_store::StoreError;
use partlens_store::model::IndexState;

use crate::support::{database_file, indexed, stores};

#[test]
fn every_change_to_searched_views_is_journalled_and_the_views_are_read_a_file_at_a_time() {
    for store in stores() {
        let company = store.write(|tx| tx.ensure_company("A"));
        let start = store.read(|tx| tx.visual_position());
        store.write(|tx| {
            for (uid, views) in [("b", 1_u8), ("a", 3), ("c", 2)] {
                let views: Vec<Vec<u8>> = (0..views).map(|view| vec![view]).collect();
                let views: Vec<&[u8]> = views.iter().map(Vec::as_slice).collect();
                indexed(
                    tx,
                    &database_file(uid, &company, &format!("d/{uid}.png")),
                    &[],
                    "",
                    &views,
                )?;
            }
            Ok(())
        });
        store.read(|tx| {
            let mut changed: Vec<String> = tx
                .visual_changes_since(start)?
                .into_iter()
                .map(|(uid, _)| uid)
                .collect();
            changed.sort();
            changed.dedup();
            assert_eq!(changed, ["a", "b", "c"], "{}", store.engine);
            let (owner, views) = tx.searched_views("a")?.unwrap();
            assert_eq!(owner, company);
            assert_eq!(views, vec![vec![0], vec![1], vec![2]]);
            assert_eq!(
                tx.visual_view_counts(usize::MAX)?,
                vec![(company.clone(), 6)]
            );
            assert_eq!(
                tx.visual_view_counts(4)?,
                vec![(company.clone(), 4)],
                "counted up to the cap"
            );
            assert_eq!(
                tx.visual_view_counts(0)?,
                vec![(company.clone(), 1)],
                "a company with views is listed whatever the cap"
            );
            let mut seen = Vec::new();
            tx.for_each_searched_file(&company, &mut |uid, views| {
                seen.push((uid, views.len()));
                ControlFlow::Continue(())
            })?;
            assert_eq!(
                seen,
                [
                    ("a".to_owned(), 3),
                    ("b".to_owned(), 1),
                    ("c".to_owned(), 2)
                ],
                "{}",
                store.engine
            );
            Ok(())
        });
        // A delete (its views go with it) and a state change are journalled; neither file is
        // searched any more.
        let before = store.read(|tx| tx.visual_position());
        store.write(|tx| {
            tx.delete_file("a")?;
            tx.set_file_state("b", IndexState::Failed)
        });
        store.read(|tx| {
            let mut changed: Vec<String> = tx
                .visual_changes_since(before)?
                .into_iter()
                .map(|(uid, _)| uid)
                .collect();
            changed.sort();
            changed.dedup();
            assert_eq!(changed, ["a", "b"], "{}", store.engine);
            assert!(tx.searched_views("a")?.is_none());
            assert!(tx.searched_views("b")?.is_none());
            Ok(())
        });
    }
}

#[test]
fn the_journal_forgotten_up_to_a_position_says_so() {
    for store in stores() {
        store.write(|tx| {
            let company = tx.ensure_company("A")?;
            for uid in ["a", "b"] {
                indexed(
                    tx,
                    &database_file(uid, &company, &format!("d/{uid}.png")),
                    &[],
                    "",
                    &[b"v"],
                )?;
            }
            Ok(())
        });
        store.write(|tx| {
            let last = tx.visual_position()?;
            assert!(last > 1, "{}", store.engine);
            assert!(tx.forget_visual_changes_through(last - 1)? > 0);
            assert_eq!(tx.visual_trimmed_through()?, last - 1, "{}", store.engine);
            assert_eq!(tx.visual_changes_since(0)?.len(), 1);
            tx.forget_visual_changes_through(last)?;
            assert!(tx.visual_changes_since(0)?.is_empty());
            // Forgotten whole, the journal still knows where it ended.
            assert_eq!(tx.visual_position()?, last, "{}", store.engine);
            assert_eq!(tx.visual_trimmed_through()?, last);
            Ok(())
        });
    }
}

/// The features of a real picture's view as a query vector, with its stored bytes.
pub(crate) fn picture_view(seed: u32) -> (Vec<f32>, Vec<u8>) {
    let png = partlens_testkit::service::png(partlens_testkit::service::Shape::Disc, seed);
    let analysis = partlens_engine::analyze(".png", &png).unwrap();
    let view = &analysis.views[0];
    let vector = view
        .features()
        .iter()
        .map(|&value| f32::from(value))
        .collect();
    (vector, view.to_bytes())
}

#[test]
fn a_bulk_load_writes_the_views_vectors_at_its_end_and_a_large_one_builds_the_index_once() {
    let (vector, bytes) = picture_view(7);
    for store in stores() {
        let company = store.write(|tx| tx.ensure_company("Acme"));
        let nearest =
            || store.read(|tx| tx.nearest_view_files(&company, std::slice::from_ref(&vector), 10));
        let write = |uid: &str| {
            store.write(|tx| {
                indexed(
                    tx,
                    &database_file(uid, &company, &format!("Parts/{uid}.png")),
                    &[],
                    "",
                    &[&bytes],
                )
            })
        };
        // A small load: the files' vectors are left to its end (the index is not found holding
        // them meanwhile), then filled in; the index stays.
        let ((), done) = store
            .store
            .bulk_load_blocking(2, || -> Result<(), StoreError> {
                write("f1");
                write("f2");
                if store.engine == "PostgreSQL" {
                    assert_eq!(nearest(), Some(Vec::new()), "deferred to the end");
                }
                Ok(())
            })
            .unwrap();
        assert!(!done.index_dropped, "{}", store.engine);
        assert_eq!(done.index_build, None, "{}", store.engine);
        if store.engine == "SQLite" {
            assert_eq!(done.files_filled, 0);
            assert_eq!(nearest(), None, "SQLite has no vector index");
            continue;
        }
        assert_eq!(done.files_filled, 2);
        let mut found = nearest().unwrap();
        found.sort();
        assert_eq!(found, ["f1", "f2"]);
        // A large load (by the views it announces) drops the index and builds it once at its
        // end; a file written after it keeps the index row by row again.
        let ((), done) = store
            .store
            .bulk_load_blocking(60_000, || -> Result<(), StoreError> {
                write("f3");
                Ok(())
            })
            .unwrap();
        assert!(done.index_dropped);
        assert_eq!(done.files_filled, 1);
        assert!(done.index_build.is_some());
        write("f4");
        let mut found = nearest().unwrap();
        found.sort();
        assert_eq!(found, ["f1", "f2", "f3", "f4"]);
        // Several vectors in one statement: each file once, a vector of another length left out.
        let asked = [vec![1.0; 3], vector.clone(), vector.clone()];
        let mut found = store
            .read(|tx| tx.nearest_view_files(&company, &asked, 10))
            .unwrap();
        found.sort();
        assert_eq!(found, ["f1", "f2", "f3", "f4"]);
        // Each vector's nearest, in the order asked, whichever connection asked it (past the
        // first, beside the search's own transaction).
        let (other, other_bytes) = picture_view(8);
        store.write(|tx| {
            indexed(
                tx,
                &database_file("g", &company, "Parts/g.png"),
                &[],
                "",
                &[&other_bytes],
            )
        });
        let asked = [other.clone(), vector.clone(), other.clone(), vector.clone()];
        let found = store
            .read(|tx| tx.nearest_view_files(&company, &asked, 1))
            .unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0], "g");
        assert!(found[1].starts_with('f'), "{found:?}");
    }
}
