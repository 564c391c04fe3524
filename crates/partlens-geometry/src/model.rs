//! A model file read: what it says about the part in words (product data: part numbers, names,
//! materials…), its shape as a mesh, and for an assembly its product tree, kept apart so that a
//! file whose shape cannot be meshed still gives its words.

use super::{GeometryError, Mesh, ProductTree};

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
    /// The shape, or why there is none. For an assembly, the product assembled: each component's
    /// mesh placed where the assembly puts it, once per occurrence.
    pub mesh: Result<Mesh, GeometryError>,
    /// For an assembly (a STEP file with at least one usage of a product by another), its product
    /// tree, whose occurrences say which triangles of `mesh` each component owns; `None` for a
    /// single part, a file of several unrelated products, a mesh format, or when the mesh was
    /// refused.
    pub assembly: Option<ProductTree>,
}

impl ModelReading {
    /// A reading of words and a mesh without a product tree.
    pub fn of(description: ModelDescription, mesh: Result<Mesh, GeometryError>) -> Self {
        Self {
            description,
            mesh,
            assembly: None,
        }
    }
}
