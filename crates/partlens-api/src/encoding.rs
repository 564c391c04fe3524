//! The legacy encodings of the interface, in one place, in both directions (the client encodes, the
//! local service decodes).
//!
//! - JSON-string bodies: `PUT /api/File` sends `"<base64>"`; feedback sends `"a=b,c=d"`.
//! - File content in base64 ([`BASE64`], the one setting for `PUT /api/File` and `PUT /api/Search`):
//!   the standard alphabet, written padded; read with or without the final padding, since the spec
//!   asks for "the base64 encoding" and names no padding rule.
//! - Double-encoded bodies: `PUT /api/FileAttributes` and `PUT /api/Search` send a JSON string whose
//!   content is itself a JSON array (`"[\"material=steel\"]"`); a plain array is not accepted.
//! - Nested query strings: `attributes=` of a database upload and `filterStr=` of a search are query
//!   strings percent-encoded into one parameter value (see `filter.rs` for filterStr).
//! - The token password is the lower-case hex SHA-1 of the UTF-8 password.
//! - Replies that are a single value come either as a JSON string or as bare text.

use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use sha1::Digest as _;

use super::error::ApiError;

/// Characters kept as they are in a query component: RFC 3986 "unreserved" (`A-Z a-z 0-9 - . _ ~`).
/// Everything else is percent-encoded, a space as `%20` (the spec's examples: `FT%3Dpump%20housing`).
pub const QUERY_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes one query component (a parameter name or value).
pub fn encode_component(text: &str) -> String {
    utf8_percent_encode(text, QUERY_COMPONENT).to_string()
}

/// Decodes one percent-encoded component. `+` is read as a space (form encoding), as ASP.NET does.
pub fn decode_component(text: &str) -> String {
    let spaced = text.replace('+', " ");
    percent_decode_str(&spaced).decode_utf8_lossy().into_owned()
}

/// Decodes one percent-encoded component without treating `+` as a space: used for a value that was
/// percent-encoded a second time inside a nested query string, where a `+` is literal.
pub fn decode_component_strict(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// Builds a query string from name/value pairs, each component percent-encoded with [`QUERY_COMPONENT`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryString {
    pairs: Vec<(String, String)>,
}

impl QueryString {
    /// An empty query string.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `name=value`.
    pub fn push(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        self.pairs.push((name.to_owned(), value.into()));
        self
    }

    /// Appends `name=value` only when a value is given (legacy and internal parameters are not sent
    /// unless set).
    pub fn push_opt(&mut self, name: &str, value: Option<impl ToString>) -> &mut Self {
        if let Some(value) = value {
            self.pairs.push((name.to_owned(), value.to_string()));
        }
        self
    }

    /// The pairs in the order they were added (decoded).
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// True when no parameter was added.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Parses a raw query string (`a=1&b=x%20y`) into decoded pairs.
    pub fn parse(raw: &str) -> Self {
        let pairs = raw
            .split('&')
            .filter(|part| !part.is_empty())
            .map(|part| match part.split_once('=') {
                Some((name, value)) => (decode_component(name), decode_component(value)),
                None => (decode_component(part), String::new()),
            })
            .collect();
        Self { pairs }
    }

    /// The first value of `name`, compared case-insensitively (ASP.NET binds parameters that way).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

impl std::fmt::Display for QueryString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (index, (name, value)) in self.pairs.iter().enumerate() {
            if index > 0 {
                f.write_str("&")?;
            }
            write!(f, "{}={}", encode_component(name), encode_component(value))?;
        }
        Ok(())
    }
}

/// The `password` form field of `POST /api/Token`: lower-case hex SHA-1 of the UTF-8 password.
pub fn password_digest(password: &str) -> String {
    hex::encode(sha1::Sha1::digest(password.as_bytes()))
}

/// A JSON string body holding `text` (quotes and escapes added).
pub fn json_string_body(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// Reads a JSON string body (the legacy form of `PUT /api/File`, feedback and the double-encoded
/// bodies); anything but a JSON string is refused.
pub fn decode_json_string_body(body: &[u8]) -> Result<String, ApiError> {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::String(text)) => Ok(text),
        Ok(other) => Err(ApiError::InvalidInput(format!(
            "the body must be a JSON string, not {}",
            json_kind(&other)
        ))),
        Err(error) => Err(ApiError::InvalidInput(format!(
            "the body is not JSON: {error}"
        ))),
    }
}

/// The extension of a file name as the interface writes it (`file=` of a search input,
/// `fileExtension=`, the extension of a stored path): lower-case with the dot, `.png`; for `.ifz`
/// files the double suffix, `.step.ifz`. Folders in the name are ignored. Empty when the name has
/// none.
pub fn file_extension(file_name: &str) -> String {
    let name = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let lower = name.to_lowercase();
    let parts: Vec<&str> = lower.split('.').collect();
    match parts.as_slice() {
        [_, .., inner, "ifz"] if parts.len() >= 3 && !inner.is_empty() => format!(".{inner}.ifz"),
        [_, .., last] if parts.len() >= 2 && !last.is_empty() => format!(".{last}"),
        _ => String::new(),
    }
}

/// Base64 of file content as `PUT /api/File` and `PUT /api/Search` carry it: standard alphabet,
/// padded when written, padding optional when read (at the very end only).
pub const BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

/// Base64 ([`BASE64`]: standard alphabet, padded) of file bytes, as `PUT /api/File` and
/// `PUT /api/Search` carry them.
pub fn base64_encode(bytes: &[u8]) -> String {
    BASE64.encode(bytes)
}

/// Decodes base64 file content ([`BASE64`]: standard alphabet, final padding optional; whitespace
/// tolerated).
pub fn base64_decode(text: &str) -> Result<Vec<u8>, ApiError> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    BASE64.decode(compact.as_bytes()).map_err(|error| {
        ApiError::InvalidInput(format!("the file content is not valid base64: {error}"))
    })
}

/// The length of the base64 text of `byte_count` bytes: the quantity the 1024 minimum of
/// `PUT /api/File` is measured on.
pub fn base64_len(byte_count: u64) -> u64 {
    byte_count.div_ceil(3) * 4
}

/// The body of `PUT /api/File`: a JSON string holding the base64 of the file.
pub fn base64_file_body(bytes: &[u8]) -> String {
    json_string_body(&base64_encode(bytes))
}

/// Double-encodes a list of strings: a JSON string whose content is a JSON array of strings
/// (`"[\"material=steel\",\"region=EU|US\"]"`), the body of `PUT /api/FileAttributes`.
pub fn double_encoded_strings(items: &[String]) -> String {
    let inner = serde_json::Value::Array(
        items
            .iter()
            .cloned()
            .map(serde_json::Value::String)
            .collect(),
    );
    json_string_body(&inner.to_string())
}

/// Reads a double-encoded list of strings. A plain JSON array is refused, as the interface requires.
pub fn decode_double_encoded_strings(body: &[u8]) -> Result<Vec<String>, ApiError> {
    let inner = decode_json_string_body(body)?;
    serde_json::from_str::<Vec<String>>(&inner).map_err(|error| {
        ApiError::InvalidInput(format!(
            "the JSON string must hold a JSON array of strings: {error}"
        ))
    })
}

/// The body of `PUT /api/Search`: a JSON string holding a JSON array of base64 file strings.
pub fn search_files_body(files: &[Vec<u8>]) -> String {
    let encoded: Vec<String> = files.iter().map(|bytes| base64_encode(bytes)).collect();
    double_encoded_strings(&encoded)
}

/// The body of `PUT /api/ExtractedAttributeFeedback`: a JSON string `"name=value,name=value"`.
pub fn feedback_body(attributes: &[String]) -> String {
    json_string_body(&attributes.join(","))
}

/// Reads a feedback body back into its `name=value` items (empty items dropped).
pub fn decode_feedback_body(body: &[u8]) -> Result<Vec<String>, ApiError> {
    let text = decode_json_string_body(body)?;
    Ok(text
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect())
}

/// The nested query string of a database upload's `attributes=` parameter: `Name=Value&Name2=Value2`,
/// each name and value percent-encoded inside (the whole is encoded again as the parameter value).
pub fn nested_attributes_query(attributes: &[(String, String)]) -> String {
    attributes
        .iter()
        .map(|(name, value)| format!("{}={}", encode_component(name), encode_component(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Reads the decoded value of `attributes=` back into `(name, value)` pairs.
pub fn decode_nested_attributes_query(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|part| !part.is_empty())
        .map(|part| match part.split_once('=') {
            Some((name, value)) => (
                decode_component_strict(name),
                decode_component_strict(value),
            ),
            None => (decode_component_strict(part), String::new()),
        })
        .collect()
}

/// Reads a reply that is a single value: a JSON string (`"abc"`) or bare text (`abc`).
pub fn plain_reply(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.starts_with('"')
        && let Ok(text) = serde_json::from_str::<String>(trimmed)
    {
        return text.trim().to_owned();
    }
    trimmed.to_owned()
}

/// Reads a boolean reply: `true`/`false` bare, or as a JSON string.
pub fn bool_reply(body: &str) -> Result<bool, ApiError> {
    match plain_reply(body).to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(ApiError::Decode(format!(
            "expected true or false, got \"{other}\""
        ))),
    }
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_is_lower_case_hex_sha1() {
        // sha1("password") and sha1("") are well known.
        assert_eq!(
            password_digest("password"),
            "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"
        );
        assert_eq!(
            password_digest(""),
            "da39a3ee5e6b4b0d3255bfef95601890afd80709"
        );
        assert_eq!(password_digest("pässwörd").len(), 40);
    }

    #[test]
    fn file_body_is_a_json_string_of_base64() {
        assert_eq!(base64_file_body(b"\x89PNG"), "\"iVBORw==\"");
        assert_eq!(
            decode_json_string_body(b"\"iVBORw==\"").unwrap(),
            "iVBORw=="
        );
        assert_eq!(base64_decode("iVBO\nRw==").unwrap(), b"\x89PNG");
    }

    #[test]
    fn file_content_is_written_padded_and_read_with_or_without_its_padding() {
        assert_eq!(base64_encode(b"\xff"), "/w==");
        assert_eq!(base64_decode("/w==").unwrap(), b"\xff");
        assert_eq!(base64_decode("/w").unwrap(), b"\xff");
        assert!(base64_decode("/w==/w==").is_err(), "padding in the middle");
        assert!(base64_decode("-_8").is_err(), "URL-safe alphabet");
    }

    #[test]
    fn extensions_of_search_inputs() {
        assert_eq!(file_extension("bracket.PNG"), ".png");
        assert_eq!(file_extension("housing.step.ifz"), ".step.ifz");
        assert_eq!(file_extension("archive.tar.gz"), ".gz");
        assert_eq!(file_extension("README"), "");
        assert_eq!(file_extension("trailing."), "");
    }

    #[test]
    fn raw_binary_is_not_a_json_string_body() {
        assert!(decode_json_string_body(b"\x89PNG\r\n").is_err());
        assert!(decode_json_string_body(b"[\"a\"]").is_err());
    }

    #[test]
    fn base64_length_is_what_the_minimum_measures() {
        assert_eq!(base64_len(0), 0);
        assert_eq!(base64_len(1), 4);
        assert_eq!(base64_len(766), 1024);
        assert_eq!(base64_len(765), 1020);
        assert_eq!(base64_encode(&[0u8; 766]).len(), 1024);
    }

    #[test]
    fn attribute_body_is_double_encoded_as_in_the_spec() {
        let items = vec![
            "document_type=Assembly".to_owned(),
            "region=North America|Europe".to_owned(),
            "weight(kg)=12.3".to_owned(),
        ];
        let body = double_encoded_strings(&items);
        assert_eq!(
            body,
            r#""[\"document_type=Assembly\",\"region=North America|Europe\",\"weight(kg)=12.3\"]""#
        );
        assert_eq!(
            decode_double_encoded_strings(body.as_bytes()).unwrap(),
            items
        );
    }

    #[test]
    fn plain_array_attribute_body_is_refused() {
        let error = decode_double_encoded_strings(br#"["material=steel"]"#).unwrap_err();
        assert!(error.to_string().contains("JSON string"), "{error}");
        assert!(decode_double_encoded_strings(br#""not an array""#).is_err());
    }

    #[test]
    fn search_body_is_a_string_holding_an_array_of_base64() {
        let body = search_files_body(&[b"ab".to_vec(), b"cd".to_vec()]);
        assert_eq!(body, r#""[\"YWI=\",\"Y2Q=\"]""#);
        assert_eq!(
            decode_double_encoded_strings(body.as_bytes()).unwrap(),
            vec!["YWI=", "Y2Q="]
        );
    }

    #[test]
    fn feedback_body_is_a_comma_joined_json_string() {
        let body = feedback_body(&["material=steel".into(), "finish=anodized".into()]);
        assert_eq!(body, r#""material=steel,finish=anodized""#);
        assert_eq!(
            decode_feedback_body(body.as_bytes()).unwrap(),
            vec!["material=steel", "finish=anodized"]
        );
    }

    #[test]
    fn nested_attributes_survive_two_rounds_of_encoding() {
        let attributes = vec![
            ("document_type".to_owned(), "R&D=yes".to_owned()),
            ("region".to_owned(), "EU|US".to_owned()),
            ("weight(kg)".to_owned(), "12.3".to_owned()),
        ];
        let nested = nested_attributes_query(&attributes);
        assert_eq!(
            nested,
            "document_type=R%26D%3Dyes&region=EU%7CUS&weight%28kg%29=12.3"
        );
        let mut query = QueryString::new();
        query.push("attributes", nested.clone());
        let wire = query.to_string();
        assert_eq!(
            wire,
            "attributes=document_type%3DR%2526D%253Dyes%26region%3DEU%257CUS%26weight%2528kg%2529%3D12.3"
        );
        let received = QueryString::parse(&wire);
        assert_eq!(received.get("attributes"), Some(nested.as_str()));
        assert_eq!(decode_nested_attributes_query(&nested), attributes);
    }

    #[test]
    fn query_components_encode_space_as_percent_20() {
        assert_eq!(encode_component("pump housing"), "pump%20housing");
        assert_eq!(encode_component("Design/chair.step"), "Design%2Fchair.step");
        assert_eq!(encode_component(".png"), ".png");
        assert_eq!(decode_component("a+b%20c"), "a b c");
    }

    #[test]
    fn query_string_reads_names_case_insensitively() {
        let query = QueryString::parse("FileUID=abc&deleteExisting=false");
        assert_eq!(query.get("fileUid"), Some("abc"));
        assert_eq!(query.get("DELETEEXISTING"), Some("false"));
        assert_eq!(query.get("missing"), None);
    }

    #[test]
    fn optional_parameters_are_sent_only_when_set() {
        let mut query = QueryString::new();
        query
            .push("file", ".png")
            .push_opt("isGZipCompressed", None::<bool>)
            .push_opt("categoryId", Some(7));
        assert_eq!(query.to_string(), "file=.png&categoryId=7");
    }

    #[test]
    fn single_value_replies_come_quoted_or_bare() {
        assert_eq!(
            plain_reply("\"3f2504e0-4f89-41d3-9a0c-0305e82c3301\""),
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        );
        assert_eq!(
            plain_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3301\n"),
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        );
        assert_eq!(
            plain_reply("\"2026-11-22T04:53:09Z\""),
            "2026-11-22T04:53:09Z"
        );
        assert!(bool_reply("true").unwrap());
        assert!(bool_reply("\"true\"").unwrap());
        assert!(!bool_reply("false").unwrap());
        assert!(bool_reply("maybe").is_err());
    }
}
