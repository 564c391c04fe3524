//! The target of a copy from another store (`crate::transfer`): a described table's rows written
//! into PostgreSQL a batch a transaction, skipping rows already there and keeping row ids; what
//! would collide with another team's rows found first; the sequences moved past the copied ids,
//! the term index filled in at the end; each table counted for the copied companies. A batch's
//! rows go in one multi-row `INSERT … ON CONFLICT DO NOTHING` (a copy that stopped resumes),
//! split only where the protocol's 65,535 parameters a statement would be passed.

use r2d2_postgres::postgres::types::ToSql;
use r2d2_postgres::postgres::{self, Client};

use crate::cells::{Cell, Row};
use crate::error::StoreError;
use crate::schema::{ColumnType, Owner, TABLES, Table};

/// The PostgreSQL database a copy writes into.
pub(crate) struct Target<'a> {
    client: &'a mut Client,
}

impl Cell {
    /// The cell as the client binds it.
    fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Self::Text(value) => value,
            Self::OptionalText(value) => value,
            Self::Integer(value) => value,
            Self::Position(value) => value,
            Self::Flag(value) => value,
            Self::Bytes(value) => value,
        }
    }
}

/// Bind parameters one statement may carry (PostgreSQL's protocol counts them in 16 bits).
const MOST_PARAMETERS: usize = 65_535;

/// The insert of `rows` rows of `table` in one statement (multi-row `VALUES`) that skips a row
/// already there, keeping its row id.
fn insert_sql(table: &Table, rows: usize) -> String {
    let names: Vec<&str> = table.columns.iter().map(|column| column.name).collect();
    let tuples: Vec<String> = (0..rows)
        .map(|row| {
            let placeholders: Vec<String> = (1..=names.len())
                .map(|n| format!("${}", row * names.len() + n))
                .collect();
            format!("({})", placeholders.join(", "))
        })
        .collect();
    let keeps_ids = table
        .columns
        .iter()
        .any(|column| column.kind == ColumnType::RowId);
    format!(
        "INSERT INTO {} ({}){} VALUES {} ON CONFLICT DO NOTHING",
        table.name,
        names.join(", "),
        if keeps_ids {
            " OVERRIDING SYSTEM VALUE"
        } else {
            ""
        },
        tuples.join(", ")
    )
}

/// Writes `rows` of `table` in `transaction`, as many a statement as the protocol's parameters
/// allow; returns how many were written (not already there).
fn insert_rows(
    transaction: &mut postgres::Transaction<'_>,
    table: &Table,
    rows: &[Row],
) -> Result<u64, StoreError> {
    let per_statement = (MOST_PARAMETERS / table.columns.len().max(1)).max(1);
    let mut written = 0;
    for chunk in rows.chunks(per_statement) {
        let params: Vec<&(dyn ToSql + Sync)> = chunk.iter().flatten().map(Cell::as_sql).collect();
        written += transaction.execute(&insert_sql(table, chunk.len()), &params)?;
    }
    Ok(written)
}

/// The count of `table`'s rows of the companies `$1` (or, for a global table, of the keys `$1`).
fn count_sql(table: &Table) -> String {
    let name = table.name;
    match table.owner {
        Owner::Company(column) | Owner::Key(column) => {
            format!("SELECT count(*) FROM {name} WHERE {column} = ANY($1)")
        }
        Owner::File(column) => format!(
            "SELECT count(*) FROM {name} x JOIN files f ON f.uid = x.{column} \
             WHERE f.company_id = ANY($1)"
        ),
        Owner::User(column) => format!(
            "SELECT count(*) FROM {name} x JOIN users u ON u.id = x.{column} \
             WHERE u.company_id = ANY($1)"
        ),
    }
}

/// The texts of a clashing row: a row's columns by position.
fn field(row: &[String], at: usize) -> &str {
    row.get(at).map_or("", String::as_str)
}

impl<'a> Target<'a> {
    /// A copy into the database of `client` (its schema brought up to date when the store
    /// opened).
    pub(crate) fn new(client: &'a mut Client) -> Self {
        Self { client }
    }

    /// Writes `rows` of `table` in one transaction, skipping those already there; returns how
    /// many were written.
    pub(crate) fn insert(&mut self, table: &Table, rows: &[Row]) -> Result<u64, StoreError> {
        let mut transaction = self.client.transaction()?;
        let written = insert_rows(&mut transaction, table, rows)?;
        transaction.commit()?;
        Ok(written)
    }

    /// Writes the rows of several files of a table without a key in one transaction, each file's
    /// only when the target holds none of them (by `file_column`); returns how many were written.
    pub(crate) fn insert_by_file(
        &mut self,
        table: &Table,
        file_column: &str,
        files: &[(String, Vec<Row>)],
    ) -> Result<u64, StoreError> {
        let mut transaction = self.client.transaction()?;
        let present = transaction.prepare(&format!(
            "SELECT count(*) FROM {} WHERE {file_column} = $1",
            table.name
        ))?;
        let mut written = 0;
        for (uid, rows) in files {
            let held: i64 = transaction.query_one(&present, &[uid])?.try_get(0)?;
            if held > 0 {
                continue;
            }
            written += insert_rows(&mut transaction, table, rows)?;
        }
        transaction.commit()?;
        Ok(written)
    }

    /// The companies `(id, name)` that meet another company in the target: the same name
    /// (case-insensitively) under another id, or the same id under another name.
    pub(crate) fn companies_clashing(
        &mut self,
        companies: &[Vec<String>],
    ) -> Result<Vec<String>, StoreError> {
        let mut clashes = Vec::new();
        for company in companies {
            let (id, name) = (field(company, 0), field(company, 1));
            for row in self.client.query(
                "SELECT id, name FROM companies WHERE lower(name) = lower($2::text) OR id = $1",
                &[&id, &name],
            )? {
                let (other_id, other_name): (String, String) = (row.try_get(0)?, row.try_get(1)?);
                if other_id != id || !other_name.eq_ignore_ascii_case(name) {
                    clashes.push(format!(
                        "company {name} ({id}) meets company {other_name} ({other_id})"
                    ));
                }
            }
        }
        Ok(clashes)
    }

    /// The users `(id, company, name)` that meet another user in the target: the same name
    /// (case-insensitively) or id otherwise.
    pub(crate) fn users_clashing(
        &mut self,
        users: &[Vec<String>],
    ) -> Result<Vec<String>, StoreError> {
        let mut clashes = Vec::new();
        for user in users {
            let (id, company, name) = (field(user, 0), field(user, 1), field(user, 2));
            let id: i64 = id.parse().unwrap_or(-1);
            for row in self.client.query(
                "SELECT id, company_id, name FROM users WHERE lower(name) = lower($2::text) OR id = $1",
                &[&id, &name],
            )? {
                let (other_id, other_company, other_name): (i64, String, String) =
                    (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
                if other_id != id || other_company != company || !other_name.eq_ignore_ascii_case(name)
                {
                    clashes.push(format!(
                        "user {name} (id {id}) meets user {other_name} (id {other_id}) of company \
                         {other_company}"
                    ));
                }
            }
        }
        Ok(clashes)
    }

    /// The attribute names `(id, company, name key, unit key)` that meet another in the target:
    /// their id for another name, or their name under another id.
    pub(crate) fn attribute_names_clashing(
        &mut self,
        names: &[Vec<String>],
    ) -> Result<Vec<String>, StoreError> {
        let mut clashes = Vec::new();
        for name in names {
            let id: i64 = field(name, 0).parse().unwrap_or(-1);
            let (company, name_key, unit_key) = (field(name, 1), field(name, 2), field(name, 3));
            for row in self.client.query(
                "SELECT id FROM attribute_names WHERE id = $1 AND NOT (company_id = $2 \
                 AND name_key = $3 AND unit_key = $4) OR id <> $1 AND company_id = $2 \
                 AND name_key = $3 AND unit_key = $4",
                &[&id, &company, &name_key, &unit_key],
            )? {
                let other: i64 = row.try_get(0)?;
                clashes.push(format!(
                    "attribute {name_key} (id {id}) meets attribute id {other}"
                ));
            }
        }
        Ok(clashes)
    }

    /// The files `(uid, company)` held by another company in the target.
    pub(crate) fn files_clashing(
        &mut self,
        files: &[Vec<String>],
    ) -> Result<Vec<String>, StoreError> {
        let uids: Vec<&str> = files.iter().map(|file| field(file, 0)).collect();
        let mut clashes = Vec::new();
        for row in self.client.query(
            "SELECT uid, company_id FROM files WHERE uid = ANY($1)",
            &[&uids],
        )? {
            let (uid, company): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            let owner = files
                .iter()
                .find(|file| field(file, 0) == uid)
                .map(|file| field(file, 1));
            if owner != Some(company.as_str()) {
                clashes.push(format!("file {uid} belongs to company {company} there"));
            }
        }
        Ok(clashes)
    }

    /// After the rows: the sequences moved past the copied ids (so that the next row made here
    /// gets a new one), the term index filled in for the copied files (their view vectors are the
    /// bulk load's, see `crate::transfer`).
    pub(crate) fn finish(&mut self, progress: &mut dyn FnMut(String)) -> Result<(), StoreError> {
        for table in TABLES {
            for column in table
                .columns
                .iter()
                .filter(|column| column.kind == ColumnType::RowId)
            {
                let (name, id) = (table.name, column.name);
                self.client.batch_execute(&format!(
                    "SELECT setval(pg_get_serial_sequence('{name}', '{id}'),
                                   GREATEST((SELECT max({id}) FROM {name}), 1))"
                ))?;
            }
        }
        self.client
            .batch_execute("SELECT setval('job_seq', GREATEST((SELECT max(seq) FROM jobs), 1))")?;
        let terms = super::text_terms::fill_missing(self.client)?;
        if terms > 0 {
            progress(format!("free-text terms: {terms} files"));
        }
        Ok(())
    }

    /// How many rows of `table` belong to `companies` (a global table: hold one of `keys`).
    pub(crate) fn count(
        &mut self,
        table: &Table,
        companies: &[String],
        keys: &[String],
    ) -> Result<i64, StoreError> {
        let bound = match table.owner {
            Owner::Key(_) => keys,
            _ => companies,
        };
        Ok(self
            .client
            .query_one(&count_sql(table), &[&bound])?
            .try_get(0)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_inserted_keeping_their_ids_and_counted_by_their_owner() {
        let table = |name| crate::schema::table(name).unwrap();
        assert_eq!(
            insert_sql(table("users"), 1),
            "INSERT INTO users (id, company_id, name, password_hash, admin, created_at) \
             OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING"
        );
        assert_eq!(
            insert_sql(table("views"), 2),
            "INSERT INTO views (file_uid, position, descriptor) \
             VALUES ($1, $2, $3), ($4, $5, $6) ON CONFLICT DO NOTHING"
        );
        assert_eq!(
            count_sql(table("tokens")),
            "SELECT count(*) FROM tokens x JOIN users u ON u.id = x.user_id \
             WHERE u.company_id = ANY($1)"
        );
        assert_eq!(
            count_sql(table("settings")),
            "SELECT count(*) FROM settings WHERE name = ANY($1)"
        );
    }
}
