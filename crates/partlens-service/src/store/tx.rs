//! The store seam: what a transaction of either engine offers, as one trait object
//! (`&mut dyn StoreTx`) handed to the closures of [`super::Store::read_tx`] and
//! [`super::Store::write_tx`]. [`SqliteTx`] forwards to the SQLite modules beside this file
//! (`accounts.rs`, …) unchanged; `postgres/` implements the same for PostgreSQL.
//!
//! The trait grows one concern at a time as each is ported to PostgreSQL (accounts first); code not
//! yet behind it still calls the SQLite modules through [`super::Store::read`] and
//! [`super::Store::write`], which a PostgreSQL store refuses with a sentence (see
//! `docs/OPERATIONS.md`, *PostgreSQL*).

use rusqlite::Connection;

use super::accounts::{self, Caller};
use crate::error::ServiceError;

/// Companies, users, client ids, tokens and the service's own secrets (see `accounts.rs` for the
/// SQLite behaviour each engine keeps).
pub trait AccountsTx {
    /// The company and credential stamp of user `user_id`, if the user exists.
    fn credential_of_user(
        &mut self,
        user_id: i64,
    ) -> Result<Option<(String, String)>, ServiceError>;
    /// The id of the company called `name` (case-insensitively), created when it does not exist.
    fn ensure_company(&mut self, name: &str) -> Result<String, ServiceError>;
    /// Creates the user in the company, or resets the password and admin flag of an existing user
    /// of that company (ending its tokens); a name held by another company is refused (400).
    fn upsert_user(
        &mut self,
        company_id: &str,
        name: &str,
        password_hash: &str,
        admin: bool,
    ) -> Result<(), ServiceError>;
    /// Registers a client id (no error when it exists).
    fn add_client(&mut self, client_id: &str) -> Result<(), ServiceError>;
    /// True when the client id is registered.
    fn client_exists(&mut self, client_id: &str) -> Result<bool, ServiceError>;
    /// The id and password hash of the user called `name` (case-insensitively).
    fn login_of(&mut self, name: &str) -> Result<Option<(i64, String)>, ServiceError>;
    /// Stores a new token (by its hash) and drops tokens that have expired.
    fn insert_token(
        &mut self,
        token_hash: &str,
        user_id: i64,
        client_id: &str,
        expires_at: i64,
        now: i64,
    ) -> Result<(), ServiceError>;
    /// The caller a token hash belongs to, if the token exists and has not expired.
    fn caller_of_token(
        &mut self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<Caller>, ServiceError>;
    /// The secret named `name`, created from `fresh` the first time it is asked for.
    fn secret(
        &mut self,
        name: &str,
        fresh: &mut dyn FnMut() -> Vec<u8>,
    ) -> Result<Vec<u8>, ServiceError>;
}

/// One transaction of the store, whichever engine holds it.
pub trait StoreTx: AccountsTx {
    /// The engine's name, for messages (`SQLite`, `PostgreSQL`).
    fn engine(&self) -> &'static str;
    /// The database's schema version and the one this program writes (equal when current).
    fn schema_versions(&mut self) -> Result<(i64, i64), ServiceError>;
}

/// A transaction (or read connection) of the SQLite store.
pub struct SqliteTx<'a>(pub &'a Connection);

impl StoreTx for SqliteTx<'_> {
    fn engine(&self) -> &'static str {
        "SQLite"
    }

    fn schema_versions(&mut self) -> Result<(i64, i64), ServiceError> {
        Ok((
            super::schema::version(self.0)?,
            super::schema::current_version(),
        ))
    }
}

impl AccountsTx for SqliteTx<'_> {
    fn credential_of_user(
        &mut self,
        user_id: i64,
    ) -> Result<Option<(String, String)>, ServiceError> {
        accounts::credential_of_user(self.0, user_id)
    }

    fn ensure_company(&mut self, name: &str) -> Result<String, ServiceError> {
        accounts::ensure_company(self.0, name)
    }

    fn upsert_user(
        &mut self,
        company_id: &str,
        name: &str,
        password_hash: &str,
        admin: bool,
    ) -> Result<(), ServiceError> {
        accounts::upsert_user(self.0, company_id, name, password_hash, admin)
    }

    fn add_client(&mut self, client_id: &str) -> Result<(), ServiceError> {
        accounts::add_client(self.0, client_id)
    }

    fn client_exists(&mut self, client_id: &str) -> Result<bool, ServiceError> {
        accounts::client_exists(self.0, client_id)
    }

    fn login_of(&mut self, name: &str) -> Result<Option<(i64, String)>, ServiceError> {
        accounts::login_of(self.0, name)
    }

    fn insert_token(
        &mut self,
        token_hash: &str,
        user_id: i64,
        client_id: &str,
        expires_at: i64,
        now: i64,
    ) -> Result<(), ServiceError> {
        accounts::insert_token(self.0, token_hash, user_id, client_id, expires_at, now)
    }

    fn caller_of_token(
        &mut self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<Caller>, ServiceError> {
        accounts::caller_of_token(self.0, token_hash, now)
    }

    fn secret(
        &mut self,
        name: &str,
        fresh: &mut dyn FnMut() -> Vec<u8>,
    ) -> Result<Vec<u8>, ServiceError> {
        accounts::secret(self.0, name, fresh)
    }
}
