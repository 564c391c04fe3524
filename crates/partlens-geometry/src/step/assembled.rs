//! A STEP assembly put together by the pure-Rust reader: each distinct shell is meshed once
//! (`tessellate.rs`), each product's own mesh is made of its shells placed in its coordinates, and
//! the shared assembly code (`crate::assembly`) places the products' meshes down the tree, once an
//! occurrence. Shells no product reaches are drawn where they were modelled, as before there was a
//! tree.

use std::collections::HashSet;
use std::sync::Arc;

use super::budget::{Budget, Exceeded};
use super::structure::StepStructure;
use super::tessellate::{ShellMeshes, draw_polygons};
use crate::assembly::{AssemblyParts, assemble};
use crate::builder::MeshBuilder;
use crate::{GeometryError, Mesh, Placement, Product, ProductTree, Usage};

/// The assembled mesh and product tree of `structure` from its meshed shells; lengths in
/// `millimetres_per_unit` where a shell belongs to no product.
pub(super) fn assemble_structure(
    structure: StepStructure,
    meshed: &ShellMeshes,
    millimetres_per_unit: f64,
    budget: &Arc<Budget>,
) -> Result<(Mesh, ProductTree), GeometryError> {
    let mut owned = HashSet::new();
    let mut products = Vec::with_capacity(structure.products.len());
    for (index, product) in structure.products.into_iter().enumerate() {
        let mut builder = MeshBuilder::default();
        for placed in &product.shells {
            owned.insert(placed.shell);
            if let Some(polygons) = meshed.shells.get(&placed.shell) {
                draw_polygons(
                    &mut builder,
                    polygons,
                    placed.millimetres_per_unit,
                    &placed.placement,
                )?;
            }
        }
        products.push(Product {
            key: product.key,
            definition_id: product.definition_id,
            part_number: product.part_number,
            name: product.name,
            description: product.description,
            revision: product.revision,
            is_assembly: structure.usages.iter().any(|usage| usage.parent == index),
            own_mesh: builder.finish(),
            extents: None,
        });
    }
    let mut stray = MeshBuilder::default();
    for (shell, polygons) in &meshed.shells {
        if !owned.contains(shell) {
            draw_polygons(
                &mut stray,
                polygons,
                millimetres_per_unit,
                &Placement::IDENTITY,
            )?;
        }
    }
    let usages = structure
        .usages
        .into_iter()
        .map(|usage| Usage {
            parent: usage.parent,
            child: usage.child,
            quantity: usage.quantity,
            reference_designators: usage.reference_designators,
            placements: usage.placements,
        })
        .collect();
    let parts = AssemblyParts {
        products,
        usages,
        roots: structure.roots,
        stray: stray.finish(),
    };
    let out_of_time = || {
        matches!(budget.exceeded(), Some(Exceeded::Time)).then(|| GeometryError::OutOfTime {
            seconds: budget.time().as_secs_f64(),
        })
    };
    let (mesh, tree) = assemble(parts, &out_of_time)?;
    meshed.faces.refuse_if_empty(mesh.triangles.len())?;
    Ok((mesh, tree))
}
