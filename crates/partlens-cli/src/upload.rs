//! `upload FILE [--database PATH] [--attr NAME=VALUE]... [--components] [--async] [--wait] [--encoding …] [--uid GUID]`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::error::CliError;
use super::output::{print_json, upload_progress};
use super::session::Session;
use super::status::{IndexingEnd, wait_until_indexed};
use partlens_api::{
    ApiError, Attribute, FileStatus, FileUid, UploadEncoding, UploadRequest, UploadSource,
};

/// Which upload endpoint carries the bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    /// PUT /api/FileBinary: raw bytes streamed from disk.
    #[default]
    Binary,
    /// PUT /api/File: a JSON string of base64 (the legacy form), streamed.
    Base64,
    /// PUT /api/FileBinaryDirect: raw bytes; the service answers with the record (no --async).
    Direct,
}

impl From<EncodingArg> for UploadEncoding {
    fn from(value: EncodingArg) -> Self {
        match value {
            EncodingArg::Binary => Self::Binary,
            EncodingArg::Base64 => Self::Base64,
            EncodingArg::Direct => Self::Direct,
        }
    }
}

/// The long help of `upload` (shown by `--help`).
pub const UPLOAD_HELP: &str = "Upload a file.\n\n\
Without --database the file becomes a search input (the service is told only its extension); with \
--database PATH it becomes a company-database file stored at PATH (<folder>/<name>.<ext>), with the \
--attr attributes applied; with --components an assembly's components get records of their own too \
(see where-used and components).\n\n\
Prints {\"uid\": \"...\", \"state\": \"completed|in_progress|failed\"}: after a synchronous upload the \
state is read once from the service (failed when the content could not be indexed); --async (search \
inputs) returns at once, in_progress; --wait polls the indexing state every 2 s, backing off to 5 s, \
with a deadline that grows with the file size, and prints the final state. A failed file also gets \
\"reason\": why, in the service's words, when the service says. When the state is failed or \
unknown (or still in_progress after --wait) the command prints the JSON and exits with status 1.\n\n\
The file is streamed from disk; the service needs at least 1024 bytes (1024 base64 characters with \
--encoding base64).";

/// Arguments of `upload`.
#[derive(Debug, Args)]
pub struct UploadArgs {
    /// The file to upload.
    pub file: PathBuf,
    /// Store the file in the company database at this path (<folder>/<name>.<ext>) instead of
    /// uploading a search input.
    #[arg(long, value_name = "PATH")]
    pub database: Option<String>,
    /// An attribute for a --database file: NAME=VALUE, NAME(UNIT)=VALUE, several values as A|B.
    /// Repeat for more.
    #[arg(long = "attr", value_name = "NAME=VALUE")]
    pub attributes: Vec<String>,
    /// Index asynchronously (search inputs): return the UID at once, state in_progress.
    #[arg(long = "async")]
    pub index_async: bool,
    /// Poll the indexing state until it ends and print the final state.
    #[arg(long)]
    pub wait: bool,
    /// Which upload endpoint to use.
    #[arg(long, value_enum, default_value_t = EncodingArg::Binary)]
    pub encoding: EncodingArg,
    /// Choose the file's UID (a GUID); an existing file with that UID is overwritten.
    #[arg(long, value_name = "GUID")]
    pub uid: Option<String>,
    /// Also index an assembly's components (indexAssemblyComponents=true): each distinct
    /// component of a --database model gets a record of its own under the assembly's path.
    #[arg(long)]
    pub components: bool,
}

/// The JSON line of `upload`.
#[derive(Debug, Serialize)]
struct UploadLine<'a> {
    uid: &'a str,
    state: &'static str,
    /// Why indexing failed, in the service's words (only for a failed file whose service says).
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// Builds the upload request from the arguments, refusing what the interface does not allow.
pub fn upload_request(args: &UploadArgs) -> Result<UploadRequest, CliError> {
    let source = UploadSource::Path(args.file.clone());
    let mut request = match &args.database {
        Some(stored_path) => {
            if args.index_async {
                return Err(CliError::Usage(
                    "--async applies to search inputs only; the service indexes --database uploads its own way (add --wait to poll)".into(),
                ));
            }
            let attributes = args
                .attributes
                .iter()
                .map(|text| Attribute::parse(text))
                .collect::<Result<Vec<_>, _>>()?;
            UploadRequest::database(source, stored_path.clone(), attributes)
        }
        None => {
            if args.components {
                return Err(CliError::Usage(
                    "--components applies only to company-database models: add --database <folder>/<name>.<ext>".into(),
                ));
            }
            if !args.attributes.is_empty() {
                return Err(CliError::Usage(
                    "--attr applies only to company-database uploads: add --database <folder>/<name>.<ext>, or set attributes later with `attrs set`".into(),
                ));
            }
            UploadRequest::search_input(source)
        }
    };
    request.encoding = args.encoding.into();
    request.index_async = args.index_async;
    request.uid = args.uid.as_deref().map(FileUid::parse).transpose()?;
    request.index_assembly_components = args.components.then_some(true);
    Ok(request)
}

/// Runs `upload`.
pub async fn run(args: UploadArgs, session: &mut Session) -> Result<(), CliError> {
    let request = upload_request(&args)?;
    // The interface's rules are checked before logging in, so a refused upload sends nothing.
    let size = request.source.size().await?;
    request.validate(size)?;
    let client = session.client().await?;
    let progress = upload_progress(&request.source.file_name());
    let outcome = client
        .upload(&request, progress)
        .await
        .map_err(|error| match error {
            // The spec's 403 body is `false`; an upload is refused only for overwriting by --uid.
            ApiError::Forbidden { .. } => ApiError::Forbidden {
                message: "only an admin may overwrite another user's search input or turn a \
                          company-database file into a search input; choose another --uid or \
                          leave it out"
                    .into(),
            },
            other => other,
        })?;
    let end = if args.wait {
        wait_until_indexed(client, &outcome.uid, size).await?
    } else if request.index_async {
        IndexingEnd {
            status: FileStatus::InProgress,
            timed_out_after: None,
        }
    } else {
        // A synchronous upload returns once indexing has ended, but it may have ended failed (content
        // that does not decode still gets a UID): ask once instead of claiming it completed.
        IndexingEnd {
            status: client.file_status(&outcome.uid).await?,
            timed_out_after: None,
        }
    };
    print_json(&UploadLine {
        uid: outcome.uid.as_str(),
        state: end.status.name(),
        reason: match &end.status {
            FileStatus::Failed { reason } => reason.as_deref(),
            _ => None,
        },
    })?;
    match end.failure(&outcome.uid) {
        // Without --wait, still being indexed is an answer, not a failure.
        Some(_) if !args.wait && end.status == FileStatus::InProgress => Ok(()),
        Some(error) => Err(error),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(file: &str) -> UploadArgs {
        UploadArgs {
            file: PathBuf::from(file),
            database: None,
            attributes: Vec::new(),
            index_async: false,
            wait: false,
            encoding: EncodingArg::Binary,
            uid: None,
            components: false,
        }
    }

    #[test]
    fn components_are_asked_for_database_models_only() {
        let mut search_input = args("as1.step");
        search_input.components = true;
        assert!(matches!(
            upload_request(&search_input),
            Err(CliError::Usage(text)) if text.contains("--components")
        ));
        let mut database = args("as1.step");
        database.database = Some("Assemblies/as1.step".into());
        assert_eq!(
            upload_request(&database).unwrap().index_assembly_components,
            None
        );
        database.components = true;
        let request = upload_request(&database).unwrap();
        assert_eq!(request.index_assembly_components, Some(true));
    }

    #[test]
    fn attributes_need_a_database_path() {
        let mut search_input = args("a.png");
        search_input.attributes = vec!["material=steel".into()];
        assert!(matches!(
            upload_request(&search_input),
            Err(CliError::Usage(text)) if text.contains("--database")
        ));
        search_input.database = Some("Design/a.png".into());
        let request = upload_request(&search_input).unwrap();
        assert_eq!(request.file_param(), "Design/a.png");
    }

    #[test]
    fn attribute_values_may_hold_several_values() {
        let mut database = args("a.png");
        database.database = Some("Design/a.png".into());
        database.attributes = vec!["region=EU|US".into()];
        let request = upload_request(&database).unwrap();
        let partlens_api::UploadRole::Database { attributes, .. } = request.role else {
            panic!("not a database upload")
        };
        assert_eq!(attributes[0].values, vec!["EU", "US"]);
    }

    #[test]
    fn bad_uids_and_attributes_are_refused() {
        let mut bad_uid = args("a.png");
        bad_uid.uid = Some("not-a-guid".into());
        assert!(upload_request(&bad_uid).is_err());
        let mut bad_attr = args("a.png");
        bad_attr.database = Some("Design/a.png".into());
        bad_attr.attributes = vec!["material".into()];
        assert!(upload_request(&bad_attr).is_err());
    }
}
