//! What a load balancer and a supervisor ask, without a token: `GET /health/live` (the process
//! answers) and `GET /health/ready` (it can serve: the database answers with the schema this
//! program writes, and the data directory and the blob store take a file). Neither says more than `ok` or what is
//! wrong in a few words; neither touches a user's data.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::state::AppState;

/// How long readiness waits for the database: a load balancer asks often and wants an answer, and a
/// pool that cannot connect would otherwise wait its whole connection timeout.
const DATABASE_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long readiness waits for the blob store to take and remove a probe (an object store's
/// client retries a refused connection for longer than a load balancer waits).
const STORAGE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// `GET /health/live`: 200 while the process serves requests at all.
pub async fn live() -> Response {
    reply(StatusCode::OK, serde_json::json!({ "status": "live" }))
}

/// `GET /health/ready`: 200 when the database answers with a current schema and the data
/// directory and the blob store are writable; 503 naming what is not.
pub async fn ready(State(state): State<AppState>) -> Response {
    let store = state.store.clone();
    let asked = async move {
        tokio::task::spawn_blocking(move || {
            store.read_tx_within_blocking(DATABASE_WAIT, |tx| tx.schema_versions())
        })
        .await?
    };
    // The pool's own wait bounds the connection; this bounds a server that accepts and then
    // says nothing.
    let database = match tokio::time::timeout(2 * DATABASE_WAIT, asked).await {
        Ok(Ok((found, current))) if found == current => "ok".to_owned(),
        Ok(Ok((found, current))) => format!("schema {found}, this program writes {current}"),
        Ok(Err(error)) => {
            tracing::warn!(%error, "readiness: the database does not answer");
            "unreachable".to_owned()
        }
        Err(_) => {
            tracing::warn!("readiness: the database gave no answer within {DATABASE_WAIT:?}");
            "unreachable".to_owned()
        }
    };
    let writes = async {
        state.disk.probe().await?;
        state.blobs.probe().await
    };
    let storage = match tokio::time::timeout(STORAGE_WAIT, writes).await {
        Ok(Ok(())) => "ok".to_owned(),
        Ok(Err(error)) => {
            tracing::warn!(%error, blobs = state.blobs.describe(), "readiness: storage is not writable");
            "not writable".to_owned()
        }
        Err(_) => {
            tracing::warn!(
                blobs = state.blobs.describe(),
                "readiness: storage gave no answer within {STORAGE_WAIT:?}"
            );
            "not writable".to_owned()
        }
    };
    let ready = database == "ok" && storage == "ok";
    reply(
        if ready {
            StatusCode::OK
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        },
        serde_json::json!({
            "status": if ready { "ready" } else { "not ready" },
            "database": database,
            "storage": storage,
        }),
    )
}

fn reply(status: StatusCode, body: serde_json::Value) -> Response {
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body.to_string(),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
