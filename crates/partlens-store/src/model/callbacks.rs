//! A company's callbacks: its settings (where events are POSTed, the signing secret, which events)
//! and the outbox of deliveries, each written in the same transaction as the event it tells of,
//! with every attempt to send it. The sending itself (signing, addresses, retries) is the
//! `partlens-callbacks` crate's; the store keeps what it needs to survive a restart or a kill.

/// The event of a database file whose indexing completed.
pub const EVENT_INDEXING_COMPLETED: &str = "indexing.completed";
/// The event of a database file whose indexing failed.
pub const EVENT_INDEXING_FAILED: &str = "indexing.failed";
/// The event of a database file deleted.
pub const EVENT_FILE_DELETED: &str = "file.deleted";
/// The event `partlens-service callback test` sends (never subscribed to: sent when asked).
pub const EVENT_CALLBACK_TEST: &str = "callback.test";
/// The events a company may subscribe to, in the order they are listed.
pub const SUBSCRIBABLE_EVENTS: [&str; 3] = [
    EVENT_INDEXING_COMPLETED,
    EVENT_INDEXING_FAILED,
    EVENT_FILE_DELETED,
];

/// A company's callback settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallbackSettings {
    /// The http(s) URL events are POSTed to.
    pub url: String,
    /// The signing secret, `whsec_` and base64 (Standard Webhooks).
    pub secret: String,
    /// The events sent (some of [`SUBSCRIBABLE_EVENTS`]).
    pub events: Vec<String>,
    /// Whether events are recorded and sent at all.
    pub enabled: bool,
    /// When the settings were last set (ISO 8601).
    pub updated_at: String,
}

impl CallbackSettings {
    /// True when `event` is to be recorded for sending.
    pub fn wants(&self, event: &str) -> bool {
        self.enabled && self.events.iter().any(|wanted| wanted == event)
    }

    /// The events as stored: a JSON array of names.
    pub fn events_json(&self) -> String {
        serde_json::to_string(&self.events).unwrap_or_else(|_| "[]".into())
    }

    /// The events stored as `json` (nothing when it does not parse).
    pub fn events_from_json(json: &str) -> Vec<String> {
        serde_json::from_str(json).unwrap_or_default()
    }
}

/// Where a delivery is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryState {
    /// Waiting for its next attempt (at `next_attempt_at`).
    Pending,
    /// Claimed by a sender until `next_attempt_at` (a lease: past it, another may claim it).
    Sending,
    /// A 2xx was recorded: never sent again.
    Delivered,
    /// Given up: refused by the receiver (a 4xx other than 408 and 429) or not delivered within
    /// its day.
    Failed,
}

impl DeliveryState {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Sending => "sending",
            Self::Delivered => "delivered",
            Self::Failed => "failed",
        }
    }

    /// The state stored as `text` (an unknown name reads as pending).
    pub fn parse(text: &str) -> Self {
        match text {
            "sending" => Self::Sending,
            "delivered" => Self::Delivered,
            "failed" => Self::Failed,
            _ => Self::Pending,
        }
    }
}

/// A delivery to record in the outbox (pending, due at once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewDelivery {
    /// The `webhook-id`: `msg_` and a UUID, the same however often it is sent.
    pub id: String,
    /// The company whose callback it goes to.
    pub company_id: String,
    /// The event's name.
    pub event: String,
    /// The JSON body sent.
    pub payload: String,
    /// When the event happened, in Unix milliseconds.
    pub created_at: i64,
}

/// A delivery of the outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The `webhook-id`.
    pub id: String,
    /// The company whose callback it goes to.
    pub company_id: String,
    /// The event's name.
    pub event: String,
    /// The JSON body sent.
    pub payload: String,
    /// When the event happened, in Unix milliseconds.
    pub created_at: i64,
    /// When it is due next (or, sending, when its lease ends), in Unix milliseconds.
    pub next_attempt_at: i64,
    /// How many attempts were recorded.
    pub attempts: i64,
    /// Where it is.
    pub state: DeliveryState,
    /// When a 2xx was recorded, in Unix milliseconds.
    pub delivered_at: Option<i64>,
    /// The HTTP status of the last attempt, if one answered.
    pub last_status: Option<i64>,
    /// Why the last attempt did not deliver, in words.
    pub last_error: Option<String>,
}

/// One attempt to send a delivery, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryAttempt {
    /// Its delivery's id.
    pub delivery_id: String,
    /// 1 for the first attempt.
    pub number: i64,
    /// When it was made, in Unix milliseconds.
    pub attempted_at: i64,
    /// The HTTP status, if the receiver answered.
    pub status: Option<i64>,
    /// Why it did not deliver, in words.
    pub error: Option<String>,
    /// `delivered`, `retry` or `failed`.
    pub outcome: String,
}

/// What an attempt ended in, to record on its delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptRecord {
    /// When it was made, in Unix milliseconds.
    pub attempted_at: i64,
    /// The HTTP status, if the receiver answered.
    pub status: Option<i64>,
    /// Why it did not deliver, in words.
    pub error: Option<String>,
    /// The delivery's state after it: delivered, failed, or pending again.
    pub state: DeliveryState,
    /// When a pending delivery is due again, in Unix milliseconds.
    pub next_attempt_at: i64,
}

impl AttemptRecord {
    /// The outcome's name in the attempts' log.
    pub fn outcome(&self) -> &'static str {
        match self.state {
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
            DeliveryState::Pending | DeliveryState::Sending => "retry",
        }
    }
}

/// How many deliveries are in each state, over every company (for `GET /metrics`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeliveryCounts {
    /// Waiting or being sent.
    pub pending: u64,
    /// Delivered.
    pub delivered: u64,
    /// Given up.
    pub failed: u64,
}

impl DeliveryCounts {
    /// Adds `count` deliveries in `state` (as stored; sending counts as pending).
    pub fn add(&mut self, state: &str, count: i64) {
        let count = u64::try_from(count).unwrap_or(0);
        match DeliveryState::parse(state) {
            DeliveryState::Pending | DeliveryState::Sending => self.pending += count,
            DeliveryState::Delivered => self.delivered += count,
            DeliveryState::Failed => self.failed += count,
        }
    }
}
