//! The file UID: a GUID string the service gives each stored file.

use serde::{Deserialize, Serialize};

use super::error::ApiError;

/// A file UID as the service gives it (a GUID, kept in the form the service sent).
///
/// Replies are read without validation (a service may format GUIDs its own way); values that come from
/// a user go through [`FileUid::parse`], which refuses anything that is not a GUID.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FileUid(String);

impl FileUid {
    /// Parses a UID typed by a user or read from a file: it must be a GUID (with or without braces).
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let trimmed = text.trim();
        match uuid::Uuid::parse_str(trimmed.trim_start_matches('{').trim_end_matches('}')) {
            Ok(_) => Ok(Self(trimmed.to_owned())),
            Err(_) => Err(ApiError::InvalidInput(format!(
                "\"{trimmed}\" is not a file UID (a GUID such as 3f2504e0-4f89-41d3-9a0c-0305e82c3301)"
            ))),
        }
    }

    /// Wraps a UID read from a service reply, as given (surrounding whitespace and quotes removed).
    pub fn from_reply(text: &str) -> Self {
        Self(text.trim().trim_matches('"').to_owned())
    }

    /// A new random UID, for callers that choose the UID of an upload themselves (`uid=`).
    pub fn new_random() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    /// The UID as text, as it goes on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when the UID is a well-formed GUID.
    pub fn is_guid(&self) -> bool {
        uuid::Uuid::parse_str(self.0.trim_start_matches('{').trim_end_matches('}')).is_ok()
    }

    /// The canonical lower-case hyphenated form, used to compare UIDs written in different cases.
    pub fn canonical(&self) -> String {
        uuid::Uuid::parse_str(self.0.trim_start_matches('{').trim_end_matches('}'))
            .map(|uuid| uuid.hyphenated().to_string())
            .unwrap_or_else(|_| self.0.to_lowercase())
    }
}

impl std::fmt::Display for FileUid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_guids_with_and_without_braces() {
        assert!(FileUid::parse("3f2504e0-4f89-41d3-9a0c-0305e82c3301").is_ok());
        assert!(FileUid::parse("{3F2504E0-4F89-41D3-9A0C-0305E82C3301}").is_ok());
        assert!(FileUid::parse(" 3f2504e04f8941d39a0c0305e82c3301 ").is_ok());
    }

    #[test]
    fn parse_refuses_what_is_not_a_guid() {
        for bad in [
            "",
            "abc",
            "3f2504e0-4f89-41d3-9a0c",
            "../etc/passwd",
            "3f2504e0-4f89-41d3-9a0c-0305e82c330z",
        ] {
            let error = FileUid::parse(bad).expect_err(bad);
            assert!(
                matches!(error, ApiError::InvalidInput(_)),
                "{bad}: {error:?}"
            );
        }
    }

    #[test]
    fn reply_uids_lose_quotes_and_whitespace() {
        assert_eq!(FileUid::from_reply(" \"abc\"\n").as_str(), "abc");
    }

    #[test]
    fn canonical_form_ignores_case_and_braces() {
        let upper = FileUid::parse("{3F2504E0-4F89-41D3-9A0C-0305E82C3301}").unwrap();
        let lower = FileUid::parse("3f2504e0-4f89-41d3-9a0c-0305e82c3301").unwrap();
        assert_eq!(upper.canonical(), lower.canonical());
    }
}
