//! `POST /api/Token`: the password grant.

use reqwest::Method;

use super::client::{AccessToken, ApiClient, parse_json};
use super::encoding::{QueryString, password_digest};
use super::error::{ApiError, message_from_body};
use super::model::TokenReply;

/// What a login needs: the application's client id and the user's credentials.
#[derive(Clone)]
pub struct Credentials {
    /// The client id the service issued for this application.
    pub client_id: String,
    /// The user name (usually an e-mail address).
    pub username: String,
    /// The plain password; only its SHA-1 digest is sent, and it is never stored.
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("client_id", &self.client_id)
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

impl ApiClient {
    /// Asks for a user token (`grant_type=password`, the password as lower-case hex SHA-1). Refused
    /// credentials (400 `invalid_grant` or 401) come back as [`ApiError::LoginRefused`].
    pub async fn request_token(&self, credentials: &Credentials) -> Result<TokenReply, ApiError> {
        if credentials.username.trim().is_empty() {
            return Err(ApiError::InvalidInput("enter a user name to log in".into()));
        }
        if credentials.client_id.trim().is_empty() {
            return Err(ApiError::InvalidInput(
                "a client id is needed to log in".into(),
            ));
        }
        let digest = password_digest(&credentials.password);
        let form = [
            ("grant_type", "password"),
            ("client_id", credentials.client_id.trim()),
            ("username", credentials.username.trim()),
            ("password", digest.as_str()),
        ];
        // No bearer token on the token endpoint.
        let url = self.endpoint_url("api/Token", &QueryString::new())?;
        let request = self
            .http()
            .request(Method::POST, url)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .timeout(super::client::CALL_TIMEOUT);
        let response = self.send_watched(request).await?;
        let status = response.status().as_u16();
        let body = response.text().await?;
        match status {
            200..=299 => {
                let reply: TokenReply = parse_json(&body, "token reply")?;
                if reply.access_token.is_empty() {
                    return Err(ApiError::Decode(
                        "the token reply has no access_token".into(),
                    ));
                }
                Ok(reply)
            }
            400 | 401 => Err(ApiError::LoginRefused {
                status,
                message: match message_from_body(&body) {
                    message if message.is_empty() => {
                        "the user name or password is wrong".to_owned()
                    }
                    message => message,
                },
            }),
            _ => Err(ApiError::from_status(status, &body)),
        }
    }

    /// Logs in: asks for a token and keeps it on this client. Returns the token reply.
    pub async fn login(&mut self, credentials: &Credentials) -> Result<TokenReply, ApiError> {
        let reply = self.request_token(credentials).await?;
        self.set_token(Some(AccessToken::new(reply.access_token.clone())));
        Ok(reply)
    }
}
