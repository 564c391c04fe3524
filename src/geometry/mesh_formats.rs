//! Reading mesh files (STL ascii and binary, OBJ, PLY ascii and binary) into one [`Mesh`] with the
//! ecosystem's readers, within limits: a file larger than [`MAX_MODEL_BYTES`] or with more than
//! [`MAX_TRIANGLES`] triangles or [`MAX_VERTICES`] vertices is refused before it can exhaust memory,
//! and whatever does not parse (or parses into no surface) is [`GeometryError::Malformed`].

use std::collections::HashMap;
use std::io::Cursor;

use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{DefaultElement, Property};

use super::{GeometryError, Mesh};

/// Largest model file the readers take, in bytes.
pub const MAX_MODEL_BYTES: usize = 256 * 1024 * 1024;
/// Most triangles a mesh may have (after polygons are split into triangles).
pub const MAX_TRIANGLES: usize = 4_000_000;
/// Most vertices a mesh may declare.
pub const MAX_VERTICES: usize = 6_000_000;

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

/// Collects triangles, welding vertices that have exactly the same coordinates (STL stores each
/// triangle's corners separately; closedness and volume need them shared).
#[derive(Default)]
struct MeshBuilder {
    mesh: Mesh,
    welded: HashMap<[u32; 3], u32>,
}

impl MeshBuilder {
    fn vertex(&mut self, point: [f32; 3]) -> Result<u32, GeometryError> {
        if point.iter().any(|value| !value.is_finite()) {
            return Err(malformed("a vertex is not a finite number"));
        }
        // +0.0 and −0.0 are the same point.
        let key = point.map(|value| (value + 0.0).to_bits());
        if let Some(&index) = self.welded.get(&key) {
            return Ok(index);
        }
        if self.mesh.vertices.len() >= MAX_VERTICES {
            return Err(GeometryError::OverLimit(format!(
                "more than {MAX_VERTICES} vertices"
            )));
        }
        let index = u32::try_from(self.mesh.vertices.len()).map_err(malformed)?;
        self.mesh.vertices.push(point);
        self.welded.insert(key, index);
        Ok(index)
    }

    fn triangle(&mut self, corners: [[f32; 3]; 3]) -> Result<(), GeometryError> {
        let indices = [
            self.vertex(corners[0])?,
            self.vertex(corners[1])?,
            self.vertex(corners[2])?,
        ];
        self.push(indices)
    }

    fn push(&mut self, indices: [u32; 3]) -> Result<(), GeometryError> {
        if self.mesh.triangles.len() >= MAX_TRIANGLES {
            return Err(GeometryError::OverLimit(format!(
                "more than {MAX_TRIANGLES} triangles"
            )));
        }
        self.mesh.triangles.push(indices);
        Ok(())
    }

    /// Adds a polygon given by corner positions as a fan of triangles.
    fn polygon(&mut self, corners: &[[f32; 3]]) -> Result<(), GeometryError> {
        for pair in corners.windows(2).skip(1) {
            self.triangle([corners[0], pair[0], pair[1]])?;
        }
        Ok(())
    }
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
    Ok(builder.mesh)
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
    Ok(builder.mesh)
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
    Ok(builder.mesh)
}

/// A reader's complaint as a [`GeometryError::Malformed`].
fn malformed(reason: impl std::fmt::Display) -> GeometryError {
    GeometryError::Malformed(reason.to_string())
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
