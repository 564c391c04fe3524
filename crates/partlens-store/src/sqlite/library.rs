//! The Library's listing on SQLite (see [`crate::model::library`]): the page read in SQL
//! (`LIMIT`/`OFFSET`, one sort by upload time) without a metadata filter, the company's UIDs read
//! newest first and kept when they match with one.

use rusqlite::types::Value;

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::{ExtensionFilter, ListedPage, Listing};
use crate::traits::{FilesTx, LibraryTx};

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
    if let Some(prefix) = listing.folder_prefix() {
        // A range of the (company_id, path_key) index, checked exactly by `substr`.
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

impl LibraryTx for SqliteTx<'_> {
    fn list_library_page(
        &mut self,
        company_id: &str,
        listing: &Listing<'_>,
    ) -> Result<ListedPage, StoreError> {
        let (conditions, arguments) = conditions(company_id, listing);
        let (total, uids) = match listing.matching {
            None => {
                let total: i64 = self
                    .0
                    .prepare_cached(&format!("SELECT count(*) FROM files WHERE {conditions}"))?
                    .query_row(rusqlite::params_from_iter(arguments.iter()), |row| {
                        row.get(0)
                    })?;
                let mut paged = arguments.clone();
                paged.push(Value::Integer(listing.limit as i64));
                paged.push(Value::Integer(listing.offset as i64));
                let uids = self
                    .0
                    .prepare_cached(&format!(
                        "SELECT uid FROM files WHERE {conditions}{NEWEST_FIRST} LIMIT ? OFFSET ?"
                    ))?
                    .query_map(rusqlite::params_from_iter(paged), |row| row.get(0))?
                    .collect::<rusqlite::Result<Vec<String>>>()?;
                (total.max(0) as usize, uids)
            }
            Some(_) => {
                let mut statement = self.0.prepare_cached(&format!(
                    "SELECT uid FROM files WHERE {conditions}{NEWEST_FIRST}"
                ))?;
                let newest_first = statement
                    .query_map(rusqlite::params_from_iter(arguments), |row| {
                        row.get::<_, String>(0)
                    })?
                    .map(|uid| uid.map_err(StoreError::from));
                listing.page_of_matching(newest_first)?
            }
        };
        Ok(ListedPage {
            total,
            records: self.find_files(company_id, &uids)?,
        })
    }
}
