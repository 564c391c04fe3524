//! A company's callback settings and deliveries, administered: set, show, test and list. One
//! async function an operation over a [`Store`] handle and a company ([`CompanyRef`]: by id for
//! the service's admin calls, `GET|PUT /api/Callback`, by name for `partlens-service callback
//! set|show|test|log`); the `*_in` functions are those commands' blocking forms, which open the
//! store a service is configured with.

use std::path::Path;

use partlens_store::model::callbacks::{EVENT_CALLBACK_TEST, SUBSCRIBABLE_EVENTS};
use partlens_store::model::{AttemptRecord, CallbackSettings, Delivery, DeliveryState};
use partlens_store::{DatabaseUrl, Store, StoreTx, iso_now};

use crate::address::{parse_url, resolve_checked};
use crate::delivery::{Target, send};
use crate::error::CallbackError;
use crate::payload::{EventData, new_delivery, now_ms};
use crate::retry::Verdict;
use crate::signing::{new_secret, secret_key};

/// The most deliveries `callback log` lists.
pub const MAX_LOG_LIMIT: usize = 10_000;

/// The time limit of a test call.
const TEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Which company an administration call is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompanyRef {
    /// By its id (a caller's company).
    Id(String),
    /// By its name (an operator's `--company`).
    Named(String),
}

/// What `callback set` (or `PUT /api/Callback`) is asked to set.
#[derive(Clone, Debug, Default)]
pub struct SetRequest {
    /// The callback URL; empty turns the callback off (the rest of the settings kept).
    pub url: String,
    /// The secret; `None` keeps the company's, or makes one.
    pub secret: Option<String>,
    /// A new secret made even when the company has one (ignored when `secret` is given).
    pub renew_secret: bool,
    /// The events; `None` keeps the company's, or takes all of them.
    pub events: Option<Vec<String>>,
    /// Whether events are recorded and sent.
    pub enabled: bool,
    /// Private addresses allowed (`--allow-private-callbacks`).
    pub allow_private: bool,
}

/// The settings a set saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The settings as saved.
    pub settings: CallbackSettings,
    /// True when the secret was made by this set (to be shown once, in full).
    pub secret_made: bool,
}

/// What a test call ended in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    /// The test delivery's `webhook-id` (it is in the deliveries).
    pub id: String,
    /// True when the receiver answered 2xx.
    pub delivered: bool,
    /// The receiver's status, if it answered.
    pub status: Option<u16>,
    /// Why it did not deliver, in words.
    pub error: Option<String>,
}

/// One delivery as an admin lists it: the outbox's row and the file its payload names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliverySummary {
    /// The delivery.
    pub delivery: Delivery,
    /// The UID of the file the event is about (none for `callback.test`).
    pub file_uid: Option<String>,
    /// The stored path of that file.
    pub stored_path: Option<String>,
}

/// A one-threaded runtime for a command's network and store work.
fn runtime() -> Result<tokio::runtime::Runtime, CallbackError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CallbackError::Refused(format!("cannot start the runtime: {error}")))
}

/// The id of `company`; not found when there is no company of that name.
fn company_id(tx: &mut dyn StoreTx, company: &CompanyRef) -> Result<String, CallbackError> {
    match company {
        CompanyRef::Id(id) => Ok(id.clone()),
        CompanyRef::Named(name) => tx
            .company_named(name)?
            .ok_or_else(|| CallbackError::NotFound(format!("there is no company called {name}"))),
    }
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

/// The URL of a set request checked (form and addresses), or `None` when it is empty (off).
async fn checked_url(request: &SetRequest) -> Result<Option<String>, CallbackError> {
    if request.url.trim().is_empty() {
        return Ok(None);
    }
    let url = parse_url(&request.url)?;
    resolve_checked(&url, request.allow_private).await?;
    Ok(Some(url.to_string()))
}

/// Sets `company`'s callback: the URL checked (form and addresses; empty turns it off), the
/// secret checked or kept or made, the events checked or kept. Returns the settings saved.
pub async fn set_callback(
    store: &Store,
    company: &CompanyRef,
    request: &SetRequest,
) -> Result<Saved, CallbackError> {
    let url = checked_url(request).await?;
    let given_secret = request
        .secret
        .as_deref()
        .map(str::trim)
        .filter(|secret| !secret.is_empty())
        .map(str::to_owned);
    if let Some(secret) = &given_secret {
        secret_key(secret)?;
    }
    let events = request.events.as_deref().map(checked_events).transpose()?;
    let (company, renew, enabled) = (
        company.clone(),
        request.renew_secret,
        request.enabled && url.is_some(),
    );
    store
        .write_tx(move |tx| -> Result<Saved, CallbackError> {
            let company_id = company_id(tx, &company)?;
            let earlier = tx.callback_settings(&company_id)?;
            let kept_secret = earlier
                .as_ref()
                .map(|earlier| earlier.secret.clone())
                .filter(|secret| !secret.is_empty() && !renew);
            let secret_made = given_secret.is_none() && kept_secret.is_none();
            let settings = CallbackSettings {
                url: url.unwrap_or_default(),
                secret: given_secret.or(kept_secret).unwrap_or_else(new_secret),
                events: events
                    .or_else(|| earlier.as_ref().map(|earlier| earlier.events.clone()))
                    .unwrap_or_else(|| SUBSCRIBABLE_EVENTS.map(str::to_owned).to_vec()),
                enabled,
                updated_at: iso_now(),
            };
            tx.save_callback_settings(&company_id, &settings)?;
            Ok(Saved {
                settings,
                secret_made,
            })
        })
        .await
}

/// `company`'s callback settings, `None` when it has none.
pub async fn callback_settings(
    store: &Store,
    company: &CompanyRef,
) -> Result<Option<CallbackSettings>, CallbackError> {
    let company = company.clone();
    store
        .read_tx(
            move |tx| -> Result<Option<CallbackSettings>, CallbackError> {
                let company_id = company_id(tx, &company)?;
                Ok(tx.callback_settings(&company_id)?)
            },
        )
        .await
}

/// The sentence of a company without a callback to test or show.
fn no_callback() -> CallbackError {
    CallbackError::NotFound(
        "the company has no callback URL: set one first (`callback set`, or the app's \
         Settings → Callbacks)"
            .into(),
    )
}

/// Sends one `callback.test` event to `company`'s callback now, records it (with its attempt,
/// not retried) and returns what the receiver answered.
pub async fn test_callback(
    store: &Store,
    company: &CompanyRef,
    allow_private: bool,
) -> Result<TestOutcome, CallbackError> {
    let company = company.clone();
    let (company_id, settings) = store
        .read_tx(
            move |tx| -> Result<(String, CallbackSettings), CallbackError> {
                let company_id = company_id(tx, &company)?;
                let settings = tx
                    .callback_settings(&company_id)?
                    .filter(|settings| !settings.url.is_empty())
                    .ok_or_else(no_callback)?;
                Ok((company_id, settings))
            },
        )
        .await?;
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
        timeout: TEST_TIMEOUT,
    };
    let answer = send(&target, &delivery.id, &delivery.payload).await;
    let delivered = answer.verdict == Verdict::Delivered;
    let attempt = AttemptRecord {
        attempted_at: now_ms(),
        status: answer.status.map(i64::from),
        error: answer.error.clone(),
        state: if delivered {
            DeliveryState::Delivered
        } else {
            DeliveryState::Failed
        },
        next_attempt_at: now_ms(),
    };
    let id = delivery.id.clone();
    store
        .write_tx(move |tx| -> Result<(), CallbackError> {
            tx.insert_delivery(&delivery)?;
            tx.record_delivery_attempt(&delivery.id, &attempt)?;
            Ok(())
        })
        .await?;
    Ok(TestOutcome {
        id,
        delivered,
        status: answer.status,
        error: answer.error,
    })
}

/// `company`'s last `limit` deliveries (at most [`MAX_LOG_LIMIT`]), newest first, each with the
/// file its payload names.
pub async fn recent_deliveries(
    store: &Store,
    company: &CompanyRef,
    limit: usize,
) -> Result<Vec<DeliverySummary>, CallbackError> {
    let company = company.clone();
    let deliveries = store
        .read_tx(move |tx| -> Result<Vec<Delivery>, CallbackError> {
            let company_id = company_id(tx, &company)?;
            Ok(tx.deliveries_of(&company_id, limit.min(MAX_LOG_LIMIT))?)
        })
        .await?;
    Ok(deliveries.into_iter().map(summary).collect())
}

/// A delivery with the file its payload's `data` names.
fn summary(delivery: Delivery) -> DeliverySummary {
    let payload: serde_json::Value = serde_json::from_str(&delivery.payload).unwrap_or_default();
    let text = |name: &str| {
        payload["data"][name]
            .as_str()
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    DeliverySummary {
        file_uid: text("UID"),
        stored_path: text("StoredPath"),
        delivery,
    }
}

/// `company`'s last `limit` deliveries (newest first), each as one line of JSON with its
/// attempts, as `callback log` prints them.
pub async fn callback_log(
    store: &Store,
    company: &CompanyRef,
    limit: usize,
) -> Result<Vec<String>, CallbackError> {
    let company = company.clone();
    store
        .read_tx(move |tx| -> Result<Vec<String>, CallbackError> {
            let company_id = company_id(tx, &company)?;
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
        .await
}

/// Unix milliseconds as ISO 8601 UTC.
pub fn iso(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Runs `work` on the store a service is configured with, opened for it, on a runtime of its
/// own (for the `callback` commands).
fn on_store<T, F>(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    work: impl FnOnce(Store) -> F,
) -> Result<T, CallbackError>
where
    F: std::future::Future<Output = Result<T, CallbackError>>,
{
    let store = Store::open_configured_blocking(data_dir, database)?;
    runtime()?.block_on(work(store))
}

/// [`set_callback`] of the company called `company`, for `callback set`.
pub fn set_callback_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    request: &SetRequest,
) -> Result<Saved, CallbackError> {
    let company = CompanyRef::Named(company.to_owned());
    on_store(data_dir, database, |store| async move {
        set_callback(&store, &company, request).await
    })
}

/// [`callback_settings`] of the company called `company`, for `callback show`; not found when
/// it has none.
pub fn callback_settings_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
) -> Result<CallbackSettings, CallbackError> {
    let company = CompanyRef::Named(company.to_owned());
    on_store(data_dir, database, |store| async move {
        callback_settings(&store, &company)
            .await?
            .ok_or_else(no_callback)
    })
}

/// [`test_callback`] of the company called `company`, for `callback test`: the receiver's
/// status, or why there is none.
pub fn test_callback_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    allow_private: bool,
) -> Result<Result<u16, String>, CallbackError> {
    let company = CompanyRef::Named(company.to_owned());
    let outcome = on_store(data_dir, database, |store| async move {
        test_callback(&store, &company, allow_private).await
    })?;
    Ok(outcome
        .status
        .ok_or_else(|| outcome.error.unwrap_or_default()))
}

/// [`callback_log`] of the company called `company`, for `callback log`.
pub fn callback_log_in(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
    company: &str,
    limit: usize,
) -> Result<Vec<String>, CallbackError> {
    let company = CompanyRef::Named(company.to_owned());
    on_store(data_dir, database, |store| async move {
        callback_log(&store, &company, limit).await
    })
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
