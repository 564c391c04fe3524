//! The visual journal and the stored views on SQLite (schema step 3). The journal
//! (`visual_changes`) is written by triggers whenever a view is stored or removed or a file's
//! state, role or company changes, in the same transaction as the change; it is read by the one
//! process that owns the database, so it records no company and is forgotten only past what every
//! saved graph holds.

use rusqlite::{OptionalExtension, params};

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::VisualChange;
use crate::model::visual::{EachSearchedFile, by_file};
use crate::traits::VisualTx;

/// The condition a file must meet to be searched visually (its alias in queries is `f`).
const SEARCHED: &str = "f.is_search_input = 0 AND f.state = 'completed'";

impl VisualTx for SqliteTx<'_> {
    /// The last number `AUTOINCREMENT` handed out (it never hands one out twice, and remembers
    /// it when every row is forgotten).
    fn visual_position(&mut self) -> Result<i64, StoreError> {
        Ok(self.0.query_row(
            "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'visual_changes'), 0)",
            [],
            |row| row.get(0),
        )?)
    }

    /// The rows before the first one held were forgotten.
    fn visual_trimmed_through(&mut self) -> Result<i64, StoreError> {
        Ok(self.0.query_row(
            "SELECT coalesce((SELECT min(seq) - 1 FROM visual_changes),
                             (SELECT seq FROM sqlite_sequence WHERE name = 'visual_changes'),
                             0)",
            [],
            |row| row.get(0),
        )?)
    }

    fn visual_changes_since(&mut self, after: i64) -> Result<Vec<VisualChange>, StoreError> {
        let mut statement = self
            .0
            .prepare_cached("SELECT DISTINCT file_uid FROM visual_changes WHERE seq > ?1")?;
        let uids = statement
            .query_map([after], |row| Ok((row.get(0)?, None)))?
            .collect::<rusqlite::Result<Vec<VisualChange>>>()?;
        Ok(uids)
    }

    fn searched_company(&mut self, uid: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .prepare_cached(&format!(
                "SELECT f.company_id FROM files f WHERE f.uid = ?1 AND {SEARCHED}"
            ))?
            .query_row([uid], |row| row.get(0))
            .optional()?)
    }

    fn visual_view_counts(&mut self, at_most: usize) -> Result<Vec<(String, usize)>, StoreError> {
        // Each company's views counted through its files, stopping at `at_most`.
        let mut statement = self.0.prepare(&format!(
            "SELECT id, views FROM (
                 SELECT c.id AS id, (SELECT count(*) FROM (
                     SELECT 1 FROM files f JOIN views v ON v.file_uid = f.uid
                     WHERE f.company_id = c.id AND {SEARCHED} LIMIT ?1)) AS views
                 FROM companies c)
             WHERE views > 0 ORDER BY id"
        ))?;
        // At least one: a company with views is listed whatever the cap (a cap of 0 left every
        // company out, and a start then discarded their saved graphs).
        let at_most = i64::try_from(at_most.max(1)).unwrap_or(i64::MAX);
        let counts = statement
            .query_map(params![at_most], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?.max(0) as usize,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(counts)
    }

    fn for_each_searched_file(
        &mut self,
        company: &str,
        each: &mut EachSearchedFile<'_>,
    ) -> Result<(), StoreError> {
        let mut statement = self.0.prepare(&format!(
            "SELECT v.file_uid, v.descriptor FROM files f JOIN views v ON v.file_uid = f.uid
             WHERE f.company_id = ?1 AND {SEARCHED}
             ORDER BY v.file_uid, v.position"
        ))?;
        let rows = statement.query_map(params![company], |row| Ok((row.get(0)?, row.get(1)?)))?;
        by_file(rows.map(|row| row.map_err(StoreError::from)), each)
    }

    fn forget_visual_changes_through(&mut self, position: i64) -> Result<u64, StoreError> {
        Ok(self
            .0
            .execute("DELETE FROM visual_changes WHERE seq <= ?1", [position])? as u64)
    }

    fn forget_visual_changes_older_than(&mut self, _seconds: i64) -> Result<u64, StoreError> {
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use crate::model::{IndexState, IndexedContent, NewContent};
    use crate::sqlite::{in_memory, tx};
    use crate::traits::{AccountsTx, FilesTx, VisualTx};

    fn record(uid: &str, company: &str) -> NewContent {
        NewContent {
            uid: uid.into(),
            company_id: company.into(),
            owner_user_id: 1,
            is_search_input: false,
            stored_path: format!("D/{uid}.png"),
            display_name: format!("{uid}.png"),
            extension: ".png".into(),
            size: 2000,
            state: IndexState::InProgress,
            callback_param: None,
            text_only: false,
        }
    }

    #[test]
    fn every_change_to_searched_views_is_journalled_and_forgotten_up_to_a_position() {
        let connection = in_memory();
        let mut tx = tx(&connection);
        let company = tx.ensure_company("A").unwrap();
        let start = tx.visual_position().unwrap();
        tx.upsert_file(&record("a", &company), "t").unwrap();
        let content = IndexedContent {
            views: vec![vec![1, 2, 3], vec![4, 5]],
            pmi_json: "[]".into(),
            ..Default::default()
        };
        assert!(tx.save_indexing("a", 1, Some(&content), "t").unwrap());
        assert_eq!(
            tx.visual_changes_since(start).unwrap(),
            vec![("a".to_owned(), None)]
        );
        // A delete cascades to the views, and the cascade is journalled too.
        let before_delete = tx.visual_position().unwrap();
        assert!(tx.delete_file("a").unwrap());
        assert_eq!(
            tx.visual_changes_since(before_delete).unwrap(),
            vec![("a".to_owned(), None)]
        );
        // A failed re-index changes only the state: journalled.
        tx.upsert_file(&record("b", &company), "t").unwrap();
        assert!(tx.save_indexing("b", 1, Some(&content), "t").unwrap());
        let before_state = tx.visual_position().unwrap();
        tx.set_file_state("b", IndexState::Failed).unwrap();
        assert_eq!(
            tx.visual_changes_since(before_state).unwrap(),
            vec![("b".to_owned(), None)]
        );

        assert_eq!(tx.visual_trimmed_through().unwrap(), 0);
        let last = tx.visual_position().unwrap();
        assert!(tx.forget_visual_changes_through(last - 1).unwrap() > 0);
        assert_eq!(tx.visual_trimmed_through().unwrap(), last - 1);
        tx.forget_visual_changes_through(last).unwrap();
        assert!(tx.visual_changes_since(0).unwrap().is_empty());
        // Forgotten whole, the journal still knows where it ended.
        assert_eq!(tx.visual_trimmed_through().unwrap(), last);
        assert_eq!(tx.visual_position().unwrap(), last);
    }

    #[test]
    fn a_listing_of_searched_files_stops_when_told() {
        let connection = in_memory();
        let mut tx = tx(&connection);
        let company = tx.ensure_company("A").unwrap();
        for uid in ["a", "b"] {
            tx.upsert_file(&record(uid, &company), "t").unwrap();
            let content = IndexedContent {
                views: vec![vec![1]],
                pmi_json: "[]".into(),
                ..Default::default()
            };
            assert!(tx.save_indexing(uid, 1, Some(&content), "t").unwrap());
        }
        let mut seen = Vec::new();
        tx.for_each_searched_file(&company, &mut |uid, _| {
            seen.push(uid);
            ControlFlow::Break(())
        })
        .unwrap();
        assert_eq!(seen, ["a"]);
    }
}
