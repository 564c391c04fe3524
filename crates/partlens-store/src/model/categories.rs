//! A company's file categories (`categoryId` of an upload): an id the company's admin chooses, a
//! name, and the attribute names an upload of the category must carry. A company with at least
//! one category requires a valid `categoryId` on every company-database upload; the category is
//! saved on the file as the attribute [`CATEGORY_ATTRIBUTE`]`=<name>`.

use crate::error::StoreError;
use crate::model::attributes::name_key;
use partlens_api::Attribute;

/// The attribute a file's category is saved as (`category=<name>`), searched like any other.
pub const CATEGORY_ATTRIBUTE: &str = "category";
/// The most categories one company may define.
pub const MAX_CATEGORIES_PER_COMPANY: usize = 1000;
/// The most attribute names one category may require.
pub const MAX_REQUIRED_ATTRIBUTES: usize = 50;
/// The longest category name, in characters.
pub const MAX_CATEGORY_NAME_CHARS: usize = 100;

/// One category of a company.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Category {
    /// The id uploads name it by (`categoryId`), unique in the company.
    pub id: i64,
    /// Its name, unique in the company case-insensitively; the value of the file's
    /// [`CATEGORY_ATTRIBUTE`].
    pub name: String,
    /// Attribute names an upload of this category must carry (compared case-insensitively).
    pub required_attributes: Vec<String>,
}

impl Category {
    /// The attribute a file of this category is given.
    pub fn attribute(&self) -> Attribute {
        Attribute {
            name: CATEGORY_ATTRIBUTE.to_owned(),
            unit: None,
            values: vec![self.name.clone()],
        }
    }

    /// The required attribute names that `attributes` lack (as the category names them, in its
    /// order).
    pub fn missing_from(&self, attributes: &[Attribute]) -> Vec<String> {
        self.required_attributes
            .iter()
            .filter(|required| {
                let key = name_key(required);
                !attributes.iter().any(|attribute| {
                    name_key(&attribute.name) == key && !attribute.values.is_empty()
                })
            })
            .cloned()
            .collect()
    }

    /// The required attribute names as stored: a JSON array.
    pub fn required_json(&self) -> String {
        serde_json::to_string(&self.required_attributes).unwrap_or_else(|_| "[]".into())
    }

    /// Required attribute names read back from [`Category::required_json`] (damaged text reads as
    /// none).
    pub fn required_from_json(text: &str) -> Vec<String> {
        serde_json::from_str(text).unwrap_or_default()
    }
}

/// Checks a category before it is added to `existing` (the company's categories): a name that is
/// a valid attribute value within [`MAX_CATEGORY_NAME_CHARS`], required names that are valid
/// attribute names, an id and a name not taken, and the company under
/// [`MAX_CATEGORIES_PER_COMPANY`].
pub fn check_new(category: &Category, existing: &[Category]) -> Result<(), StoreError> {
    let refuse = |why: String| Err(StoreError::Refused(why));
    let name = category.name.trim();
    if name.is_empty() {
        return refuse("a category needs a name".into());
    }
    if name.chars().count() > MAX_CATEGORY_NAME_CHARS {
        return refuse(format!(
            "a category name has at most {MAX_CATEGORY_NAME_CHARS} characters"
        ));
    }
    if let Err(error) = category.attribute().validate() {
        return refuse(format!("the name cannot be an attribute value: {error}"));
    }
    if category.id < 1 {
        return refuse("a category id is a positive integer".into());
    }
    if category.required_attributes.len() > MAX_REQUIRED_ATTRIBUTES {
        return refuse(format!(
            "a category requires at most {MAX_REQUIRED_ATTRIBUTES} attributes"
        ));
    }
    for required in &category.required_attributes {
        if required.trim().is_empty()
            || required.contains(['=', '|', '(', ')'])
            || required.chars().any(char::is_control)
        {
            return refuse(format!(
                "required attribute \"{required}\" is not an attribute name (no =, |, \
                 parentheses or control characters)"
            ));
        }
    }
    if existing.len() >= MAX_CATEGORIES_PER_COMPANY {
        return refuse(format!(
            "a company has at most {MAX_CATEGORIES_PER_COMPANY} categories"
        ));
    }
    if let Some(taken) = existing.iter().find(|other| other.id == category.id) {
        return refuse(format!(
            "category id {} is taken by {}; choose another or remove it first",
            category.id, taken.name
        ));
    }
    if existing
        .iter()
        .any(|other| name_key(&other.name) == name_key(name))
    {
        return refuse(format!("a category named {name} exists already"));
    }
    Ok(())
}

/// The id a new category gets when none is asked for: one more than the largest.
pub fn next_id(existing: &[Category]) -> i64 {
    existing
        .iter()
        .map(|category| category.id)
        .max()
        .unwrap_or(0)
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn category(id: i64, name: &str, required: &[&str]) -> Category {
        Category {
            id,
            name: name.into(),
            required_attributes: required.iter().map(|name| (*name).to_owned()).collect(),
        }
    }

    #[test]
    fn names_ids_and_required_attributes_are_checked() {
        let existing = vec![category(1, "Drawings", &[])];
        assert!(check_new(&category(2, "Models", &["material"]), &existing).is_ok());
        for refused in [
            category(1, "Models", &[]),
            category(2, "drawings", &[]),
            category(2, " ", &[]),
            category(0, "Models", &[]),
            category(2, "a|b", &[]),
            category(2, "Models", &["bad=name"]),
        ] {
            assert!(check_new(&refused, &existing).is_err(), "{refused:?}");
        }
        assert_eq!(next_id(&existing), 2);
        assert_eq!(next_id(&[]), 1);
    }

    #[test]
    fn missing_required_attributes_are_named_case_insensitively() {
        let models = category(2, "Models", &["Material", "revision"]);
        let given = vec![Attribute::parse("material=steel").unwrap()];
        assert_eq!(models.missing_from(&given), ["revision"]);
    }
}
