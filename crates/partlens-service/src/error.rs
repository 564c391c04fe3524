//! The service's one error type. It is what the library functions return (start, admin) and what a
//! handler returns; as a response it carries the interface's status and body: 401 with an empty body,
//! 403 with `false`, problem details for 400/404/408/409/413/429/500/507 (429 with `Retry-After`),
//! the OAuth error object for the token endpoint. A full disk, wherever it is met (a file write,
//! the store), is 507, not 500. The store's errors ([`StoreError`]) come in through `From`: a rule
//! of the store that refused a write is 400, a file not there 404, the database failing 500.

use std::net::SocketAddr;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use partlens_store::StoreError;
use partlens_visual::VisualError;

/// What went wrong in the local service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The request breaks a rule of the interface (missing parameter, bad GUID, upload too small, …).
    #[error("{0}")]
    BadRequest(String),
    /// The bearer token (or the image token) is missing, expired or invalid.
    #[error("the token is missing, expired or invalid")]
    Unauthorized,
    /// The caller may not do this; the reply body is `false`.
    #[error("not permitted: {0}")]
    Forbidden(String),
    /// The caller may not do this, on this service's own endpoints: a problem body saying why.
    #[error("not permitted: {0}")]
    ForbiddenWithReason(String),
    /// The file or resource does not exist for the caller's company.
    #[error("{0}")]
    NotFound(String),
    /// The request body stalled longer than the body read timeout (408; the connection is closed).
    #[error("the request body stalled; send it again without pauses")]
    RequestTimeout,
    /// Too many attempts (failed logins): 429 with `Retry-After`.
    #[error("{detail}")]
    TooManyRequests {
        /// Whole seconds until an attempt may succeed again.
        retry_after_secs: u64,
        /// What was limited, in words.
        detail: String,
    },
    /// The disk is full (or a file would pass the size the system allows): 507, nothing kept.
    #[error("the service's disk is full; nothing was stored")]
    InsufficientStorage,
    /// The request conflicts with what exists (a UID or feedback ID taken); the body never says by
    /// whom.
    #[error("{0}")]
    Conflict(String),
    /// The request body is larger than the configured maximum.
    #[error("the request body is larger than the limit of {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// `POST /api/Token` refused the request (OAuth error code such as `invalid_grant`).
    #[error("token request refused: {error}")]
    TokenRefused {
        /// The OAuth error code.
        error: &'static str,
        /// A sentence for people, when there is one.
        description: Option<&'static str>,
    },
    /// The service could not bind its address.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The store failed (its database, or its connections).
    #[error("{0}")]
    Store(StoreError),
    /// The visual index failed (its graphs, their saved files).
    #[error("{0}")]
    Visual(VisualError),
    /// A file of the data directory could not be read or written.
    #[error("data directory: {0}")]
    Io(#[from] std::io::Error),
    /// Anything else that should not happen (a worker thread panicked, a stored value is damaged).
    #[error("{0}")]
    Internal(String),
}

impl ServiceError {
    /// A 404 naming the file UID or path that was looked for.
    pub fn file_not_found(file: &str) -> Self {
        Self::NotFound(format!("no file {file} in this account"))
    }

    /// True when the error is the disk being full: no space, a quota, or a file past the size the
    /// system allows this process (`RLIMIT_FSIZE`). Such failures are answered 507, not 500.
    pub fn is_disk_full(&self) -> bool {
        match self {
            Self::InsufficientStorage => true,
            Self::Io(error) => matches!(
                error.kind(),
                std::io::ErrorKind::StorageFull
                    | std::io::ErrorKind::FileTooLarge
                    | std::io::ErrorKind::QuotaExceeded
            ),
            Self::Store(error) => error.is_disk_full(),
            Self::Visual(error) => error.is_disk_full(),
            _ => false,
        }
    }

    /// The HTTP status this error is answered with.
    pub fn status(&self) -> StatusCode {
        if self.is_disk_full() {
            return StatusCode::INSUFFICIENT_STORAGE;
        }
        match self {
            Self::BadRequest(_) | Self::TokenRefused { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) | Self::ForbiddenWithReason(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::InsufficientStorage => StatusCode::INSUFFICIENT_STORAGE,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Bind { .. }
            | Self::Store(_)
            | Self::Visual(_)
            | Self::Io(_)
            | Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<StoreError> for ServiceError {
    /// A rule of the store that refused a write is the caller's bad request, a record not there a
    /// 404; the rest is the store failing.
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Refused(sentence) => Self::BadRequest(sentence),
            StoreError::NotFound(sentence) => Self::NotFound(sentence),
            StoreError::Io(error) => Self::Io(error),
            StoreError::Internal(sentence) => Self::Internal(sentence),
            other => Self::Store(other),
        }
    }
}

impl From<partlens_pictures::pages::PageError> for ServiceError {
    fn from(error: partlens_pictures::pages::PageError) -> Self {
        Self::BadRequest(error.0)
    }
}

impl From<VisualError> for ServiceError {
    /// The store's errors met in the visual index keep their meaning (see [`StoreError`]'s).
    fn from(error: VisualError) -> Self {
        match error {
            VisualError::Store(error) => Self::from(error),
            other => Self::Visual(other),
        }
    }
}

impl From<tokio::task::JoinError> for ServiceError {
    fn from(error: tokio::task::JoinError) -> Self {
        Self::Internal(format!("a worker thread failed: {error}"))
    }
}

/// A problem-details body (RFC 9457), as ASP.NET writes it.
fn problem(status: StatusCode, detail: &str) -> Response {
    let kind = match status.as_u16() {
        400 => "https://tools.ietf.org/html/rfc9110#section-15.5.1",
        403 => "https://tools.ietf.org/html/rfc9110#section-15.5.4",
        404 => "https://tools.ietf.org/html/rfc9110#section-15.5.5",
        408 => "https://tools.ietf.org/html/rfc9110#section-15.5.9",
        409 => "https://tools.ietf.org/html/rfc9110#section-15.5.10",
        413 => "https://tools.ietf.org/html/rfc9110#section-15.5.14",
        429 => "https://tools.ietf.org/html/rfc6585#section-4",
        507 => "https://tools.ietf.org/html/rfc4918#section-11.5",
        _ => "https://tools.ietf.org/html/rfc9110#section-15.6.1",
    };
    let body = serde_json::json!({
        "type": kind,
        "title": status.canonical_reason().unwrap_or("Error"),
        "status": status.as_u16(),
        "detail": detail,
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/problem+json")],
        body.to_string(),
    )
        .into_response()
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        if self.is_disk_full() && !matches!(self, Self::InsufficientStorage) {
            tracing::warn!(error = %self, "a write failed: the disk is full");
            return ServiceError::InsufficientStorage.into_response();
        }
        let status = self.status();
        match &self {
            Self::Unauthorized => status.into_response(),
            Self::Forbidden(reason) => {
                tracing::debug!(reason, "request refused");
                (
                    status,
                    [(header::CONTENT_TYPE, "application/json")],
                    "false",
                )
                    .into_response()
            }
            Self::TokenRefused { error, description } => {
                let mut body = serde_json::json!({ "error": error });
                if let Some(description) = description {
                    body["error_description"] = serde_json::Value::from(*description);
                }
                (
                    status,
                    [(header::CONTENT_TYPE, "application/json")],
                    body.to_string(),
                )
                    .into_response()
            }
            Self::BadRequest(detail)
            | Self::NotFound(detail)
            | Self::Conflict(detail)
            | Self::ForbiddenWithReason(detail) => problem(status, detail),
            Self::PayloadTooLarge { .. } | Self::RequestTimeout | Self::InsufficientStorage => {
                problem(status, &self.to_string())
            }
            Self::TooManyRequests {
                retry_after_secs,
                detail,
            } => {
                let mut response = problem(status, detail);
                response.headers_mut().insert(
                    header::RETRY_AFTER,
                    axum::http::HeaderValue::from(*retry_after_secs),
                );
                response
            }
            Self::Bind { .. }
            | Self::Store(_)
            | Self::Visual(_)
            | Self::Io(_)
            | Self::Internal(_) => {
                // The one place an unexpected failure is reported; the client only learns it failed.
                tracing::error!(error = %self, "request failed");
                problem(status, "the service failed; retry later")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_507_whichever_layer_saw_it() {
        let sqlite_full = ServiceError::from(StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        )));
        let too_large = ServiceError::Io(std::io::Error::from(std::io::ErrorKind::FileTooLarge));
        let no_space = ServiceError::Io(std::io::Error::from(std::io::ErrorKind::StorageFull));
        for error in [sqlite_full, too_large, no_space] {
            assert_eq!(error.status(), StatusCode::INSUFFICIENT_STORAGE, "{error}");
            assert_eq!(
                error.into_response().status(),
                StatusCode::INSUFFICIENT_STORAGE
            );
        }
        let other = ServiceError::Io(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert_eq!(other.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn a_store_refusal_is_400_and_a_missing_file_404() {
        let refused = ServiceError::from(StoreError::Refused("a name of another company".into()));
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        let missing = ServiceError::from(StoreError::file_not_found("x"));
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    }
}
