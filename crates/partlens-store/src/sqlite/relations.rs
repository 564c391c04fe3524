//! Parent/child relations between files on SQLite (see [`crate::model::relations`]).

use std::collections::HashMap;

use rusqlite::params;

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::{NewRelation, Relation, RelationCount};
use crate::traits::RelationsTx;

/// The columns a [`Relation`] is read from, in its fields' order.
const COLUMNS: &str = "parent_uid, child_uid, quantity, reference, position";

fn relation(row: &rusqlite::Row<'_>) -> rusqlite::Result<Relation> {
    Ok(Relation {
        parent_uid: row.get(0)?,
        child_uid: row.get(1)?,
        quantity: row.get(2)?,
        reference: row.get(3)?,
        position: row.get(4)?,
    })
}

impl RelationsTx for SqliteTx<'_> {
    fn replace_children(
        &mut self,
        parent_uid: &str,
        children: &[NewRelation],
    ) -> Result<(), StoreError> {
        self.0.execute(
            "DELETE FROM file_relations WHERE parent_uid = ?1",
            [parent_uid],
        )?;
        let mut insert = self.0.prepare_cached(
            "INSERT INTO file_relations (parent_uid, position, child_uid, quantity, reference)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (position, child) in children.iter().enumerate() {
            insert.execute(params![
                parent_uid,
                position as i64,
                child.child_uid,
                child.quantity,
                child.reference
            ])?;
        }
        Ok(())
    }

    fn children_of(&mut self, parent_uid: &str) -> Result<Vec<Relation>, StoreError> {
        let mut statement = self.0.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM file_relations WHERE parent_uid = ?1 ORDER BY position"
        ))?;
        let rows = statement
            .query_map([parent_uid], relation)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn parents_of(&mut self, child_uid: &str) -> Result<Vec<Relation>, StoreError> {
        let mut statement = self.0.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM file_relations WHERE child_uid = ?1
             ORDER BY parent_uid, position"
        ))?;
        let rows = statement
            .query_map([child_uid], relation)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn relation_counts(
        &mut self,
        uids: &[String],
    ) -> Result<HashMap<String, RelationCount>, StoreError> {
        // A file at a time through cached statements, as the attribute texts of a page are read:
        // in-process SQLite answers each from the relations' indexes in microseconds.
        let mut counts = HashMap::new();
        let mut children = self
            .0
            .prepare_cached("SELECT COUNT(*) FROM file_relations WHERE parent_uid = ?1")?;
        let mut parents = self
            .0
            .prepare_cached("SELECT COUNT(*) FROM file_relations WHERE child_uid = ?1")?;
        for uid in uids {
            let count = RelationCount {
                children: children.query_row([uid], |row| row.get(0))?,
                parents: parents.query_row([uid], |row| row.get(0))?,
            };
            if count != RelationCount::default() {
                counts.insert(uid.clone(), count);
            }
        }
        Ok(counts)
    }
}
