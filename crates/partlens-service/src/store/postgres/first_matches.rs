//! The first files of a filter on PostgreSQL, and how many files it selects (a search without
//! inputs shows `maxResults` of them and counts them all).
//!
//! The order is SQLite's `display_name COLLATE NOCASE, uid`: the name's bytes with ASCII letters
//! folded, then the UID. In SQL that is [`name_order`] (`translate` folds exactly A–Z, `"C"`
//! compares bytes), which the index `files_by_name` holds per company.
//!
//! - A filter whose selections (attribute terms, indexed words, `search.rs`) pick at most
//!   [`LISTED_UP_TO`] files: those files are read by key and sorted here, then cut (what every
//!   search without inputs did before).
//! - A broader filter, or one with no selection (no term, or only words and sizes checked on each
//!   file): counted in the server, and its first files found by walking the company's files in
//!   name order until enough match (4 ms for a word in every record of 100,000). The count is
//!   most of the time: it joins each selected file with the company's shown files (130–200 ms at
//!   100,000, against 310–380 ms to read, send and sort them all).

use super::PgTx;
use super::search::{Matching, candidates, matching_parts, sort_in_name_order};
use crate::error::ServiceError;
use crate::store::search::Candidate;
use partlens_api::FilterTerm;

/// The most files a filter's selections may pick for them to be listed and read by key; past it,
/// they are counted in the server and the company's files walked in name order. Counting in the
/// server was slower than listing at 12,949 files (a common material's prefix: 117–150 against
/// 92–100 ms p50, 100,000 records) and, its plan a guess, at 4,481 (a part-number fragment: 630 ms
/// p95); faster only when nearly every file matches.
pub const LISTED_UP_TO: usize = 50_000;

/// The order of a filter's files, for table alias `f`: the display name with ASCII letters folded,
/// compared by bytes, then the UID (SQLite's `display_name COLLATE NOCASE, uid`). The same
/// expressions as the index `files_by_name` (`schema.rs`), so that it can be walked.
fn name_order(f: &str) -> String {
    format!(
        "translate({f}.display_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') \
         COLLATE \"C\", {f}.uid COLLATE \"C\""
    )
}

/// The first `limit` of the company's indexed database files that satisfy every term, in
/// [`name_order`], and how many satisfy them in all.
pub fn first_matching(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    terms: &[FilterTerm],
    limit: usize,
) -> Result<(Vec<Candidate>, usize), ServiceError> {
    first_matching_listing_up_to(tx, company_id, terms, limit, LISTED_UP_TO)
}

/// [`first_matching`] with the selections' files listed when they are at most `listed_up_to`
/// (the tests take either way on a few files).
pub fn first_matching_listing_up_to(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    terms: &[FilterTerm],
    limit: usize,
    listed_up_to: usize,
) -> Result<(Vec<Candidate>, usize), ServiceError> {
    let matching = matching_parts(tx, company_id, terms)?;
    if matching.selections.is_empty() {
        return counted_and_walked(tx, matching, limit);
    }
    match listed_if_few(tx, &matching, listed_up_to)? {
        Some(listed) => read_and_sorted(tx, matching, listed, limit),
        None => counted_and_walked(tx, matching, limit),
    }
}

/// The UIDs the selections pick when they are at most `listed_up_to` (of any company, role or
/// state); `None` when they are more. Reads at most one more row than that: a word or an attribute
/// value that most files hold is not read whole here.
fn listed_if_few(
    tx: &mut PgTx<'_, '_>,
    matching: &Matching,
    listed_up_to: usize,
) -> Result<Option<Vec<String>>, ServiceError> {
    let cap = i64::try_from(listed_up_to)
        .unwrap_or(i64::MAX)
        .saturating_add(1);
    // Without DISTINCT, which would read every row before the first came out: a file that holds
    // a word in several terms comes out more than once and counts towards the cap as often.
    let sql = format!(
        "SELECT s.file_uid FROM ({}) AS s(file_uid) LIMIT {cap}",
        matching.selections.join(" INTERSECT ")
    );
    let mut picked = tx
        .tx
        .query(&sql, &matching.chosen.as_params())?
        .iter()
        .map(|row| Ok(row.try_get(0)?))
        .collect::<Result<Vec<String>, ServiceError>>()?;
    if picked.len() > listed_up_to {
        return Ok(None);
    }
    picked.sort_unstable();
    picked.dedup();
    Ok(Some(picked))
}

/// A filter whose selections picked `listed`: its files among them read by key and sorted here
/// (as `matching_database_files` does), then cut.
fn read_and_sorted(
    tx: &mut PgTx<'_, '_>,
    matching: Matching,
    listed: Vec<String>,
    limit: usize,
) -> Result<(Vec<Candidate>, usize), ServiceError> {
    let (sql, arguments) = matching.over_listed(listed);
    let mut found = candidates(tx, &sql, &arguments)?;
    sort_in_name_order(&mut found);
    let total = found.len();
    found.truncate(limit);
    Ok((found, total))
}

/// A broad filter (or one with no selection): counted in the server, then the company's files
/// walked in [`name_order`] until `limit` match.
fn counted_and_walked(
    tx: &mut PgTx<'_, '_>,
    matching: Matching,
    limit: usize,
) -> Result<(Vec<Candidate>, usize), ServiceError> {
    let (sql, mut arguments) = matching.in_one_statement();
    let total: i64 = tx
        .tx
        .query_one(
            &format!("SELECT count(*) FROM ({sql}) f"),
            &arguments.as_params(),
        )?
        .try_get(0)?;
    let limit = arguments.push(i64::try_from(limit).unwrap_or(i64::MAX));
    let first = candidates(
        tx,
        &format!("{sql} ORDER BY {} LIMIT {limit}", name_order("f")),
        &arguments,
    )?;
    Ok((first, usize::try_from(total).unwrap_or(0)))
}
