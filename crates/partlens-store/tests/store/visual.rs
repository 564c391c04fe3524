//! The visual journal and the stored views the visual index is built from, alike on both engines.

use std::ops::ControlFlow;

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
            assert_eq!(tx.visual_view_counts()?, vec![(company.clone(), 6)]);
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
