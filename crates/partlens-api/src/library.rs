//! `GET /api/Files` (an extension of this project's service, not in the interface specification):
//! the company's database files, newest first, a page at a time, filtered by kind, folder and the
//! `filterStr` of a search. The wire types are shared with the service; the call is made with the
//! `client` feature.

use serde::{Deserialize, Serialize};

use super::model::{SearchResultItem, null_as_default};

/// The most files one page holds; a larger `limit` is refused (400).
pub const MAX_PAGE_FILES: usize = 500;

/// The page size when the caller gives none.
pub const DEFAULT_PAGE_FILES: usize = 100;

/// What a file is, from its format: what the Library filters by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A photo or rendering (PNG, JPEG, …).
    Picture,
    /// A 3D model (STEP, STL, …).
    Model,
    /// A 2D drawing (DXF, PDF).
    Drawing,
    /// A format the service stores without views (found by its name and attributes only).
    #[default]
    #[serde(other)]
    Other,
}

impl FileKind {
    /// The kinds a caller may filter by, in the order the app offers them.
    pub const FILTERS: [Self; 3] = [Self::Picture, Self::Model, Self::Drawing];

    /// The `kind=` parameter's value (`picture`, `model`, `drawing`, `other`).
    pub fn as_param(self) -> &'static str {
        match self {
            Self::Picture => "picture",
            Self::Model => "model",
            Self::Drawing => "drawing",
            Self::Other => "other",
        }
    }

    /// Reads a `kind=` value (any case); `None` for one that names no kind.
    pub fn from_param(text: &str) -> Option<Self> {
        [Self::Picture, Self::Model, Self::Drawing, Self::Other]
            .into_iter()
            .find(|kind| kind.as_param().eq_ignore_ascii_case(text.trim()))
    }

    /// The kind in words, plural, for people ("pictures").
    pub fn plural(self) -> &'static str {
        match self {
            Self::Picture => "pictures",
            Self::Model => "3D models",
            Self::Drawing => "drawings",
            Self::Other => "other files",
        }
    }
}

/// The folder part of a stored path (`Parts/Brackets` of `Parts/Brackets/b-1.stl`), empty for a
/// file at the top.
pub fn folder_of(stored_path: &str) -> &str {
    stored_path
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder)
}

/// What to list: one page of the company's files under the filters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryQuery {
    /// Files skipped from the newest.
    pub offset: usize,
    /// Files on the page (1..=[`MAX_PAGE_FILES`]).
    pub limit: usize,
    /// Only files of this kind.
    pub kind: Option<FileKind>,
    /// Only files in this folder or below it (as stored, compared without regard to case).
    pub folder: Option<String>,
    /// Only files that satisfy this filter's FT conditions (its UIDs are not used).
    pub filter: crate::SearchFilter,
}

impl LibraryQuery {
    /// The first page of the whole library, [`DEFAULT_PAGE_FILES`] files.
    pub fn new() -> Self {
        Self {
            limit: DEFAULT_PAGE_FILES,
            ..Self::default()
        }
    }

    /// The query string of the request.
    pub fn to_query(&self) -> crate::encoding::QueryString {
        let mut query = crate::encoding::QueryString::new();
        query
            .push("offset", self.offset.to_string())
            .push("limit", self.limit.to_string());
        if let Some(kind) = self.kind {
            query.push("kind", kind.as_param());
        }
        if let Some(folder) = self.folder.as_deref().filter(|folder| !folder.is_empty()) {
            query.push("folder", folder);
        }
        if !self.filter.ft_parts.is_empty() {
            query.push("filterStr", self.filter.inner());
        }
        query
    }
}

/// The reply of `GET /api/Files`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LibraryPage {
    /// How many files satisfy the filters in all.
    #[serde(rename = "TotalFiles", default)]
    pub total_files: u64,
    /// The offset of the first file of this page.
    #[serde(rename = "Offset", default)]
    pub offset: u64,
    /// The page's files, newest first.
    #[serde(rename = "Files", default, deserialize_with = "null_as_default")]
    pub files: Vec<LibraryFile>,
}

/// One file of the library: the fields of a search result (no score) and what a library lists.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LibraryFile {
    /// UID, names, image links and attributes, as a search result carries them.
    #[serde(flatten)]
    pub item: SearchResultItem,
    /// What the file is, from its format.
    #[serde(rename = "Kind", default)]
    pub kind: FileKind,
    /// The folder of its stored path.
    #[serde(rename = "Folder", default, deserialize_with = "null_as_default")]
    pub folder: String,
    /// Size of the stored bytes.
    #[serde(rename = "Size", default)]
    pub size: u64,
    /// When its content was uploaded (ISO 8601).
    #[serde(rename = "UploadedAt", default, deserialize_with = "null_as_default")]
    pub uploaded_at: String,
    /// Where its indexing is: `queued`, `in_progress`, `completed` or `failed`.
    #[serde(rename = "State", default, deserialize_with = "null_as_default")]
    pub state: String,
}

#[cfg(feature = "client")]
mod call {
    use reqwest::Method;

    use super::{LibraryPage, LibraryQuery, MAX_PAGE_FILES};
    use crate::client::{ApiClient, parse_json};
    use crate::error::ApiError;

    impl ApiClient {
        /// Runs `GET /api/Files` (this project's service only) and returns the reply as the
        /// service sent it.
        pub async fn list_files_json(
            &self,
            query: &LibraryQuery,
        ) -> Result<serde_json::Value, ApiError> {
            if query.limit == 0 || query.limit > MAX_PAGE_FILES {
                return Err(ApiError::InvalidInput(format!(
                    "a page holds 1 to {MAX_PAGE_FILES} files, not {}",
                    query.limit
                )));
            }
            let builder = self.request(Method::GET, "api/Files", &query.to_query())?;
            let reply = self.send(builder, &[]).await?;
            parse_json(&reply.body, "files")
        }

        /// Runs `GET /api/Files` and decodes the page.
        pub async fn list_files(&self, query: &LibraryQuery) -> Result<LibraryPage, ApiError> {
            serde_json::from_value(self.list_files_json(query).await?)
                .map_err(|error| ApiError::Decode(format!("files: {error}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FilterTerm, SearchFilter};

    #[test]
    fn a_page_reads_back_as_written_with_the_result_fields_beside_the_library_ones() {
        let page = LibraryPage {
            total_files: 2,
            offset: 0,
            files: vec![LibraryFile {
                item: SearchResultItem {
                    uid: "3f2504e0-4f89-41d3-9a0c-0305e82c3301".into(),
                    file_name: "Parts/nut.step".into(),
                    display_name: "nut".into(),
                    ..SearchResultItem::default()
                },
                kind: FileKind::Model,
                folder: "Parts".into(),
                size: 1234,
                uploaded_at: "2026-11-28T06:00:00Z".into(),
                state: "completed".into(),
            }],
        };
        let json = serde_json::to_value(&page).unwrap();
        assert_eq!(
            json["Files"][0]["UID"],
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        );
        assert_eq!(json["Files"][0]["Kind"], "model");
        assert_eq!(serde_json::from_value::<LibraryPage>(json).unwrap(), page);
        let sparse: LibraryPage =
            serde_json::from_str(r#"{"Files":[{"UID":"a","Kind":"hologram"}]}"#).unwrap();
        assert_eq!(sparse.files[0].kind, FileKind::Other);
        assert_eq!(sparse.files[0].item.uid, "a");
    }

    #[test]
    fn the_query_names_only_what_is_set() {
        assert_eq!(
            LibraryQuery::new().to_query().to_string(),
            "offset=0&limit=100"
        );
        let query = LibraryQuery {
            offset: 200,
            limit: 50,
            kind: Some(FileKind::Drawing),
            folder: Some("Parts/Brackets".into()),
            filter: SearchFilter::new().term(FilterTerm::parse("material=[steel]")),
        };
        let text = query.to_query().to_string();
        assert!(text.starts_with("offset=200&limit=50&kind=drawing&folder=Parts%2FBrackets"));
        assert!(text.contains("filterStr=FT%3Dmaterial"), "{text}");
    }

    #[test]
    fn kinds_and_folders_read_as_written() {
        for kind in FileKind::FILTERS {
            assert_eq!(FileKind::from_param(kind.as_param()), Some(kind));
        }
        assert_eq!(FileKind::from_param("MODEL"), Some(FileKind::Model));
        assert_eq!(FileKind::from_param("sketch"), None);
        assert_eq!(folder_of("Parts/Brackets/b-1.stl"), "Parts/Brackets");
        assert_eq!(folder_of("b-1.stl"), "");
    }
}
