//! The metadata side of search as its users see it: a file that passed a filter's FT conditions.
//!
//! What each kind of term means, in both engines: free text, every word occurs in the stored path,
//! display name, attributes, extracted attributes or extracted text ([`super::search_text`],
//! case-insensitive); regular `name=value`, some value of the attribute contains the text; exact
//! `name=[value]`, some single value equals it (a multi-valued attribute matches on any one);
//! prefix `name=start*`, some value starts with it; range `name=low..high unit`, see
//! [`super::range`]. The files are a company's database files whose indexing has ended
//! (completed, or failed with the words read from them), ordered by display name with ASCII
//! letters folded, compared by bytes, then UID.

use std::cmp::Ordering;

/// A file that passed the filters: its UID and display name (the order of a search without inputs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Canonical UID.
    pub uid: String,
    /// Display name.
    pub display_name: String,
}

impl Candidate {
    /// The order of a filter's files: the display name's bytes with ASCII letters folded, then
    /// the UID (SQLite's `display_name COLLATE NOCASE, uid`).
    pub fn name_order(&self, other: &Self) -> Ordering {
        fn folded(name: &str) -> impl Iterator<Item = u8> + '_ {
            name.bytes().map(|byte| byte.to_ascii_lowercase())
        }
        folded(&self.display_name)
            .cmp(folded(&other.display_name))
            .then_with(|| self.uid.cmp(&other.uid))
    }
}

/// Sorts files in [`Candidate::name_order`]: each name folded once (not at each comparison).
pub fn sort_in_name_order(found: &mut [Candidate]) {
    let folded = |name: &str| -> Vec<u8> { name.bytes().map(|b| b.to_ascii_lowercase()).collect() };
    found.sort_by_cached_key(|candidate| (folded(&candidate.display_name), candidate.uid.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_with_ascii_letters_folded_by_bytes_then_by_uid() {
        let candidate = |uid: &str, name: &str| Candidate {
            uid: uid.into(),
            display_name: name.into(),
        };
        let mut found = vec![
            candidate("2", "écrou"),
            candidate("3", "Bracket"),
            candidate("1", "bracket"),
            candidate("4", "_part"),
            candidate("5", "Z"),
        ];
        sort_in_name_order(&mut found);
        let uids: Vec<&str> = found.iter().map(|found| found.uid.as_str()).collect();
        assert_eq!(uids, ["4", "1", "3", "5", "2"]);
        assert_eq!(found[1].name_order(&found[2]), Ordering::Less);
    }
}
