//! Tests of the pure-Rust reader on the real assemblies of the corpus (`../shared/realworld/step/`):
//! the CAx-IF AS1 assembly (AP203, inches: a plate, two L-bracket sets of an L-bracket and three
//! nut-and-bolt sets, a rod set of a rod and two nuts; the nut used by both the nut-and-bolt set
//! and the rod set), CAx-IF's DM1 (I-DEAS: a bracket, three bolts and three nuts), FreeCAD's
//! microswitch (six bodies turned into place) and SolidWorks' box of sides (its placements written
//! parent first). Each reads as its tree, assembled; each component's file reads back as that
//! component alone; every other STEP file of the corpus has no tree, or one of a single part
//! meshed as before and placed where the file puts it.

use std::collections::BTreeSet;

use super::*;
use crate::realworld_for_tests::realworld_file;
use crate::{Mesh, ProductTree};

fn assembly(file: &str) -> Option<(Mesh, ProductTree)> {
    let bytes = realworld_file(&format!("step/{file}"))?;
    let reading = read_step(&bytes);
    let mesh = reading
        .mesh
        .unwrap_or_else(|error| panic!("{file}: {error}"));
    Some((
        mesh,
        reading
            .assembly
            .unwrap_or_else(|| panic!("{file}: no tree")),
    ))
}

fn size(bounds: Option<[[f32; 3]; 2]>) -> [f32; 3] {
    let [low, high] = bounds.unwrap();
    [0, 1, 2].map(|k| high[k] - low[k])
}

/// True when the boxes agree within `share` of the larger one's diagonal on every side.
pub(crate) fn boxes_agree(a: Option<[[f32; 3]; 2]>, b: Option<[[f32; 3]; 2]>, share: f32) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let diagonal = |[low, high]: [[f32; 3]; 2]| {
        (0..3)
            .map(|k| (high[k] - low[k]).powi(2))
            .sum::<f32>()
            .sqrt()
    };
    let tolerance = share * diagonal(a).max(diagonal(b));
    (0..2).all(|end| (0..3).all(|k| (a[end][k] - b[end][k]).abs() <= tolerance))
}

fn near(actual: [f32; 3], expected: [f32; 3]) -> bool {
    (0..3).all(|k| (actual[k] - expected[k]).abs() <= 0.01 * expected[k].max(1.0))
}

/// Each usage as (parent key, child key, quantity, placements), sorted.
pub(crate) fn usages(tree: &ProductTree) -> BTreeSet<(String, String, u64, usize)> {
    tree.usages
        .iter()
        .map(|usage| {
            (
                tree.products[usage.parent].key.clone(),
                tree.products[usage.child].key.clone(),
                usage.quantity,
                usage.placements.len(),
            )
        })
        .collect()
}

fn owned(list: &[(&str, &str, u64, usize)]) -> BTreeSet<(String, String, u64, usize)> {
    list.iter()
        .map(|&(parent, child, quantity, placed)| {
            (parent.to_owned(), child.to_owned(), quantity, placed)
        })
        .collect()
}

/// The AS1 assembly's tree as the file states it.
pub(crate) const AS1_USAGES: [(&str, &str, u64, usize); 9] = [
    ("AS1_PE_ASM", "PLATE", 1, 1),
    ("AS1_PE_ASM", "L_BRACKET_ASSEMBLY_ASM", 2, 2),
    ("AS1_PE_ASM", "ROD_ASM", 1, 1),
    ("L_BRACKET_ASSEMBLY_ASM", "L-BRACKET", 1, 1),
    ("L_BRACKET_ASSEMBLY_ASM", "NUT_BOLT_ASSEMBLY_ASM", 3, 3),
    ("NUT_BOLT_ASSEMBLY_ASM", "BOLT", 1, 1),
    ("NUT_BOLT_ASSEMBLY_ASM", "NUT", 1, 1),
    ("ROD_ASM", "ROD", 1, 1),
    ("ROD_ASM", "NUT", 2, 2),
];

/// AS1 assembled, in millimetres (it is drawn in inches): 200 × 87 × 150 in.
pub(crate) const AS1_SIZE: [f32; 3] = [5080.0, 2209.8, 3810.0];

#[test]
fn the_as1_assembly_reads_as_its_product_tree_assembled() {
    let Some((mesh, tree)) = assembly("pythonocc_core__as1_pe_203.stp") else {
        return;
    };
    assert_eq!(usages(&tree), owned(&AS1_USAGES));
    let key = |index: usize| tree.products[index].key.as_str();
    assert_eq!(
        tree.roots.iter().map(|&r| key(r)).collect::<Vec<_>>(),
        ["AS1_PE_ASM"]
    );
    let nut = tree.product_by_key("NUT").unwrap();
    let parents: Vec<&str> = tree.parents_of(nut).into_iter().map(key).collect();
    assert_eq!(parents, ["NUT_BOLT_ASSEMBLY_ASM", "ROD_ASM"]);
    let plate = &tree.products[tree.product_by_key("PLATE").unwrap()];
    assert_eq!((plate.revision.as_str(), plate.is_assembly), ("10", false));
    assert_eq!(plate.description, "NOT SPECIFIED");
    // Placed, not piled where each was modelled (8636 × 2032 × 3810 mm).
    assert!(
        near(size(mesh.bounds()), AS1_SIZE),
        "{:?}",
        size(mesh.bounds())
    );
    // 28 occurrences: the top, the plate, 2 × (set, bracket, 3 × (set, bolt, nut)), the rod set
    // with its rod and two nuts; 8 of them nuts.
    assert_eq!(tree.occurrences.len(), 28);
    let nuts: Vec<usize> = (0..28)
        .filter(|&o| tree.occurrences[o].product == nut)
        .collect();
    assert_eq!(nuts.len(), 8);
    check_occurrences(&tree, &mesh);
    check_parts(&tree, &mesh);
    let parts = tree.mesh_parts();
    let named = |name: &str| parts.iter().filter(|part| part.name == name).count();
    assert_eq!((named("NUT"), named("BOLT"), named("PLATE")), (8, 6, 1));
    // A nut-and-bolt set chosen lights its nut and its bolt: six sets, twelve ranges.
    let set = parts[parts.iter().position(|part| part.name == "NUT").unwrap()]
        .parent
        .unwrap();
    let set_name = &parts[set as usize].name;
    assert_eq!(crate::assembly::triangles_of(&parts, set_name).len(), 12);
    for (index, product) in tree.products.iter().enumerate() {
        let alone = tree.product_mesh(index).unwrap();
        assert!(
            boxes_agree(alone.bounds(), product.extents, 1e-4),
            "{}: {:?} {:?}",
            product.key,
            alone.bounds(),
            product.extents
        );
    }
}

/// Every occurrence's triangles hold its components' and nothing else; the leaves' ranges cover
/// the mesh once; a triangle belongs to the innermost occurrence holding it.
fn check_occurrences(tree: &ProductTree, mesh: &Mesh) {
    let mut covered = 0;
    for (index, occurrence) in tree.occurrences.iter().enumerate() {
        let children: Vec<&crate::Occurrence> = tree
            .occurrences
            .iter()
            .filter(|o| o.parent == Some(index))
            .collect();
        let own =
            occurrence.triangles.len() - children.iter().map(|c| c.triangles.len()).sum::<usize>();
        assert_eq!(
            own,
            tree.products[occurrence.product].own_mesh.triangles.len()
        );
        for child in &children {
            assert!(occurrence.triangles.start <= child.triangles.start);
            assert!(child.triangles.end <= occurrence.triangles.end);
        }
        covered += own;
        if own > 0 {
            let first = occurrence.triangles.end - 1;
            assert_eq!(tree.occurrence_of_triangle(first), Some(index));
        }
    }
    assert_eq!(covered, mesh.triangles.len());
}

/// The mesh's parts: checked; one a placed instance below the top, named as its component's
/// record is; their own ranges cover every triangle once (the top has no geometry of its own).
fn check_parts(tree: &ProductTree, mesh: &Mesh) {
    let parts = tree.mesh_parts();
    assert_eq!(
        crate::assembly::check_mesh_parts(&parts, mesh.triangles.len()),
        Ok(())
    );
    assert_eq!(parts.len(), tree.occurrences.len() - tree.roots.len());
    let names = crate::assembly::component_names(tree);
    for (index, product) in tree.products.iter().enumerate() {
        let Some(name) = &names[index] else {
            continue;
        };
        let placed = tree
            .occurrences
            .iter()
            .filter(|occurrence| occurrence.product == index)
            .count();
        let parts_named = parts.iter().filter(|part| &part.name == name).count();
        assert_eq!(parts_named, placed, "{}", product.key);
    }
    let covered: usize = parts.iter().map(|part| part.triangles.len()).sum();
    assert_eq!(covered, mesh.triangles.len());
}

#[test]
fn dm1_the_microswitch_and_the_box_read_as_their_trees() {
    let Some((mesh, tree)) = assembly("stepcode_caxif__dm1-id-214.stp") else {
        return;
    };
    assert_eq!(
        usages(&tree),
        owned(&[
            ("dm1", "l-bracket", 1, 1),
            ("dm1", "bolt", 3, 3),
            ("dm1", "nut", 3, 3)
        ])
    );
    let bolt = tree.product_by_key("bolt").unwrap();
    let bolts = tree.usages.iter().find(|u| u.child == bolt).unwrap();
    assert_eq!(bolts.reference_designators, ["bolt_3", "bolt_4", "bolt_5"]);
    assert!(
        near(size(mesh.bounds()), [50.0, 87.0, 100.0]),
        "{:?}",
        size(mesh.bounds())
    );
    check_occurrences(&tree, &mesh);
    check_parts(&tree, &mesh);

    let (mesh, tree) = assembly("freecadlib__Endstop__microswitch-ESS05-EGE.step").unwrap();
    let bodies = [
        "Pocket001",
        "Pad003",
        "Pad004",
        "Chamfer003",
        "Chamfer004",
        "Chamfer005",
    ];
    let expected: Vec<(&str, &str, u64, usize)> = bodies
        .iter()
        .map(|&body| ("ASSEMBLY", body, 1, 1))
        .collect();
    assert_eq!(usages(&tree), owned(&expected));
    // Each body turned a quarter about x into place: modelled 19.8 × 16.64 × 6.4 mm.
    assert!(
        near(size(mesh.bounds()), [19.8, 6.4, 16.645]),
        "{:?}",
        size(mesh.bounds())
    );
    check_occurrences(&tree, &mesh);

    let (mesh, tree) = assembly("trimesh__box_sides.step").unwrap();
    assert_eq!(
        usages(&tree),
        owned(&[
            ("box_sides", "box_base", 1, 1),
            ("box_sides", "box_top", 1, 1),
            ("box_sides", "gusset", 4, 4),
            ("box_sides", "side_long", 2, 2),
            ("box_sides", "side_short", 1, 1),
            ("box_sides", "side_short_B", 1, 1),
        ])
    );
    assert!(
        near(size(mesh.bounds()), [184.15, 114.3, 95.25]),
        "{:?}",
        size(mesh.bounds())
    );
    check_occurrences(&tree, &mesh);
}

/// The STEP files of the corpus with a product tree of several products.
const ASSEMBLIES: [&str; 4] = [
    "pythonocc_core__as1_pe_203.stp",
    "stepcode_caxif__dm1-id-214.stp",
    "freecadlib__Endstop__microswitch-ESS05-EGE.step",
    "trimesh__box_sides.step",
];

/// Files FreeCAD wrote as an assembly holding one part (placed).
const ONE_PART_ASSEMBLIES: [&str; 4] = [
    "freecadlib__Piping__DN15_FIG_130.step",
    "freecadlib__Servos__SG90-1-arm-horn.step",
    "freecadlib__Servos__SG90-4-arms-horn.step",
    "freecadlib__headers__1x5-male-pin-header.step",
];

#[test]
fn every_other_corpus_step_file_has_no_tree_or_one_of_a_single_part() {
    let Some(folder) = realworld_file("README.md").map(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/realworld/step"
        )
        .to_owned()
    }) else {
        return;
    };
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.len() > 80, "{}", files.len());
    for file in &files {
        let bytes = std::fs::read(format!("{folder}/{file}")).unwrap();
        let (_, structure) = describe_step_structure(&bytes);
        let structure = structure.unwrap_or_else(|error| panic!("{file}: {error}"));
        let products = structure.as_ref().map_or(0, |s| s.products.len());
        if ASSEMBLIES.contains(&file.as_str()) {
            assert!(products > 2, "{file}");
        } else if ONE_PART_ASSEMBLIES.contains(&file.as_str()) {
            let structure = structure.unwrap();
            assert_eq!((products, structure.usages.len()), (2, 1), "{file}");
            assert_eq!(structure.usages[0].quantity, 1, "{file}");
        } else {
            assert!(structure.is_none(), "{file}: {products} products");
        }
    }
    // A part in a one-part assembly is meshed as it was before there was a tree, then drawn where
    // the assembly places it (SG90's horns are moved 27, 36 and 26 mm).
    for file in ONE_PART_ASSEMBLIES {
        let bytes = realworld_file(&format!("step/{file}")).unwrap();
        let reading = read_step(&bytes);
        let tree = reading.assembly.unwrap();
        let part = tree.leaves().next().unwrap();
        assert!(
            boxes_agree(part.own_mesh.bounds(), piled(&bytes).bounds(), 1e-5),
            "{file}"
        );
        let placement = tree.usages[0].placements[0];
        let placed = Mesh {
            vertices: part
                .own_mesh
                .vertices
                .iter()
                .map(|&v| placement.apply_f32(v))
                .collect(),
            triangles: part.own_mesh.triangles.clone(),
        };
        assert!(
            boxes_agree(reading.mesh.unwrap().bounds(), placed.bounds(), 1e-5),
            "{file}"
        );
    }
}

/// Every shell of the file meshed where its own coordinates put it (how the reader drew every
/// file before it read product trees).
fn piled(bytes: &[u8]) -> Mesh {
    let text = text::prepare(bytes).unwrap();
    let exchange = ruststep::parser::parse(&text).unwrap();
    let entities = || exchange.data.iter().flat_map(|section| &section.entities);
    let instances = Instances::new(entities()).unwrap();
    let unit = product::millimetres_per_unit(&instances);
    let budget = Budget::new(STEP_TIME_BUDGET, STEP_TRIANGLE_BUDGET / 2);
    tessellate::mesh_shells(entities(), unit, &budget).unwrap()
}

/// AS1 with the nut-and-bolt set made to hold the whole assembly in place of its nut.
pub(crate) fn cyclic_as1() -> Option<Vec<u8>> {
    let text = String::from_utf8(realworld_file("step/pythonocc_core__as1_pe_203.stp")?).ok()?;
    let usage = "#2341=NEXT_ASSEMBLY_USAGE_OCCURRENCE('3','Next assembly relationship','NUT',\n#2379,#2310,$);";
    assert!(text.contains(usage));
    Some(
        text.replace(
            usage,
            "#2341=NEXT_ASSEMBLY_USAGE_OCCURRENCE('3','Next assembly relationship','NUT',\n#2379,#2851,$);",
        )
        .into_bytes(),
    )
}

#[test]
fn an_assembly_that_contains_itself_is_refused_and_its_words_kept() {
    let Some(bytes) = cyclic_as1() else {
        return;
    };
    let reading = read_step(&bytes);
    let error = reading.mesh.unwrap_err().to_string();
    assert!(
        error.contains("NEXT_ASSEMBLY_USAGE_OCCURRENCE #")
            && error.contains("the assembly contains itself"),
        "{error}"
    );
    assert!(reading.assembly.is_none());
    assert!(
        reading
            .description
            .attributes
            .iter()
            .any(|a| a.starts_with("part_number=") && a.contains("AS1_PE_ASM"))
    );
}

#[test]
fn each_component_file_reads_back_as_that_component_alone() {
    for file in [
        "pythonocc_core__as1_pe_203.stp",
        "stepcode_caxif__dm1-id-214.stp",
    ] {
        let Some(bytes) = realworld_file(&format!("step/{file}")) else {
            return;
        };
        let tree = read_step(&bytes).assembly.unwrap();
        let components = component_files(&bytes).unwrap();
        assert_eq!(components.len(), tree.products.len());
        for (index, component) in components.iter().enumerate() {
            let product = &tree.products[index];
            assert_eq!(component.key, product.key);
            assert_eq!(
                component_file(&bytes, &product.key).unwrap(),
                component.bytes
            );
            let back = read_step(&component.bytes);
            let mesh = back.mesh.unwrap_or_else(|e| panic!("{}: {e}", product.key));
            assert!(
                boxes_agree(mesh.bounds(), product.extents, 1e-4),
                "{}: {:?} {:?}",
                product.key,
                mesh.bounds(),
                product.extents
            );
            let numbers: Vec<&String> = back
                .description
                .attributes
                .iter()
                .filter(|a| a.starts_with("part_number="))
                .collect();
            match back.assembly {
                None => {
                    assert!(!product.is_assembly, "{}", product.key);
                    assert_eq!(numbers, [&format!("part_number={}", product.part_number)]);
                }
                Some(inner) => {
                    assert!(product.is_assembly, "{}", product.key);
                    let root = inner.roots.iter().map(|&r| inner.products[r].key.as_str());
                    assert_eq!(root.collect::<Vec<_>>(), [product.key.as_str()]);
                    // Its usages are the assembly's below it, and nothing else.
                    let below: BTreeSet<_> = usages(&inner);
                    assert!(below.is_subset(&usages(&tree)), "{}", product.key);
                    let placed: usize = tree.usages_of(index).map(|u| u.placements.len()).sum();
                    let inner_root = inner.roots[0];
                    assert_eq!(
                        inner
                            .usages_of(inner_root)
                            .map(|u| u.placements.len())
                            .sum::<usize>(),
                        placed
                    );
                }
            }
        }
    }
    let error = component_file(b"not a step file", "NUT").unwrap_err();
    assert!(matches!(error, GeometryError::Malformed(_)), "{error}");
    let Some(part) = realworld_file("step/occt__screw.step") else {
        return;
    };
    assert!(matches!(
        component_files(&part),
        Err(GeometryError::Unsupported(_))
    ));
    let Some(as1) = realworld_file("step/pythonocc_core__as1_pe_203.stp") else {
        return;
    };
    let missing = component_file(&as1, "WASHER").unwrap_err();
    assert!(
        missing.to_string().contains("no product 'WASHER'"),
        "{missing}"
    );
}

#[test]
fn the_product_tree_crosses_the_worker_boundary_intact() {
    let Some((mesh, tree)) = assembly("pythonocc_core__as1_pe_203.stp") else {
        return;
    };
    let bytes = postcard::to_stdvec(&(&mesh, &tree)).unwrap();
    let (mesh_back, tree_back): (Mesh, ProductTree) = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(mesh_back, mesh);
    assert_eq!(tree_back, tree);
    // The parent side can assemble any product from what crossed.
    let set = tree_back.product_by_key("NUT_BOLT_ASSEMBLY_ASM").unwrap();
    let own = |key: &str| {
        let index = tree_back.product_by_key(key).unwrap();
        tree_back.products[index].own_mesh.triangles.len()
    };
    assert_eq!(
        tree_back.product_mesh(set).unwrap().triangles.len(),
        own("BOLT") + own("NUT")
    );
}

#[test]
fn the_component_tree_is_the_read_tree_without_meshes_with_each_component_file() {
    let Some(bytes) = realworld_file("step/pythonocc_core__as1_pe_203.stp") else {
        return;
    };
    let (tree, files) = component_tree(&bytes).unwrap().unwrap();
    assert_eq!(usages(&tree), owned(&AS1_USAGES));
    let read = read_step(&bytes).assembly.unwrap();
    assert_eq!(tree.roots, read.roots);
    for (product, read) in tree.products.iter().zip(&read.products) {
        assert_eq!(
            (&product.key, &product.part_number, &product.name),
            (&read.key, &read.part_number, &read.name)
        );
        assert_eq!(product.is_assembly, read.is_assembly);
        assert!(product.own_mesh.triangles.is_empty());
    }
    assert_eq!(files, component_files(&bytes).unwrap());
    // A single part has no tree.
    let part = realworld_file("step/freecadlib__Bearings__608ZZ_Ball_Bearing.step").unwrap();
    assert_eq!(component_tree(&part).unwrap(), None);
}
