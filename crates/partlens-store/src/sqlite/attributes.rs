//! Saved attributes, the company's attribute names, their values (one row a value of a
//! multi-valued attribute) and feedback on SQLite. A file's attributes are written a row at a
//! time through cached statements: linear in the attributes, within the caps the model checks.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::attributes::name_and_unit_keys;
use crate::model::{AttributeName, Feedback, name_key, value_key};
use crate::rows::{self, attribute_name_columns};
use crate::traits::{AttributeNamesSteps, AttributesSteps, AttributesTx};
use partlens_api::Attribute;

impl SqliteTx<'_> {
    /// The ID of the company's attribute `name(unit)`, created on first use; marked set by a
    /// person (custom) at `now`.
    fn ensure_name(
        &self,
        company_id: &str,
        attribute: &Attribute,
        now: &str,
    ) -> Result<i64, StoreError> {
        let (name_key, unit_key) = name_and_unit_keys(attribute);
        let existing: Option<i64> = self
            .0
            .prepare_cached(
                "SELECT id FROM attribute_names
                 WHERE company_id = ?1 AND name_key = ?2 AND unit_key = ?3",
            )?
            .query_row(params![company_id, name_key, unit_key], |row| row.get(0))
            .optional()?;
        if let Some(id) = existing {
            self.0
                .prepare_cached(
                    "UPDATE attribute_names SET custom = 1, last_set_at = ?2 WHERE id = ?1",
                )?
                .execute(params![id, now])?;
            return Ok(id);
        }
        self.0
            .prepare_cached(
                "INSERT INTO attribute_names
                    (company_id, name, unit, name_key, unit_key, custom, last_set_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)",
            )?
            .execute(params![
                company_id,
                attribute.name,
                attribute.unit.as_deref().unwrap_or_default(),
                name_key,
                unit_key,
                now
            ])?;
        Ok(self.0.last_insert_rowid())
    }
}

impl AttributesTx for SqliteTx<'_> {
    fn attribute_texts_of(&mut self, uid: &str) -> Result<Vec<String>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT text FROM file_attributes WHERE file_uid = ?1 ORDER BY position",
        )?;
        let texts = statement
            .query_map([uid], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(texts)
    }

    fn attribute_texts_of_files(
        &mut self,
        uids: &[String],
    ) -> Result<HashMap<String, Vec<String>>, StoreError> {
        // A file at a time through the cached statement: in-process SQLite answers each in
        // microseconds, which a statement over a list of UIDs would not beat.
        uids.iter()
            .map(|uid| Ok((uid.clone(), self.attribute_texts_of(uid)?)))
            .collect()
    }

    fn company_attribute_names(
        &mut self,
        company_id: &str,
    ) -> Result<Vec<AttributeName>, StoreError> {
        let mut statement = self.0.prepare_cached(&format!(
            "SELECT {} FROM attribute_names a
             WHERE a.company_id = ?1
               AND (NOT a.custom
                    OR EXISTS (SELECT 1 FROM file_attributes fa WHERE fa.attribute_id = a.id))
             ORDER BY a.name_key, a.unit_key, a.id",
            attribute_name_columns("BINARY")
        ))?;
        let mut found = statement.query([company_id])?;
        let mut names = Vec::new();
        while let Some(row) = found.next()? {
            names.push(rows::attribute_name(row)?);
        }
        Ok(names)
    }

    fn attribute_value_counts(
        &mut self,
        company_id: &str,
        name: &str,
        unit: Option<&str>,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT v.value, count(*) AS n FROM attribute_values v
               JOIN attribute_names a ON a.id = v.attribute_id
             WHERE a.company_id = ?1 AND a.name_key = ?2 AND (?3 IS NULL OR a.unit_key = ?3)
             GROUP BY v.value
             ORDER BY n DESC, v.value",
        )?;
        let counts = statement
            .query_map(
                params![company_id, name_key(name), unit.map(name_key)],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(counts)
    }

    fn save_feedback(&mut self, feedback: &Feedback, now: &str) -> Result<bool, StoreError> {
        let changed = self.0.execute(
            "INSERT INTO feedback
                (id, file_uid, company_id, user_id, external_user, feedback, attributes, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (id) DO UPDATE SET file_uid = excluded.file_uid, user_id = excluded.user_id,
                external_user = excluded.external_user, feedback = excluded.feedback,
                attributes = excluded.attributes, created_at = excluded.created_at
             WHERE feedback.company_id = excluded.company_id",
            params![
                feedback.id,
                feedback.file_uid,
                feedback.company_id,
                feedback.user_id,
                feedback.external_user,
                feedback.feedback,
                feedback.attributes_json(),
                now,
            ],
        )?;
        Ok(changed > 0)
    }
}

impl AttributesSteps for SqliteTx<'_> {
    fn write_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        list: &[Attribute],
    ) -> Result<(), StoreError> {
        self.0
            .execute("DELETE FROM file_attributes WHERE file_uid = ?1", [uid])?;
        self.0
            .execute("DELETE FROM attribute_values WHERE file_uid = ?1", [uid])?;
        let mut insert_text = self.0.prepare_cached(
            "INSERT INTO file_attributes (file_uid, position, attribute_id, text)
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        let mut insert_value = self.0.prepare_cached(
            "INSERT INTO attribute_values (file_uid, attribute_id, value, value_key)
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        let now = crate::clock::iso_now();
        for (position, attribute) in list.iter().enumerate() {
            let id = self.ensure_name(company_id, attribute, &now)?;
            insert_text.execute(params![uid, position as i64, id, attribute.to_string()])?;
            for value in &attribute.values {
                insert_value.execute(params![uid, id, value, value_key(value)])?;
            }
        }
        self.refresh_search_text(uid)
    }
}

impl AttributeNamesSteps for SqliteTx<'_> {
    fn write_extracted_names(
        &mut self,
        uid: &str,
        extracted: &[String],
        now: &str,
    ) -> Result<(), StoreError> {
        let mut upsert = self.0.prepare_cached(
            "INSERT INTO attribute_names
                (company_id, name, unit, name_key, unit_key, custom, last_set_at)
             SELECT company_id, ?2, ?3, ?4, ?5, 0, ?6 FROM files
             WHERE uid = ?1 AND is_search_input = 0
             ON CONFLICT (company_id, name_key, unit_key)
                DO UPDATE SET last_set_at = excluded.last_set_at",
        )?;
        for attribute in extracted
            .iter()
            .filter_map(|text| Attribute::parse(text).ok())
        {
            let (name_key, unit_key) = name_and_unit_keys(&attribute);
            upsert.execute(params![
                uid,
                attribute.name,
                attribute.unit.as_deref().unwrap_or_default(),
                name_key,
                unit_key,
                now
            ])?;
        }
        Ok(())
    }
}
