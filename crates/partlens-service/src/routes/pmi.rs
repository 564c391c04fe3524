//! Extracted data: `GET /api/PMIData` (PMI pages as a JSON string, text, extracted attributes) and
//! `PUT /api/ExtractedAttributeFeedback`.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::body::read_limited;
use crate::caller::Caller;
use crate::error::ServiceError;
use crate::params::{optional_uid_param, required_uid_param};
use crate::routes::caller_file::{find_caller_file, read_caller_file};
use crate::routes::{Params, json, json_string};
use crate::state::AppState;
use partlens_api::PmiPage;
use partlens_api::encoding::decode_feedback_body;
use partlens_api::limits::{MAX_FEEDBACK_CHARS, MAX_FEEDBACK_USER_CHARS};
use partlens_api::model::PmiDataWire;
use partlens_store::iso_now;
use partlens_store::model::Feedback;

/// Largest feedback body read (or the service's body limit, when that is smaller).
const MAX_FEEDBACK_BODY_BYTES: u64 = 1024 * 1024;

/// The PMI, text and extracted attributes of a file of the caller's company.
pub async fn pmi_data(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let uid = required_uid_param(&query, "fileUID")?;
    let record = read_caller_file(&state, &caller, &uid).await?;
    let pages: Vec<PmiPage> = serde_json::from_str(&record.pmi_json).unwrap_or_default();
    json(&PmiDataWire::from_pages(
        &pages,
        record.text,
        record.extracted_attributes,
    ))
}

/// Stores feedback on the extracted attributes of a file; replies with the feedback ID. A missing
/// `feedback` is stored empty; `feedback` over 300 or `user` over 100 characters is a 400; a
/// `feedbackId` held by another company is a 409 that does not say so.
pub async fn feedback(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let uid = required_uid_param(&query, "fileUID")?;
    let text = query.get("feedback").unwrap_or_default().to_owned();
    if text.chars().count() > MAX_FEEDBACK_CHARS {
        return Err(ServiceError::BadRequest(format!(
            "feedback is {} characters; at most {MAX_FEEDBACK_CHARS} are accepted",
            text.chars().count()
        )));
    }
    let user = query.get("user").unwrap_or_default().to_owned();
    if user.chars().count() > MAX_FEEDBACK_USER_CHARS {
        return Err(ServiceError::BadRequest(format!(
            "user is {} characters; at most {MAX_FEEDBACK_USER_CHARS} are accepted",
            user.chars().count()
        )));
    }
    let id = optional_uid_param(&query, "feedbackId")?
        .unwrap_or_else(|| uuid::Uuid::new_v4().hyphenated().to_string());
    let limit = MAX_FEEDBACK_BODY_BYTES.min(state.config.max_body_bytes);
    let body = read_limited(body, &headers, limit).await?;
    let attributes = if body.iter().all(u8::is_ascii_whitespace) {
        Vec::new()
    } else {
        decode_feedback_body(&body).map_err(|error| ServiceError::BadRequest(error.to_string()))?
    };
    let reply_id = id.clone();
    state
        .store
        .write_tx(move |tx| {
            find_caller_file(tx, &caller.company_id, &uid)?;
            let saved = tx.save_feedback(
                &Feedback {
                    id,
                    file_uid: uid.clone(),
                    company_id: caller.company_id.clone(),
                    user_id: caller.user_id,
                    external_user: user,
                    feedback: text,
                    attributes,
                },
                &iso_now(),
            )?;
            if saved {
                Ok(())
            } else {
                // 409, worded as for any ID that cannot be used: it does not tell whose it is.
                Err(ServiceError::Conflict(
                    "this feedbackId cannot be used; send another or leave it out".into(),
                ))
            }
        })
        .await?;
    Ok(json_string(&reply_id))
}
