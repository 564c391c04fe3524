//! `GET|PUT /api/Callback` and `POST /api/Callback/Test` (beyond the interface, see
//! [`partlens_api::callbacks`]): the caller's company's callback for its admins: the settings
//! (never the secret) and last deliveries, a change checked as `callback set` checks it, and a
//! test event sent now. The work is `partlens_callbacks::admin`'s; this file only maps it to the
//! wire.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::body::read_limited;
use crate::caller::Caller;
use crate::error::ServiceError;
use crate::routes::json;
use crate::state::AppState;
use partlens_api::callbacks::{
    CALLBACK_DELIVERIES_LISTED, CallbackDelivery, CallbackOverview, CallbackSettingsView,
    CallbackTestOutcome, CallbackUpdate,
};
use partlens_callbacks::CallbackError;
use partlens_callbacks::admin::{self, CompanyRef, DeliverySummary, SetRequest};
use partlens_store::model::CallbackSettings;

/// The largest `PUT /api/Callback` body (a URL of 2 KB, three events, a secret).
const MAX_UPDATE_BYTES: u64 = 16 * 1024;

impl From<CallbackError> for ServiceError {
    fn from(error: CallbackError) -> Self {
        match error {
            CallbackError::Refused(sentence) => Self::BadRequest(sentence),
            CallbackError::NotFound(sentence) => Self::NotFound(sentence),
            CallbackError::Store(error) => Self::from(error),
        }
    }
}

/// The caller's company, when the caller is one of its admins; a 403 saying so otherwise.
fn admins_company(caller: &Caller, what: &str) -> Result<CompanyRef, ServiceError> {
    if caller.admin {
        Ok(CompanyRef::Id(caller.company_id.clone()))
    } else {
        Err(ServiceError::ForbiddenWithReason(format!(
            "only an admin may {what}: ask one of your company's admins"
        )))
    }
}

/// `GET /api/Callback`: the settings (empty and off when there are none) and the last
/// deliveries, newest first.
pub async fn show(caller: Caller, State(state): State<AppState>) -> Result<Response, ServiceError> {
    let company = admins_company(&caller, "see the company's callback")?;
    let settings = admin::callback_settings(&state.store, &company).await?;
    let deliveries =
        admin::recent_deliveries(&state.store, &company, CALLBACK_DELIVERIES_LISTED).await?;
    json(&CallbackOverview {
        settings: settings.as_ref().map(settings_view).unwrap_or_default(),
        deliveries: deliveries.into_iter().map(delivery_view).collect(),
    })
}

/// `PUT /api/Callback`: sets the callback from a JSON [`CallbackUpdate`]; answers the settings
/// saved, with the secret in full when this call made it.
pub async fn set(
    caller: Caller,
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let company = admins_company(&caller, "set the company's callback")?;
    let body = read_limited(body, &headers, MAX_UPDATE_BYTES).await?;
    let update: CallbackUpdate = serde_json::from_slice(&body).map_err(|error| {
        ServiceError::BadRequest(format!(
            "the body is not a callback's settings ({error}): send JSON such as \
             {{\"Url\":\"https://hooks.example.com/partlens\",\"Events\":[\"indexing.completed\"],\
             \"Enabled\":true}}"
        ))
    })?;
    let request = SetRequest {
        url: update.url,
        secret: update.secret,
        renew_secret: update.new_secret,
        events: Some(update.events),
        enabled: update.enabled,
        allow_private: state.config.callbacks.allow_private,
    };
    let saved = admin::set_callback(&state.store, &company, &request).await?;
    let mut view = settings_view(&saved.settings);
    if saved.secret_made {
        view.secret = Some(saved.settings.secret);
    }
    json(&view)
}

/// `POST /api/Callback/Test`: sends the test event now; answers what the receiver said.
pub async fn test(caller: Caller, State(state): State<AppState>) -> Result<Response, ServiceError> {
    let company = admins_company(&caller, "test the company's callback")?;
    let outcome =
        admin::test_callback(&state.store, &company, state.config.callbacks.allow_private).await?;
    json(&CallbackTestOutcome {
        id: outcome.id,
        delivered: outcome.delivered,
        status: outcome.status,
        error: outcome.error,
    })
}

/// The settings as an admin sees them: whether a secret is set, never the secret.
fn settings_view(settings: &CallbackSettings) -> CallbackSettingsView {
    CallbackSettingsView {
        url: settings.url.clone(),
        events: settings.events.clone(),
        enabled: settings.enabled,
        secret_set: !settings.secret.is_empty(),
        updated_at: Some(settings.updated_at.clone()),
        secret: None,
    }
}

/// A delivery on the wire.
fn delivery_view(summary: DeliverySummary) -> CallbackDelivery {
    let delivery = summary.delivery;
    CallbackDelivery {
        id: delivery.id,
        event: delivery.event,
        file_uid: summary.file_uid,
        stored_path: summary.stored_path,
        state: delivery.state.as_str().to_owned(),
        attempts: delivery.attempts,
        last_status: delivery.last_status,
        last_error: delivery.last_error,
        created_at: admin::iso(delivery.created_at),
        delivered_at: delivery.delivered_at.map(admin::iso),
    }
}
