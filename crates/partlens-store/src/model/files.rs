//! File records: who uploaded what, where it is stored, its indexing state and what indexing
//! learned.

/// The indexing state of a file, as `GET /api/FileStatus` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexState {
    /// Waiting for a worker (204).
    Queued,
    /// Being indexed (204).
    InProgress,
    /// Indexed (200 with the timestamp).
    Completed,
    /// The content could not be indexed (422).
    Failed,
}

impl IndexState {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }

    /// The state stored as `text` (an unknown name reads as queued).
    pub fn parse(text: &str) -> Self {
        match text {
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            "in_progress" => Self::InProgress,
            _ => Self::Queued,
        }
    }
}

/// One stored file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileRecord {
    /// Canonical lower-case GUID.
    pub uid: String,
    /// The owning company's GUID.
    pub company_id: String,
    /// The user who uploaded it.
    pub owner_user_id: i64,
    /// A temporary search input (true) or a company-database file (false).
    pub is_search_input: bool,
    /// The stored path (`FileName`): `<folder>/<name>.<ext>` for database files.
    pub stored_path: String,
    /// The name shown to people (`DisplayName`).
    pub display_name: String,
    /// Lower-case extension with the dot (`.png`, `.step.ifz`).
    pub extension: String,
    /// Size of the stored bytes.
    pub size: u64,
    /// Indexing state.
    pub state: IndexState,
    /// Bumped on every overwrite, so indexing of older content is not saved over newer.
    pub revision: i64,
    /// When the content was uploaded (ISO 8601).
    pub uploaded_at: String,
    /// When indexing completed (ISO 8601).
    pub indexed_at: Option<String>,
    /// Text extracted from the content.
    pub text: String,
    /// Attributes extracted from the content, `name=value`.
    pub extracted_attributes: Vec<String>,
    /// The PMI pages as JSON text (an array).
    pub pmi_json: String,
    /// A thumbnail is on disk.
    pub has_thumbnail: bool,
    /// A large image is on disk.
    pub has_large_image: bool,
    /// Why indexing failed, in words (a failed file indexed by an older service may have none).
    pub failure_reason: Option<String>,
    /// A drawing's pages as JSON text (an array, `[]` for a file without pages): written and read
    /// by the service, which gives it its shape.
    pub pages_json: String,
    /// Uploaded with `textOnly=true`: indexed for its text and attributes only (no views, no
    /// pictures).
    pub text_only: bool,
}

/// The key a stored path is compared by: lower-cased (paths are case-insensitive, as on the
/// Windows-hosted real service).
pub fn path_key(stored_path: &str) -> String {
    stored_path.to_lowercase()
}

/// Extracted attributes as stored: a JSON array of `name=value` strings.
pub fn attributes_json(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".into())
}

/// Extracted attributes read back from [`attributes_json`]'s form (damaged text reads as none).
pub fn attributes_from_json(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

/// What an upload writes into a record (new or overwritten). An overwrite keeps the UID and the
/// uploader, bumps the revision and clears what indexing learned and the views.
#[derive(Clone, Debug)]
pub struct NewContent {
    /// Canonical UID.
    pub uid: String,
    /// Owning company.
    pub company_id: String,
    /// Uploader (kept from the earlier record on overwrite).
    pub owner_user_id: i64,
    /// Search input or database file.
    pub is_search_input: bool,
    /// Stored path.
    pub stored_path: String,
    /// Display name.
    pub display_name: String,
    /// Lower-case extension with the dot.
    pub extension: String,
    /// Byte size.
    pub size: u64,
    /// The state it starts in (queued for the workers, in progress when indexed during the call).
    pub state: IndexState,
    /// `callbackParam` of the upload.
    pub callback_param: Option<String>,
    /// `textOnly=true` of the upload: index its text and attributes only.
    pub text_only: bool,
}

impl NewContent {
    /// The key of the stored path: a database file's path is unique in its company; a search
    /// input has none.
    pub fn path_key(&self) -> Option<String> {
        (!self.is_search_input).then(|| path_key(&self.stored_path))
    }
}

/// What indexing learned about one revision of a file.
#[derive(Clone, Debug, Default)]
pub struct IndexedContent {
    /// Stored view descriptors, in order.
    pub views: Vec<Vec<u8>>,
    /// Extracted text.
    pub text: String,
    /// Extracted attributes.
    pub extracted_attributes: Vec<String>,
    /// PMI pages as JSON text.
    pub pmi_json: String,
    /// A thumbnail was written.
    pub has_thumbnail: bool,
    /// A large image was written.
    pub has_large_image: bool,
    /// The drawing's pages as JSON text (`[]`, or empty, for a file without pages).
    pub pages_json: String,
}

/// A file as a bulk load writes it, already indexed: its record, its saved attributes and what
/// indexing learned ([`crate::StoreTx::write_loaded_files`]).
#[derive(Clone, Debug)]
pub struct LoadedFile {
    /// The record, as an upload makes it (its state is `completed` once written).
    pub content: NewContent,
    /// Its saved attributes (one a name and unit is kept, the later one, as for an upload).
    pub attributes: Vec<partlens_api::Attribute>,
    /// What indexing learned.
    pub indexed: IndexedContent,
}

/// The pages of `content` as stored: its JSON, `[]` when it has none.
pub fn pages_json(content: &IndexedContent) -> &str {
    if content.pages_json.trim().is_empty() {
        "[]"
    } else {
        &content.pages_json
    }
}

/// Why one revision of a file could not be indexed, with what was read of it before it failed.
/// Saved, its views and pictures are cleared and its text and extracted attributes kept
/// searchable.
#[derive(Clone, Debug, Default)]
pub struct IndexingFailure {
    /// The reason in words (ASCII, one line: see the service's `failure_reason`).
    pub reason: String,
    /// Text read before the failure (kept searchable).
    pub text: String,
    /// Attributes read before the failure (kept searchable and shown).
    pub extracted_attributes: Vec<String>,
}

impl IndexingFailure {
    /// The failure saved when indexing ended without an outcome (the service failed meanwhile).
    pub fn without_outcome() -> Self {
        Self {
            reason: "the service failed while indexing the file".to_owned(),
            ..Self::default()
        }
    }
}
