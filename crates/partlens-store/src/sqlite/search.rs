//! The metadata side of search on SQLite: which of a company's database files (indexed, or failed
//! with the words read from them) satisfy every FT condition ([`crate::model::search`]), done in
//! SQL over the lower-cased search text and the per-value attribute rows.
//!
//! Conditions go through indexes, each a sub-select the planner can start from: free-text words of
//! three characters or more through the term index of the search text (`text_terms.rs`: a
//! trigram index of the distinct terms, then the files holding the terms that matched), shorter ones
//! by scanning the text; exact and prefix attribute terms through the
//! `(attribute_id, value_key)` index (a prefix as a range of that index); a regular attribute term
//! (a substring of a value) by scanning the values of that attribute. The plain scan the text index
//! replaced is kept as [`SearchTx::matching_database_files_by_scanning`], the benchmark's baseline.

use std::collections::HashSet;

use rusqlite::Connection;
use rusqlite::types::Value;

use super::SqliteTx;
use super::text_terms::FILE_KEYS_HOLDING_WORD;
use crate::error::StoreError;
use crate::model::range::EXTENTS_ATTRIBUTE;
use crate::model::search_text::INDEXED_WORD_CHARS;
use crate::model::{Candidate, NumericRange, RangeSubject, name_key, value_key};
use crate::rows;
use crate::traits::{SearchSteps, SearchTx};
use partlens_api::FilterTerm;
use partlens_api::attribute::split_unit;

/// Appends the SQL condition of one attribute term: some value of attribute `name` (unit compared
/// only when the name carries one) satisfies `value_condition`.
///
/// Either as a sub-select of files by the `(attribute_id, value_key)` index, so that an exact or
/// prefix term can drive the query, or (`per_file`, when the caller lists the files to check) as a
/// look-up of each listed file's values: SQLite evaluates an `IN` sub-select whole before it
/// checks the first file, so a broad term checked on a few files read every file holding it (at a
/// million records, 1.3 s to check 1,200 files against a material 30 % of them have).
fn attribute_condition(
    sql: &mut String,
    arguments: &mut Vec<Value>,
    company_id: &str,
    per_file: bool,
    name: &str,
    value_condition: &str,
    value_arguments: Vec<Value>,
) {
    let (name, unit) = split_unit(name);
    sql.push_str(if per_file {
        " AND EXISTS (SELECT 1 FROM attribute_values v
           WHERE v.file_uid = f.uid AND v.attribute_id IN (SELECT a.id FROM attribute_names a
               WHERE a.company_id = ? AND a.name_key = ?"
    } else {
        " AND f.uid IN (SELECT v.file_uid FROM attribute_values v
           WHERE v.attribute_id IN (SELECT a.id FROM attribute_names a
               WHERE a.company_id = ? AND a.name_key = ?"
    });
    arguments.push(Value::Text(company_id.to_owned()));
    arguments.push(Value::Text(name_key(name)));
    if let Some(unit) = unit {
        sql.push_str(" AND a.unit_key = ?");
        arguments.push(Value::Text(name_key(unit)));
    }
    sql.push_str(") AND ");
    sql.push_str(value_condition);
    sql.push(')');
    arguments.extend(value_arguments);
}

/// The SQL of the number a value (`v.value_key`: trimmed, lower-cased) is when it is a plain number
/// (an optional `-`, digits, at most one decimal point or comma, a digit first and last), NULL
/// otherwise: the numbers `partlens_api::range::parse_number` reads.
fn value_number() -> String {
    let d = "(CASE WHEN substr(v.value_key, 1, 1) = '-' THEN substr(v.value_key, 2) ELSE v.value_key END)";
    format!(
        "(CASE WHEN {d} GLOB '[0-9]*' AND {d} GLOB '*[0-9]' AND {d} NOT GLOB '*[^0-9.,]*'
              AND length({d}) - length(replace(replace({d}, '.', ''), ',', '')) <= 1
         THEN CAST(replace(v.value_key, ',', '.') AS REAL) END)"
    )
}

/// The condition (`number >= ? AND number <= ?`, an open end left out) and its arguments that a
/// number lies in `range`.
fn bounds_condition(number: &str, range: &NumericRange<'_>) -> (String, Vec<Value>) {
    let mut conditions = vec!["1".to_owned()];
    let mut arguments = Vec::new();
    for (bound, operator) in [(range.low, ">="), (range.high, "<=")] {
        if let Some(bound) = bound {
            conditions.push(format!("{number} {operator} ?"));
            arguments.push(Value::Real(bound));
        }
    }
    (conditions.join(" AND "), arguments)
}

/// Appends the condition of a range over a model's size: the file's extracted attributes (read from
/// `files`, whichever table `f` is) hold [`EXTENTS_ATTRIBUTE`] as `a×b×c`, and the extent of that
/// rank (smallest, middle, largest) lies in the range. Checked on each file the other conditions
/// leave (the extents have no index).
fn size_condition(
    sql: &mut String,
    arguments: &mut Vec<Value>,
    extent: partlens_api::range::SizeExtent,
    range: &NumericRange<'_>,
) {
    let extent = match extent.rank() {
        0 => "min(a, b, c)",
        1 => "max(min(a, b), min(max(a, b), c))",
        _ => "max(a, b, c)",
    };
    let (bounds, values) = bounds_condition(extent, range);
    sql.push_str(&format!(
        " AND EXISTS (SELECT 1 FROM (
             SELECT CAST(x AS REAL) AS a, CAST(y AS REAL) AS b,
                    CAST(substr(y, instr(y, '×') + 1) AS REAL) AS c
             FROM (SELECT x, substr(x, instr(x, '×') + 1) AS y FROM (
                 SELECT trim(substr(e.value, instr(e.value, '=') + 1)) AS x
                 FROM json_each((SELECT s.extracted_attributes FROM files s WHERE s.uid = f.uid)) e
                 WHERE e.type = 'text' AND instr(e.value, '=') > 1
                   AND lower(trim(substr(e.value, 1, instr(e.value, '=') - 1))) = ?)
               WHERE instr(x, '×') > 0)
             WHERE instr(y, '×') > 0)
           WHERE {bounds})"
    ));
    arguments.push(Value::Text(EXTENTS_ATTRIBUTE.to_lowercase()));
    arguments.extend(values);
}

/// Appends the condition of a range term: [`size_condition`] for a size name, otherwise through
/// `attribute` (the caller's way of checking some value of an attribute) that some value is a
/// number in the range.
fn range_condition(
    sql: &mut String,
    arguments: &mut Vec<Value>,
    term: &FilterTerm,
    attribute: impl FnOnce(&mut String, &mut Vec<Value>, &str, &str, Vec<Value>),
) {
    let Some(range) = NumericRange::of(term) else {
        return;
    };
    match range.subject {
        RangeSubject::Size(extent) => size_condition(sql, arguments, extent, &range),
        RangeSubject::Attribute(name) => {
            let (condition, values) = bounds_condition(&value_number(), &range);
            attribute(sql, arguments, name, &condition, values);
        }
    }
}

/// An FTS5 query that finds `word` as a substring (a phrase, quotes doubled).
fn substring_phrase(word: &str) -> String {
    format!("\"{}\"", word.replace('"', "\"\""))
}

/// The upper end of the range of values that start with `prefix`: no character sorts after
/// U+10FFFF, so every value that starts with `prefix` is below `prefix` followed by it (except one
/// that has that very noncharacter right after the prefix, which the `substr` check then misses).
fn prefix_end(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

/// A free-text word of three characters or more that at least this share of all stored files hold
/// is checked on each of the company's files (`instr` over its search text) instead of listing the
/// files from the term index: listing costs a few look-ups a file found (at 100,000 records a word
/// every record holds took 430 ms listed against 130 ms scanned), so from about a third of the files
/// reading them all in order is cheaper.
const BROAD_WORD_SHARE: f64 = 0.25;

/// A word is listed from the term index whatever its share while fewer files than this hold it (a
/// small library is fast either way, and its searches take the same path as a large one's).
const BROAD_WORD_MIN_FILES: i64 = 2_000;

/// True when at least [`BROAD_WORD_SHARE`] of all stored files, and at least
/// [`BROAD_WORD_MIN_FILES`], hold `word` (an FTS5 phrase): counts
/// the word's postings, stopping at that share, so a selective word costs its few postings and a
/// broad one no more than a fraction of the scan it is then given.
fn word_is_broad(connection: &Connection, phrase: &str) -> Result<bool, StoreError> {
    let files: i64 = connection
        .prepare_cached("SELECT coalesce(max(id), 0) FROM file_listing")?
        .query_row([], |row| row.get(0))?;
    let enough = ((files as f64 * BROAD_WORD_SHARE).ceil() as i64).max(BROAD_WORD_MIN_FILES);
    let held: i64 = connection
        .prepare_cached(&format!(
            "SELECT count(*) FROM ({FILE_KEYS_HOLDING_WORD} LIMIT ?)"
        ))?
        .query_row(rusqlite::params![phrase, enough], |row| row.get(0))?;
    Ok(held >= enough)
}

/// The SQL (and its arguments) selecting the UID and display name of the company's database files
/// whose indexing has ended (completed, or failed: a file whose content could not be indexed is
/// still found by its name, attributes and whatever words were read from it) that satisfy every
/// term, through the indexes. `uids_listed`: the caller adds a list of UIDs (a few files to check, so
/// free-text words and attribute terms are checked on them rather than listed).
///
/// When a term or the caller lists files, the query reads `file_listing` as `f` (the columns a search
/// lists and checks, one compact row a file, see `schema.rs` step 5) instead of the wide `files`
/// rows, and the company conditions are written `+f.company_id` (and so on), which keeps SQLite
/// from scanning the company for them: it starts from the listed files and looks each up, instead
/// of reading every file of the company and checking it against the list (what it chose otherwise:
/// 60–140 ms a filter at 100,000 files). A word checked on such a listed file reads its search text
/// from `files`. Otherwise (no term lists files) it reads the company's `files` in order.
fn matching_sql(
    connection: &Connection,
    company_id: &str,
    terms: &[FilterTerm],
    uids_listed: bool,
) -> Result<(String, Vec<Value>), StoreError> {
    // Free-text words: listed through the term index, or checked on each file.
    let mut listed_words = Vec::new();
    let mut checked_words = Vec::new();
    for term in terms {
        if let FilterTerm::Text(words) = term {
            for word in words.split_whitespace() {
                let word = word.to_lowercase();
                let phrase = substring_phrase(&word);
                if uids_listed
                    || word.chars().count() < INDEXED_WORD_CHARS
                    || word_is_broad(connection, &phrase)?
                {
                    checked_words.push(word);
                } else {
                    listed_words.push(phrase);
                }
            }
        }
    }
    // A range over a model's size is checked on each file, like a word checked on each.
    let some_term_lists_files = !listed_words.is_empty()
        || terms.iter().any(|term| {
            !matches!(term, FilterTerm::Text(_))
                && !NumericRange::of(term)
                    .is_some_and(|range| matches!(range.subject, RangeSubject::Size(_)))
        });
    let listing = uids_listed || some_term_lists_files;
    let mut sql = String::from(if listing {
        "SELECT f.uid, f.display_name FROM file_listing f
         WHERE +f.company_id = ? AND +f.is_search_input = 0 AND +f.state IN ('completed', 'failed')"
    } else {
        "SELECT f.uid, f.display_name FROM files f
         WHERE f.company_id = ? AND f.is_search_input = 0 AND f.state IN ('completed', 'failed')"
    });
    let mut arguments = vec![Value::Text(company_id.to_owned())];
    for word in checked_words {
        sql.push_str(if listing {
            " AND instr((SELECT s.search_text FROM files s WHERE s.uid = f.uid), ?) > 0"
        } else {
            " AND instr(f.search_text, ?) > 0"
        });
        arguments.push(Value::Text(word));
    }
    for term in terms {
        match term {
            FilterTerm::Text(_) => {}
            FilterTerm::Regular { name, value } => attribute_condition(
                &mut sql,
                &mut arguments,
                company_id,
                uids_listed,
                name,
                "instr(v.value_key, ?) > 0",
                vec![Value::Text(value_key(value))],
            ),
            FilterTerm::Exact { name, value } => attribute_condition(
                &mut sql,
                &mut arguments,
                company_id,
                uids_listed,
                name,
                "v.value_key = ?",
                vec![Value::Text(value_key(value))],
            ),
            FilterTerm::Prefix { name, prefix } => {
                let prefix = prefix.trim_start().to_lowercase();
                attribute_condition(
                    &mut sql,
                    &mut arguments,
                    company_id,
                    uids_listed,
                    name,
                    "v.value_key >= ? AND v.value_key < ? AND substr(v.value_key, 1, ?) = ?",
                    vec![
                        Value::Text(prefix.clone()),
                        Value::Text(prefix_end(&prefix)),
                        Value::Integer(prefix.chars().count() as i64),
                        Value::Text(prefix),
                    ],
                )
            }
            FilterTerm::Range { .. } => range_condition(
                &mut sql,
                &mut arguments,
                term,
                |sql, arguments, name, condition, values| {
                    attribute_condition(
                        sql,
                        arguments,
                        company_id,
                        uids_listed,
                        name,
                        condition,
                        values,
                    )
                },
            ),
        }
    }
    for phrase in listed_words {
        sql.push_str(&format!(" AND f.id IN ({FILE_KEYS_HOLDING_WORD})"));
        arguments.push(Value::Text(phrase));
    }
    Ok((sql, arguments))
}

/// The same selection as [`matching_sql`] without the indexes: free text by `instr` over every
/// file's search text and attribute terms as a correlated look-up per file. Kept as the baseline the
/// benchmark measures the indexes against.
fn scanning_sql(company_id: &str, terms: &[FilterTerm]) -> (String, Vec<Value>) {
    let mut sql = String::from(
        "SELECT f.uid, f.display_name FROM files f
         WHERE f.company_id = ? AND f.is_search_input = 0 AND f.state IN ('completed', 'failed')",
    );
    let mut arguments = vec![Value::Text(company_id.to_owned())];
    let attribute = |sql: &mut String,
                     arguments: &mut Vec<Value>,
                     name: &str,
                     condition: &str,
                     values: Vec<Value>| {
        let (name, unit) = split_unit(name);
        sql.push_str(
            " AND EXISTS (SELECT 1 FROM attribute_values v JOIN attribute_names a ON a.id = v.attribute_id
               WHERE v.file_uid = f.uid AND a.name_key = ?",
        );
        arguments.push(Value::Text(name_key(name)));
        if let Some(unit) = unit {
            sql.push_str(" AND a.unit_key = ?");
            arguments.push(Value::Text(name_key(unit)));
        }
        sql.push_str(" AND ");
        sql.push_str(condition);
        sql.push(')');
        arguments.extend(values);
    };
    for term in terms {
        match term {
            FilterTerm::Text(words) => {
                for word in words.split_whitespace() {
                    sql.push_str(" AND instr(f.search_text, ?) > 0");
                    arguments.push(Value::Text(word.to_lowercase()));
                }
            }
            FilterTerm::Regular { name, value } => attribute(
                &mut sql,
                &mut arguments,
                name,
                "instr(v.value_key, ?) > 0",
                vec![Value::Text(value_key(value))],
            ),
            FilterTerm::Exact { name, value } => attribute(
                &mut sql,
                &mut arguments,
                name,
                "v.value_key = ?",
                vec![Value::Text(value_key(value))],
            ),
            FilterTerm::Prefix { name, prefix } => {
                let prefix = prefix.trim_start().to_lowercase();
                attribute(
                    &mut sql,
                    &mut arguments,
                    name,
                    "substr(v.value_key, 1, ?) = ?",
                    vec![
                        Value::Integer(prefix.chars().count() as i64),
                        Value::Text(prefix),
                    ],
                )
            }
            FilterTerm::Range { .. } => range_condition(&mut sql, &mut arguments, term, attribute),
        }
    }
    (sql, arguments)
}

/// The candidates a statement selects.
fn query_candidates(
    connection: &Connection,
    sql: &str,
    arguments: Vec<Value>,
) -> Result<Vec<Candidate>, StoreError> {
    let mut statement = connection.prepare(sql)?;
    let mut found = statement.query(rusqlite::params_from_iter(arguments))?;
    let mut candidates = Vec::new();
    while let Some(row) = found.next()? {
        candidates.push(rows::candidate(row)?);
    }
    Ok(candidates)
}

/// The candidates' UIDs.
fn uids_of(candidates: Vec<Candidate>) -> impl Iterator<Item = String> {
    candidates.into_iter().map(|candidate| candidate.uid)
}

/// Whether one condition (`sql`, with `arguments`) selects at least `enough` index entries,
/// reading no more than that.
fn held_at_least(
    connection: &Connection,
    sql: &str,
    arguments: Vec<Value>,
    enough: i64,
) -> Result<bool, StoreError> {
    let sql = format!("SELECT count(*) FROM ({sql} LIMIT {enough})");
    let count: i64 = connection
        .prepare_cached(&sql)?
        .query_row(rusqlite::params_from_iter(arguments), |row| row.get(0))?;
    Ok(count >= enough)
}

/// The SQL (and its arguments) of the values of attribute `name` (with its unit when it names one)
/// in the company that satisfy `condition`, through the `(attribute_id, value_key)` index.
fn values_where(
    company_id: &str,
    name: &str,
    condition: &str,
    mut values: Vec<Value>,
) -> (String, Vec<Value>) {
    let (name, unit) = split_unit(name);
    let mut sql = String::from(
        "SELECT 1 FROM attribute_values v WHERE v.attribute_id IN
           (SELECT a.id FROM attribute_names a WHERE a.company_id = ? AND a.name_key = ?",
    );
    let mut arguments = vec![
        Value::Text(company_id.to_owned()),
        Value::Text(name_key(name)),
    ];
    if let Some(unit) = unit {
        sql.push_str(" AND a.unit_key = ?");
        arguments.push(Value::Text(name_key(unit)));
    }
    sql.push_str(") AND ");
    sql.push_str(condition);
    arguments.append(&mut values);
    (sql, arguments)
}

/// The order of [`Candidate::name_order`] in SQL.
const IN_NAME_ORDER: &str = " ORDER BY f.display_name COLLATE NOCASE, f.uid";

impl SearchTx for SqliteTx<'_> {
    fn matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, StoreError> {
        let (mut sql, arguments) = matching_sql(self.0, company_id, terms, false)?;
        sql.push_str(IN_NAME_ORDER);
        query_candidates(self.0, &sql, arguments)
    }

    fn matching_database_files_by_scanning(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, StoreError> {
        let (mut sql, arguments) = scanning_sql(company_id, terms);
        sql.push_str(IN_NAME_ORDER);
        query_candidates(self.0, &sql, arguments)
    }

    fn some_matching_files_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<Vec<String>, StoreError> {
        let (mut sql, mut arguments) = matching_sql(self.0, company_id, terms, false)?;
        sql.push_str(" AND EXISTS (SELECT 1 FROM views v WHERE v.file_uid = f.uid) LIMIT ?");
        arguments.push(Value::Integer(i64::try_from(cap).unwrap_or(i64::MAX)));
        Ok(uids_of(query_candidates(self.0, &sql, arguments)?).collect())
    }

    fn matching_uids_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<String>, StoreError> {
        let (sql, arguments) = matching_sql(self.0, company_id, terms, false)?;
        let sql = format!(
            "SELECT uid FROM ({sql} AND EXISTS (SELECT 1 FROM views v WHERE v.file_uid = f.uid))"
        );
        let mut statement = self.0.prepare(&sql)?;
        let uids = statement
            .query_map(rusqlite::params_from_iter(arguments), |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(uids)
    }

    /// Schema step 6's counter, moved by triggers in the transaction of each change.
    fn metadata_generation(&mut self) -> Result<i64, StoreError> {
        Ok(self
            .0
            .prepare_cached("SELECT value FROM metadata_generation WHERE id = 1")?
            .query_row([], |row| row.get(0))?)
    }
}

/// One condition counted through SQLite's indexes: the postings of a word's terms, the values of
/// an attribute in the `(attribute_id, value_key)` index.
impl SearchSteps for SqliteTx<'_> {
    fn still_matching_among(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        uids: &[String],
    ) -> Result<HashSet<String>, StoreError> {
        let (mut sql, mut arguments) = matching_sql(self.0, company_id, terms, true)?;
        sql.push_str(" AND f.uid IN (");
        sql.push_str(&vec!["?"; uids.len()].join(", "));
        sql.push(')');
        arguments.extend(uids.iter().cloned().map(Value::Text));
        Ok(uids_of(query_candidates(self.0, &sql, arguments)?).collect())
    }

    fn one_condition_held_by_at_least(
        &mut self,
        company_id: &str,
        term: &FilterTerm,
        enough: i64,
    ) -> Result<bool, StoreError> {
        let (sql, arguments) = match term {
            FilterTerm::Text(words) => match words.split_whitespace().collect::<Vec<_>>()[..] {
                [word] if word.chars().count() >= INDEXED_WORD_CHARS => (
                    FILE_KEYS_HOLDING_WORD.to_owned(),
                    vec![Value::Text(substring_phrase(&word.to_lowercase()))],
                ),
                _ => return Ok(false),
            },
            FilterTerm::Regular { .. } | FilterTerm::Range { .. } => return Ok(false),
            FilterTerm::Exact { name, value } => values_where(
                company_id,
                name,
                "v.value_key = ?",
                vec![Value::Text(value_key(value))],
            ),
            FilterTerm::Prefix { name, prefix } => {
                let prefix = prefix.trim_start().to_lowercase();
                values_where(
                    company_id,
                    name,
                    "v.value_key >= ? AND v.value_key < ?",
                    vec![
                        Value::Text(prefix.clone()),
                        Value::Text(prefix_end(&prefix)),
                    ],
                )
            }
        };
        held_at_least(self.0, &sql, arguments, enough)
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
