//! Assembly relations as the client reads them: one entry of a record's `AssemblyChildren` or
//! `AssemblyParents`. The interface leaves the entry's shape open, so an entry is read leniently:
//! a plain UID string, or an object with a `UID` (or `FileUID`, `ID`) and, where the service gives
//! them, `FileName`, `DisplayName`, `Quantity` (a number or a numeric string) and
//! `ReferenceDesignator` — the shape partlens-service sends (docs/ARCHITECTURE.md, the wire rules).
//!
//! A search result or a Library file says how many relations it has without listing them
//! ([`RelationCounts`]): partlens-service adds `AssemblyChildCount` and `AssemblyParentCount`; a
//! service that lists `AssemblyChildren` / `AssemblyParents` on results is counted from the lists.

use serde_json::Value;

use super::model::{FileMap, SearchResultItem, title_of};
use super::uid::FileUid;

/// One assembly relation of a record: the other file and how the assembly uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// The other file.
    pub uid: FileUid,
    /// Its stored name, when the entry says (empty otherwise).
    pub file_name: String,
    /// Its display name, when the entry says (empty otherwise).
    pub display_name: String,
    /// How many of the component the assembly holds, when the entry says.
    pub quantity: Option<u32>,
    /// The component's reference designator in the assembly, when the entry gives one.
    pub reference_designator: Option<String>,
}

impl Relation {
    /// Reads one entry; `None` for an entry that names no file (it is skipped, never guessed).
    pub fn parse(entry: &Value) -> Option<Self> {
        match entry {
            Value::String(uid) if !uid.trim().is_empty() => Some(Self {
                uid: FileUid::from_reply(uid.trim()),
                file_name: String::new(),
                display_name: String::new(),
                quantity: None,
                reference_designator: None,
            }),
            Value::Object(_) => {
                let text = |names: &[&str]| {
                    field(entry, names)
                        .and_then(Value::as_str)
                        .map(str::trim)
                        .unwrap_or_default()
                        .to_owned()
                };
                let uid = text(&["UID", "FileUID", "ID"]);
                if uid.is_empty() {
                    return None;
                }
                let designator = text(&["ReferenceDesignator"]);
                Some(Self {
                    uid: FileUid::from_reply(&uid),
                    file_name: text(&["FileName"]),
                    display_name: text(&["DisplayName", "Name"]),
                    quantity: field(entry, &["Quantity"]).and_then(quantity),
                    reference_designator: (!designator.is_empty()).then_some(designator),
                })
            }
            _ => None,
        }
    }

    /// The name to show: the display name, else the last part of the stored name, else the UID.
    pub fn title(&self) -> String {
        let title = title_of(&self.display_name, &self.file_name);
        if title.is_empty() {
            self.uid.to_string()
        } else {
            title.to_owned()
        }
    }
}

/// The first field of an object whose name is one of `names` (any case).
fn field<'a>(entry: &'a Value, names: &[&str]) -> Option<&'a Value> {
    entry.as_object().and_then(|fields| {
        fields
            .iter()
            .find(|(key, _)| names.iter().any(|name| key.eq_ignore_ascii_case(name)))
            .map(|(_, value)| value)
    })
}

/// A quantity from a number or a numeric string; zero or a fraction is no quantity.
fn quantity(value: &Value) -> Option<u32> {
    let number = match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => text.trim().parse::<u64>().ok(),
        _ => None,
    }?;
    u32::try_from(number).ok().filter(|&count| count > 0)
}

/// Reads every entry of a relation list that names a file.
pub fn relations(entries: &[Value]) -> Vec<Relation> {
    entries.iter().filter_map(Relation::parse).collect()
}

impl FileMap {
    /// The assembly's components (its `AssemblyChildren`), read leniently.
    pub fn components(&self) -> Vec<Relation> {
        relations(&self.assembly_children)
    }

    /// The assemblies that use this file directly (its `AssemblyParents`), read leniently.
    pub fn used_in(&self) -> Vec<Relation> {
        relations(&self.assembly_parents)
    }
}

/// How many assembly relations a search result or a Library file has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelationCounts {
    /// Its direct components (it is an assembly when there are any).
    pub components: usize,
    /// The assemblies that use it directly.
    pub used_in: usize,
}

/// The search-result field that counts a file's direct components (partlens-service's extension).
pub const CHILD_COUNT_FIELD: &str = "AssemblyChildCount";
/// The search-result field that counts the assemblies that use a file directly.
pub const PARENT_COUNT_FIELD: &str = "AssemblyParentCount";

impl RelationCounts {
    /// "assembly of 3 parts", "used in 2 assemblies", both joined by " · ", or `None` for a file
    /// with no relations.
    pub fn label(&self) -> Option<String> {
        let mut words = Vec::new();
        if self.components > 0 {
            let noun = if self.components == 1 {
                "part"
            } else {
                "parts"
            };
            words.push(format!("assembly of {} {noun}", self.components));
        }
        if self.used_in > 0 {
            let noun = if self.used_in == 1 {
                "assembly"
            } else {
                "assemblies"
            };
            words.push(format!("used in {} {noun}", self.used_in));
        }
        (!words.is_empty()).then(|| words.join(" · "))
    }
}

impl SearchResultItem {
    /// How many relations the result has, from the count fields or the lists the service sent
    /// (none when it sent neither).
    pub fn relation_counts(&self) -> RelationCounts {
        let count = |count_field: &str, list_field: &str| {
            self.extra
                .get(count_field)
                .and_then(Value::as_u64)
                .and_then(|count| usize::try_from(count).ok())
                .or_else(|| {
                    self.extra
                        .get(list_field)
                        .and_then(Value::as_array)
                        .map(|list| relations(list).len())
                })
                .unwrap_or(0)
        };
        RelationCounts {
            components: count(CHILD_COUNT_FIELD, "AssemblyChildren"),
            used_in: count(PARENT_COUNT_FIELD, "AssemblyParents"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_are_read_from_strings_and_objects_of_any_service() {
        let entries = [
            json!("9a1b2c3d-4f89-41d3-9a0c-0305e82c3302"),
            json!({"UID": "aaaaaaaa-4f89-41d3-9a0c-0305e82c3303", "FileName": "Parts/as1/nut.step",
                   "DisplayName": "", "Quantity": 2, "ReferenceDesignator": "N1"}),
            json!({"fileuid": "bbbbbbbb-4f89-41d3-9a0c-0305e82c3304", "Name": "Bolt", "Quantity": "3"}),
            json!({"DisplayName": "no uid"}),
            json!({"UID": "cccccccc-4f89-41d3-9a0c-0305e82c3305", "Quantity": 0.5}),
            json!(42),
        ];
        let read = relations(&entries);
        assert_eq!(read.len(), 4, "{read:?}");
        assert_eq!(read[0].title(), "9a1b2c3d-4f89-41d3-9a0c-0305e82c3302");
        assert_eq!(read[0].quantity, None);
        assert_eq!(read[1].title(), "nut.step");
        assert_eq!(read[1].quantity, Some(2));
        assert_eq!(read[1].reference_designator.as_deref(), Some("N1"));
        assert_eq!(read[2].title(), "Bolt");
        assert_eq!(read[2].quantity, Some(3));
        assert_eq!(read[3].quantity, None, "a fraction is no quantity");
    }

    #[test]
    fn a_result_counts_its_relations_from_counts_or_lists() {
        let item: SearchResultItem = serde_json::from_value(json!({
            "UID": "dddddddd-4f89-41d3-9a0c-0305e82c3306",
            "AssemblyChildCount": 3,
            "AssemblyParents": ["aaaaaaaa-4f89-41d3-9a0c-0305e82c3303"],
        }))
        .unwrap();
        let counts = item.relation_counts();
        assert_eq!(
            counts,
            RelationCounts {
                components: 3,
                used_in: 1
            }
        );
        assert_eq!(
            counts.label().as_deref(),
            Some("assembly of 3 parts · used in 1 assembly")
        );
        assert_eq!(RelationCounts::default().label(), None);
        let used = RelationCounts {
            components: 0,
            used_in: 2,
        };
        assert_eq!(used.label().as_deref(), Some("used in 2 assemblies"));
    }

    #[test]
    fn a_record_gives_its_components_and_where_it_is_used() {
        let record: FileMap = serde_json::from_value(json!({
            "UID": "dddddddd-4f89-41d3-9a0c-0305e82c3306",
            "AssemblyChildren": [{"UID": "aaaaaaaa-4f89-41d3-9a0c-0305e82c3303", "Quantity": 3}],
            "AssemblyParents": null,
        }))
        .unwrap();
        assert_eq!(record.components()[0].quantity, Some(3));
        assert!(record.used_in().is_empty());
    }
}
