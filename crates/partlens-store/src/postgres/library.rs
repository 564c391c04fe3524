//! The Library's listing on PostgreSQL (see [`crate::model::library`]): the page read in SQL
//! without a metadata filter, the company's UIDs read newest first and kept when they match with
//! one. Ties of upload time go by `row_order` (schema step 3), the order records were made in, as
//! SQLite's rowid.

use super::PgTx;
use super::arguments::Arguments;
use crate::error::StoreError;
use crate::model::{ExtensionFilter, ListedPage, Listing};
use crate::traits::{FilesTx, LibraryTx};

impl LibraryTx for PgTx<'_, '_> {
    fn list_library_page(
        &mut self,
        company_id: &str,
        listing: &Listing<'_>,
    ) -> Result<ListedPage, StoreError> {
        let mut arguments = Arguments::default();
        let company = arguments.push(company_id.to_owned());
        let mut conditions = format!("company_id = {company} AND NOT is_search_input");
        if let Some(filter) = listing.extensions {
            let (negation, extensions) = match filter {
                ExtensionFilter::OneOf(extensions) => ("", extensions),
                ExtensionFilter::NoneOf(extensions) => ("NOT ", extensions),
            };
            let extensions = arguments.push(extensions.clone());
            conditions.push_str(&format!(" AND {negation}(extension = ANY({extensions}))"));
        }
        if let Some(prefix) = listing.folder_prefix() {
            let prefix = arguments.push(prefix);
            conditions.push_str(&format!(" AND starts_with(path_key, {prefix})"));
        }
        const NEWEST_FIRST: &str = " ORDER BY uploaded_at COLLATE \"C\" DESC, row_order DESC";
        let (total, uids) = match listing.matching {
            None => {
                let total: i64 = self
                    .tx
                    .query_one(
                        &format!("SELECT count(*) FROM files WHERE {conditions}"),
                        &arguments.as_params(),
                    )?
                    .try_get(0)?;
                let limit = arguments.push(i64::try_from(listing.limit).unwrap_or(i64::MAX));
                let offset = arguments.push(i64::try_from(listing.offset).unwrap_or(i64::MAX));
                let uids = self
                    .tx
                    .query(
                        &format!(
                            "SELECT uid FROM files WHERE {conditions}{NEWEST_FIRST} \
                             LIMIT {limit} OFFSET {offset}"
                        ),
                        &arguments.as_params(),
                    )?
                    .iter()
                    .map(|row| row.try_get(0).map_err(StoreError::from))
                    .collect::<Result<Vec<String>, _>>()?;
                (total.max(0) as usize, uids)
            }
            Some(_) => {
                let newest_first = self.tx.query(
                    &format!("SELECT uid FROM files WHERE {conditions}{NEWEST_FIRST}"),
                    &arguments.as_params(),
                )?;
                listing.page_of_matching(
                    newest_first
                        .iter()
                        .map(|row| row.try_get(0).map_err(StoreError::from)),
                )?
            }
        };
        Ok(ListedPage {
            total,
            records: self.find_files(company_id, &uids)?,
        })
    }
}
