//! The sender: a background task that sends the outbox's due deliveries, each company apart.
//!
//! Every poll (and whenever a company's turn ends) it asks which companies have a delivery due, and serves each company that is not
//! served already in a task of its own, at most [`SenderSettings::companies_at_once`] at a time:
//! a company's task claims one due delivery (a lease), sends it, records the attempt, and goes on
//! to the company's next due delivery, up to [`TURN`] of them before it gives its place up. So a
//! company has at most one delivery in flight on a node, and one company's slow or failing
//! endpoint holds only its own task: the others are served beside it. The order of deliveries
//! is not promised (a retried delivery goes after the ones due before it), and a delivery is sent
//! at least once: a 2xx not recorded before a kill is sent again after the restart, with its one
//! `webhook-id`.
//!
//! At start and every [`SenderSettings::prune_every`] it also deletes the deliveries that ended
//! (delivered or failed) longer than [`SenderSettings::retention`] ago, with their attempts;
//! pending ones never.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use partlens_store::model::{Delivery, DeliveryState};

use crate::delivery::{Answer, Target, send};
use crate::metrics::AttemptCounts;
use crate::outbox::Outbox;
use crate::payload::now_ms;
use crate::retry::{RetryPolicy, Verdict};

/// How many deliveries of one company a task sends before it gives its place to another company.
pub const TURN: usize = 16;

/// How the sender works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderSettings {
    /// Callbacks to loopback and private addresses allowed (`--allow-private-callbacks`).
    pub allow_private: bool,
    /// When deliveries are tried again.
    pub retry: RetryPolicy,
    /// The time limit of one call (10 s).
    pub call_timeout: Duration,
    /// How often the outbox is asked what is due (1 s).
    pub poll: Duration,
    /// How many companies are served at once (8).
    pub companies_at_once: usize,
    /// How long deliveries that ended (delivered or failed) are kept, from their event (30
    /// days; `--callback-retention-days`).
    pub retention: Duration,
    /// How often ended deliveries past the retention are deleted (at start, then every hour).
    pub prune_every: Duration,
}

impl Default for SenderSettings {
    fn default() -> Self {
        Self {
            allow_private: false,
            retry: RetryPolicy::default(),
            call_timeout: Duration::from_secs(10),
            poll: Duration::from_secs(1),
            companies_at_once: 8,
            retention: Duration::from_secs(30 * 24 * 3600),
            prune_every: Duration::from_secs(3600),
        }
    }
}

impl SenderSettings {
    /// How long a claimed delivery is held: one call and a margin (past it, as when its sender
    /// was killed, another sender may claim it).
    pub fn lease(&self) -> Duration {
        self.call_timeout + self.retry.base.min(Duration::from_secs(5))
    }

    /// Settings for tests and the operator's hidden knobs: retries from `retry_base` on, polls at
    /// most that far apart, calls limited to `call_timeout`.
    pub fn quick(retry_base: Duration, call_timeout: Duration) -> Self {
        let mut settings = Self::default();
        settings.retry.base = retry_base;
        settings.poll = settings.poll.min(retry_base);
        settings.call_timeout = call_timeout;
        settings
    }
}

/// Runs the sender over `outbox` until `stop`; attempts are counted in `counts`.
pub async fn run(
    outbox: impl Outbox,
    settings: SenderSettings,
    counts: AttemptCounts,
    stop: CancellationToken,
) {
    match outbox.release_leases(now_ms()).await {
        Ok(0) => {}
        Ok(released) => tracing::info!(released, "callbacks in flight at the last stop are due"),
        Err(error) => tracing::warn!(%error, "callbacks: cannot release the last run's claims"),
    }
    let served: Arc<Mutex<HashSet<String>>> = Arc::default();
    let places = Arc::new(Semaphore::new(settings.companies_at_once.max(1)));
    let mut tasks = JoinSet::new();
    let mut next_prune = tokio::time::Instant::now();
    loop {
        while tasks.try_join_next().is_some() {}
        if tokio::time::Instant::now() >= next_prune {
            prune(&outbox, settings.retention).await;
            next_prune = tokio::time::Instant::now() + settings.prune_every;
        }
        let limit = settings.companies_at_once.max(1).saturating_mul(4);
        match outbox.due_companies(now_ms(), limit).await {
            Ok(companies) => {
                for company in companies {
                    if !lock(&served).insert(company.clone()) {
                        continue;
                    }
                    let Ok(place) = places.clone().try_acquire_owned() else {
                        lock(&served).remove(&company);
                        break;
                    };
                    let (outbox, counts, stop, served) =
                        (outbox.clone(), counts.clone(), stop.clone(), served.clone());
                    tasks.spawn(async move {
                        serve_company(&outbox, &company, &settings, &counts, &stop).await;
                        lock(&served).remove(&company);
                        drop(place);
                    });
                }
            }
            Err(error) => tracing::warn!(%error, "callbacks: cannot read the outbox"),
        }
        // Asked again after the poll, or as soon as a company's turn ends (it may have more due).
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(settings.poll) => {}
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    // Deliveries in flight are dropped: their claims run out (or are released at the next
    // start) and they are sent again, with their one webhook-id.
    tasks.abort_all();
    while tasks.join_next().await.is_some() {}
}

/// Deletes the deliveries that ended before `retention` (from their event), and says how many.
async fn prune(outbox: &impl Outbox, retention: Duration) {
    let retention = i64::try_from(retention.as_millis()).unwrap_or(i64::MAX);
    match outbox.prune(now_ms().saturating_sub(retention)).await {
        Ok(0) => {}
        Ok(pruned) => tracing::info!(
            pruned,
            "callbacks: ended deliveries past the retention deleted"
        ),
        Err(error) => tracing::warn!(%error, "callbacks: cannot delete old deliveries"),
    }
}

/// The set of companies served, even after a task panicked while holding it.
fn lock(served: &Mutex<HashSet<String>>) -> std::sync::MutexGuard<'_, HashSet<String>> {
    served
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sends up to [`TURN`] of the company's due deliveries, one at a time.
async fn serve_company(
    outbox: &impl Outbox,
    company: &str,
    settings: &SenderSettings,
    counts: &AttemptCounts,
    stop: &CancellationToken,
) {
    let lease = i64::try_from(settings.lease().as_millis()).unwrap_or(i64::MAX);
    for _ in 0..TURN {
        if stop.is_cancelled() {
            return;
        }
        let now = now_ms();
        let delivery = match outbox.claim(company, now, now.saturating_add(lease)).await {
            Ok(Some(delivery)) => delivery,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(%error, company, "callbacks: cannot claim a delivery");
                // Not asked again at once: the database is failing.
                tokio::time::sleep(settings.poll).await;
                return;
            }
        };
        let answer = attempt(outbox, &delivery, settings).await;
        let record = settings.retry.record(
            answer.verdict,
            answer.status,
            answer.error.clone(),
            (delivery.created_at, delivery.attempts, now_ms()),
        );
        counts.count(answer.verdict, record.state == DeliveryState::Failed);
        if record.state == DeliveryState::Failed {
            tracing::warn!(id = delivery.id, company, error = ?record.error, "a callback failed");
        }
        if let Err(error) = outbox.record(&delivery.id, record).await {
            tracing::warn!(%error, id = delivery.id, "callbacks: cannot record an attempt");
            tokio::time::sleep(settings.poll).await;
            return;
        }
    }
}

/// One attempt of `delivery`, by the company's settings as they are now.
async fn attempt(outbox: &impl Outbox, delivery: &Delivery, settings: &SenderSettings) -> Answer {
    let refused = |error: &str| Answer {
        status: None,
        error: Some(error.to_owned()),
        verdict: Verdict::Refused,
    };
    let company_settings = match outbox.settings(&delivery.company_id).await {
        Ok(Some(company_settings)) => company_settings,
        Ok(None) => return refused("the company has no callback settings any more"),
        Err(error) => {
            return Answer {
                status: None,
                error: Some(format!("cannot read the callback settings: {error}")),
                verdict: Verdict::Retry,
            };
        }
    };
    if !company_settings.enabled {
        return refused("the company's callbacks are turned off");
    }
    let target = Target {
        url: &company_settings.url,
        secret: &company_settings.secret,
        allow_private: settings.allow_private,
        timeout: settings.call_timeout,
    };
    send(&target, &delivery.id, &delivery.payload).await
}
