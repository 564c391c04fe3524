//! Writing a file so that readers never see it half written: a temporary file beside the target,
//! synced, then renamed over it. Used for exported result lists and downloaded images.

use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`. On failure the
/// temporary file is removed and `path` is left as it was.
pub async fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
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
    if written.is_err() {
        // The temporary file may or may not exist; either way it must not stay behind.
        let _ = tokio::fs::remove_file(&temporary).await;
    }
    written
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
