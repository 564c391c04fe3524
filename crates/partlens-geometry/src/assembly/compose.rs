//! Putting an assembly together from its products' own meshes and its usages' placements, for
//! both readers: the assembled mesh with its occurrences (depth-first, each with the contiguous
//! range of triangles it owns), each product's extents in its own coordinates, and one product
//! assembled alone. Every mesh goes through the shared builder; the triangles an assembly would
//! draw are counted from the tree first (each product's own triangles times its placed instances),
//! so an assembly over [`MAX_TRIANGLES`] is refused before any of it is built.

use super::{Occurrence, Placement, Product, ProductTree, Usage};
use crate::builder::MeshBuilder;
use crate::{GeometryError, MAX_TRIANGLES, Mesh};

/// A tree as a reader found it: its products with their own meshes, its usages and roots, and the
/// geometry no product reaches (drawn where it was modelled, after every occurrence).
pub(crate) struct AssemblyParts {
    /// The products, each with its own mesh (extents are measured here).
    pub products: Vec<Product>,
    /// The usages.
    pub usages: Vec<Usage>,
    /// The products no usage has as its child.
    pub roots: Vec<usize>,
    /// Geometry of the file no product reaches.
    pub stray: Mesh,
}

/// Corners looked at to measure products' extents exactly before the rest are measured from their
/// components' boxes (a deep tree of large parts would otherwise cost its depth times its size).
const EXACT_EXTENT_CORNERS: usize = 50_000_000;

/// The assembled mesh and the tree with its occurrences and extents; `stop` is asked at every
/// occurrence and ends the work with its error (the reader's time budget).
pub(crate) fn assemble(
    parts: AssemblyParts,
    stop: &dyn Fn() -> Option<GeometryError>,
) -> Result<(Mesh, ProductTree), GeometryError> {
    let AssemblyParts {
        mut products,
        usages,
        roots,
        stray,
    } = parts;
    let children = children_of(products.len(), &usages)?;
    let order = post_order(&children, &usages)?;
    let drawn = drawn_triangles(&products, &usages, &children, &order);
    let total = roots
        .iter()
        .filter_map(|&root| drawn.get(root))
        .fold(stray.triangles.len() as u64, |sum, &count| {
            sum.saturating_add(count)
        });
    refuse_over_triangles(total)?;
    let mut builder = MeshBuilder::default();
    let mut occurrences = Vec::new();
    for &root in &roots {
        let mut expansion = Expansion {
            products: &products,
            usages: &usages,
            children: &children,
            builder: &mut builder,
            occurrences: Some(&mut occurrences),
            stop,
        };
        expansion.run(root)?;
    }
    for triangle in &stray.triangles {
        builder.triangle(corners(&stray, triangle)?)?;
    }
    let mesh = builder.finish();
    let extents = extents(&products, &usages, &children, &order, &occurrences, &mesh);
    for (product, extent) in products.iter_mut().zip(extents) {
        product.extents = extent;
    }
    let tree = ProductTree {
        products,
        usages,
        roots,
        occurrences,
    };
    Ok((mesh, tree))
}

/// The product at `index` of `tree` assembled in its own coordinates.
pub(crate) fn product_mesh(tree: &ProductTree, index: usize) -> Result<Mesh, GeometryError> {
    if index >= tree.products.len() {
        return Err(GeometryError::Malformed(format!(
            "the tree has no product {index}"
        )));
    }
    let children = children_of(tree.products.len(), &tree.usages)?;
    let order = post_order(&children, &tree.usages)?;
    let drawn = drawn_triangles(&tree.products, &tree.usages, &children, &order);
    refuse_over_triangles(drawn[index])?;
    let mut builder = MeshBuilder::default();
    Expansion {
        products: &tree.products,
        usages: &tree.usages,
        children: &children,
        builder: &mut builder,
        occurrences: None,
        stop: &|| None,
    }
    .run(index)?;
    Ok(builder.finish())
}

fn refuse_over_triangles(count: u64) -> Result<(), GeometryError> {
    if count > MAX_TRIANGLES as u64 {
        return Err(GeometryError::OverLimit(format!(
            "the assembled mesh would have {count} triangles, more than {MAX_TRIANGLES}"
        )));
    }
    Ok(())
}

/// The usages of each product (indices into `usages`), refusing a usage of a product that is not
/// there (a tree from another build's worker).
fn children_of(count: usize, usages: &[Usage]) -> Result<Vec<Vec<usize>>, GeometryError> {
    let mut children = vec![Vec::new(); count];
    for (index, usage) in usages.iter().enumerate() {
        if usage.parent >= count || usage.child >= count {
            return Err(GeometryError::Malformed(
                "a usage names a product the tree does not have".to_owned(),
            ));
        }
        children[usage.parent].push(index);
    }
    Ok(children)
}

/// Every product, each after all of its components; a cycle is refused (the readers refuse one
/// first, with the usage named; this guards trees that come from elsewhere).
fn post_order(children: &[Vec<usize>], usages: &[Usage]) -> Result<Vec<usize>, GeometryError> {
    // 0 unseen, 1 on the path, 2 done.
    let mut state = vec![0_u8; children.len()];
    let mut order = Vec::with_capacity(children.len());
    for start in 0..children.len() {
        if state[start] != 0 {
            continue;
        }
        let mut path = vec![(start, 0_usize)];
        state[start] = 1;
        while let Some(top) = path.last_mut() {
            let product = top.0;
            if let Some(&usage) = children[product].get(top.1) {
                top.1 += 1;
                let child = usages[usage].child;
                match state[child] {
                    0 => {
                        state[child] = 1;
                        path.push((child, 0));
                    }
                    1 => {
                        return Err(GeometryError::Malformed(
                            "the assembly contains itself".to_owned(),
                        ));
                    }
                    _ => {}
                }
                continue;
            }
            path.pop();
            state[product] = 2;
            order.push(product);
        }
    }
    Ok(order)
}

/// The triangles each product draws assembled: its own, and each placed instance's (saturating).
fn drawn_triangles(
    products: &[Product],
    usages: &[Usage],
    children: &[Vec<usize>],
    order: &[usize],
) -> Vec<u64> {
    let mut drawn = vec![0_u64; products.len()];
    for &product in order {
        let mut count = products[product].own_mesh.triangles.len() as u64;
        for &usage in &children[product] {
            let usage = &usages[usage];
            let instances = usage.placements.len() as u64;
            count = count.saturating_add(instances.saturating_mul(drawn[usage.child]));
        }
        drawn[product] = count;
    }
    drawn
}

/// A walk down the tree from one product, placing each instance's own mesh into the builder and,
/// when asked, listing the occurrences with their triangles.
struct Expansion<'a> {
    products: &'a [Product],
    usages: &'a [Usage],
    children: &'a [Vec<usize>],
    builder: &'a mut MeshBuilder,
    occurrences: Option<&'a mut Vec<Occurrence>>,
    stop: &'a dyn Fn() -> Option<GeometryError>,
}

/// One occurrence on the walk's path.
struct Frame {
    occurrence: usize,
    product: usize,
    placement: Placement,
    /// The next of the product's usages, and the next placement of it.
    usage: usize,
    instance: usize,
}

impl Expansion<'_> {
    fn run(&mut self, root: usize) -> Result<(), GeometryError> {
        let mut path = vec![self.enter(root, None, None, Placement::IDENTITY)?];
        while let Some(top) = path.last_mut() {
            let next = self.children[top.product]
                .get(top.usage)
                .map(|&usage| (usage, &self.usages[usage]));
            match next {
                Some((index, usage)) if top.instance < usage.placements.len() => {
                    let at = usage.placements[top.instance];
                    let placement = top.placement.after(&at);
                    let parent = top.occurrence;
                    let instance = top.instance;
                    top.instance += 1;
                    let frame = self.enter(
                        usage.child,
                        Some(parent),
                        Some((index, instance)),
                        placement,
                    )?;
                    path.push(frame);
                }
                Some(_) => {
                    top.usage += 1;
                    top.instance = 0;
                }
                None => {
                    let end = self.builder.triangle_count() as u32;
                    if let Some(occurrences) = self.occurrences.as_deref_mut() {
                        occurrences[top.occurrence].triangles.end = end;
                    }
                    path.pop();
                }
            }
        }
        Ok(())
    }

    /// Starts an occurrence of `product`: lists it and draws its own mesh placed.
    fn enter(
        &mut self,
        product: usize,
        parent: Option<usize>,
        usage: Option<(usize, usize)>,
        placement: Placement,
    ) -> Result<Frame, GeometryError> {
        if let Some(error) = (self.stop)() {
            return Err(error);
        }
        let start = self.builder.triangle_count() as u32;
        let occurrence = match self.occurrences.as_deref_mut() {
            Some(occurrences) => {
                occurrences.push(Occurrence {
                    product,
                    parent,
                    usage,
                    placement,
                    triangles: start..start,
                });
                occurrences.len() - 1
            }
            None => 0,
        };
        draw_placed(self.builder, &self.products[product].own_mesh, &placement)?;
        Ok(Frame {
            occurrence,
            product,
            placement,
            usage: 0,
            instance: 0,
        })
    }
}

/// Adds `mesh` moved by `placement` (wound the other way where the placement mirrors, so the
/// triangles still face out).
fn draw_placed(
    builder: &mut MeshBuilder,
    mesh: &Mesh,
    placement: &Placement,
) -> Result<(), GeometryError> {
    if mesh.triangles.is_empty() {
        return Ok(());
    }
    let placed = mesh
        .vertices
        .iter()
        .map(|&corner| builder.vertex(placement.apply_f32(corner)))
        .collect::<Result<Vec<u32>, GeometryError>>()?;
    let mirrored = placement.mirrors();
    for triangle in &mesh.triangles {
        let corner = |at: usize| {
            placed
                .get(triangle[at] as usize)
                .copied()
                .ok_or_else(damaged)
        };
        let [a, b, c] = [corner(0)?, corner(1)?, corner(2)?];
        builder.push(if mirrored { [a, c, b] } else { [a, b, c] })?;
    }
    Ok(())
}

fn corners(mesh: &Mesh, triangle: &[u32; 3]) -> Result<[[f32; 3]; 3], GeometryError> {
    let corner = |index: u32| {
        mesh.vertices
            .get(index as usize)
            .copied()
            .ok_or_else(damaged)
    };
    Ok([
        corner(triangle[0])?,
        corner(triangle[1])?,
        corner(triangle[2])?,
    ])
}

fn damaged() -> GeometryError {
    GeometryError::Malformed("a product's mesh names a corner it does not have".to_owned())
}

/// Each product's extents in its own coordinates: measured on the triangles of its first
/// occurrence, moved back into its own coordinates, while [`EXACT_EXTENT_CORNERS`] last; the rest
/// from their own mesh and their components' boxes placed (a box at least as large).
fn extents(
    products: &[Product],
    usages: &[Usage],
    children: &[Vec<usize>],
    order: &[usize],
    occurrences: &[Occurrence],
    mesh: &Mesh,
) -> Vec<Option<[[f32; 3]; 2]>> {
    let mut boxes: Vec<Option<[[f32; 3]; 2]>> = vec![None; products.len()];
    for &product in order {
        let mut extent = products[product].own_mesh.bounds();
        for &usage in &children[product] {
            let usage = &usages[usage];
            let Some(child) = boxes[usage.child] else {
                continue;
            };
            for placement in &usage.placements {
                for corner in box_corners(child) {
                    extent = Some(grown(extent, placement.apply_f32(corner)));
                }
            }
        }
        boxes[product] = extent;
    }
    let mut first = vec![None; products.len()];
    for occurrence in occurrences {
        first[occurrence.product].get_or_insert(occurrence);
    }
    let mut budget = EXACT_EXTENT_CORNERS;
    for (product, occurrence) in first.into_iter().enumerate() {
        let Some(occurrence) = occurrence else {
            continue;
        };
        let corners = occurrence.triangles.len() * 3;
        let Some(back) = occurrence.placement.inverse() else {
            continue;
        };
        if corners > budget {
            continue;
        }
        budget -= corners;
        let mut extent = None;
        for triangle in
            &mesh.triangles[occurrence.triangles.start as usize..occurrence.triangles.end as usize]
        {
            for &index in triangle {
                extent = Some(grown(extent, back.apply_f32(mesh.vertices[index as usize])));
            }
        }
        boxes[product] = extent;
    }
    boxes
}

fn grown(extent: Option<[[f32; 3]; 2]>, point: [f32; 3]) -> [[f32; 3]; 2] {
    match extent {
        None => [point, point],
        Some([low, high]) => [
            [0, 1, 2].map(|k| low[k].min(point[k])),
            [0, 1, 2].map(|k| high[k].max(point[k])),
        ],
    }
}

fn box_corners([low, high]: [[f32; 3]; 2]) -> [[f32; 3]; 8] {
    std::array::from_fn(|n| [0, 1, 2].map(|k| if n & (1 << k) == 0 { low[k] } else { high[k] }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube's two faces at z = 0 and z = 1 (four triangles), corner at the origin.
    fn slab() -> Mesh {
        let mut builder = MeshBuilder::default();
        for z in [0.0, 1.0] {
            builder
                .triangle([[0.0, 0.0, z], [1.0, 0.0, z], [1.0, 1.0, z]])
                .unwrap();
            builder
                .triangle([[0.0, 0.0, z], [1.0, 1.0, z], [0.0, 1.0, z]])
                .unwrap();
        }
        builder.finish()
    }

    fn product(key: &str, own_mesh: Mesh, is_assembly: bool) -> Product {
        Product {
            key: key.to_owned(),
            is_assembly,
            own_mesh,
            ..Product::default()
        }
    }

    fn moved(x: f64) -> Placement {
        Placement::from_axes(
            [x, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        )
    }

    /// A top holding a pair (two slabs side by side) twice, and a slab of its own.
    fn parts() -> AssemblyParts {
        AssemblyParts {
            products: vec![
                product("top", slab(), true),
                product("pair", Mesh::default(), true),
                product("slab", slab(), false),
            ],
            usages: vec![
                Usage {
                    parent: 0,
                    child: 1,
                    quantity: 2,
                    reference_designators: Vec::new(),
                    placements: vec![moved(10.0), moved(20.0)],
                },
                Usage {
                    parent: 1,
                    child: 2,
                    quantity: 2,
                    reference_designators: vec!["A".into(), "B".into()],
                    placements: vec![moved(0.0), moved(2.0)],
                },
            ],
            roots: vec![0],
            stray: Mesh::default(),
        }
    }

    #[test]
    fn occurrences_own_contiguous_ranges_depth_first() {
        let (mesh, tree) = assemble(parts(), &|| None).unwrap();
        // The top's slab and four placed slabs.
        assert_eq!(mesh.triangles.len(), 5 * 4);
        let [low, high] = mesh.bounds().unwrap();
        assert_eq!((low[0], high[0]), (0.0, 23.0));
        let shape: Vec<(usize, Option<usize>, std::ops::Range<u32>)> = tree
            .occurrences
            .iter()
            .map(|o| (o.product, o.parent, o.triangles.clone()))
            .collect();
        assert_eq!(
            shape,
            [
                (0, None, 0..20),
                (1, Some(0), 4..12),
                (2, Some(1), 4..8),
                (2, Some(1), 8..12),
                (1, Some(0), 12..20),
                (2, Some(4), 12..16),
                (2, Some(4), 16..20),
            ]
        );
        assert_eq!(tree.occurrence_of_triangle(13), Some(5));
        assert_eq!(tree.occurrence_of_triangle(2), Some(0));
        assert_eq!(
            tree.occurrences[6].placement.translation(),
            [22.0, 0.0, 0.0]
        );
        // Extents in each product's own coordinates.
        assert_eq!(tree.products[1].extents, Some([[0.0; 3], [3.0, 1.0, 1.0]]));
        assert_eq!(tree.products[2].extents, Some([[0.0; 3], [1.0; 3]]));
        assert_eq!(tree.products[0].extents, mesh.bounds());
        // A subassembly alone, in its own coordinates.
        let pair = tree.product_mesh(1).unwrap();
        assert_eq!(pair.triangles.len(), 8);
        assert_eq!(pair.bounds(), tree.products[1].extents);
        assert_eq!(tree.parents_of(2), [1]);
        assert_eq!(tree.usages_of(0).count(), 1);
        assert_eq!(tree.leaves().count(), 1);
        assert_eq!(tree.product_by_key("pair"), Some(1));
    }

    #[test]
    fn over_the_triangle_limit_is_refused_before_building() {
        let mut parts = parts();
        parts.usages[1].placements = vec![Placement::IDENTITY; MAX_TRIANGLES / 8 + 1];
        let error = assemble(parts, &|| None).unwrap_err();
        assert!(error.to_string().contains("more than"), "{error}");
        let stopped = assemble(self::parts(), &|| {
            Some(GeometryError::OutOfTime { seconds: 0.0 })
        });
        assert!(matches!(stopped, Err(GeometryError::OutOfTime { .. })));
    }

    #[test]
    fn a_mirroring_placement_keeps_the_triangles_facing_out() {
        let mut parts = parts();
        parts.usages[1].placements[1] =
            Placement::from_axes([0.0; 3], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        let (mesh, _) = assemble(parts, &|| None).unwrap();
        // The first triangle of each slab at z = 0 faces +z as built; mirrored it still does.
        let normal_z = |t: &[u32; 3]| {
            let [a, b, c] = t.map(|i| mesh.vertices[i as usize]);
            (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        };
        assert!(normal_z(&mesh.triangles[4]) > 0.0);
        assert!(normal_z(&mesh.triangles[8]) > 0.0);
    }
}
