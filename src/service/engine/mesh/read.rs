//! Reading mesh files (STL ascii and binary, OBJ, PLY ascii and binary) into one [`Mesh`] with the
//! ecosystem's readers, within limits: a file larger than [`MAX_MESH_BYTES`] or with more than
//! [`MAX_TRIANGLES`] triangles or [`MAX_VERTICES`] vertices is refused before it can exhaust memory,
//! and whatever does not parse (or parses into no surface) is [`EngineError::Undecodable`].

use std::collections::HashMap;
use std::io::Cursor;

use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{DefaultElement, Property};

use super::Mesh;
use crate::service::engine::EngineError;

/// Largest mesh file the engine reads, in bytes.
pub const MAX_MESH_BYTES: usize = 256 * 1024 * 1024;
/// Most triangles a mesh may have (after polygons are split into triangles).
pub const MAX_TRIANGLES: usize = 4_000_000;
/// Most vertices a mesh may declare.
pub const MAX_VERTICES: usize = 6_000_000;

/// Reads `bytes` as the mesh format `extension` names (`.stl`, `.obj`, `.ply`, lower-case).
pub fn read_mesh(extension: &str, bytes: &[u8]) -> Result<Mesh, EngineError> {
    let undecodable = |reason: String| EngineError::Undecodable {
        extension: extension.to_owned(),
        reason,
    };
    if bytes.len() > MAX_MESH_BYTES {
        return Err(undecodable(format!(
            "the mesh is larger than {MAX_MESH_BYTES} bytes"
        )));
    }
    let mesh = match extension {
        ".stl" => read_stl(bytes),
        ".obj" => read_obj(bytes),
        ".ply" => read_ply(bytes),
        _ => Err("not a mesh format".to_owned()),
    }
    .map_err(undecodable)?;
    if mesh.surface_area() <= 0.0 {
        return Err(undecodable("the mesh has no surface".to_owned()));
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
    fn vertex(&mut self, point: [f32; 3]) -> Result<u32, String> {
        if point.iter().any(|value| !value.is_finite()) {
            return Err("a vertex is not a finite number".to_owned());
        }
        // +0.0 and −0.0 are the same point.
        let key = point.map(|value| (value + 0.0).to_bits());
        if let Some(&index) = self.welded.get(&key) {
            return Ok(index);
        }
        if self.mesh.vertices.len() >= MAX_VERTICES {
            return Err(format!("more than {MAX_VERTICES} vertices"));
        }
        let index = u32::try_from(self.mesh.vertices.len()).map_err(|error| error.to_string())?;
        self.mesh.vertices.push(point);
        self.welded.insert(key, index);
        Ok(index)
    }

    fn triangle(&mut self, corners: [[f32; 3]; 3]) -> Result<(), String> {
        let indices = [
            self.vertex(corners[0])?,
            self.vertex(corners[1])?,
            self.vertex(corners[2])?,
        ];
        self.push(indices)
    }

    fn push(&mut self, indices: [u32; 3]) -> Result<(), String> {
        if self.mesh.triangles.len() >= MAX_TRIANGLES {
            return Err(format!("more than {MAX_TRIANGLES} triangles"));
        }
        self.mesh.triangles.push(indices);
        Ok(())
    }

    /// Adds a polygon given by corner positions as a fan of triangles.
    fn polygon(&mut self, corners: &[[f32; 3]]) -> Result<(), String> {
        for pair in corners.windows(2).skip(1) {
            self.triangle([corners[0], pair[0], pair[1]])?;
        }
        Ok(())
    }
}

fn read_stl(bytes: &[u8]) -> Result<Mesh, String> {
    // Triangles are read one at a time (a binary STL's claimed count allocates nothing), so a
    // false claim ends in a read error and a true huge one at the builder's limit.
    let mut cursor = Cursor::new(bytes);
    let triangles = stl_io::create_stl_reader(&mut cursor).map_err(|error| error.to_string())?;
    let mut builder = MeshBuilder::default();
    for triangle in triangles {
        let triangle = triangle.map_err(|error| error.to_string())?;
        builder.triangle(triangle.vertices.map(|vertex| vertex.0))?;
    }
    Ok(builder.mesh)
}

fn read_obj(bytes: &[u8]) -> Result<Mesh, String> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ..tobj::LoadOptions::default()
    };
    // Materials live in other files, which an upload does not have: they are not loaded.
    let (models, _materials) = tobj::load_obj_buf(&mut Cursor::new(bytes), &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|error| error.to_string())?;
    let mut builder = MeshBuilder::default();
    for model in &models {
        let positions = &model.mesh.positions;
        let corner = |index: u32| -> Result<[f32; 3], String> {
            let at = index as usize * 3;
            positions
                .get(at..at + 3)
                .map(|xyz| [xyz[0], xyz[1], xyz[2]])
                .ok_or_else(|| format!("face index {index} names no vertex"))
        };
        for face in model.mesh.indices.chunks_exact(3) {
            builder.triangle([corner(face[0])?, corner(face[1])?, corner(face[2])?])?;
        }
    }
    Ok(builder.mesh)
}

fn read_ply(bytes: &[u8]) -> Result<Mesh, String> {
    let parser = Parser::<DefaultElement>::new();
    let header = parser
        .read_ply_header(&mut Cursor::new(bytes))
        .map_err(|error| error.to_string())?;
    for element in header.elements.values() {
        if element.count > MAX_VERTICES.max(MAX_TRIANGLES) {
            return Err(format!(
                "the header declares {} {} elements",
                element.count, element.name
            ));
        }
    }
    let ply = parser
        .read_ply(&mut Cursor::new(bytes))
        .map_err(|error| error.to_string())?;
    let vertices = ply
        .payload
        .get("vertex")
        .ok_or_else(|| "no vertex element".to_owned())?;
    let mut points = Vec::with_capacity(vertices.len());
    for vertex in vertices {
        let coordinate = |name: &str| {
            vertex
                .get(name)
                .and_then(scalar)
                .ok_or_else(|| format!("a vertex has no number {name}"))
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
            .ok_or_else(|| "a face has no vertex_indices list".to_owned())?;
        corners.clear();
        for index in indices {
            let point = usize::try_from(index)
                .ok()
                .and_then(|index| points.get(index))
                .ok_or_else(|| format!("face index {index} names no vertex"))?;
            corners.push(*point);
        }
        builder.polygon(&corners)?;
    }
    Ok(builder.mesh)
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
