//! A company's callback settings and the outbox of its deliveries on SQLite (one process owns
//! the file: a claim is a read and a write in the writer's transaction).

use rusqlite::{OptionalExtension, Row, params};

use super::SqliteTx;
use crate::error::StoreError;
use crate::model::callbacks::{
    AttemptRecord, CallbackSettings, Delivery, DeliveryAttempt, DeliveryCounts, DeliveryState,
    NewDelivery,
};
use crate::traits::CallbacksTx;

/// The columns [`delivery_of`] reads, in its order.
const DELIVERY_COLUMNS: &str = "id, company_id, event, payload, created_at, next_attempt_at, \
     attempts, state, delivered_at, last_status, last_error";

/// A delivery from a row of [`DELIVERY_COLUMNS`].
fn delivery_of(row: &Row<'_>) -> rusqlite::Result<Delivery> {
    Ok(Delivery {
        id: row.get(0)?,
        company_id: row.get(1)?,
        event: row.get(2)?,
        payload: row.get(3)?,
        created_at: row.get(4)?,
        next_attempt_at: row.get(5)?,
        attempts: row.get(6)?,
        state: DeliveryState::parse(&row.get::<_, String>(7)?),
        delivered_at: row.get(8)?,
        last_status: row.get(9)?,
        last_error: row.get(10)?,
    })
}

impl CallbacksTx for SqliteTx<'_> {
    fn callback_settings(
        &mut self,
        company_id: &str,
    ) -> Result<Option<CallbackSettings>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT url, secret, events, enabled, updated_at FROM callback_settings
                 WHERE company_id = ?1",
                [company_id],
                |row| {
                    Ok(CallbackSettings {
                        url: row.get(0)?,
                        secret: row.get(1)?,
                        events: CallbackSettings::events_from_json(&row.get::<_, String>(2)?),
                        enabled: row.get(3)?,
                        updated_at: row.get(4)?,
                    })
                },
            )
            .optional()?)
    }

    fn save_callback_settings(
        &mut self,
        company_id: &str,
        settings: &CallbackSettings,
    ) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO callback_settings (company_id, url, secret, events, enabled, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (company_id) DO UPDATE SET url = excluded.url,
                 secret = excluded.secret, events = excluded.events,
                 enabled = excluded.enabled, updated_at = excluded.updated_at",
            params![
                company_id,
                settings.url,
                settings.secret,
                settings.events_json(),
                settings.enabled,
                settings.updated_at
            ],
        )?;
        Ok(())
    }

    fn callback_param_of(&mut self, uid: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .query_row(
                "SELECT callback_param FROM files WHERE uid = ?1",
                [uid],
                |row| row.get(0),
            )
            .optional()?
            .flatten())
    }

    fn insert_delivery(&mut self, delivery: &NewDelivery) -> Result<(), StoreError> {
        self.0.execute(
            "INSERT INTO callback_deliveries (id, company_id, event, payload, created_at,
                 next_attempt_at, attempts, state)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5, 0, 'pending')",
            params![
                delivery.id,
                delivery.company_id,
                delivery.event,
                delivery.payload,
                delivery.created_at
            ],
        )?;
        Ok(())
    }

    fn companies_with_due_deliveries(
        &mut self,
        now: i64,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT DISTINCT company_id FROM callback_deliveries
             WHERE state IN ('pending', 'sending') AND next_attempt_at <= ?1 LIMIT ?2",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let companies = statement
            .query_map(params![now, limit], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(companies)
    }

    fn claim_due_delivery(
        &mut self,
        company_id: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<Delivery>, StoreError> {
        let found = self
            .0
            .query_row(
                &format!(
                    "SELECT {DELIVERY_COLUMNS} FROM callback_deliveries
                     WHERE company_id = ?1 AND state IN ('pending', 'sending')
                       AND next_attempt_at <= ?2
                     ORDER BY next_attempt_at, created_at LIMIT 1"
                ),
                params![company_id, now],
                delivery_of,
            )
            .optional()?;
        let Some(mut delivery) = found else {
            return Ok(None);
        };
        self.0.execute(
            "UPDATE callback_deliveries SET state = 'sending', next_attempt_at = ?2 WHERE id = ?1",
            params![delivery.id, lease_until],
        )?;
        delivery.state = DeliveryState::Sending;
        delivery.next_attempt_at = lease_until;
        Ok(Some(delivery))
    }

    fn record_delivery_attempt(
        &mut self,
        id: &str,
        attempt: &AttemptRecord,
    ) -> Result<(), StoreError> {
        let changed = self.0.execute(
            "UPDATE callback_deliveries SET attempts = attempts + 1, state = ?2,
                 next_attempt_at = ?3, last_status = ?4, last_error = ?5,
                 delivered_at = CASE WHEN ?2 = 'delivered' THEN ?6 ELSE delivered_at END
             WHERE id = ?1 AND state <> 'delivered'",
            params![
                id,
                attempt.state.as_str(),
                attempt.next_attempt_at,
                attempt.status,
                attempt.error,
                attempt.attempted_at
            ],
        )?;
        if changed == 0 {
            return Ok(());
        }
        self.0.execute(
            "INSERT INTO callback_attempts (delivery_id, number, attempted_at, status, error,
                 outcome)
             SELECT ?1, attempts, ?2, ?3, ?4, ?5 FROM callback_deliveries WHERE id = ?1",
            params![
                id,
                attempt.attempted_at,
                attempt.status,
                attempt.error,
                attempt.outcome()
            ],
        )?;
        Ok(())
    }

    fn release_delivery_leases(&mut self, now: i64) -> Result<u64, StoreError> {
        let released = self.0.execute(
            "UPDATE callback_deliveries SET state = 'pending', next_attempt_at = ?1
             WHERE state = 'sending'",
            [now],
        )?;
        Ok(released as u64)
    }

    fn deliveries_of(
        &mut self,
        company_id: &str,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        let mut statement = self.0.prepare_cached(&format!(
            "SELECT {DELIVERY_COLUMNS} FROM callback_deliveries WHERE company_id = ?1
             ORDER BY created_at DESC, id DESC LIMIT ?2"
        ))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let deliveries = statement
            .query_map(params![company_id, limit], delivery_of)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(deliveries)
    }

    fn attempts_of(&mut self, id: &str) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let mut statement = self.0.prepare_cached(
            "SELECT delivery_id, number, attempted_at, status, error, outcome
             FROM callback_attempts WHERE delivery_id = ?1 ORDER BY number",
        )?;
        let attempts = statement
            .query_map([id], |row| {
                Ok(DeliveryAttempt {
                    delivery_id: row.get(0)?,
                    number: row.get(1)?,
                    attempted_at: row.get(2)?,
                    status: row.get(3)?,
                    error: row.get(4)?,
                    outcome: row.get(5)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(attempts)
    }

    fn delivery_counts(&mut self) -> Result<DeliveryCounts, StoreError> {
        let mut statement = self
            .0
            .prepare_cached("SELECT state, COUNT(*) FROM callback_deliveries GROUP BY state")?;
        let mut counts = DeliveryCounts::default();
        let rows = statement
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for (state, count) in rows {
            counts.add(&state, count);
        }
        Ok(counts)
    }

    fn prune_ended_deliveries(&mut self, created_before: i64) -> Result<u64, StoreError> {
        self.0.execute(
            "DELETE FROM callback_attempts WHERE delivery_id IN (
                 SELECT id FROM callback_deliveries
                 WHERE state IN ('delivered', 'failed') AND created_at < ?1)",
            [created_before],
        )?;
        let deleted = self.0.execute(
            "DELETE FROM callback_deliveries
             WHERE state IN ('delivered', 'failed') AND created_at < ?1",
            [created_before],
        )?;
        Ok(deleted as u64)
    }
}
