//! Which service the app talks to: the local workspace (the local service started in-process) or a
//! remote service at an address with a client id. The choice is remembered by the app's settings.

use serde::{Deserialize, Serialize};

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
}
