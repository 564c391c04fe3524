//! The HTTP surface: one router file per resource, the request log, case-insensitive routes, and the
//! small extractors and replies the handlers share.
//!
//! Routes are declared lower-case under `/api/`; a layer wrapped around the router lower-cases the
//! path and adds the `/api` prefix when it is missing, so `/api/Token`, `/api/token` and `/Token` all
//! reach the same handler (the real service answers with and without the prefix).

pub mod attributes;
pub mod callback;
pub mod caller_file;
pub mod categories;
pub mod duplicates;
pub mod files;
pub mod health;
pub mod images;
pub mod library;
pub mod metrics;
pub mod pdf;
pub mod pmi;
pub mod search;
pub mod status;
pub mod token;
pub mod upload;

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use axum::Router;
use axum::extract::{ConnectInfo, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use futures_util::StreamExt as _;
use tower::Layer as _;

use partlens_api::encoding::QueryString;

use super::error::ServiceError;
use super::state::AppState;

/// The query string of a request, parsed (names case-insensitive, `+` as a space).
#[derive(Clone, Debug)]
pub struct Params(pub QueryString);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(QueryString::parse(parts.uri.query().unwrap_or(""))))
    }
}

/// The address of the client a request came from (the peer of its connection; `0.0.0.0` when the
/// request did not come over a connection, as in unit tests). Forwarding headers are not trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip()),
        ))
    }
}

/// A reply that is one JSON string (`"…"`), as ASP.NET sends a string result.
pub fn json_string(text: &str) -> Response {
    json_text(serde_json::Value::String(text.to_owned()).to_string())
}

/// A reply that is a JSON boolean (`true`).
pub fn json_bool(value: bool) -> Response {
    json_text(value.to_string())
}

/// A reply with a serialisable JSON body.
pub fn json<T: serde::Serialize>(value: &T) -> Result<Response, ServiceError> {
    serde_json::to_string(value)
        .map(json_text)
        .map_err(|error| ServiceError::Internal(format!("cannot write the reply: {error}")))
}

fn json_text(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body,
    )
        .into_response()
}

/// The router with every endpoint, lower-case paths; with `GET /metrics` and every request
/// counted and timed when the metrics are served (see [`crate::metrics`]).
pub fn router(state: AppState) -> Router {
    let metrics = state.metrics.clone();
    let router = Router::new()
        .route("/api/token", post(token::issue))
        .route(
            "/api/file",
            get(files::get_file)
                .put(upload::put_file)
                .delete(files::delete_file),
        )
        .route("/api/filebinary", put(upload::put_file_binary))
        .route("/api/categories", get(categories::company_categories))
        .route("/api/callback", get(callback::show).put(callback::set))
        .route("/api/callback/test", post(callback::test))
        .route("/api/filebinarydirect", put(upload::put_file_binary_direct))
        .route(
            "/api/filestatus",
            get(status::file_status).layer(axum::middleware::map_response(status::no_store)),
        )
        .route(
            "/api/fileattributes",
            get(attributes::company_attributes)
                .put(attributes::set_attributes)
                .delete(attributes::clear_attributes),
        )
        .route("/api/attributevalues", get(attributes::attribute_values))
        .route("/api/pmidata", get(pmi::pmi_data))
        .route("/api/extractedattributefeedback", put(pmi::feedback))
        .route(
            "/api/search",
            get(search::search_by_filter).put(search::search_with_files),
        )
        .route("/api/duplicates", get(duplicates::duplicates))
        .route("/api/files", get(library::list_files))
        .route("/api/image", get(images::image))
        .route("/api/pdf", get(pdf::pdf))
        .route("/api/version", get(version))
        .route("/api/health/live", get(health::live))
        .route("/api/health/ready", get(health::ready));
    let router = match &metrics {
        Some(_) => router.route("/api/metrics", get(metrics::scrape)),
        None => router,
    };
    let router = router.fallback(unknown_route).with_state(state);
    match metrics {
        // A layer of the router, not around it: the matched route template is known there.
        Some(metrics) => router.layer(axum::middleware::from_fn_with_state(
            metrics,
            crate::metrics::record_request,
        )),
        None => router,
    }
}

/// The whole service as one `tower` service: request log around the body guards (stalled bodies,
/// unread bodies) around route normalisation around the router.
pub fn app(
    state: AppState,
) -> impl tower::Service<Request, Response = Response, Error = Infallible, Future = impl Send + 'static>
+ Clone
+ Send
+ 'static {
    let body_read_timeout = state.config.limits.connections.body_read_timeout;
    let normalised = tower::util::MapRequestLayer::new(normalise_path).layer(router(state));
    let deadline = axum::middleware::from_fn_with_state(body_read_timeout, time_out_stalled_bodies)
        .layer(normalised);
    let closing = axum::middleware::from_fn(close_if_body_unread).layer(deadline);
    axum::middleware::from_fn(log_request).layer(closing)
}

/// True when a request has a body on the wire.
fn has_body(request: &Request) -> bool {
    request.headers().contains_key(header::TRANSFER_ENCODING)
        || request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim() != "0")
}

/// Ends a request body whose next piece does not arrive within `timeout` with
/// [`BodyTimedOut`](super::body::BodyTimedOut), which handlers answer with 408.
async fn time_out_stalled_bodies(
    axum::extract::State(timeout): axum::extract::State<std::time::Duration>,
    request: Request,
    next: Next,
) -> Response {
    if !has_body(&request) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let guarded =
        futures_util::stream::unfold(Some(body.into_data_stream()), move |data| async move {
            let mut data = data?;
            match tokio::time::timeout(timeout, data.next()).await {
                Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(data))),
                Ok(Some(Err(error))) => Some((Err(axum::BoxError::from(error)), None)),
                Ok(None) => None,
                Err(_) => Some((Err(axum::BoxError::from(super::body::BodyTimedOut)), None)),
            }
        });
    next.run(Request::from_parts(
        parts,
        axum::body::Body::from_stream(guarded),
    ))
    .await
}

/// Adds `Connection: close` to the reply of a request whose body the handler did not read to the
/// end (a refusal before the upload was read, a 413, a stalled body): the rest of that body is
/// still on the connection, so the client must not send its next request there.
async fn close_if_body_unread(request: Request, next: Next) -> Response {
    if !has_body(&request) {
        return next.run(request).await;
    }
    let finished = Arc::new(AtomicBool::new(false));
    let (parts, body) = request.into_parts();
    let tracked = futures_util::stream::unfold(
        (body.into_data_stream(), finished.clone()),
        |(mut data, finished)| async move {
            match data.next().await {
                Some(chunk) => Some((chunk, (data, finished))),
                None => {
                    finished.store(true, Ordering::Release);
                    None
                }
            }
        },
    );
    let mut response = next
        .run(Request::from_parts(
            parts,
            axum::body::Body::from_stream(tracked),
        ))
        .await;
    if !finished.load(Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Lower-cases the path, drops a trailing `/` (ASP.NET routes match with or without one) and adds
/// `/api` when it is missing; the query is left as it is.
fn normalise_path(mut request: Request) -> Request {
    let lower = request.uri().path().to_lowercase();
    let path = match lower.trim_end_matches('/') {
        "" => "/".to_owned(),
        trimmed => trimmed.to_owned(),
    };
    let path = if path == "/api" || path.starts_with("/api/") {
        path
    } else {
        format!("/api{path}")
    };
    let path_and_query = match request.uri().query() {
        Some(query) => format!("{path}?{query}"),
        None => path,
    };
    let mut parts = request.uri().clone().into_parts();
    if let Ok(value) = path_and_query.parse() {
        parts.path_and_query = Some(value);
        if let Ok(uri) = Uri::from_parts(parts) {
            *request.uri_mut() = uri;
        }
    }
    request
}

/// Logs each request: method, path (never the query: an image URL carries a token there), status
/// and time taken.
async fn log_request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    tracing::info!(
        %method,
        path,
        status = response.status().as_u16(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "request"
    );
    response
}

async fn unknown_route() -> ServiceError {
    ServiceError::NotFound("no such endpoint".into())
}

/// `GET /api/Version`: no token needed.
async fn version() -> Response {
    let mut response = json_text(
        serde_json::json!({
            "apiVersion": env!("CARGO_PKG_VERSION"),
            "engineVersion": concat!("partlens-", env!("CARGO_PKG_VERSION")),
        })
        .to_string(),
    );
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_lower_cased_and_prefixed_and_queries_kept() {
        let request = Request::builder()
            .uri("/API/FileStatus?fileUID=ABC&X=Y")
            .body(axum::body::Body::empty())
            .unwrap();
        assert_eq!(
            normalise_path(request).uri().to_string(),
            "/api/filestatus?fileUID=ABC&X=Y"
        );
        let request = Request::builder()
            .uri("/Token")
            .body(axum::body::Body::empty())
            .unwrap();
        assert_eq!(normalise_path(request).uri().path(), "/api/token");
        for (given, routed) in [
            ("/api/FileAttributes/", "/api/fileattributes"),
            ("/Token/?a=1", "/api/token"),
            ("/", "/api/"),
        ] {
            let request = Request::builder()
                .uri(given)
                .body(axum::body::Body::empty())
                .unwrap();
            assert_eq!(normalise_path(request).uri().path(), routed, "{given}");
        }
    }
}
