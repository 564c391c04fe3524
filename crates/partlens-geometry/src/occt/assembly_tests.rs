//! Tests of the assemblies read through XCAF (built with `--features occt`), against the pure-Rust
//! reader on the same real files: the same tree (products, usages, quantities, occurrences) and the
//! same assembled extents within 1 %; each component's file read back by OpenCASCADE as that
//! component alone; a tree the pure-Rust checks refuse never reaches OpenCASCADE.

use std::collections::BTreeMap;

use super::assembly::{read_assembly_with_occt, read_xcaf};
use crate::realworld_for_tests::realworld_file;
use crate::step::assembly_tests::{AS1_SIZE, boxes_agree, cyclic_as1, usages};
use crate::step::{StepBudget, component_files, describe_step_structure, read_step};
use crate::{Mesh, ProductTree};

const ASSEMBLIES: [&str; 4] = [
    "pythonocc_core__as1_pe_203.stp",
    "stepcode_caxif__dm1-id-214.stp",
    "freecadlib__Endstop__microswitch-ESS05-EGE.step",
    "trimesh__box_sides.step",
];

fn through_xcaf(bytes: &[u8]) -> (Mesh, ProductTree) {
    let structure = describe_step_structure(bytes).1.unwrap().unwrap();
    read_assembly_with_occt(bytes, StepBudget::default(), &structure).unwrap()
}

/// Each occurrence as (product key, its parent occurrence's product key), counted.
fn occurrences(tree: &ProductTree) -> BTreeMap<(String, String), usize> {
    let mut counted = BTreeMap::new();
    for occurrence in &tree.occurrences {
        let parent = occurrence.parent.map_or(String::new(), |parent| {
            tree.products[tree.occurrences[parent].product].key.clone()
        });
        let key = tree.products[occurrence.product].key.clone();
        *counted.entry((key, parent)).or_insert(0) += 1;
    }
    counted
}

#[test]
fn as1_and_the_corpus_assemblies_match_the_pure_rust_reader_within_one_percent() {
    for file in ASSEMBLIES {
        let Some(bytes) = realworld_file(&format!("step/{file}")) else {
            return;
        };
        let pure = read_step(&bytes);
        let pure_tree = pure.assembly.unwrap();
        let pure_mesh = pure.mesh.unwrap();
        let (mesh, tree) = through_xcaf(&bytes);
        assert_eq!(usages(&tree), usages(&pure_tree), "{file}");
        assert_eq!(occurrences(&tree), occurrences(&pure_tree), "{file}");
        assert!(
            boxes_agree(mesh.bounds(), pure_mesh.bounds(), 0.01),
            "{file}: {:?} against {:?}",
            mesh.bounds(),
            pure_mesh.bounds()
        );
        for product in &tree.products {
            let twin = &pure_tree.products[pure_tree.product_by_key(&product.key).unwrap()];
            assert_eq!(
                (
                    product.definition_id,
                    &product.part_number,
                    product.is_assembly
                ),
                (twin.definition_id, &twin.part_number, twin.is_assembly),
                "{file}"
            );
            assert!(
                boxes_agree(product.extents, twin.extents, 0.01),
                "{file} {}: {:?} against {:?}",
                product.key,
                product.extents,
                twin.extents
            );
        }
        // OpenCASCADE meshes the parts itself: its own triangles, not the pure-Rust reader's.
        assert_ne!(mesh.triangles.len(), pure_mesh.triangles.len(), "{file}");
        // The build's reader takes the XCAF path for an assembly.
        let reading = crate::read_model(".step", &bytes);
        assert_eq!(reading.assembly.unwrap(), tree, "{file}");
    }
    let bytes = realworld_file("step/pythonocc_core__as1_pe_203.stp").unwrap();
    let (mesh, _) = through_xcaf(&bytes);
    let [low, high] = mesh.bounds().unwrap();
    for k in 0..3 {
        let size = high[k] - low[k];
        assert!(
            (size - AS1_SIZE[k]).abs() < 0.01 * AS1_SIZE[k],
            "{k}: {size}"
        );
    }
}

#[test]
fn xcaf_names_its_labels_after_the_products_it_read() {
    let Some(bytes) = realworld_file("step/pythonocc_core__as1_pe_203.stp") else {
        return;
    };
    let xcaf = read_xcaf(&bytes, StepBudget::default()).unwrap();
    let names: Vec<&str> = xcaf.products.iter().map(|p| p.name.as_str()).collect();
    let tree = read_step(&bytes).assembly.unwrap();
    for product in &tree.products {
        assert!(
            names.contains(&product.name.as_str()),
            "{}: {names:?}",
            product.name
        );
    }
    // XCAF splits each part into its solid and its wireframe; they fold back into the part.
    assert!(names.contains(&"SOLID") && names.len() > tree.products.len());
    let (_, through) = through_xcaf(&bytes);
    assert_eq!(through.products.len(), tree.products.len());
    assert!(through.products.iter().all(|p| p.definition_id != 0));
}

#[test]
fn opencascade_reads_each_component_file_as_that_component_alone() {
    let Some(bytes) = realworld_file("step/pythonocc_core__as1_pe_203.stp") else {
        return;
    };
    let tree = read_step(&bytes).assembly.unwrap();
    for component in component_files(&bytes).unwrap() {
        let product = &tree.products[tree.product_by_key(&component.key).unwrap()];
        let back = crate::read_model(".step", &component.bytes);
        let mesh = back
            .mesh
            .unwrap_or_else(|e| panic!("{}: {e}", component.key));
        assert!(
            boxes_agree(mesh.bounds(), product.extents, 0.01),
            "{}: {:?} against {:?}",
            component.key,
            mesh.bounds(),
            product.extents
        );
        assert_eq!(
            back.assembly.is_some(),
            product.is_assembly,
            "{}",
            component.key
        );
        if let Some(inner) = back.assembly {
            assert!(
                usages(&inner).is_subset(&usages(&tree)),
                "{}",
                component.key
            );
        }
    }
}

#[test]
fn a_tree_the_pure_rust_checks_refuse_never_reaches_opencascade() {
    let Some(bytes) = cyclic_as1() else {
        return;
    };
    let reading = crate::read_model(".step", &bytes);
    let error = reading.mesh.unwrap_err().to_string();
    assert!(error.contains("the assembly contains itself"), "{error}");
    assert!(reading.assembly.is_none());
}
