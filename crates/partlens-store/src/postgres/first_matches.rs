//! The first files of a filter on PostgreSQL, and how many files it selects (a search without
//! inputs shows `maxResults` of them and counts them all).
//!
//! The order is SQLite's `display_name COLLATE NOCASE, uid`: the name's bytes with ASCII letters
//! folded, then the UID. In SQL that is [`name_order`] (`translate` folds exactly A–Z, `"C"`
//! compares bytes), which the index `files_by_name` holds per company.
//!
//! A filter of selections only (indexed words, attribute terms: `selection.rs`), the common case:
//!
//! - the selections' rows carry whether their file is shown, and its company, so the files they
//!   pick are the answer without a join with the files;
//! - one term's postings, or the values of one attribute that is one value a file, are counted
//!   first from the counts of their rows (`Selection::counted`), which decides the way;
//! - up to [`SELECTED_LISTED_UP_TO`] files: those files are read by key and sorted here, then cut;
//!   a counted selection of [`WALK_TRIED_FROM`] files or more is first walked as below, through at
//!   most [`WALKED_AT_MOST`] files, and read by key only when that walk did not find enough;
//! - more: counted from the selections' indexes alone, then the company's files walked in name
//!   order until enough are selected: up to [`HASHED_UP_TO`] files, each walked file looked up in
//!   a hash of their UIDs; past it, each checked by its own rows (most are selected).
//!
//! A filter with a condition on each file (a short word, a size), or none at all: its selections'
//! files listed and sorted up to [`LISTED_UP_TO`], else counted by joining the files (120–360 ms
//! for 100,000) and walked.

use super::PgTx;
use super::arguments::Arguments;
use super::matching::{
    Matching, candidates, candidates_with, files_selected_by_every, matching_parts,
};
use super::selection::{count_of_selected, selected_by_every};
use crate::error::StoreError;
use crate::model::Candidate;
use crate::model::search::sort_in_name_order;
use partlens_api::FilterTerm;

/// The most files the selections of a filter with conditions on each file may pick for them to be
/// listed and read by key; past it, they are counted in the server and the company's files walked
/// in name order. Counting in the server by a join was slower than listing at 12,949 files (117–150
/// against 92–100 ms p50, 100,000 records) and, its plan a guess, at 4,481 (630 ms p95).
pub(crate) const LISTED_UP_TO: usize = 50_000;

/// The most files a filter of selections only may select for them to be listed and read by key;
/// past it, they are counted from the selections' indexes and the company's files walked. Reading
/// by key costs about 7 µs a file, the walk about 3 µs a walked file (200 × all / selected of
/// them): even at about 3,000 of 100,000 files.
pub(crate) const SELECTED_LISTED_UP_TO: usize = 3_000;

/// The most selected files whose UIDs are read and hashed for a walk; past it, each walked file is
/// checked by its own rows instead (a word in every one of 100,000 files: 2.6 ms, against 54 ms to
/// hash them all). Checked by its rows, a walked file's attribute values are read through the
/// index by file: 14 µs a walked file, so the walk through 2,346 files for 8,165 of 100,000 is
/// faster hashed.
pub(crate) const HASHED_UP_TO: usize = 15_000;

/// The fewest files a counted selection must pick for a bounded walk to be tried before they are
/// read by key (reading 2,087 files by key took 13–24 ms, walking 9,514 files to the first 200 of
/// them 6–10 ms); fewer are read by key at once (7 µs a file). At 1,000 of 100,000 files the walk
/// to the first 200 is 20,000 files long, as long as reading them.
pub(crate) const WALK_TRIED_FROM: usize = 2_000;

/// The most files a walk tried before reading by key goes through (about 0.5 µs a file, so at most
/// about 10 ms lost when it does not find enough: files too few among too many).
pub(crate) const WALKED_AT_MOST: usize = 20_000;

/// Files walked in the time one file is read by key (0.5 against 7 µs): a walk tried before
/// reading `n` files goes through at most this many times `n`, so that a walk cut short costs at
/// most as much again as the reading.
const WALKED_FOR_A_READ: usize = 14;

/// The order of a filter's files, for table alias `f`: the display name with ASCII letters folded,
/// compared by bytes, then the UID (SQLite's `display_name COLLATE NOCASE, uid`). The same
/// expressions as the index `files_by_name` (`schema.rs`), so that it can be walked.
fn name_order(f: &str) -> String {
    format!(
        "translate({f}.display_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') \
         COLLATE \"C\", {f}.uid COLLATE \"C\""
    )
}

/// Where a filter's first files are found one way rather than another (the tests take every way
/// on a few files).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Thresholds {
    /// Files of a filter of selections only listed and read by key up to this many
    /// ([`SELECTED_LISTED_UP_TO`]).
    pub(crate) listed_if_selected_only: usize,
    /// Files of a filter with conditions on each file listed up to this many ([`LISTED_UP_TO`]).
    pub(crate) listed_if_checked: usize,
    /// A walk hashes the selected files up to this many ([`HASHED_UP_TO`]).
    pub(crate) hashed: usize,
    /// A counted selection of at least this many listed files is walked first
    /// ([`WALK_TRIED_FROM`]).
    pub(crate) walk_tried_from: usize,
    /// Such a walk goes through at most this many files ([`WALKED_AT_MOST`]).
    pub(crate) walked_at_most: usize,
}

impl Thresholds {
    /// The thresholds a search uses.
    pub(crate) const SEARCH: Thresholds = Thresholds {
        listed_if_selected_only: SELECTED_LISTED_UP_TO,
        listed_if_checked: LISTED_UP_TO,
        hashed: HASHED_UP_TO,
        walk_tried_from: WALK_TRIED_FROM,
        walked_at_most: WALKED_AT_MOST,
    };
}

/// The first `limit` of the company's indexed database files that satisfy every term, in
/// [`name_order`], and how many satisfy them in all, each way chosen by `thresholds`
/// ([`Thresholds::SEARCH`] for a search; the tests take every way on a few files).
pub(crate) fn first_matching_with(
    tx: &mut PgTx<'_, '_>,
    company_id: &str,
    terms: &[FilterTerm],
    limit: usize,
    thresholds: Thresholds,
) -> Result<(Vec<Candidate>, usize), StoreError> {
    let matching = matching_parts(tx, company_id, terms)?;
    if matching.selections.is_empty() {
        return counted_and_walked(tx, matching, limit);
    }
    if matching.checked_on_each_file {
        return match listed_if_few(tx, &matching, thresholds.listed_if_checked)? {
            Some(listed) => read_and_sorted(tx, matching, listed, limit),
            None => counted_and_walked(tx, matching, limit),
        };
    }
    // Selections only: they are the answer. One term's postings, or one attribute that is one
    // value a file, are counted from the counts of their rows first (a few rows), which decides.
    if let [one] = &matching.selections[..]
        && one.one_row_a_file()
    {
        let total = count(
            tx,
            &count_of_selected(&matching.selections),
            &matching.chosen,
        )?;
        if total > thresholds.hashed {
            return walked_checking_each(tx, matching, total, limit);
        }
        let selected = files_selected_by_every(tx, &matching.selections, &matching.chosen)?;
        if selected.len() > thresholds.listed_if_selected_only {
            return walked_with(tx, matching, selected, limit);
        }
        if selected.len() >= thresholds.walk_tried_from
            && let Some(first) = walked_at_most(
                tx,
                &matching,
                &selected,
                limit,
                thresholds
                    .walked_at_most
                    .min(selected.len().saturating_mul(WALKED_FOR_A_READ)),
            )?
        {
            return Ok((first, selected.len()));
        }
        return read_and_sorted(tx, matching, selected, limit);
    }
    // Otherwise a few rows are read at once; past them the files are counted first, so that the
    // UIDs of a word in every file are not read only to learn that they are many. A word held by
    // many terms (part of a part number: 4,481 terms, 5,480 postings of 1,120 files) repeats its
    // files and costs a lookup a term each time it is read: up to the hashed walk's number of
    // rows are read at once.
    let rows_at_once = match &matching.selections[..] {
        [one] if one.repeats_files() => thresholds.hashed.max(thresholds.listed_if_selected_only),
        _ => thresholds.listed_if_selected_only,
    };
    let selected = match listed_if_few(tx, &matching, rows_at_once)? {
        Some(listed) => listed,
        None => {
            let total = count(
                tx,
                &count_of_selected(&matching.selections),
                &matching.chosen,
            )?;
            if total > thresholds.hashed {
                return walked_checking_each(tx, matching, total, limit);
            }
            files_selected_by_every(tx, &matching.selections, &matching.chosen)?
        }
    };
    if selected.len() <= thresholds.listed_if_selected_only {
        read_and_sorted(tx, matching, selected, limit)
    } else {
        walked_with(tx, matching, selected, limit)
    }
}

/// The number statement `sql` (with `arguments`) counts.
fn count(tx: &mut PgTx<'_, '_>, sql: &str, arguments: &Arguments) -> Result<usize, StoreError> {
    let total: i64 = tx.tx.query_one(sql, &arguments.as_params())?.try_get(0)?;
    Ok(usize::try_from(total).unwrap_or(0))
}

/// The UIDs the selections pick when they are at most `listed_up_to`; `None` when they are
/// more. Reads at most one more row than that: a word or an attribute
/// value that most files hold is not read whole here.
fn listed_if_few(
    tx: &mut PgTx<'_, '_>,
    matching: &Matching,
    listed_up_to: usize,
) -> Result<Option<Vec<String>>, StoreError> {
    let cap = i64::try_from(listed_up_to)
        .unwrap_or(i64::MAX)
        .saturating_add(1);
    // Without DISTINCT, which would read every row before the first came out: a file that holds
    // a word in several terms comes out more than once and counts towards the cap as often.
    let sql = format!(
        "SELECT s.file_uid FROM ({}) AS s(file_uid) LIMIT {cap}",
        selected_by_every(&matching.selections)
    );
    let mut picked = tx
        .tx
        .query(&sql, &matching.chosen.as_params())?
        .iter()
        .map(|row| Ok(row.try_get(0)?))
        .collect::<Result<Vec<String>, StoreError>>()?;
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
) -> Result<(Vec<Candidate>, usize), StoreError> {
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
) -> Result<(Vec<Candidate>, usize), StoreError> {
    let (sql, mut arguments) = matching.in_one_statement();
    let total = count(tx, &format!("SELECT count(*) FROM ({sql}) f"), &arguments)?;
    let limit = arguments.push(i64::try_from(limit).unwrap_or(i64::MAX));
    let first = candidates(
        tx,
        &format!("{sql} ORDER BY {} LIMIT {limit}", name_order("f")),
        &arguments,
    )?;
    Ok((first, total))
}

/// A filter of selections only that selects `selected` (more than can be read by key): the
/// company's files walked in [`name_order`] until `limit` of them are among `selected`, given as
/// an array the server hashes (a constant array compared with `= ANY` is hashed past 8 values).
///
/// The walk is a sub-select ordered by name whose `OFFSET 0` keeps the planner from turning the
/// check into a join and sorting every selected file. A sub-select of the selections in its place
/// was not hashed when the planner took it to be large (631,454 postings estimated for 5,480): then
/// each walked file was compared with every selected one (19 s).
fn walked_with(
    tx: &mut PgTx<'_, '_>,
    matching: Matching,
    selected: Vec<String>,
    limit: usize,
) -> Result<(Vec<Candidate>, usize), StoreError> {
    let total = selected.len();
    let Matching {
        conditions,
        mut arguments,
        ..
    } = matching;
    let selected = arguments.push(selected);
    let first = walked(
        tx,
        &conditions,
        &format!("f.uid = ANY({selected})"),
        arguments,
        limit,
    )?;
    Ok((first, total))
}

/// The first `limit` of `selected` (a filter of selections only that picks them) in [`name_order`],
/// found by walking at most `at_most` of the company's files in that order, each looked up in a hash
/// of `selected`; `None` when the walk ended before finding them all (files too few among too
/// many), and they are read by key instead.
fn walked_at_most(
    tx: &mut PgTx<'_, '_>,
    matching: &Matching,
    selected: &[String],
    limit: usize,
    at_most: usize,
) -> Result<Option<Vec<Candidate>>, StoreError> {
    let mut params = matching.arguments.as_params();
    let [uids, walked, wanted] = [1, 2, 3].map(|after| format!("${}", params.len() + after));
    let at_most = i64::try_from(at_most).unwrap_or(i64::MAX);
    let limit_wanted = i64::try_from(limit).unwrap_or(i64::MAX);
    params.push(&selected);
    params.push(&at_most);
    params.push(&limit_wanted);
    let sql = walk_sql(
        &matching.conditions,
        &format!("f.uid = ANY({uids})"),
        &format!("LIMIT {walked}"),
        &wanted,
    );
    let first = candidates_with(tx, &sql, &params)?;
    Ok((first.len() == limit.min(selected.len())).then_some(first))
}

/// A filter of selections only that selects `total` files, more than are worth reading (most of
/// the company's, often): the company's files walked in [`name_order`] until `limit` are selected,
/// each checked by its own rows (most are selected, so the walk is short: a word in every one of
/// 100,000 files, 2.6 ms).
fn walked_checking_each(
    tx: &mut PgTx<'_, '_>,
    matching: Matching,
    total: usize,
    limit: usize,
) -> Result<(Vec<Candidate>, usize), StoreError> {
    let Matching {
        conditions,
        mut arguments,
        selections,
        chosen,
        ..
    } = matching;
    let held = selections
        .iter()
        .map(|selection| selection.held_by("f"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let held = arguments.append(chosen, &held);
    Ok((walked(tx, &conditions, &held, arguments, limit)?, total))
}

/// The first `limit` files `f` satisfying `conditions` in [`name_order`] for which `selected`
/// (`true`, or `false`/`NULL`) holds, checked on each walked file in turn (`OFFSET 0`: not
/// made a join).
fn walked(
    tx: &mut PgTx<'_, '_>,
    conditions: &str,
    selected: &str,
    mut arguments: Arguments,
    limit: usize,
) -> Result<Vec<Candidate>, StoreError> {
    let limit = arguments.push(i64::try_from(limit).unwrap_or(i64::MAX));
    let sql = walk_sql(conditions, selected, "OFFSET 0", &limit);
    candidates(tx, &sql, &arguments)
}

/// The walk's statement: files `f` satisfying `conditions` in [`name_order`], `bound` (`OFFSET
/// 0`, or `LIMIT n` on the files walked) keeping the planner from making the check a join, and
/// the first `limit` (a placeholder) for which `selected` holds.
fn walk_sql(conditions: &str, selected: &str, bound: &str, limit: &str) -> String {
    format!(
        "SELECT w.uid, w.display_name FROM (
             SELECT f.uid, f.display_name, {selected} AS selected FROM files f WHERE {conditions}
             ORDER BY {} {bound}) w
         WHERE w.selected LIMIT {limit}",
        name_order("f")
    )
}
