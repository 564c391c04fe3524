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
    let mut cursor = Cursor::new(bytes);
    let triangles = stl_io::create_stl_reader(&mut cursor).map_err(malformed)?;
    let mut builder = MeshBuilder::default();
    for triangle in triangles {
        let triangle = triangle.map_err(malformed)?;
        builder.triangle(triangle.vertices.map(|vertex| vertex.0))?;
    }
    Ok(builder.finish())
}

fn read_obj(bytes: &[u8]) -> Result<Mesh, GeometryError> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ..tobj::LoadOptions::default()
    };
    // Materials live in other files, which an upload does not have: they are not loaded.
    let (models, _materials) = tobj::load_obj_buf(&mut Cursor::new(bytes), &options, |_| {
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
