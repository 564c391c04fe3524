//! Drawing a model as one egui mesh: every vertex projected through the [`Camera`], triangles shaded
//! by how squarely they face the viewer (a headlight, as CAD viewers light), the crease and boundary
//! edges as thin quads, and all of it sorted back to front (painter's algorithm), since egui has no
//! depth buffer. Triangles facing away from the viewer are skipped when the surface is closed.
//!
//! A component chosen in an assembly's tree is lit ([`model_mesh_lit`]): its triangles in the
//! accent colour, the others faded to a see-through grey so the component shows through them.
//!
//! One code path for every renderer egui runs on (wgpu, glow, and the test harness), with a cost
//! that grows with the displayed triangles only: the preview is reduced to
//! [`partlens_tasks::models::DISPLAY_TRIANGLES`] when it is read, and `benches/model_frame.rs`
//! measures a frame at that size.

use egui::epaint::{Mesh, Vertex};
use egui::{Color32, Pos2, Rect, Vec2};

use super::camera::Camera;
use partlens_geometry::edges::NO_FACE;
use partlens_tasks::models::ModelPreview;

/// How the model is painted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelStyle {
    /// The surface colour facing the viewer squarely.
    pub surface: Color32,
    /// The colour of edges.
    pub edge: Color32,
    /// Edge width in points.
    pub edge_width: f32,
    /// Draw the crease and boundary edges.
    pub edges: bool,
    /// The colour of a lit component's surface facing the viewer squarely.
    pub accent: Color32,
    /// The colour of the rest while a component is lit (see-through: its alpha is below 255).
    pub faded: Color32,
    /// The colour of the rest's edges while a component is lit.
    pub faded_edge: Color32,
}

impl ModelStyle {
    /// The style for the current theme.
    pub fn for_visuals(visuals: &egui::Visuals, edges: bool) -> Self {
        if visuals.dark_mode {
            Self {
                surface: Color32::from_rgb(0xa9, 0xbe, 0xd6),
                edge: Color32::from_rgb(0x10, 0x14, 0x1a),
                edge_width: 1.2,
                edges,
                accent: Color32::from_rgb(0xff, 0xa6, 0x3d),
                faded: Color32::from_rgba_unmultiplied(0x9a, 0xa4, 0xb0, FADED_ALPHA),
                faded_edge: Color32::from_rgba_unmultiplied(0x10, 0x14, 0x1a, FADED_ALPHA),
            }
        } else {
            Self {
                surface: Color32::from_rgb(0x9d, 0xb4, 0xcf),
                edge: Color32::from_rgb(0x1d, 0x26, 0x33),
                edge_width: 1.2,
                edges,
                accent: Color32::from_rgb(0xf0, 0x7a, 0x10),
                faded: Color32::from_rgba_unmultiplied(0xb4, 0xbc, 0xc6, FADED_ALPHA),
                faded_edge: Color32::from_rgba_unmultiplied(0x1d, 0x26, 0x33, FADED_ALPHA),
            }
        }
    }
}

/// Light that reaches a triangle seen edge-on; the rest scales with how squarely it faces.
const AMBIENT: f32 = 0.28;

/// Opacity of what is not lit while a component is (of 255).
pub const FADED_ALPHA: u8 = 70;

/// The model seen by `camera`, fitted into `rect`, as one mesh in screen points.
pub fn model_mesh(preview: &ModelPreview, camera: &Camera, rect: Rect, style: &ModelStyle) -> Mesh {
    model_mesh_lit(preview, camera, rect, style, None)
}

/// [`model_mesh`] with the triangles `lit` marks (one flag a triangle of the preview's mesh) in
/// the accent colour and the rest faded; `None` (or flags of another mesh): all alike.
pub fn model_mesh_lit(
    preview: &ModelPreview,
    camera: &Camera,
    rect: Rect,
    style: &ModelStyle,
    lit: Option<&[bool]>,
) -> Mesh {
    let basis = camera.basis();
    let projected = project_vertices(preview, camera, rect);
    let facing: Vec<f32> = preview
        .normals
        .iter()
        .map(|normal| dot(*normal, basis.toward_viewer))
        .collect();
    let view = View {
        preview,
        projected: &projected,
        facing: &facing,
        lit: lit.filter(|lit| lit.len() == preview.mesh.triangles.len()),
    };
    let order = view.draw_order(camera, style);
    view.painted(&order, style)
}

/// The dot product of two vectors.
fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Screen position and depth (toward the viewer) of every vertex.
fn project_vertices(preview: &ModelPreview, camera: &Camera, rect: Rect) -> Vec<(Pos2, f32)> {
    let basis = camera.basis();
    let scale = rect.height() / (2.0 * camera.half_height.max(f32::MIN_POSITIVE));
    let center = rect.center();
    let target = camera.target;
    preview
        .mesh
        .vertices
        .iter()
        .map(|vertex| {
            let relative = [
                vertex[0] - target[0],
                vertex[1] - target[1],
                vertex[2] - target[2],
            ];
            (
                Pos2::new(
                    center.x + dot(relative, basis.right) * scale,
                    center.y - dot(relative, basis.up) * scale,
                ),
                dot(relative, basis.toward_viewer),
            )
        })
        .collect()
}

/// A model projected for one camera: what the draw order and the painting read.
struct View<'a> {
    preview: &'a ModelPreview,
    projected: &'a [(Pos2, f32)],
    facing: &'a [f32],
    /// The lit triangles, one flag each, while a component is lit.
    lit: Option<&'a [bool]>,
}

impl View<'_> {
    /// False for a triangle faded because another component is lit.
    fn is_lit(&self, face: u32) -> bool {
        self.lit
            .is_none_or(|lit| lit.get(face as usize).copied().unwrap_or(false))
    }

    /// True when triangle `face` is drawn (a closed model's back faces are not).
    fn shown(&self, face: u32) -> bool {
        face != NO_FACE && (!self.preview.closed || self.facing[face as usize] > 0.0)
    }

    /// Sort keys of every primitive drawn, far first: depth as ordered bits in the high half, the
    /// primitive in the low half (triangles first, then edges after them by index), so one integer
    /// sort orders everything.
    fn draw_order(&self, camera: &Camera, style: &ModelStyle) -> Vec<u64> {
        let preview = self.preview;
        let triangle_count = preview.mesh.triangles.len();
        let triangle_depth: Vec<f32> = preview
            .mesh
            .triangles
            .iter()
            .map(|triangle| {
                triangle
                    .iter()
                    .map(|&vertex| self.projected[vertex as usize].1)
                    .sum::<f32>()
                    / 3.0
            })
            .collect();
        let mut order: Vec<u64> = Vec::with_capacity(triangle_count + preview.edges.len());
        for (index, &depth) in triangle_depth.iter().enumerate() {
            if self.shown(index as u32) {
                order.push(sort_key(depth, index));
            }
        }
        if style.edges {
            self.order_edges(&triangle_depth, camera, &mut order);
        }
        order.sort_unstable();
        order
    }

    /// An edge is drawn just after the nearest triangle that touches either of its ends: a
    /// triangle's middle can be nearer than its edges, and neither it nor a sliver meeting the edge
    /// at a corner may cover the outline.
    fn order_edges(&self, triangle_depth: &[f32], camera: &Camera, order: &mut Vec<u64>) {
        let preview = self.preview;
        let triangle_count = preview.mesh.triangles.len();
        let mut nearest_at_vertex = vec![f32::NEG_INFINITY; self.projected.len()];
        for (index, triangle) in preview.mesh.triangles.iter().enumerate() {
            if self.shown(index as u32) {
                for &vertex in triangle {
                    let nearest = &mut nearest_at_vertex[vertex as usize];
                    *nearest = nearest.max(triangle_depth[index]);
                }
            }
        }
        let lift = camera.fitted_half_height * 1e-3;
        for (index, edge) in preview.edges.iter().enumerate() {
            if preview.closed && !(self.shown(edge.faces[0]) || self.shown(edge.faces[1])) {
                continue;
            }
            let [a, b] = edge.vertices.map(|vertex| vertex as usize);
            let depth = nearest_at_vertex[a]
                .max(nearest_at_vertex[b])
                .max((self.projected[a].1 + self.projected[b].1) / 2.0);
            order.push(sort_key(depth + lift, triangle_count + index));
        }
    }

    /// The primitives of `order` painted in that order: shaded triangles and edges as thin quads.
    fn painted(&self, order: &[u64], style: &ModelStyle) -> Mesh {
        let triangle_count = self.preview.mesh.triangles.len();
        let mut mesh = Mesh::default();
        mesh.reserve_vertices(order.len() * 3);
        mesh.reserve_triangles(order.len());
        for &key in order {
            let index = (key & 0xffff_ffff) as usize;
            if index < triangle_count {
                self.paint_triangle(&mut mesh, index, style);
            } else {
                self.paint_edge(&mut mesh, index - triangle_count, style);
            }
        }
        mesh
    }

    /// Triangle `index`, lit by how squarely it faces the viewer.
    fn paint_triangle(&self, mesh: &mut Mesh, index: usize, style: &ModelStyle) {
        let base = match self.lit {
            None => style.surface,
            Some(_) if self.is_lit(index as u32) => style.accent,
            Some(_) => style.faded,
        };
        let light = AMBIENT + (1.0 - AMBIENT) * self.facing[index].abs().min(1.0);
        // Colour32 is premultiplied: scaling every channel (alpha kept) lights a see-through one.
        let [r, g, b, a] = base.to_array();
        let color = Color32::from_rgba_premultiplied(
            (f32::from(r) * light) as u8,
            (f32::from(g) * light) as u8,
            (f32::from(b) * light) as u8,
            a,
        );
        let first = mesh.vertices.len() as u32;
        for &vertex in &self.preview.mesh.triangles[index] {
            mesh.vertices.push(Vertex {
                pos: self.projected[vertex as usize].0,
                uv: egui::epaint::WHITE_UV,
                color,
            });
        }
        mesh.add_triangle(first, first + 1, first + 2);
    }

    /// Edge `index` as a quad `style.edge_width` wide (none for an edge seen end-on).
    fn paint_edge(&self, mesh: &mut Mesh, index: usize, style: &ModelStyle) {
        let edge = &self.preview.edges[index];
        let color = if edge
            .faces
            .iter()
            .any(|&face| face != NO_FACE && self.is_lit(face))
        {
            style.edge
        } else {
            style.faded_edge
        };
        let [a, b] = edge
            .vertices
            .map(|vertex| self.projected[vertex as usize].0);
        let along = b - a;
        let length = along.length();
        if length <= f32::EPSILON {
            return;
        }
        let across = Vec2::new(-along.y, along.x) / length * (style.edge_width / 2.0);
        let first = mesh.vertices.len() as u32;
        for pos in [a - across, a + across, b + across, b - across] {
            mesh.vertices.push(Vertex {
                pos,
                uv: egui::epaint::WHITE_UV,
                color,
            });
        }
        mesh.add_triangle(first, first + 1, first + 2);
        mesh.add_triangle(first, first + 2, first + 3);
    }
}

/// Depth (larger: nearer) and primitive index packed so that sorting the keys puts far first.
fn sort_key(depth: f32, index: usize) -> u64 {
    let bits = depth.to_bits();
    // Flip so that the unsigned order of the bits is the order of the floats.
    let ordered = if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    };
    (u64::from(ordered) << 32) | (index as u64 & 0xffff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model_view::camera::StandardView;
    use partlens_geometry::Mesh as Triangles;

    /// Two squares facing +Z, one at z = 0 and a smaller one at z = 1.
    fn two_layers() -> ModelPreview {
        let mut mesh = Triangles::default();
        for (z, half) in [(0.0, 2.0), (1.0, 1.0)] {
            let first = mesh.vertices.len() as u32;
            mesh.vertices.extend([
                [-half, -half, z],
                [half, -half, z],
                [half, half, z],
                [-half, half, z],
            ]);
            mesh.triangles
                .extend([[first, first + 1, first + 2], [first, first + 2, first + 3]]);
        }
        ModelPreview::prepare("layers", "test", &mesh, 1000).unwrap()
    }

    #[test]
    fn depth_keys_sort_far_to_near() {
        let mut keys = [
            sort_key(1.0, 0),
            sort_key(-3.0, 1),
            sort_key(0.0, 2),
            sort_key(-0.5, 3),
        ];
        keys.sort_unstable();
        let order: Vec<u64> = keys.iter().map(|key| key & 0xffff_ffff).collect();
        assert_eq!(order, [1, 3, 2, 0]);
    }

    #[test]
    fn the_nearer_layer_is_painted_last_and_edges_follow_their_faces() {
        let preview = two_layers();
        assert!(!preview.closed);
        // Eight boundary edges: four per square.
        assert_eq!(preview.edges.len(), 8);
        let rect = Rect::from_min_size(Pos2::ZERO, Vec2::new(200.0, 100.0));
        let camera = Camera::fitted(preview.measurements.bounds, StandardView::Top, 2.0);
        let style = ModelStyle::for_visuals(&egui::Visuals::light(), true);
        let mesh = model_mesh(&preview, &camera, rect, &style);
        // 4 triangles × 3 vertices + 8 edges × 4 vertices.
        assert_eq!(mesh.vertices.len(), 4 * 3 + 8 * 4);
        assert!(mesh.is_valid());
        // The last primitive is an edge of the upper square, drawn in the edge colour.
        assert_eq!(
            mesh.vertices.last().map(|vertex| vertex.color),
            Some(style.edge)
        );
        // The model is centred: the top view maps x to the right.
        let bounds = mesh.calc_bounds();
        assert!(
            (bounds.center().x - rect.center().x).abs() < 1.0,
            "{bounds:?}"
        );
        let without_edges = model_mesh(
            &preview,
            &camera,
            rect,
            &ModelStyle {
                edges: false,
                ..style
            },
        );
        assert_eq!(without_edges.vertices.len(), 12);
    }
}
