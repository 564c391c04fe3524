//! The company's database files as the Library lists them (`GET /api/Files`): newest upload first
//! (the latest content's upload time, then the later record), a page at a time, narrowed by the
//! files' extensions, a folder and the files a metadata filter selected.
//!
//! Without a metadata filter an engine reads the page itself (`LIMIT`/`OFFSET` over the company's
//! files). With one, the filter is resolved first by the search's own selection and the company's
//! UIDs are read newest first and kept when they match ([`Listing::page_of_matching`]): one pass
//! over the UIDs, a few milliseconds at ten thousand files.

use std::collections::HashSet;

use super::files::FileRecord;

/// Which extensions a listing keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtensionFilter {
    /// Files with one of these extensions (lower-case with the dot).
    OneOf(Vec<String>),
    /// Files with none of these extensions.
    NoneOf(Vec<String>),
}

/// What to list of a company's database files.
#[derive(Clone, Debug, Default)]
pub struct Listing<'a> {
    /// Only files whose extension passes this; all when `None`.
    pub extensions: Option<&'a ExtensionFilter>,
    /// Only files in this folder or below it (compared lower-cased); all when `None`.
    pub folder: Option<&'a str>,
    /// Only these UIDs (the files a metadata filter selected); all when `None`.
    pub matching: Option<&'a HashSet<String>>,
    /// Files skipped from the newest.
    pub offset: usize,
    /// Files on the page.
    pub limit: usize,
}

impl Listing<'_> {
    /// The folder's key prefix (`design/parts/`): a file is in the folder or below it when its
    /// path key starts with it.
    pub fn folder_prefix(&self) -> Option<String> {
        self.folder
            .map(|folder| format!("{}/", super::files::path_key(folder.trim_matches('/'))))
    }

    /// The page of the files among `newest_first` (every file the extensions and folder keep, in
    /// the listing's order) that [`Listing::matching`] holds, and how many it holds in all. Every
    /// file is kept when there is no such set.
    pub fn page_of_matching<E>(
        &self,
        newest_first: impl IntoIterator<Item = Result<String, E>>,
    ) -> Result<(usize, Vec<String>), E> {
        let mut total = 0;
        let mut page = Vec::new();
        for uid in newest_first {
            let uid = uid?;
            if self
                .matching
                .is_some_and(|matching| !matching.contains(&uid))
            {
                continue;
            }
            if total >= self.offset && page.len() < self.limit {
                page.push(uid);
            }
            total += 1;
        }
        Ok((total, page))
    }
}

/// One page of the listing and how many files it is a page of.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedPage {
    /// How many files satisfy the listing's conditions in all.
    pub total: usize,
    /// The page's records, newest first.
    pub records: Vec<FileRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_of_the_matching_files_counts_them_all() {
        let matching: HashSet<String> = ["b", "c", "e"].map(String::from).into();
        let listing = Listing {
            matching: Some(&matching),
            offset: 1,
            limit: 1,
            ..Listing::default()
        };
        let newest = ["a", "b", "c", "d", "e"].map(|uid| Ok::<_, ()>(uid.to_owned()));
        assert_eq!(
            listing.page_of_matching(newest).unwrap(),
            (3, vec!["c".into()])
        );
        let folder = Listing {
            folder: Some("/Design/Parts/"),
            ..Listing::default()
        };
        assert_eq!(folder.folder_prefix().as_deref(), Some("design/parts/"));
    }
}
