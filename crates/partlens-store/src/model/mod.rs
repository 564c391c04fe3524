//! The store's model: what it keeps, as plain types, and the rules both engines keep about it (how
//! names and paths are compared, a file's caps, the text free text is searched in). No SQL and no
//! engine here: `sqlite/` and `postgres/` read and write these types, each in its own way.

pub mod accounts;
pub mod attributes;
pub mod callbacks;
pub mod categories;
pub mod feedback;
pub mod files;
pub mod jobs;
pub mod library;
pub mod pairs;
pub mod range;
pub mod relations;
pub mod search;
pub mod search_text;
pub mod transfer;
pub mod visual;

pub use accounts::{Caller, credential_stamp};
pub use attributes::{AttributeCaps, AttributeName, name_key, one_per_name, value_key};
pub use callbacks::{
    AttemptRecord, CallbackSettings, Delivery, DeliveryAttempt, DeliveryCounts, DeliveryState,
    NewDelivery,
};
pub use categories::{CATEGORY_ATTRIBUTE, Category};
pub use feedback::Feedback;
pub use files::{
    FileRecord, IndexState, IndexedContent, IndexingFailure, LoadedFile, NewContent, path_key,
};
pub use jobs::{ClaimedJob, QueueDepth};
pub use library::{ExtensionFilter, ListedPage, Listing};
pub use pairs::FilePair;
pub use range::{NumericRange, RangeSubject};
pub use relations::{NewRelation, Relation, RelationCount};
pub use search::Candidate;
pub use transfer::TableCount;
pub use visual::{CompanyViews, VisualChange};
