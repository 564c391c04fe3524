//! A filter's parts on PostgreSQL before it runs ([`Matching`]): the conditions checked on each of
//! the company's database files, and the selections (attribute terms, indexed free-text words)
//! every selected file is in, with what reads the files they pick. The same selection as SQLite's
//! (free-text words as substrings of the lower-cased search text, regular, exact, prefix and
//! numeric range attribute terms on the per-value rows, ranges over a model's size on its extracted
//! attributes, see [`crate::model::search`]).
//!
//! Free-text words of three characters or more go through the term index (`text_terms.rs`; no
//! `pg_trgm` needed), shorter ones are checked on each file's search text (`strpos`). Attribute
//! terms go through the `(attribute_id, value_key)` index.

use std::collections::BTreeSet;

use r2d2_postgres::postgres::types::ToSql;

use super::PgTx;
use super::arguments::Arguments;
use super::selection::{Selection, selected_by_every, starts_with_range};
use super::text_terms::{rarest_trigram, terms_holding_word, trigrams_of};
use crate::error::StoreError;
use crate::model::range::EXTENTS_ATTRIBUTE;
use crate::model::search_text::INDEXED_WORD_CHARS;
use crate::model::{Candidate, NumericRange, RangeSubject, name_key, value_key};
use crate::rows;
use partlens_api::FilterTerm;
use partlens_api::attribute::split_unit;

/// The conditions on file `f` for free-text `words` (lower-cased here): `strpos` on the search
/// text for words shorter than [`INDEXED_WORD_CHARS`] characters (their arguments in
/// `arguments`), and for longer ones a selection of the company's files holding the word through
/// the term index ([`terms_holding_word`], [`Selection::holding_terms`]), pushed onto `selections`
/// (their arguments in `chosen`). A word asked twice is one condition.
pub(crate) fn word_conditions<'a>(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    arguments: &mut Arguments,
    chosen: &mut Arguments,
    words: impl IntoIterator<Item = &'a str>,
    selections: &mut Vec<Selection>,
) -> Result<Vec<String>, StoreError> {
    let mut conditions = Vec::new();
    let words: BTreeSet<String> = words.into_iter().map(str::to_lowercase).collect();
    for word in words {
        if word.chars().count() < INDEXED_WORD_CHARS {
            let word = arguments.push(word);
            conditions.push(format!("strpos(f.search_text, {word}) > 0"));
            continue;
        }
        let trigrams: Vec<String> = trigrams_of(&word).into_iter().collect();
        let terms = match rarest_trigram(tx.tx, &trigrams)? {
            Some(trigram) => terms_holding_word(tx.tx, &word, &trigram)?,
            // A trigram no term holds: no term holds the word.
            None => Vec::new(),
        };
        if terms.is_empty() {
            // No term holds it: no file holds the word.
            conditions.push("false".to_owned());
        } else {
            let count = terms.len();
            let term_ids = chosen.push(terms);
            let company = chosen.push(company_id.to_owned());
            selections.push(Selection::holding_terms(&company, &term_ids, count));
        }
    }
    Ok(conditions)
}

/// A plain number as `partlens_api::range::parse_number` reads it (an optional `-`, digits, at most
/// one decimal point or comma and more digits), as a regular expression over a trimmed value.
pub(crate) const PLAIN_NUMBER: &str = r"^-?[0-9]+([.,][0-9]+)?$";

/// The condition (`number >= $n AND number <= $m`, an open end left out) that a number lies in
/// `range`.
pub(crate) fn bounds_condition(
    arguments: &mut Arguments,
    number: &str,
    range: &NumericRange<'_>,
) -> String {
    let mut conditions = vec!["true".to_owned()];
    for (bound, operator) in [(range.low, ">="), (range.high, "<=")] {
        if let Some(bound) = bound {
            let bound = arguments.push(bound);
            conditions.push(format!("{number} {operator} {bound}"));
        }
    }
    conditions.join(" AND ")
}

/// The condition that file `f`'s extracted attributes hold [`EXTENTS_ATTRIBUTE`] as `a×b×c` (three
/// plain numbers) and that its extent of `rank` (0 smallest, 2 largest) lies in the range. Checked
/// on each file the other conditions leave (the extents have no index); the casts only run on
/// parts that are numbers (`CASE`), so an odd value never fails the query.
pub(crate) fn size_condition(
    arguments: &mut Arguments,
    rank: usize,
    range: &NumericRange<'_>,
) -> String {
    let extent = match rank {
        0 => "least(a, b, c)",
        1 => "greatest(least(a, b), least(greatest(a, b), c))",
        _ => "greatest(a, b, c)",
    };
    let name = arguments.push(EXTENTS_ATTRIBUTE.to_lowercase());
    let number = arguments.push(PLAIN_NUMBER.to_owned());
    let bounds = bounds_condition(arguments, extent, range);
    format!(
        r"EXISTS (SELECT 1 FROM (
             SELECT CASE WHEN q.ok THEN q.parts[1]::float8 END AS a,
                    CASE WHEN q.ok THEN q.parts[2]::float8 END AS b,
                    CASE WHEN q.ok THEN q.parts[3]::float8 END AS c
             FROM (SELECT p.parts, cardinality(p.parts) = 3 AND p.parts[1] ~ {number}
                          AND p.parts[2] ~ {number} AND p.parts[3] ~ {number} AS ok
                   FROM (SELECT regexp_split_to_array(
                                    btrim(substr(e.attribute, strpos(e.attribute, '=') + 1)),
                                    '\s*×\s*') AS parts
                         FROM jsonb_array_elements_text(f.extracted_attributes::jsonb) AS e(attribute)
                         WHERE lower(btrim(split_part(e.attribute, '=', 1))) = {name}) p) q
             WHERE q.ok) s
           WHERE s.a IS NOT NULL AND s.b IS NOT NULL AND s.c IS NOT NULL AND {bounds})"
    )
}

/// A filter before it runs: the conditions on each of the company's database files whose indexing
/// has ended (`f`), and the selections (attribute terms, indexed words) every selected file is in.
pub(crate) struct Matching {
    /// The conditions on file `f`, the company's, role and state among them.
    pub(crate) conditions: String,
    /// The arguments of `conditions`.
    pub(crate) arguments: Arguments,
    /// Whether a condition beyond the company, role and state is checked on each file (a short
    /// word, a size, a term nothing satisfies): then the selections alone are not the answer.
    pub(crate) checked_on_each_file: bool,
    /// The selections of the company's shown files, written with `chosen`'s placeholders.
    pub(crate) selections: Vec<Selection>,
    /// The arguments of `selections`.
    pub(crate) chosen: Arguments,
}

impl Matching {
    /// `SELECT f.uid, f.display_name FROM files f WHERE …` with the conditions, without the
    /// selections.
    pub(crate) fn sql(&self) -> String {
        format!(
            "SELECT f.uid, f.display_name FROM files f WHERE {}",
            self.conditions
        )
    }

    /// The whole selection as one statement, its selections a sub-select the server runs with it.
    pub(crate) fn in_one_statement(self) -> (String, Arguments) {
        let mut sql = self.sql();
        let Matching {
            mut arguments,
            selections,
            chosen,
            ..
        } = self;
        if !selections.is_empty() {
            let every = arguments.append(chosen, &selected_by_every(&selections));
            sql.push_str(&format!(" AND f.uid IN ({every})"));
        }
        (sql, arguments)
    }

    /// The selection as a statement over the files `listed` (what the selections picked, read
    /// beforehand), given by key as an array whose length the planner sees.
    pub(crate) fn over_listed(self, listed: Vec<String>) -> (String, Arguments) {
        let mut sql = self.sql();
        let mut arguments = self.arguments;
        let listed = arguments.push(listed);
        sql.push_str(&format!(" AND f.uid = ANY({listed})"));
        (sql, arguments)
    }
}

/// The SQL selecting the UID and display name of the company's database files whose indexing has
/// ended that satisfy every term, with its arguments: [`matching_parts`] with the files its
/// selections pick listed ([`files_selected_by_every`]).
pub(crate) fn matching_sql(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    terms: &[FilterTerm],
) -> Result<(String, Arguments), StoreError> {
    let matching = matching_parts(tx, company_id, terms)?;
    if matching.selections.is_empty() {
        return Ok((matching.sql(), matching.arguments));
    }
    let selected = files_selected_by_every(tx, &matching.selections, &matching.chosen)?;
    Ok(matching.over_listed(selected))
}

/// The company's attributes a term names.
struct NamedAttributes {
    /// Their ids: the attribute with the unit the name gives (`Length [mm]`), or one a unit.
    ids: Vec<i64>,
    /// Whether they are one attribute that no file ever had two values of (schema step 10), so
    /// that its values selected are as many as their files.
    one_value_a_file: bool,
}

/// The company's attributes named `name` (with its unit when it has one, `Length [mm]`): one a
/// unit without one.
fn named_attributes(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    name: &str,
) -> Result<NamedAttributes, StoreError> {
    let (name, unit) = split_unit(name);
    let rows = match unit {
        Some(unit) => tx.tx.query(
            "SELECT id, several_values FROM attribute_names
             WHERE company_id = $1 AND name_key = $2 AND unit_key = $3",
            &[&company_id, &name_key(name), &name_key(unit)],
        )?,
        None => tx.tx.query(
            "SELECT id, several_values FROM attribute_names WHERE company_id = $1 AND name_key = $2",
            &[&company_id, &name_key(name)],
        )?,
    };
    let found = rows
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect::<Result<Vec<(i64, bool)>, StoreError>>()?;
    Ok(NamedAttributes {
        one_value_a_file: matches!(found[..], [(_, false)]),
        ids: found.into_iter().map(|(id, _)| id).collect(),
    })
}

/// The most distinct values a regular term is checked on one by one; past it, on every value.
const REGULAR_KEYS_UP_TO: usize = 1_000;

/// The distinct keys of the company's shown values of attributes `ids` that hold `value` (a
/// regular term's key), from the values' counts (schema step 10), when there are at most
/// [`REGULAR_KEYS_UP_TO`]; `None` when more. The 100 projects of 100,000 files are checked in
/// microseconds, where `strpos` on each file's value took 15–20 ms; an attribute with a value a
/// file (a part number) costs what checking every value costs, once.
fn keys_holding(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    ids: &[i64],
    value: &str,
) -> Result<Option<Vec<String>>, StoreError> {
    let cap = i64::try_from(REGULAR_KEYS_UP_TO)
        .unwrap_or(i64::MAX)
        .saturating_add(1);
    let mut keys = tx
        .tx
        .query(
            "SELECT value_key FROM shown_value_counts
             WHERE attribute_id = ANY($1) AND company_id = $2 AND strpos(value_key, $3) > 0
             LIMIT $4",
            &[&ids, &company_id, &value, &cap],
        )?
        .iter()
        .map(|row| Ok(row.try_get(0)?))
        .collect::<Result<Vec<String>, StoreError>>()?;
    if keys.len() > REGULAR_KEYS_UP_TO {
        return Ok(None);
    }
    keys.sort_unstable();
    keys.dedup();
    Ok(Some(keys))
}

/// The condition on an attribute value (row `v`) of a term, written with the arguments it pushes.
type ValueCondition<'a> = Box<dyn Fn(&mut Arguments) -> String + 'a>;

/// A filter's [`Matching`] parts.
///
/// Each attribute term and each indexed word is a selection of files; a term given twice is one
/// selection. The attributes' ids and the words' terms are read first, so that the planner sees
/// them as values.
pub(crate) fn matching_parts(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    terms: &[FilterTerm],
) -> Result<Matching, StoreError> {
    let mut arguments = Arguments::default();
    let company = arguments.push(company_id.to_owned());
    let mut conditions = format!(
        "f.company_id = {company} AND NOT f.is_search_input AND f.state IN ('completed', 'failed')"
    );
    let mut checked_on_each_file = false;
    let mut check_on_each_file = |conditions: &mut String, condition: &str| {
        conditions.push_str(" AND ");
        conditions.push_str(condition);
        checked_on_each_file = true;
    };
    // The selections (attribute terms, indexed words) and their own arguments.
    let mut selections = Vec::new();
    let mut chosen = Arguments::default();
    let words = terms.iter().flat_map(|term| match term {
        FilterTerm::Text(words) => words.split_whitespace().collect(),
        _ => Vec::new(),
    });
    for condition in word_conditions(
        tx,
        company_id,
        &mut arguments,
        &mut chosen,
        words,
        &mut selections,
    )? {
        check_on_each_file(&mut conditions, &condition);
    }
    let mut seen: Vec<&FilterTerm> = Vec::new();
    for term in terms {
        if seen.contains(&term) {
            continue;
        }
        seen.push(term);
        let (name, condition) = match term_condition(term, &mut arguments) {
            TermCondition::None => continue,
            TermCondition::OnEachFile(condition) => {
                check_on_each_file(&mut conditions, &condition);
                continue;
            }
            TermCondition::Value(name, condition) => (name, condition),
        };
        match attribute_selection(tx, company_id, term, name, condition, &mut chosen)? {
            Some(selection) => selections.push(selection),
            // No attribute of that name, or no shown value holds it: no file satisfies the term.
            None => check_on_each_file(&mut conditions, "false"),
        }
    }
    Ok(Matching {
        conditions,
        arguments,
        checked_on_each_file,
        selections,
        chosen,
    })
}

/// What a filter term asks of a file's record.
enum TermCondition<'a> {
    /// Nothing of its own (free text, read as indexed words; a range that is not one).
    None,
    /// A condition checked on each file (its size in a range).
    OnEachFile(String),
    /// A value of the named attribute that the condition accepts.
    Value(&'a str, ValueCondition<'a>),
}

/// The condition of one attribute or size term; a size's arguments go to `arguments`.
fn term_condition<'a>(term: &'a FilterTerm, arguments: &mut Arguments) -> TermCondition<'a> {
    match term {
        FilterTerm::Text(_) => TermCondition::None,
        FilterTerm::Regular { name, value } => {
            let value = value_key(value);
            TermCondition::Value(
                name,
                Box::new(move |arguments: &mut Arguments| {
                    format!("strpos(v.value_key, {}) > 0", arguments.push(value.clone()))
                }),
            )
        }
        FilterTerm::Exact { name, value } => {
            let value = value_key(value);
            TermCondition::Value(
                name,
                Box::new(move |arguments: &mut Arguments| {
                    format!(
                        "v.value_key COLLATE \"C\" = {}",
                        arguments.push(value.clone())
                    )
                }),
            )
        }
        FilterTerm::Prefix { name, prefix } => {
            let prefix = prefix.trim_start().to_lowercase();
            TermCondition::Value(
                name,
                Box::new(move |arguments: &mut Arguments| {
                    starts_with_range(arguments, "v.value_key", &prefix)
                }),
            )
        }
        // A size is checked on each file; an attribute's values are a selection.
        FilterTerm::Range { .. } => {
            let Some(range) = NumericRange::of(term) else {
                return TermCondition::None;
            };
            match range.subject {
                RangeSubject::Size(extent) => {
                    TermCondition::OnEachFile(size_condition(arguments, extent.rank(), &range))
                }
                RangeSubject::Attribute(name) => TermCondition::Value(
                    name,
                    Box::new(move |arguments: &mut Arguments| {
                        let number = arguments.push(PLAIN_NUMBER.to_owned());
                        bounds_condition(
                            arguments,
                            &format!(
                                "(CASE WHEN v.value_key ~ {number} \
                                 THEN replace(v.value_key, ',', '.')::float8 END)"
                            ),
                            &range,
                        )
                    }),
                ),
            }
        }
    }
}

/// The selection of the files that hold a value of the attribute `name` that `condition` accepts,
/// with its arguments in `chosen`; `None` when no file can (no attribute of that name, or, for a
/// regular term on an attribute of few distinct values, no shown value holds it).
fn attribute_selection(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    term: &FilterTerm,
    name: &str,
    condition: ValueCondition<'_>,
    chosen: &mut Arguments,
) -> Result<Option<Selection>, StoreError> {
    let attributes = named_attributes(tx, company_id, name)?;
    if attributes.ids.is_empty() {
        return Ok(None);
    }
    // A regular term on an attribute of few distinct values: those that hold it, by key.
    let keys = match term {
        FilterTerm::Regular { value, .. } => {
            keys_holding(tx, company_id, &attributes.ids, &value_key(value))?
        }
        _ => None,
    };
    if keys.as_ref().is_some_and(Vec::is_empty) {
        return Ok(None);
    }
    let ids = chosen.push(attributes.ids);
    let company = chosen.push(company_id.to_owned());
    let condition = match keys {
        Some(keys) => format!("v.value_key COLLATE \"C\" = ANY({})", chosen.push(keys)),
        None => condition(chosen),
    };
    Ok(Some(Selection::with_value(
        &company,
        &ids,
        &condition,
        attributes.one_value_a_file,
    )))
}

/// The UIDs of the files every one of `selections` (whose arguments are `chosen`) selects.
///
/// Read in a statement of its own, before the files: the planner cannot tell how many files an
/// `INTERSECT` of postings and attribute values keeps (it guessed 6,554 for the 316 files of a word
/// at 100,000 records) and then read every file of the company to join them (62 ms), where reading
/// the few selected files by their key takes a millisecond. Given as an array, their number is
/// known.
pub(crate) fn files_selected_by_every(
    tx: &mut PgTx<'_, '_>,
    selections: &[Selection],
    chosen: &Arguments,
) -> Result<Vec<String>, StoreError> {
    if selections.is_empty() {
        return Ok(Vec::new());
    }
    // One selection that has a row a file has no repeats to remove (2.8 against 5.5 ms for 9,082
    // values of a prefix).
    let distinct = match selections {
        [one] if one.one_row_a_file() => "",
        _ => "DISTINCT ",
    };
    let sql = format!(
        "SELECT {distinct}s.file_uid FROM ({}) AS s(file_uid)",
        selected_by_every(selections)
    );
    tx.tx
        .query(&sql, &chosen.as_params())?
        .iter()
        .map(|row| Ok(row.try_get(0)?))
        .collect()
}

/// The candidates a statement selects.
pub(crate) fn candidates(
    tx: &mut PgTx<'_, '_>,
    sql: &str,
    arguments: &Arguments,
) -> Result<Vec<Candidate>, StoreError> {
    candidates_with(tx, sql, &arguments.as_params())
}

/// The candidates a statement selects, given its parameters.
pub(crate) fn candidates_with(
    tx: &mut PgTx<'_, '_>,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<Candidate>, StoreError> {
    tx.tx
        .query(sql, params)?
        .iter()
        .map(rows::candidate)
        .collect()
}
