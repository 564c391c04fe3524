//! Uploads: `PUT /api/File` (JSON string of base64), `PUT /api/FileBinary` (raw bytes, UID reply) and
//! `PUT /api/FileBinaryDirect` (raw bytes, FileMap reply).
//!
//! Bodies are streamed from disk in fixed-size chunks (the base64 one too, encoded chunk by chunk), so
//! memory does not grow with the file, and every chunk handed to the connection is reported as progress.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::StreamExt as _;
use reqwest::Method;
use tokio::io::{AsyncRead, AsyncReadExt as _};

use super::attribute::Attribute;
use super::client::{ApiClient, parse_json};
use super::encoding::{
    QueryString, base64_encode, base64_len, file_extension, nested_attributes_query, plain_reply,
};
use super::error::ApiError;
use super::limits::MIN_UPLOAD_SIZE;
use super::model::FileMap;
use super::uid::FileUid;

/// Raw bytes read per chunk; a multiple of 3 so every base64 chunk but the last has no padding.
const CHUNK_BYTES: usize = 3 * 21_846; // 65 538 bytes

/// Called with (bytes sent so far, total bytes) as the body goes out.
pub type ProgressFn = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// Where the bytes of an upload come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadSource {
    /// A file on disk, streamed.
    Path(PathBuf),
    /// Bytes in memory with the file name they stand for (its extension matters).
    Bytes {
        /// The file name, for the extension.
        name: String,
        /// The content.
        bytes: bytes::Bytes,
    },
}

impl UploadSource {
    /// The file name (last path component).
    pub fn file_name(&self) -> String {
        match self {
            Self::Path(path) => path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Self::Bytes { name, .. } => name.clone(),
        }
    }

    /// The size in bytes. A folder is refused here, before anything is sent (reading it would fail
    /// only while the body streams, looking like a network failure).
    pub async fn size(&self) -> Result<u64, ApiError> {
        match self {
            Self::Path(path) => {
                let meta = tokio::fs::metadata(path)
                    .await
                    .map_err(|error| file_error(path, error))?;
                if meta.is_dir() {
                    return Err(ApiError::File {
                        path: path.display().to_string(),
                        message: "it is a folder, not a file".into(),
                    });
                }
                Ok(meta.len())
            }
            Self::Bytes { bytes, .. } => Ok(bytes.len() as u64),
        }
    }

    /// Opens the content for reading.
    pub async fn open(&self) -> Result<Box<dyn AsyncRead + Send + Unpin>, ApiError> {
        match self {
            Self::Path(path) => {
                let file = tokio::fs::File::open(path)
                    .await
                    .map_err(|error| file_error(path, error))?;
                Ok(Box::new(file))
            }
            Self::Bytes { bytes, .. } => Ok(Box::new(std::io::Cursor::new(bytes.clone()))),
        }
    }

    /// Reads the whole content (for `PUT /api/Search`, at most ten files).
    pub async fn read_all(&self) -> Result<Vec<u8>, ApiError> {
        match self {
            Self::Path(path) => tokio::fs::read(path)
                .await
                .map_err(|error| file_error(path, error)),
            Self::Bytes { bytes, .. } => Ok(bytes.to_vec()),
        }
    }
}

fn file_error(path: &Path, error: std::io::Error) -> ApiError {
    ApiError::File {
        path: path.display().to_string(),
        message: error.to_string(),
    }
}

/// What the uploaded file becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadRole {
    /// A temporary search input (`isSearchInput=true`, `file=<extension>`).
    SearchInput,
    /// A company-database file stored at a full path (`isSearchInput=false`, `file=<folder>/<name>.<ext>`),
    /// with attributes (sent as the nested `attributes=` query string).
    Database {
        /// Full stored path, `<folder>/<name>.<ext>`.
        stored_path: String,
        /// Attributes to apply.
        attributes: Vec<Attribute>,
    },
}

/// Which upload endpoint carries the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum UploadEncoding {
    /// `PUT /api/FileBinary`: raw bytes; replies with the UID.
    #[default]
    Binary,
    /// `PUT /api/File`: a JSON string of base64; replies with the UID.
    Base64,
    /// `PUT /api/FileBinaryDirect`: raw bytes; replies with the file record (no `indexAsync`).
    Direct,
}

/// Everything an upload can say; the optional parameters are sent only when set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadRequest {
    /// The bytes.
    pub source: UploadSource,
    /// Search input or company-database file.
    pub role: UploadRole,
    /// Which endpoint.
    pub encoding: UploadEncoding,
    /// Queue for indexing and return at once (search inputs; not for `.zip`, not on Direct).
    pub index_async: bool,
    /// Required only for companies that use file categories.
    pub category_id: Option<i64>,
    /// Skip shape indexing.
    pub text_only: Option<bool>,
    /// Choose the UID (a GUID); an existing file with that UID is overwritten.
    pub uid: Option<FileUid>,
    /// Duplicate-path behaviour for database uploads.
    pub overwrite_file: Option<bool>,
    /// Also index assembly components.
    pub index_assembly_components: Option<bool>,
    /// Included in the callback payload when callbacks are configured.
    pub callback_param: Option<String>,
    /// Only when the service operator says so.
    pub account_name: Option<String>,
    /// Legacy: the bytes are gzipped.
    pub is_gzip_compressed: Option<bool>,
    /// Internal only.
    pub qr_code_id: Option<String>,
    /// Do not use unless instructed.
    pub attr_template: Option<String>,
    /// Legacy, no effect.
    pub rm_if_dup: Option<bool>,
    /// Deprecated, ignored.
    pub is_priority: Option<bool>,
    /// Direct only: include shapelet detail in the returned record.
    pub include_shapelets: Option<bool>,
    /// Direct only: page or view selector.
    pub lg_file_number: Option<String>,
    /// Direct only: internal/mobile.
    pub include_shapes: Option<bool>,
}

impl UploadRequest {
    /// A search-input upload of a file, binary, synchronous.
    pub fn search_input(source: UploadSource) -> Self {
        Self::new(source, UploadRole::SearchInput)
    }

    /// A company-database upload of a file at a stored path, binary.
    pub fn database(
        source: UploadSource,
        stored_path: impl Into<String>,
        attributes: Vec<Attribute>,
    ) -> Self {
        Self::new(
            source,
            UploadRole::Database {
                stored_path: stored_path.into(),
                attributes,
            },
        )
    }

    fn new(source: UploadSource, role: UploadRole) -> Self {
        Self {
            source,
            role,
            encoding: UploadEncoding::Binary,
            index_async: false,
            category_id: None,
            text_only: None,
            uid: None,
            overwrite_file: None,
            index_assembly_components: None,
            callback_param: None,
            account_name: None,
            is_gzip_compressed: None,
            qr_code_id: None,
            attr_template: None,
            rm_if_dup: None,
            is_priority: None,
            include_shapelets: None,
            lg_file_number: None,
            include_shapes: None,
        }
    }

    /// The `file` parameter: the extension for a search input, the stored path for a database file.
    pub fn file_param(&self) -> String {
        match &self.role {
            UploadRole::SearchInput => file_extension(&self.source.file_name()),
            UploadRole::Database { stored_path, .. } => stored_path.clone(),
        }
    }

    /// Checks the interface's rules against a body of `size` bytes; nothing is sent when this fails.
    pub fn validate(&self, size: u64) -> Result<(), ApiError> {
        let measured = match self.encoding {
            UploadEncoding::Base64 => base64_len(size),
            UploadEncoding::Binary | UploadEncoding::Direct => size,
        };
        if measured < MIN_UPLOAD_SIZE {
            let what = match self.encoding {
                UploadEncoding::Base64 => format!("{measured} base64 characters"),
                _ => format!("{measured} bytes"),
            };
            return Err(ApiError::InvalidInput(format!(
                "{} is too small to upload: {what}, the service needs at least {MIN_UPLOAD_SIZE}",
                self.source.file_name()
            )));
        }
        let file_param = self.file_param();
        if file_param.is_empty() {
            return Err(ApiError::InvalidInput(format!(
                "{} has no file extension; the service needs one to know the format",
                self.source.file_name()
            )));
        }
        if self.index_async && self.encoding == UploadEncoding::Direct {
            return Err(ApiError::InvalidInput(
                "asynchronous indexing is not available with the direct upload".into(),
            ));
        }
        if self.index_async
            && matches!(self.role, UploadRole::SearchInput)
            && file_param.ends_with(".zip")
        {
            return Err(ApiError::InvalidInput(
                ".zip search inputs cannot be indexed asynchronously; upload without async".into(),
            ));
        }
        if let Some(uid) = &self.uid
            && !uid.is_guid()
        {
            return Err(ApiError::InvalidInput(format!(
                "uid \"{uid}\" is not a GUID"
            )));
        }
        if let UploadRole::Database {
            stored_path,
            attributes,
        } = &self.role
        {
            if stored_path.trim().is_empty() || stored_path.ends_with('/') {
                return Err(ApiError::InvalidInput(
                    "a database file needs a stored path <folder>/<name>.<ext>".into(),
                ));
            }
            for attribute in attributes {
                attribute.validate()?;
            }
        }
        Ok(())
    }

    fn query(&self) -> QueryString {
        let mut query = QueryString::new();
        query.push("file", self.file_param());
        match &self.role {
            UploadRole::SearchInput => {
                query.push("isSearchInput", "true");
            }
            UploadRole::Database { attributes, .. } => {
                query.push("isSearchInput", "false");
                if !attributes.is_empty() {
                    let pairs: Vec<(String, String)> = attributes
                        .iter()
                        .map(|attribute| (attribute.wire_name(), attribute.joined_values()))
                        .collect();
                    query.push("attributes", nested_attributes_query(&pairs));
                }
            }
        }
        if self.index_async {
            query.push("indexAsync", "true");
        }
        query
            .push_opt("isGZipCompressed", self.is_gzip_compressed)
            .push_opt("QRCodeId", self.qr_code_id.as_ref())
            .push_opt("categoryId", self.category_id)
            .push_opt("textOnly", self.text_only)
            .push_opt("attrTemplate", self.attr_template.as_ref())
            .push_opt("uid", self.uid.as_ref())
            .push_opt("rmIfDup", self.rm_if_dup)
            .push_opt("isPriority", self.is_priority)
            .push_opt("overwriteFile", self.overwrite_file)
            .push_opt("indexAssemblyComponents", self.index_assembly_components)
            .push_opt("callbackParam", self.callback_param.as_ref())
            .push_opt("accountName", self.account_name.as_ref());
        if self.encoding == UploadEncoding::Direct {
            query
                .push_opt("includeShapelets", self.include_shapelets)
                .push_opt("lgFileNumber", self.lg_file_number.as_ref())
                .push_opt("includeShapes", self.include_shapes);
        }
        query
    }
}

/// What an upload returns: the UID, and the record when the direct endpoint was used.
#[derive(Clone, Debug, PartialEq)]
pub struct UploadOutcome {
    /// The file's UID.
    pub uid: FileUid,
    /// The file record (direct upload only).
    pub record: Option<FileMap>,
}

impl ApiClient {
    /// Uploads a file. The request is checked first (size minimum, `.zip` with async, UID form,
    /// attributes); then the body streams from the source, reporting progress.
    pub async fn upload(
        &self,
        request: &UploadRequest,
        progress: Option<ProgressFn>,
    ) -> Result<UploadOutcome, ApiError> {
        let size = request.source.size().await?;
        request.validate(size)?;
        let reader = request.source.open().await?;
        let (path, content_type, body, content_length) = match request.encoding {
            UploadEncoding::Binary => (
                "api/FileBinary",
                "application/octet-stream",
                raw_body(reader, size, progress),
                size,
            ),
            UploadEncoding::Direct => (
                "api/FileBinaryDirect",
                "application/octet-stream",
                raw_body(reader, size, progress),
                size,
            ),
            UploadEncoding::Base64 => (
                "api/File",
                "application/json",
                base64_string_body(reader, size, progress),
                base64_len(size) + 2,
            ),
        };
        let builder = self
            .request(Method::PUT, path, &request.query())?
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .header(reqwest::header::CONTENT_LENGTH, content_length)
            .body(reqwest::Body::wrap_stream(body));
        let reply = self.send(builder, &[]).await?;
        if request.encoding == UploadEncoding::Direct {
            let record: FileMap = parse_json(&reply.body, "file record")?;
            Ok(UploadOutcome {
                uid: record.file_uid(),
                record: Some(record),
            })
        } else {
            let uid = plain_reply(&reply.body);
            if uid.is_empty() {
                return Err(ApiError::Decode("the upload reply has no UID".into()));
            }
            Ok(UploadOutcome {
                uid: FileUid::from_reply(&uid),
                record: None,
            })
        }
    }
}

/// Reads up to `CHUNK_BYTES` (less only at the end of the file).
async fn read_chunk(reader: &mut (dyn AsyncRead + Send + Unpin)) -> std::io::Result<Vec<u8>> {
    let mut chunk = vec![0u8; CHUNK_BYTES];
    let mut filled = 0;
    while filled < CHUNK_BYTES {
        let read = reader.read(&mut chunk[filled..]).await?;
        if read == 0 {
            break;
        }
        filled += read;
    }
    chunk.truncate(filled);
    Ok(chunk)
}

/// A stream of body chunks.
type ChunkStream = futures_util::stream::BoxStream<'static, std::io::Result<bytes::Bytes>>;

/// The file's chunks as they are read, each reported as progress (bytes read so far of `total`) and
/// then turned into body bytes by `encode`.
fn chunk_stream(
    reader: Box<dyn AsyncRead + Send + Unpin>,
    total: u64,
    progress: Option<ProgressFn>,
    encode: fn(Vec<u8>) -> bytes::Bytes,
) -> ChunkStream {
    let stream = futures_util::stream::unfold((reader, 0u64), move |(mut reader, sent)| {
        let progress = progress.clone();
        async move {
            match read_chunk(reader.as_mut()).await {
                Ok(chunk) if chunk.is_empty() => None,
                Ok(chunk) => {
                    let sent = sent + chunk.len() as u64;
                    if let Some(progress) = &progress {
                        progress(sent, total);
                    }
                    Some((Ok(encode(chunk)), (reader, sent)))
                }
                Err(error) => Some((Err(error), (reader, sent))),
            }
        }
    });
    stream.take_while_ok()
}

/// The raw bytes, chunk by chunk, with progress.
fn raw_body(
    reader: Box<dyn AsyncRead + Send + Unpin>,
    total: u64,
    progress: Option<ProgressFn>,
) -> ChunkStream {
    chunk_stream(reader, total, progress, bytes::Bytes::from)
}

/// `"` + base64 of each chunk + `"`, with progress counted in raw bytes. Chunks are a multiple of 3
/// bytes, so the base64 pieces join without padding in between.
fn base64_string_body(
    reader: Box<dyn AsyncRead + Send + Unpin>,
    total: u64,
    progress: Option<ProgressFn>,
) -> ChunkStream {
    let quote = || {
        futures_util::stream::once(async {
            Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"\""))
        })
    };
    let content = chunk_stream(reader, total, progress, |chunk| {
        bytes::Bytes::from(base64_encode(&chunk))
    });
    quote().chain(content).chain(quote()).boxed()
}

/// Ends a stream after its first error (the error is still passed on, so the request fails).
trait TakeWhileOk: futures_util::Stream + Sized {
    fn take_while_ok(self) -> futures_util::stream::BoxStream<'static, Self::Item>;
}

impl<S, T> TakeWhileOk for S
where
    S: futures_util::Stream<Item = std::io::Result<T>> + Send + 'static,
    T: Send + 'static,
{
    fn take_while_ok(self) -> futures_util::stream::BoxStream<'static, Self::Item> {
        let mut failed = false;
        self.take_while(move |item| {
            let keep = !failed;
            failed |= item.is_err();
            std::future::ready(keep)
        })
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_source(name: &str, size: usize) -> UploadSource {
        UploadSource::Bytes {
            name: name.into(),
            bytes: bytes::Bytes::from(vec![7u8; size]),
        }
    }

    #[test]
    fn minimum_size_is_measured_per_endpoint() {
        let small = UploadRequest::search_input(bytes_source("a.png", 1023));
        assert!(
            small
                .validate(1023)
                .unwrap_err()
                .to_string()
                .contains("1024")
        );
        assert!(
            UploadRequest::search_input(bytes_source("a.png", 1024))
                .validate(1024)
                .is_ok()
        );
        // base64 of 766 bytes is 1024 characters: enough for PUT /api/File, not for the binary endpoint.
        let mut json = UploadRequest::search_input(bytes_source("a.png", 766));
        json.encoding = UploadEncoding::Base64;
        assert!(json.validate(766).is_ok());
        assert!(json.validate(765).is_err());
    }

    #[test]
    fn zip_cannot_be_indexed_asynchronously() {
        let mut request = UploadRequest::search_input(bytes_source("parts.zip", 4096));
        request.index_async = true;
        assert!(
            request
                .validate(4096)
                .unwrap_err()
                .to_string()
                .contains(".zip")
        );
        request.index_async = false;
        assert!(request.validate(4096).is_ok());
    }

    #[test]
    fn uid_must_be_a_guid() {
        let mut request = UploadRequest::search_input(bytes_source("a.png", 4096));
        request.uid = Some(FileUid::from_reply("not-a-guid"));
        assert!(request.validate(4096).is_err());
        request.uid = Some(FileUid::new_random());
        assert!(request.validate(4096).is_ok());
    }

    #[test]
    fn database_upload_sends_path_and_nested_attributes() {
        let attributes = vec![
            Attribute::parse("material=steel").unwrap(),
            Attribute::parse("region=EU|US").unwrap(),
            Attribute::parse("weight(kg)=12.3").unwrap(),
        ];
        let request = UploadRequest::database(
            bytes_source("bracket.png", 4096),
            "Design/bracket.png",
            attributes,
        );
        assert_eq!(
            request.query().to_string(),
            "file=Design%2Fbracket.png&isSearchInput=false&attributes=material%3Dsteel%26region%3DEU%257CUS%26weight%2528kg%2529%3D12.3"
        );
    }

    #[test]
    fn search_input_query_sends_only_what_is_set() {
        let mut request = UploadRequest::search_input(bytes_source("a.PNG", 4096));
        request.index_async = true;
        request.callback_param = Some("job 7".into());
        assert_eq!(
            request.query().to_string(),
            "file=.png&isSearchInput=true&indexAsync=true&callbackParam=job%207"
        );
    }

    #[tokio::test]
    async fn base64_body_streams_the_same_text_as_encoding_at_once() {
        let content: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let source = UploadSource::Bytes {
            name: "x.png".into(),
            bytes: bytes::Bytes::from(content.clone()),
        };
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen_in = seen.clone();
        let progress: ProgressFn =
            Arc::new(move |sent, total| seen_in.lock().unwrap().push((sent, total)));
        let body = base64_string_body(
            source.open().await.unwrap(),
            content.len() as u64,
            Some(progress),
        );
        let mut stream = body;
        let mut text = Vec::new();
        while let Some(chunk) = stream.next().await {
            text.extend_from_slice(&chunk.unwrap());
        }
        assert_eq!(
            String::from_utf8(text).unwrap(),
            crate::encoding::base64_file_body(&content)
        );
        let seen = seen.lock().unwrap();
        assert_eq!(seen.last(), Some(&(200_000, 200_000)));
        assert!(seen.len() >= 3, "progress came in chunks: {seen:?}");
    }
}
