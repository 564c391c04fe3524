//! Callbacks of the File Indexing and Search Service, made to be trusted as a webhook system is.
//!
//! - A company's settings (URL, secret, events, on or off) are in the store
//!   ([`partlens_store::model::callbacks`]); [`admin`] sets and shows them and lists deliveries.
//! - An event (a database file's indexing completed or failed, a file deleted) is recorded in
//!   the store's outbox by [`events::record_file_event`], inside the transaction of the change.
//! - The [`sender`] sends due deliveries in the background, each company apart, signed
//!   ([`signing`], Standard Webhooks), to checked addresses only ([`address`]), and retries
//!   them ([`retry`]) for a day; every attempt is recorded and counted ([`metrics`]).
//!
//! This crate names no HTTP server and no store engine: it reaches the store through its
//! handle, model and traits, and the sender reaches the outbox through the [`outbox::Outbox`]
//! trait.

pub mod address;
pub mod admin;
pub mod delivery;
pub mod error;
pub mod events;
pub mod metrics;
pub mod outbox;
pub mod payload;
pub mod retry;
pub mod sender;
pub mod signing;

pub use error::CallbackError;
pub use metrics::AttemptCounts;
pub use sender::SenderSettings;
