//! The interface's own limits (spec, "Limits"), in one place: the client checks them before it sends
//! anything, the local service enforces them, the CLI and the app word their messages with them.

/// The minimum upload size: base64 characters for `PUT /api/File`, bytes for the binary endpoints.
pub const MIN_UPLOAD_SIZE: u64 = 1024;

/// Most files one `PUT /api/Search` may carry (and most views of one search).
pub const MAX_SEARCH_FILES: usize = 10;

/// Longest `feedback` text of `PUT /api/ExtractedAttributeFeedback`, in characters.
pub const MAX_FEEDBACK_CHARS: usize = 300;

/// Longest `user` identifier of `PUT /api/ExtractedAttributeFeedback`, in characters.
pub const MAX_FEEDBACK_USER_CHARS: usize = 100;
