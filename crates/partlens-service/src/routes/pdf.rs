//! `GET /api/Pdf?fid=&token=`: a stored PDF as it was uploaded, served inline (`application/pdf`)
//! for a browser's PDF viewer: the record's `PDFUrl`. Authenticated as the images are, by the URL's
//! own short-lived token (see `image_links.rs`), never the bearer token: 401 without one that holds.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::blobs::BlobKey;
use crate::error::ServiceError;
use crate::image_links::Linked;
use crate::routes::Params;
use crate::routes::images::verified_link;
use crate::state::AppState;

/// Serves the stored bytes of a PDF file.
pub async fn pdf(
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let (uid, record) = verified_link(&state, &query, Linked::Pdf).await?;
    if !record.extension.eq_ignore_ascii_case(".pdf") {
        return Err(ServiceError::NotFound(format!("file {uid} is not a PDF")));
    }
    let Some(bytes) = state.blobs.read(BlobKey::Content(&uid)).await? else {
        return Err(ServiceError::NotFound(format!(
            "the stored bytes of file {uid} are missing"
        )));
    };
    let disposition = format!(
        "inline; filename=\"{}\"",
        header_file_name(&record.display_name)
    );
    let mut response = (StatusCode::OK, bytes).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/pdf"),
    );
    if let Ok(disposition) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=300"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    Ok(response)
}

/// A display name as a header's file name: its last part, letters, digits and `.-_ ` kept, the
/// rest `_` (a name of nothing usable is `file.pdf`).
fn header_file_name(display_name: &str) -> String {
    let last = display_name.rsplit(['/', '\\']).next().unwrap_or_default();
    let kept: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ' ') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if kept.trim_matches(['_', '.', ' ']).is_empty() {
        "file.pdf".to_owned()
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_in_the_header_is_plain_ascii() {
        assert_eq!(header_file_name("plans/Base plate.pdf"), "Base plate.pdf");
        assert_eq!(header_file_name("a\"b\r\nc.pdf"), "a_b__c.pdf");
        assert_eq!(header_file_name("Zeichnung-Ä.pdf"), "Zeichnung-_.pdf");
        assert_eq!(header_file_name("\"\""), "file.pdf");
    }
}
