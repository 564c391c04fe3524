//! A set of files by GUID: what a broad metadata filter matches, held in memory so that a visual
//! search's candidates are checked against it without asking the store.
//!
//! Limits: 16 bytes a file (a million files: 16 MB); a lookup is a binary search (about 20 steps
//! for a million).

/// Files by GUID, kept as their sorted 128-bit numbers: 16 bytes a file, looked up by binary
/// search (a filter that 150,000 files match: 2.4 MB). A name that is not a GUID is left out: no
/// graph holds such a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuidSet(Vec<u128>);

impl GuidSet {
    /// The set of `uids` (names that are not GUIDs are left out).
    pub fn new<S: AsRef<str>>(uids: impl IntoIterator<Item = S>) -> Self {
        let mut numbers: Vec<u128> = uids
            .into_iter()
            .filter_map(|uid| guid_number(uid.as_ref()))
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        Self(numbers)
    }

    /// True when `uid` is a GUID of the set.
    pub fn contains(&self, uid: &str) -> bool {
        guid_number(uid).is_some_and(|number| self.contains_number(number))
    }

    /// True when the GUID whose 128-bit number is `number` is of the set.
    pub fn contains_number(&self, number: u128) -> bool {
        self.0.binary_search(&number).is_ok()
    }

    /// How many files the set holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when the set holds no file.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn guid_number(uid: &str) -> Option<u128> {
    uuid::Uuid::try_parse(uid).ok().map(|uid| uid.as_u128())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guid_set_holds_its_guids_in_any_spelling_and_nothing_else() {
        let first = "0b6d9a52-3c1f-4a7e-9e2b-5d8c7f1a2b3c";
        let second = "ffffffff-0000-4000-8000-000000000001";
        let set = GuidSet::new([first, second, first, "not a guid"]);
        assert_eq!(
            set.len(),
            2,
            "duplicates and names that are not GUIDs left out"
        );
        assert!(set.contains(first));
        assert!(
            set.contains(&first.to_uppercase()),
            "the same GUID in capitals"
        );
        assert!(set.contains(second));
        assert!(!set.contains("0b6d9a52-3c1f-4a7e-9e2b-5d8c7f1a2b3d"));
        assert!(!set.contains("not a guid"));
        assert!(GuidSet::default().is_empty());
    }
}
