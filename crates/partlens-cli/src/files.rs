//! `file UID | file --name PATH` (the record as the service gives it) and `delete UID`.

use clap::{ArgGroup, Args};
use serde::Serialize;

use super::error::CliError;
use super::output::print_json;
use super::session::Session;
use partlens_api::{ApiError, FileRef, FileUid, GetFileRequest};

/// The long help of `file` (shown by `--help`).
pub const FILE_HELP: &str = "Print a file record (GET /api/File): the FileMap exactly as the service gives it (UID, \
FileName, DisplayName, Attributes, ExtractedAttributes, image URLs, IndexingFinished, …), by UID or by \
full stored path.";

/// Arguments of `file`.
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("which").required(true).args(["uid", "name"]))
)]
pub struct FileArgs {
    /// The file's UID (a GUID).
    pub uid: Option<String>,
    /// The file's full stored path (<folder>/<name>.<ext>) instead of its UID.
    #[arg(long, value_name = "PATH", conflicts_with = "uid")]
    pub name: Option<String>,
}

impl FileArgs {
    /// The file the arguments name.
    pub fn file_ref(&self) -> Result<FileRef, CliError> {
        file_ref(self.uid.as_deref(), self.name.as_deref())
    }
}

/// A file by UID or by stored path, from a UID argument and a `--name` option.
pub fn file_ref(uid: Option<&str>, name: Option<&str>) -> Result<FileRef, CliError> {
    match (uid, name) {
        (Some(uid), None) => Ok(FileRef::Uid(FileUid::parse(uid)?)),
        (None, Some(name)) => {
            let file = FileRef::Name(name.trim().to_owned());
            file.validate()?;
            Ok(file)
        }
        _ => Err(CliError::Usage(
            "name the file by UID or by --name PATH (one of them)".into(),
        )),
    }
}

/// The long help of `delete` (shown by `--help`).
pub const DELETE_HELP: &str = "Delete a file (DELETE /api/File) and print {\"deleted\": true}.\n\n\
A non-admin user may delete only the search inputs they uploaded; deleting company-database files \
needs an admin (the service answers 403 otherwise). Deleting an unknown or already deleted file fails \
with 404.";

/// Arguments of `delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The file's UID (a GUID).
    pub uid: String,
}

/// The JSON line of `delete`.
#[derive(Debug, Serialize)]
struct DeletedLine {
    deleted: bool,
}

/// Runs `file`.
pub async fn run_file(args: FileArgs, session: &mut Session) -> Result<(), CliError> {
    let request = GetFileRequest::new(args.file_ref()?);
    let client = session.client().await?;
    let record = client.get_file_json(&request).await?;
    print_json(&record)
}

/// Runs `delete`.
pub async fn run_delete(args: DeleteArgs, session: &mut Session) -> Result<(), CliError> {
    let uid = FileUid::parse(&args.uid)?;
    let client = session.client().await?;
    client
        .delete_file(&uid, None)
        .await
        .map_err(|error| match error {
            // The spec's 403 body is `false`; say what the rule is instead.
            ApiError::Forbidden { .. } => ApiError::Forbidden {
                message: "only an admin may delete company-database files; other users may delete only the search inputs they uploaded".into(),
            },
            other => other,
        })?;
    print_json(&DeletedLine { deleted: true })
}
