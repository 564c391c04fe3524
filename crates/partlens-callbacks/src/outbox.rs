//! The outbox the sender works from, as a trait ([`Outbox`]), and that trait over the store
//! ([`StoreOutbox`]): what is due, a claim, the settings a delivery goes by, an attempt recorded.

use std::future::Future;

use partlens_store::Store;
use partlens_store::model::{AttemptRecord, CallbackSettings, Delivery};

use crate::error::CallbackError;

/// What the sender needs of the outbox. Each call is one transaction of its own.
pub trait Outbox: Clone + Send + Sync + 'static {
    /// Up to `limit` companies with a delivery due at `now` (Unix milliseconds).
    fn due_companies(
        &self,
        now: i64,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<String>, CallbackError>> + Send;
    /// Claims the company's delivery due first at `now`, leased until `lease_until`.
    fn claim(
        &self,
        company_id: &str,
        now: i64,
        lease_until: i64,
    ) -> impl Future<Output = Result<Option<Delivery>, CallbackError>> + Send;
    /// The company's callback settings, if any.
    fn settings(
        &self,
        company_id: &str,
    ) -> impl Future<Output = Result<Option<CallbackSettings>, CallbackError>> + Send;
    /// Records an attempt of delivery `id`.
    fn record(
        &self,
        id: &str,
        attempt: AttemptRecord,
    ) -> impl Future<Output = Result<(), CallbackError>> + Send;
    /// Puts every held delivery back as due at `now` (a service that owns its store alone, at
    /// start); nothing where nodes share the store (a lease then runs out instead).
    fn release_leases(&self, now: i64) -> impl Future<Output = Result<u64, CallbackError>> + Send;
    /// Deletes the deliveries that ended (delivered or failed) and were created before
    /// `created_before`, with their attempts; returns how many.
    fn prune(&self, created_before: i64)
    -> impl Future<Output = Result<u64, CallbackError>> + Send;
}

/// The outbox in the store.
#[derive(Clone)]
pub struct StoreOutbox(pub Store);

impl Outbox for StoreOutbox {
    async fn due_companies(&self, now: i64, limit: usize) -> Result<Vec<String>, CallbackError> {
        self.0
            .read_tx(move |tx| tx.companies_with_due_deliveries(now, limit))
            .await
            .map_err(CallbackError::from)
    }

    async fn claim(
        &self,
        company_id: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<Delivery>, CallbackError> {
        let company_id = company_id.to_owned();
        self.0
            .write_tx(move |tx| tx.claim_due_delivery(&company_id, now, lease_until))
            .await
            .map_err(CallbackError::from)
    }

    async fn settings(&self, company_id: &str) -> Result<Option<CallbackSettings>, CallbackError> {
        let company_id = company_id.to_owned();
        self.0
            .read_tx(move |tx| tx.callback_settings(&company_id))
            .await
            .map_err(CallbackError::from)
    }

    async fn record(&self, id: &str, attempt: AttemptRecord) -> Result<(), CallbackError> {
        let id = id.to_owned();
        self.0
            .write_tx(move |tx| tx.record_delivery_attempt(&id, &attempt))
            .await
            .map_err(CallbackError::from)
    }

    async fn release_leases(&self, now: i64) -> Result<u64, CallbackError> {
        if self.0.shared_by_nodes() {
            return Ok(0);
        }
        self.0
            .write_tx(move |tx| tx.release_delivery_leases(now))
            .await
            .map_err(CallbackError::from)
    }

    async fn prune(&self, created_before: i64) -> Result<u64, CallbackError> {
        self.0
            .write_tx(move |tx| tx.prune_ended_deliveries(created_before))
            .await
            .map_err(CallbackError::from)
    }
}
