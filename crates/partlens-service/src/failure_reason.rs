//! Why the service could not index a file, in words, kept with the file and shown where a failed
//! file is reported: `GET /api/FileStatus` keeps the spec's 422 body `failed` and adds the reason as
//! the [`FAILURE_REASON_HEADER`] header; a failed file's FileMap carries it as `IndexingError`.
//!
//! A reason goes into an HTTP header, so it is ASCII on one line and at most
//! [`MAX_FAILURE_REASON_CHARS`] characters: other characters are spelled in ASCII where there is an
//! obvious spelling (`×` as `x`, dashes as `-`) and replaced by `?` otherwise.

use partlens_engine::EngineError;

pub use partlens_api::{FAILURE_REASON_FIELD, FAILURE_REASON_HEADER};
/// Longest reason kept, in characters.
pub const MAX_FAILURE_REASON_CHARS: usize = 300;

/// A reason a file could not be indexed: ASCII, one line, at most [`MAX_FAILURE_REASON_CHARS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureReason(String);

impl FailureReason {
    /// A reason from any words, made ASCII, one line and short.
    pub fn new(words: &str) -> Self {
        let mut ascii = String::with_capacity(words.len().min(MAX_FAILURE_REASON_CHARS));
        for c in words.chars() {
            let spelled = match c {
                c if c.is_ascii_graphic() => c,
                c if c.is_whitespace() || c.is_control() => ' ',
                '×' => 'x',
                '–' | '—' | '−' => '-',
                '‘' | '’' => '\'',
                '“' | '”' => '"',
                'Ø' | 'ø' | '⌀' => 'O',
                '°' => 'd',
                _ => '?',
            };
            if spelled == ' ' && (ascii.is_empty() || ascii.ends_with(' ')) {
                continue;
            }
            ascii.push(spelled);
        }
        let trimmed = ascii.trim_end();
        if trimmed.chars().count() <= MAX_FAILURE_REASON_CHARS {
            return Self(trimmed.to_owned());
        }
        let cut: String = trimmed.chars().take(MAX_FAILURE_REASON_CHARS - 3).collect();
        Self(format!("{}...", cut.trim_end()))
    }

    /// The reason.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&EngineError> for FailureReason {
    fn from(error: &EngineError) -> Self {
        Self::new(&error.to_string())
    }
}

impl std::fmt::Display for FailureReason {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_ascii_one_line_and_short() {
        let reason = FailureReason::new("cannot decode\n the .step content:\tbox 40×20 – Ø6 ✓");
        assert_eq!(
            reason.as_str(),
            "cannot decode the .step content: box 40x20 - O6 ?"
        );
        let long = FailureReason::new(&"word ".repeat(200));
        assert_eq!(long.as_str().chars().count(), MAX_FAILURE_REASON_CHARS);
        assert!(long.as_str().ends_with("wo..."), "{long}");
        assert!(axum::http::HeaderValue::from_str(long.as_str()).is_ok());
    }

    #[test]
    fn an_engine_error_gives_its_words() {
        let error = EngineError::Undecodable {
            extension: ".stl".into(),
            reason: "the mesh has no surface".into(),
        };
        assert_eq!(
            FailureReason::from(&error).as_str(),
            "cannot decode the .stl content: the mesh has no surface"
        );
    }
}
