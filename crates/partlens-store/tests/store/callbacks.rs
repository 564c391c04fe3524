//! The callbacks' outbox kept small: deliveries that ended (delivered or failed) before the
//! retention are deleted with their attempts; recent ones and pending ones stay.

use partlens_store::model::{AttemptRecord, DeliveryState, NewDelivery};

use crate::support::stores;

/// A day in Unix milliseconds.
const DAY: i64 = 86_400_000;

#[test]
fn pruning_deletes_old_ended_deliveries_with_their_attempts_and_keeps_the_rest() {
    for store in stores() {
        let now = 100 * DAY;
        let company = store.write(|tx| tx.ensure_company("Acme"));
        // (id, created, state it is left in)
        let deliveries = [
            (
                "msg_old_delivered",
                now - 40 * DAY,
                Some(DeliveryState::Delivered),
            ),
            (
                "msg_old_failed",
                now - 40 * DAY,
                Some(DeliveryState::Failed),
            ),
            ("msg_old_pending", now - 40 * DAY, None),
            (
                "msg_recent_delivered",
                now - DAY,
                Some(DeliveryState::Delivered),
            ),
        ];
        store.write(|tx| {
            for (id, created_at, state) in deliveries {
                tx.insert_delivery(&NewDelivery {
                    id: id.into(),
                    company_id: company.clone(),
                    event: "file.deleted".into(),
                    payload: "{}".into(),
                    created_at,
                })?;
                if let Some(state) = state {
                    tx.record_delivery_attempt(
                        id,
                        &AttemptRecord {
                            attempted_at: created_at + 1,
                            status: Some(204),
                            error: None,
                            state,
                            next_attempt_at: created_at + 1,
                        },
                    )?;
                }
            }
            Ok(())
        });

        let pruned = store.write(|tx| tx.prune_ended_deliveries(now - 30 * DAY));
        assert_eq!(pruned, 2, "{}", store.engine);
        let (kept, old_attempts) = store.read(|tx| {
            let kept: Vec<String> = tx
                .deliveries_of(&company, 100)?
                .into_iter()
                .map(|delivery| delivery.id)
                .collect();
            Ok((kept, tx.attempts_of("msg_old_delivered")?))
        });
        let mut kept = kept;
        kept.sort();
        assert_eq!(
            kept,
            ["msg_old_pending", "msg_recent_delivered"],
            "{}",
            store.engine
        );
        assert!(old_attempts.is_empty(), "{}", store.engine);
        assert_eq!(
            store
                .read(|tx| tx.attempts_of("msg_recent_delivered"))
                .len(),
            1,
            "{}",
            store.engine
        );
        // Nothing more to prune.
        assert_eq!(
            store.write(|tx| tx.prune_ended_deliveries(now - 30 * DAY)),
            0
        );
    }
}
