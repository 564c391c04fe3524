//! Attributes: `GET /api/FileAttributes` (names used by the company), `PUT /api/FileAttributes`
//! (replace or add, body double-encoded), `DELETE /api/FileAttributes`, `GET /api/AttributeValues`.
//!
//! Limits: the body is read up to [`MAX_ATTRIBUTES_BODY_BYTES`] (413 past it); a file holds at most
//! `ServiceLimits::max_attributes_per_file` attributes and `max_values_per_file` values (400 past
//! either, nothing written). The body is parsed and checked before the write transaction starts,
//! so the store's writer is held only for the inserts.

use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::body::read_limited;
use crate::caller::Caller;
use crate::error::ServiceError;
use crate::params::{bool_param, required_uid_param, text_param};
use crate::routes::caller_file::{find_caller_file, read_caller_file_by_uid_or_name};
use crate::routes::{Params, json, json_bool};
use crate::state::AppState;
use partlens_api::Attribute;
use partlens_api::attribute::split_unit;
use partlens_api::encoding::decode_double_encoded_strings;
use partlens_api::model::{AttributeValue, ExtraFields, FileAttribute};
use partlens_store::model::attributes;

/// Largest `PUT /api/FileAttributes` body read (or the service's body limit, when that is smaller):
/// an attribute list is text, and is read whole.
pub const MAX_ATTRIBUTES_BODY_BYTES: u64 = 1024 * 1024;

/// The attribute names (with units) used by the caller's company, each with its stable ID: those
/// saved on its files (`IsCustom` true) and those the service extracted from them (`IsCustom`
/// false), with `Value` the one value the company's files hold (null when they hold several, or
/// for a name only extracted) and `Timestamp` when a file last had it set or extracted.
pub async fn company_attributes(
    caller: Caller,
    State(state): State<AppState>,
) -> Result<Response, ServiceError> {
    let names = state
        .store
        .read_tx(move |tx| tx.company_attribute_names(&caller.company_id))
        .await?;
    let list: Vec<FileAttribute> = names
        .into_iter()
        .map(|name| FileAttribute {
            id: name.id,
            name: name.name,
            unit: name.unit,
            value: name.single_value.map(serde_json::Value::String),
            is_custom: name.custom,
            timestamp: name.last_set_at.map(serde_json::Value::String),
            extra: ExtraFields::new(),
        })
        .collect();
    json(&list)
}

/// Adds or replaces attributes of a file. The body is a JSON string holding a JSON array of
/// `name=value` strings; a plain array is refused (400).
pub async fn set_attributes(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let delete_existing = bool_param(&query, "deleteExisting", true)?;
    let uid = read_caller_file_by_uid_or_name(&state, &caller, &query)
        .await?
        .uid;
    let limit = MAX_ATTRIBUTES_BODY_BYTES.min(state.config.max_body_bytes);
    let body = read_limited(body, &headers, limit).await?;
    let texts = decode_double_encoded_strings(&body)
        .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
    let parsed = texts
        .iter()
        .map(|text| {
            let attribute = Attribute::parse(text)
                .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
            attribute
                .validate()
                .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
            Ok(attribute)
        })
        .collect::<Result<Vec<_>, ServiceError>>()?;
    let caps = state.config.limits.attribute_caps();
    // A full replacement is checked before the transaction; an addition needs the saved list, so
    // it is checked inside it. Either way nothing is written past a cap.
    let parsed = if delete_existing {
        let list = attributes::one_per_name(parsed);
        caps.check(&list)?;
        list
    } else {
        parsed
    };
    state
        .store
        .write_tx(move |tx| {
            if delete_existing {
                tx.replace_attributes(&caller.company_id, &uid, &parsed)
            } else {
                tx.merge_attributes(&caller.company_id, &uid, &parsed, &caps)
            }
        })
        .await?;
    Ok(json_bool(true))
}

/// Removes every attribute of a file.
pub async fn clear_attributes(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let uid = required_uid_param(&query, "fileUID")?;
    state
        .store
        .write_tx(move |tx| -> Result<(), ServiceError> {
            find_caller_file(tx, &caller.company_id, &uid)?;
            Ok(tx.replace_attributes(&caller.company_id, &uid, &[])?)
        })
        .await?;
    Ok(json_bool(true))
}

/// The distinct values of an attribute in the company with their counts. The name is matched
/// case-insensitively; `name(unit)` narrows to that unit.
pub async fn attribute_values(
    caller: Caller,
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let wanted = text_param(&query, "attribute")
        .ok_or_else(|| ServiceError::BadRequest("the attribute parameter is required".into()))?
        .to_owned();
    let counts = state
        .store
        .read_tx(move |tx| {
            let (name, unit) = split_unit(&wanted);
            tx.attribute_value_counts(&caller.company_id, name, unit)
        })
        .await?;
    let values: Vec<AttributeValue> = counts
        .into_iter()
        .map(|(name, count)| AttributeValue { name, count })
        .collect();
    json(&values)
}
