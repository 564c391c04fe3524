//! `image UID [--large] --out PATH`: downloads the record's thumbnail (or large image) as the URL is
//! given, and writes it atomically (a temporary file beside PATH, then a rename).

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use super::error::CliError;
use super::output::print_json;
use super::session::Session;
use crate::api::{FileRef, FileUid, GetFileRequest};

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

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
pub async fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "image".to_owned());
    let temporary = path.with_file_name(format!(
        ".{file_name}.{}.partial",
        uuid::Uuid::new_v4().simple()
    ));
    let written = async {
        let mut file = tokio::fs::File::create(&temporary).await?;
        tokio::io::AsyncWriteExt::write_all(&mut file, bytes).await?;
        file.sync_all().await?;
        drop(file);
        tokio::fs::rename(&temporary, path).await
    }
    .await;
    if let Err(error) = written {
        // The temporary file may or may not exist; either way it must not stay behind.
        let _ = tokio::fs::remove_file(&temporary).await;
        return Err(CliError::Local(format!(
            "cannot write {}: {error}",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn writes_replace_the_file_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("thumb.png");
        std::fs::write(&path, b"old").unwrap();
        write_atomically(&path, b"new image").await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new image");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing_dir = dir.path().join("nope").join("x.png");
        assert!(write_atomically(&missing_dir, b"x").await.is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
