//! Generates the sample library's CAD models in `assets/samples/models/`: STEP (AP214) B-rep solids
//! of the washer, the flange and the stepped shaft, sized like their STL models, each with its
//! product data (part number, name, description, revision, material), and an IGES file of the washer
//! (four surfaces of revolution) that only a build with the `occt` feature reads. The STEP files
//! are added to `manifest.json` under `Samples/models/` with the attributes of the part's picture;
//! the IGES file is not (the default build cannot mesh it, and a sample that fails to index helps no
//! one). Only manifest entries of `.step` files are replaced, so run it after the other generators.
//! Deterministic: running it twice gives the same bytes.
//!
//! The STEP text is written here entity by entity: solids of revolution about z from a profile in
//! the (r, z) half-plane (planar rings and discs, cylinders and cones, each closed face with a seam
//! edge), optionally with through holes parallel to the axis (the flange's bolt holes).
//!
//! ```text
//! cargo run -p partlens-engine --example make_sample_cad_models -- assets/samples
//! ```

use std::f64::consts::{PI, TAU};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use partlens_engine::samples::{SamplePart, read_manifest, write_manifest};

/// A point of a profile: radius from the axis and height, in millimetres.
type ProfilePoint = (f64, f64);

/// A through hole parallel to the axis: centre (x, y), radius, from the planar face at `z0` to the
/// one at `z1`.
struct Hole {
    centre: [f64; 2],
    radius: f64,
    z0: f64,
    z1: f64,
}

/// What the product data says about a part.
struct Product {
    part_number: &'static str,
    name: &'static str,
    description: &'static str,
    material: &'static str,
}

/// One sample: its file name stem, its picture (for the manifest's attributes), its shape and its
/// product data.
struct Sample {
    stem: &'static str,
    picture: &'static str,
    profile: Vec<ProfilePoint>,
    holes: Vec<Hole>,
    product: Product,
}

/// Numbers as STEP writes reals: always with a decimal point, no exponent for our sizes.
fn real(value: f64) -> String {
    let value = if value.abs() < 1e-12 { 0.0 } else { value };
    format!("{value:.6}").trim_end_matches('0').to_owned()
}

/// A circle edge of the solid: its edge curve and its one vertex (at angle 0).
#[derive(Clone, Copy)]
struct Circle {
    edge: usize,
    vertex: usize,
    z: f64,
    radius: f64,
    centre: [f64; 2],
}

/// Writes the DATA section, one entity a line, numbering from 1.
#[derive(Default)]
struct StepWriter {
    lines: Vec<String>,
}

impl StepWriter {
    fn add(&mut self, entity: impl Into<String>) -> usize {
        self.lines.push(entity.into());
        self.lines.len()
    }

    fn point(&mut self, [x, y, z]: [f64; 3]) -> usize {
        self.add(format!(
            "CARTESIAN_POINT('',({},{},{}))",
            real(x),
            real(y),
            real(z)
        ))
    }

    fn direction(&mut self, [x, y, z]: [f64; 3]) -> usize {
        self.add(format!(
            "DIRECTION('',({},{},{}))",
            real(x),
            real(y),
            real(z)
        ))
    }

    /// A placement at `origin` with its z axis along `axis` and its x axis along +x.
    fn placement(&mut self, origin: [f64; 3], axis: [f64; 3]) -> usize {
        let origin = self.point(origin);
        let axis = self.direction(axis);
        let x = self.direction([1.0, 0.0, 0.0]);
        self.add(format!("AXIS2_PLACEMENT_3D('',#{origin},#{axis},#{x})"))
    }

    fn vertex(&mut self, at: [f64; 3]) -> usize {
        let point = self.point(at);
        self.add(format!("VERTEX_POINT('',#{point})"))
    }

    /// A full circle about a line parallel to z, as one closed edge.
    fn circle(&mut self, centre: [f64; 2], radius: f64, z: f64) -> Circle {
        let placement = self.placement([centre[0], centre[1], z], [0.0, 0.0, 1.0]);
        let curve = self.add(format!("CIRCLE('',#{placement},{})", real(radius)));
        let vertex = self.vertex([centre[0] + radius, centre[1], z]);
        let edge = self.add(format!("EDGE_CURVE('',#{vertex},#{vertex},#{curve},.T.)"));
        Circle {
            edge,
            vertex,
            z,
            radius,
            centre,
        }
    }

    /// The seam from the lower circle's vertex to the upper one's.
    fn seam(&mut self, lower: &Circle, upper: &Circle) -> usize {
        let start = [lower.centre[0] + lower.radius, lower.centre[1], lower.z];
        let end = [upper.centre[0] + upper.radius, upper.centre[1], upper.z];
        let delta = [end[0] - start[0], 0.0, end[2] - start[2]];
        let length = (delta[0] * delta[0] + delta[2] * delta[2]).sqrt();
        let origin = self.point(start);
        let direction = self.direction([delta[0] / length, 0.0, delta[2] / length]);
        let vector = self.add(format!("VECTOR('',#{direction},{})", real(length)));
        let line = self.add(format!("LINE('',#{origin},#{vector})"));
        self.add(format!(
            "EDGE_CURVE('',#{},#{},#{line},.T.)",
            lower.vertex, upper.vertex
        ))
    }

    fn oriented(&mut self, edge: usize, forward: bool) -> usize {
        self.add(format!(
            "ORIENTED_EDGE('',*,*,#{edge},{})",
            if forward { ".T." } else { ".F." }
        ))
    }

    fn bound(&mut self, edges: &[usize], outer: bool) -> usize {
        let list = edges
            .iter()
            .map(|edge| format!("#{edge}"))
            .collect::<Vec<_>>()
            .join(",");
        let edge_loop = self.add(format!("EDGE_LOOP('',({list}))"));
        let kind = if outer {
            "FACE_OUTER_BOUND"
        } else {
            "FACE_BOUND"
        };
        self.add(format!("{kind}('',#{edge_loop},.T.)"))
    }

    /// A planar face at the height of `outer`, facing up or down, inside `outer` and outside
    /// `inner` (whose circles lie at the same height).
    fn planar_face(&mut self, outer: &Circle, inner: &[Circle], up: bool) -> usize {
        let plane_at = self.placement([0.0, 0.0, outer.z], [0.0, 0.0, 1.0]);
        let plane = self.add(format!("PLANE('',#{plane_at})"));
        // Seen from the side the face looks to, the outer loop turns counter-clockwise and the
        // inner ones clockwise; the circles run counter-clockwise seen from +z.
        let outer_edge = self.oriented(outer.edge, up);
        let mut bounds = vec![self.bound(&[outer_edge], true)];
        for circle in inner {
            let edge = self.oriented(circle.edge, !up);
            bounds.push(self.bound(&[edge], false));
        }
        self.face(&bounds, plane, up)
    }

    /// The cylinder or cone between two circles about the same line, its normal pointing away
    /// from that line (`outward`) or towards it (a bore).
    fn lateral_face(&mut self, lower: &Circle, upper: &Circle, outward: bool) -> usize {
        let seam = self.seam(lower, upper);
        let surface = if (lower.radius - upper.radius).abs() < 1e-9 {
            let at = self.placement([lower.centre[0], lower.centre[1], lower.z], [0.0, 0.0, 1.0]);
            self.add(format!(
                "CYLINDRICAL_SURFACE('',#{at},{})",
                real(lower.radius)
            ))
        } else {
            // The cone opens along its axis: from the smaller circle towards the larger.
            let (small, large) = if lower.radius < upper.radius {
                (lower, upper)
            } else {
                (upper, lower)
            };
            let axis = if large.z > small.z { 1.0 } else { -1.0 };
            let at = self.placement(
                [small.centre[0], small.centre[1], small.z],
                [0.0, 0.0, axis],
            );
            let semi_angle = ((large.radius - small.radius) / (large.z - small.z).abs()).atan();
            self.add(format!(
                "CONICAL_SURFACE('',#{at},{},{})",
                real(small.radius),
                real(semi_angle)
            ))
        };
        // Outward: up the seam with the lower circle counter-clockwise, back along the upper one.
        let edges = [
            self.oriented(lower.edge, outward),
            self.oriented(seam, true),
            self.oriented(upper.edge, !outward),
            self.oriented(seam, false),
        ];
        let bound = self.bound(&edges, true);
        self.face(&[bound], surface, outward)
    }

    fn face(&mut self, bounds: &[usize], surface: usize, same_sense: bool) -> usize {
        let list = bounds
            .iter()
            .map(|bound| format!("#{bound}"))
            .collect::<Vec<_>>()
            .join(",");
        self.add(format!(
            "ADVANCED_FACE('',({list}),#{surface},{})",
            if same_sense { ".T." } else { ".F." }
        ))
    }
}

/// The faces of a solid of revolution about z (profile counter-clockwise in the (r, z) plane, the
/// material on its left) with through holes.
fn solid_faces(step: &mut StepWriter, profile: &[ProfilePoint], holes: &[Hole]) -> Vec<usize> {
    let count = profile.len();
    let circles: Vec<Option<Circle>> = profile
        .iter()
        .map(|&(radius, z)| (radius > 0.0).then(|| step.circle([0.0, 0.0], radius, z)))
        .collect();
    let hole_circles: Vec<(Circle, Circle)> = holes
        .iter()
        .map(|hole| {
            (
                step.circle(hole.centre, hole.radius, hole.z0),
                step.circle(hole.centre, hole.radius, hole.z1),
            )
        })
        .collect();
    let mut faces = Vec::new();
    for index in 0..count {
        let next = (index + 1) % count;
        let ((r0, z0), (r1, z1)) = (profile[index], profile[next]);
        if r0 == 0.0 && r1 == 0.0 {
            continue; // along the axis: no face
        }
        if (z0 - z1).abs() < 1e-12 {
            // A ring or disc; it looks down when the profile runs outwards along it.
            let up = r1 < r0;
            let (outer, inner) = if r0 > r1 {
                (circles[index], circles[next])
            } else {
                (circles[next], circles[index])
            };
            let Some(outer) = outer else { continue };
            let mut inner: Vec<Circle> = inner.into_iter().collect();
            for (lower, upper) in &hole_circles {
                for circle in [lower, upper] {
                    let distance = circle.centre[0].hypot(circle.centre[1]);
                    let within = distance - circle.radius > inner.first().map_or(0.0, |c| c.radius)
                        && distance + circle.radius < outer.radius;
                    if (circle.z - z0).abs() < 1e-12 && within {
                        inner.push(*circle);
                    }
                }
            }
            faces.push(step.planar_face(&outer, &inner, up));
        } else if let (Some(first), Some(second)) = (circles[index], circles[next]) {
            // A cylinder or cone; it looks outwards when the profile runs up along it.
            let (lower, upper) = if z0 < z1 {
                (first, second)
            } else {
                (second, first)
            };
            faces.push(step.lateral_face(&lower, &upper, z1 > z0));
        }
    }
    for (lower, upper) in &hole_circles {
        faces.push(step.lateral_face(lower, upper, false));
    }
    faces
}

/// The whole file: header, product structure, units, the solid.
fn step_file(sample: &Sample) -> String {
    let mut step = StepWriter::default();
    let faces = solid_faces(&mut step, &sample.profile, &sample.holes);
    let list = faces
        .iter()
        .map(|face| format!("#{face}"))
        .collect::<Vec<_>>()
        .join(",");
    let shell = step.add(format!("CLOSED_SHELL('',({list}))"));
    let solid = step.add(format!("MANIFOLD_SOLID_BREP('{}',#{shell})", sample.stem));
    let origin = step.placement([0.0; 3], [0.0, 0.0, 1.0]);
    let millimetre = step.add("(LENGTH_UNIT()NAMED_UNIT(*)SI_UNIT(.MILLI.,.METRE.))");
    let radian = step.add("(NAMED_UNIT(*)PLANE_ANGLE_UNIT()SI_UNIT($,.RADIAN.))");
    let steradian = step.add("(NAMED_UNIT(*)SI_UNIT($,.STERADIAN.)SOLID_ANGLE_UNIT())");
    let uncertainty = step.add(format!(
        "UNCERTAINTY_MEASURE_WITH_UNIT(LENGTH_MEASURE(1.E-07),#{millimetre},'distance_accuracy_value','confusion accuracy')"
    ));
    let context = step.add(format!(
        "(GEOMETRIC_REPRESENTATION_CONTEXT(3)GLOBAL_UNCERTAINTY_ASSIGNED_CONTEXT((#{uncertainty}))GLOBAL_UNIT_ASSIGNED_CONTEXT((#{millimetre},#{radian},#{steradian}))REPRESENTATION_CONTEXT('Context #1','3D Context with UNIT and UNCERTAINTY'))"
    ));
    let representation = step.add(format!(
        "ADVANCED_BREP_SHAPE_REPRESENTATION('',(#{solid},#{origin}),#{context})"
    ));
    let application =
        step.add("APPLICATION_CONTEXT('core data for automotive mechanical design processes')");
    step.add(format!(
        "APPLICATION_PROTOCOL_DEFINITION('international standard','automotive_design',2000,#{application})"
    ));
    let product_context = step.add(format!("PRODUCT_CONTEXT('',#{application},'mechanical')"));
    let product = &sample.product;
    let product_id = step.add(format!(
        "PRODUCT('{}','{}','{}',(#{product_context}))",
        product.part_number, product.name, product.description
    ));
    step.add(format!(
        "PRODUCT_RELATED_PRODUCT_CATEGORY('part',$,(#{product_id}))"
    ));
    let formation = step.add(format!(
        "PRODUCT_DEFINITION_FORMATION('A','first release',#{product_id})"
    ));
    let definition_context = step.add(format!(
        "PRODUCT_DEFINITION_CONTEXT('part definition',#{application},'design')"
    ));
    let definition = step.add(format!(
        "PRODUCT_DEFINITION('design','',#{formation},#{definition_context})"
    ));
    let shape = step.add(format!("PRODUCT_DEFINITION_SHAPE('','',#{definition})"));
    step.add(format!(
        "SHAPE_DEFINITION_REPRESENTATION(#{shape},#{representation})"
    ));
    step.add(format!(
        "MATERIAL_DESIGNATION('{}',(#{definition}))",
        product.material
    ));

    let mut text = String::new();
    text.push_str("ISO-10303-21;\nHEADER;\n");
    let _ = writeln!(
        text,
        "FILE_DESCRIPTION(('{} ({}), sample part of the partlens library'),'2;1');",
        product.name, product.part_number
    );
    let _ = writeln!(
        text,
        "FILE_NAME('{}.step','2026-01-01T00:00:00',('partlens'),('partlens samples'),'partlens make_sample_cad_models','partlens make_sample_cad_models','');",
        sample.stem
    );
    text.push_str(
        "FILE_SCHEMA(('AUTOMOTIVE_DESIGN { 1 0 10303 214 1 1 1 1 }'));\nENDSEC;\nDATA;\n",
    );
    for (index, line) in step.lines.iter().enumerate() {
        let _ = writeln!(text, "#{}={line};", index + 1);
    }
    text.push_str("ENDSEC;\nEND-ISO-10303-21;\n");
    text
}

/// The washer: a flat ring (as its STL: radii 5.76 and 11.4, 1.92 thick).
fn washer() -> Sample {
    let (inner, outer, half) = (0.48 * 12.0, 0.95 * 12.0, 0.08 * 12.0);
    Sample {
        stem: "washer",
        picture: "washer.png",
        profile: vec![(inner, -half), (outer, -half), (outer, half), (inner, half)],
        holes: Vec::new(),
        product: Product {
            part_number: "PL-1004",
            name: "Washer",
            description: "Flat washer M12",
            material: "stainless steel",
        },
    }
}

/// The flange: a disc with eight bolt holes and a raised hub around the bore (as its STL).
fn flange() -> Sample {
    let scale = 80.0 / 0.95;
    let [bore, hub, outer] = [0.3, 0.52, 0.95].map(|r| r * scale);
    let [bottom, top, hub_top] = [-0.1, 0.1, 0.32].map(|z| z * scale);
    let holes = (0..8)
        .map(|hole| {
            let angle = TAU * f64::from(hole) / 8.0 + PI / 8.0;
            Hole {
                centre: [0.74 * scale * angle.cos(), 0.74 * scale * angle.sin()],
                radius: 0.08 * scale,
                z0: bottom,
                z1: top,
            }
        })
        .collect();
    Sample {
        stem: "flange",
        picture: "flange.png",
        profile: vec![
            (bore, bottom),
            (outer, bottom),
            (outer, top),
            (hub, top),
            (hub, hub_top),
            (bore, hub_top),
        ],
        holes,
        product: Product {
            part_number: "PL-1002",
            name: "Flange",
            description: "Weld neck flange, eight bolt holes",
            material: "stainless steel",
        },
    }
}

/// The stepped shaft: four turned diameters along z, the last end chamfered (a cone).
fn stepped_shaft() -> Sample {
    let scale = 100.0;
    let steps = [(-0.95, 0.22), (-0.55, 0.38), (-0.05, 0.5), (0.45, 0.3)];
    let (end, chamfer) = (0.95, 0.0);
    let mut profile = vec![(0.0, steps[0].0 * scale)];
    for (index, &(start, radius)) in steps.iter().enumerate() {
        let stop = steps.get(index + 1).map_or(end, |step| step.0);
        profile.push((radius * scale, start * scale));
        if index + 1 == steps.len() && chamfer > 0.0 {
            profile.push((radius * scale, (stop - chamfer) * scale));
            profile.push(((radius - chamfer) * scale, stop * scale));
        } else {
            profile.push((radius * scale, stop * scale));
        }
    }
    profile.push((0.0, end * scale));
    Sample {
        stem: "stepped-shaft",
        picture: "stepped-shaft.png",
        profile,
        holes: Vec::new(),
        product: Product {
            part_number: "PL-1007",
            name: "Stepped shaft",
            description: "Turned shaft, four diameters, chamfered end",
            material: "steel",
        },
    }
}

/// An IGES 5.3 file of the washer: its four faces as surfaces of revolution (entity 120) of lines
/// (entity 110) about the z axis; the lines are marked physically dependent so only the surfaces
/// are transferred.
fn washer_iges() -> String {
    let (inner, outer, half) = (0.48 * 12.0, 0.95 * 12.0, 0.08 * 12.0);
    let generatrices = [
        [inner, 0.0, -half, outer, 0.0, -half],
        [outer, 0.0, -half, outer, 0.0, half],
        [outer, 0.0, half, inner, 0.0, half],
        [inner, 0.0, half, inner, 0.0, -half],
    ];
    // (type, parameters, dependent)
    let mut entities: Vec<(u32, Vec<String>, bool)> = Vec::new();
    let line = |numbers: [f64; 6]| {
        std::iter::once("110".to_owned())
            .chain(numbers.iter().map(|value| real(*value)))
            .collect()
    };
    entities.push((110, line([0.0, 0.0, -10.0, 0.0, 0.0, 10.0]), true));
    for generatrix in generatrices {
        entities.push((110, line(generatrix), true));
    }
    for generatrix in 0..4 {
        // Directory-entry pointers: entity n (from 0) starts at line 2n + 1.
        let curve = 2 * (generatrix + 1) + 1;
        let parameters = [
            "120".to_owned(),
            "1".into(),
            curve.to_string(),
            "0.".into(),
            real(TAU),
        ];
        entities.push((120, parameters.to_vec(), false));
    }
    let start = ["partlens sample washer (PL-1004): four surfaces of revolution"];
    let date = hollerith("20260101.000000");
    let global = [
        hollerith(","),
        hollerith(";"),
        hollerith("PL-1004"),
        hollerith("washer.igs"),
        hollerith("partlens make_sample_cad_models"),
        hollerith("1.0.0"),
        "32".into(),
        "38".into(),
        "6".into(),
        "308".into(),
        "15".into(),
        hollerith("PL-1004"),
        "1.".into(),
        "2".into(),
        hollerith("MM"),
        "1".into(),
        "0.5".into(),
        date.clone(),
        "1.E-07".into(),
        "12.".into(),
        hollerith("partlens"),
        hollerith("partlens samples"),
        "11".into(),
        "0".into(),
        date,
    ];
    let mut lines: Vec<String> = Vec::new();
    for (index, text) in start.iter().enumerate() {
        lines.push(format!("{text:<72}S{:>7}", index + 1));
    }
    let global_lines = fill(&global, 72);
    for (index, chunk) in global_lines.iter().enumerate() {
        lines.push(format!("{chunk:<72}G{:>7}", index + 1));
    }
    let mut parameter_lines = Vec::new();
    let mut directory = Vec::new();
    for (index, (kind, parameters, dependent)) in entities.iter().enumerate() {
        let entry = 2 * index + 1;
        let first = parameter_lines.len() + 1;
        for chunk in fill(parameters, 64) {
            parameter_lines.push(format!(
                "{chunk:<64} {entry:>7}P{:>7}",
                parameter_lines.len() + 1
            ));
        }
        let count = parameter_lines.len() + 1 - first;
        let status = if *dependent { "00010000" } else { "00000000" };
        directory.push(format!(
            "{kind:>8}{first:>8}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}{status}D{:>7}",
            0, 1, 0, 0, 0, 0, entry
        ));
        directory.push(format!(
            "{kind:>8}{:>8}{:>8}{count:>8}{:>8}{:>8}{:>8}{:>8}{:>8}D{:>7}",
            0,
            0,
            0,
            "",
            "",
            "",
            0,
            entry + 1
        ));
    }
    lines.extend(directory.iter().cloned());
    lines.extend(parameter_lines.iter().cloned());
    lines.push(format!(
        "S{:>7}G{:>7}D{:>7}P{:>7}{:>40}T{:>7}",
        start.len(),
        global_lines.len(),
        directory.len(),
        parameter_lines.len(),
        "",
        1
    ));
    lines.join("\n") + "\n"
}

/// An IGES string: its length, `H`, itself.
fn hollerith(text: &str) -> String {
    format!("{}H{text}", text.len())
}

/// Parameters joined with `,` and ended with `;`, in lines of at most `width` characters broken
/// only after a delimiter (so no parameter spans two lines).
fn fill(parameters: &[String], width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for (index, parameter) in parameters.iter().enumerate() {
        let delimiter = if index + 1 == parameters.len() {
            ';'
        } else {
            ','
        };
        let piece = format!("{parameter}{delimiter}");
        let current = lines.last_mut().map_or(0, |line| line.len());
        if current > 0 && current + piece.len() > width {
            lines.push(String::new());
        }
        if let Some(line) = lines.last_mut() {
            line.push_str(&piece);
        }
    }
    lines
}

fn main() -> anyhow::Result<()> {
    let folder = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "assets/samples".to_owned()),
    );
    std::fs::create_dir_all(folder.join("models"))
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let mut manifest = read_manifest(&folder).map_err(anyhow::Error::msg)?;
    manifest.parts.retain(|part| !part.file.ends_with(".step"));
    for sample in [washer(), flange(), stepped_shaft()] {
        let file = format!("models/{}.step", sample.stem);
        let text = step_file(&sample);
        write(&folder.join(&file), text.as_bytes())?;
        let attributes = manifest
            .attributes_of(sample.picture)
            .map(<[String]>::to_vec)
            .with_context(|| {
                format!(
                    "the manifest has no {} to take attributes from",
                    sample.picture
                )
            })?;
        println!("{file}: {} bytes", text.len());
        manifest.parts.push(SamplePart {
            stored_path: format!("Samples/{file}"),
            file,
            attributes,
            views: Vec::new(),
        });
    }
    let iges = washer_iges();
    write(&folder.join("models/washer.igs"), iges.as_bytes())?;
    println!(
        "models/washer.igs: {} bytes (not in the manifest)",
        iges.len()
    );
    write_manifest(&folder, &manifest).map_err(anyhow::Error::msg)?;
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
