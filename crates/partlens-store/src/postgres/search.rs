//! The metadata side of search on PostgreSQL: the filter's parts (`matching.rs`) run as a
//! statement or two, a search without inputs's first page (`first_matches.rs`), the broad-filter
//! hint counted from one index, and the scan without indexes the benchmarks and tests hold the
//! indexes against.

use std::collections::HashSet;

use super::PgTx;
use super::arguments::Arguments;
use super::first_matches::{Thresholds, first_matching_with};
use super::matching::{
    PLAIN_NUMBER, bounds_condition, candidates, matching_sql, size_condition, word_conditions,
};
use crate::error::StoreError;
use crate::model::search::sort_in_name_order;
use crate::model::search_text::{INDEXED_WORD_CHARS, words_of};
use crate::model::{Candidate, NumericRange, RangeSubject, name_key, value_key};
use crate::traits::{SearchSteps, SearchTx};
use partlens_api::FilterTerm;
use partlens_api::attribute::split_unit;

impl SearchTx for PgTx<'_, '_> {
    fn matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, StoreError> {
        let (sql, arguments) = matching_sql(self, company_id, terms)?;
        let mut found = candidates(self, &sql, &arguments)?;
        sort_in_name_order(&mut found);
        Ok(found)
    }

    fn matching_database_files_by_scanning(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, StoreError> {
        let (sql, arguments) = scanning_sql(company_id, terms);
        let mut found = candidates(self, &sql, &arguments)?;
        sort_in_name_order(&mut found);
        Ok(found)
    }

    fn first_matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        limit: usize,
    ) -> Result<(Vec<Candidate>, usize), StoreError> {
        first_matching_with(self, company_id, terms, limit, Thresholds::SEARCH)
    }

    fn some_matching_files_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<Vec<String>, StoreError> {
        let (mut sql, mut arguments) = matching_sql(self, company_id, terms)?;
        let cap = arguments.push(i64::try_from(cap).unwrap_or(i64::MAX));
        sql.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM views v WHERE v.file_uid = f.uid) LIMIT {cap}"
        ));
        Ok(candidates(self, &sql, &arguments)?
            .into_iter()
            .map(|candidate| candidate.uid)
            .collect())
    }

    fn matching_uids_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<String>, StoreError> {
        let (mut sql, arguments) = matching_sql(self, company_id, terms)?;
        sql.push_str(" AND EXISTS (SELECT 1 FROM views v WHERE v.file_uid = f.uid)");
        Ok(candidates(self, &sql, &arguments)?
            .into_iter()
            .map(|candidate| candidate.uid)
            .collect())
    }

    fn metadata_generation(&mut self) -> Result<i64, StoreError> {
        Ok(self
            .tx
            .query_one("SELECT value FROM metadata_generation WHERE id = 1", &[])?
            .try_get(0)?)
    }
}

/// One condition counted through PostgreSQL's indexes: a word's shown files (its selection), the
/// values of an attribute in the `(attribute_id, value_key)` index.
impl SearchSteps for PgTx<'_, '_> {
    fn still_matching_among(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        uids: &[String],
    ) -> Result<HashSet<String>, StoreError> {
        let (mut sql, mut arguments) = matching_sql(self, company_id, terms)?;
        let listed = arguments.push(uids.to_vec());
        sql.push_str(&format!(" AND f.uid = ANY({listed})"));
        Ok(candidates(self, &sql, &arguments)?
            .into_iter()
            .map(|candidate| candidate.uid)
            .collect())
    }

    fn one_condition_held_by_at_least(
        &mut self,
        company_id: &str,
        term: &FilterTerm,
        enough: i64,
    ) -> Result<bool, StoreError> {
        let mut arguments = Arguments::default();
        let company = arguments.push(company_id.to_owned());
        let values_held = |arguments: &mut Arguments, name: &str, condition: &str| {
            let (name, unit) = split_unit(name);
            let name = arguments.push(name_key(name));
            let mut sql = format!(
                "SELECT 1 FROM attribute_values v WHERE v.attribute_id IN
                   (SELECT a.id FROM attribute_names a
                    WHERE a.company_id = {company} AND a.name_key = {name}"
            );
            if let Some(unit) = unit {
                let unit = arguments.push(name_key(unit));
                sql.push_str(&format!(" AND a.unit_key = {unit}"));
            }
            sql.push_str(") AND ");
            sql.push_str(condition);
            sql
        };
        // Attribute values of files of any role or state, as SQLite's index counts them; a word's
        // shown files (its selection): a hint only.
        let sql = match term {
            FilterTerm::Text(words) => match words.split_whitespace().collect::<Vec<_>>()[..] {
                [word] if word.chars().count() >= INDEXED_WORD_CHARS => {
                    let mut selections = Vec::new();
                    // An indexed word is a selection only: it has no condition of its own, and
                    // its statement's arguments are the selection's alone (an argument the
                    // statement does not name has no type the server could tell).
                    let (mut conditions, mut chosen) = (Arguments::default(), Arguments::default());
                    word_conditions(
                        self,
                        company_id,
                        &mut conditions,
                        &mut chosen,
                        [word],
                        &mut selections,
                    )?;
                    match &selections[..] {
                        [selection] => {
                            arguments = chosen;
                            selection.uids()
                        }
                        _ => return Ok(false),
                    }
                }
                _ => return Ok(false),
            },
            FilterTerm::Regular { .. } | FilterTerm::Range { .. } => return Ok(false),
            FilterTerm::Exact { name, value } => {
                let value = arguments.push(value_key(value));
                values_held(&mut arguments, name, &format!("v.value_key = {value}"))
            }
            FilterTerm::Prefix { name, prefix } => {
                let prefix = arguments.push(prefix.trim_start().to_lowercase());
                values_held(
                    &mut arguments,
                    name,
                    &format!("starts_with(v.value_key, {prefix})"),
                )
            }
        };
        let count: i64 = self
            .tx
            .query_one(
                &format!("SELECT count(*) FROM ({sql} LIMIT {enough}) held"),
                &arguments.as_params(),
            )?
            .try_get(0)?;
        Ok(count >= enough)
    }
}

/// The SQL of the company's files that satisfy every term, without the indexes: every file of the
/// company read and each term checked on it (free text by `strpos` over its search text, attribute
/// terms as a look-up of its values, ranges as on the indexed path).
fn scanning_sql(company_id: &str, terms: &[FilterTerm]) -> (String, Arguments) {
    let mut arguments = Arguments::default();
    let company = arguments.push(company_id.to_owned());
    let mut sql = format!(
        "SELECT f.uid, f.display_name FROM files f WHERE f.company_id = {company} \
         AND NOT f.is_search_input AND f.state IN ('completed', 'failed')"
    );
    let value_of = |arguments: &mut Arguments, name: &str, condition: &str| {
        let (name, unit) = split_unit(name);
        let name = arguments.push(name_key(name));
        let mut sql = format!(
            " AND EXISTS (SELECT 1 FROM attribute_values v \
               JOIN attribute_names a ON a.id = v.attribute_id \
               WHERE v.file_uid = f.uid AND a.name_key = {name}"
        );
        if let Some(unit) = unit {
            let unit = arguments.push(name_key(unit));
            sql.push_str(&format!(" AND a.unit_key = {unit}"));
        }
        sql.push_str(&format!(" AND {condition})"));
        sql
    };
    for term in terms {
        let condition = match term {
            FilterTerm::Text(words) => {
                for word in words_of(words) {
                    let word = arguments.push(word);
                    sql.push_str(&format!(" AND strpos(f.search_text, {word}) > 0"));
                }
                continue;
            }
            FilterTerm::Regular { name, value } => {
                let value = arguments.push(value_key(value));
                value_of(
                    &mut arguments,
                    name,
                    &format!("strpos(v.value_key, {value}) > 0"),
                )
            }
            FilterTerm::Exact { name, value } => {
                let value = arguments.push(value_key(value));
                value_of(&mut arguments, name, &format!("v.value_key = {value}"))
            }
            FilterTerm::Prefix { name, prefix } => {
                let prefix = arguments.push(prefix.trim_start().to_lowercase());
                value_of(
                    &mut arguments,
                    name,
                    &format!("starts_with(v.value_key, {prefix})"),
                )
            }
            FilterTerm::Range { .. } => {
                let Some(range) = NumericRange::of(term) else {
                    continue;
                };
                match range.subject {
                    RangeSubject::Size(extent) => {
                        format!(
                            " AND {}",
                            size_condition(&mut arguments, extent.rank(), &range)
                        )
                    }
                    RangeSubject::Attribute(name) => {
                        let number = arguments.push(PLAIN_NUMBER.to_owned());
                        let bounds = bounds_condition(
                            &mut arguments,
                            &format!(
                                "(CASE WHEN v.value_key ~ {number} \
                                 THEN replace(v.value_key, ',', '.')::float8 END)"
                            ),
                            &range,
                        );
                        value_of(&mut arguments, name, &bounds)
                    }
                }
            }
        };
        sql.push_str(&condition);
    }
    (sql, arguments)
}
