//! The product tree of an assembly, as both STEP readers give it: every distinct product (leaf part
//! or subassembly) with its own mesh, every usage of a product by an assembly (quantity, reference
//! designators, the placement of each instance), and every occurrence of the assembled mesh with
//! the triangles it owns, so a caller can list the components, open one, and highlight the one
//! chosen in a tree.
//!
//! The tree is what crosses the reader-worker boundary beside the mesh, so every type here is
//! `serde` serialisable (postcard on the sandbox's wire, JSON anywhere else).
//!
//! How the assembled mesh relates to the tree: the occurrences are listed depth-first from each
//! root, and each occurrence's triangles (its own geometry, then its components' in order) are
//! one contiguous range of [`crate::Mesh::triangles`], so the range of a subassembly holds the
//! ranges of everything in it. Geometry of the file that no product of the tree reaches (a writer
//! that did not link a solid to its product) is drawn where it was modelled, after every
//! occurrence, and belongs to none.
//!
//! Limits, stated by both readers and checked before anything is meshed (a tree that breaks one is
//! refused with [`crate::GeometryError::OverLimit`] or, for a cycle, `Malformed` naming the usage):
//! at most [`MAX_COMPONENTS`] distinct products, [`MAX_ASSEMBLY_DEPTH`] levels of usage below the
//! top, [`MAX_OCCURRENCES`] occurrences once every usage is expanded by its quantity, and no product
//! that uses itself; the assembled mesh then meets the mesh builder's [`crate::MAX_TRIANGLES`] and
//! [`crate::MAX_VERTICES`], counted before it is built.

mod compose;
mod limits;
mod parts;
mod placement;
mod stl;

use std::ops::Range;

use serde::{Deserialize, Serialize};

pub(crate) use compose::{AssemblyParts, assemble};
pub(crate) use limits::{TreeShape, check_tree_shape};
pub use parts::{
    MAX_COMPONENT_NAME_CHARS, MAX_MESH_PARTS, MeshPart, check_mesh_parts, component_names,
    mesh_parts, triangles_of,
};
pub use placement::Placement;
pub use stl::binary_stl;

use crate::{GeometryError, Mesh};

/// Most distinct products (leaf parts and subassemblies) an assembly may have.
pub const MAX_COMPONENTS: usize = 10_000;
/// Most levels of usage below an assembly's top (a top assembly of parts is one level deep).
pub const MAX_ASSEMBLY_DEPTH: usize = 50;
/// Most occurrences of an assembly once every usage is expanded by its quantity (the top counts as
/// one, each of its components as one each, and so on down).
pub const MAX_OCCURRENCES: usize = 100_000;

/// The product tree of an assembly file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProductTree {
    /// Every distinct product the tree holds, in the order the file defines them.
    pub products: Vec<Product>,
    /// Every usage of a product by an assembly, one per pair of parent and child.
    pub usages: Vec<Usage>,
    /// The products no assembly of the file uses (indices into `products`): the top of the tree,
    /// usually one.
    pub roots: Vec<usize>,
    /// Every placed instance in the assembled mesh, depth-first from each root.
    pub occurrences: Vec<Occurrence>,
}

/// One product of an assembly: a leaf part or a subassembly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Product {
    /// Unique within the tree and the same for the same product structure, whichever reader read
    /// it: the part number, else the name, else `product`, with ` #2`, ` #3`, … after the first
    /// when two products share it (in the order the file defines them). A key for
    /// [`crate::step::component_file`] and for telling components apart, not a file name.
    pub key: String,
    /// The entity number of the product's `PRODUCT_DEFINITION` in the file (`#123` is 123); 0 when
    /// the reader could not tell.
    pub definition_id: u64,
    /// `PRODUCT.id`: the part number.
    pub part_number: String,
    /// `PRODUCT.name`.
    pub name: String,
    /// `PRODUCT.description`.
    pub description: String,
    /// The version of its definition (`PRODUCT_DEFINITION_FORMATION.id`), empty when none is
    /// stated.
    pub revision: String,
    /// True when it uses other products (it is the parent of a usage).
    pub is_assembly: bool,
    /// The geometry of the product itself, without its components, in its own coordinates, in
    /// millimetres: a leaf part's whole shape; for a subassembly what it holds besides its
    /// components (usually nothing). The subassembly assembled is [`ProductTree::product_mesh`].
    pub own_mesh: Mesh,
    /// Lowest and highest corner of the product assembled in its own coordinates (millimetres);
    /// `None` when it has no triangle.
    pub extents: Option<[[f32; 3]; 2]>,
}

/// The use of one product (the child) in an assembly (the parent).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// The assembly (index into [`ProductTree::products`]).
    pub parent: usize,
    /// The component (index into [`ProductTree::products`]).
    pub child: usize,
    /// How many of the child the parent holds: the sum of the usages' stated quantities
    /// (`QUANTIFIED_ASSEMBLY_COMPONENT_USAGE`, 1 for an occurrence without one), at least the
    /// number of placements.
    pub quantity: u64,
    /// The reference designators of its occurrences, where the file gives them (`R1`, `bolt_3`).
    pub reference_designators: Vec<String>,
    /// Where each placed instance of the child sits: from the child's coordinates to the
    /// parent's, in millimetres. One a usage entity of the file; drawn once each.
    pub placements: Vec<Placement>,
}

/// One placed instance of a product in the assembled mesh.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Occurrence {
    /// The product placed (index into [`ProductTree::products`]).
    pub product: usize,
    /// The occurrence it is a component of (index into [`ProductTree::occurrences`]); `None` for
    /// a root.
    pub parent: Option<usize>,
    /// The usage it instantiates and which of its placements (indices into
    /// [`ProductTree::usages`] and [`Usage::placements`]); `None` for a root.
    pub usage: Option<(usize, usize)>,
    /// From the product's own coordinates to the assembly's (the root's), in millimetres: the
    /// placements from the root down, composed.
    pub placement: Placement,
    /// Its triangles in the assembled mesh: its own geometry and all of its components'.
    pub triangles: Range<u32>,
}

impl ProductTree {
    /// The products that use none (the leaf parts).
    pub fn leaves(&self) -> impl Iterator<Item = &Product> {
        self.products.iter().filter(|product| !product.is_assembly)
    }

    /// The usages of the product at `parent`: its direct components.
    pub fn usages_of(&self, parent: usize) -> impl Iterator<Item = &Usage> {
        self.usages
            .iter()
            .filter(move |usage| usage.parent == parent)
    }

    /// The assemblies that use the product at `child` directly (indices, each once).
    pub fn parents_of(&self, child: usize) -> Vec<usize> {
        let mut parents: Vec<usize> = self
            .usages
            .iter()
            .filter(|usage| usage.child == child)
            .map(|usage| usage.parent)
            .collect();
        parents.sort_unstable();
        parents.dedup();
        parents
    }

    /// The product whose key is `key`.
    pub fn product_by_key(&self, key: &str) -> Option<usize> {
        self.products.iter().position(|product| product.key == key)
    }

    /// The innermost occurrence that triangle `triangle` of the assembled mesh belongs to (the
    /// part a click on the picture hit); `None` for geometry no product reaches.
    pub fn occurrence_of_triangle(&self, triangle: u32) -> Option<usize> {
        // Depth-first order: the innermost holder is the last one that contains it.
        self.occurrences
            .iter()
            .rposition(|occurrence| occurrence.triangles.contains(&triangle))
    }

    /// The product at `index` assembled in its own coordinates (millimetres): a leaf part's own
    /// mesh; a subassembly's own geometry and every component placed, each instance once.
    pub fn product_mesh(&self, index: usize) -> Result<Mesh, GeometryError> {
        compose::product_mesh(self, index)
    }

    /// Which triangles of the assembled mesh are which placed component ([`mesh_parts`]).
    pub fn mesh_parts(&self) -> Vec<MeshPart> {
        parts::mesh_parts(self)
    }
}
