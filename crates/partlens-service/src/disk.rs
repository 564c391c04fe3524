//! The data directory on disk: bodies being received under `tmp/`, and the private-file helpers
//! the service writes with. Uploaded bytes and rendered images are the blob store's (`blobs/`:
//! `files/` and `images/` here by default).
//!
//! Files are named by UID only: the stored path a client gives is a name in the record, never a path
//! on this disk, so no upload can write outside these folders whatever its name says.
//!
//! Privacy: on Unix the data directory and its folders are made `0700` and every file the service
//! writes `0600` (the database included), whatever the umask, so other users of the machine read
//! nothing. A folder that disappears while the service runs (someone cleaned `tmp/`) is made again
//! when a file is next written into it, instead of failing every upload until a restart.
//!
//! Several nodes on one PostgreSQL database may share one data directory (a shared mount): each
//! then receives bodies under `tmp/node-ID/` of its own ([`Disk::for_node`]), so that a node that
//! starts empties only its own folder, never the bodies another node is receiving.

use std::path::{Path, PathBuf};

pub use partlens_pictures::ImageKind;

/// The prefix of a node's own folder under `tmp/`.
const NODE_TMP_PREFIX: &str = "node-";

/// The layout of one data directory.
#[derive(Clone, Debug)]
pub struct Disk {
    root: PathBuf,
    /// The node whose `tmp/node-ID/` this layout receives bodies in (a data directory shared by
    /// nodes); `None`: `tmp/` itself.
    node: Option<String>,
}

impl Disk {
    /// The layout under `root`; [`Disk::create_folders`] makes the folders.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            node: None,
        }
    }

    /// The layout under `root` for node `node` of several sharing it: bodies are received under
    /// `tmp/node-ID/`.
    pub fn for_node(root: impl Into<PathBuf>, node: &str) -> Self {
        Self {
            root: root.into(),
            node: Some(node.to_owned()),
        }
    }

    /// Creates the data directory and `tmp/` (private: `0700`) and empties the folder bodies are received in (what
    /// is there belongs to requests of an earlier run). For a node ([`Disk::for_node`]) that is its
    /// own folder; the folders under `tmp/` of nodes not in `live_nodes` (gone: see
    /// `store/postgres/jobs.rs`) and loose files there (a run without nodes) go too.
    pub fn create_folders(&self, live_nodes: &[String]) -> std::io::Result<()> {
        create_private_dir(&self.root)?;
        let tmp = self.tmp_dir();
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp)?;
        }
        if self.node.is_some() {
            let shared = self.root.join("tmp");
            create_private_dir(&shared)?;
            for entry in std::fs::read_dir(&shared)? {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let live = name
                    .strip_prefix(NODE_TMP_PREFIX)
                    .is_some_and(|node| live_nodes.iter().any(|live| live == node));
                if live {
                    continue;
                }
                let path = entry.path();
                let gone = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
                // Another node starting at the same moment may have removed it first.
                if let Err(error) = gone
                    && error.kind() != std::io::ErrorKind::NotFound
                {
                    return Err(error);
                }
            }
        }
        create_private_dir(&tmp)
    }

    fn tmp_dir(&self) -> PathBuf {
        match &self.node {
            Some(node) => self
                .root
                .join("tmp")
                .join(format!("{NODE_TMP_PREFIX}{node}")),
            None => self.root.join("tmp"),
        }
    }

    /// Writes and removes a small file under `tmp/`: bodies can be received (readiness).
    pub async fn probe(&self) -> std::io::Result<()> {
        let probe = self.temp_path();
        tokio::task::spawn_blocking(move || {
            write_private(&probe, b"ready")?;
            std::fs::remove_file(&probe)
        })
        .await
        .map_err(std::io::Error::other)?
    }

    /// A fresh path under `tmp/` for a body being received.
    pub fn temp_path(&self) -> PathBuf {
        self.tmp_dir()
            .join(format!("{}.part", uuid::Uuid::new_v4().simple()))
    }
}

/// Removes a file; one that is not there is fine.
pub fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// Creates a folder and its missing parents, and makes it private (`0700` on Unix) whether it was
/// there or not.
pub fn create_private_dir(path: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(path)?;
    make_private(path, 0o700)
}

/// Sets the permission bits of `path` (Unix only; elsewhere nothing).
pub fn make_private(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Creates (or truncates) a file readable only by the service's user (`0600` on Unix). When its
/// folder is missing, the folder is made (private) and the file created there.
pub fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    match private_file_options().open(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                create_private_dir(parent)?;
            }
            private_file_options().open(path)
        }
        other => other,
    }
}

/// Makes sure a file exists (created empty when missing, never truncated) and is private.
pub fn ensure_private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?;
    make_private(path, 0o600)
}

/// [`create_private_file`] on a blocking thread, as a tokio file.
pub async fn create_private_file_async(path: &Path) -> std::io::Result<tokio::fs::File> {
    let path = path.to_owned();
    let file = tokio::task::spawn_blocking(move || create_private_file(&path))
        .await
        .map_err(std::io::Error::other)??;
    Ok(tokio::fs::File::from_std(file))
}

/// Writes `bytes` to a new private file at `path` (see [`create_private_file`]).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut file = create_private_file(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// Moves `from` to `to` (same file system); when `to`'s folder is missing it is made first.
pub fn move_into_place(from: &Path, to: &Path) -> std::io::Result<()> {
    match std::fs::rename(from, to) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && from.exists() => {
            if let Some(parent) = to.parent() {
                create_private_dir(parent)?;
            }
            std::fs::rename(from, to)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_folders_are_made_again_and_everything_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let disk = Disk::new(dir.path().join("data"));
        disk.create_folders(&[]).unwrap();
        std::fs::remove_dir_all(disk.tmp_dir()).unwrap();
        let temp = disk.temp_path();
        write_private(&temp, b"bytes").unwrap();
        let image = dir.path().join("data/images/u.lg.png");
        move_into_place(&temp, &image).unwrap();
        assert_eq!(std::fs::read(&image).unwrap(), b"bytes");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&image), 0o600);
            assert_eq!(mode(&dir.path().join("data/images")), 0o700);
            assert_eq!(mode(&disk.tmp_dir()), 0o700);
            assert_eq!(mode(&dir.path().join("data")), 0o700);
        }
    }

    #[test]
    fn a_node_empties_its_own_and_gone_nodes_bodies_never_a_live_nodes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("data");
        // What a run without nodes left, and the folders of two nodes, one still running.
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        std::fs::write(root.join("tmp/old.part"), b"x").unwrap();
        let live = Disk::for_node(&root, "live");
        let gone = Disk::for_node(&root, "gone");
        live.create_folders(&["live".into(), "gone".into()])
            .unwrap();
        gone.create_folders(&["live".into(), "gone".into()])
            .unwrap();
        let receiving = live.temp_path();
        write_private(&receiving, b"being received").unwrap();
        let left = gone.temp_path();
        write_private(&left, b"left behind").unwrap();

        let starting = Disk::for_node(&root, "new");
        starting
            .create_folders(&["live".into(), "new".into()])
            .unwrap();
        assert_eq!(std::fs::read(&receiving).unwrap(), b"being received");
        assert!(!left.exists());
        assert!(!root.join("tmp/old.part").exists());
        assert!(starting.tmp_dir().is_dir());
        assert_ne!(starting.tmp_dir(), live.tmp_dir());
    }
}
