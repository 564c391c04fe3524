//! A filter's selections on PostgreSQL: for a free-text word of three characters or more, the
//! files holding one of its terms (`search_postings`); for an attribute term, the files with a
//! value that satisfies it (`attribute_values`). Each is a set of file UIDs, written in SQL
//! either as a sub-select of them ([`Selection::uids`]) or as a check on one file
//! ([`Selection::held_by`]).
//!
//! Both tables carry `shown_company` (schema step 9): the company of the row's file while a
//! search may show it (a database file whose indexing has ended), `NULL` otherwise, kept by
//! triggers on the files. A selection keeps only the rows shown in the searching company, so on
//! its own it is the answer to a filter without other conditions: counted from its index alone
//! (`search_postings_shown`, `attribute_values_shown`), without a join with the files.
//!
//! One term's postings, and the values of one attribute that never had two values on a file, are
//! counted from fewer rows still: the counts of the company's shown rows by term and by value
//! that schema step 10's triggers keep (`shown_term_counts`, `shown_value_counts`;
//! [`Selection::counted`]).

use super::arguments::Arguments;

/// The most terms a word's selection gives the planner as an array of ids it weighs one by one;
/// past it, behind a sub-select ([`Selection::holding_terms`]). At 1.5 µs an id, 0.15 ms.
const TERMS_THE_PLANNER_WEIGHS: usize = 100;

/// Where a selection's rows are.
#[derive(Clone, Copy)]
enum Source {
    /// The postings of `terms` terms.
    Postings { terms: usize },
    /// Attribute values; `one_a_file` when they are of one attribute that no file ever had two
    /// values of, so that a file has at most one row in the selection.
    Values { one_a_file: bool },
}

/// One selection of files, its SQL written with the placeholders of the arguments it was made
/// with.
pub(crate) struct Selection {
    /// The table its rows are in.
    source: Source,
    /// What a row must satisfy, on the table's alias, besides being shown in the company.
    condition: String,
    /// The placeholder of the searching company.
    company: String,
}

impl Selection {
    /// The files of `company` (placeholder) holding any of the terms whose ids are the array
    /// placeholder `term_ids`, `terms` of them.
    ///
    /// Past [`TERMS_THE_PLANNER_WEIGHS`] the ids are given behind a sub-select: estimating the
    /// selectivity of each id of an array takes the planner 6–8 ms for the 4,481 terms of a part
    /// number's fragment (0.6 ms behind the sub-select), in each statement that reads them.
    pub(crate) fn holding_terms(company: &str, term_ids: &str, terms: usize) -> Selection {
        let condition = if terms > TERMS_THE_PLANNER_WEIGHS {
            format!("p.term_id = ANY(ARRAY(SELECT unnest({term_ids}::bigint[])))")
        } else {
            format!("p.term_id = ANY({term_ids})")
        };
        Selection {
            source: Source::Postings { terms },
            condition,
            company: company.to_owned(),
        }
    }

    /// The files of `company` (placeholder) with a value of one of the attributes whose ids are
    /// the array placeholder `attribute_ids` that satisfies `condition` (on row `v`, its
    /// `v.value_key` only, so that it reads the values' counts too); `one_a_file` when they are
    /// one attribute that no file ever had two values of.
    pub(crate) fn with_value(
        company: &str,
        attribute_ids: &str,
        condition: &str,
        one_a_file: bool,
    ) -> Selection {
        Selection {
            source: Source::Values { one_a_file },
            condition: format!("v.attribute_id = ANY({attribute_ids}) AND {condition}"),
            company: company.to_owned(),
        }
    }

    /// The table and the alias of its rows.
    fn table_and_row(&self) -> (&'static str, &'static str) {
        match self.source {
            Source::Postings { .. } => ("search_postings p", "p"),
            Source::Values { .. } => ("attribute_values v", "v"),
        }
    }

    /// Whether a file has at most one row in the selection (one term's postings, one attribute
    /// that is one value a file), so that its rows can be counted without removing repeats.
    pub(crate) fn one_row_a_file(&self) -> bool {
        matches!(
            self.source,
            Source::Postings { terms: 1 } | Source::Values { one_a_file: true }
        )
    }

    /// `SELECT` the number of files selected, from the counts of the company's shown rows by term
    /// or by value (schema step 10), when a file has at most one row in the selection; `None`
    /// otherwise. A few rows read (the values of a prefix: one a distinct value) where the
    /// selection's index holds one a file (100,000 for a word every file holds: 18–28 ms).
    fn counted(&self) -> Option<String> {
        if !self.one_row_a_file() {
            return None;
        }
        let Selection {
            condition, company, ..
        } = self;
        Some(match self.source {
            Source::Postings { .. } => format!(
                "SELECT coalesce(sum(p.files), 0)::bigint FROM shown_term_counts p
                 WHERE {condition} AND p.company_id = {company}"
            ),
            Source::Values { .. } => format!(
                "SELECT coalesce(sum(v.value_rows), 0)::bigint FROM shown_value_counts v
                 WHERE {condition} AND v.company_id = {company}"
            ),
        })
    }

    /// Whether files are expected to come out several times from [`Selection::uids`] (a word held
    /// by several terms); an attribute's values, one a file most often, are not.
    pub(crate) fn repeats_files(&self) -> bool {
        matches!(self.source, Source::Postings { terms } if terms > 1)
    }

    /// `SELECT file_uid …`: the selected files' UIDs (a file may come out more than once).
    pub(crate) fn uids(&self) -> String {
        let (table, row) = self.table_and_row();
        let Selection {
            condition, company, ..
        } = self;
        format!(
            "SELECT {row}.file_uid FROM {table} WHERE {condition} AND {row}.shown_company = {company}"
        )
    }

    /// `true` when the file of table alias `f` is selected, `NULL` when not: a sub-select run for
    /// each file, through the index by file, never a list of every selected file.
    pub(crate) fn held_by(&self, f: &str) -> String {
        let (table, row) = self.table_and_row();
        let Selection {
            condition, company, ..
        } = self;
        let shown = match self.source {
            Source::Postings { .. } => format!("{row}.shown_company = {company}"),
            // The attribute values' shown index, bounded by a value range the planner
            // underestimates (17 rows for 8,165), looked like the cheaper way to check one file
            // and read the range again for every walked file (4 s for 2,346). `IS NOT DISTINCT
            // FROM` (the same for a company, never NULL) does not imply `IS NOT NULL`, so that
            // partial index cannot be taken: the file's own values are, through the index by file.
            Source::Values { .. } => {
                format!("{row}.shown_company IS NOT DISTINCT FROM {company}")
            }
        };
        format!(
            "(SELECT true FROM {table} WHERE {row}.file_uid = {f}.uid AND {condition} AND {shown} \
             LIMIT 1)"
        )
    }
}

/// The UIDs every one of `selections` selects, as one sub-select (`INTERSECT`: one semi-join a
/// term made planning a filter of the 400 terms allowed take tens of seconds); a file may come
/// out more than once when there is one selection.
pub(crate) fn selected_by_every(selections: &[Selection]) -> String {
    selections
        .iter()
        .map(Selection::uids)
        .collect::<Vec<_>>()
        .join(" INTERSECT ")
}

/// A statement counting the files every one of `selections` selects (at least one).
pub(crate) fn count_of_selected(selections: &[Selection]) -> String {
    match selections {
        [one] => one.counted().unwrap_or_else(|| {
            format!(
                "SELECT count(*) FROM (SELECT DISTINCT s.file_uid FROM ({}) s) d",
                one.uids()
            )
        }),
        several => format!("SELECT count(*) FROM ({}) s", selected_by_every(several)),
    }
}

/// The condition on `value` (a text column or expression) that it starts with `prefix`, as a
/// range of bytes (`COLLATE "C"`) an index on the column in that collation bounds: `value >=
/// prefix AND value < next`, where `next` is the first text after every text that starts with
/// `prefix` (its last character that can be, increased by one). The arguments are pushed.
pub(crate) fn starts_with_range(arguments: &mut Arguments, value: &str, prefix: &str) -> String {
    let low = arguments.push(prefix.to_owned());
    let mut condition = format!("{value} COLLATE \"C\" >= {low}");
    if let Some(next) = first_text_after_prefix(prefix) {
        let high = arguments.push(next);
        condition.push_str(&format!(" AND {value} COLLATE \"C\" < {high}"));
    }
    condition
}

/// The least text greater than every text starting with `prefix`, in byte order (which is code
/// point order in UTF-8): the prefix with its last character that is not the greatest one
/// increased (over the surrogates, which are no characters) and what follows it dropped; `None`
/// when there is none (an empty prefix, or one of greatest characters only).
fn first_text_after_prefix(prefix: &str) -> Option<String> {
    let mut characters: Vec<char> = prefix.chars().collect();
    while let Some(last) = characters.pop() {
        let next = match last {
            '\u{D7FF}' => Some('\u{E000}'),
            other => char::from_u32(u32::from(other) + 1),
        };
        if let Some(next) = next {
            characters.push(next);
            return Some(characters.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_after_a_prefix_bounds_exactly_the_texts_that_start_with_it() {
        assert_eq!(first_text_after_prefix("sta").as_deref(), Some("stb"));
        assert_eq!(first_text_after_prefix("a\u{10FFFF}").as_deref(), Some("b"));
        assert_eq!(
            first_text_after_prefix("\u{D7FF}").as_deref(),
            Some("\u{E000}")
        );
        assert_eq!(first_text_after_prefix("é").as_deref(), Some("ê"));
        assert_eq!(first_text_after_prefix(""), None);
        assert_eq!(first_text_after_prefix("\u{10FFFF}"), None);
        // Byte order (Rust's `str` order) of texts around a prefix.
        let prefix = "st\u{FFFF}";
        let next = first_text_after_prefix(prefix).unwrap();
        for text in ["st\u{FFFF}", "st\u{FFFF}\u{10FFFF}x", "st\u{FFFF}a"] {
            assert!(text >= prefix && text < next.as_str(), "{text:?}");
        }
        for text in ["st\u{FFFE}\u{10FFFF}", "st\u{10000}", "su", "st"] {
            assert!(!(text >= prefix && text < next.as_str()), "{text:?}");
        }
    }

    #[test]
    fn one_terms_postings_and_one_value_a_file_are_counted_from_the_counts() {
        let mut arguments = Arguments::default();
        let company = arguments.push("c".to_owned());
        let one = Selection::holding_terms(&company, "$2", 1);
        assert!(count_of_selected(&[one]).contains("FROM shown_term_counts p"));
        let one_value = Selection::with_value(&company, "$3", "true", true);
        assert!(count_of_selected(&[one_value]).contains("FROM shown_value_counts v"));
        let several = Selection::holding_terms(&company, "$2", 3);
        assert!(several.counted().is_none());
        assert!(count_of_selected(&[several]).contains("DISTINCT"));
        let several_values = Selection::with_value(&company, "$3", "true", false);
        assert!(count_of_selected(&[several_values]).contains("DISTINCT"));
        let words = [
            Selection::holding_terms(&company, "$2", 1),
            Selection::with_value(&company, "$3", "true", true),
        ];
        assert!(count_of_selected(&words).contains(" INTERSECT "));
        // Many terms are given behind a sub-select, not weighed one by one by the planner.
        let many = Selection::holding_terms(&company, "$2", TERMS_THE_PLANNER_WEIGHS + 1);
        assert!(
            many.uids()
                .contains("ANY(ARRAY(SELECT unnest($2::bigint[])))")
        );
    }
}
