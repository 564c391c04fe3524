//! `GET /api/FileStatus`: the indexing state of an upload, with the reason a failed one gives in
//! the `X-Failure-Reason` header (this project's service sends it; others may not).

use reqwest::Method;

use super::client::{ApiClient, CALL_TIMEOUT};
use super::encoding::{QueryString, plain_reply};
use super::error::ApiError;
use super::model::{FAILURE_REASON_HEADER, FileStatus};
use super::uid::FileUid;

/// Reads a FileStatus reply: 204 in progress, 200 completed with its timestamp, 422 failed, 404 unknown.
pub fn file_status_from_reply(status: u16, body: &str) -> Result<FileStatus, ApiError> {
    match status {
        204 => Ok(FileStatus::InProgress),
        200 => {
            let indexed_at = plain_reply(body);
            if indexed_at.is_empty() {
                // Some proxies turn an empty 204 into 200; an empty 200 is still "not finished".
                Ok(FileStatus::InProgress)
            } else {
                Ok(FileStatus::Completed { indexed_at })
            }
        }
        422 => Ok(FileStatus::Failed { reason: None }),
        404 => Ok(FileStatus::Unknown),
        other => Err(ApiError::from_status(other, body)),
    }
}

impl ApiClient {
    /// Asks for the indexing state of a file.
    pub async fn file_status(&self, uid: &FileUid) -> Result<FileStatus, ApiError> {
        let mut query = QueryString::new();
        query.push("fileUID", uid.as_str());
        let builder = self
            .request(Method::GET, "api/FileStatus", &query)?
            .timeout(CALL_TIMEOUT);
        let response = self.send_watched(builder).await?;
        let status = response.status().as_u16();
        let failure_reason = response
            .headers()
            .get(FAILURE_REASON_HEADER)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|reason| !reason.is_empty())
            .map(str::to_owned);
        let body = response.text().await?;
        Ok(match file_status_from_reply(status, &body)? {
            FileStatus::Failed { .. } => FileStatus::Failed {
                reason: failure_reason,
            },
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_outcome() {
        assert_eq!(
            file_status_from_reply(204, "").unwrap(),
            FileStatus::InProgress
        );
        assert_eq!(
            file_status_from_reply(200, "\"2026-11-22T04:53:09.123Z\"").unwrap(),
            FileStatus::Completed {
                indexed_at: "2026-11-22T04:53:09.123Z".into()
            }
        );
        assert_eq!(
            file_status_from_reply(200, "2026-11-22T04:53:09Z").unwrap(),
            FileStatus::Completed {
                indexed_at: "2026-11-22T04:53:09Z".into()
            }
        );
        assert_eq!(
            file_status_from_reply(422, "failed").unwrap(),
            FileStatus::Failed { reason: None }
        );
        assert_eq!(
            file_status_from_reply(404, "{\"title\":\"Not Found\"}").unwrap(),
            FileStatus::Unknown
        );
        assert_eq!(
            file_status_from_reply(401, "").unwrap_err(),
            ApiError::Unauthorized
        );
        assert!(matches!(
            file_status_from_reply(400, "fileUID missing"),
            Err(ApiError::BadRequest { .. })
        ));
        assert!(matches!(
            file_status_from_reply(500, ""),
            Err(ApiError::Server { .. })
        ));
    }
}
