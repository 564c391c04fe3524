//! Copying a SQLite data directory's records into a PostgreSQL store (`partlens-service migrate`):
//! accounts, records, descriptors, attributes, feedback and the queue, every table of the store's
//! description ([`crate::schema::TABLES`]) in its order, column by column as described; then the
//! counts of what each side holds for the copied companies.
//!
//! The source database is opened read-only and read in one snapshot (`sqlite/transfer.rs`); it must
//! be at this program's schema. Rows are written in batches of [`BATCH_ROWS`], one transaction each,
//! skipping rows already there (`postgres/transfer.rs`): a run that stopped half way resumes, and a
//! second run writes nothing. Row ids are kept (the stable ids of users and attribute names) and
//! the target's sequences moved past them afterwards. Before writing, the target is checked for
//! another team's rows the copy would collide with (a company of the same name under another id,
//! a user name or attribute id taken otherwise, a file UID of another company): the copy is then
//! refused, nothing written. Run it with the service on the source stopped: a row already in the
//! target is left as it is, so a second run adds what is missing but does not carry over changes
//! made to the source since the first.
//!
//! What the description does not hold is each engine's own and not copied: SQLite's term index,
//! listing rows and journal; the target's triggers write its journal, counts and metadata
//! generation as the rows arrive, and its term index and view vectors are filled in at the end:
//! the copy is one bulk load (`Store::bulk_load_blocking`), so the vectors of a large copy go in
//! by `COPY` with the HNSW index dropped, and the index is built once after them.
//! A file `in_progress` in the source is `queued` in the target (its job is taken again, as a
//! SQLite start would). A table without a key (attribute values) is copied a file at a time, only
//! for files whose rows the target does not hold yet.

use std::path::Path;

use crate::cells::{Cell, Row};
use crate::error::StoreError;
use crate::model::{IndexState, TableCount};
use crate::postgres::transfer::Target;
use crate::schema::{TABLES, Table};
use crate::sqlite::transfer::Source;
use crate::store::Store;

/// Rows written in one transaction (one statement, or a few for a table of many columns: see
/// `postgres/transfer.rs`).
pub(crate) const BATCH_ROWS: usize = 500;

/// Files whose keyless rows are written in one transaction.
const BATCH_FILES: usize = BATCH_ROWS / 10;

/// The position of column `name` in `table`'s rows.
fn column(table: &Table, name: &str) -> Result<usize, StoreError> {
    table
        .columns
        .iter()
        .position(|column| column.name == name)
        .ok_or_else(|| StoreError::Internal(format!("no column {}.{name}", table.name)))
}

/// The table of the description called `name`.
fn described(name: &str) -> Result<&'static Table, StoreError> {
    crate::schema::table(name)
        .ok_or_else(|| StoreError::Internal(format!("no table {name} is described")))
}

/// The texts of `columns` of every row of `table` in the source.
fn texts_of(
    source: &Source,
    table: &str,
    columns: &[&str],
) -> Result<Vec<Vec<String>>, StoreError> {
    let table = described(table)?;
    let positions = columns
        .iter()
        .map(|name| column(table, name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut found = Vec::new();
    source.rows(table, &mut |row| {
        found.push(
            positions
                .iter()
                .map(|&at| match &row[at] {
                    Cell::Integer(number) => number.to_string(),
                    other => other.text().unwrap_or_default().to_owned(),
                })
                .collect(),
        );
        Ok(())
    })?;
    Ok(found)
}

impl Store {
    /// Copies the records of the SQLite data directory `from` into this store (a PostgreSQL
    /// database: a SQLite store is refused), then returns the counts of both sides, which the
    /// caller compares. `progress` is told what is done, a line at a time. Blocking, on a thread
    /// that drives no async tasks.
    pub fn copy_from_sqlite_blocking(
        &self,
        from: &Path,
        progress: &mut dyn FnMut(String),
    ) -> Result<Vec<TableCount>, StoreError> {
        let postgres = self.postgres()?;
        let source = Source::open(from)?;
        let mut client = postgres.client()?;
        refuse_collisions(&source, &mut Target::new(&mut client))?;
        // One bulk load: a large one has its vector index built once, at its end.
        let views = usize::try_from(source.count(described("views")?)?).unwrap_or(0);
        let ((), vectors) = postgres.bulk_load_blocking(views, || -> Result<(), StoreError> {
            let mut target = Target::new(&mut client);
            for table in TABLES {
                if table.primary_key.is_empty() {
                    copy_by_file(&source, &mut target, table, progress)?;
                } else {
                    copy_table(&source, &mut target, table, progress)?;
                }
            }
            target.finish(progress)
        })?;
        if vectors.files_filled > 0 {
            progress(format!("view vectors: {} files", vectors.files_filled));
        }
        if let Some(build) = vectors.index_build {
            progress(format!(
                "view vector index built in {:.1} s",
                build.as_secs_f64()
            ));
        }
        let counts = count_both(&source, &mut Target::new(&mut client))?;
        source.finish()?;
        Ok(counts)
    }
}

/// Refuses a target holding another team's rows that the copy would collide with, naming up to
/// ten of them.
fn refuse_collisions(source: &Source, target: &mut Target<'_>) -> Result<(), StoreError> {
    let mut clashes =
        target.companies_clashing(&texts_of(source, "companies", &["id", "name"])?)?;
    clashes.extend(target.users_clashing(&texts_of(
        source,
        "users",
        &["id", "company_id", "name"],
    )?)?);
    clashes.extend(target.attribute_names_clashing(&texts_of(
        source,
        "attribute_names",
        &["id", "company_id", "name_key", "unit_key"],
    )?)?);
    for files in texts_of(source, "files", &["uid", "company_id"])?.chunks(BATCH_ROWS) {
        clashes.extend(target.files_clashing(files)?);
    }
    if clashes.is_empty() {
        return Ok(());
    }
    clashes.truncate(10);
    Err(StoreError::Refused(format!(
        "the target database holds another team's data that this copy would collide with, so \
         nothing was copied: {}",
        clashes.join("; ")
    )))
}

/// A row as the target takes it: a file `in_progress` is `queued` there.
fn as_copied(table: &Table, mut row: Row) -> Result<Row, StoreError> {
    if table.name == "files" {
        let state = column(table, "state")?;
        if row[state].text() == Some(IndexState::InProgress.as_str()) {
            row[state] = Cell::Text(IndexState::Queued.as_str().to_owned());
        }
    }
    Ok(row)
}

/// Copies one table in batches, one transaction each.
fn copy_table(
    source: &Source,
    target: &mut Target<'_>,
    table: &Table,
    progress: &mut dyn FnMut(String),
) -> Result<(), StoreError> {
    let total = source.count(table)?;
    let (mut read, mut written) = (0_i64, 0_u64);
    let mut batch: Vec<Row> = Vec::with_capacity(BATCH_ROWS);
    source.rows(table, &mut |row| {
        batch.push(as_copied(table, row)?);
        read += 1;
        if batch.len() == BATCH_ROWS {
            written += target.insert(table, &batch)?;
            batch.clear();
            progress(format!("{}: {read} of {total} read", table.name));
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        written += target.insert(table, &batch)?;
    }
    progress(format!(
        "{}: {written} of {total} written (the rest were there)",
        table.name
    ));
    Ok(())
}

/// Copies a table without a key a file at a time: a file's rows are written together, only when
/// the target holds none of them.
fn copy_by_file(
    source: &Source,
    target: &mut Target<'_>,
    table: &Table,
    progress: &mut dyn FnMut(String),
) -> Result<(), StoreError> {
    let file_column = match table.owner {
        crate::schema::Owner::File(column) => column,
        _ => {
            return Err(StoreError::Internal(format!(
                "{} has no key and no file to copy it by",
                table.name
            )));
        }
    };
    let uids = source.distinct(table, file_column)?;
    let mut written = 0_u64;
    for (done, chunk) in uids.chunks(BATCH_FILES).enumerate() {
        let mut files = Vec::with_capacity(chunk.len());
        for uid in chunk {
            files.push((uid.clone(), source.rows_where(table, file_column, uid)?));
        }
        written += target.insert_by_file(table, file_column, &files)?;
        if uids.len() > BATCH_FILES {
            progress(format!(
                "{}: {} of {} files",
                table.name,
                ((done + 1) * BATCH_FILES).min(uids.len()),
                uids.len()
            ));
        }
    }
    progress(format!(
        "{}: {written} written (files that had theirs were left)",
        table.name
    ));
    Ok(())
}

/// Counts each table on both sides: the source whole, the target for the source's companies and,
/// for the global tables, its keys.
fn count_both(source: &Source, target: &mut Target<'_>) -> Result<Vec<TableCount>, StoreError> {
    let first = |rows: Vec<Vec<String>>| -> Vec<String> {
        rows.into_iter()
            .filter_map(|row| row.into_iter().next())
            .collect()
    };
    let companies = first(texts_of(source, "companies", &["id"])?);
    let mut keys = first(texts_of(source, "clients", &["id"])?);
    keys.extend(first(texts_of(source, "settings", &["name"])?));
    TABLES
        .iter()
        .map(|table| {
            Ok(TableCount {
                table: table.name,
                source: source.count(table)?,
                target: target.count(table, &companies, &keys)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_progress_is_copied_queued_and_nothing_else_changes() {
        let files = described("files").unwrap();
        let state = column(files, "state").unwrap();
        let row = |text: &str| -> Row {
            let mut row: Row = files
                .columns
                .iter()
                .map(|_| Cell::OptionalText(None))
                .collect();
            row[state] = Cell::Text(text.into());
            row
        };
        assert_eq!(
            as_copied(files, row("in_progress")).unwrap()[state],
            Cell::Text("queued".into())
        );
        assert_eq!(
            as_copied(files, row("completed")).unwrap()[state],
            Cell::Text("completed".into())
        );
        let jobs = described("jobs").unwrap();
        let untouched = vec![Cell::Text("in_progress".into())];
        assert_eq!(as_copied(jobs, untouched.clone()).unwrap(), untouched);
    }
}
