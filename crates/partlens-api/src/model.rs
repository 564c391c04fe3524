//! The wire types of the interface, shared by the client and the local service.
//!
//! Field names are the service's (PascalCase). What the spec leaves open is read tolerantly: a missing
//! field or `null` takes its default, an unknown field is kept in `extra` and written back out, so the
//! detail view and the CLI can show a record as the service gave it.

use serde::{Deserialize, Deserializer, Serialize};

use super::attribute::Attribute;
use super::error::ApiError;
use super::uid::FileUid;

/// Extra fields of a record that this client does not model, kept as the service sent them.
pub type ExtraFields = serde_json::Map<String, serde_json::Value>;

/// Reads `null` as the type's default (the service may send `null` for an empty list or string).
pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// Reads a list of strings that may come as an array, as one string, or as `null`.
fn strings_or_string<'de, D>(deserializer: D) -> Result<Vec<String>, D::Error>
where
    D: Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Shape {
        Many(Vec<serde_json::Value>),
        One(String),
        Other(serde::de::IgnoredAny),
    }
    Ok(match Shape::deserialize(deserializer)? {
        Shape::Many(values) => values
            .into_iter()
            .map(|value| match value {
                serde_json::Value::String(text) => text,
                other => other.to_string(),
            })
            .collect(),
        Shape::One(text) if text.is_empty() => Vec::new(),
        Shape::One(text) => vec![text],
        Shape::Other(_) => Vec::new(),
    })
}

/// Reads a number that may come as a number, a numeric string or `null`.
fn lenient_f64<'de, D>(deserializer: D) -> Result<Option<f64>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(
        match Option::<serde_json::Value>::deserialize(deserializer)? {
            Some(serde_json::Value::Number(number)) => number.as_f64(),
            Some(serde_json::Value::String(text)) => text.trim().trim_end_matches('%').parse().ok(),
            _ => None,
        },
    )
}

/// Reads an integer that may come as a number, a numeric string or `null` (then 0).
fn lenient_i64<'de, D>(deserializer: D) -> Result<i64, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(
        match Option::<serde_json::Value>::deserialize(deserializer)? {
            Some(serde_json::Value::Number(number)) => number.as_i64().unwrap_or_default(),
            Some(serde_json::Value::String(text)) => text.trim().parse().unwrap_or_default(),
            _ => 0,
        },
    )
}

/// A file record (`GET /api/File`, `PUT /api/FileBinaryDirect`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileMap {
    /// File UID.
    #[serde(rename = "UID", deserialize_with = "null_as_default")]
    pub uid: String,
    /// Company or owner context.
    #[serde(rename = "VizSpaceID", deserialize_with = "null_as_default")]
    pub viz_space_id: String,
    /// Stored file path and name.
    #[serde(rename = "FileName", deserialize_with = "null_as_default")]
    pub file_name: String,
    /// User-facing name.
    #[serde(rename = "DisplayName", deserialize_with = "null_as_default")]
    pub display_name: String,
    /// Saved attributes, `name=value` (multi-values pipe-joined).
    #[serde(rename = "Attributes", deserialize_with = "strings_or_string")]
    pub attributes: Vec<String>,
    /// Attributes extracted from the content, `name=value`.
    #[serde(rename = "ExtractedAttributes", deserialize_with = "strings_or_string")]
    pub extracted_attributes: Vec<String>,
    /// Thumbnail URL (used exactly as given; it may carry its own token).
    #[serde(rename = "ThumbNailURLFromID", deserialize_with = "null_as_default")]
    pub thumbnail_url: String,
    /// Large-image URL (used exactly as given).
    #[serde(rename = "PNGURLFromID", deserialize_with = "null_as_default")]
    pub large_image_url: String,
    /// PDF viewer URL, if applicable.
    #[serde(rename = "PDFUrl", deserialize_with = "null_as_default")]
    pub pdf_url: String,
    /// Whether a thumbnail is available.
    #[serde(rename = "HasThumbnail", deserialize_with = "null_as_default")]
    pub has_thumbnail: bool,
    /// True when indexing is complete.
    #[serde(rename = "IndexingFinished", deserialize_with = "null_as_default")]
    pub indexing_finished: bool,
    /// Assembly parents (3D files); their shape is open, so each is kept as sent.
    #[serde(rename = "AssemblyParents", deserialize_with = "null_as_default")]
    pub assembly_parents: Vec<serde_json::Value>,
    /// Assembly children (3D files); kept as sent.
    #[serde(rename = "AssemblyChildren", deserialize_with = "null_as_default")]
    pub assembly_children: Vec<serde_json::Value>,
    /// Fields this client does not model.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

impl FileMap {
    /// The UID as a typed value.
    pub fn file_uid(&self) -> FileUid {
        FileUid::from_reply(&self.uid)
    }

    /// The saved attributes parsed; strings that do not parse are skipped.
    pub fn parsed_attributes(&self) -> Vec<Attribute> {
        self.attributes
            .iter()
            .filter_map(|text| Attribute::parse(text).ok())
            .collect()
    }

    /// The name to show: the display name, else the last part of the stored name.
    pub fn title(&self) -> &str {
        title_of(&self.display_name, &self.file_name)
    }

    /// The picture of the file: the large image, else the thumbnail (used exactly as given, trimmed);
    /// `None` when the record has neither.
    pub fn picture_url(&self) -> Option<&str> {
        picture_url(&self.large_image_url, &self.thumbnail_url)
    }

    /// UIDs of the assembly parents, read from plain strings or from objects with a `UID` field.
    pub fn assembly_parent_uids(&self) -> Vec<FileUid> {
        relation_uids(&self.assembly_parents)
    }

    /// UIDs of the assembly children, read as for parents.
    pub fn assembly_child_uids(&self) -> Vec<FileUid> {
        relation_uids(&self.assembly_children)
    }

    /// Why the file could not be indexed, when the service says (`IndexingError`, a field this
    /// project's service adds to a failed file's record).
    pub fn indexing_error(&self) -> Option<&str> {
        self.extra
            .get(FAILURE_REASON_FIELD)
            .and_then(serde_json::Value::as_str)
            .filter(|reason| !reason.is_empty())
    }
}

/// The picture to show or search by: the large image, else the thumbnail (trimmed); `None` when
/// both are empty.
pub fn picture_url<'a>(large_image_url: &'a str, thumbnail_url: &'a str) -> Option<&'a str> {
    [large_image_url, thumbnail_url]
        .into_iter()
        .map(str::trim)
        .find(|url| !url.is_empty())
}
/// The FileStatus response header that says, in words, why a file could not be indexed (this
/// project's service adds it to the spec's 422 `failed`).
pub const FAILURE_REASON_HEADER: &str = "X-Failure-Reason";
/// The FileMap field that says, in words, why a file could not be indexed.
pub const FAILURE_REASON_FIELD: &str = "IndexingError";

/// The name to show for a record: its display name, else the last part of its stored name.
pub fn title_of<'a>(display_name: &'a str, file_name: &'a str) -> &'a str {
    if !display_name.is_empty() {
        display_name
    } else {
        file_name.rsplit(['/', '\\']).next().unwrap_or(file_name)
    }
}

/// Reads the UIDs out of assembly relations whose exact shape the spec leaves open.
pub fn relation_uids(relations: &[serde_json::Value]) -> Vec<FileUid> {
    relations
        .iter()
        .filter_map(|relation| match relation {
            serde_json::Value::String(uid) => Some(FileUid::from_reply(uid)),
            serde_json::Value::Object(fields) => fields
                .iter()
                .find(|(key, _)| {
                    key.eq_ignore_ascii_case("UID")
                        || key.eq_ignore_ascii_case("FileUID")
                        || key.eq_ignore_ascii_case("ID")
                })
                .and_then(|(_, value)| value.as_str())
                .map(FileUid::from_reply),
            _ => None,
        })
        .collect()
}

/// An attribute name used by the caller's company (`GET /api/FileAttributes`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileAttribute {
    /// Attribute id.
    #[serde(rename = "ID", deserialize_with = "lenient_i64")]
    pub id: i64,
    /// Attribute name.
    #[serde(rename = "Name", deserialize_with = "null_as_default")]
    pub name: String,
    /// Unit, may be empty.
    #[serde(rename = "Unit", deserialize_with = "null_as_default")]
    pub unit: String,
    /// Value, usually null in this list.
    #[serde(rename = "Value")]
    pub value: Option<serde_json::Value>,
    /// Whether the company defined this attribute itself.
    #[serde(rename = "IsCustom", deserialize_with = "null_as_default")]
    pub is_custom: bool,
    /// Timestamp, may be null.
    #[serde(rename = "Timestamp")]
    pub timestamp: Option<serde_json::Value>,
    /// Fields this client does not model.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// One distinct value of an attribute and how many files hold it (`GET /api/AttributeValues`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttributeValue {
    /// The value.
    #[serde(rename = "Name", deserialize_with = "null_as_default")]
    pub name: String,
    /// How many files of the company hold it.
    #[serde(rename = "Count", deserialize_with = "lenient_i64")]
    pub count: i64,
}

/// The reply of `GET /api/PMIData` as it comes on the wire: `PMI` is a string holding JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PmiDataWire {
    /// JSON text of an array of pages (parsed a second time by [`PmiDataWire::parse`]).
    #[serde(rename = "PMI")]
    pub pmi: serde_json::Value,
    /// Extracted free text.
    #[serde(rename = "UnstructuredText", deserialize_with = "null_as_default")]
    pub unstructured_text: String,
    /// Extracted attributes, `name=value`.
    #[serde(rename = "ExtractedAttributes", deserialize_with = "strings_or_string")]
    pub extracted_attributes: Vec<String>,
    /// Fields this client does not model.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

impl PmiDataWire {
    /// Builds the wire form from parsed pages (the service side): `PMI` becomes JSON text.
    pub fn from_pages(
        pages: &[PmiPage],
        unstructured_text: String,
        extracted_attributes: Vec<String>,
    ) -> Self {
        let text = serde_json::to_string(pages).unwrap_or_else(|_| "[]".to_owned());
        Self {
            pmi: serde_json::Value::String(text),
            unstructured_text,
            extracted_attributes,
            extra: ExtraFields::new(),
        }
    }

    /// Parses `PMI` a second time into pages. An empty string or `null` means no pages; an array sent
    /// directly (not as a string) is read too.
    pub fn parse(&self) -> Result<PmiData, ApiError> {
        let pages = match &self.pmi {
            serde_json::Value::Null => Vec::new(),
            serde_json::Value::String(text) if text.trim().is_empty() => Vec::new(),
            serde_json::Value::String(text) => {
                serde_json::from_str::<Vec<PmiPage>>(text).map_err(|error| {
                    ApiError::Decode(format!(
                        "the PMI string does not hold a page array: {error}"
                    ))
                })?
            }
            value @ serde_json::Value::Array(_) => {
                serde_json::from_value::<Vec<PmiPage>>(value.clone()).map_err(|error| {
                    ApiError::Decode(format!("the PMI array is not a page array: {error}"))
                })?
            }
            other => {
                return Err(ApiError::Decode(format!(
                    "PMI is neither a string nor an array: {other}"
                )));
            }
        };
        Ok(PmiData {
            pages,
            unstructured_text: self.unstructured_text.clone(),
            extracted_attributes: self.extracted_attributes.clone(),
        })
    }
}

/// The extracted PMI of a file, with the `PMI` string parsed into pages.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PmiData {
    /// Pages with their PMI items.
    pub pages: Vec<PmiPage>,
    /// Extracted free text.
    pub unstructured_text: String,
    /// Extracted attributes, `name=value`.
    pub extracted_attributes: Vec<String>,
}

/// One page of PMI: its number, its image size in pixels and the items found on it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PmiPage {
    /// Page number.
    #[serde(deserialize_with = "lenient_i64")]
    pub page: i64,
    /// Width and height of the page image in pixels.
    #[serde(rename = "ImageSize")]
    pub image_size: [i64; 2],
    /// The items found on the page.
    #[serde(rename = "PMI", deserialize_with = "null_as_default")]
    pub items: Vec<PmiItem>,
}

/// One PMI item: a box on the page image, a type and the text read there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PmiItem {
    /// The box in page pixels: left, top, right, bottom.
    #[serde(rename = "box")]
    pub box_in_page: [i64; 4],
    /// The kind of item; numbering is the service's. The local service uses 1 text note (TEXT, MTEXT),
    /// 2 dimension, 3 title-block attribute (ATTRIB), 4 tolerance / GD&T frame; other services may
    /// send other numbers.
    #[serde(deserialize_with = "lenient_i64")]
    pub type_id: i64,
    /// The text of the item.
    #[serde(deserialize_with = "null_as_default")]
    pub text: String,
    /// How sure the reader is of the text, 0–100, for text read by OCR from a scan (an extension
    /// of the interface, in the item's JSON as `confidence`; absent for text read from a vector
    /// drawing, which is certain, and from services that do not send it).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_confidence"
    )]
    pub confidence: Option<f32>,
    /// What a dimension item states, read from its text: kind, value, tolerance, fit (an extension
    /// of the interface, in the item's JSON as `dimension`; absent on other items, on texts that
    /// state no dimension the reader knows, and from services that do not send it).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_dimension"
    )]
    pub dimension: Option<PmiDimension>,
}

/// A dimension read from a PMI item's text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PmiDimension {
    /// `linear`, `diameter`, `radius` or `angle`.
    pub kind: String,
    /// The value, in the drawing's units (degrees for an angle); for limits, their middle.
    pub value: f64,
    /// The tolerance written with it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<PmiTolerance>,
    /// An ISO fit class written with it (`H7`, `h14`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<String>,
    /// True for a reference dimension (written in parentheses).
    #[serde(default)]
    pub reference: bool,
}

/// A dimension's tolerance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PmiTolerance {
    /// `symmetric` (±a: upper a, lower -a), `deviations` (+a/-b: the deviations from the value)
    /// or `limits` (the largest and smallest sizes themselves).
    pub kind: String,
    /// The upper deviation, or the upper limit.
    pub upper: f64,
    /// The lower deviation, or the lower limit.
    pub lower: f64,
}

/// A dimension as the reader wrote it, or none when the value is absent, `null` or not one
/// (another service's own field of that name is not a refused page).
fn lenient_dimension<'de, D>(deserializer: D) -> Result<Option<PmiDimension>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// A confidence as a number, `null` or absent (none); anything else (a string, a value outside
/// 0–100) is taken as none rather than refusing the page.
fn lenient_confidence<'de, D>(deserializer: D) -> Result<Option<f32>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(value
        .as_f64()
        .filter(|confidence| (0.0..=100.0).contains(confidence))
        .map(|confidence| confidence as f32))
}

/// The reply of both search endpoints. Only some fields are specified; the rest is kept in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchResult {
    /// Comma-separated search-input UIDs, one per uploaded view.
    #[serde(rename = "InputFileUID", deserialize_with = "null_as_default")]
    pub input_file_uid: String,
    /// Number of results.
    #[serde(rename = "TotalResults", deserialize_with = "lenient_i64")]
    pub total_results: i64,
    /// The result items, best first.
    #[serde(rename = "ResultsList", deserialize_with = "null_as_default")]
    pub results: Vec<SearchResultItem>,
    /// Fields this client does not model.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

impl SearchResult {
    /// The search-input UIDs of `InputFileUID`.
    pub fn input_uids(&self) -> Vec<FileUid> {
        self.input_file_uid
            .split(',')
            .map(str::trim)
            .filter(|uid| !uid.is_empty())
            .map(FileUid::from_reply)
            .collect()
    }
}

/// One search result. Besides the specified `ShapeResult.Attributes` and `Attributes[].Value`, the
/// fields a client needs (UID, names, score, image URLs) are read under the names the local service
/// uses, with common alternatives accepted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchResultItem {
    /// UID of the matching file.
    #[serde(
        rename = "UID",
        alias = "FileUID",
        alias = "Uid",
        alias = "uid",
        deserialize_with = "null_as_default"
    )]
    pub uid: String,
    /// Stored file name.
    #[serde(rename = "FileName", deserialize_with = "null_as_default")]
    pub file_name: String,
    /// User-facing name.
    #[serde(rename = "DisplayName", deserialize_with = "null_as_default")]
    pub display_name: String,
    /// Similarity in 0..1 (1 = identical), where the service gives one.
    #[serde(
        rename = "Score",
        alias = "score",
        alias = "Similarity",
        deserialize_with = "lenient_f64"
    )]
    pub score: Option<f64>,
    /// Thumbnail URL, used exactly as given.
    #[serde(
        rename = "ThumbNailURLFromID",
        alias = "ThumbnailURL",
        deserialize_with = "null_as_default"
    )]
    pub thumbnail_url: String,
    /// Large-image URL, used exactly as given.
    #[serde(rename = "PNGURLFromID", deserialize_with = "null_as_default")]
    pub large_image_url: String,
    /// Shape-match detail; its `Attributes` are `name=value` with pipe-joined multi-values.
    #[serde(rename = "ShapeResult", deserialize_with = "null_as_default")]
    pub shape_result: ShapeResult,
    /// Attributes of the result as objects; `Value` is pipe-joined for multi-values.
    #[serde(rename = "Attributes", deserialize_with = "null_as_default")]
    pub attributes: Vec<ResultAttribute>,
    /// Fields this client does not model.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

impl SearchResultItem {
    /// The UID as a typed value.
    pub fn file_uid(&self) -> FileUid {
        FileUid::from_reply(&self.uid)
    }

    /// The name to show.
    pub fn title(&self) -> &str {
        title_of(&self.display_name, &self.file_name)
    }

    /// The result's attributes from whichever surface carries them (`Attributes[]` first, then
    /// `ShapeResult.Attributes`).
    pub fn parsed_attributes(&self) -> Vec<Attribute> {
        if !self.attributes.is_empty() {
            self.attributes
                .iter()
                .filter_map(|attribute| {
                    Attribute::parse(&format!("{}={}", attribute.name, attribute.value)).ok()
                })
                .collect()
        } else {
            self.shape_result
                .attributes
                .iter()
                .filter_map(|text| Attribute::parse(text).ok())
                .collect()
        }
    }
}

/// The shape-match part of a result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShapeResult {
    /// `name=value` strings, names lower-cased, multi-values pipe-joined.
    #[serde(rename = "Attributes", deserialize_with = "strings_or_string")]
    pub attributes: Vec<String>,
    /// Fields this client does not model.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// One attribute object of a search result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResultAttribute {
    /// Attribute name (a unit may ride in it).
    #[serde(rename = "Name", deserialize_with = "null_as_default")]
    pub name: String,
    /// Value; multi-values pipe-joined.
    #[serde(rename = "Value", deserialize_with = "null_as_default")]
    pub value: String,
    /// Fields this client does not model.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// The reply of `POST /api/Token`.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TokenReply {
    /// The bearer token.
    #[serde(deserialize_with = "null_as_default")]
    pub access_token: String,
    /// Usually `bearer`.
    pub token_type: Option<String>,
    /// Lifetime in seconds, when the service says.
    #[serde(deserialize_with = "lenient_optional_i64")]
    pub expires_in: Option<i64>,
    /// A refresh token, when the service issues one.
    pub refresh_token: Option<String>,
}

impl std::fmt::Debug for TokenReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a token.
        f.debug_struct("TokenReply")
            .field("access_token", &"<redacted>")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .finish_non_exhaustive()
    }
}

fn lenient_optional_i64<'de, D>(deserializer: D) -> Result<Option<i64>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(
        match Option::<serde_json::Value>::deserialize(deserializer)? {
            Some(serde_json::Value::Number(number)) => number.as_i64(),
            Some(serde_json::Value::String(text)) => text.trim().parse().ok(),
            _ => None,
        },
    )
}

/// The indexing state of an uploaded file, as `GET /api/FileStatus` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum FileStatus {
    /// 204: indexing is not finished; keep polling.
    InProgress,
    /// 200: indexing completed at this ISO 8601 timestamp.
    Completed {
        /// The index timestamp as the service wrote it.
        indexed_at: String,
    },
    /// 422 `failed`: indexing failed; stop and re-upload.
    Failed {
        /// Why, in words, when the service says (the `X-Failure-Reason` header).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// 404: never uploaded or deleted; stop.
    Unknown,
}

impl FileStatus {
    /// True for every state but in-progress: polling stops there.
    pub fn is_terminal(&self) -> bool {
        !matches!(self, Self::InProgress)
    }

    /// The state's name as the CLI prints it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::InProgress => "in_progress",
            Self::Completed { .. } => "completed",
            Self::Failed { .. } => "failed",
            Self::Unknown => "unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_map_reads_the_spec_fields_and_keeps_unknown_ones() {
        let json = r#"{
            "UID": "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
            "VizSpaceID": "11111111-2222-3333-4444-555555555555",
            "FileName": "Design/example-assembly.step",
            "DisplayName": "example-assembly.step",
            "Attributes": ["document_number=AX-1000", "weight(kg)=12.7", "region=EU|US"],
            "ExtractedAttributes": ["Volume=123.4"],
            "ThumbNailURLFromID": "https://example.test/t/sm.jpg",
            "PNGURLFromID": "https://example.test/t/lg.png",
            "HasThumbnail": true,
            "IndexingFinished": true,
            "AssemblyChildren": [{"UID": "9a1b2c3d-4f89-41d3-9a0c-0305e82c3302"}, "aaaaaaaa-4f89-41d3-9a0c-0305e82c3303"],
            "PageCount": 3
        }"#;
        let record: FileMap = serde_json::from_str(json).unwrap();
        assert_eq!(record.title(), "example-assembly.step");
        assert_eq!(record.parsed_attributes().len(), 3);
        assert_eq!(record.parsed_attributes()[2].values, vec!["EU", "US"]);
        assert_eq!(record.assembly_child_uids().len(), 2);
        assert_eq!(record.extra.get("PageCount"), Some(&serde_json::json!(3)));
        let back = serde_json::to_value(&record).unwrap();
        assert_eq!(back["PageCount"], 3);
        assert_eq!(back["UID"], "3f2504e0-4f89-41d3-9a0c-0305e82c3301");
    }

    #[test]
    fn file_map_tolerates_nulls_and_missing_fields() {
        let record: FileMap = serde_json::from_str(
            r#"{"UID":"x","Attributes":null,"PDFUrl":null,"HasThumbnail":null}"#,
        )
        .unwrap();
        assert!(record.attributes.is_empty());
        assert!(record.pdf_url.is_empty());
        assert!(!record.has_thumbnail);
        assert_eq!(record.title(), "");
    }

    #[test]
    fn file_attribute_list_reads_the_spec_example() {
        let json = r#"[{"ID":12,"Name":"document_type","Unit":"","Value":null,"IsCustom":false,"Timestamp":null},
                       {"ID":13,"Name":"material","Unit":"","Value":null,"IsCustom":true,"Timestamp":null}]"#;
        let list: Vec<FileAttribute> = serde_json::from_str(json).unwrap();
        assert_eq!(list[0].id, 12);
        assert_eq!(list[1].name, "material");
        assert!(list[1].is_custom);
    }

    #[test]
    fn pmi_string_is_parsed_a_second_time() {
        let json = r#"{"PMI":"[{\"page\":1,\"ImageSize\":[1700,1100],\"PMI\":[{\"box\":[10,20,110,60],\"type_id\":2,\"text\":\"Ø12 H7\"}]}]",
                       "UnstructuredText":"BRACKET REV B","ExtractedAttributes":["material=steel"]}"#;
        let wire: PmiDataWire = serde_json::from_str(json).unwrap();
        let data = wire.parse().unwrap();
        assert_eq!(data.pages.len(), 1);
        assert_eq!(data.pages[0].image_size, [1700, 1100]);
        assert_eq!(data.pages[0].items[0].box_in_page, [10, 20, 110, 60]);
        assert_eq!(data.pages[0].items[0].text, "Ø12 H7");
        assert_eq!(data.unstructured_text, "BRACKET REV B");
        // The service side writes the same form back.
        let again = PmiDataWire::from_pages(
            &data.pages,
            data.unstructured_text.clone(),
            data.extracted_attributes.clone(),
        );
        assert!(again.pmi.is_string());
        assert_eq!(again.parse().unwrap(), data);
    }

    #[test]
    fn an_ocr_items_confidence_is_an_optional_extension_of_the_item() {
        // OCR'd items carry `confidence`; vector items do not, and are written as the spec's
        // three fields only.
        let pages = vec![PmiPage {
            page: 1,
            image_size: [1024, 662],
            items: vec![
                PmiItem {
                    box_in_page: [10, 20, 110, 60],
                    type_id: 2,
                    text: "213.00".into(),
                    confidence: Some(48.5),
                    dimension: None,
                },
                PmiItem {
                    box_in_page: [200, 20, 300, 60],
                    type_id: 1,
                    text: "NOTE".into(),
                    confidence: None,
                    dimension: None,
                },
            ],
        }];
        let wire = PmiDataWire::from_pages(&pages, String::new(), Vec::new());
        let inner: serde_json::Value = serde_json::from_str(wire.pmi.as_str().unwrap()).unwrap();
        assert_eq!(inner[0]["PMI"][0]["confidence"], 48.5);
        let vector_item = inner[0]["PMI"][1].as_object().unwrap();
        let mut keys: Vec<&str> = vector_item.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["box", "text", "type_id"]);
        assert_eq!(wire.parse().unwrap().pages, pages);
        // A confidence that is not a number from 0 to 100 is none, not a refused page.
        let odd = r#"[{"page":1,"ImageSize":[10,10],"PMI":[
            {"box":[0,0,1,1],"type_id":1,"text":"a","confidence":"high"},
            {"box":[0,0,1,1],"type_id":1,"text":"b","confidence":140},
            {"box":[0,0,1,1],"type_id":1,"text":"c","confidence":null},
            {"box":[0,0,1,1],"type_id":1,"text":"d","confidence":7}]}]"#;
        let pages: Vec<PmiPage> = serde_json::from_str(odd).unwrap();
        let confidences: Vec<Option<f32>> =
            pages[0].items.iter().map(|item| item.confidence).collect();
        assert_eq!(confidences, [None, None, None, Some(7.0)]);
    }

    #[test]
    fn a_dimension_items_structure_is_an_optional_extension_of_the_item() {
        let item = PmiItem {
            box_in_page: [10, 20, 110, 60],
            type_id: 2,
            text: "Ø60 H7 ±0.015".into(),
            confidence: None,
            dimension: Some(PmiDimension {
                kind: "diameter".into(),
                value: 60.0,
                tolerance: Some(PmiTolerance {
                    kind: "symmetric".into(),
                    upper: 0.015,
                    lower: -0.015,
                }),
                fit: Some("H7".into()),
                reference: false,
            }),
        };
        let json = serde_json::to_value(&item).unwrap();
        assert_eq!(json["dimension"]["kind"], "diameter");
        assert_eq!(json["dimension"]["tolerance"]["upper"], 0.015);
        assert_eq!(json["text"], "Ø60 H7 ±0.015");
        assert_eq!(serde_json::from_value::<PmiItem>(json).unwrap(), item);
        // Another service's "dimension" of another shape is none, not a refused page.
        let odd: PmiItem = serde_json::from_str(
            r#"{"box":[0,0,1,1],"type_id":2,"text":"12","dimension":"12 mm"}"#,
        )
        .unwrap();
        assert_eq!(odd.dimension, None);
        assert_eq!(odd.text, "12");
    }

    #[test]
    fn pmi_empty_or_broken_strings() {
        let empty: PmiDataWire =
            serde_json::from_str(r#"{"PMI":"","UnstructuredText":null}"#).unwrap();
        assert!(empty.parse().unwrap().pages.is_empty());
        let broken: PmiDataWire = serde_json::from_str(r#"{"PMI":"[{\"page\":"}"#).unwrap();
        assert!(matches!(broken.parse(), Err(ApiError::Decode(_))));
    }

    #[test]
    fn search_result_reads_inputs_and_both_attribute_surfaces() {
        let json = r#"{"InputFileUID":"a-1,b-2","TotalResults":"2","ResultsList":[
            {"UID":"u1","Score":0.93,"ShapeResult":{"Attributes":["material=steel|brass"]}},
            {"FileUID":"u2","Score":"0.5","Attributes":[{"Name":"region","Value":"EU|US"}],"Rank":2}
        ],"Paging":{"Page":1}}"#;
        let result: SearchResult = serde_json::from_str(json).unwrap();
        assert_eq!(result.input_uids().len(), 2);
        assert_eq!(result.total_results, 2);
        assert_eq!(
            result.results[0].parsed_attributes()[0].values,
            vec!["steel", "brass"]
        );
        assert_eq!(result.results[1].uid, "u2");
        assert_eq!(result.results[1].score, Some(0.5));
        assert_eq!(
            result.results[1].parsed_attributes()[0].values,
            vec!["EU", "US"]
        );
        assert!(result.extra.contains_key("Paging"));
        assert!(result.results[1].extra.contains_key("Rank"));
    }

    #[test]
    fn token_reply_debug_hides_the_token() {
        let reply: TokenReply = serde_json::from_str(
            r#"{"access_token":"secret-value","token_type":"bearer","expires_in":"3600"}"#,
        )
        .unwrap();
        assert_eq!(reply.expires_in, Some(3600));
        assert!(!format!("{reply:?}").contains("secret-value"));
    }

    #[test]
    fn file_status_terminal_states() {
        assert!(!FileStatus::InProgress.is_terminal());
        assert!(
            FileStatus::Completed {
                indexed_at: "2026-11-22T04:53:09Z".into()
            }
            .is_terminal()
        );
        assert!(FileStatus::Failed { reason: None }.is_terminal());
        assert!(FileStatus::Unknown.is_terminal());
    }
}
