//! `GET /api/File` and `DELETE /api/File`: file records.

use reqwest::Method;

use super::client::{ApiClient, CALL_TIMEOUT, parse_json};
use super::encoding::{QueryString, bool_reply};
use super::error::ApiError;
use super::model::FileMap;
use super::reply::FileRecord;
use super::uid::FileUid;

/// Which file a call is about: by UID or by full stored path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRef {
    /// By UID (`fileUID=`).
    Uid(FileUid),
    /// By full stored path (`fileName=`), resolved to a UID by the service.
    Name(String),
}

impl FileRef {
    /// Adds `fileUID=` or `fileName=` to a query.
    pub fn push_to(&self, query: &mut QueryString) {
        match self {
            Self::Uid(uid) => query.push("fileUID", uid.as_str()),
            Self::Name(name) => query.push("fileName", name.as_str()),
        };
    }

    /// Refuses an empty stored path.
    pub fn validate(&self) -> Result<(), ApiError> {
        match self {
            Self::Name(name) if name.trim().is_empty() => Err(ApiError::InvalidInput(
                "give a file UID or a stored path".into(),
            )),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Display for FileRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Uid(uid) => write!(f, "{uid}"),
            Self::Name(name) => write!(f, "{name}"),
        }
    }
}

/// The parameters of `GET /api/File`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetFileRequest {
    /// The file, by UID or stored path.
    pub file: FileRef,
    /// Adds shapelet, page and image detail.
    pub include_shapelets: Option<bool>,
    /// Page or view selector for multi-page files.
    pub lg_file_number: Option<String>,
    /// Internal/mobile only; not sent unless set.
    pub include_shapes: Option<bool>,
    /// Only when the service operator says so.
    pub account_name: Option<String>,
}

impl GetFileRequest {
    /// A plain request for one file.
    pub fn new(file: FileRef) -> Self {
        Self {
            file,
            include_shapelets: None,
            lg_file_number: None,
            include_shapes: None,
            account_name: None,
        }
    }

    fn query(&self) -> QueryString {
        let mut query = QueryString::new();
        self.file.push_to(&mut query);
        query
            .push_opt("includeShapelets", self.include_shapelets)
            .push_opt("lgFileNumber", self.lg_file_number.as_ref())
            .push_opt("includeShapes", self.include_shapes)
            .push_opt("accountName", self.account_name.as_ref());
        query
    }
}

impl ApiClient {
    /// Fetches a file record as the service sent it (every field, as JSON).
    pub async fn get_file_json(
        &self,
        request: &GetFileRequest,
    ) -> Result<serde_json::Value, ApiError> {
        request.file.validate()?;
        let builder = self
            .request(Method::GET, "api/File", &request.query())?
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        let value: serde_json::Value = parse_json(&reply.body, "file record")?;
        if value.is_null() {
            return Err(ApiError::NotFound {
                message: format!("no file {}", request.file),
            });
        }
        Ok(value)
    }

    /// Fetches a file record, decoded, with the JSON beside it (for views that show every field).
    pub async fn get_file_decoded(&self, request: &GetFileRequest) -> Result<FileRecord, ApiError> {
        FileRecord::from_json(self.get_file_json(request).await?, "file record")
    }

    /// Fetches a file record.
    pub async fn get_file(&self, request: &GetFileRequest) -> Result<FileMap, ApiError> {
        Ok(self.get_file_decoded(request).await?.value)
    }

    /// Deletes a file. 403 (not permitted) and 404 (unknown or already deleted) come back as
    /// [`ApiError::Forbidden`] and [`ApiError::NotFound`].
    pub async fn delete_file(
        &self,
        uid: &FileUid,
        account_name: Option<&str>,
    ) -> Result<(), ApiError> {
        let mut query = QueryString::new();
        query
            .push("fileUID", uid.as_str())
            .push_opt("accountName", account_name);
        let builder = self
            .request(Method::DELETE, "api/File", &query)?
            .timeout(CALL_TIMEOUT);
        let reply = self.send(builder, &[]).await?;
        // 200 carries `true`; a 2xx that says `false` did not delete anything.
        match bool_reply(&reply.body) {
            Ok(false) => Err(ApiError::Server {
                status: reply.status,
                message: "the service answered false".into(),
            }),
            Ok(true) | Err(_) => Ok(()),
        }
    }
}
