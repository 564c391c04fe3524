//! A STEP assembly read by OpenCASCADE's XCAF (the C++ side is `occt_assembly.cpp`): the products
//! and components XCAF found, each product meshed once in its own coordinates, put together by the
//! same code as the pure-Rust reader's (`crate::assembly`), so both readers' trees and assembled
//! meshes are made alike.
//!
//! The file has passed the pure-Rust reader's checks first, its product tree included (no cycle,
//! within the assembly limits), so XCAF never walks a tree those refuse. XCAF knows products only
//! by their labels and names (and makes labels of its own: a part whose shape has a solid and a
//! wireframe becomes an "assembly" of a `SOLID` and a `COMPOUND`), so its labels are matched to
//! the pure-Rust reader's products from the roots down: a root by its name (XCAF names a label
//! after the product's name, else its id), a component among its parent's usages by name and
//! number of placements, else (a name decoded otherwise) by its number of placements among the
//! usages left, in order. A label that matches no usage of a matched parent is geometry of that
//! parent, placed where XCAF puts it. The words of each product (part number, name, description,
//! revision, its definition's entity number), each usage's stated quantity and reference
//! designators are the pure-Rust reader's. Limits: [`MAX_COMPONENTS`] labels, [`MAX_OCCURRENCES`]
//! components, the triangle budget over the labels' own meshes, then the assembled mesh's
//! (counted first).

use std::collections::HashMap;
use std::ffi::c_char;

use super::{OPENCASCADE, shim_triangles, words};
use crate::assembly::{
    AssemblyParts, MAX_ASSEMBLY_DEPTH, MAX_COMPONENTS, MAX_OCCURRENCES, assemble,
};
use crate::builder::MeshBuilder;
use crate::step::{StepBudget, StepStructure, StructureProduct, TOLERANCE_OF_SIZE, product_keys};
use crate::{GeometryError, Mesh, Placement, Product, ProductTree, Usage};

#[allow(unsafe_code)]
mod ffi {
    use std::ffi::{c_char, c_double, c_int, c_void};

    /// `PartlensOcctAssembly` of the shim.
    #[repr(C)]
    pub struct OcctAssembly {
        pub product_count: usize,
        pub is_assembly: *const u8,
        pub names: *const c_char,
        pub name_starts: *const usize,
        pub vertices: *const f32,
        pub vertex_ends: *const usize,
        pub triangles: *const u32,
        pub triangle_ends: *const usize,
        pub component_count: usize,
        pub component_parents: *const usize,
        pub component_children: *const usize,
        pub component_placements: *const f64,
        pub root_count: usize,
        pub roots: *const usize,
        pub owner: *mut c_void,
    }

    unsafe extern "C" {
        pub fn partlens_occt_read_assembly(
            bytes: *const u8,
            length: usize,
            seconds: c_double,
            max_products: usize,
            max_components: usize,
            max_triangles: usize,
            deflection_of_size: c_double,
            out: *mut *mut OcctAssembly,
            message: *mut c_char,
            message_length: usize,
        ) -> c_int;
        pub fn partlens_occt_free_assembly(assembly: *mut OcctAssembly);
    }
}

/// One label as XCAF gave it.
pub(super) struct XcafProduct {
    /// Its label's name.
    pub name: String,
    pub own_mesh: Mesh,
}

/// The tree as XCAF gave it: products, components (parent, child, placement), roots.
pub(super) struct XcafTree {
    pub products: Vec<XcafProduct>,
    pub components: Vec<(usize, usize, Placement)>,
    pub roots: Vec<usize>,
}

/// Reads the STEP assembly `bytes` through XCAF within `budget` and puts it together; the words and
/// stated quantities from `structure`, the pure-Rust reader's tree of the same file.
pub(crate) fn read_assembly_with_occt(
    bytes: &[u8],
    budget: StepBudget,
    structure: &StepStructure,
) -> Result<(Mesh, ProductTree), GeometryError> {
    let started = std::time::Instant::now();
    let xcaf = read_xcaf(bytes, budget)?;
    let parts = parts_of(xcaf, structure)?;
    let out_of_time = || {
        (started.elapsed() > budget.time).then_some(GeometryError::OutOfTime {
            seconds: budget.time.as_secs_f64(),
        })
    };
    assemble(parts, &out_of_time)
}

/// The shim's tree, copied into Rust.
#[allow(unsafe_code)]
pub(super) fn read_xcaf(bytes: &[u8], budget: StepBudget) -> Result<XcafTree, GeometryError> {
    if bytes.len() > super::MAX_OCCT_BYTES {
        return Err(GeometryError::TooLarge {
            limit: super::MAX_OCCT_BYTES,
        });
    }
    let _one_at_a_time = OPENCASCADE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut assembly: *mut ffi::OcctAssembly = std::ptr::null_mut();
    let mut message = [0 as c_char; 512];
    // SAFETY: `bytes` is valid for its length; `assembly` and `message` are valid for writing, and
    // the shim writes at most `message.len()` bytes, NUL-terminated. The shim catches every C++
    // exception, so none unwinds into Rust.
    let outcome = unsafe {
        ffi::partlens_occt_read_assembly(
            bytes.as_ptr(),
            bytes.len(),
            budget.time.as_secs_f64(),
            MAX_COMPONENTS,
            MAX_OCCURRENCES,
            budget.triangles,
            TOLERANCE_OF_SIZE,
            &mut assembly,
            message.as_mut_ptr(),
            message.len(),
        )
    };
    let result = match outcome {
        0 if !assembly.is_null() => {
            // SAFETY: on success the shim returned a filled assembly, valid until it is freed.
            copy_tree(unsafe { &*assembly })
        }
        2 => Err(GeometryError::OutOfTime {
            seconds: budget.time.as_secs_f64(),
        }),
        3 => Err(GeometryError::OverLimit(words(&message))),
        _ => Err(GeometryError::Malformed(words(&message))),
    };
    if !assembly.is_null() {
        // SAFETY: `assembly` came from partlens_occt_read_assembly and is freed once.
        unsafe { ffi::partlens_occt_free_assembly(assembly) };
    }
    result
}

/// Copies the shim's arrays, checking every count and index against the others.
#[allow(unsafe_code)]
fn copy_tree(assembly: &ffi::OcctAssembly) -> Result<XcafTree, GeometryError> {
    let damaged = || GeometryError::Malformed("OpenCASCADE's product tree is damaged".to_owned());
    let count = assembly.product_count;
    let components = assembly.component_count;
    // SAFETY: the shim's vectors behind these pointers hold exactly these counts (products,
    // components, roots; corners and triangles up to the last of their `_ends`), and live until
    // the assembly is freed; a count of 0 is never read through.
    let (vertex_ends, triangle_ends, names) = unsafe {
        (
            from_raw(assembly.vertex_ends, count),
            from_raw(assembly.triangle_ends, count),
            from_raw(assembly.name_starts, count),
        )
    };
    let corners = vertex_ends.last().copied().unwrap_or(0);
    let triangles = triangle_ends.last().copied().unwrap_or(0);
    // SAFETY: as above.
    let (vertices, indices, placements, parents, children, roots) = unsafe {
        (
            from_raw(assembly.vertices, corners * 3),
            from_raw(assembly.triangles, triangles * 3),
            from_raw(assembly.component_placements, components * 12),
            from_raw(assembly.component_parents, components),
            from_raw(assembly.component_children, components),
            from_raw(assembly.roots, assembly.root_count),
        )
    };
    let mut products = Vec::with_capacity(count);
    let (mut first_corner, mut first_triangle) = (0, 0);
    for product in 0..count {
        let (corner_end, triangle_end) = (vertex_ends[product], triangle_ends[product]);
        if corner_end < first_corner || triangle_end < first_triangle {
            return Err(damaged());
        }
        let own_mesh = shim_triangles(
            &vertices[first_corner * 3..corner_end * 3],
            &indices[first_triangle * 3..triangle_end * 3],
        )?;
        (first_corner, first_triangle) = (corner_end, triangle_end);
        // SAFETY: each name start points at a NUL-terminated string inside the shim's buffer.
        let name = unsafe { std::ffi::CStr::from_ptr(assembly.names.add(names[product])) };
        products.push(XcafProduct {
            name: name.to_string_lossy().trim().to_owned(),
            own_mesh,
        });
    }
    let mut tree = XcafTree {
        products,
        components: Vec::with_capacity(components),
        roots: roots.to_vec(),
    };
    for at in 0..components {
        let m = &placements[at * 12..at * 12 + 12];
        let placement = Placement {
            matrix: [0, 1, 2].map(|row| [0, 1, 2, 3].map(|column| m[row * 4 + column])),
        };
        if parents[at] >= count || children[at] >= count || !placement.is_finite() {
            return Err(damaged());
        }
        tree.components.push((parents[at], children[at], placement));
    }
    if tree.roots.iter().any(|&root| root >= count) {
        return Err(damaged());
    }
    Ok(tree)
}

/// A slice of `length` values at `pointer` (empty for a null pointer or no length).
///
/// # Safety
/// `pointer` must be valid for `length` values while the slice is used.
#[allow(unsafe_code)]
unsafe fn from_raw<'a, T>(pointer: *const T, length: usize) -> &'a [T] {
    if length == 0 || pointer.is_null() {
        &[]
    } else {
        // SAFETY: as the caller promises.
        unsafe { std::slice::from_raw_parts(pointer, length) }
    }
}

/// XCAF's tree as products and usages, its labels matched to `structure`'s products (see the
/// module doc).
fn parts_of(xcaf: XcafTree, structure: &StepStructure) -> Result<AssemblyParts, GeometryError> {
    let matched = match_labels(&xcaf, structure);
    let mut components_of: Vec<Vec<(usize, Placement)>> = vec![Vec::new(); xcaf.products.len()];
    for &(parent, child, placement) in &xcaf.components {
        components_of[parent].push((child, placement));
    }
    // A label is a product if it matched one, is a root, or is a component of a label that
    // matched none (XCAF's tree is kept where there is nothing to match it to).
    let mut is_product = vec![false; xcaf.products.len()];
    let mut pending: Vec<usize> = xcaf.roots.clone();
    while let Some(label) = pending.pop() {
        if std::mem::replace(&mut is_product[label], true) {
            continue;
        }
        for &(child, _) in &components_of[label] {
            if matched[child].is_some() || matched[label].is_none() {
                pending.push(child);
            }
        }
    }
    let mut order: Vec<usize> = (0..xcaf.products.len())
        .filter(|&l| is_product[l])
        .collect();
    order.sort_by_key(|&label| (matched[label].is_none(), matched[label], label));
    let mut index_of = vec![usize::MAX; xcaf.products.len()];
    for (at, &label) in order.iter().enumerate() {
        index_of[label] = at;
    }
    let mut products = Vec::with_capacity(order.len());
    let mut usages: Vec<Usage> = Vec::new();
    let mut grouped: HashMap<(usize, usize), usize> = HashMap::new();
    for (at, &label) in order.iter().enumerate() {
        let mut builder = MeshBuilder::default();
        let folding = Folding {
            xcaf: &xcaf,
            components_of: &components_of,
            is_product: &is_product,
        };
        folding.draw(&mut builder, label, &Placement::IDENTITY, 0)?;
        for &(child, placement) in &components_of[label] {
            if !is_product[child] {
                continue;
            }
            let usage = *grouped.entry((at, index_of[child])).or_insert_with(|| {
                usages.push(Usage {
                    parent: at,
                    child: index_of[child],
                    ..Usage::default()
                });
                usages.len() - 1
            });
            usages[usage].placements.push(placement);
        }
        products.push(product_words(
            &xcaf.products[label],
            matched[label],
            structure,
            builder,
        ));
    }
    for usage in &usages {
        products[usage.parent].is_assembly = true;
    }
    name_products(&mut products);
    state_quantities(&mut usages, &products, structure);
    let mut roots: Vec<usize> = xcaf.roots.iter().map(|&root| index_of[root]).collect();
    roots.sort_unstable();
    roots.dedup();
    Ok(AssemblyParts {
        products,
        usages,
        roots,
        stray: Mesh::default(),
    })
}

/// XCAF's labels that are not products, drawn into the product they belong to.
struct Folding<'a> {
    xcaf: &'a XcafTree,
    components_of: &'a [Vec<(usize, Placement)>],
    is_product: &'a [bool],
}

impl Folding<'_> {
    /// Draws label `label`'s own mesh placed by `placement`, and its components that are not
    /// products (at `depth` 0; every component below), placed, down to [`MAX_ASSEMBLY_DEPTH`]
    /// levels.
    fn draw(
        &self,
        builder: &mut MeshBuilder,
        label: usize,
        placement: &Placement,
        depth: usize,
    ) -> Result<(), GeometryError> {
        if depth > MAX_ASSEMBLY_DEPTH {
            return Err(GeometryError::OverLimit(format!(
                "OpenCASCADE's shapes nest more than {MAX_ASSEMBLY_DEPTH} levels deep"
            )));
        }
        let mesh = &self.xcaf.products[label].own_mesh;
        let mirrored = placement.mirrors();
        for triangle in &mesh.triangles {
            let [a, b, c] = triangle.map(|index| {
                let corner = mesh
                    .vertices
                    .get(index as usize)
                    .copied()
                    .unwrap_or_default();
                placement.apply_f32(corner)
            });
            builder.triangle(if mirrored { [a, c, b] } else { [a, b, c] })?;
        }
        for &(child, at) in &self.components_of[label] {
            if depth == 0 && self.is_product[child] {
                continue;
            }
            self.draw(builder, child, &placement.after(&at), depth + 1)?;
        }
        Ok(())
    }
}

/// A product's words: the pure-Rust reader's product it matched, else XCAF's label name.
fn product_words(
    label: &XcafProduct,
    matched: Option<usize>,
    structure: &StepStructure,
    own: MeshBuilder,
) -> Product {
    let words = matched.map(|at| &structure.products[at]);
    Product {
        key: String::new(),
        definition_id: words.map_or(0, |w| w.definition_id),
        part_number: words.map_or_else(String::new, |w| w.part_number.clone()),
        name: words.map_or_else(|| label.name.clone(), |w| w.name.clone()),
        description: words.map_or_else(String::new, |w| w.description.clone()),
        revision: words.map_or_else(String::new, |w| w.revision.clone()),
        is_assembly: false,
        own_mesh: own.finish(),
        extents: None,
    }
}

fn name_products(products: &mut [Product]) {
    let keys = product_keys(
        products
            .iter()
            .map(|product| (product.part_number.as_str(), product.name.as_str())),
    );
    for (product, key) in products.iter_mut().zip(keys) {
        product.key = key;
    }
}

/// Each usage's quantity and reference designators from the pure-Rust reader's usage of the same
/// two definitions (at least its placements).
fn state_quantities(usages: &mut [Usage], products: &[Product], structure: &StepStructure) {
    let stated: HashMap<(u64, u64), (u64, &[String])> = structure
        .usages
        .iter()
        .map(|usage| {
            let id = |at: usize| structure.products[at].definition_id;
            (
                (id(usage.parent), id(usage.child)),
                (usage.quantity, usage.reference_designators.as_slice()),
            )
        })
        .collect();
    for usage in usages {
        let ids = (
            products[usage.parent].definition_id,
            products[usage.child].definition_id,
        );
        let placed = usage.placements.len() as u64;
        usage.quantity = placed;
        if let Some(&(quantity, designators)) =
            stated.get(&ids).filter(|_| ids.0 != 0 && ids.1 != 0)
        {
            usage.quantity = quantity.max(placed);
            usage.reference_designators = designators.to_vec();
        }
    }
}

/// The name XCAF gives a product's label: its name, else its id.
fn xcaf_name(product: &StructureProduct) -> &str {
    if product.name.trim().is_empty() {
        product.part_number.trim()
    } else {
        product.name.trim()
    }
}

/// The pure-Rust reader's product each of XCAF's labels stands for, matched from the roots down
/// (see the module doc); `None` for a label of XCAF's own.
fn match_labels(xcaf: &XcafTree, structure: &StepStructure) -> Vec<Option<usize>> {
    let mut matched: Vec<Option<usize>> = vec![None; xcaf.products.len()];
    let mut free_roots: Vec<usize> = structure.roots.clone();
    let mut queue = std::collections::VecDeque::new();
    for &root in &xcaf.roots {
        let name = xcaf.products[root].name.as_str();
        let found = free_roots
            .iter()
            .position(|&at| xcaf_name(&structure.products[at]) == name)
            .or((xcaf.roots.len() == 1 && free_roots.len() == 1).then_some(0));
        if let Some(found) = found {
            matched[root] = Some(free_roots.remove(found));
            queue.push_back(root);
        }
    }
    let mut done = vec![false; xcaf.products.len()];
    while let Some(label) = queue.pop_front() {
        let Some(product) = matched[label] else {
            continue;
        };
        if std::mem::replace(&mut done[label], true) {
            continue;
        }
        // The parent's usages not yet matched: child product and placements.
        let mut open: Vec<(usize, usize)> = structure
            .usages
            .iter()
            .filter(|usage| usage.parent == product)
            .map(|usage| (usage.child, usage.placements.len()))
            .collect();
        let mut unnamed = Vec::new();
        for (child, placed) in xcaf.children_of(label) {
            if let Some(known) = matched[child] {
                open.retain(|&(open_child, _)| open_child != known);
                continue;
            }
            let name = xcaf.products[child].name.as_str();
            let named = |&&(open_child, _): &&(usize, usize)| {
                xcaf_name(&structure.products[open_child]) == name
            };
            let pick = open
                .iter()
                .filter(named)
                .find(|&&(_, count)| count == placed)
                .or_else(|| open.iter().find(named))
                .copied();
            match pick {
                Some((open_child, _)) => {
                    matched[child] = Some(open_child);
                    open.retain(|&(other, _)| other != open_child);
                    queue.push_back(child);
                }
                None => unnamed.push((child, placed)),
            }
        }
        // Names that did not match (a name XCAF decoded otherwise): the parent's usages left,
        // in order, by their number of placements.
        for (child, placed) in unnamed {
            if let Some(at) = open.iter().position(|&(_, count)| count == placed) {
                matched[child] = Some(open.remove(at).0);
                queue.push_back(child);
            }
        }
    }
    matched
}

impl XcafTree {
    /// The distinct children of `label` with how many components place each, in order.
    fn children_of(&self, label: usize) -> Vec<(usize, usize)> {
        let mut children: Vec<(usize, usize)> = Vec::new();
        for &(parent, child, _) in &self.components {
            if parent != label {
                continue;
            }
            match children.iter_mut().find(|(known, _)| *known == child) {
                Some((_, count)) => *count += 1,
                None => children.push((child, 1)),
            }
        }
        children
    }
}
