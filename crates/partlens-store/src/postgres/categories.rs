//! A company's file categories on PostgreSQL.

use super::PgTx;
use crate::error::StoreError;
use crate::model::{Category, name_key};
use crate::traits::{CategoriesSteps, CategoriesTx};

impl CategoriesTx for PgTx<'_, '_> {
    fn company_named(&mut self, name: &str) -> Result<Option<String>, StoreError> {
        self.tx
            .query_opt(
                "SELECT id FROM companies WHERE lower(name) = lower($1)",
                &[&name.trim()],
            )?
            .map(|row| row.try_get(0))
            .transpose()
            .map_err(StoreError::from)
    }

    fn categories_of(&mut self, company_id: &str) -> Result<Vec<Category>, StoreError> {
        self.tx
            .query(
                "SELECT id, name, required_attributes FROM categories WHERE company_id = $1
                 ORDER BY id",
                &[&company_id],
            )?
            .iter()
            .map(|row| -> Result<Category, StoreError> {
                Ok(Category {
                    id: row.try_get(0)?,
                    name: row.try_get(1)?,
                    required_attributes: Category::required_from_json(row.try_get(2)?),
                })
            })
            .collect()
    }

    fn remove_category(&mut self, company_id: &str, id: i64) -> Result<bool, StoreError> {
        Ok(self.tx.execute(
            "DELETE FROM categories WHERE company_id = $1 AND id = $2",
            &[&company_id, &id],
        )? > 0)
    }
}

impl CategoriesSteps for PgTx<'_, '_> {
    fn insert_category(
        &mut self,
        company_id: &str,
        category: &Category,
        now: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO categories (company_id, id, name, name_key, required_attributes, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &company_id,
                &category.id,
                &category.name,
                &name_key(&category.name),
                &category.required_json(),
                &now,
            ],
        )?;
        Ok(())
    }
}
