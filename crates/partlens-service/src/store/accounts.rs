//! Companies, users, client ids, bearer tokens and the service's own secrets.

use rusqlite::{Connection, OptionalExtension, params};

use super::iso_now;
use crate::error::ServiceError;

/// The authenticated user of a request: who, which company, whether an admin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The user's row id.
    pub user_id: i64,
    /// The company's GUID (the VizSpaceID of its files).
    pub company_id: String,
    /// Admins may delete company-database files.
    pub admin: bool,
    /// A digest of the user's password hash: it changes when the password is reset, and image
    /// links are bound to it (see `service::image_links`).
    pub credential_stamp: String,
}

/// The credential stamp of a stored password hash (see [`Caller::credential_stamp`]).
pub fn credential_stamp(password_hash: &str) -> String {
    use sha2::Digest as _;
    hex::encode(&sha2::Sha256::digest(password_hash.as_bytes())[..16])
}

/// The company and credential stamp of user `user_id`, if the user exists.
pub fn credential_of_user(
    connection: &Connection,
    user_id: i64,
) -> Result<Option<(String, String)>, ServiceError> {
    Ok(connection
        .query_row(
            "SELECT company_id, password_hash FROM users WHERE id = ?1",
            [user_id],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
        )
        .optional()?
        .map(|(company_id, hash)| (company_id, credential_stamp(&hash))))
}

/// The id of the company called `name`, created when it does not exist.
pub fn ensure_company(connection: &Connection, name: &str) -> Result<String, ServiceError> {
    let existing: Option<String> = connection
        .query_row("SELECT id FROM companies WHERE name = ?1", [name], |row| {
            row.get(0)
        })
        .optional()?;
    if let Some(id) = existing {
        return Ok(id);
    }
    let id = uuid::Uuid::new_v4().hyphenated().to_string();
    connection.execute(
        "INSERT INTO companies (id, name, created_at) VALUES (?1, ?2, ?3)",
        params![id, name, iso_now()],
    )?;
    Ok(id)
}

/// Creates the user in the company, or resets the password and admin flag of an existing user of
/// that company. A user name is unique across companies (the token request names no company).
pub fn upsert_user(
    connection: &Connection,
    company_id: &str,
    name: &str,
    password_hash: &str,
    admin: bool,
) -> Result<(), ServiceError> {
    let existing: Option<(i64, String)> = connection
        .query_row(
            "SELECT id, company_id FROM users WHERE name = ?1",
            [name],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    match existing {
        Some((_, other_company)) if other_company != company_id => Err(ServiceError::BadRequest(
            format!("user \"{name}\" already belongs to another company"),
        )),
        Some((id, _)) => {
            connection.execute(
                "UPDATE users SET password_hash = ?1, admin = ?2 WHERE id = ?3",
                params![password_hash, admin, id],
            )?;
            // A new password ends the sessions of the old one.
            connection.execute("DELETE FROM tokens WHERE user_id = ?1", [id])?;
            Ok(())
        }
        None => {
            connection.execute(
                "INSERT INTO users (company_id, name, password_hash, admin, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![company_id, name, password_hash, admin, iso_now()],
            )?;
            Ok(())
        }
    }
}

/// Registers a client id (no error when it exists).
pub fn add_client(connection: &Connection, client_id: &str) -> Result<(), ServiceError> {
    connection.execute(
        "INSERT OR IGNORE INTO clients (id, created_at) VALUES (?1, ?2)",
        params![client_id, iso_now()],
    )?;
    Ok(())
}

/// True when the client id is registered.
pub fn client_exists(connection: &Connection, client_id: &str) -> Result<bool, ServiceError> {
    Ok(connection
        .query_row("SELECT 1 FROM clients WHERE id = ?1", [client_id], |_| {
            Ok(())
        })
        .optional()?
        .is_some())
}

/// The id and password hash of the user called `name` (compared case-insensitively).
pub fn login_of(
    connection: &Connection,
    name: &str,
) -> Result<Option<(i64, String)>, ServiceError> {
    Ok(connection
        .query_row(
            "SELECT id, password_hash FROM users WHERE name = ?1",
            [name],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?)
}

/// Stores a new token (by its hash) and drops tokens that have expired.
pub fn insert_token(
    connection: &Connection,
    token_hash: &str,
    user_id: i64,
    client_id: &str,
    expires_at: i64,
    now: i64,
) -> Result<(), ServiceError> {
    connection.execute("DELETE FROM tokens WHERE expires_at <= ?1", [now])?;
    connection.execute(
        "INSERT INTO tokens (token_hash, user_id, client_id, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![token_hash, user_id, client_id, expires_at],
    )?;
    Ok(())
}

/// The caller a token hash belongs to, if the token exists and has not expired.
pub fn caller_of_token(
    connection: &Connection,
    token_hash: &str,
    now: i64,
) -> Result<Option<Caller>, ServiceError> {
    Ok(connection
        .query_row(
            "SELECT u.id, u.company_id, u.admin, u.password_hash FROM tokens t
               JOIN users u ON u.id = t.user_id
             WHERE t.token_hash = ?1 AND t.expires_at > ?2",
            params![token_hash, now],
            |row| {
                Ok(Caller {
                    user_id: row.get(0)?,
                    company_id: row.get(1)?,
                    admin: row.get(2)?,
                    credential_stamp: credential_stamp(&row.get::<_, String>(3)?),
                })
            },
        )
        .optional()?)
}

/// The secret named `name`, created from `fresh` the first time it is asked for.
pub fn secret(
    connection: &Connection,
    name: &str,
    fresh: impl FnOnce() -> Vec<u8>,
) -> Result<Vec<u8>, ServiceError> {
    connection.execute(
        "INSERT OR IGNORE INTO settings (name, value) VALUES (?1, ?2)",
        params![name, fresh()],
    )?;
    Ok(connection.query_row(
        "SELECT value FROM settings WHERE name = ?1",
        [name],
        |row| row.get(0),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> Connection {
        let mut connection = Connection::open_in_memory().unwrap();
        super::super::schema::migrate(&mut connection).unwrap();
        connection
    }

    #[test]
    fn a_user_name_belongs_to_one_company() {
        let connection = store();
        let acme = ensure_company(&connection, "Acme").unwrap();
        assert_eq!(ensure_company(&connection, "acme").unwrap(), acme);
        let other = ensure_company(&connection, "Other").unwrap();
        upsert_user(&connection, &acme, "ann", "h1", false).unwrap();
        upsert_user(&connection, &acme, "ANN", "h2", true).unwrap();
        assert_eq!(login_of(&connection, "Ann").unwrap().unwrap().1, "h2");
        assert!(matches!(
            upsert_user(&connection, &other, "ann", "h3", false),
            Err(ServiceError::BadRequest(_))
        ));
    }

    #[test]
    fn expired_tokens_give_no_caller() {
        let connection = store();
        let acme = ensure_company(&connection, "Acme").unwrap();
        upsert_user(&connection, &acme, "ann", "h", true).unwrap();
        let (user_id, _) = login_of(&connection, "ann").unwrap().unwrap();
        insert_token(&connection, "live", user_id, "partlens", 200, 100).unwrap();
        insert_token(&connection, "old", user_id, "partlens", 150, 100).unwrap();
        let caller = caller_of_token(&connection, "live", 160).unwrap().unwrap();
        assert!(caller.admin);
        assert_eq!(caller.company_id, acme);
        assert!(caller_of_token(&connection, "old", 160).unwrap().is_none());
        assert!(caller_of_token(&connection, "nope", 0).unwrap().is_none());
    }

    #[test]
    fn a_secret_is_created_once() {
        let connection = store();
        let first = secret(&connection, "images", || vec![1, 2, 3]).unwrap();
        let second = secret(&connection, "images", || vec![9]).unwrap();
        assert_eq!(first, vec![1, 2, 3]);
        assert_eq!(second, first);
    }
}
