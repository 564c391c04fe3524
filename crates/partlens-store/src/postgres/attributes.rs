//! Saved attributes, the company's attribute names, their values (one row a value of a
//! multi-valued attribute) and feedback on PostgreSQL. Names are matched through one map a write
//! (linear in the attributes written), and each table is written with one statement of arrays.

use std::collections::HashMap;

use super::PgTx;
use crate::error::StoreError;
use crate::model::attributes::name_and_unit_keys;
use crate::model::{AttributeName, Feedback, name_key, value_key};
use crate::rows::{self, attribute_name_columns};
use crate::traits::{AttributeNamesSteps, AttributesSteps, AttributesTx};
use partlens_api::Attribute;

impl PgTx<'_, '_> {
    /// The ids of the company's attribute names `(name_key, unit_key)`, created on first use with
    /// the name and unit as written.
    pub(super) fn ensure_names(
        &mut self,
        company_id: &str,
        list: &[Attribute],
    ) -> Result<HashMap<(String, String), i64>, StoreError> {
        let (mut names, mut units, mut name_keys, mut unit_keys) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for attribute in list {
            let (name, unit) = name_and_unit_keys(attribute);
            name_keys.push(name);
            unit_keys.push(unit);
            names.push(attribute.name.clone());
            units.push(attribute.unit.clone().unwrap_or_default());
        }
        let now = crate::clock::iso_now();
        self.tx.execute(
            "INSERT INTO attribute_names
                (company_id, name, unit, name_key, unit_key, custom, last_set_at)
             SELECT $1, n, u, nk, uk, true, $6
             FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                 WITH ORDINALITY AS t(n, u, nk, uk, o)
             ORDER BY o
             ON CONFLICT (company_id, name_key, unit_key) DO NOTHING",
            &[&company_id, &names, &units, &name_keys, &unit_keys, &now],
        )?;
        // Set by a person now (a name only extracted until now becomes custom). The rows are
        // locked in id order, as every writer of attribute names does, so two writers never wait
        // for each other in a circle.
        let rows = self.tx.query(
            "WITH locked AS (
                 SELECT a.id FROM attribute_names a
                   JOIN unnest($2::text[], $3::text[]) AS t(nk, uk)
                     ON a.name_key = t.nk AND a.unit_key = t.uk
                 WHERE a.company_id = $1
                 ORDER BY a.id FOR UPDATE OF a)
             UPDATE attribute_names a SET custom = true, last_set_at = $4
             FROM locked WHERE a.id = locked.id
             RETURNING a.id, a.name_key, a.unit_key",
            &[&company_id, &name_keys, &unit_keys, &now],
        )?;
        rows.iter()
            .map(|row| -> Result<_, StoreError> {
                Ok(((row.try_get(1)?, row.try_get(2)?), row.try_get(0)?))
            })
            .collect()
    }
}

impl AttributesTx for PgTx<'_, '_> {
    fn attribute_texts_of(&mut self, uid: &str) -> Result<Vec<String>, StoreError> {
        self.tx
            .query(
                "SELECT text FROM file_attributes WHERE file_uid = $1 ORDER BY position",
                &[&uid],
            )?
            .iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }

    fn attribute_texts_of_files(
        &mut self,
        uids: &[String],
    ) -> Result<HashMap<String, Vec<String>>, StoreError> {
        let rows = self.tx.query(
            "SELECT file_uid, text FROM file_attributes WHERE file_uid = ANY($1)
             ORDER BY file_uid, position",
            &[&uids],
        )?;
        let mut texts: HashMap<String, Vec<String>> =
            uids.iter().map(|uid| (uid.clone(), Vec::new())).collect();
        for row in &rows {
            let uid: String = row.try_get(0)?;
            texts.entry(uid).or_default().push(row.try_get(1)?);
        }
        Ok(texts)
    }

    fn company_attribute_names(
        &mut self,
        company_id: &str,
    ) -> Result<Vec<AttributeName>, StoreError> {
        self.tx
            .query(
                &format!(
                    "SELECT {} FROM attribute_names a
                     WHERE a.company_id = $1
                       AND (NOT a.custom
                            OR EXISTS (SELECT 1 FROM file_attributes fa
                                       WHERE fa.attribute_id = a.id))
                     ORDER BY a.name_key COLLATE \"C\", a.unit_key COLLATE \"C\", a.id",
                    attribute_name_columns("\"C\"")
                ),
                &[&company_id],
            )?
            .iter()
            .map(rows::attribute_name)
            .collect()
    }

    fn attribute_value_counts(
        &mut self,
        company_id: &str,
        name: &str,
        unit: Option<&str>,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let unit = unit.map(name_key);
        self.tx
            .query(
                "SELECT v.value, count(*) AS n FROM attribute_values v
                   JOIN attribute_names a ON a.id = v.attribute_id
                 WHERE a.company_id = $1 AND a.name_key = $2
                   AND ($3::text IS NULL OR a.unit_key = $3)
                 GROUP BY v.value
                 ORDER BY n DESC, v.value COLLATE \"C\"",
                &[&company_id, &name_key(name), &unit],
            )?
            .iter()
            .map(|row| -> Result<_, StoreError> { Ok((row.try_get(0)?, row.try_get(1)?)) })
            .collect()
    }

    fn save_feedback(&mut self, feedback: &Feedback, now: &str) -> Result<bool, StoreError> {
        let attributes = feedback.attributes_json();
        let changed = self.tx.execute(
            "INSERT INTO feedback
                (id, file_uid, company_id, user_id, external_user, feedback, attributes, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (id) DO UPDATE SET file_uid = excluded.file_uid,
                user_id = excluded.user_id, external_user = excluded.external_user,
                feedback = excluded.feedback, attributes = excluded.attributes,
                created_at = excluded.created_at
             WHERE feedback.company_id = excluded.company_id",
            &[
                &feedback.id,
                &feedback.file_uid,
                &feedback.company_id,
                &feedback.user_id,
                &feedback.external_user,
                &feedback.feedback,
                &attributes,
                &now,
            ],
        )?;
        Ok(changed > 0)
    }
}

impl AttributesSteps for PgTx<'_, '_> {
    fn write_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        list: &[Attribute],
    ) -> Result<(), StoreError> {
        self.tx
            .execute("DELETE FROM file_attributes WHERE file_uid = $1", &[&uid])?;
        self.tx
            .execute("DELETE FROM attribute_values WHERE file_uid = $1", &[&uid])?;
        let ids = self.ensure_names(company_id, list)?;
        let (mut positions, mut text_ids, mut texts) = (Vec::new(), Vec::new(), Vec::new());
        let (mut value_ids, mut values, mut value_keys) = (Vec::new(), Vec::new(), Vec::new());
        for (position, attribute) in list.iter().enumerate() {
            let Some(&id) = ids.get(&name_and_unit_keys(attribute)) else {
                return Err(StoreError::Internal(format!(
                    "the attribute name {} was not saved",
                    attribute.name
                )));
            };
            positions.push(position as i32);
            text_ids.push(id);
            texts.push(attribute.to_string());
            for value in &attribute.values {
                value_ids.push(id);
                values.push(value.clone());
                value_keys.push(value_key(value));
            }
        }
        self.tx.execute(
            "INSERT INTO file_attributes (file_uid, position, attribute_id, text)
             SELECT $1, p, a, t FROM unnest($2::int4[], $3::int8[], $4::text[]) AS x(p, a, t)",
            &[&uid, &positions, &text_ids, &texts],
        )?;
        self.tx.execute(
            "INSERT INTO attribute_values (file_uid, attribute_id, value, value_key)
             SELECT $1, a, v, k FROM unnest($2::int8[], $3::text[], $4::text[]) AS x(a, v, k)",
            &[&uid, &value_ids, &values, &value_keys],
        )?;
        self.refresh_search_text(uid)
    }
}

impl AttributeNamesSteps for PgTx<'_, '_> {
    fn write_extracted_names(
        &mut self,
        uid: &str,
        extracted: &[String],
        now: &str,
    ) -> Result<(), StoreError> {
        let mut seen = std::collections::BTreeMap::new();
        for attribute in extracted
            .iter()
            .filter_map(|text| Attribute::parse(text).ok())
        {
            seen.entry(name_and_unit_keys(&attribute))
                .or_insert((attribute.name, attribute.unit.unwrap_or_default()));
        }
        if seen.is_empty() {
            return Ok(());
        }
        let (mut names, mut units, mut name_keys, mut unit_keys) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for ((name_key, unit_key), (name, unit)) in seen {
            names.push(name);
            units.push(unit);
            name_keys.push(name_key);
            unit_keys.push(unit_key);
        }
        self.tx.execute(
            "INSERT INTO attribute_names
                (company_id, name, unit, name_key, unit_key, custom, last_set_at)
             SELECT f.company_id, n, u, nk, uk, false, $6
             FROM files f,
                  unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS t(n, u, nk, uk)
             WHERE f.uid = $1 AND NOT f.is_search_input
             ORDER BY nk, uk
             ON CONFLICT (company_id, name_key, unit_key) DO NOTHING",
            &[&uid, &names, &units, &name_keys, &unit_keys, &now],
        )?;
        // Stamped in id order, as every writer of attribute names locks them.
        self.tx.execute(
            "WITH locked AS (
                 SELECT a.id FROM attribute_names a
                   JOIN files f ON f.company_id = a.company_id AND f.uid = $1
                     AND NOT f.is_search_input
                   JOIN unnest($2::text[], $3::text[]) AS t(nk, uk)
                     ON a.name_key = t.nk AND a.unit_key = t.uk
                 ORDER BY a.id FOR UPDATE OF a)
             UPDATE attribute_names a SET last_set_at = $4
             FROM locked WHERE a.id = locked.id",
            &[&uid, &name_keys, &unit_keys, &now],
        )?;
        Ok(())
    }
}
