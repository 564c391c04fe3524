//! Where the app keeps its data (job list, sync records, the local workspace's service): one answer
//! for the app and the command line, so that both find the same sync records.

use std::path::PathBuf;

/// The environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "PARTLENS_DATA_DIR";

/// The data directory: `$PARTLENS_DATA_DIR`, else the platform's (`~/.local/share/partlens` on
/// Linux, `~/Library/Application Support/partlens` on macOS, `%APPDATA%\partlens\data` on Windows).
pub fn default_data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "partlens").map(|dirs| dirs.data_dir().to_path_buf())
}
