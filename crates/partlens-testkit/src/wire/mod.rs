//! Support of the tests that check the client side of the wire (partlens-tasks' `tests/tasks/wire.rs`, partlens-cli's `tests/cli/commands.rs`): the strict
//! wire-checking server and test files.

pub mod server;

use std::path::{Path, PathBuf};

/// Writes a file of `size` bytes with varied content (so that encodings are exercised) and returns
/// its path.
pub fn test_file(dir: &Path, name: &str, size: usize) -> PathBuf {
    let path = dir.join(name);
    let content: Vec<u8> = (0..size).map(|i| (i * 7 + i / 251) as u8).collect();
    std::fs::write(&path, content).unwrap();
    path
}
