//! `GET /metrics`: the service's metrics ([`crate::metrics`]) in the Prometheus text format,
//! without a token (served only as `crate::metrics::MetricsExposure` allows; otherwise the route does not
//! exist). What is read when a scraper asks is read here: the indexing queue's depth (from the
//! store, within [`DATABASE_WAIT`]), the callbacks' deliveries by state, the files not yet paired with their
//! candidate duplicates, the views of the graphs by where they are kept, the database connections
//! and the store's transactions.

use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::pairing::PAIRING_VERSION;
use crate::state::AppState;
use partlens_store::model::{DeliveryCounts, QueueDepth};
use partlens_store::{Store, StoreError, StoreTx};
use partlens_visual::AnnIndex;

/// How long a scrape waits for the database to count the queue: a scraper times out in 10 s by
/// default, and the rest of the metrics need no database.
const DATABASE_WAIT: Duration = Duration::from_secs(3);

/// `GET /metrics`: every metric in the Prometheus text format.
pub async fn scrape(State(state): State<AppState>) -> Response {
    let Some(metrics) = state.metrics.clone() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let depths = queue_depths(&state.store).await;
    metrics.set_callback_deliveries(delivery_counts(&state.store).await);
    metrics.set_unpaired_files(unpaired_files(&state.store).await);
    if let Ok(library) = state.visual.read() {
        let graphs = library.approximate().graphs();
        let in_graph = graphs.measure_all(AnnIndex::graph_view_count);
        let indexed = graphs.measure_all(AnnIndex::view_count);
        metrics.set_graph_views(in_graph, indexed - in_graph);
    }
    let pool = state.store.pool_use();
    let transactions = state.store.transaction_counts();
    match metrics.encode(depths.as_deref(), pool, transactions) {
        Ok(text) => {
            let mut response = (
                StatusCode::OK,
                [(
                    header::CONTENT_TYPE,
                    prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
                )],
                text,
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(error) => {
            tracing::error!(%error, "cannot write the metrics");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// The callbacks' deliveries by state, or `None` (logged) when the database does not answer in
/// time.
async fn delivery_counts(store: &Store) -> Option<DeliveryCounts> {
    read_for_scrape(store, "the callbacks' deliveries", |tx| {
        tx.delivery_counts()
    })
    .await
}

/// The files not yet paired with their candidate duplicates, or `None` (logged) when the database
/// does not answer in time.
async fn unpaired_files(store: &Store) -> Option<u64> {
    read_for_scrape(store, "the files not yet paired", |tx| {
        tx.unpaired_file_count(PAIRING_VERSION)
    })
    .await
}

/// The queue's depth by company, or `None` (logged) when the database does not answer in time.
async fn queue_depths(store: &Store) -> Option<Vec<QueueDepth>> {
    read_for_scrape(store, "the indexing queue", |tx| tx.queue_depths()).await
}

/// What `read` counts in a read transaction off the async runtime, within [`DATABASE_WAIT`] for a
/// connection (twice that in all, for a server that accepts and then says nothing); `None`, with
/// a warning naming `what`, when it fails or does not answer in time.
async fn read_for_scrape<T: Send + 'static>(
    store: &Store,
    what: &str,
    read: impl FnOnce(&mut dyn StoreTx) -> Result<T, StoreError> + Send + 'static,
) -> Option<T> {
    let store = store.clone();
    let asked =
        tokio::task::spawn_blocking(move || store.read_tx_within_blocking(DATABASE_WAIT, read));
    match tokio::time::timeout(2 * DATABASE_WAIT, asked).await {
        Ok(Ok(Ok(counted))) => Some(counted),
        Ok(Ok(Err(error))) => {
            tracing::warn!(%error, "metrics: {what} could not be counted");
            None
        }
        Ok(Err(error)) => {
            tracing::warn!(%error, "metrics: counting {what} stopped unexpectedly");
            None
        }
        Err(_) => {
            tracing::warn!(
                "metrics: the database gave no count of {what} within {DATABASE_WAIT:?}"
            );
            None
        }
    }
}
