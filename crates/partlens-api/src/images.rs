//! Fetching the image URLs found in records and results (thumbnail, large image).
//!
//! The URLs are used exactly as given: they may carry their own short-lived `token` parameter, and
//! they may point at another host (a CDN). The bearer token goes only to the service's own origin.

use reqwest::Method;
use url::Url;

use super::client::{ApiClient, CALL_TIMEOUT};
use super::error::ApiError;

/// Largest image this client downloads; a bigger reply is refused rather than filling memory.
pub const MAX_IMAGE_BYTES: usize = 64 * 1024 * 1024;

impl ApiClient {
    /// Downloads an image URL from a record or a result. A relative URL is resolved against the
    /// service's address.
    pub async fn fetch_image(&self, url: &str) -> Result<bytes::Bytes, ApiError> {
        let trimmed = url.trim();
        if trimmed.is_empty() {
            return Err(ApiError::InvalidInput("this file has no image".into()));
        }
        let url = Url::parse(trimmed)
            .or_else(|_| self.base_url().join(trimmed))
            .map_err(|error| ApiError::InvalidInput(format!("bad image URL: {error}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ApiError::InvalidInput(
                "image URLs must be http or https".into(),
            ));
        }
        // Only the service's own answers say whether it is reachable (not another image host's).
        let own_origin = self.is_own_origin(&url);
        let request = self.request_url(Method::GET, url).timeout(CALL_TIMEOUT);
        let response = if own_origin {
            self.send_watched(request).await?
        } else {
            request.send().await?
        };
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(ApiError::from_status(status.as_u16(), &body));
        }
        if response
            .content_length()
            .is_some_and(|length| length as usize > MAX_IMAGE_BYTES)
        {
            return Err(ApiError::Decode("the image is larger than 64 MiB".into()));
        }
        let bytes = response.bytes().await?;
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(ApiError::Decode("the image is larger than 64 MiB".into()));
        }
        Ok(bytes)
    }
}
