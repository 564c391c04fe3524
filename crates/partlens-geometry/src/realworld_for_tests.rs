//! Files of the real-world corpus (`../shared/realworld/` beside the workspace) for this crate's
//! tests.

/// The bytes of `relative` (e.g. `iges/pyiges__sample.igs`) in the corpus; `None` (skipped, with a
/// line on stderr) when the corpus is missing, except on CI, where it must be there.
pub fn realworld_file(relative: &str) -> Option<Vec<u8>> {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/realworld");
    if !std::path::Path::new(folder).is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{folder}: the real-world corpus is missing"
        );
        eprintln!("skipped: {folder} is missing");
        return None;
    }
    let path = format!("{folder}/{relative}");
    Some(std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}")))
}
