//! Administration of a data directory without a running service (or beside one: the store is in WAL
//! mode with a busy timeout): users, companies and client ids. Blocking functions.

use std::path::Path;

use crate::blobs::{BlobLocation, Blobs};
use partlens_store::DatabaseUrl;

use partlens_api::encoding::password_digest;

use super::auth::hash_password_digest;
use super::error::ServiceError;
use partlens_store::Store;

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
    Ok(store.write_tx_blocking(|tx| {
        let company_id = tx.ensure_company(company)?;
        tx.upsert_user(&company_id, user, &hash, admin)
    })?)
}

/// What `partlens-service check` reports about the store a service is configured with, changing
/// nothing: one line a finding, and whether the service can start on it as it is.
pub fn check(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
) -> Result<(Vec<String>, bool), ServiceError> {
    Ok(Store::check_blocking(data_dir, database)?)
}

/// What `partlens-service check` reports about the blob store (`--blobs`): one line, and whether
/// the service can keep files there. A folder is looked at only (one not made yet is fine: the
/// service makes it); a bucket is asked to take and remove a small object under `probe/`.
pub fn check_blobs(data_dir: &Path, location: &BlobLocation) -> (Vec<String>, bool) {
    let folder = match location {
        BlobLocation::DataDirectory => Some(data_dir),
        BlobLocation::Folder(folder) => Some(folder.as_path()),
        BlobLocation::S3(_) => None,
    };
    if let Some(folder) = folder {
        return match std::fs::metadata(folder) {
            Ok(metadata) if metadata.is_dir() => (
                vec![format!(
                    "stored files and images in folder {}",
                    folder.display()
                )],
                true,
            ),
            Ok(_) => (
                vec![format!(
                    "{} is not a folder: stored files cannot go there",
                    folder.display()
                )],
                false,
            ),
            Err(_) => (
                vec![format!(
                    "stored files and images in folder {} (made at start)",
                    folder.display()
                )],
                true,
            ),
        };
    }
    let asked = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| error.to_string())
        .and_then(|runtime| {
            runtime.block_on(async {
                let blobs = Blobs::open(location, data_dir).map_err(|error| error.to_string())?;
                match tokio::time::timeout(CHECK_WAIT, blobs.probe()).await {
                    Ok(Ok(())) => Ok(blobs.describe()),
                    Ok(Err(error)) => Err(format!("{}: {error}", blobs.describe())),
                    Err(_) => Err(format!(
                        "{}: no answer within {} s",
                        blobs.describe(),
                        CHECK_WAIT.as_secs()
                    )),
                }
            })
        });
    match asked {
        Ok(described) => (
            vec![format!(
                "stored files and images in {described}: reachable, takes writes"
            )],
            true,
        ),
        Err(why) => (
            vec![format!(
                "the blob store cannot be used: {why} (check the bucket, AWS_ENDPOINT_URL and the credentials)"
            )],
            false,
        ),
    }
}

/// How long `check` waits for a bucket to take and remove its probe.
const CHECK_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

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
    Ok(store.write_tx_blocking(|tx| tx.add_client(client_id))?)
}
