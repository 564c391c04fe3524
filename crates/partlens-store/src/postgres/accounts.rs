//! Companies, users, client ids, bearer tokens and the service's own secrets on PostgreSQL. Names
//! are compared case-insensitively through unique indexes on `lower(name)`.

use super::PgTx;
use crate::clock::iso_now;
use crate::error::StoreError;
use crate::model::{Caller, credential_stamp};
use crate::rows;
use crate::traits::AccountsTx;

impl AccountsTx for PgTx<'_, '_> {
    fn credential_of_user(&mut self, user_id: i64) -> Result<Option<(String, String)>, StoreError> {
        self.tx
            .query_opt(
                "SELECT company_id, password_hash FROM users WHERE id = $1",
                &[&user_id],
            )?
            .map(|row| -> Result<_, StoreError> {
                let hash: String = row.try_get(1)?;
                Ok((row.try_get(0)?, credential_stamp(&hash)))
            })
            .transpose()
    }

    fn ensure_company(&mut self, name: &str) -> Result<String, StoreError> {
        let fresh = uuid::Uuid::new_v4().hyphenated().to_string();
        self.tx.execute(
            "INSERT INTO companies (id, name, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (lower(name)) DO NOTHING",
            &[&fresh, &name, &iso_now()],
        )?;
        Ok(self
            .tx
            .query_one(
                "SELECT id FROM companies WHERE lower(name) = lower($1)",
                &[&name],
            )?
            .try_get(0)?)
    }

    fn upsert_user(
        &mut self,
        company_id: &str,
        name: &str,
        password_hash: &str,
        admin: bool,
    ) -> Result<(), StoreError> {
        let existing = self.tx.query_opt(
            "SELECT id, company_id FROM users WHERE lower(name) = lower($1)",
            &[&name],
        )?;
        let existing = existing
            .map(|row| -> Result<(i64, String), StoreError> {
                Ok((row.try_get(0)?, row.try_get(1)?))
            })
            .transpose()?;
        match existing {
            Some((_, other_company)) if other_company != company_id => Err(StoreError::Refused(
                format!("user \"{name}\" already belongs to another company"),
            )),
            Some((id, _)) => {
                self.tx.execute(
                    "UPDATE users SET password_hash = $1, admin = $2 WHERE id = $3",
                    &[&password_hash, &admin, &id],
                )?;
                // A new password ends the sessions of the old one.
                self.tx
                    .execute("DELETE FROM tokens WHERE user_id = $1", &[&id])?;
                Ok(())
            }
            None => {
                self.tx.execute(
                    "INSERT INTO users (company_id, name, password_hash, admin, created_at)
                     VALUES ($1, $2, $3, $4, $5)",
                    &[&company_id, &name, &password_hash, &admin, &iso_now()],
                )?;
                Ok(())
            }
        }
    }

    fn add_client(&mut self, client_id: &str) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO clients (id, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&client_id, &iso_now()],
        )?;
        Ok(())
    }

    fn client_exists(&mut self, client_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .tx
            .query_opt("SELECT 1 FROM clients WHERE id = $1", &[&client_id])?
            .is_some())
    }

    fn login_of(&mut self, name: &str) -> Result<Option<(i64, String)>, StoreError> {
        self.tx
            .query_opt(
                "SELECT id, password_hash FROM users WHERE lower(name) = lower($1)",
                &[&name],
            )?
            .map(|row| -> Result<_, StoreError> { Ok((row.try_get(0)?, row.try_get(1)?)) })
            .transpose()
    }

    fn insert_token(
        &mut self,
        token_hash: &str,
        user_id: i64,
        client_id: &str,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError> {
        self.tx
            .execute("DELETE FROM tokens WHERE expires_at <= $1", &[&now])?;
        self.tx.execute(
            "INSERT INTO tokens (token_hash, user_id, client_id, expires_at)
             VALUES ($1, $2, $3, $4)",
            &[&token_hash, &user_id, &client_id, &expires_at],
        )?;
        Ok(())
    }

    fn caller_of_token(
        &mut self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<Caller>, StoreError> {
        self.tx
            .query_opt(
                "SELECT u.id, u.company_id, u.admin, u.password_hash FROM tokens t
                   JOIN users u ON u.id = t.user_id
                 WHERE t.token_hash = $1 AND t.expires_at > $2",
                &[&token_hash, &now],
            )?
            .map(|row| rows::caller(&row))
            .transpose()
    }

    fn secret(
        &mut self,
        name: &str,
        fresh: &mut dyn FnMut() -> Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        self.tx.execute(
            "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&name, &fresh()],
        )?;
        Ok(self
            .tx
            .query_one("SELECT value FROM settings WHERE name = $1", &[&name])?
            .try_get(0)?)
    }
}
