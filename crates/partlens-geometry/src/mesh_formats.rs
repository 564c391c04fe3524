//! Reading mesh files (STL ascii and binary, OBJ, PLY ascii and binary) into one [`Mesh`] with the
//! ecosystem's readers, within the limits of `builder.rs`: a file larger than
//! [`MAX_MODEL_BYTES`](super::MAX_MODEL_BYTES) or with more triangles or vertices than the builder
//! takes is refused before it can exhaust memory, and whatever does not parse (or parses into no
//! surface) is [`GeometryError::Malformed`].

use std::io::Cursor;

use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{DefaultElement, Property};

use super::builder::{MAX_MODEL_BYTES, MAX_TRIANGLES, MAX_VERTICES, MeshBuilder, malformed};
use super::{GeometryError, Mesh};

/// Reads `bytes` as the mesh format `extension` names (`.stl`, `.obj`, `.ply`, lower-case).
pub(super) fn read_mesh_file(extension: &str, bytes: &[u8]) -> Result<Mesh, GeometryError> {
    if bytes.len() > MAX_MODEL_BYTES {
        return Err(GeometryError::TooLarge {
            limit: MAX_MODEL_BYTES,
        });
    }
    let mesh = match extension {
        ".stl" => read_stl(bytes),
        ".obj" => read_obj(bytes),
        ".ply" => read_ply(bytes),
        _ => return Err(GeometryError::UnknownFormat),
    }?;
    if mesh.surface_area() <= 0.0 {
        return Err(GeometryError::Malformed(
            "the mesh has no surface".to_owned(),
        ));
    }
    Ok(mesh)
}

fn read_stl(bytes: &[u8]) -> Result<Mesh, GeometryError> {
    // Triangles are read one at a time (a binary STL's claimed count allocates nothing), so a
    // false claim ends in a read error and a true huge one at the builder's limit.
    let read = (|| {
        let mut cursor = Cursor::new(bytes);
        let triangles = stl_io::create_stl_reader(&mut cursor).map_err(malformed)?;
        let mut builder = MeshBuilder::default();
        for triangle in triangles {
            let triangle = triangle.map_err(malformed)?;
            builder.triangle(triangle.vertices.map(|vertex| vertex.0))?;
        }
        Ok(builder.finish())
    })();
    match read {
        // stl_io takes an ASCII file for binary when `solid` is indented, and refuses a bare
        // `solid` line: such files (CAD systems write both) are read by their `vertex` lines.
        Err(GeometryError::Malformed(_)) if looks_like_ascii_stl(bytes) => read_ascii_stl(bytes),
        other => other,
    }
}

/// True when the bytes start (after blanks) with `solid` and hold `vertex` within the first
/// kilobyte: an ASCII STL, whatever its binary-looking details.
fn looks_like_ascii_stl(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1024)];
    let start = head.iter().position(|byte| !byte.is_ascii_whitespace());
    start.is_some_and(|at| head[at..].starts_with(b"solid"))
        && head.windows(6).any(|window| window == b"vertex")
        && head.iter().all(|byte| byte.is_ascii())
}

/// Reads an ASCII STL by its `vertex x y z` lines, three a triangle (facets, loops and normals are
/// taken as written; the normals are computed again from the corners anyway).
fn read_ascii_stl(bytes: &[u8]) -> Result<Mesh, GeometryError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| malformed("the ASCII STL holds bytes that are not text"))?;
    let mut builder = MeshBuilder::default();
    let mut corners: Vec<[f32; 3]> = Vec::with_capacity(3);
    let mut words = text.split_ascii_whitespace();
    while let Some(word) = words.next() {
        if word != "vertex" {
            continue;
        }
        let mut coordinate = || -> Result<f32, GeometryError> {
            words
                .next()
                .and_then(|value| value.parse::<f32>().ok())
                .filter(|value| value.is_finite())
                .ok_or_else(|| malformed("a vertex line of the ASCII STL has no three numbers"))
        };
        corners.push([coordinate()?, coordinate()?, coordinate()?]);
        if corners.len() == 3 {
            builder.triangle([corners[0], corners[1], corners[2]])?;
            corners.clear();
        }
    }
    if !corners.is_empty() {
        return Err(malformed(
            "the ASCII STL ends inside a facet (its vertex count is not a multiple of three)",
        ));
    }
    Ok(builder.finish())
}

fn read_obj(bytes: &[u8]) -> Result<Mesh, GeometryError> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ..tobj::LoadOptions::default()
    };
    // Materials live in other files, which an upload does not have: they are not loaded, and their
    // lines are dropped before parsing (a `usemtl` without a name stops tobj otherwise); lines
    // continued with a trailing `\` are joined (tobj reads one line a statement).
    let prepared = prepared_obj_text(bytes);
    let (models, _materials) = tobj::load_obj_buf(&mut Cursor::new(&prepared), &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(malformed)?;
    let mut builder = MeshBuilder::default();
    for model in &models {
        let positions = &model.mesh.positions;
        let corner = |index: u32| -> Result<[f32; 3], GeometryError> {
            let at = index as usize * 3;
            positions
                .get(at..at + 3)
                .map(|xyz| [xyz[0], xyz[1], xyz[2]])
                .ok_or_else(|| malformed(format!("face index {index} names no vertex")))
        };
        for face in model.mesh.indices.chunks_exact(3) {
            builder.triangle([corner(face[0])?, corner(face[1])?, corner(face[2])?])?;
        }
    }
    Ok(builder.finish())
}

/// The OBJ text without its `mtllib` and `usemtl` lines, with lines continued by a trailing `\`
/// joined.
fn prepared_obj_text(bytes: &[u8]) -> Vec<u8> {
    let mut kept = Vec::with_capacity(bytes.len());
    let mut continued = false;
    for line in bytes.split_inclusive(|byte| *byte == b'\n') {
        let trimmed = line.trim_ascii_start();
        if !continued && (trimmed.starts_with(b"mtllib") || trimmed.starts_with(b"usemtl")) {
            continue;
        }
        let content = line.trim_ascii_end();
        continued = content.ends_with(b"\\");
        if continued {
            kept.extend_from_slice(&content[..content.len() - 1]);
            kept.push(b' ');
        } else {
            kept.extend_from_slice(line);
        }
    }
    kept
}

fn read_ply(bytes: &[u8]) -> Result<Mesh, GeometryError> {
    let parser = Parser::<DefaultElement>::new();
    let header = parser
        .read_ply_header(&mut Cursor::new(bytes))
        .map_err(malformed)?;
    for element in header.elements.values() {
        if element.count > MAX_VERTICES.max(MAX_TRIANGLES) {
            return Err(GeometryError::OverLimit(format!(
                "the header declares {} {} elements",
                element.count, element.name
            )));
        }
    }
    let ply = parser
        .read_ply(&mut Cursor::new(bytes))
        .map_err(malformed)?;
    let vertices = ply
        .payload
        .get("vertex")
        .ok_or_else(|| malformed("no vertex element"))?;
    let mut points = Vec::with_capacity(vertices.len());
    for vertex in vertices {
        let coordinate = |name: &str| {
            vertex
                .get(name)
                .and_then(scalar)
                .ok_or_else(|| malformed(format!("a vertex has no number {name}")))
        };
        points.push([coordinate("x")?, coordinate("y")?, coordinate("z")?]);
    }
    let mut builder = MeshBuilder::default();
    let faces = ply.payload.get("face").map_or(&[][..], Vec::as_slice);
    let mut corners = Vec::new();
    for face in faces {
        let indices = face
            .get("vertex_indices")
            .or_else(|| face.get("vertex_index"))
            .and_then(indices)
            .ok_or_else(|| malformed("a face has no vertex_indices list"))?;
        corners.clear();
        for index in indices {
            let point = usize::try_from(index)
                .ok()
                .and_then(|index| points.get(index))
                .ok_or_else(|| malformed(format!("face index {index} names no vertex")))?;
            corners.push(*point);
        }
        builder.polygon(&corners)?;
    }
    Ok(builder.finish())
}

/// A scalar PLY property as a coordinate.
fn scalar(property: &Property) -> Option<f32> {
    Some(match *property {
        Property::Float(value) => value,
        Property::Double(value) => value as f32,
        Property::Char(value) => f32::from(value),
        Property::UChar(value) => f32::from(value),
        Property::Short(value) => f32::from(value),
        Property::UShort(value) => f32::from(value),
        Property::Int(value) => value as f32,
        Property::UInt(value) => value as f32,
        _ => return None,
    })
}

/// A list PLY property as vertex indices.
fn indices(property: &Property) -> Option<Vec<i64>> {
    Some(match property {
        Property::ListChar(values) => values.iter().map(|&v| i64::from(v)).collect(),
        Property::ListUChar(values) => values.iter().map(|&v| i64::from(v)).collect(),
        Property::ListShort(values) => values.iter().map(|&v| i64::from(v)).collect(),
        Property::ListUShort(values) => values.iter().map(|&v| i64::from(v)).collect(),
        Property::ListInt(values) => values.iter().map(|&v| i64::from(v)).collect(),
        Property::ListUInt(values) => values.iter().map(|&v| i64::from(v)).collect(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One closed tetrahedron as ASCII STL facets.
    fn tetrahedron_facets() -> String {
        let corners = [
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 0.0],
            [0.0, 10.0, 0.0],
            [0.0, 0.0, 10.0],
        ];
        let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        let mut text = String::new();
        for face in faces {
            text.push_str(" facet normal 0.0E+00 0.0E+00 0.0E+00\n  outer loop\n");
            for corner in face {
                let [x, y, z] = corners[corner];
                text.push_str(&format!("   vertex {x:.6E} {y:.6E} {z:.6E}\n"));
            }
            text.push_str("  endloop\n endfacet\n");
        }
        text
    }

    #[test]
    fn ascii_stl_with_an_indented_or_bare_solid_line_is_read() {
        // As a Fortran-era exporter writes it (pythonocc's bottle), and as OCCT writes it (no name).
        for header in [" solid FLIRIS  \n", "solid\n"] {
            let text = format!("{header}{} endsolid FLIRIS\n", tetrahedron_facets());
            let mesh = read_mesh_file(".stl", text.as_bytes()).unwrap();
            assert_eq!(mesh.triangles.len(), 4, "{header:?}");
            assert_eq!(mesh.vertices.len(), 4, "{header:?}");
        }
        let cut = "solid\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n";
        assert!(matches!(
            read_mesh_file(".stl", cut.as_bytes()),
            Err(GeometryError::Malformed(_))
        ));
    }

    #[test]
    fn obj_material_lines_are_ignored_and_continued_lines_joined() {
        let text = "mtllib 00.mtl\nusemtl \nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n\
                    f 1 3 2\nf 1 2 \\\n 4\nf 1 4 3\nf 2 3 4\n";
        let mesh = read_mesh_file(".obj", text.as_bytes()).unwrap();
        assert_eq!(mesh.triangles.len(), 4);
    }
}
