//! `GET|PUT /api/Callback` and `POST /api/Callback/Test`, beyond the interface (which leaves
//! callback settings to the operator): a company's callback as its admins see and set it, and its
//! last deliveries. Only an admin may call them (others get 403). Shapes in docs/OPERATIONS.md,
//! "Callbacks". Read leniently: a field a service leaves out takes its default.

use serde::{Deserialize, Serialize};

/// The events a company may subscribe to, in the order they are offered.
pub const CALLBACK_EVENTS: [&str; 3] = ["indexing.completed", "indexing.failed", "file.deleted"];

/// A company's callback settings as `GET /api/Callback` answers them: never the secret itself.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CallbackSettingsView {
    /// The URL events are POSTed to (empty: none).
    #[serde(rename = "Url")]
    pub url: String,
    /// The events sent (some of [`CALLBACK_EVENTS`]).
    #[serde(rename = "Events")]
    pub events: Vec<String>,
    /// Whether events are recorded and sent.
    #[serde(rename = "Enabled")]
    pub enabled: bool,
    /// Whether a signing secret is set.
    #[serde(rename = "SecretSet")]
    pub secret_set: bool,
    /// When the settings were last set (ISO 8601), if ever.
    #[serde(rename = "UpdatedAt")]
    pub updated_at: Option<String>,
    /// The secret in full, only in the answer to the `PUT` that made it (shown once).
    #[serde(rename = "Secret", skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// One delivery of the company's callback.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CallbackDelivery {
    /// Its `webhook-id`.
    #[serde(rename = "ID")]
    pub id: String,
    /// The event (`indexing.completed`, …, `callback.test`).
    #[serde(rename = "Event")]
    pub event: String,
    /// The UID of the file the event is about (none for a test).
    #[serde(rename = "FileUID")]
    pub file_uid: Option<String>,
    /// That file's stored path.
    #[serde(rename = "StoredPath")]
    pub stored_path: Option<String>,
    /// `pending`, `sending`, `delivered` or `failed`.
    #[serde(rename = "State")]
    pub state: String,
    /// How many attempts were made.
    #[serde(rename = "Attempts")]
    pub attempts: i64,
    /// The receiver's status at the last attempt, if it answered.
    #[serde(rename = "LastStatus")]
    pub last_status: Option<i64>,
    /// Why the last attempt did not deliver, in words.
    #[serde(rename = "LastError")]
    pub last_error: Option<String>,
    /// When the event happened (ISO 8601).
    #[serde(rename = "CreatedAt")]
    pub created_at: String,
    /// When a 2xx was recorded (ISO 8601).
    #[serde(rename = "DeliveredAt")]
    pub delivered_at: Option<String>,
}

/// `GET /api/Callback`: the settings and the last deliveries, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CallbackOverview {
    /// The settings (empty and off when the company has none).
    #[serde(rename = "Settings")]
    pub settings: CallbackSettingsView,
    /// The last deliveries (at most [`CALLBACK_DELIVERIES_LISTED`]), newest first.
    #[serde(rename = "Deliveries")]
    pub deliveries: Vec<CallbackDelivery>,
}

/// How many deliveries `GET /api/Callback` lists.
pub const CALLBACK_DELIVERIES_LISTED: usize = 20;

/// The body of `PUT /api/Callback`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CallbackUpdate {
    /// The URL; empty turns the callback off.
    #[serde(rename = "Url")]
    pub url: String,
    /// The events to send (some of [`CALLBACK_EVENTS`]).
    #[serde(rename = "Events")]
    pub events: Vec<String>,
    /// Whether events are recorded and sent.
    #[serde(rename = "Enabled")]
    pub enabled: bool,
    /// A secret to use (`whsec_…`); none keeps the company's (or makes one the first time).
    #[serde(rename = "Secret", skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Make a new secret (answered once in `Secret`).
    #[serde(rename = "NewSecret")]
    pub new_secret: bool,
}

/// `POST /api/Callback/Test`: what the receiver answered the test event.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CallbackTestOutcome {
    /// The test delivery's `webhook-id`.
    #[serde(rename = "ID")]
    pub id: String,
    /// True when the receiver answered 2xx.
    #[serde(rename = "Delivered")]
    pub delivered: bool,
    /// The receiver's status, if it answered.
    #[serde(rename = "Status")]
    pub status: Option<u16>,
    /// Why it did not deliver, in words.
    #[serde(rename = "Error")]
    pub error: Option<String>,
}

#[cfg(feature = "client")]
mod client {
    use reqwest::Method;

    use super::{CallbackOverview, CallbackSettingsView, CallbackTestOutcome, CallbackUpdate};
    use crate::client::{ApiClient, CALL_TIMEOUT, parse_json};
    use crate::encoding::QueryString;
    use crate::error::ApiError;

    /// A test call waits for the receiver (up to 10 s on the service) and a margin.
    const TEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

    impl ApiClient {
        /// The caller's company's callback and its last deliveries (`GET /api/Callback`, this
        /// service's own; 403 for a non-admin, 404 from another service).
        pub async fn callback(&self) -> Result<CallbackOverview, ApiError> {
            let builder = self
                .request(Method::GET, "api/Callback", &QueryString::new())?
                .timeout(CALL_TIMEOUT);
            let reply = self.send(builder, &[]).await?;
            parse_json(&reply.body, "callback settings")
        }

        /// Sets the caller's company's callback (`PUT /api/Callback`); the settings saved, with
        /// the secret in full when this call made it.
        pub async fn set_callback(
            &self,
            update: &CallbackUpdate,
        ) -> Result<CallbackSettingsView, ApiError> {
            let body = serde_json::to_string(update)
                .map_err(|error| ApiError::InvalidInput(error.to_string()))?;
            let builder = self
                .request(Method::PUT, "api/Callback", &QueryString::new())?
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body)
                .timeout(CALL_TIMEOUT);
            let reply = self.send(builder, &[]).await?;
            parse_json(&reply.body, "callback settings")
        }

        /// Sends the test event to the caller's company's callback now
        /// (`POST /api/Callback/Test`) and says what the receiver answered.
        pub async fn test_callback(&self) -> Result<CallbackTestOutcome, ApiError> {
            let builder = self
                .request(Method::POST, "api/Callback/Test", &QueryString::new())?
                .timeout(TEST_TIMEOUT);
            let reply = self.send(builder, &[]).await?;
            parse_json(&reply.body, "callback test")
        }
    }
}
