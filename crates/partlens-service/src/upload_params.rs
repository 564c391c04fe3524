//! The parameters of an upload that this service acts on, read from the query of `PUT /api/File`
//! and the binary endpoints, and checked before the body is read: what the upload becomes
//! ([`UploadTarget`]) and how it is stored and indexed ([`UploadParams`]).

use partlens_api::Attribute;
use partlens_api::encoding::{QueryString, decode_nested_attributes_query};

use super::error::ServiceError;
use super::params::{
    bool_param, optional_bool_param, optional_integer_param, optional_uid_param, text_param,
};
use super::stored_path::{StoredPath, parse_search_input_extension};

/// The extension of the archives read as what they hold (zip_upload.rs).
pub const ZIP_EXTENSION: &str = ".zip";

/// What the upload becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadTarget {
    /// A search input with this extension.
    SearchInput {
        /// Lower-case extension with the dot.
        extension: String,
    },
    /// A company-database file at this stored path.
    Database(StoredPath),
}

/// The parameters of an upload that this service acts on (legacy and internal ones are accepted and
/// ignored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadParams {
    /// Search input or database file.
    pub target: UploadTarget,
    /// Queue for indexing and answer at once (search inputs only).
    pub index_async: bool,
    /// The UID to use (canonical), overwriting a file of the company with that UID.
    pub uid: Option<String>,
    /// Duplicate-path behaviour of database uploads.
    pub overwrite_file: Option<bool>,
    /// Attributes of a database upload.
    pub attributes: Option<Vec<Attribute>>,
    /// The body is gzipped.
    pub gzipped: bool,
    /// Kept with the record for callbacks.
    pub callback_param: Option<String>,
    /// `textOnly=true`: index the file's text and attributes only.
    pub text_only: bool,
    /// `categoryId`: the company's category a database file is filed under.
    pub category_id: Option<i64>,
    /// `indexAssemblyComponents=true`: a database assembly's components get records of their own
    /// ([`crate::assembly_components`]).
    pub index_assembly_components: bool,
}

impl UploadParams {
    /// Reads the query of `PUT /api/File` and the binary endpoints. `async_allowed` is false for
    /// `PUT /api/FileBinaryDirect`, where `indexAsync` does not exist.
    pub fn from_query(query: &QueryString, async_allowed: bool) -> Result<Self, ServiceError> {
        let file = text_param(query, "file").ok_or_else(|| {
            ServiceError::BadRequest(
                "the file parameter is required: the extension of a search input (file=.png) or the \
                 stored path of a database file"
                    .into(),
            )
        })?;
        let is_search_input = bool_param(query, "isSearchInput", true)?;
        let index_async = async_allowed && bool_param(query, "indexAsync", false)?;
        let target = if is_search_input {
            UploadTarget::SearchInput {
                extension: parse_search_input_extension(file)?,
            }
        } else {
            UploadTarget::Database(StoredPath::parse(file)?)
        };
        if let UploadTarget::SearchInput { extension } = &target
            && index_async
            && extension == ZIP_EXTENSION
        {
            return Err(ServiceError::BadRequest(
                ".zip search inputs cannot be indexed asynchronously; upload without indexAsync"
                    .into(),
            ));
        }
        let attributes = match (&target, text_param(query, "attributes")) {
            (UploadTarget::Database(_), Some(nested)) => Some(
                decode_nested_attributes_query(nested)
                    .into_iter()
                    .map(|(name, value)| {
                        let attribute = Attribute::parse(&format!("{name}={value}"))
                            .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
                        attribute
                            .validate()
                            .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
                        Ok(attribute)
                    })
                    .collect::<Result<Vec<_>, ServiceError>>()?,
            ),
            _ => None,
        };
        Ok(Self {
            index_async: index_async && matches!(target, UploadTarget::SearchInput { .. }),
            target,
            uid: optional_uid_param(query, "uid")?,
            overwrite_file: optional_bool_param(query, "overwriteFile")?,
            attributes,
            gzipped: bool_param(query, "isGZipCompressed", false)?,
            callback_param: text_param(query, "callbackParam").map(str::to_owned),
            text_only: bool_param(query, "textOnly", false)?,
            category_id: optional_integer_param(query, "categoryId")?,
            index_assembly_components: bool_param(query, "indexAssemblyComponents", false)?,
        })
    }

    /// True for a search input, false for a company-database file.
    pub fn is_search_input(&self) -> bool {
        matches!(self.target, UploadTarget::SearchInput { .. })
    }

    /// The lower-case extension with the dot.
    pub fn extension(&self) -> &str {
        match &self.target {
            UploadTarget::SearchInput { extension } => extension,
            UploadTarget::Database(path) => &path.extension,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_as_documented() {
        let query = QueryString::parse(
            "file=Design%2Fbracket.png&isSearchInput=false&indexAsync=true&attributes=material%3Dsteel%26region%3DEU%257CUS&overwriteFile=false&rmIfDup=true&isPriority=true",
        );
        let params = UploadParams::from_query(&query, true).unwrap();
        assert!(
            !params.index_async,
            "database files are indexed during the call"
        );
        assert_eq!(params.overwrite_file, Some(false));
        let attributes = params.attributes.unwrap();
        assert_eq!(attributes[1].values, vec!["EU", "US"]);
        match params.target {
            UploadTarget::Database(path) => assert_eq!(path.path, "Design/bracket.png"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn zip_with_index_async_and_bad_values_are_refused() {
        for query in [
            "file=.zip&indexAsync=true",
            "",
            "file=.png&uid=nope",
            "file=.png&indexAsync=maybe",
            "file=..%2Fx.png&isSearchInput=false",
        ] {
            assert!(
                matches!(
                    UploadParams::from_query(&QueryString::parse(query), true),
                    Err(ServiceError::BadRequest(_))
                ),
                "{query}"
            );
        }
        let direct =
            UploadParams::from_query(&QueryString::parse("file=.zip&indexAsync=true"), false);
        assert!(!direct.unwrap().index_async);
    }

    /// Waits (with a deadline) until the file's indexing has ended, and returns its state.

    #[test]
    fn search_inputs_ignore_attributes() {
        let query = QueryString::parse("file=.png&attributes=a%3Db");
        assert_eq!(
            UploadParams::from_query(&query, true).unwrap().attributes,
            None
        );
    }
}
