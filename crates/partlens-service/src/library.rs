//! The Library (`GET /api/Files`, this service's extension): every database file of the caller's
//! company, newest first, a page at a time, narrowed by kind (from the file's format), folder and
//! the FT conditions of a search's `filterStr`. Each file carries the fields of a search result
//! (no score), so a client shows it with the same cards, plus its kind, folder, size, upload time
//! and indexing state. Any user of the company may list, as for a search.
//!
//! Files whose indexing has not ended are listed too (an admin reviews here what a sync or a bulk
//! upload brought in); with a `filterStr`, only files a search by that filter finds are listed
//! (their indexing has ended).

use std::collections::HashSet;

use partlens_api::FilterTerm;
use partlens_api::encoding::QueryString;
use partlens_api::library::{FileKind, LibraryFile, LibraryPage, MAX_PAGE_FILES, folder_of};

use super::error::ServiceError;
use super::records::{ImageUrls, add_relation_counts, result_item};
use super::search_request::check_conditions;
use super::state::AppState;
use crate::caller::Caller;
use partlens_store::model::{ExtensionFilter, Listing};
use partlens_store::unix_now;

/// The page size when the caller gives no `limit`.
pub const DEFAULT_LIMIT: usize = partlens_api::library::DEFAULT_PAGE_FILES;

/// A library listing as the endpoint received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryRequest {
    /// Files skipped from the newest.
    pub offset: usize,
    /// Files on the page (1..=[`MAX_PAGE_FILES`]).
    pub limit: usize,
    /// Only files of this kind.
    pub kind: Option<FileKind>,
    /// Only files in this folder or below.
    pub folder: Option<String>,
    /// Only files that satisfy every one of these FT conditions.
    pub terms: Vec<FilterTerm>,
}

impl LibraryRequest {
    /// Reads `offset`, `limit` (1..=500, default 100), `kind`, `folder` and `filterStr`; a value
    /// out of range or naming no kind is a 400 that says what is accepted.
    pub fn from_query(query: &QueryString) -> Result<Self, ServiceError> {
        let number = |name: &str, default: usize| -> Result<usize, ServiceError> {
            match query.get(name).map(str::trim) {
                None | Some("") => Ok(default),
                Some(text) => text.parse::<usize>().map_err(|_| {
                    ServiceError::BadRequest(format!("{name}={text} is not a whole number"))
                }),
            }
        };
        let offset = number("offset", 0)?;
        let limit = number("limit", DEFAULT_LIMIT)?;
        if !(1..=MAX_PAGE_FILES).contains(&limit) {
            return Err(ServiceError::BadRequest(format!(
                "limit={limit}: a page holds 1 to {MAX_PAGE_FILES} files"
            )));
        }
        let kind = match query.get("kind").map(str::trim) {
            None | Some("") => None,
            Some(text) => Some(FileKind::from_param(text).ok_or_else(|| {
                ServiceError::BadRequest(format!(
                    "kind={text} is not a kind of file: use picture, model, drawing or other"
                ))
            })?),
        };
        let folder = query
            .get("folder")
            .map(|folder| folder.trim().trim_matches('/').to_owned())
            .filter(|folder| !folder.is_empty());
        let filter =
            crate::assembly_filter::parse_filter(query.get("filterStr").unwrap_or_default());
        if !filter.file_uids.is_empty() {
            return Err(ServiceError::BadRequest(
                "the library's filterStr takes FT conditions only, not fileUID".into(),
            ));
        }
        Ok(Self {
            offset,
            limit,
            kind,
            folder,
            terms: filter.terms().cloned().collect(),
        })
    }
}

/// The stored extensions (lower-case with the dot) of files of `kind`, also in their `.ifz` form;
/// none for [`FileKind::Other`], which is every extension not listed for the others.
fn extensions_of(kind: FileKind) -> Vec<String> {
    let listed: &[&str] = match kind {
        FileKind::Picture => partlens_engine::IMAGE_EXTENSIONS,
        FileKind::Model => partlens_geometry::MODEL_EXTENSIONS,
        FileKind::Drawing => partlens_engine::drawing::DRAWING_EXTENSIONS,
        FileKind::Other => &[],
    };
    listed
        .iter()
        .flat_map(|extension| [(*extension).to_owned(), format!("{extension}.ifz")])
        .collect()
}

/// The extension condition of a listing of `kind`: its formats, or for [`FileKind::Other`] none
/// of the others' formats.
fn extension_filter(kind: FileKind) -> ExtensionFilter {
    match kind {
        FileKind::Other => ExtensionFilter::NoneOf(
            FileKind::FILTERS
                .into_iter()
                .flat_map(extensions_of)
                .collect(),
        ),
        kind => ExtensionFilter::OneOf(extensions_of(kind)),
    }
}

/// The kind of a file from its stored extension (`.step.ifz` is a model).
pub fn kind_of_extension(extension: &str) -> FileKind {
    let extension = extension.to_ascii_lowercase();
    let format = extension.strip_suffix(".ifz").unwrap_or(&extension);
    FileKind::FILTERS
        .into_iter()
        .find(|&kind| extensions_of(kind).iter().any(|listed| listed == format))
        .unwrap_or(FileKind::Other)
}

/// One page of the caller's company's library.
pub async fn list(
    state: &AppState,
    caller: &Caller,
    request: LibraryRequest,
) -> Result<LibraryPage, ServiceError> {
    check_conditions(&request.terms, &state.config.limits)?;
    let company_id = caller.company_id.clone();
    let listed = state
        .store
        .read_tx(move |tx| -> Result<_, ServiceError> {
            // One snapshot (every read transaction is one): the filter, the page and its
            // attributes agree.
            let matching: Option<HashSet<String>> = if request.terms.is_empty() {
                None
            } else {
                Some(
                    tx.matching_database_files(&company_id, &request.terms)?
                        .into_iter()
                        .map(|candidate| candidate.uid)
                        .collect(),
                )
            };
            let extensions = request.kind.map(extension_filter);
            let page = tx.list_library_page(
                &company_id,
                &Listing {
                    extensions: extensions.as_ref(),
                    folder: request.folder.as_deref(),
                    matching: matching.as_ref(),
                    offset: request.offset,
                    limit: request.limit,
                },
            )?;
            let uids: Vec<String> = page
                .records
                .iter()
                .map(|record| record.uid.clone())
                .collect();
            let mut texts = tx.attribute_texts_of_files(&uids)?;
            let mut counts = tx.relation_counts(&uids)?;
            let records: Vec<_> = page
                .records
                .into_iter()
                .map(|record| {
                    let texts = texts.remove(&record.uid).unwrap_or_default();
                    let relations = counts.remove(&record.uid).unwrap_or_default();
                    (record, texts, relations)
                })
                .collect();
            Ok((page.total, request.offset, records))
        })
        .await?;
    let (total, offset, records) = listed;
    let urls = ImageUrls {
        links: &state.image_links,
        origin: &state.public_origin,
        viewer: caller,
        now: unix_now(),
    };
    let files = records
        .iter()
        .map(|(record, texts, relations)| LibraryFile {
            item: {
                let mut item = result_item(record, None, texts, &urls);
                add_relation_counts(&mut item.extra, *relations);
                item
            },
            kind: kind_of_extension(&record.extension),
            folder: folder_of(&record.stored_path).to_owned(),
            size: record.size,
            uploaded_at: record.uploaded_at.clone(),
            state: record.state.as_str().to_owned(),
        })
        .collect();
    Ok(LibraryPage {
        total_files: total as u64,
        offset: offset as u64,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(text: &str) -> Result<LibraryRequest, ServiceError> {
        LibraryRequest::from_query(&QueryString::parse(text))
    }

    #[test]
    fn parameters_default_and_out_of_range_ones_are_refused_with_what_is_accepted() {
        let plain = request("").unwrap();
        assert_eq!((plain.offset, plain.limit, plain.kind), (0, 100, None));
        let full = request("offset=20&limit=500&kind=Model&folder=/Parts/Brackets/").unwrap();
        assert_eq!(full.kind, Some(FileKind::Model));
        assert_eq!(full.folder.as_deref(), Some("Parts/Brackets"));
        for bad in [
            "limit=0",
            "limit=501",
            "offset=-1",
            "kind=sketch",
            "limit=ten",
        ] {
            let Err(ServiceError::BadRequest(message)) = request(bad) else {
                panic!("{bad} was accepted");
            };
            assert!(!message.is_empty());
        }
        assert!(request("filterStr=fileUID%3Dabc").is_err());
        assert_eq!(request("kind=other").unwrap().kind, Some(FileKind::Other));
    }

    #[test]
    fn kinds_follow_the_engines_formats() {
        assert_eq!(kind_of_extension(".png"), FileKind::Picture);
        assert_eq!(kind_of_extension(".STEP"), FileKind::Model);
        assert_eq!(kind_of_extension(".step.ifz"), FileKind::Model);
        assert_eq!(kind_of_extension(".pdf"), FileKind::Drawing);
        assert_eq!(kind_of_extension(".txt"), FileKind::Other);
    }
}
