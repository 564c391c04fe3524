//! The store of the File Indexing and Search Service: what it keeps about files, their indexing,
//! their attributes, the companies and users, feedback, and the views the visual index is built
//! from, in a SQLite database file or a PostgreSQL database.
//!
//! A user of this crate reaches three things, and only these:
//!
//! - the [`Store`] handle: opens a store and runs work in its transactions ([`Store::read_tx`],
//!   [`Store::write_tx`], [`Store::queue_tx`]);
//! - the [`model`]: the records, jobs, attributes, accounts, feedback, listings and views as
//!   plain types, and the rules both engines keep (keys, caps, the search text);
//! - the [`traits`]: what one transaction offers ([`StoreTx`], all of [`AccountsTx`],
//!   [`FilesTx`], [`JobsTx`], [`AttributesTx`], [`SearchTx`], [`LibraryTx`], [`VisualTx`] and
//!   [`CallbacksTx`]).
//!
//! The two engines, `sqlite/` and `postgres/`, are private peers: each implements the traits
//! directly, neither imports the other, and a caller cannot name either (so code above the store,
//! the visual index for one, is written once for both, and the compiler keeps it so). Their
//! schemas come from one description (`schema/`) and are checked against it column by column;
//! records move between them through the same description ([`Store::copy_from_sqlite_blocking`]).
//! Errors are the store's own ([`StoreError`]); the service turns them into its HTTP errors.

mod cells;
mod clock;
mod error;
pub mod model;
mod postgres;
mod rows;
mod schema;
mod sqlite;
mod store;
pub mod traits;
mod transfer;
mod usage;

pub use clock::{iso_now, unix_now};
pub use error::StoreError;
pub use store::{BulkVectors, DATABASE_FILE, DatabaseUrl, Store};
pub use traits::{
    AccountsTx, AttributesTx, CallbacksTx, CategoriesTx, FilesTx, JobsTx, LibraryTx, PairsTx,
    RelationsTx, SearchTx, StoreTx, VisualTx,
};
pub use usage::{PoolUse, TransactionCounts};
