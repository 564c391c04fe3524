//! A company's callback settings and the outbox of its deliveries on PostgreSQL: a claim locks
//! the row it takes (`FOR UPDATE SKIP LOCKED`), so nodes sharing the database never take the same
//! delivery while its lease runs.

use r2d2_postgres::postgres::Row;

use super::PgTx;
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
fn delivery_of(row: &Row) -> Result<Delivery, StoreError> {
    Ok(Delivery {
        id: row.try_get(0)?,
        company_id: row.try_get(1)?,
        event: row.try_get(2)?,
        payload: row.try_get(3)?,
        created_at: row.try_get(4)?,
        next_attempt_at: row.try_get(5)?,
        attempts: row.try_get(6)?,
        state: DeliveryState::parse(row.try_get(7)?),
        delivered_at: row.try_get(8)?,
        last_status: row.try_get(9)?,
        last_error: row.try_get(10)?,
    })
}

/// A count or limit as PostgreSQL's bigint.
fn bigint(value: usize) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl CallbacksTx for PgTx<'_, '_> {
    fn callback_settings(
        &mut self,
        company_id: &str,
    ) -> Result<Option<CallbackSettings>, StoreError> {
        self.tx
            .query_opt(
                "SELECT url, secret, events, enabled, updated_at FROM callback_settings
                 WHERE company_id = $1",
                &[&company_id],
            )?
            .map(|row| -> Result<CallbackSettings, StoreError> {
                Ok(CallbackSettings {
                    url: row.try_get(0)?,
                    secret: row.try_get(1)?,
                    events: CallbackSettings::events_from_json(row.try_get(2)?),
                    enabled: row.try_get(3)?,
                    updated_at: row.try_get(4)?,
                })
            })
            .transpose()
    }

    fn save_callback_settings(
        &mut self,
        company_id: &str,
        settings: &CallbackSettings,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO callback_settings (company_id, url, secret, events, enabled, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (company_id) DO UPDATE SET url = excluded.url,
                 secret = excluded.secret, events = excluded.events,
                 enabled = excluded.enabled, updated_at = excluded.updated_at",
            &[
                &company_id,
                &settings.url,
                &settings.secret,
                &settings.events_json(),
                &settings.enabled,
                &settings.updated_at,
            ],
        )?;
        Ok(())
    }

    fn callback_param_of(&mut self, uid: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .tx
            .query_opt("SELECT callback_param FROM files WHERE uid = $1", &[&uid])?
            .map(|row| row.try_get::<_, Option<String>>(0))
            .transpose()?
            .flatten())
    }

    fn insert_delivery(&mut self, delivery: &NewDelivery) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO callback_deliveries (id, company_id, event, payload, created_at,
                 next_attempt_at, attempts, state)
             VALUES ($1, $2, $3, $4, $5, $5, 0, 'pending')",
            &[
                &delivery.id,
                &delivery.company_id,
                &delivery.event,
                &delivery.payload,
                &delivery.created_at,
            ],
        )?;
        Ok(())
    }

    fn companies_with_due_deliveries(
        &mut self,
        now: i64,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.tx
            .query(
                "SELECT DISTINCT company_id FROM callback_deliveries
                 WHERE state IN ('pending', 'sending') AND next_attempt_at <= $1 LIMIT $2",
                &[&now, &bigint(limit)],
            )?
            .iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }

    fn claim_due_delivery(
        &mut self,
        company_id: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<Delivery>, StoreError> {
        self.tx
            .query_opt(
                &format!(
                    "UPDATE callback_deliveries SET state = 'sending', next_attempt_at = $3
                     WHERE id = (
                         SELECT id FROM callback_deliveries
                         WHERE company_id = $1 AND state IN ('pending', 'sending')
                           AND next_attempt_at <= $2
                         ORDER BY next_attempt_at, created_at LIMIT 1
                         FOR UPDATE SKIP LOCKED)
                     RETURNING {DELIVERY_COLUMNS}"
                ),
                &[&company_id, &now, &lease_until],
            )?
            .map(|row| delivery_of(&row))
            .transpose()
    }

    fn record_delivery_attempt(
        &mut self,
        id: &str,
        attempt: &AttemptRecord,
    ) -> Result<(), StoreError> {
        let number: Option<i64> = self
            .tx
            .query_opt(
                "UPDATE callback_deliveries SET attempts = attempts + 1, state = $2,
                     next_attempt_at = $3, last_status = $4, last_error = $5,
                     delivered_at = CASE WHEN $2 = 'delivered' THEN $6 ELSE delivered_at END
                 WHERE id = $1 AND state <> 'delivered'
                 RETURNING attempts",
                &[
                    &id,
                    &attempt.state.as_str(),
                    &attempt.next_attempt_at,
                    &attempt.status,
                    &attempt.error,
                    &attempt.attempted_at,
                ],
            )?
            .map(|row| row.try_get(0))
            .transpose()?;
        let Some(number) = number else {
            return Ok(());
        };
        self.tx.execute(
            "INSERT INTO callback_attempts (delivery_id, number, attempted_at, status, error,
                 outcome)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &id,
                &number,
                &attempt.attempted_at,
                &attempt.status,
                &attempt.error,
                &attempt.outcome(),
            ],
        )?;
        Ok(())
    }

    fn release_delivery_leases(&mut self, now: i64) -> Result<u64, StoreError> {
        Ok(self.tx.execute(
            "UPDATE callback_deliveries SET state = 'pending', next_attempt_at = $1
             WHERE state = 'sending'",
            &[&now],
        )?)
    }

    fn deliveries_of(
        &mut self,
        company_id: &str,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        self.tx
            .query(
                &format!(
                    "SELECT {DELIVERY_COLUMNS} FROM callback_deliveries WHERE company_id = $1
                     ORDER BY created_at DESC, id DESC LIMIT $2"
                ),
                &[&company_id, &bigint(limit)],
            )?
            .iter()
            .map(delivery_of)
            .collect()
    }

    fn attempts_of(&mut self, id: &str) -> Result<Vec<DeliveryAttempt>, StoreError> {
        self.tx
            .query(
                "SELECT delivery_id, number, attempted_at, status, error, outcome
                 FROM callback_attempts WHERE delivery_id = $1 ORDER BY number",
                &[&id],
            )?
            .iter()
            .map(|row| -> Result<DeliveryAttempt, StoreError> {
                Ok(DeliveryAttempt {
                    delivery_id: row.try_get(0)?,
                    number: row.try_get(1)?,
                    attempted_at: row.try_get(2)?,
                    status: row.try_get(3)?,
                    error: row.try_get(4)?,
                    outcome: row.try_get(5)?,
                })
            })
            .collect()
    }

    fn delivery_counts(&mut self) -> Result<DeliveryCounts, StoreError> {
        let mut counts = DeliveryCounts::default();
        for row in self.tx.query(
            "SELECT state, COUNT(*) FROM callback_deliveries GROUP BY state",
            &[],
        )? {
            counts.add(row.try_get(0)?, row.try_get(1)?);
        }
        Ok(counts)
    }

    fn prune_ended_deliveries(&mut self, created_before: i64) -> Result<u64, StoreError> {
        self.tx.execute(
            "DELETE FROM callback_attempts WHERE delivery_id IN (
                 SELECT id FROM callback_deliveries
                 WHERE state IN ('delivered', 'failed') AND created_at < $1)",
            &[&created_before],
        )?;
        Ok(self.tx.execute(
            "DELETE FROM callback_deliveries
             WHERE state IN ('delivered', 'failed') AND created_at < $1",
            &[&created_before],
        )?)
    }
}
