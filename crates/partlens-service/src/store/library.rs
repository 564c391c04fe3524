//! The company's database files as the Library lists them (`GET /api/Files`): newest upload first
//! (the latest content's upload time, then the later record), a page at a time, narrowed by the
//! files' extensions, a folder and the files a metadata filter selected.
//!
//! Without a metadata filter the page is read in SQL (`LIMIT`/`OFFSET` over the company's files,
//! one sort by upload time). With one, the filter is resolved first by the search's own SQL
//! ([`super::search::matching_database_files`]) and the company's UIDs are read in order and kept
//! when they match: one pass over the UIDs, a few milliseconds at ten thousand files.

use std::collections::HashSet;

use rusqlite::Connection;
use rusqlite::types::Value;

use super::files::{self, FileRecord};
use crate::error::ServiceError;

/// Which extensions a listing keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtensionFilter {
    /// Files with one of these extensions (lower-case with the dot).
    OneOf(Vec<String>),
    /// Files with none of these extensions.
    NoneOf(Vec<String>),
}

/// What to list of a company's database files.
#[derive(Clone, Debug, Default)]
pub struct Listing<'a> {
    /// Only files whose extension passes this; all when `None`.
    pub extensions: Option<&'a ExtensionFilter>,
    /// Only files in this folder or below it (compared lower-cased); all when `None`.
    pub folder: Option<&'a str>,
    /// Only these UIDs (the files a metadata filter selected); all when `None`.
    pub matching: Option<&'a HashSet<String>>,
    /// Files skipped from the newest.
    pub offset: usize,
    /// Files on the page.
    pub limit: usize,
}

/// One page of the listing and how many files it is a page of.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedPage {
    /// How many files satisfy the listing's conditions in all.
    pub total: usize,
    /// The page's records, newest first.
    pub records: Vec<FileRecord>,
}

/// The SQL conditions of `listing`'s extensions and folder, after the company's database files.
fn conditions(company_id: &str, listing: &Listing<'_>) -> (String, Vec<Value>) {
    let mut sql = String::from("company_id = ? AND is_search_input = 0");
    let mut arguments = vec![Value::Text(company_id.to_owned())];
    if let Some(filter) = listing.extensions {
        let (operator, extensions) = match filter {
            ExtensionFilter::OneOf(extensions) => ("IN", extensions),
            ExtensionFilter::NoneOf(extensions) => ("NOT IN", extensions),
        };
        sql.push_str(&format!(" AND extension {operator} ("));
        sql.push_str(&vec!["?"; extensions.len()].join(", "));
        // An empty list is `IN ()`, which SQLite reads as the empty set.
        sql.push(')');
        arguments.extend(extensions.iter().map(|ext| Value::Text(ext.clone())));
    }
    if let Some(folder) = listing.folder {
        // A range of the (company_id, path_key) index, checked exactly by `substr`.
        let prefix = format!("{}/", files::path_key(folder.trim_matches('/')));
        sql.push_str(" AND path_key >= ? AND path_key < ? AND substr(path_key, 1, ?) = ?");
        arguments.push(Value::Text(prefix.clone()));
        arguments.push(Value::Text(format!("{prefix}\u{10FFFF}")));
        arguments.push(Value::Integer(prefix.chars().count() as i64));
        arguments.push(Value::Text(prefix));
    }
    (sql, arguments)
}

/// The order of the listing: the newest content first, then the later record.
const NEWEST_FIRST: &str = " ORDER BY uploaded_at DESC, rowid DESC";

/// One page of the company's database files under `listing`'s conditions, newest first.
pub fn list_page(
    connection: &Connection,
    company_id: &str,
    listing: &Listing<'_>,
) -> Result<ListedPage, ServiceError> {
    let (conditions, arguments) = conditions(company_id, listing);
    let (total, uids) = match listing.matching {
        None => {
            let total: i64 = connection
                .prepare_cached(&format!("SELECT count(*) FROM files WHERE {conditions}"))?
                .query_row(rusqlite::params_from_iter(arguments.iter()), |row| {
                    row.get(0)
                })?;
            let mut paged = arguments.clone();
            paged.push(Value::Integer(listing.limit as i64));
            paged.push(Value::Integer(listing.offset as i64));
            let uids = connection
                .prepare_cached(&format!(
                    "SELECT uid FROM files WHERE {conditions}{NEWEST_FIRST} LIMIT ? OFFSET ?"
                ))?
                .query_map(rusqlite::params_from_iter(paged), |row| row.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            (total.max(0) as usize, uids)
        }
        Some(matching) => {
            let mut statement = connection.prepare_cached(&format!(
                "SELECT uid FROM files WHERE {conditions}{NEWEST_FIRST}"
            ))?;
            let mut total = 0;
            let mut uids = Vec::new();
            let mut rows = statement.query(rusqlite::params_from_iter(arguments))?;
            while let Some(row) = rows.next()? {
                let uid: String = row.get(0)?;
                if !matching.contains(&uid) {
                    continue;
                }
                if total >= listing.offset && uids.len() < listing.limit {
                    uids.push(uid);
                }
                total += 1;
            }
            (total, uids)
        }
    };
    Ok(ListedPage {
        total,
        records: files::find_many(connection, company_id, &uids)?,
    })
}
