//! `image UID [--large] --out PATH`: downloads the record's thumbnail (or large image) as the URL is
//! given, and writes it atomically (a temporary file beside PATH, then a rename).

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::error::CliError;
use super::output::print_json;
use super::session::Session;
use partlens_api::{FileRef, FileUid, GetFileRequest};

/// The long help of `image` (shown by `--help`).
pub const IMAGE_HELP: &str = "Download a file's thumbnail (ThumbNailURLFromID), or with --large its large image \
(PNGURLFromID), to PATH and print {\"path\": \"...\", \"bytes\": N}.\n\n\
The URL is fetched exactly as the record gives it (it may carry its own token and point at another \
host); the login token is sent only when the URL is on the service's own address. PATH is replaced \
atomically: it either keeps its old content or holds the whole image.";

/// Arguments of `image`.
#[derive(Debug, Args)]
pub struct ImageArgs {
    /// The file's UID (a GUID).
    pub uid: String,
    /// Download the large image instead of the thumbnail.
    #[arg(long)]
    pub large: bool,
    /// Where to write the image.
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
}

/// The JSON line of `image`.
#[derive(Debug, Serialize)]
struct ImageLine {
    path: String,
    bytes: usize,
}

/// Runs `image`.
pub async fn run(args: ImageArgs, session: &mut Session) -> Result<(), CliError> {
    let uid = FileUid::parse(&args.uid)?;
    if args.out.as_os_str().is_empty() || args.out.is_dir() {
        return Err(CliError::Usage(format!(
            "--out \"{}\" must name a file",
            args.out.display()
        )));
    }
    let client = session.client().await?;
    let record = client
        .get_file(&GetFileRequest::new(FileRef::Uid(uid.clone())))
        .await?;
    let (url, what) = if args.large {
        (&record.large_image_url, "large image (PNGURLFromID)")
    } else {
        (&record.thumbnail_url, "thumbnail (ThumbNailURLFromID)")
    };
    if url.trim().is_empty() {
        return Err(CliError::Usage(format!("file {uid} has no {what}")));
    }
    let bytes = client.fetch_image(url).await?;
    write_atomically(&args.out, &bytes).await?;
    print_json(&ImageLine {
        path: args.out.display().to_string(),
        bytes: bytes.len(),
    })
}

/// Writes the image atomically (see [`partlens_tasks::atomic_write`]).
async fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    partlens_tasks::atomic_write::write_atomically(path, bytes)
        .await
        .map_err(|error| CliError::Local(format!("cannot write {}: {error}", path.display())))
}
