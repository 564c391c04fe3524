//! The wire protocol of the File Indexing and Search Service: one async method per endpoint on
//! [`ApiClient`], typed requests and replies, the legacy encodings, statuses mapped to [`ApiError`].
//!
//! No egui and no spawning here. `model`, `encoding`, `attribute`, `filter`, `limits` and `uid` are
//! shared with the local service, which decodes what this layer encodes.

pub mod attribute;
pub mod attributes;
pub mod client;
pub mod encoding;
pub mod error;
pub mod files;
pub mod filter;
pub mod images;
pub mod limits;
pub mod model;
pub mod pmi;
pub mod reply;
pub mod search;
pub mod status;
pub mod token;
pub mod uid;
pub mod upload;

pub use attribute::Attribute;
pub use client::{AccessToken, ApiClient};
pub use error::ApiError;
pub use files::{FileRef, GetFileRequest};
pub use filter::{FilterTerm, SearchFilter};
pub use model::{
    AttributeValue, FAILURE_REASON_FIELD, FAILURE_REASON_HEADER, FileAttribute, FileMap,
    FileStatus, PmiData, PmiItem, PmiPage, SearchResult, SearchResultItem, TokenReply,
};
pub use pmi::FeedbackRequest;
pub use reply::{Decoded, FileRecord};
pub use search::SearchRequest;
pub use token::Credentials;
pub use uid::FileUid;
pub use upload::{
    ProgressFn, UploadEncoding, UploadOutcome, UploadRequest, UploadRole, UploadSource,
};
