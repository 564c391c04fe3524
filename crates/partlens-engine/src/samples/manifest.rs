//! The sample library's manifest (`manifest.json` beside the files): which file is which part,
//! where it is stored in the company database, its attributes and its query views. One type for
//! everything that reads or writes it: the local workspace seeds a new workspace from it, the
//! generators in `examples/` write it, and the engine's and the CLI's tests read it.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The manifest's file name inside a sample library's folder.
pub const MANIFEST_FILE_NAME: &str = "manifest.json";

/// The sample library's manifest (`assets/samples/manifest.json`). Written by the generators in
/// `examples/` (pictures, then models, then drawings: each later one replaces only its folder's
/// entries) and read when a workspace is seeded.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct SampleManifest {
    /// The parts.
    pub parts: Vec<SamplePart>,
}

/// One file of the sample library: a part's picture, model or drawing.
#[derive(Debug, Deserialize, Serialize)]
pub struct SamplePart {
    /// The file, relative to the manifest's folder (`gear.png`, `models/gear.stl`).
    pub file: String,
    /// Where it is stored in the company database.
    pub stored_path: String,
    /// Its attributes in wire form (`material=steel|stainless steel`).
    #[serde(default)]
    pub attributes: Vec<String>,
    /// Query views of the part (photos to search with), relative to the manifest's folder; not
    /// uploaded. Pictures have two; models and drawings none.
    #[serde(default)]
    pub views: Vec<String>,
}

impl SampleManifest {
    /// The attributes of the part whose file is `file`, if the manifest has it.
    pub fn attributes_of(&self, file: &str) -> Option<&[String]> {
        self.parts
            .iter()
            .find(|part| part.file == file)
            .map(|part| part.attributes.as_slice())
    }
}

/// Reads the manifest of a sample library.
pub fn read_manifest(samples_dir: &Path) -> Result<SampleManifest, String> {
    let path = samples_dir.join(MANIFEST_FILE_NAME);
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|error| format!("{} is not a manifest: {error}", path.display()))
}

/// Writes the manifest of a sample library (pretty JSON, one trailing newline).
pub fn write_manifest(samples_dir: &Path, manifest: &SampleManifest) -> Result<(), String> {
    let path = samples_dir.join(MANIFEST_FILE_NAME);
    let mut text = serde_json::to_string_pretty(manifest)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    text.push('\n');
    std::fs::write(&path, text).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_format_of_the_sample_library_is_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(MANIFEST_FILE_NAME),
            r#"{"parts":[{"file":"flange.png","stored_path":"Samples/flange.png",
                "attributes":["part_number=PL-1001","material=steel|stainless steel","weight(kg)=1.2"],
                "views":["views/flange-a.png","views/flange-b.jpg"]}]}"#,
        )
        .unwrap();
        let manifest = read_manifest(dir.path()).unwrap();
        assert_eq!(manifest.parts.len(), 1);
        assert_eq!(manifest.parts[0].stored_path, "Samples/flange.png");
        assert_eq!(manifest.parts[0].attributes.len(), 3);
        assert!(read_manifest(&dir.path().join("missing")).is_err());
    }
}
