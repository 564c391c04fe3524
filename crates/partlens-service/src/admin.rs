//! Administration of a data directory without a running service (or beside one: the store is in WAL
//! mode with a busy timeout): users, companies and client ids. Blocking functions.

use std::path::Path;

use partlens_api::encoding::password_digest;

use super::auth::hash_password_digest;
use super::error::ServiceError;
use super::store::{Store, accounts};

fn required<'a>(value: &'a str, what: &str) -> Result<&'a str, ServiceError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        Err(ServiceError::BadRequest(format!(
            "the {what} may not be empty"
        )))
    } else {
        Ok(trimmed)
    }
}

/// Creates the company if needed and the user (or resets the password/admin flag of an existing one).
/// The password is the plain text; only an argon2 hash of its SHA-1 digest is stored.
pub fn add_user(
    data_dir: &Path,
    company: &str,
    user: &str,
    password: &str,
    admin: bool,
) -> Result<(), ServiceError> {
    let company = required(company, "company name")?;
    let user = required(user, "user name")?;
    let hash = hash_password_digest(&password_digest(password))?;
    let store = Store::open_blocking(data_dir)?;
    store.write_blocking(|connection| {
        let company_id = accounts::ensure_company(connection, company)?;
        accounts::upsert_user(connection, &company_id, user, &hash, admin)
    })
}

/// Registers a client id (`partlens` is registered in every new data directory).
pub fn add_client(data_dir: &Path, client_id: &str) -> Result<(), ServiceError> {
    let client_id = required(client_id, "client id")?;
    let store = Store::open_blocking(data_dir)?;
    store.write_blocking(|connection| accounts::add_client(connection, client_id))
}
