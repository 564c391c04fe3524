//! Saved attributes of files and the company's attribute names: how names, units and values are
//! compared, one attribute a name and unit, and the most a file may hold.
//!
//! Writes are linear in the number of attributes (names are matched through a hash map, not by
//! scanning the list for each new name: 50,000 attributes in one write used to hold the store's
//! only writer for 45 s), and a file holds at most [`AttributeCaps`] attributes and values, checked
//! before anything is written.

use std::collections::HashMap;

use crate::error::StoreError;
use partlens_api::Attribute;

/// An attribute name (with unit) used in a company, with its stable ID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttributeName {
    /// Stable ID, assigned when the name was first used.
    pub id: i64,
    /// The name as first written.
    pub name: String,
    /// The unit, empty when none.
    pub unit: String,
    /// The one value the company's files hold for it, when they hold exactly one (compared by
    /// [`value_key`]); `None` when they hold several, or none (a name only extracted).
    pub single_value: Option<String>,
    /// Set by a person on a file (saved attributes); false for a name only the service extracted.
    pub custom: bool,
    /// When a file last had it set or extracted (ISO 8601); `None` for a name last written by a
    /// program older than this column.
    pub last_set_at: Option<String>,
}

/// The key an attribute name or unit is compared by.
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// The key a value is compared by (exact and prefix search, counting).
pub fn value_key(value: &str) -> String {
    value.trim().to_lowercase()
}

/// The keys of an attribute's name and unit (an attribute without a unit has the empty one).
pub fn name_and_unit_keys(attribute: &Attribute) -> (String, String) {
    (
        name_key(&attribute.name),
        name_key(attribute.unit.as_deref().unwrap_or("")),
    )
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
    /// Refuses a list (one attribute a name and unit) over the caps.
    pub fn check(&self, list: &[Attribute]) -> Result<(), StoreError> {
        if list.len() > self.max_attributes {
            return Err(StoreError::Refused(format!(
                "a file would hold {} attributes; at most {} are allowed",
                list.len(),
                self.max_attributes
            )));
        }
        let values: usize = list.iter().map(|attribute| attribute.values.len()).sum();
        if values > self.max_values {
            return Err(StoreError::Refused(format!(
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
        let key = name_and_unit_keys(&attribute);
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

/// A file's saved attributes (their wire texts, in order) with `added` merged in: those of the
/// same name and unit replaced, the others kept (`deleteExisting=false`). A saved text that no
/// longer parses is dropped.
pub fn merged(saved: &[String], added: &[Attribute]) -> Vec<Attribute> {
    let saved = saved.iter().filter_map(|text| Attribute::parse(text).ok());
    one_per_name(saved.chain(added.iter().cloned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attributes(texts: &[&str]) -> Vec<Attribute> {
        texts
            .iter()
            .map(|text| Attribute::parse(text).unwrap())
            .collect()
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
        assert!(matches!(
            caps.check(&attributes(&["a=1|2|3|4|5"])),
            Err(StoreError::Refused(_))
        ));
    }

    #[test]
    fn merging_replaces_the_same_name_and_keeps_the_others() {
        let saved = ["material=steel".to_owned(), "region=EU|US".to_owned()];
        let texts: Vec<String> = merged(&saved, &attributes(&["Material=brass", "weight(kg)=2"]))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(texts, ["Material=brass", "region=EU|US", "weight(kg)=2"]);
    }
}
