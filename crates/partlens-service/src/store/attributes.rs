//! Saved attributes of files, the company's attribute names, and the per-value rows that metadata
//! search and `GET /api/AttributeValues` read (one row per value of a multi-valued attribute).
//!
//! Writes are linear in the number of attributes (names are matched through a hash map, not by
//! scanning the list for each new name: 50,000 attributes in one write used to hold the store's
//! only writer for 45 s), and a file holds at most [`AttributeCaps`] attributes and values, checked
//! before anything is written.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::ServiceError;
use partlens_api::Attribute;

/// An attribute name (with unit) used in a company, with its stable ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttributeName {
    /// Stable ID, assigned when the name was first used.
    pub id: i64,
    /// The name as first written.
    pub name: String,
    /// The unit, empty when none.
    pub unit: String,
}

/// The key an attribute name or unit is compared by.
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// The key a value is compared by (exact and prefix search, counting).
pub fn value_key(value: &str) -> String {
    value.trim().to_lowercase()
}

/// The saved attributes of a file in their wire form (`name(unit)=v1|v2`), in order.
pub fn texts_of(connection: &Connection, uid: &str) -> Result<Vec<String>, ServiceError> {
    let mut statement = connection
        .prepare_cached("SELECT text FROM file_attributes WHERE file_uid = ?1 ORDER BY position")?;
    let texts = statement
        .query_map([uid], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(texts)
}

/// The ID of the company's attribute `name(unit)`, created on first use.
fn ensure_name(
    connection: &Connection,
    company_id: &str,
    attribute: &Attribute,
) -> Result<i64, ServiceError> {
    let unit = attribute.unit.clone().unwrap_or_default();
    let (name_key, unit_key) = (name_key(&attribute.name), name_key(&unit));
    let existing: Option<i64> = connection
        .query_row(
            "SELECT id FROM attribute_names WHERE company_id = ?1 AND name_key = ?2 AND unit_key = ?3",
            params![company_id, name_key, unit_key],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(id) = existing {
        return Ok(id);
    }
    connection.execute(
        "INSERT INTO attribute_names (company_id, name, unit, name_key, unit_key)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![company_id, attribute.name, unit, name_key, unit_key],
    )?;
    Ok(connection.last_insert_rowid())
}

/// The most attributes and values one file may hold (`ServiceLimits::max_attributes_per_file`,
/// `max_values_per_file`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttributeCaps {
    /// Attributes (distinct names with units).
    pub max_attributes: usize,
    /// Values of all attributes together.
    pub max_values: usize,
}

impl AttributeCaps {
    /// Refuses (400) a list (one attribute a name and unit) over the caps.
    pub fn check(&self, list: &[Attribute]) -> Result<(), ServiceError> {
        if list.len() > self.max_attributes {
            return Err(ServiceError::BadRequest(format!(
                "a file would hold {} attributes; at most {} are allowed",
                list.len(),
                self.max_attributes
            )));
        }
        let values: usize = list.iter().map(|attribute| attribute.values.len()).sum();
        if values > self.max_values {
            return Err(ServiceError::BadRequest(format!(
                "a file would hold {values} attribute values; at most {} are allowed",
                self.max_values
            )));
        }
        Ok(())
    }
}

/// One attribute a name and unit, in the order first seen; a later attribute of the same name and
/// unit replaces the earlier one in place. Linear: names are found through a hash map.
pub fn one_per_name(attributes: impl IntoIterator<Item = Attribute>) -> Vec<Attribute> {
    let mut list: Vec<Attribute> = Vec::new();
    let mut positions: HashMap<(String, String), usize> = HashMap::new();
    for attribute in attributes {
        let key = (
            name_key(&attribute.name),
            name_key(attribute.unit.as_deref().unwrap_or("")),
        );
        match positions.get(&key) {
            Some(&position) => list[position] = attribute,
            None => {
                positions.insert(key, list.len());
                list.push(attribute);
            }
        }
    }
    list
}

/// Replaces all saved attributes of a file (`deleteExisting=true`). A name given twice keeps the
/// last values. A file that is not (or no longer) the company's is a 404: the caller may have found
/// it before a delete that committed first.
pub fn replace(
    connection: &Connection,
    company_id: &str,
    uid: &str,
    attributes: &[Attribute],
) -> Result<(), ServiceError> {
    if super::files::find(connection, company_id, uid)?.is_none() {
        return Err(ServiceError::file_not_found(uid));
    }
    let list = one_per_name(attributes.iter().cloned());
    connection.execute("DELETE FROM file_attributes WHERE file_uid = ?1", [uid])?;
    connection.execute("DELETE FROM attribute_values WHERE file_uid = ?1", [uid])?;
    let mut insert_text = connection.prepare_cached(
        "INSERT INTO file_attributes (file_uid, position, attribute_id, text) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut insert_value = connection.prepare_cached(
        "INSERT INTO attribute_values (file_uid, attribute_id, value, value_key) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (position, attribute) in list.iter().enumerate() {
        let id = ensure_name(connection, company_id, attribute)?;
        insert_text.execute(params![uid, position as i64, id, attribute.to_string()])?;
        for value in &attribute.values {
            insert_value.execute(params![uid, id, value, value_key(value)])?;
        }
    }
    super::search_text::refresh(connection, uid)
}

/// The file's saved attributes with `attributes` added, those of the same name and unit replaced.
pub fn merged_with_saved(
    connection: &Connection,
    uid: &str,
    attributes: &[Attribute],
) -> Result<Vec<Attribute>, ServiceError> {
    let saved: Vec<Attribute> = texts_of(connection, uid)?
        .iter()
        .filter_map(|text| Attribute::parse(text).ok())
        .collect();
    Ok(one_per_name(
        saved.into_iter().chain(attributes.iter().cloned()),
    ))
}

/// Adds attributes to a file, replacing those of the same name and unit (`deleteExisting=false`),
/// refusing (400, nothing written) a result over `caps`.
pub fn merge(
    connection: &Connection,
    company_id: &str,
    uid: &str,
    attributes: &[Attribute],
    caps: &AttributeCaps,
) -> Result<(), ServiceError> {
    let list = merged_with_saved(connection, uid, attributes)?;
    caps.check(&list)?;
    replace(connection, company_id, uid, &list)
}

/// The attribute names used by the company's files, ordered by name then unit.
pub fn company_names(
    connection: &Connection,
    company_id: &str,
) -> Result<Vec<AttributeName>, ServiceError> {
    let mut statement = connection.prepare(
        "SELECT a.id, a.name, a.unit FROM attribute_names a
         WHERE a.company_id = ?1
           AND EXISTS (SELECT 1 FROM file_attributes fa WHERE fa.attribute_id = a.id)
         ORDER BY a.name_key, a.unit_key, a.id",
    )?;
    let names = statement
        .query_map([company_id], |row| {
            Ok(AttributeName {
                id: row.get(0)?,
                name: row.get(1)?,
                unit: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(names)
}

/// The distinct values of an attribute in the company and how many times each is held (a
/// multi-valued attribute counts each value), most frequent first, then by value. The name is
/// compared case-insensitively; a unit narrows the match when given.
pub fn value_counts(
    connection: &Connection,
    company_id: &str,
    name: &str,
    unit: Option<&str>,
) -> Result<Vec<(String, i64)>, ServiceError> {
    let mut statement = connection.prepare(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::files::{IndexState, NewContent, upsert};

    fn store_with_file(uids: &[&str]) -> (Connection, String) {
        let mut connection = Connection::open_in_memory().unwrap();
        crate::store::schema::migrate(&mut connection).unwrap();
        let company = crate::store::accounts::ensure_company(&connection, "Acme").unwrap();
        for uid in uids {
            upsert(
                &connection,
                &NewContent {
                    uid: (*uid).into(),
                    company_id: company.clone(),
                    owner_user_id: 1,
                    is_search_input: false,
                    stored_path: format!("d/{uid}.png"),
                    display_name: format!("{uid}.png"),
                    extension: ".png".into(),
                    size: 2000,
                    state: IndexState::Queued,
                    callback_param: None,
                },
                "2026-01-01T00:00:00Z",
            )
            .unwrap();
        }
        (connection, company)
    }

    const UNCAPPED: AttributeCaps = AttributeCaps {
        max_attributes: usize::MAX,
        max_values: usize::MAX,
    };

    fn attributes(texts: &[&str]) -> Vec<Attribute> {
        texts
            .iter()
            .map(|text| Attribute::parse(text).unwrap())
            .collect()
    }

    #[test]
    fn merge_replaces_same_name_and_keeps_others() {
        let (connection, company) = store_with_file(&["a"]);
        replace(
            &connection,
            &company,
            "a",
            &attributes(&["material=steel", "region=EU|US"]),
        )
        .unwrap();
        merge(
            &connection,
            &company,
            "a",
            &attributes(&["Material=brass", "weight(kg)=2"]),
            &UNCAPPED,
        )
        .unwrap();
        assert_eq!(
            texts_of(&connection, "a").unwrap(),
            vec!["Material=brass", "region=EU|US", "weight(kg)=2"]
        );
    }

    #[test]
    fn a_name_given_again_replaces_the_first_in_place_and_the_caps_count_after_that() {
        let list = one_per_name(attributes(&["a=1", "B(kg)=2", "A=3", "b(KG)=4|5", "c=6"]));
        let texts: Vec<String> = list.iter().map(ToString::to_string).collect();
        assert_eq!(texts, ["A=3", "b(KG)=4|5", "c=6"]);
        let caps = AttributeCaps {
            max_attributes: 3,
            max_values: 4,
        };
        caps.check(&list).unwrap();
        assert!(
            caps.check(&one_per_name(attributes(&["a=1", "b=2", "c=3", "d=4"])))
                .is_err()
        );
        assert!(caps.check(&attributes(&["a=1|2|3|4|5"])).is_err());
        let (connection, company) = store_with_file(&["f"]);
        replace(
            &connection,
            &company,
            "f",
            &attributes(&["a=1", "b=2", "c=3"]),
        )
        .unwrap();
        assert!(matches!(
            merge(&connection, &company, "f", &attributes(&["d=4"]), &caps),
            Err(ServiceError::BadRequest(_))
        ));
        merge(&connection, &company, "f", &attributes(&["C=9"]), &caps).unwrap();
        assert_eq!(texts_of(&connection, "f").unwrap(), ["a=1", "b=2", "C=9"]);
    }

    #[test]
    fn attributes_of_a_file_that_is_gone_are_a_not_found() {
        let (connection, company) = store_with_file(&["a"]);
        crate::store::files::delete(&connection, "a").unwrap();
        for result in [
            replace(&connection, &company, "a", &attributes(&["material=steel"])),
            merge(
                &connection,
                &company,
                "a",
                &attributes(&["material=steel"]),
                &UNCAPPED,
            ),
            replace(&connection, &company, "a", &[]),
        ] {
            assert!(
                matches!(result, Err(ServiceError::NotFound(_))),
                "{result:?}"
            );
        }
        let (connection, _) = store_with_file(&["b"]);
        assert!(matches!(
            replace(&connection, "another company", "b", &[]),
            Err(ServiceError::NotFound(_))
        ));
    }

    #[test]
    fn values_are_counted_one_by_one_case_insensitively_by_name() {
        let (connection, company) = store_with_file(&["a", "b"]);
        replace(&connection, &company, "a", &attributes(&["Region=EU|US"])).unwrap();
        replace(&connection, &company, "b", &attributes(&["region=EU"])).unwrap();
        assert_eq!(
            value_counts(&connection, &company, "REGION", None).unwrap(),
            vec![("EU".to_owned(), 2), ("US".to_owned(), 1)]
        );
        let names = company_names(&connection, &company).unwrap();
        assert_eq!(names.len(), 1);
        assert_eq!(names[0].name, "Region");
    }
}
