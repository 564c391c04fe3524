//! `files [--offset N] [--limit N] [--kind K] [--folder F] [--exact name=value]`: one page of the
//! company's database files, newest first, as this project's service lists them
//! (`GET /api/Files`).

use clap::Args;

use super::error::CliError;
use super::output::print_json;
use super::session::Session;
use partlens_api::library::{FileKind, LibraryQuery, MAX_PAGE_FILES};
use partlens_api::{FilterTerm, SearchFilter};

/// The long help of `files` (shown by `--help`).
pub const FILES_HELP: &str = "List your company's database files, newest first, one page at a \
time (GET /api/Files, an extension of partlens's own service).\n\n\
Prints {\"TotalFiles\", \"Offset\", \"Files\": [...]}: TotalFiles counts every file the filters \
keep; each file has the fields of a search result (UID, FileName, DisplayName, image links, \
Attributes) and Kind (picture, model, drawing or other), Folder, Size in bytes, UploadedAt and \
State (queued, in_progress, completed or failed). Files still being indexed are listed too; with \
--exact, only files whose indexing has ended.";

/// Arguments of `files`.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// Files to skip from the newest.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Files on the page (1 to 500).
    #[arg(long, value_name = "N", default_value_t = partlens_api::library::DEFAULT_PAGE_FILES)]
    pub limit: usize,
    /// Only files of this kind: picture, model, drawing or other.
    #[arg(long, value_name = "K")]
    pub kind: Option<String>,
    /// Only files in this folder or below it (as stored, any case).
    #[arg(long, value_name = "F")]
    pub folder: Option<String>,
    /// Only files with this exact attribute value (name=value; repeatable, all must hold).
    #[arg(long, value_name = "NAME=VALUE")]
    pub exact: Vec<String>,
}

impl FilesArgs {
    /// The query these arguments ask for, or why they cannot be sent.
    pub fn query(&self) -> Result<LibraryQuery, CliError> {
        if !(1..=MAX_PAGE_FILES).contains(&self.limit) {
            return Err(CliError::Usage(format!(
                "--limit {}: a page holds 1 to {MAX_PAGE_FILES} files",
                self.limit
            )));
        }
        let kind = match &self.kind {
            None => None,
            Some(text) => Some(FileKind::from_param(text).ok_or_else(|| {
                CliError::Usage(format!(
                    "--kind {text}: use picture, model, drawing or other"
                ))
            })?),
        };
        let mut terms = Vec::new();
        for text in &self.exact {
            let Some((name, value)) = text.split_once('=') else {
                return Err(CliError::Usage(format!("--exact {text}: write name=value")));
            };
            terms.push(FilterTerm::Exact {
                name: name.trim().to_owned(),
                value: value.trim().to_owned(),
            });
        }
        Ok(LibraryQuery {
            offset: self.offset,
            limit: self.limit,
            kind,
            folder: self.folder.clone(),
            filter: SearchFilter::new().all_of(terms),
        })
    }
}

/// Runs `files`.
pub async fn run(args: FilesArgs, session: &mut Session) -> Result<(), CliError> {
    let query = args.query()?;
    let client = session.client().await?;
    print_json(&client.list_files_json(&query).await?)
}
