//! Generates the sample library's 3D models in `assets/samples/models/`: binary STL files of some of
//! the library's parts (gear and washer and flange extruded from their outlines, stepped shaft built
//! from its turned diameters), sized in millimetres, and adds them to `manifest.json` as parts
//! stored under `Samples/models/` with the attributes of the drawing of the same name. Only manifest
//! entries under `models/` are replaced, so run it after `examples/make_samples.rs` (which rewrites
//! the manifest from scratch and drops the models). Deterministic: running it twice gives the same
//! bytes.
//!
//! ```text
//! cargo run -p partlens-engine --example make_samples -- assets/samples
//! cargo run -p partlens-engine --example make_sample_models -- assets/samples
//! ```

use std::f64::consts::{PI, TAU};
use std::path::{Path, PathBuf};

use anyhow::Context;
use partlens_engine::samples::{SamplePart, read_manifest, write_manifest};

/// A point of an outline in the part's plane.
type Point = [f64; 2];
/// A triangle soup, in millimetres.
type Triangles = Vec<[[f64; 3]; 3]>;

/// Builds one model.
type Builder = fn() -> Triangles;

/// Segments of a full circle.
const CIRCLE_SEGMENTS: usize = 96;
/// Segments of a small hole.
const HOLE_SEGMENTS: usize = 24;

fn circle(radius: f64, segments: usize) -> Vec<Point> {
    (0..segments)
        .map(|step| {
            let angle = TAU * step as f64 / segments as f64;
            [radius * angle.cos(), radius * angle.sin()]
        })
        .collect()
}

fn polar(radius: f64, angle: f64) -> Point {
    [radius * angle.cos(), radius * angle.sin()]
}

fn signed_area(loop_points: &[Point]) -> f64 {
    let count = loop_points.len();
    (0..count)
        .map(|i| {
            let (p, q) = (loop_points[i], loop_points[(i + 1) % count]);
            p[0] * q[1] - q[0] * p[1]
        })
        .sum::<f64>()
        / 2.0
}

/// The loop turning the given way (counter-clockwise when `ccw`).
fn oriented(mut loop_points: Vec<Point>, ccw: bool) -> Vec<Point> {
    if (signed_area(&loop_points) > 0.0) != ccw {
        loop_points.reverse();
    }
    loop_points
}

/// A closed prism: the region inside `outer` and outside `holes`, from `z0` up to `z1`, caps
/// triangulated by earcut (its vertices only, so the caps meet the walls edge to edge), every
/// triangle facing outwards.
fn extrude(outer: &[Point], holes: &[Vec<Point>], z0: f64, z1: f64, out: &mut Triangles) {
    let outer = oriented(outer.to_vec(), true);
    let holes: Vec<Vec<Point>> = holes.iter().map(|h| oriented(h.clone(), false)).collect();
    let mut points = outer.clone();
    let mut hole_starts = Vec::new();
    for hole in &holes {
        hole_starts.push(points.len());
        points.extend_from_slice(hole);
    }
    let mut indices: Vec<usize> = Vec::new();
    earcut::Earcut::new().earcut(points.iter().copied(), &hole_starts, &mut indices);
    for corner in indices.chunks_exact(3) {
        let [a, b, c] = [points[corner[0]], points[corner[1]], points[corner[2]]];
        let ccw = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0.0;
        let (b, c) = if ccw { (b, c) } else { (c, b) };
        out.push([[a[0], a[1], z1], [b[0], b[1], z1], [c[0], c[1], z1]]);
        out.push([[a[0], a[1], z0], [c[0], c[1], z0], [b[0], b[1], z0]]);
    }
    for boundary in std::iter::once(&outer).chain(&holes) {
        for i in 0..boundary.len() {
            let (p, q) = (boundary[i], boundary[(i + 1) % boundary.len()]);
            out.push([[p[0], p[1], z0], [q[0], q[1], z0], [q[0], q[1], z1]]);
            out.push([[p[0], p[1], z0], [q[0], q[1], z1], [p[0], p[1], z1]]);
        }
    }
}

/// The gear of `service/samples/parts.rs`: 14 teeth, a raised hub, a bore with a key slot.
fn gear() -> Triangles {
    let teeth = 14;
    let pitch = TAU / f64::from(teeth);
    let mut outline = Vec::new();
    for tooth in 0..teeth {
        let start = f64::from(tooth) * pitch;
        outline.push(polar(0.78, start));
        outline.push(polar(0.95, start + pitch * 0.18));
        outline.push(polar(0.95, start + pitch * 0.45));
        outline.push(polar(0.78, start + pitch * 0.63));
    }
    // The bore, with the key slot cut into it at −y.
    let slot = (0.05_f64 / 0.2).asin();
    let mut bore: Vec<Point> = (0..=CIRCLE_SEGMENTS / 2)
        .map(|step| {
            let angle =
                -PI / 2.0 + slot + (TAU - 2.0 * slot) * step as f64 / (CIRCLE_SEGMENTS / 2) as f64;
            polar(0.2, angle)
        })
        .collect();
    bore.push([-0.05, -0.27]);
    bore.push([0.05, -0.27]);
    let hub = circle(0.45, CIRCLE_SEGMENTS);
    let mut triangles = Vec::new();
    extrude(
        &outline,
        std::slice::from_ref(&hub),
        -0.12,
        0.12,
        &mut triangles,
    );
    extrude(&hub, &[bore], -0.22, 0.22, &mut triangles);
    scaled(triangles, 40.0)
}

/// The washer: a flat ring.
fn washer() -> Triangles {
    let mut triangles = Vec::new();
    extrude(
        &circle(0.95, CIRCLE_SEGMENTS),
        &[circle(0.48, CIRCLE_SEGMENTS)],
        -0.08,
        0.08,
        &mut triangles,
    );
    scaled(triangles, 12.0)
}

/// The flange: a disc with eight bolt holes and a raised hub around the bore.
fn flange() -> Triangles {
    let hub = circle(0.52, CIRCLE_SEGMENTS);
    let mut holes = vec![hub.clone()];
    for hole in 0..8 {
        let centre = polar(0.74, TAU * f64::from(hole) / 8.0 + PI / 8.0);
        holes.push(
            circle(0.08, HOLE_SEGMENTS)
                .into_iter()
                .map(|p| [p[0] + centre[0], p[1] + centre[1]])
                .collect(),
        );
    }
    let mut triangles = Vec::new();
    extrude(
        &circle(0.95, CIRCLE_SEGMENTS),
        &holes,
        -0.1,
        0.1,
        &mut triangles,
    );
    extrude(
        &hub,
        &[circle(0.3, CIRCLE_SEGMENTS)],
        -0.1,
        0.32,
        &mut triangles,
    );
    scaled(triangles, 80.0 / 0.95)
}

/// The stepped shaft: four turned diameters along x.
fn stepped_shaft() -> Triangles {
    let steps = [(-0.95, 0.22), (-0.55, 0.38), (-0.05, 0.5), (0.45, 0.3)];
    let end = 0.95;
    let mut triangles = Vec::new();
    for (index, &(start, radius)) in steps.iter().enumerate() {
        let stop = steps.get(index + 1).map_or(end, |step| step.0);
        let mut cylinder = Vec::new();
        extrude(
            &circle(radius, CIRCLE_SEGMENTS),
            &[],
            start,
            stop,
            &mut cylinder,
        );
        // Turn the prism's axis (z) onto x: (x, y, z) → (z, x, y) keeps it right-handed.
        triangles.extend(
            cylinder
                .into_iter()
                .map(|triangle| triangle.map(|[x, y, z]| [z, x, y])),
        );
    }
    scaled(triangles, 100.0)
}

fn scaled(triangles: Triangles, factor: f64) -> Triangles {
    triangles
        .into_iter()
        .map(|triangle| triangle.map(|point| point.map(|value| value * factor)))
        .collect()
}

/// Binary STL of a triangle soup (normals from the corners' order).
fn binary_stl(triangles: &Triangles) -> anyhow::Result<Vec<u8>> {
    let facets: Vec<stl_io::Triangle> = triangles
        .iter()
        .map(|&[a, b, c]| {
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-30);
            stl_io::Triangle {
                normal: stl_io::Normal::new(n.map(|value| (value / length) as f32)),
                vertices: [a, b, c].map(|p| stl_io::Vertex::new(p.map(|value| value as f32))),
            }
        })
        .collect();
    let mut bytes = Vec::new();
    stl_io::write_stl(&mut bytes, facets.iter())?;
    Ok(bytes)
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
    manifest
        .parts
        .retain(|part| !part.file.starts_with("models/"));
    let models: [(&str, Builder); 4] = [
        ("gear", gear),
        ("washer", washer),
        ("flange", flange),
        ("stepped-shaft", stepped_shaft),
    ];
    for (name, build) in models {
        let file = format!("models/{name}.stl");
        let bytes = binary_stl(&build())?;
        write(&folder.join(&file), &bytes)?;
        let drawing = format!("{name}.png");
        let attributes = manifest
            .attributes_of(&drawing)
            .map(<[String]>::to_vec)
            .with_context(|| format!("the manifest has no {drawing} to take attributes from"))?;
        println!("{file}: {} bytes", bytes.len());
        manifest.parts.push(SamplePart {
            stored_path: format!("Samples/{file}"),
            file,
            attributes,
            views: Vec::new(),
        });
    }
    write_manifest(&folder, &manifest).map_err(anyhow::Error::msg)?;
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
