//! The worker's side of reading an assembly's components ([`super::components`] is the
//! service's side): the tree read and each product's file written inside the reader worker, within
//! [`MAX_COMPONENT_BYTES`]. Apart from the client so that the worker names nothing of the client.

use super::wire::{ComponentsWire, Outcome};

/// Most bytes of an assembly's component files together: each subassembly's file holds
/// everything below it, so a deep tree's files can come to many times the assembly's size.
pub const MAX_COMPONENT_BYTES: usize = 256 * 1024 * 1024;

/// The worker's side: reads the tree and writes the files, refusing files of more than
/// [`MAX_COMPONENT_BYTES`] together.
pub(crate) fn read_components(bytes: &[u8]) -> Outcome {
    use partlens_geometry::GeometryError;
    match partlens_geometry::step::component_tree(bytes) {
        Ok(None) => Outcome::Components(None),
        Ok(Some((tree, files))) => {
            let total: usize = files.iter().map(|file| file.bytes.len()).sum();
            if total > MAX_COMPONENT_BYTES {
                return Outcome::ComponentsRefused {
                    reason: format!(
                        "its components' files come to {total} bytes, more than {MAX_COMPONENT_BYTES}"
                    ),
                    over_limit: true,
                };
            }
            Outcome::Components(Some(ComponentsWire {
                tree,
                files: files.into_iter().map(|file| file.bytes).collect(),
            }))
        }
        Err(error) => Outcome::ComponentsRefused {
            over_limit: matches!(
                error,
                GeometryError::OverLimit(_) | GeometryError::TooLarge { .. }
            ),
            reason: error.to_string(),
        },
    }
}
