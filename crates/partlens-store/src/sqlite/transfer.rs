//! The source of a copy into another store (`crate::transfer`): a SQLite data directory's
//! database opened read-only, read in one snapshot, a described table's rows in the order they
//! were made (rowid), each value read as its column is described.

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::DATABASE_FILE;
use crate::cells::{Cell, CellKind, Row, kind_of};
use crate::error::StoreError;
use crate::schema::Table;

/// How long the source waits for a writer (a service still running on it) before giving up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A data directory's database, read in one snapshot.
pub(crate) struct Source {
    connection: Connection,
}

/// A value of `column` read as `kind`.
fn cell(value: ValueRef<'_>, kind: CellKind, column: &str) -> Result<Cell, StoreError> {
    let wrong = |what: &str| {
        StoreError::Refused(format!(
            "the source's column {column} holds {:?}, not {what}",
            value.data_type()
        ))
    };
    let text = |value: ValueRef<'_>| -> Result<String, StoreError> {
        match value {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                Ok(String::from_utf8_lossy(bytes).into_owned())
            }
            ValueRef::Integer(number) => Ok(number.to_string()),
            ValueRef::Real(number) => Ok(number.to_string()),
            ValueRef::Null => Err(StoreError::Refused(format!(
                "the source's column {column} is NULL"
            ))),
        }
    };
    let integer = match value {
        ValueRef::Integer(number) => Some(number),
        _ => None,
    };
    Ok(match kind {
        CellKind::Text => Cell::Text(text(value)?),
        CellKind::OptionalText => Cell::OptionalText(match value {
            ValueRef::Null => None,
            other => Some(text(other)?),
        }),
        CellKind::Integer => Cell::Integer(integer.ok_or_else(|| wrong("a number"))?),
        CellKind::Position => Cell::Position(
            integer
                .and_then(|number| i32::try_from(number).ok())
                .ok_or_else(|| wrong("a small number"))?,
        ),
        CellKind::Flag => Cell::Flag(integer.ok_or_else(|| wrong("a flag"))? != 0),
        CellKind::Bytes => Cell::Bytes(match value {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes.to_vec(),
            _ => return Err(wrong("bytes")),
        }),
    })
}

impl Source {
    /// Opens the database of data directory `from` read-only and starts its snapshot; refuses a
    /// directory without one, and one whose schema is not this program's.
    pub(crate) fn open(from: &Path) -> Result<Self, StoreError> {
        let path = from.join(DATABASE_FILE);
        if !path.is_file() {
            return Err(StoreError::Refused(format!(
                "{} holds no partlens database ({DATABASE_FILE})",
                from.display()
            )));
        }
        let connection = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        let version = super::schema::version(&connection)?;
        let current = super::schema::current_version();
        if version != current {
            return Err(StoreError::Refused(format!(
                "the source's schema is version {version}, this program's {current}: start this \
                 partlens-service once on {} (without --database), stop it, then migrate",
                from.display()
            )));
        }
        // One snapshot for everything read.
        connection.execute_batch("BEGIN")?;
        Ok(Self { connection })
    }

    /// The described columns of `table`, for a `SELECT`.
    fn columns(table: &Table) -> String {
        table
            .columns
            .iter()
            .map(|column| column.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Hands `each` the rows of `table` that `condition` (of the arguments) keeps, in the order
    /// they were made.
    fn rows_where_condition(
        &self,
        table: &Table,
        condition: &str,
        arguments: impl rusqlite::Params,
        each: &mut dyn FnMut(Row) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT {} FROM {} WHERE {condition} ORDER BY rowid",
            Self::columns(table),
            table.name
        ))?;
        let mut rows = statement.query(arguments)?;
        while let Some(row) = rows.next()? {
            let mut cells = Vec::with_capacity(table.columns.len());
            for (index, column) in table.columns.iter().enumerate() {
                let kind = kind_of(column.kind, column.required);
                cells.push(cell(row.get_ref(index)?, kind, column.name)?);
            }
            each(cells)?;
        }
        Ok(())
    }

    /// Hands `each` every row of `table`, in the order they were made.
    pub(crate) fn rows(
        &self,
        table: &Table,
        each: &mut dyn FnMut(Row) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.rows_where_condition(table, "1", rusqlite::params![], each)
    }

    /// The rows of `table` whose `column` is `value`, in the order they were made.
    pub(crate) fn rows_where(
        &self,
        table: &Table,
        column: &str,
        value: &str,
    ) -> Result<Vec<Row>, StoreError> {
        let mut found = Vec::new();
        self.rows_where_condition(table, &format!("{column} = ?1"), [value], &mut |row| {
            found.push(row);
            Ok(())
        })?;
        Ok(found)
    }

    /// The distinct texts of `column` in `table`, in order.
    pub(crate) fn distinct(&self, table: &Table, column: &str) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare(&format!(
            "SELECT DISTINCT {column} FROM {} ORDER BY {column}",
            table.name
        ))?;
        let values = statement
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(values)
    }

    /// How many rows `table` holds.
    pub(crate) fn count(&self, table: &Table) -> Result<i64, StoreError> {
        Ok(self.connection.query_row(
            &format!("SELECT count(*) FROM {}", table.name),
            [],
            |row| row.get(0),
        )?)
    }

    /// Ends the snapshot.
    pub(crate) fn finish(self) -> Result<(), StoreError> {
        self.connection.execute_batch("COMMIT")?;
        Ok(())
    }
}
