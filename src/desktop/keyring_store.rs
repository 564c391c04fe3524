//! The OS keyring (macOS keychain, Windows credential manager, Secret Service on Linux) as the app's
//! [`SecretStore`]. It lives in the app, not the task layer, so that the command line and the service
//! never build the `keyring` crate; the task layer only knows the trait.

use partlens_tasks::secrets::{KEYRING_SERVICE_PREFIX, SecretError, SecretStore};

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
