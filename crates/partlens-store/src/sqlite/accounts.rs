//! Companies, users, client ids, bearer tokens and the service's own secrets on SQLite. Names are
//! compared case-insensitively by the columns' `NOCASE` collation.

use rusqlite::{OptionalExtension, params};

use super::SqliteTx;
use crate::clock::iso_now;
use crate::error::StoreError;
use crate::model::{Caller, credential_stamp};
use crate::rows;
use crate::traits::AccountsTx;

impl AccountsTx for SqliteTx<'_> {
    fn credential_of_user(&mut self, user_id: i64) -> Result<Option<(String, String)>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT company_id, password_hash FROM users WHERE id = ?1",
                [user_id],
                |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
            )
            .optional()?
            .map(|(company_id, hash)| (company_id, credential_stamp(&hash))))
    }

    fn ensure_company(&mut self, name: &str) -> Result<String, StoreError> {
        let existing: Option<String> = self
            .0
            .query_row("SELECT id FROM companies WHERE name = ?1", [name], |row| {
                row.get(0)
            })
            .optional()?;
        if let Some(id) = existing {
            return Ok(id);
        }
        let id = uuid::Uuid::new_v4().hyphenated().to_string();
        self.0.execute(
            "INSERT INTO companies (id, name, created_at) VALUES (?1, ?2, ?3)",
            params![id, name, iso_now()],
        )?;
        Ok(id)
    }

    fn upsert_user(
        &mut self,
        company_id: &str,
        name: &str,
        password_hash: &str,
        admin: bool,
    ) -> Result<(), StoreError> {
        let existing: Option<(i64, String)> = self
            .0
            .query_row(
                "SELECT id, company_id FROM users WHERE name = ?1",
                [name],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        match existing {
            Some((_, other_company)) if other_company != company_id => Err(StoreError::Refused(
                format!("user \"{name}\" already belongs to another company"),
            )),
            Some((id, _)) => {
                self.0.execute(
                    "UPDATE users SET password_hash = ?1, admin = ?2 WHERE id = ?3",
                    params![password_hash, admin, id],
                )?;
                // A new password ends the sessions of the old one.
                self.0
                    .execute("DELETE FROM tokens WHERE user_id = ?1", [id])?;
                Ok(())
            }
            None => {
                self.0.execute(
                    "INSERT INTO users (company_id, name, password_hash, admin, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![company_id, name, password_hash, admin, iso_now()],
                )?;
                Ok(())
            }
        }
    }

    fn add_client(&mut self, client_id: &str) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT OR IGNORE INTO clients (id, created_at) VALUES (?1, ?2)",
            params![client_id, iso_now()],
        )?;
        Ok(())
    }

    fn client_exists(&mut self, client_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .0
            .query_row("SELECT 1 FROM clients WHERE id = ?1", [client_id], |_| {
                Ok(())
            })
            .optional()?
            .is_some())
    }

    fn login_of(&mut self, name: &str) -> Result<Option<(i64, String)>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT id, password_hash FROM users WHERE name = ?1",
                [name],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?)
    }

    fn insert_token(
        &mut self,
        token_hash: &str,
        user_id: i64,
        client_id: &str,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError> {
        self.0
            .execute("DELETE FROM tokens WHERE expires_at <= ?1", [now])?;
        self.0.execute(
            "INSERT INTO tokens (token_hash, user_id, client_id, expires_at) VALUES (?1, ?2, ?3, ?4)",
            params![token_hash, user_id, client_id, expires_at],
        )?;
        Ok(())
    }

    fn caller_of_token(
        &mut self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<Caller>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT u.id, u.company_id, u.admin, u.password_hash FROM tokens t
               JOIN users u ON u.id = t.user_id
             WHERE t.token_hash = ?1 AND t.expires_at > ?2",
        )?;
        let mut found = statement.query(params![token_hash, now])?;
        found.next()?.map(rows::caller).transpose()
    }

    fn secret(
        &mut self,
        name: &str,
        fresh: &mut dyn FnMut() -> Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        self.0.execute(
            "INSERT OR IGNORE INTO settings (name, value) VALUES (?1, ?2)",
            params![name, fresh()],
        )?;
        Ok(self.0.query_row(
            "SELECT value FROM settings WHERE name = ?1",
            [name],
            |row| row.get(0),
        )?)
    }
}
