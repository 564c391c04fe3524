//! A model file read: what it says about the part in words (product data: part numbers, names,
//! materials…) and its shape as a mesh, kept apart so that a file whose shape cannot be meshed
//! still gives its words.

use super::{GeometryError, Mesh};

/// What a model file says about the part besides its shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelDescription {
    /// Free text (product names, descriptions, header), one item a line.
    pub text: String,
    /// Attributes, `name=value` (several values joined with `|`).
    pub attributes: Vec<String>,
}

impl ModelDescription {
    /// True when the file said nothing in words.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.attributes.is_empty()
    }
}

/// The outcome of reading a model file.
#[derive(Clone, Debug)]
pub struct ModelReading {
    /// What could be read of the words, even when the shape could not.
    pub description: ModelDescription,
    /// The shape, or why there is none.
    pub mesh: Result<Mesh, GeometryError>,
}
