//! What a copy of records from one store into another reports: how many rows each table holds on
//! both sides, for the companies copied.

/// Counts of one table on both sides of a copy, for the copied companies (or, for a global table,
/// the copied keys).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableCount {
    /// The table.
    pub table: &'static str,
    /// Rows in the source.
    pub source: i64,
    /// Rows in the target that belong to the source's companies (or keys).
    pub target: i64,
}
