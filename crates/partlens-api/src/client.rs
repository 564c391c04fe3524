//! The HTTP client of the interface: base address, bearer token, and the request/reply plumbing every
//! endpoint function shares (headers, status mapping, reading replies).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use url::Url;

use super::encoding::QueryString;
use super::error::ApiError;

/// How long an ordinary call may take. Uploads and synchronous indexing have no overall limit (a big
/// file on a slow link is not an error); only connecting is bounded for them.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// How long connecting to the service may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an idle connection stays in the pool: shorter than the local service keeps an idle
/// connection open (its header read timeout, 15 s), so a request never goes out on a connection
/// the service is closing at that moment.
pub const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// A bearer token; its `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken(String);

impl AccessToken {
    /// Wraps a token value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The token value, for the `Authorization` header or the keyring.
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessToken(<redacted>)")
    }
}

/// A client of one service: its base address, the HTTP connection pool and the user's token.
///
/// Cheap to clone (the pool is shared). Each endpoint of the interface is one async method, defined in
/// the file of its resource (`files.rs`, `upload.rs`, `search.rs`, …).
#[derive(Clone)]
pub struct ApiClient {
    http: reqwest::Client,
    base: Url,
    token: Option<AccessToken>,
    watch: Option<ReachabilityWatch>,
}

impl std::fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiClient")
            .field("base", &self.base.as_str())
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

/// Hears, after every request of a client, whether the service answered (any HTTP status) or
/// could not be reached (no connection, no answer in time), with the reason in the latter case:
/// the task layer says once that the service is away, instead of once a failed request.
pub type ReachabilityWatch = std::sync::Arc<dyn Fn(Result<(), &ApiError>) + Send + Sync>;

/// A reply that has passed the status check: its status and its body as text.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The HTTP status (2xx, or a status an endpoint treats as a state, such as 204 or 422).
    pub status: u16,
    /// The body as text.
    pub body: String,
}

/// The base address of a service as a client uses it: an http:// or https:// URL whose path ends
/// with a slash (paths are joined onto it, so a prefix path is kept). Refused with a sentence
/// otherwise.
pub fn parse_base_url(base_url: &str) -> Result<Url, ApiError> {
    let mut base = Url::parse(base_url.trim()).map_err(|error| {
        ApiError::InvalidInput(format!("\"{base_url}\" is not a service address: {error}"))
    })?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(ApiError::InvalidInput(format!(
            "\"{base_url}\" is not an http:// or https:// address"
        )));
    }
    if !base.path().ends_with('/') {
        let path = format!("{}/", base.path());
        base.set_path(&path);
    }
    Ok(base)
}

/// Makes ring rustls's crypto provider for this process, once; every HTTP client is built after it
/// (reqwest is built without a provider of its own: its default, aws-lc-rs, compiles a C library
/// that took minutes of every clean build). Harmless to call again.
pub fn install_crypto_provider() {
    // An error means a provider is installed already, which is all that is needed.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A plain `reqwest` client with the crypto provider installed (for tests and tools that speak
/// HTTP to the service beside [`ApiClient`]).
pub fn plain_http_client() -> reqwest::Client {
    install_crypto_provider();
    reqwest::Client::new()
}

impl ApiClient {
    /// A client for the service at `base_url` (for example `http://127.0.0.1:8480`), not logged in.
    pub fn new(base_url: &str) -> Result<Self, ApiError> {
        install_crypto_provider();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .user_agent(concat!("partlens/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| ApiError::Network(format!("cannot set up HTTP: {error}")))?;
        Self::with_http(http, base_url)
    }

    /// A client that shares an existing connection pool.
    pub fn with_http(http: reqwest::Client, base_url: &str) -> Result<Self, ApiError> {
        Ok(Self {
            http,
            base: parse_base_url(base_url)?,
            token: None,
            watch: None,
        })
    }

    /// The same client, telling `watch` after every request whether the service answered.
    pub fn with_watch(mut self, watch: Option<ReachabilityWatch>) -> Self {
        self.watch = watch;
        self
    }

    /// Sends a request and tells the watch whether the service answered.
    pub async fn send_watched(
        &self,
        builder: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ApiError> {
        let sent = builder.send().await.map_err(ApiError::from);
        if let Some(watch) = &self.watch {
            watch(sent.as_ref().map(drop));
        }
        sent
    }

    /// The same client with a token.
    pub fn with_token(mut self, token: Option<AccessToken>) -> Self {
        self.token = token;
        self
    }

    /// Sets or clears the token.
    pub fn set_token(&mut self, token: Option<AccessToken>) {
        self.token = token;
    }

    /// The current token, if logged in.
    pub fn token(&self) -> Option<&AccessToken> {
        self.token.as_ref()
    }

    /// The service's base address.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// The HTTP connection pool (shared by clones).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The URL of an endpoint path (`api/File`) with a query string.
    pub fn endpoint_url(&self, path: &str, query: &QueryString) -> Result<Url, ApiError> {
        let mut url = self
            .base
            .join(path.trim_start_matches('/'))
            .map_err(|error| {
                ApiError::InvalidInput(format!("bad endpoint path {path}: {error}"))
            })?;
        if !query.is_empty() {
            url.set_query(Some(&query.to_string()));
        }
        Ok(url)
    }

    /// True when `url` is on the service's own origin (scheme, host and port): only there is the bearer
    /// token sent.
    pub fn is_own_origin(&self, url: &Url) -> bool {
        url.origin() == self.base.origin()
    }

    /// Starts a request to an endpoint of this service, with `Accept: application/json` and the bearer
    /// token when there is one.
    pub fn request(
        &self,
        method: Method,
        path: &str,
        query: &QueryString,
    ) -> Result<reqwest::RequestBuilder, ApiError> {
        let url = self.endpoint_url(path, query)?;
        Ok(self.request_url(method, url))
    }

    /// Starts a request to a full URL; the token is attached only on the service's own origin.
    pub fn request_url(&self, method: Method, url: Url) -> reqwest::RequestBuilder {
        let own_origin = self.is_own_origin(&url);
        let mut builder = self
            .http
            .request(method, url)
            .header(reqwest::header::ACCEPT, "application/json");
        if let (true, Some(token)) = (own_origin, &self.token) {
            builder = builder.bearer_auth(token.secret());
        }
        builder
    }

    /// Sends a request and reads the body. Statuses in `states` (besides 2xx) are returned as replies for
    /// the endpoint to interpret; any other non-2xx becomes an [`ApiError`].
    pub async fn send(
        &self,
        builder: reqwest::RequestBuilder,
        states: &[u16],
    ) -> Result<Reply, ApiError> {
        let response = self.send_watched(builder).await?;
        let status = response.status();
        let body = response.text().await?;
        check_status(status, body, states)
    }
}

/// Passes 2xx and the listed statuses through, maps the rest to errors.
pub fn check_status(status: StatusCode, body: String, states: &[u16]) -> Result<Reply, ApiError> {
    let code = status.as_u16();
    if status.is_success() || states.contains(&code) {
        Ok(Reply { status: code, body })
    } else {
        Err(ApiError::from_status(code, &body))
    }
}

/// Parses a JSON reply body into `T`, with an error that names what was expected.
pub fn parse_json<T: serde::de::DeserializeOwned>(body: &str, what: &str) -> Result<T, ApiError> {
    serde_json::from_str(body).map_err(|error| ApiError::Decode(format!("{what}: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_without_slash_keeps_its_path_prefix() {
        let client = ApiClient::new("http://127.0.0.1:9/prefix").unwrap();
        let url = client
            .endpoint_url("api/File", &QueryString::new())
            .unwrap();
        assert_eq!(url.as_str(), "http://127.0.0.1:9/prefix/api/File");
    }

    #[test]
    fn query_is_written_with_percent_20() {
        let client = ApiClient::new("http://127.0.0.1:9").unwrap();
        let mut query = QueryString::new();
        query.push("file", "Design/a b.png");
        let url = client.endpoint_url("/api/File", &query).unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:9/api/File?file=Design%2Fa%20b.png"
        );
    }

    #[test]
    fn bad_addresses_are_refused() {
        assert!(matches!(
            ApiClient::new("not a url"),
            Err(ApiError::InvalidInput(_))
        ));
        assert!(matches!(
            ApiClient::new("ftp://example.test"),
            Err(ApiError::InvalidInput(_))
        ));
    }

    #[test]
    fn token_goes_only_to_the_own_origin() {
        let client = ApiClient::new("http://127.0.0.1:8480")
            .unwrap()
            .with_token(Some(AccessToken::new("t0k")));
        let own = client.request_url(
            Method::GET,
            Url::parse("http://127.0.0.1:8480/img?token=x").unwrap(),
        );
        let own = own.build().unwrap();
        assert_eq!(own.headers()[reqwest::header::AUTHORIZATION], "Bearer t0k");
        for foreign in [
            "http://127.0.0.1:8481/img",
            "https://127.0.0.1:8480/img",
            "http://localhost:8480/img",
        ] {
            let request = client
                .request_url(Method::GET, Url::parse(foreign).unwrap())
                .build()
                .unwrap();
            assert!(
                request
                    .headers()
                    .get(reqwest::header::AUTHORIZATION)
                    .is_none(),
                "{foreign}"
            );
        }
    }

    #[test]
    fn token_debug_is_redacted() {
        assert!(!format!("{:?}", AccessToken::new("secret")).contains("secret"));
    }
}
