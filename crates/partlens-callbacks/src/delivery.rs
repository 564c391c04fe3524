//! One attempt to send a delivery: its URL checked and resolved ([`crate::address`]), one POST
//! to the checked addresses (pinned: no other DNS answer is used; no proxy; no redirect
//! followed), signed ([`crate::signing`]), within the time limit, the answer's body read to at
//! most [`MAX_ANSWER_BYTES`] and dropped.

use std::time::Duration;

use crate::address::{parse_url, resolve_checked};
use crate::retry::Verdict;
use crate::signing::{secret_key, signature};

/// The most of a receiver's answer read (the rest is not waited for).
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The most of a receiver's answer kept in the attempt's error, in characters.
const ANSWER_IN_ERROR: usize = 200;

/// Where a delivery goes and how it is signed.
#[derive(Clone, Debug)]
pub struct Target<'a> {
    /// The callback URL.
    pub url: &'a str,
    /// The signing secret (`whsec_…`).
    pub secret: &'a str,
    /// Private addresses allowed (`--allow-private-callbacks`).
    pub allow_private: bool,
    /// The time limit of the whole call.
    pub timeout: Duration,
}

/// How one attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The receiver's status, if it answered.
    pub status: Option<u16>,
    /// Why it did not deliver, in words (none for a 2xx).
    pub error: Option<String>,
    /// What it means for the delivery.
    pub verdict: Verdict,
}

impl Answer {
    /// An attempt that ended before an answer: `verdict` with the reason.
    fn without_status(verdict: Verdict, error: String) -> Self {
        Self {
            status: None,
            error: Some(error),
            verdict,
        }
    }
}

/// Sends `payload` as message `id` to `target`, once.
pub async fn send(target: &Target<'_>, id: &str, payload: &str) -> Answer {
    // A URL or secret that is no longer valid cannot become valid by waiting: refused.
    let url = match parse_url(target.url) {
        Ok(url) => url,
        Err(error) => return Answer::without_status(Verdict::Refused, error.to_string()),
    };
    let key = match secret_key(target.secret) {
        Ok(key) => key,
        Err(error) => return Answer::without_status(Verdict::Refused, error.to_string()),
    };
    // A name that does not resolve now, or resolves inside now, may resolve otherwise later.
    let addresses = match resolve_checked(&url, target.allow_private).await {
        Ok(addresses) => addresses,
        Err(error) => return Answer::without_status(Verdict::Retry, error.to_string()),
    };
    let client = match client_for(&url, &addresses, target.timeout) {
        Ok(client) => client,
        Err(error) => return Answer::without_status(Verdict::Retry, error),
    };
    let timestamp = chrono::Utc::now().timestamp();
    let sent = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("webhook-id", id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature(&key, id, timestamp, payload))
        .body(payload.to_owned())
        .send()
        .await;
    let mut response = match sent {
        Ok(response) => response,
        Err(error) => {
            return Answer::without_status(Verdict::Retry, format!("no answer: {error}"));
        }
    };
    let status = response.status().as_u16();
    let answer = read_some(&mut response).await;
    let verdict = Verdict::of(Some(status));
    Answer {
        status: Some(status),
        error: (verdict != Verdict::Delivered).then(|| {
            let shown: String = answer.chars().take(ANSWER_IN_ERROR).collect();
            format!("the receiver answered {status}: {shown}")
        }),
        verdict,
    }
}

/// A client that reaches `url`'s host only at `addresses` (already checked), without a proxy or
/// redirects, within `timeout`.
fn client_for(
    url: &url::Url,
    addresses: &[std::net::SocketAddr],
    timeout: Duration,
) -> Result<reqwest::Client, String> {
    // An error means a provider is installed already, which is all that is needed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout)
        .pool_max_idle_per_host(0)
        .user_agent(concat!("partlens-service/", env!("CARGO_PKG_VERSION")));
    if let Some(url::Host::Domain(name)) = url.host() {
        builder = builder.resolve_to_addrs(name, addresses);
    }
    builder
        .build()
        .map_err(|error| format!("cannot set up HTTP: {error}"))
}

/// The start of the answer's body (at most [`MAX_ANSWER_BYTES`] read), as text.
async fn read_some(response: &mut reqwest::Response) -> String {
    let mut body = Vec::new();
    while body.len() < MAX_ANSWER_BYTES {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    body.truncate(MAX_ANSWER_BYTES);
    String::from_utf8_lossy(&body).into_owned()
}
