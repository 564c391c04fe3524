//! A company's file categories on SQLite.

use rusqlite::{OptionalExtension, params};

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::{Category, name_key};
use crate::traits::{CategoriesSteps, CategoriesTx};

impl CategoriesTx for SqliteTx<'_> {
    fn company_named(&mut self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT id FROM companies WHERE name = ?1 COLLATE NOCASE",
                [name.trim()],
                |row| row.get(0),
            )
            .optional()?)
    }

    fn categories_of(&mut self, company_id: &str) -> Result<Vec<Category>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT id, name, required_attributes FROM categories WHERE company_id = ?1
             ORDER BY id",
        )?;
        let categories = statement
            .query_map([company_id], |row| {
                Ok(Category {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    required_attributes: Category::required_from_json(&row.get::<_, String>(2)?),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(categories)
    }

    fn remove_category(&mut self, company_id: &str, id: i64) -> Result<bool, StoreError> {
        Ok(self.0.execute(
            "DELETE FROM categories WHERE company_id = ?1 AND id = ?2",
            params![company_id, id],
        )? > 0)
    }
}

impl CategoriesSteps for SqliteTx<'_> {
    fn insert_category(
        &mut self,
        company_id: &str,
        category: &Category,
        now: &str,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO categories (company_id, id, name, name_key, required_attributes, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                company_id,
                category.id,
                category.name,
                name_key(&category.name),
                category.required_json(),
                now
            ],
        )?;
        Ok(())
    }
}
