//! The wire protocol of the File Indexing and Search Service: one async method per endpoint on
//! [`ApiClient`], typed requests and replies, the legacy encodings, statuses mapped to [`ApiError`].
//!
//! No egui and no spawning here. `model`, `encoding`, `attribute`, `filter`, `limits`, `uid` and
//! `error` are the wire types, shared with the service, which decodes what this layer encodes; the
//! client (everything that sends a request, over reqwest) is built only with the `client` feature,
//! so that the service does not build an HTTP client.

pub mod attribute;
#[cfg(feature = "client")]
pub mod attributes;
pub mod callbacks;
pub mod categories;
#[cfg(feature = "client")]
pub mod client;
pub mod duplicates;
pub mod encoding;
pub mod error;
#[cfg(feature = "client")]
pub mod files;
pub mod filter;
#[cfg(feature = "client")]
pub mod images;
pub mod library;
pub mod limits;
pub mod model;
#[cfg(feature = "client")]
pub mod pmi;
pub mod range;
#[cfg(feature = "client")]
pub mod relation_walk;
pub mod relations;
#[cfg(feature = "client")]
pub mod reply;
#[cfg(feature = "client")]
pub mod search;
pub mod search_options;
#[cfg(feature = "client")]
pub mod status;
#[cfg(feature = "client")]
pub mod token;
pub mod uid;
#[cfg(feature = "client")]
pub mod upload;

pub use attribute::Attribute;
pub use callbacks::{
    CallbackDelivery, CallbackOverview, CallbackSettingsView, CallbackTestOutcome, CallbackUpdate,
};
pub use categories::FileCategory;
#[cfg(feature = "client")]
pub use client::{AccessToken, ApiClient, ReachabilityWatch};
pub use error::ApiError;
#[cfg(feature = "client")]
pub use files::{FileRef, GetFileRequest};
pub use filter::{FilterTerm, SearchFilter};
pub use model::{
    AttributeValue, FAILURE_REASON_FIELD, FAILURE_REASON_HEADER, FileAttribute, FileMap,
    FileStatus, PmiData, PmiDimension, PmiItem, PmiPage, PmiTolerance, SearchResult,
    SearchResultItem, TokenReply,
};
#[cfg(feature = "client")]
pub use pmi::FeedbackRequest;
#[cfg(feature = "client")]
pub use relation_walk::{RelationNode, RelationTree, WalkDirection, WalkLimits, WalkStop};
pub use relations::{Relation, RelationCounts};
#[cfg(feature = "client")]
pub use reply::{Decoded, FileRecord};
#[cfg(feature = "client")]
pub use search::SearchRequest;
pub use search_options::SearchOptions;
#[cfg(feature = "client")]
pub use token::Credentials;
pub use uid::FileUid;
#[cfg(feature = "client")]
pub use upload::{
    ProgressFn, UploadEncoding, UploadOutcome, UploadRequest, UploadRole, UploadSource,
};
