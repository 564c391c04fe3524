//! Login throttling: password checks run a few at a time, and failed logins are counted per user name
//! and per client address, so wrong passwords sent in bulk cost neither memory nor the other users'
//! logins.
//!
//! Why: a password check is an argon2 hash of ~19 MiB that takes tens of milliseconds. 128 wrong
//! passwords sent at once took the service to 6 GB; a sustained stream keeps every core busy.
//!
//! - **Slots.** At most [`LoginLimits::concurrent_hashes`] checks run at once (one a core by
//!   default); more wait in line, holding no hash memory. Each check has the same cost (fixed argon2
//!   parameters; an unknown user name is checked against a dummy hash of the same cost).
//! - **Failures.** A user name with [`LoginLimits::max_failures_per_user`] failures, or a client
//!   address with [`LoginLimits::max_failures_per_address`], within [`LoginLimits::failure_window`]
//!   (counted from its first failure) is answered 429 with `Retry-After` (the seconds until its
//!   window ends) without a password check, right or wrong. The limit is checked again after
//!   waiting for a slot, so a burst is refused as soon as its first failures are counted. A
//!   successful login clears its user name's failures (not its address's). A refusal is answered
//!   after [`LoginLimits::refusal_delay`] (1 s): an attacker who ignores `Retry-After` keeps at most
//!   one request a connection a second going, each a sleeping task, instead of thousands of cheap
//!   refusals a second that would still take the CPU from everyone else.
//! - **Memory.** At most [`LoginLimits::max_tracked`] names and addresses are remembered; when full,
//!   expired entries are dropped, and if none has expired an unknown name or address is refused
//!   (429) rather than remembered.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ServiceError;
use super::limits::LoginLimits;

/// Failures of one key within its window.
#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    window_started: Instant,
}

/// What failures are counted by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// A user name, lower-cased (names are compared case-insensitively).
    User(String),
    /// A client address.
    Address(IpAddr),
}

/// Throttles logins; cheap to clone (shared state).
#[derive(Clone, Debug)]
pub struct LoginGuard {
    limits: LoginLimits,
    slots: Arc<Semaphore>,
    failures: Arc<Mutex<HashMap<Key, Failures>>>,
}

impl LoginGuard {
    /// A guard with these limits.
    pub fn new(limits: LoginLimits) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(limits.concurrent_hashes.max(1))),
            limits,
            failures: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Refuses (429) when the user name or the address has used up its failures; the refusal comes
    /// after [`LoginLimits::refusal_delay`].
    pub async fn admit(&self, user: &str, address: IpAddr) -> Result<(), ServiceError> {
        let checked = self.check(user, address);
        if checked.is_err() {
            self.delay_refusal().await;
        }
        checked
    }

    /// Waits [`LoginLimits::refusal_delay`] before a refusal is answered.
    pub async fn delay_refusal(&self) {
        tokio::time::sleep(self.limits.refusal_delay).await;
    }

    /// Refuses (429) when the user name or the address has used up its failures.
    pub fn check(&self, user: &str, address: IpAddr) -> Result<(), ServiceError> {
        let now = Instant::now();
        let mut failures = self.lock();
        let keys = [Key::User(user.to_lowercase()), Key::Address(address)];
        let mut wait = Duration::ZERO;
        for key in &keys {
            let maximum = self.maximum(key);
            if let Some(entry) = failures.get(key).copied() {
                let ends = entry.window_started + self.limits.failure_window;
                if ends <= now {
                    failures.remove(key);
                } else if entry.count >= maximum {
                    wait = wait.max(ends - now);
                }
            }
        }
        if wait > Duration::ZERO {
            return Err(too_many(wait, "failed logins"));
        }
        let unknown = keys
            .iter()
            .filter(|key| !failures.contains_key(key))
            .count();
        if failures.len() + unknown > self.limits.max_tracked {
            let window = self.limits.failure_window;
            failures.retain(|_, entry| entry.window_started + window > now);
            if failures.len() + unknown > self.limits.max_tracked {
                return Err(too_many(window, "logins failing from many places"));
            }
        }
        Ok(())
    }

    /// Waits for a password-check slot; the check runs while the permit is held.
    pub async fn slot(&self) -> Result<OwnedSemaphorePermit, ServiceError> {
        self.slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ServiceError::Internal("the login slots are closed".into()))
    }

    /// Counts a failed login against the user name and the address.
    pub fn record_failure(&self, user: &str, address: IpAddr) {
        let now = Instant::now();
        let window = self.limits.failure_window;
        let mut failures = self.lock();
        for key in [Key::User(user.to_lowercase()), Key::Address(address)] {
            let entry = failures.entry(key).or_insert(Failures {
                count: 0,
                window_started: now,
            });
            if entry.window_started + window <= now {
                *entry = Failures {
                    count: 0,
                    window_started: now,
                };
            }
            entry.count = entry.count.saturating_add(1);
        }
    }

    /// Clears the failures of a user name after a successful login.
    pub fn record_success(&self, user: &str) {
        self.lock().remove(&Key::User(user.to_lowercase()));
    }

    fn maximum(&self, key: &Key) -> u32 {
        match key {
            Key::User(_) => self.limits.max_failures_per_user,
            Key::Address(_) => self.limits.max_failures_per_address,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Failures>> {
        // A panic while holding this lock leaves plain counters: still usable.
        self.failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn too_many(wait: Duration, what: &str) -> ServiceError {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    ServiceError::TooManyRequests {
        retry_after_secs: seconds.max(1),
        detail: format!("too many {what}; try again in {} s", seconds.max(1)),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn limits() -> LoginLimits {
        LoginLimits {
            concurrent_hashes: 2,
            max_failures_per_user: 3,
            max_failures_per_address: 5,
            failure_window: Duration::from_secs(60),
            max_tracked: 100,
            refusal_delay: Duration::ZERO,
        }
    }

    const HOME: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    const AWAY: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

    #[test]
    fn a_user_name_is_refused_after_its_failures_until_its_window_ends() {
        let guard = LoginGuard::new(limits());
        for _ in 0..3 {
            guard.check("Ann", HOME).unwrap();
            guard.record_failure("Ann", HOME);
        }
        match guard.check("ann", AWAY) {
            Err(ServiceError::TooManyRequests {
                retry_after_secs, ..
            }) => assert!((1..=60).contains(&retry_after_secs)),
            other => panic!("{other:?}"),
        }
        // Another user from the same address still gets in.
        guard.check("bob", HOME).unwrap();
        guard.record_success("bob");
        // A window that has passed counts from zero again.
        let short = LoginGuard::new(LoginLimits {
            failure_window: Duration::ZERO,
            ..limits()
        });
        for _ in 0..5 {
            short.record_failure("ann", HOME);
        }
        short.check("ann", HOME).unwrap();
    }

    #[test]
    fn an_address_is_refused_after_its_failures_whatever_the_names() {
        let guard = LoginGuard::new(limits());
        for n in 0..5 {
            let name = format!("nobody-{n}");
            guard.check(&name, HOME).unwrap();
            guard.record_failure(&name, HOME);
        }
        assert!(guard.check("ann", HOME).is_err());
        guard.check("ann", AWAY).unwrap();
    }

    #[test]
    fn a_full_table_refuses_names_it_cannot_remember() {
        let guard = LoginGuard::new(LoginLimits {
            max_tracked: 4,
            max_failures_per_address: 100,
            ..limits()
        });
        guard.record_failure("a", HOME);
        guard.record_failure("b", HOME);
        guard.record_failure("c", HOME);
        assert_eq!(guard.lock().len(), 4);
        guard.check("a", HOME).unwrap();
        assert!(guard.check("d", HOME).is_err());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn password_checks_never_run_more_than_the_slots_at_once() {
        let guard = LoginGuard::new(limits());
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let checks: Vec<_> = (0..16)
            .map(|_| {
                let (guard, running, most) = (guard.clone(), running.clone(), most.clone());
                tokio::spawn(async move {
                    let permit = guard.slot().await.unwrap();
                    tokio::task::spawn_blocking(move || {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(5));
                        running.fetch_sub(1, Ordering::SeqCst);
                        drop(permit);
                    })
                    .await
                    .unwrap();
                })
            })
            .collect();
        for check in checks {
            check.await.unwrap();
        }
        assert!(most.load(Ordering::SeqCst) <= 2);
        assert!(most.load(Ordering::SeqCst) >= 1);
    }
}
