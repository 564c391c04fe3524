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
pub const KEYRING_SERVICE_PREFIX: &str = "partlens";

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
}
