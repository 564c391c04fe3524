//! `GET /api/Image?fid=&type=&token=`: a file's thumbnail (`type=0`, JPEG) or large image (`type=1`,
//! PNG), of page `page=N` of a drawing (absent: page 1, the file's own pictures). Authenticated by the URL's own short-lived token, not the bearer token: 401 when it is
//! missing, expired, not for this image, or no longer bound to what it was made for (the user's
//! password was reset, the file was overwritten or deleted, its UID now belongs to another
//! company's file).

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::blobs::BlobKey;
use crate::disk::ImageKind;
use crate::error::ServiceError;
use crate::image_links::{LinkBinding, LinkToken, Linked};
use crate::params::canonical_uid;
use crate::routes::Params;
use crate::state::AppState;
use partlens_api::encoding::QueryString;
use partlens_store::model::FileRecord;
use partlens_store::unix_now;

/// Serves one rendered image of a file: of its page `page` (from 1; absent: 1) for a drawing.
pub async fn image(
    State(state): State<AppState>,
    Params(query): Params,
) -> Result<Response, ServiceError> {
    let kind = ImageKind::from_type_number(query.get("type").unwrap_or("0"))
        .ok_or(ServiceError::Unauthorized)?;
    let page = match query.get("page") {
        None => 1,
        Some(page) => page
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|page| *page >= 1)
            .ok_or(ServiceError::Unauthorized)?,
    };
    let (uid, _) = verified_link(&state, &query, Linked::Image { kind, page }).await?;
    let key = if page <= 1 {
        BlobKey::Image(&uid, kind)
    } else {
        BlobKey::PageImage(&uid, page, kind)
    };
    let Some(bytes) = state.blobs.read(key).await? else {
        return Err(ServiceError::NotFound(format!(
            "file {uid} has no such image"
        )));
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

/// Checks the link of a request (`fid` and `token`) for what `linked` names: the canonical UID and
/// the record, or 401 when the token is missing, expired, not for this, or no longer bound to what
/// it was made for.
pub async fn verified_link(
    state: &AppState,
    query: &QueryString,
    linked: Linked,
) -> Result<(String, FileRecord), ServiceError> {
    let uid = query
        .get("fid")
        .and_then(|fid| canonical_uid(fid, "fid").ok())
        .ok_or(ServiceError::Unauthorized)?;
    let token = query
        .get("token")
        .and_then(LinkToken::parse)
        .ok_or(ServiceError::Unauthorized)?;
    let now = unix_now();
    // An expired token is refused before the store is asked anything.
    if token.expires_at <= now {
        return Err(ServiceError::Unauthorized);
    }
    let (user_id, lookup_uid) = (token.user_id, uid.clone());
    let (user, record) = state
        .store
        .read_tx(move |tx| -> Result<_, ServiceError> {
            Ok((
                tx.credential_of_user(user_id)?,
                tx.find_any_file(&lookup_uid)?,
            ))
        })
        .await?;
    let (Some((user_company, credential_stamp)), Some(record)) = (user, record) else {
        return Err(ServiceError::Unauthorized);
    };
    let binding = LinkBinding {
        user_id,
        credential_stamp: &credential_stamp,
        company_id: &record.company_id,
        generation: &record.uploaded_at,
    };
    if user_company != record.company_id
        || !state
            .image_links
            .verify(&uid, linked, &token, now, &binding)
    {
        return Err(ServiceError::Unauthorized);
    }
    Ok((uid, record))
}
