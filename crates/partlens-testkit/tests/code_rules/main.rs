//! Rules of the code checked on the sources themselves, in one test binary: the file map of
//! docs/ARCHITECTURE.md is complete and true, and no library function is long without saying why.

mod architecture_map;
mod long_functions;

use std::path::{Path, PathBuf};

/// The workspace root: two levels above this crate's manifest.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
