//! Remembered login tokens ("Remember me"), behind a small trait so tests use memory and the app the
//! OS keyring. Only the bearer token is stored, never the password.
//!
//! The keyring calls block (D-Bus on Linux, the keychain on macOS): the backend runs them on
//! `spawn_blocking`. Where the system has no keyring (a headless Linux without a Secret Service, a
//! locked store), every call reports [`SecretError::Unavailable`] and the app keeps the token in memory
//! for this run only.

use std::collections::HashMap;
use std::sync::Mutex;

/// The keyring "service" name under which partlens files its tokens.
const KEYRING_SERVICE_PREFIX: &str = "partlens";

/// Why a token could not be loaded, saved or deleted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// This system has no usable keyring (none installed, none running, or access refused).
    #[error("this system has no keyring ({0})")]
    Unavailable(String),
    /// The keyring is there but the call failed.
    #[error("the keyring failed: {0}")]
    Failed(String),
}

/// Where remembered tokens live: one token per (service, user).
pub trait SecretStore: Send + Sync {
    /// The remembered token of `user` on `service`, if any.
    fn load(&self, service: &str, user: &str) -> Result<Option<String>, SecretError>;
    /// Remembers `token` for `user` on `service`, replacing an older one.
    fn save(&self, service: &str, user: &str, token: &str) -> Result<(), SecretError>;
    /// Forgets the token of `user` on `service`; forgetting nothing is not an error.
    fn delete(&self, service: &str, user: &str) -> Result<(), SecretError>;
}

/// Tokens in memory, for tests and as the stand-in where no keyring exists.
#[derive(Debug, Default)]
pub struct MemoryStore {
    tokens: Mutex<HashMap<(String, String), String>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of tokens held (tests check what was remembered).
    pub fn len(&self) -> usize {
        self.tokens.lock().map(|tokens| tokens.len()).unwrap_or(0)
    }

    /// True when no token is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SecretStore for MemoryStore {
    fn load(&self, service: &str, user: &str) -> Result<Option<String>, SecretError> {
        let tokens = self
            .tokens
            .lock()
            .map_err(|_| SecretError::Failed("memory store poisoned".into()))?;
        Ok(tokens.get(&(service.to_owned(), user.to_owned())).cloned())
    }

    fn save(&self, service: &str, user: &str, token: &str) -> Result<(), SecretError> {
        let mut tokens = self
            .tokens
            .lock()
            .map_err(|_| SecretError::Failed("memory store poisoned".into()))?;
        tokens.insert((service.to_owned(), user.to_owned()), token.to_owned());
        Ok(())
    }

    fn delete(&self, service: &str, user: &str) -> Result<(), SecretError> {
        let mut tokens = self
            .tokens
            .lock()
            .map_err(|_| SecretError::Failed("memory store poisoned".into()))?;
        tokens.remove(&(service.to_owned(), user.to_owned()));
        Ok(())
    }
}

/// The OS keyring (macOS keychain, Windows credential manager, Secret Service on Linux) through the
/// `keyring` crate.
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyringStore;

impl KeyringStore {
    fn entry(service: &str, user: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(&format!("{KEYRING_SERVICE_PREFIX}:{service}"), user)
            .map_err(map_keyring_error)
    }
}

impl SecretStore for KeyringStore {
    fn load(&self, service: &str, user: &str) -> Result<Option<String>, SecretError> {
        match Self::entry(service, user)?.get_password() {
            Ok(token) => Ok(Some(token)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(map_keyring_error(error)),
        }
    }

    fn save(&self, service: &str, user: &str, token: &str) -> Result<(), SecretError> {
        Self::entry(service, user)?
            .set_password(token)
            .map_err(map_keyring_error)
    }

    fn delete(&self, service: &str, user: &str) -> Result<(), SecretError> {
        match Self::entry(service, user)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(error) => Err(map_keyring_error(error)),
        }
    }
}

/// "No store", "no access" and platform failures (no D-Bus, no Secret Service) all mean the same to a
/// user: this system cannot remember the token.
fn map_keyring_error(error: keyring::Error) -> SecretError {
    match error {
        keyring::Error::NoDefaultStore
        | keyring::Error::NoStorageAccess(_)
        | keyring::Error::PlatformFailure(_)
        | keyring::Error::NotSupportedByStore(_) => SecretError::Unavailable(error.to_string()),
        other => SecretError::Failed(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_store_keeps_one_token_per_service_and_user() {
        let store = MemoryStore::new();
        assert_eq!(store.load("s", "alice").unwrap(), None);
        store.save("s", "alice", "t1").unwrap();
        store.save("s", "alice", "t2").unwrap();
        store.save("other", "alice", "t3").unwrap();
        assert_eq!(store.load("s", "alice").unwrap().as_deref(), Some("t2"));
        assert_eq!(store.len(), 2);
        store.delete("s", "alice").unwrap();
        store.delete("s", "alice").unwrap();
        assert_eq!(store.load("s", "alice").unwrap(), None);
    }

    #[test]
    fn missing_store_reads_as_unavailable() {
        assert!(matches!(
            map_keyring_error(keyring::Error::NoDefaultStore),
            SecretError::Unavailable(_)
        ));
        assert!(matches!(
            map_keyring_error(keyring::Error::TooLong("user".into(), 10)),
            SecretError::Failed(_)
        ));
    }
}
