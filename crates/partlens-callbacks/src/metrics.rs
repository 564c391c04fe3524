//! The sender's counters for `GET /metrics`: attempts by outcome (delivered, retry, failed), counted
//! whether or not the metrics are served. The deliveries by state are counted in the store when
//! a scraper asks.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;

use crate::retry::Verdict;

/// The label of an attempt's outcome.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    /// `delivered`, `retry` or `failed`.
    pub outcome: &'static str,
}

/// Attempts by outcome since the start. Cheap to clone; clones count together.
#[derive(Clone, Debug)]
pub struct AttemptCounts(pub Family<OutcomeLabels, Counter>);

impl Default for AttemptCounts {
    /// Every outcome at 0, so the series exist before the first attempt.
    fn default() -> Self {
        let family = Family::<OutcomeLabels, Counter>::default();
        for outcome in ["delivered", "retry", "failed"] {
            drop(family.get_or_create(&OutcomeLabels { outcome }));
        }
        Self(family)
    }
}

impl AttemptCounts {
    /// Counts an attempt that ended in `verdict` (a retry past the delivery's day counts as
    /// `failed` when `gave_up`).
    pub fn count(&self, verdict: Verdict, gave_up: bool) {
        let outcome = match verdict {
            Verdict::Delivered => "delivered",
            Verdict::Retry if !gave_up => "retry",
            Verdict::Retry | Verdict::Refused => "failed",
        };
        self.0.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    /// How many attempts ended in `outcome`.
    pub fn of(&self, outcome: &'static str) -> u64 {
        self.0.get_or_create(&OutcomeLabels { outcome }).get()
    }
}
