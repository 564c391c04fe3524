//! `partlens-service callback set|show|test|log`: a company's callback settings and its
//! deliveries, on the store a service is configured with (blocking functions, as the service's
//! other administration; the store is opened for each).

use std::path::Path;

use partlens_store::model::callbacks::{EVENT_CALLBACK_TEST, SUBSCRIBABLE_EVENTS};
use partlens_store::model::{AttemptRecord, CallbackSettings, DeliveryState};
use partlens_store::{DatabaseUrl, Store, StoreTx, iso_now};

use crate::address::{parse_url, resolve_checked};
use crate::delivery::{Target, send};
use crate::error::CallbackError;
use crate::payload::{EventData, new_delivery, now_ms};
use crate::retry::Verdict;
use crate::signing::{new_secret, secret_key};

/// The most deliveries `callback log` lists.
pub const MAX_LOG_LIMIT: usize = 10_000;

/// What `callback set` is asked to set.
#[derive(Clone, Debug, Default)]
pub struct SetRequest {
    /// The callback URL.
    pub url: String,
    /// The secret; `None` keeps the company's, or makes one.
    pub secret: Option<String>,
    /// The events; `None` keeps the company's, or takes all of them.
    pub events: Option<Vec<String>>,
    /// Whether events are recorded and sent.
    pub enabled: bool,
    /// Private addresses allowed (`--allow-private-callbacks`).
    pub allow_private: bool,
}

/// A one-threaded runtime for the network work of a command (a name resolved, a test sent).
fn runtime() -> Result<tokio::runtime::Runtime, CallbackError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CallbackError::Refused(format!("cannot start the runtime: {error}")))
}

/// The id of the company called `company`; not found when there is none.
fn company_id(tx: &mut dyn StoreTx, company: &str) -> Result<String, CallbackError> {
    tx.company_named(company)?
        .ok_or_else(|| CallbackError::NotFound(format!("there is no company called {company}")))
}

/// `events` checked: each one of [`SUBSCRIBABLE_EVENTS`], each once.
fn checked_events(events: &[String]) -> Result<Vec<String>, CallbackError> {
    let mut checked: Vec<String> = Vec::new();
    for event in events.iter().map(|event| event.trim()) {
        if !SUBSCRIBABLE_EVENTS.contains(&event) {
            return Err(CallbackError::Refused(format!(
                "{event:?} is not an event: use some of {}",
                SUBSCRIBABLE_EVENTS.join(",")
            )));
        }
        if !checked.iter().any(|seen| seen == event) {
            checked.push(event.to_owned());
        }
    }
    Ok(checked)
}

/// Sets the callback of company `company` (which must exist): the URL checked (form and
/// addresses), the secret checked or kept or made, the events checked or kept. Returns the
/// settings saved.
pub fn set_callback_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    request: &SetRequest,
) -> Result<CallbackSettings, CallbackError> {
    let url = parse_url(&request.url)?;
    runtime()?.block_on(resolve_checked(&url, request.allow_private))?;
    if let Some(secret) = &request.secret {
        secret_key(secret)?;
    }
    let events = request.events.as_deref().map(checked_events).transpose()?;
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.write_tx_blocking(|tx| -> Result<CallbackSettings, CallbackError> {
        let company_id = company_id(tx, company)?;
        let earlier = tx.callback_settings(&company_id)?;
        let settings = CallbackSettings {
            url: url.to_string(),
            secret: request
                .secret
                .clone()
                .map(|secret| secret.trim().to_owned())
                .or_else(|| earlier.as_ref().map(|earlier| earlier.secret.clone()))
                .unwrap_or_else(new_secret),
            events: events
                .or_else(|| earlier.as_ref().map(|earlier| earlier.events.clone()))
                .unwrap_or_else(|| SUBSCRIBABLE_EVENTS.map(str::to_owned).to_vec()),
            enabled: request.enabled,
            updated_at: iso_now(),
        };
        tx.save_callback_settings(&company_id, &settings)?;
        Ok(settings)
    })
}

/// The callback settings of company `company`; not found when it has none.
pub fn callback_settings_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
) -> Result<CallbackSettings, CallbackError> {
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.read_tx_blocking(|tx| -> Result<CallbackSettings, CallbackError> {
        let company_id = company_id(tx, company)?;
        tx.callback_settings(&company_id)?.ok_or_else(|| {
            CallbackError::NotFound(format!(
                "company {company} has no callback: set one with `callback set`"
            ))
        })
    })
}

/// Sends one `callback.test` event to company `company`'s callback now, records it (with its
/// attempt, not retried) and returns the receiver's status, or why there is none.
pub fn test_callback_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    allow_private: bool,
) -> Result<Result<u16, String>, CallbackError> {
    let store = Store::open_configured_blocking(data_dir, database)?;
    let (company_id, settings) =
        store.read_tx_blocking(|tx| -> Result<(String, CallbackSettings), CallbackError> {
            let company_id = company_id(tx, company)?;
            let settings = tx.callback_settings(&company_id)?.ok_or_else(|| {
                CallbackError::NotFound(format!(
                    "company {company} has no callback: set one with `callback set`"
                ))
            })?;
            Ok((company_id, settings))
        })?;
    let data = EventData {
        event: EVENT_CALLBACK_TEST.to_owned(),
        status: "test".to_owned(),
        ..EventData::default()
    };
    let delivery = new_delivery(&company_id, &data, now_ms());
    let target = Target {
        url: &settings.url,
        secret: &settings.secret,
        allow_private,
        timeout: std::time::Duration::from_secs(10),
    };
    let answer = runtime()?.block_on(send(&target, &delivery.id, &delivery.payload));
    let attempt = AttemptRecord {
        attempted_at: now_ms(),
        status: answer.status.map(i64::from),
        error: answer.error.clone(),
        state: if answer.verdict == Verdict::Delivered {
            DeliveryState::Delivered
        } else {
            DeliveryState::Failed
        },
        next_attempt_at: now_ms(),
    };
    store.write_tx_blocking(|tx| -> Result<(), CallbackError> {
        tx.insert_delivery(&delivery)?;
        tx.record_delivery_attempt(&delivery.id, &attempt)?;
        Ok(())
    })?;
    Ok(answer
        .status
        .ok_or_else(|| answer.error.unwrap_or_default()))
}

/// Company `company`'s last `limit` deliveries (newest first), each as one line of JSON with its
/// attempts, as `callback log` prints them.
pub fn callback_log_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    limit: usize,
) -> Result<Vec<String>, CallbackError> {
    let store = Store::open_configured_blocking(data_dir, database)?;
    store.read_tx_blocking(|tx| -> Result<Vec<String>, CallbackError> {
        let company_id = company_id(tx, company)?;
        let deliveries = tx.deliveries_of(&company_id, limit.min(MAX_LOG_LIMIT))?;
        let mut lines = Vec::with_capacity(deliveries.len());
        for delivery in deliveries {
            let attempts: Vec<serde_json::Value> = tx
                .attempts_of(&delivery.id)?
                .into_iter()
                .map(|attempt| {
                    serde_json::json!({
                        "number": attempt.number,
                        "at": iso(attempt.attempted_at),
                        "status": attempt.status,
                        "error": attempt.error,
                        "outcome": attempt.outcome,
                    })
                })
                .collect();
            let line = serde_json::json!({
                "id": delivery.id,
                "event": delivery.event,
                "state": delivery.state.as_str(),
                "created_at": iso(delivery.created_at),
                "next_attempt_at": iso(delivery.next_attempt_at),
                "delivered_at": delivery.delivered_at.map(iso),
                "last_status": delivery.last_status,
                "last_error": delivery.last_error,
                "attempts": attempts,
            });
            lines.push(line.to_string());
        }
        Ok(lines)
    })
}

/// Unix milliseconds as ISO 8601 UTC.
fn iso(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The lines `callback show` prints: each setting and its value, tab-separated, the secret
/// masked.
pub fn settings_lines(settings: &CallbackSettings) -> Vec<String> {
    vec![
        format!("url\t{}", settings.url),
        format!("events\t{}", settings.events.join(",")),
        format!("enabled\t{}", settings.enabled),
        format!("secret\t{}", crate::signing::masked(&settings.secret)),
        format!("updated_at\t{}", settings.updated_at),
    ]
}
