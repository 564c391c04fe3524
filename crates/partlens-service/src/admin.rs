//! Administration of a data directory without a running service (or beside one: the store is in WAL
//! mode with a busy timeout): users, companies and client ids. Blocking functions.

use std::path::Path;

use crate::store::postgres::DatabaseUrl;

use partlens_api::encoding::password_digest;

use super::auth::hash_password_digest;
use super::error::ServiceError;
use super::store::Store;

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
    add_user_in(data_dir, None, company, user, password, admin)
}

/// [`add_user`] in the store a service is configured with: the PostgreSQL `database` when given,
/// else the SQLite database of `data_dir`.
pub fn add_user_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    user: &str,
    password: &str,
    admin: bool,
) -> Result<(), ServiceError> {
    let company = required(company, "company name")?;
    let user = required(user, "user name")?;
    let hash = hash_password_digest(&password_digest(password))?;
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.write_tx_blocking(|tx| {
        let company_id = tx.ensure_company(company)?;
        tx.upsert_user(&company_id, user, &hash, admin)
    })
}

/// What `partlens-service check` reports about the store a service is configured with, changing
/// nothing: one line a finding, and whether the service can start on it as it is.
pub fn check(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
) -> Result<(Vec<String>, bool), ServiceError> {
    if let Some(url) = database {
        return crate::store::postgres::PgStore::check_blocking(url);
    }
    let path = data_dir.join(crate::store::DATABASE_FILE);
    if !path.exists() {
        return Ok((
            vec![format!(
                "no database at {} yet: the service creates it at start",
                path.display()
            )],
            true,
        ));
    }
    let connection =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let found = crate::store::schema::version(&connection)?;
    let current = crate::store::schema::current_version();
    Ok(if found > current {
        (
            vec![format!(
                "schema version {found} of {} is newer than this program's {current}: run the newer partlens-service",
                path.display()
            )],
            false,
        )
    } else {
        (
            vec![format!(
                "SQLite database {} at schema version {found} (this program writes {current})",
                path.display()
            )],
            true,
        )
    })
}

/// Registers a client id (`partlens` is registered in every new data directory).
pub fn add_client(data_dir: &Path, client_id: &str) -> Result<(), ServiceError> {
    add_client_in(data_dir, None, client_id)
}

/// [`add_client`] in the store a service is configured with (see [`add_user_in`]).
pub fn add_client_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    client_id: &str,
) -> Result<(), ServiceError> {
    let client_id = required(client_id, "client id")?;
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.write_tx_blocking(|tx| tx.add_client(client_id))
}
