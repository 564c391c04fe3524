//! Search inputs expire: a cleaner deletes every search input older than
//! [`ServiceLimits::search_input_lifetime`](super::limits::ServiceLimits::search_input_lifetime)
//! (24 h by default), every [`ServiceLimits::expiry_sweep_interval`](super::limits::ServiceLimits)
//! and once at start. An expired input is gone as after a delete: its status is 404, a search by its
//! UID finds nothing, its bytes and images leave the disk. Database files never expire.
//!
//! Deletes run in batches of [`SWEEP_BATCH`], one short write transaction each, so a sweep never
//! holds the store's writer for long.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::blobs::Blobs;
use super::error::ServiceError;
use partlens_store::Store;

/// Search inputs deleted in one write transaction.
pub const SWEEP_BATCH: usize = 200;

/// Deletes the search inputs uploaded more than `lifetime` ago; returns how many.
pub async fn sweep(
    store: &Store,
    blobs: &Blobs,
    lifetime: Duration,
) -> Result<usize, ServiceError> {
    let lifetime = chrono::Duration::from_std(lifetime).unwrap_or(chrono::Duration::MAX);
    let cutoff = chrono::Utc::now()
        .checked_sub_signed(lifetime)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC)
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let mut deleted = 0;
    loop {
        let (cutoff, blobs) = (cutoff.clone(), blobs.clone());
        let batch = store
            .write_tx(move |tx| -> Result<_, ServiceError> {
                let uids = tx.expired_search_inputs(&cutoff, SWEEP_BATCH)?;
                for uid in &uids {
                    tx.delete_file(uid)?;
                    if let Err(error) = blobs.remove_file_blocking(uid) {
                        tracing::warn!(uid, %error, "an expired input's bytes stay on disk");
                    }
                }
                Ok(uids.len())
            })
            .await?;
        deleted += batch;
        if batch < SWEEP_BATCH {
            return Ok(deleted);
        }
    }
}

/// Sweeps at start and then every `interval` until `stop` is cancelled.
pub async fn run_cleaner(
    store: Store,
    blobs: Blobs,
    lifetime: Duration,
    interval: Duration,
    stop: CancellationToken,
) {
    loop {
        match sweep(&store, &blobs, lifetime).await {
            Ok(0) => {}
            Ok(deleted) => tracing::info!(deleted, "expired search inputs deleted"),
            Err(error) => tracing::warn!(%error, "expired search inputs could not be deleted"),
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(interval) => {}
        }
    }
}
