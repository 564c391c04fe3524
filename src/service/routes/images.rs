//! `GET /api/Image?fid=&type=&token=`: a file's thumbnail (`type=0`, JPEG) or large image (`type=1`,
//! PNG). Authenticated by the URL's own short-lived token, not the bearer token: 401 when it is
//! missing, expired or not for this image.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::service::disk::ImageKind;
use crate::service::error::ServiceError;
use crate::service::params::canonical_uid;
use crate::service::routes::Params;
use crate::service::state::AppState;
use crate::service::store::unix_now;

/// Serves one rendered image of a file.
pub async fn image(
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let uid = query
        .get("fid")
        .and_then(|fid| canonical_uid(fid, "fid").ok())
        .ok_or(ServiceError::Unauthorized)?;
    let kind = ImageKind::from_type_number(query.get("type").unwrap_or("0"))
        .ok_or(ServiceError::Unauthorized)?;
    let token = query.get("token").unwrap_or_default();
    if !state.image_links.verify(&uid, kind, token, unix_now()) {
        return Err(ServiceError::Unauthorized);
    }
    let path = state.disk.image_path(&uid, kind);
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ServiceError::NotFound(format!(
                "file {uid} has no such image"
            )));
        }
        Err(error) => return Err(error.into()),
    };
    let mut response = (StatusCode::OK, bytes).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(kind.content_type()),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=300"),
    );
    Ok(response)
}
