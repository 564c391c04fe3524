//! Which service the app talks to: the local workspace (the local service started in-process) or a
//! remote service at an address with a client id. The choice is remembered by the app's settings.

use serde::{Deserialize, Serialize};

use super::wording::clause;
use partlens_api::client::parse_base_url;

/// The client id the local service registers by default, and the one a new remote choice starts with.
pub const DEFAULT_CLIENT_ID: &str = "partlens";

/// The key under which jobs and remembered tokens of the local workspace are filed.
pub const LOCAL_WORKSPACE_KEY: &str = "local";

/// Which service the app talks to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServiceChoice {
    /// The local service started in-process on 127.0.0.1, logged in as the OS user without a prompt.
    #[default]
    LocalWorkspace,
    /// A service somewhere else, reached at `address` as the application `client_id`.
    Remote {
        /// The base address, for example `https://search.example.com`.
        address: String,
        /// The client id the service issued for this application.
        client_id: String,
    },
}

impl ServiceChoice {
    /// A remote choice with surrounding whitespace and a trailing slash removed from the address.
    pub fn remote(address: &str, client_id: &str) -> Self {
        Self::Remote {
            address: address.trim().trim_end_matches('/').to_owned(),
            client_id: client_id.trim().to_owned(),
        }
    }

    /// A remote choice from a typed address and client id (Settings, the login form), or the
    /// sentence saying what is wrong with them. The address is checked as the client will use it.
    pub fn checked_remote(address: &str, client_id: &str) -> Result<Self, String> {
        let address = address.trim();
        if address.is_empty() {
            return Err(
                "Enter the service address, for example https://search.example.com.".into(),
            );
        }
        if let Err(error) = parse_base_url(address) {
            return Err(format!(
                "{}. Enter an address such as https://search.example.com.",
                clause(&error.to_string())
            ));
        }
        if client_id.trim().is_empty() {
            return Err("Enter the client id the service issued for partlens.".into());
        }
        Ok(Self::remote(address, client_id))
    }

    /// The stable key of this service: jobs and remembered tokens belong to one service.
    pub fn key(&self) -> String {
        match self {
            Self::LocalWorkspace => LOCAL_WORKSPACE_KEY.to_owned(),
            Self::Remote { address, .. } => address.trim().trim_end_matches('/').to_lowercase(),
        }
    }

    /// How the service is named in the top bar.
    pub fn label(&self) -> String {
        match self {
            Self::LocalWorkspace => "Local workspace".to_owned(),
            Self::Remote { address, .. } => address.clone(),
        }
    }

    /// True for the in-process local workspace.
    pub fn is_local(&self) -> bool {
        matches!(self, Self::LocalWorkspace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_key_ignores_case_and_trailing_slash() {
        let a = ServiceChoice::remote(" https://Search.example.com/ ", " partlens ");
        let b = ServiceChoice::remote("https://search.example.com", "partlens");
        assert_eq!(a.key(), b.key());
        assert_eq!(
            a,
            ServiceChoice::Remote {
                address: "https://Search.example.com".into(),
                client_id: "partlens".into()
            }
        );
        assert_ne!(a.key(), ServiceChoice::LocalWorkspace.key());
    }

    #[test]
    fn a_remote_choice_needs_an_http_address_and_a_client_id() {
        assert!(ServiceChoice::checked_remote("", "partlens").is_err());
        assert!(ServiceChoice::checked_remote("ftp://x", "partlens").is_err());
        assert!(ServiceChoice::checked_remote("http://127.0.0.1:8480", " ").is_err());
        assert_eq!(
            ServiceChoice::checked_remote(" http://127.0.0.1:8480/ ", "partlens").unwrap(),
            ServiceChoice::remote("http://127.0.0.1:8480", "partlens")
        );
    }
}
