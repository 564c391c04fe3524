//! The text free-text search looks in, one lower-cased text of each file record: stored path,
//! display name, saved attributes (names and values), extracted attributes and extracted text; and
//! its terms, which free-text words of three characters or more are found through.
//!
//! Both engines keep it in the record and rebuild it after every write that changes one of those
//! fields, in the same transaction; the term index follows it there too.
//!
//! Why terms and not the whole text in a trigram index: a trigram phrase costs in proportion to
//! how many texts hold each of its trigrams, and in a large library every trigram of an ordinary
//! word is in a large share of the texts (at 100,000 records a word took 8 ms p95, ten times that
//! expected at a million). The distinct terms are far fewer than the texts' trigrams, so the
//! substring match runs over the terms, and the files come from the postings of the few terms that
//! matched.
//!
//! Exact, not approximate: a query word has no whitespace in it (the query is split on whitespace
//! first, by the same rule — Unicode `White_Space` — as the text here), so wherever it occurs in a
//! search text it lies inside one whitespace-separated term; it occurs in the text exactly when it
//! occurs in one of the text's terms, as a substring search over the whole text finds it.
//!
//! Limits: a file's terms are bounded by its search text, at most
//! `ServiceLimits::max_search_text_bytes` (2 MiB), so at most about 700,000 distinct terms a file
//! (two characters and a space each).

use std::collections::BTreeSet;

/// The fields of a record the search text is made of.
#[derive(Clone, Copy, Debug)]
pub struct SearchedFields<'a> {
    /// The stored path.
    pub stored_path: &'a str,
    /// The display name.
    pub display_name: &'a str,
    /// The saved attributes in their wire form, in order.
    pub saved_attributes: &'a [String],
    /// The extracted attributes (`name=value`).
    pub extracted_attributes: &'a [String],
    /// The extracted text.
    pub text: &'a str,
}

impl SearchedFields<'_> {
    /// The search text: each field on a line of its own, lower-cased.
    pub fn search_text(&self) -> String {
        let mut search_text = format!("{}\n{}\n", self.stored_path, self.display_name);
        for line in self
            .saved_attributes
            .iter()
            .chain(self.extracted_attributes)
        {
            search_text.push_str(line);
            search_text.push('\n');
        }
        search_text.push_str(self.text);
        search_text.to_lowercase()
    }
}

/// The distinct terms of a search text: its maximal runs of non-whitespace characters.
pub fn terms_of(search_text: &str) -> BTreeSet<&str> {
    search_text.split_whitespace().collect()
}

/// Characters a free-text word needs to go through the term index (shorter ones are checked on
/// every file's text).
pub const INDEXED_WORD_CHARS: usize = 3;

/// The distinct words of a free-text term, lower-cased.
pub fn words_of(text: &str) -> BTreeSet<String> {
    text.split_whitespace().map(str::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_text_holds_every_field_lower_cased_a_line_each() {
        let fields = SearchedFields {
            stored_path: "Design/Pump Housing.png",
            display_name: "Pump Housing.png",
            saved_attributes: &["Material=Steel|Brass".into()],
            extracted_attributes: &["Width_px=128".into()],
            text: "Ø60 H7 FLANGE",
        };
        assert_eq!(
            fields.search_text(),
            "design/pump housing.png\npump housing.png\nmaterial=steel|brass\nwidth_px=128\nø60 h7 flange"
        );
    }

    #[test]
    fn terms_are_split_on_every_kind_of_whitespace() {
        let terms: Vec<&str> = terms_of("flange Ø60 H7\u{a0}bolt\u{3000}circle flange")
            .into_iter()
            .collect();
        assert_eq!(terms, ["H7", "bolt", "circle", "flange", "Ø60"]);
    }
}
