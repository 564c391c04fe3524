//! A row of a described table as values on their way from one engine to the other (the copy of
//! `transfer.rs`): each value typed as its column is described, read by the source engine, bound
//! by the target engine.

use crate::schema::ColumnType;

/// One value of a row on its way between the engines, typed as its column is described.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    /// A required text.
    Text(String),
    /// A text that may be NULL.
    OptionalText(Option<String>),
    /// A 64-bit integer (a row id too).
    Integer(i64),
    /// A position in a short list.
    Position(i32),
    /// A flag.
    Flag(bool),
    /// Bytes.
    Bytes(Vec<u8>),
}

impl Cell {
    /// The text of a text cell (`None` for other cells and NULL).
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Self::Text(text) | Self::OptionalText(Some(text)) => Some(text),
            _ => None,
        }
    }
}

/// What a copied column is read as: a required text, one that may be NULL, …
pub(crate) fn kind_of(kind: ColumnType, required: bool) -> CellKind {
    match kind {
        ColumnType::Text if required => CellKind::Text,
        ColumnType::Text => CellKind::OptionalText,
        ColumnType::Integer | ColumnType::RowId => CellKind::Integer,
        ColumnType::Position => CellKind::Position,
        ColumnType::Flag => CellKind::Flag,
        ColumnType::Bytes => CellKind::Bytes,
    }
}

/// The kinds of [`Cell`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CellKind {
    /// [`Cell::Text`].
    Text,
    /// [`Cell::OptionalText`].
    OptionalText,
    /// [`Cell::Integer`].
    Integer,
    /// [`Cell::Position`].
    Position,
    /// [`Cell::Flag`].
    Flag,
    /// [`Cell::Bytes`].
    Bytes,
}

/// A row of a described table: its cells in the table's column order.
pub(crate) type Row = Vec<Cell>;
