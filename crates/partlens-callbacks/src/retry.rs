//! When a delivery is tried again, and what a receiver's answer means for it: a 2xx delivers it
//! (never sent again); a timeout, a connection error, a 5xx, 408 or 429 is tried again with
//! exponential backoff (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then every 2 h) until a day after
//! the event, then it fails; any other answer (a 3xx, as redirects are not followed, or a 4xx)
//! fails it at once.

use std::time::Duration;

use partlens_store::model::{AttemptRecord, DeliveryState};

/// The waits after the first attempts, in units of the base (5 s by default): 5 s, 30 s, 2 min,
/// 10 min, 30 min, 1 h; every later wait is the last of [`LATER_WAIT`].
const WAITS: [u64; 6] = [1, 6, 24, 120, 360, 720];

/// The wait after the sixth failed attempt and every later one: 2 h, in units of the base.
const LATER_WAIT: u64 = 1440;

/// How a sender retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The first wait; later ones are multiples of it (5 s by default; tests make it shorter).
    pub base: Duration,
    /// How long after the event a delivery is still tried (a day by default).
    pub lifetime: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            base: Duration::from_secs(5),
            lifetime: Duration::from_secs(24 * 60 * 60),
        }
    }
}

impl RetryPolicy {
    /// The wait after `failed` failed attempts (1 for the first).
    pub fn wait_after(&self, failed: u64) -> Duration {
        let units = usize::try_from(failed.saturating_sub(1))
            .ok()
            .and_then(|index| WAITS.get(index))
            .copied()
            .unwrap_or(LATER_WAIT);
        self.base
            .saturating_mul(u32::try_from(units).unwrap_or(u32::MAX))
    }

    /// What an attempt that ended in `verdict` at `now` (Unix milliseconds) leaves its delivery
    /// in, the delivery made at `created_at` and tried `attempts` times before.
    pub fn record(
        &self,
        verdict: Verdict,
        status: Option<u16>,
        error: Option<String>,
        (created_at, attempts, now): (i64, i64, i64),
    ) -> AttemptRecord {
        let millis = |duration: Duration| i64::try_from(duration.as_millis()).unwrap_or(i64::MAX);
        let next = now.saturating_add(millis(
            self.wait_after(u64::try_from(attempts).unwrap_or(0) + 1),
        ));
        let expires = created_at.saturating_add(millis(self.lifetime));
        let (state, error) = match verdict {
            Verdict::Delivered => (DeliveryState::Delivered, None),
            Verdict::Refused => (DeliveryState::Failed, error),
            Verdict::Retry if next > expires => (
                DeliveryState::Failed,
                Some(format!(
                    "{}; not delivered within {} h of the event: given up",
                    error.unwrap_or_default(),
                    self.lifetime.as_secs() / 3600
                )),
            ),
            Verdict::Retry => (DeliveryState::Pending, error),
        };
        AttemptRecord {
            attempted_at: now,
            status: status.map(i64::from),
            error,
            state,
            next_attempt_at: if state == DeliveryState::Pending {
                next
            } else {
                now
            },
        }
    }
}

/// What an attempt's answer means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A 2xx: delivered.
    Delivered,
    /// Try again later (no answer, a 5xx, 408, 429).
    Retry,
    /// Refused by the receiver: not tried again.
    Refused,
}

impl Verdict {
    /// The verdict on a receiver's status (`None`: no answer, a timeout or a connection error).
    pub fn of(status: Option<u16>) -> Self {
        match status {
            None | Some(408 | 429 | 500..=599) => Self::Retry,
            Some(200..=299) => Self::Delivered,
            Some(_) => Self::Refused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_then_stay_at_two_hours_and_stop_after_a_day() {
        let policy = RetryPolicy::default();
        let waits: Vec<u64> = (1..=8).map(|n| policy.wait_after(n).as_secs()).collect();
        assert_eq!(waits, [5, 30, 120, 600, 1800, 3600, 7200, 7200]);
        let day = 24 * 3600 * 1000;
        let retry = policy.record(Verdict::Retry, Some(503), Some("503".into()), (0, 3, 1000));
        assert_eq!(retry.state, DeliveryState::Pending);
        assert_eq!(retry.next_attempt_at, 1000 + 600 * 1000);
        let late = policy.record(
            Verdict::Retry,
            None,
            Some("timeout".into()),
            (0, 9, day - 1),
        );
        assert_eq!(late.state, DeliveryState::Failed);
    }

    #[test]
    fn statuses_deliver_retry_or_refuse() {
        assert_eq!(Verdict::of(Some(204)), Verdict::Delivered);
        for retried in [None, Some(500), Some(503), Some(408), Some(429)] {
            assert_eq!(Verdict::of(retried), Verdict::Retry);
        }
        for refused in [Some(301), Some(400), Some(404), Some(410)] {
            assert_eq!(Verdict::of(refused), Verdict::Refused);
        }
    }
}
