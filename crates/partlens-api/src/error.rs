//! The typed error of the wire layer: callers branch on what happened, not on status numbers.

/// What went wrong talking to the service.
///
/// HTTP statuses are mapped per endpoint (see the endpoint functions); the variants are what a caller
/// needs to decide what to do next: log in again, explain a refusal, fix the input, retry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    /// 401: the token is missing, expired or invalid, or the credentials were refused. Log in again.
    #[error("the service needs a new login: the session is missing, expired or invalid (HTTP 401)")]
    Unauthorized,
    /// The token endpoint refused the credentials (400 `invalid_grant` or 401): wrong user, password
    /// or client id.
    #[error("login refused: {message} (HTTP {status})")]
    LoginRefused {
        /// The HTTP status (400 or 401).
        status: u16,
        /// The reason the service gave.
        message: String,
    },
    /// 403: the user may not do this (for example a non-admin deleting a company file).
    #[error("the service refused the request: {message} (HTTP 403)")]
    Forbidden {
        /// The body of the reply, or a sentence saying what was refused.
        message: String,
    },
    /// 404: the file or resource does not exist for this account (never uploaded or deleted).
    #[error("not found: {message} (HTTP 404)")]
    NotFound {
        /// The body of the reply (problem details), or a sentence naming what was looked for.
        message: String,
    },
    /// 400 and the other 4xx statuses: the service rejected the request; `message` is its reason.
    #[error("the service rejected the request: {message} (HTTP {status})")]
    BadRequest {
        /// The HTTP status (400, 405, 413, …).
        status: u16,
        /// The reason the service gave in its body.
        message: String,
    },
    /// 5xx: the service failed; retrying may help.
    #[error("the service failed: {message} (HTTP {status})")]
    Server {
        /// The HTTP status (500, 502, …).
        status: u16,
        /// The body of the reply, if any.
        message: String,
    },
    /// The service could not be reached or the connection dropped.
    #[error(
        "could not reach the service: {0}; check the service address and that the service is running, then retry"
    )]
    Network(String),
    /// The request was refused locally before anything was sent (a rule of the interface was broken).
    #[error("{0}")]
    InvalidInput(String),
    /// A local file could not be read.
    #[error("cannot read {path}: {message}")]
    File {
        /// The file that could not be read.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// The service answered with something the client cannot read.
    #[error("the service sent a reply that could not be read: {0}")]
    Decode(String),
}

impl ApiError {
    /// The HTTP status behind this error, where there is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Unauthorized => Some(401),
            Self::Forbidden { .. } => Some(403),
            Self::NotFound { .. } => Some(404),
            Self::BadRequest { status, .. }
            | Self::Server { status, .. }
            | Self::LoginRefused { status, .. } => Some(*status),
            Self::Network(_) | Self::InvalidInput(_) | Self::File { .. } | Self::Decode(_) => None,
        }
    }

    /// True when repeating the same request later may succeed (network trouble, a 5xx).
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Network(_) | Self::Server { .. })
    }

    /// Maps a non-success status and its body to the error kind (the generic part of every endpoint's
    /// mapping; endpoints with their own meanings for a status handle those first).
    pub fn from_status(status: u16, body: &str) -> Self {
        let message = message_from_body(body);
        match status {
            401 => Self::Unauthorized,
            403 => Self::Forbidden {
                message: if message.is_empty() || message == "false" {
                    "this user may not do that".to_owned()
                } else {
                    message
                },
            },
            404 => Self::NotFound {
                message: if message.is_empty() {
                    "no such file or resource".to_owned()
                } else {
                    message
                },
            },
            400..=499 => Self::BadRequest {
                status,
                message: if message.is_empty() {
                    "no reason given".to_owned()
                } else {
                    message
                },
            },
            // The spec's 500 body is `false`, which says nothing to a reader.
            _ => Self::Server {
                status,
                message: if message.is_empty() || message == "false" {
                    "no reason given; retrying may help".to_owned()
                } else {
                    message
                },
            },
        }
    }
}

#[cfg(feature = "client")]
impl From<reqwest::Error> for ApiError {
    fn from(error: reqwest::Error) -> Self {
        // The URL may carry an image token; never show it.
        let error = error.without_url();
        if error.is_decode() {
            Self::Decode(error.to_string())
        } else {
            let mut message = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(inner) = source {
                message.push_str(": ");
                message.push_str(&inner.to_string());
                source = inner.source();
            }
            Self::Network(message)
        }
    }
}

/// The human-readable part of an error body: the `detail`/`title`/`message` of problem details, a JSON
/// string's content, or the text itself (trimmed and shortened to one line).
pub fn message_from_body(body: &str) -> String {
    let trimmed = body.trim();
    let text = match serde_json::from_str::<serde_json::Value>(trimmed) {
        Ok(serde_json::Value::String(text)) => text,
        Ok(serde_json::Value::Object(fields)) => {
            let pick = |key: &str| {
                fields
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case(key))
                    .and_then(|(_, value)| value.as_str())
                    .map(str::to_owned)
            };
            pick("detail")
                .or_else(|| pick("message"))
                .or_else(|| pick("title"))
                .or_else(|| pick("error_description"))
                .or_else(|| pick("error"))
                .unwrap_or_else(|| trimmed.to_owned())
        }
        _ => trimmed.to_owned(),
    };
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 300 {
        let short: String = one_line.chars().take(300).collect();
        format!("{short}…")
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_kinds() {
        assert_eq!(ApiError::from_status(401, ""), ApiError::Unauthorized);
        assert!(matches!(
            ApiError::from_status(403, "false"),
            ApiError::Forbidden { .. }
        ));
        assert!(matches!(
            ApiError::from_status(404, "{}"),
            ApiError::NotFound { .. }
        ));
        assert!(matches!(
            ApiError::from_status(413, ""),
            ApiError::BadRequest { status: 413, .. }
        ));
        assert!(matches!(
            ApiError::from_status(500, "false"),
            ApiError::Server { status: 500, .. }
        ));
        assert!(matches!(
            ApiError::from_status(502, ""),
            ApiError::Server { status: 502, .. }
        ));
    }

    #[test]
    fn bad_request_keeps_the_body_message() {
        let problem = r#"{"type":"about:blank","title":"Bad Request","status":400,"detail":"upload smaller than 1024"}"#;
        assert_eq!(
            ApiError::from_status(400, problem),
            ApiError::BadRequest {
                status: 400,
                message: "upload smaller than 1024".into()
            }
        );
        assert_eq!(
            ApiError::from_status(400, "\"fileUID is missing\""),
            ApiError::BadRequest {
                status: 400,
                message: "fileUID is missing".into()
            }
        );
        assert_eq!(
            ApiError::from_status(400, "plain text\nreason"),
            ApiError::BadRequest {
                status: 400,
                message: "plain text reason".into()
            }
        );
    }

    #[test]
    fn a_false_body_is_not_shown_as_the_reason() {
        let text = ApiError::from_status(500, "false").to_string();
        assert_eq!(
            text,
            "the service failed: no reason given; retrying may help (HTTP 500)"
        );
        assert!(
            !ApiError::from_status(403, "false")
                .to_string()
                .contains("false")
        );
    }

    #[test]
    fn a_network_failure_says_what_to_check() {
        let text = ApiError::Network("tcp connect error".into()).to_string();
        assert!(
            text.starts_with("could not reach the service: tcp connect error"),
            "{text}"
        );
        assert!(text.contains("check the service address"), "{text}");
    }

    #[test]
    fn display_names_the_status() {
        let text = ApiError::from_status(403, "false").to_string();
        assert!(text.contains("403"), "{text}");
        assert_eq!(ApiError::from_status(422, "x").status(), Some(422));
        assert_eq!(ApiError::Network("down".into()).status(), None);
    }
}
