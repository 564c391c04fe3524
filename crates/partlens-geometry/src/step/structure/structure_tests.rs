//! Tests of reading the product tree on hostile trees (a usage cycle, a thousand levels, a million
//! occurrences by quantity or by multiplying levels, a mapped item that maps itself: each refused
//! before anything is meshed, with the reason) and on the real DM1 assembly edited into the forms
//! other writers use (a quantified usage, a complex usage instance, a placement by a mapped item,
//! by a transformation operator).

use crate::assembly::{MAX_ASSEMBLY_DEPTH, MAX_OCCURRENCES};
use crate::realworld_for_tests::realworld_file;
use crate::step::read_step;
use crate::{GeometryError, ModelReading};

/// A STEP file of `products` products without geometry and the given usages (parent, child,
/// quantity: `None` a plain next-assembly usage, `Some(n)` a quantified one, simple or complex by
/// turns).
fn tree_file(products: usize, usages: &[(usize, usize, Option<f64>)]) -> String {
    let mut data = String::from(
        "#1=APPLICATION_CONTEXT('');\n#2=PRODUCT_CONTEXT('',#1,'mechanical');\n#3=PRODUCT_DEFINITION_CONTEXT('',#1,'design');\n",
    );
    let definition = |product: usize| 100 + 10 * product + 3;
    for product in 0..products {
        let base = 100 + 10 * product;
        data.push_str(&format!(
            "#{}=PRODUCT('P{product}','part {product}','',(#2));\n#{}=PRODUCT_DEFINITION_FORMATION('','',#{});\n#{}=PRODUCT_DEFINITION('design','',#{},#3);\n",
            base + 1,
            base + 2,
            base + 1,
            base + 3,
            base + 2
        ));
    }
    for (n, &(parent, child, quantity)) in usages.iter().enumerate() {
        let id = 10_000_000 + 10 * n;
        let (p, c) = (definition(parent), definition(child));
        match quantity {
            None => data.push_str(&format!(
                "#{id}=NEXT_ASSEMBLY_USAGE_OCCURRENCE('{n}','','',#{p},#{c},$);\n"
            )),
            Some(count) if n % 2 == 0 => data.push_str(&format!(
                "#{id}=QUANTIFIED_ASSEMBLY_COMPONENT_USAGE('{n}','','',#{p},#{c},$,#{});\n#{}=MEASURE_WITH_UNIT(COUNT_MEASURE({count:?}),#1);\n",
                id + 1,
                id + 1
            )),
            Some(count) => data.push_str(&format!(
                "#{id}=(ASSEMBLY_COMPONENT_USAGE('R{n}')NEXT_ASSEMBLY_USAGE_OCCURRENCE()PRODUCT_DEFINITION_RELATIONSHIP('{n}','','',#{p},#{c})PRODUCT_DEFINITION_USAGE()QUANTIFIED_ASSEMBLY_COMPONENT_USAGE(#{}));\n#{}=MEASURE_WITH_UNIT(COUNT_MEASURE({count:?}),#1);\n",
                id + 1,
                id + 1
            )),
        }
    }
    format!(
        "ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\nFILE_NAME('','',(''),(''),'','','');\nFILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\nENDSEC;\nDATA;\n{data}ENDSEC;\nEND-ISO-10303-21;\n"
    )
}

/// Why a reading has no mesh.
fn refusal(reading: &ModelReading) -> GeometryError {
    assert!(reading.assembly.is_none());
    match &reading.mesh {
        Ok(mesh) => panic!("read {} triangles", mesh.triangles.len()),
        Err(error) => error.clone(),
    }
}

#[test]
fn a_usage_cycle_is_refused_with_the_usage_named() {
    let around = refusal(&read_step(
        tree_file(3, &[(0, 1, None), (1, 2, None), (2, 1, None)]).as_bytes(),
    ));
    assert!(
        matches!(&around, GeometryError::Malformed(words) if words.contains(
            "NEXT_ASSEMBLY_USAGE_OCCURRENCE #10000020 makes 'P1' (#113) a component of 'P2' (#123)"
        )),
        "{around}"
    );
    let itself = refusal(&read_step(tree_file(1, &[(0, 0, None)]).as_bytes()));
    assert!(
        itself.to_string().contains("a component of itself"),
        "{itself}"
    );
    // A file's words are still read.
    let reading = read_step(tree_file(2, &[(0, 1, None), (1, 0, None)]).as_bytes());
    assert!(
        reading
            .description
            .attributes
            .iter()
            .any(|a| a.starts_with("part_number=P0"))
    );
}

#[test]
fn a_thousand_levels_and_a_million_occurrences_are_refused() {
    let chain: Vec<(usize, usize, Option<f64>)> = (0..1000).map(|p| (p, p + 1, None)).collect();
    let deep = refusal(&read_step(tree_file(1001, &chain).as_bytes()));
    assert_eq!(
        deep.to_string(),
        format!("the assembly nests more than {MAX_ASSEMBLY_DEPTH} levels deep")
    );
    // A million of one part by quantity, simple and complex quantified usages.
    for usages in [[(0, 1, Some(1e6))], [(1, 0, Some(1e6))]] {
        let (root, _) = (usages[0].0, usages[0].1);
        let many = refusal(&read_step(tree_file(2, &usages).as_bytes()));
        assert!(
            many.to_string().contains(&format!(
                "1000001 component occurrences, more than {MAX_OCCURRENCES}"
            )),
            "root {root}: {many}"
        );
    }
    // Ten levels of ten usages each: ten billion occurrences from 110 usage entities.
    let mut levels = Vec::new();
    for level in 0..10 {
        for _ in 0..10 {
            levels.push((level, level + 1, None));
        }
    }
    let multiplied = refusal(&read_step(tree_file(11, &levels).as_bytes()));
    assert!(
        multiplied.to_string().contains("component occurrences"),
        "{multiplied}"
    );
    // Within the limits a tree without geometry is read and refused for having none.
    let fine = refusal(&read_step(tree_file(2, &[(0, 1, Some(3.0))]).as_bytes()));
    assert!(fine.to_string().contains("no B-rep shell"), "{fine}");
}

/// DM1 with statement `#id` (up to its `;`) replaced by `replacement`.
fn dm1_with(edits: &[(u64, &str)]) -> Option<String> {
    let mut text =
        String::from_utf8(realworld_file("step/stepcode_caxif__dm1-id-214.stp")?).ok()?;
    for &(id, replacement) in edits {
        let start = text.find(&format!("\n#{id}=")).map(|at| at + 1);
        let start = start.unwrap_or_else(|| panic!("#{id} is not in DM1"));
        let end = start + text[start..].find(';').unwrap_or(0) + 1;
        text.replace_range(start..end, replacement);
    }
    Some(text)
}

#[test]
fn quantified_usages_add_to_the_quantity_but_not_to_the_placements() {
    // The first bolt's usage made a complex instance with a quantity of 5.
    let Some(text) = dm1_with(&[(
        160,
        "#160=(ASSEMBLY_COMPONENT_USAGE('B1')NEXT_ASSEMBLY_USAGE_OCCURRENCE()PRODUCT_DEFINITION_RELATIONSHIP('instance id 1','bolt_3','bolt_3',#12,#118)PRODUCT_DEFINITION_USAGE()QUANTIFIED_ASSEMBLY_COMPONENT_USAGE(#9000));\n#9000=MEASURE_WITH_UNIT(COUNT_MEASURE(5.),#25);",
    )]) else {
        return;
    };
    let reading = read_step(text.as_bytes());
    let tree = reading.assembly.unwrap();
    let bolt = tree.product_by_key("bolt").unwrap();
    let usage = tree.usages.iter().find(|u| u.child == bolt).unwrap();
    assert_eq!(usage.quantity, 7);
    assert_eq!(usage.placements.len(), 3);
    assert_eq!(usage.reference_designators, ["B1", "bolt_4", "bolt_5"]);
}

#[test]
fn a_placement_by_mapped_item_or_operator_moves_the_component() {
    let Some(original) = dm1_with(&[]) else {
        return;
    };
    let bracket_at = |text: &str| {
        let tree = read_step(text.as_bytes()).assembly.unwrap();
        let bracket = tree.product_by_key("l-bracket").unwrap();
        let occurrence = tree
            .occurrences
            .iter()
            .find(|o| o.product == bracket)
            .unwrap();
        occurrence.placement.translation()
    };
    let before = bracket_at(&original);
    // The bracket's placement relationship without a transformation, its placement a mapped item
    // of the bracket's shape 100 units (inches) along x.
    let mapped = dm1_with(&[(
        109,
        "#109=SHAPE_REPRESENTATION_RELATIONSHIP('l-bracket_2','l-bracket_2',#9001,#48);\n#9001=SHAPE_REPRESENTATION('',(#9002),#43);\n#9002=MAPPED_ITEM('',#9003,#9004);\n#9003=REPRESENTATION_MAP(#89,#93);\n#9004=AXIS2_PLACEMENT_3D('',#9005,$,$);\n#9005=CARTESIAN_POINT('',(100.,0.,0.));",
    )])
    .unwrap();
    let moved = bracket_at(&mapped);
    assert!(
        (moved[0] - before[0] - 2540.0).abs() < 1e-6,
        "{before:?} {moved:?}"
    );
    // The same by a transformation operator: a quarter turn about z and 10 inches along y.
    let turned = dm1_with(&[(
        105,
        "#105=CARTESIAN_TRANSFORMATION_OPERATOR_3D('',#9010,#9011,#9012,$,#9013);\n#9010=DIRECTION('',(0.,1.,0.));\n#9011=DIRECTION('',(-1.,0.,0.));\n#9012=CARTESIAN_POINT('',(0.,10.,0.));\n#9013=DIRECTION('',(0.,0.,1.));",
    )])
    .unwrap();
    let tree = read_step(turned.as_bytes()).assembly.unwrap();
    let bracket = tree.product_by_key("l-bracket").unwrap();
    let usage = tree.usages.iter().find(|u| u.child == bracket).unwrap();
    let placed = usage.placements[0].apply([1.0, 0.0, 0.0]);
    assert!(
        (placed[0]).abs() < 1e-9 && (placed[1] - 255.0).abs() < 1e-9,
        "{placed:?}"
    );
}

#[test]
fn a_usage_without_a_placement_of_its_own_is_placed_by_the_parents_mapped_item() {
    // The bracket's placement entity gone; the assembly's shape maps the bracket's 100 units
    // (inches) along z.
    let Some(text) = dm1_with(&[
        (110, "#110=DESCRIPTIVE_REPRESENTATION_ITEM('','');"),
        (
            48,
            "#48=SHAPE_REPRESENTATION('',(#44,#95,#156,#176,#196,#257,#277,#297,#9002),#43);\n#9002=MAPPED_ITEM('',#9003,#9004);\n#9003=REPRESENTATION_MAP(#89,#93);\n#9004=AXIS2_PLACEMENT_3D('',#9005,$,$);\n#9005=CARTESIAN_POINT('',(0.,0.,100.));",
        ),
    ]) else {
        return;
    };
    let reading = read_step(text.as_bytes());
    let tree = reading.assembly.unwrap();
    let bracket = tree.product_by_key("l-bracket").unwrap();
    let usage = tree.usages.iter().find(|u| u.child == bracket).unwrap();
    assert_eq!(usage.placements[0].translation(), [0.0, 0.0, 2540.0]);
    // Drawn once, by its usage, not again as the assembly's own geometry.
    assert!(tree.products[0].own_mesh.triangles.is_empty());
    let [low, high] = reading.mesh.unwrap().bounds().unwrap();
    assert!(high[2] - low[2] > 2540.0, "{low:?} {high:?}");
}

#[test]
fn a_mapped_item_that_maps_its_own_representation_is_refused() {
    // The bracket's B-rep made to hold a mapped item of itself.
    let Some(text) = dm1_with(&[(
        93,
        "#93=ADVANCED_BREP_SHAPE_REPRESENTATION('',(#89,#1136,#9002),#88);\n#9002=MAPPED_ITEM('',#9003,#89);\n#9003=REPRESENTATION_MAP(#89,#93);",
    )]) else {
        return;
    };
    let error = refusal(&read_step(text.as_bytes()));
    assert!(
        error
            .to_string()
            .contains("MAPPED_ITEM #9002 places the representation it is part of"),
        "{error}"
    );
}
