//! `POST /api/Token`: the OAuth password grant. The form's `password` is the hex SHA-1 of the
//! user's password; refusals are 400 with an OAuth `error` object. Password checks are throttled
//! (`service::login_guard`): a user name or client address with too many recent failures gets 429
//! with `Retry-After`, and only a few checks run at once.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

use crate::auth::{new_token, token_hash, verify_against_nothing, verify_password_digest};
use crate::body::read_limited;
use crate::error::ServiceError;
use crate::routes::{ClientAddress, json};
use crate::state::AppState;
use partlens_api::encoding::QueryString;
use partlens_store::unix_now;

/// The largest token request body read.
const MAX_FORM_BYTES: u64 = 16 * 1024;

const INVALID_GRANT: ServiceError = ServiceError::TokenRefused {
    error: "invalid_grant",
    description: Some("The user name or password is incorrect."),
};

/// Issues a bearer token for a user of a registered client.
pub async fn issue(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ServiceError> {
    let form = read_limited(body, &headers, MAX_FORM_BYTES).await?;
    let form = QueryString::parse(&String::from_utf8_lossy(&form));
    let field = |name: &str| {
        form.get(name)
            .map(str::trim)
            .filter(|value| !value.is_empty())
    };
    let refused = |error: &'static str, description: &'static str| ServiceError::TokenRefused {
        error,
        description: Some(description),
    };
    let grant_type =
        field("grant_type").ok_or_else(|| refused("invalid_request", "grant_type is required."))?;
    if !grant_type.eq_ignore_ascii_case("password") {
        return Err(refused(
            "unsupported_grant_type",
            "Only grant_type=password is supported.",
        ));
    }
    let client_id = field("client_id")
        .ok_or(ServiceError::TokenRefused {
            error: "invalid_client",
            description: None,
        })?
        .to_owned();
    let (Some(username), Some(digest)) = (field("username"), field("password")) else {
        return Err(INVALID_GRANT);
    };
    let (username, digest) = (username.to_owned(), digest.to_owned());
    let lifetime = state.config.token_lifetime.as_secs() as i64;
    let store = state.store.clone();
    let guard = state.login_guard.clone();
    guard.admit(&username, address).await?;
    let slot = guard.slot().await?;
    // Checked again: failures counted while this request waited for its slot count too.
    if let Err(refused) = guard.check(&username, address) {
        drop(slot);
        guard.delay_refusal().await;
        return Err(refused);
    }
    let token = tokio::task::spawn_blocking(move || {
        // The slot is held until the outcome is counted, even if the client gives up meanwhile: a
        // request that gets the slot next sees this failure.
        let slot = slot;
        let (client_known, login) = store.read_tx_blocking(|tx| -> Result<_, ServiceError> {
            Ok((tx.client_exists(&client_id)?, tx.login_of(&username)?))
        })?;
        if !client_known {
            return Err(ServiceError::TokenRefused {
                error: "invalid_client",
                description: None,
            });
        }
        let user_id = match login {
            Some((user_id, hash)) if verify_password_digest(&digest, &hash) => user_id,
            Some(_) => {
                guard.record_failure(&username, address);
                return Err(INVALID_GRANT);
            }
            None => {
                verify_against_nothing(&digest);
                guard.record_failure(&username, address);
                return Err(INVALID_GRANT);
            }
        };
        guard.record_success(&username);
        drop(slot);
        let token = new_token();
        let now = unix_now();
        let hash = token_hash(&token);
        store.write_tx_blocking(|tx| {
            tx.insert_token(&hash, user_id, &client_id, now + lifetime, now)
        })?;
        Ok(token)
    })
    .await??;
    let mut response = json(&serde_json::json!({
        "access_token": token,
        "token_type": "bearer",
        "expires_in": lifetime,
    }))?;
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
