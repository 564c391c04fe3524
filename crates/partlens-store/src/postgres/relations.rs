//! Parent/child relations between files on PostgreSQL (see [`crate::model::relations`]).

use std::collections::HashMap;

use super::PgTx;
use crate::error::StoreError;
use crate::model::{NewRelation, Relation, RelationCount};
use crate::traits::RelationsTx;

/// The columns a [`Relation`] is read from, in its fields' order.
const COLUMNS: &str = "parent_uid, child_uid, quantity, reference, position";

fn relation(row: &r2d2_postgres::postgres::Row) -> Result<Relation, StoreError> {
    let position: i32 = row.try_get(4)?;
    Ok(Relation {
        parent_uid: row.try_get(0)?,
        child_uid: row.try_get(1)?,
        quantity: row.try_get(2)?,
        reference: row.try_get(3)?,
        position: i64::from(position),
    })
}

impl RelationsTx for PgTx<'_, '_> {
    fn replace_children(
        &mut self,
        parent_uid: &str,
        children: &[NewRelation],
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "DELETE FROM file_relations WHERE parent_uid = $1",
            &[&parent_uid],
        )?;
        let insert = self.tx.prepare(
            "INSERT INTO file_relations (parent_uid, position, child_uid, quantity, reference)
             VALUES ($1, $2, $3, $4, $5)",
        )?;
        for (position, child) in children.iter().enumerate() {
            let position = i32::try_from(position).unwrap_or(i32::MAX);
            self.tx.execute(
                &insert,
                &[
                    &parent_uid,
                    &position,
                    &child.child_uid,
                    &child.quantity,
                    &child.reference,
                ],
            )?;
        }
        Ok(())
    }

    fn children_of(&mut self, parent_uid: &str) -> Result<Vec<Relation>, StoreError> {
        self.tx
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM file_relations WHERE parent_uid = $1 ORDER BY position"
                ),
                &[&parent_uid],
            )?
            .iter()
            .map(relation)
            .collect()
    }

    fn parents_of(&mut self, child_uid: &str) -> Result<Vec<Relation>, StoreError> {
        self.tx
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM file_relations WHERE child_uid = $1
                     ORDER BY parent_uid COLLATE \"C\", position"
                ),
                &[&child_uid],
            )?
            .iter()
            .map(relation)
            .collect()
    }

    fn relation_counts(
        &mut self,
        uids: &[String],
    ) -> Result<HashMap<String, RelationCount>, StoreError> {
        let rows = self.tx.query(
            "SELECT uid,
                    (SELECT COUNT(*) FROM file_relations WHERE parent_uid = uid),
                    (SELECT COUNT(*) FROM file_relations WHERE child_uid = uid)
             FROM unnest($1::text[]) AS uid",
            &[&uids],
        )?;
        let mut counts = HashMap::new();
        for row in &rows {
            let children: i64 = row.try_get(1)?;
            let parents: i64 = row.try_get(2)?;
            let count = RelationCount {
                children: u32::try_from(children).unwrap_or(u32::MAX),
                parents: u32::try_from(parents).unwrap_or(u32::MAX),
            };
            if count != RelationCount::default() {
                counts.insert(row.try_get(0)?, count);
            }
        }
        Ok(counts)
    }
}
