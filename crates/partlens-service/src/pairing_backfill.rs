//! The backfill of candidate duplicates: at start, the indexed company database files with views
//! that are not paired at this [`PAIRING_VERSION`] (indexed before pairing existed, by an earlier
//! pairing, or whose pairing failed) are paired in the background ([`Pairer`]), [`BATCH_FILES`]
//! listed at a time in UID order, one file at a time, at the lowest priority: a file waits while
//! any file is being read for indexing (the reader slots are busy), and one ranking at a time
//! leaves the other cores to searches. One pass a start; `GET /metrics` shows the files left
//! (`partlens_duplicates_unpaired_files`), and `GET /api/Duplicates` groups the paired files only
//! meanwhile.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::error::ServiceError;
use super::pairing::{PAIRING_VERSION, Pairer};
use super::reader_pool::ReaderPool;
use partlens_store::Store;

/// Files listed at a time.
pub const BATCH_FILES: usize = 64;

/// How long the backfill waits before it looks again whether indexing has stopped reading.
const BUSY_WAIT: Duration = Duration::from_millis(200);

/// Pairs every unpaired file once, until done or `stop`.
pub async fn run(pairer: Pairer, store: Store, readers: ReaderPool, stop: CancellationToken) {
    let mut after = String::new();
    let mut paired = 0_u64;
    loop {
        let from = after.clone();
        let batch = store
            .read_tx(move |tx| -> Result<Vec<String>, ServiceError> {
                Ok(tx.unpaired_files(PAIRING_VERSION, &from, BATCH_FILES)?)
            })
            .await;
        let batch = match batch {
            Ok(batch) => batch,
            Err(error) => {
                tracing::warn!(%error, "the duplicates' backfill stopped; it runs again at the next start");
                return;
            }
        };
        let Some(last) = batch.last() else {
            if paired > 0 {
                tracing::info!(paired, "files paired with their duplicates by the backfill");
            }
            return;
        };
        after = last.clone();
        for uid in batch {
            while readers.busy() > 0 {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(BUSY_WAIT) => {}
                }
            }
            if stop.is_cancelled() {
                return;
            }
            let pairer = pairer.clone();
            let outcome = tokio::task::spawn_blocking(move || {
                let outcome = pairer.pair_blocking(&uid);
                (uid, outcome)
            })
            .await;
            match outcome {
                Ok((_, Ok(true))) => paired += 1,
                Ok((_, Ok(false))) => {}
                Ok((uid, Err(error))) => {
                    tracing::warn!(uid, %error, "the backfill could not pair a file; it tries at the next start");
                }
                Err(error) => tracing::warn!(%error, "the backfill's pairing stopped unexpectedly"),
            }
        }
    }
}
