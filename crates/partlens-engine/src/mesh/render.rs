//! Drawing a mesh (in its standard pose) from a viewpoint on the CPU, the way a technical drawing or
//! a product picture of the part looks: white paper, light flat shading, dark lines on the
//! silhouette, where one surface passes in front of another and on creases between faces. A small
//! z-buffer rasteriser keeps, per pixel, the nearest triangle; lines are found afterwards between
//! neighbouring pixels (a change of coverage, a jump in depth that the nearer surface's own slope
//! does not explain, or a fold sharper than [`CREASE_DEGREES`]), then thickened to a pen width.

use image::{Rgb, RgbImage};

use super::Mesh;

/// Faces meeting at more than this angle draw a crease line; a tessellated cylinder's facets meet
/// at a few degrees and draw none.
pub const CREASE_DEGREES: f32 = 35.0;
/// Share of the picture side the part's enclosing sphere takes.
const PART_EXTENT: f32 = 0.84;
/// A depth jump between neighbouring pixels counts as an outline above this share of the part's
/// size (its standard pose has radius 1).
const DEPTH_JUMP: f32 = 0.02;
/// Pen width in pixels per 512 pixels of picture side.
const PEN_WIDTH_AT_512: f32 = 3.0;
/// Line, paper and the shading range of surfaces (darkest to lightest grey).
const LINE: [u8; 3] = [28, 28, 28];
const PAPER: [u8; 3] = [255, 255, 255];
const SHADE_DARKEST: f32 = 226.0;
const SHADE_LIGHTEST: f32 = 250.0;

/// Where the part is seen from: the picture's right and up directions in the part's frame (the
/// viewer looks along −(right × up)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewpoint {
    /// Name of the view (for logs and tests).
    pub name: &'static str,
    /// Picture x axis in part coordinates (unit length).
    pub right: [f32; 3],
    /// Picture y axis in part coordinates (unit length, at right angles to `right`).
    pub up: [f32; 3],
}

impl Viewpoint {
    /// The direction from the part towards the viewer.
    fn towards_viewer(&self) -> [f32; 3] {
        cross(self.right, self.up)
    }

    /// An isometric view from the octant `(x, y, z)` signs, z up.
    const fn isometric(name: &'static str, x: f32, y: f32) -> Self {
        // Viewer direction t = (x, y, 1)/√3; right = up × t with up the part's z projected off t.
        let s2 = std::f32::consts::FRAC_1_SQRT_2;
        let s6 = 0.408_248_3; // 1/√6
        Self {
            name,
            right: [-y * s2, x * s2, 0.0],
            up: [-x * s6, -y * s6, 2.0 * s6],
        }
    }
}

/// The views every mesh gets: the three axis views of its standard pose (largest face first) and
/// four isometric ones. The first isometric view is the most informative picture (thumbnail).
pub const VIEWPOINTS: [Viewpoint; 7] = [
    Viewpoint {
        name: "top",
        right: [1.0, 0.0, 0.0],
        up: [0.0, 1.0, 0.0],
    },
    Viewpoint {
        name: "front",
        right: [1.0, 0.0, 0.0],
        up: [0.0, 0.0, 1.0],
    },
    Viewpoint {
        name: "side",
        right: [0.0, 1.0, 0.0],
        up: [0.0, 0.0, 1.0],
    },
    Viewpoint::isometric("isometric", 1.0, -1.0),
    Viewpoint::isometric("isometric-2", 1.0, 1.0),
    Viewpoint::isometric("isometric-3", -1.0, 1.0),
    Viewpoint::isometric("isometric-4", -1.0, -1.0),
];

/// Position of [`VIEWPOINTS`]' first isometric view: the thumbnail and large image.
pub const PICTURE_VIEW: usize = 3;

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalised(a: [f32; 3]) -> [f32; 3] {
    let length = dot(a, a).sqrt();
    if length > 0.0 {
        a.map(|value| value / length)
    } else {
        [0.0; 3]
    }
}

/// How a rendering projects the part onto its picture.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Projection {
    /// Parallel lines of sight, as in a technical drawing: the drawn pictures ([`render`]).
    Parallel,
    /// Lines of sight through an eye `eye_distance` part radii from the part's centre, as a camera
    /// sees it: the framed renderings that are described ([`render_framed`]).
    Perspective {
        /// Distance from the eye to the part's centre, in part radii (more than 1).
        eye_distance: f32,
    },
}

/// How far from the part a framed rendering's eye stands, in part radii (a posed part has radius
/// 1). A view of a model is compared above all with photographs, and a camera sees a part in
/// perspective: its near end larger than its far end. A photograph in which a part fills a good
/// share of the frame is taken from 3 to 8 radii; a drawing is a parallel projection. Measured on
/// the real-world corpus's photo-like pictures, taken from 5 radii (docs/PERFORMANCE.md, "Model
/// views in perspective"): the part in the first five for 304 of 328 pictures with parallel views,
/// 311, 319, 317, 320, 319 and 317 with the eye at 3, 4, 5, 6, 8 and 10 radii. From 7 radii and
/// closer, the sample shaft's side-on drawing no longer finds the shaft first; from 8 it does.
pub(crate) const EYE_DISTANCE: f32 = 8.0;

/// No triangle at this pixel.
const EMPTY: u32 = u32::MAX;

/// Per-pixel nearest surface: which triangle and at what depth (larger is nearer).
struct Surfaces {
    side: usize,
    triangle: Vec<u32>,
    depth: Vec<f32>,
    /// Per triangle: depth as a plane over the picture, `d = a·x + b·y + c`.
    planes: Vec<[f32; 3]>,
    /// Per triangle: unit normal in the part's frame.
    normals: Vec<[f32; 3]>,
}

impl Surfaces {
    /// The whole part on the picture: its enclosing sphere takes [`PART_EXTENT`] of the side.
    fn rasterise(mesh: &Mesh, view: &Viewpoint, side: usize, projection: Projection) -> Self {
        Self::rasterise_window(mesh, view, side, [0.0, 0.0], 1.0 / PART_EXTENT, projection)
    }

    /// The square of half-side `half` around `centre` (in the view's right and up coordinates,
    /// part units, on the plane through the part's centre) on a `side`² picture.
    fn rasterise_window(
        mesh: &Mesh,
        view: &Viewpoint,
        side: usize,
        centre: [f32; 2],
        half: f32,
        projection: Projection,
    ) -> Self {
        let half_px = side as f32 / 2.0;
        let scale = half_px / half.max(1e-6);
        let towards = view.towards_viewer();
        let projected: Vec<[f32; 3]> = mesh
            .vertices
            .iter()
            .map(|&point| {
                let near = dot(point, towards);
                // Enlargement on the picture and depth (larger is nearer; under perspective the
                // inverse distance, which is linear over the picture as `fill` interpolates it).
                let (enlarged, depth) = match projection {
                    Projection::Parallel => (1.0, near),
                    Projection::Perspective { eye_distance } => {
                        let away = (eye_distance - near).max(1e-3);
                        (eye_distance / away, 1.0 / away)
                    }
                };
                [
                    half_px + (dot(point, view.right) * enlarged - centre[0]) * scale,
                    half_px - (dot(point, view.up) * enlarged - centre[1]) * scale,
                    depth,
                ]
            })
            .collect();
        let mut surfaces = Self {
            side,
            triangle: vec![EMPTY; side * side],
            depth: vec![f32::NEG_INFINITY; side * side],
            planes: vec![[0.0; 3]; mesh.triangles.len()],
            normals: Vec::with_capacity(mesh.triangles.len()),
        };
        for (index, triangle) in mesh.triangles.iter().enumerate() {
            let [a, b, c] = triangle.map(|corner| mesh.vertices[corner as usize]);
            surfaces.normals.push(normalised(cross(
                [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
            )));
            let corners = triangle.map(|corner| projected[corner as usize]);
            surfaces.fill(index, corners);
        }
        surfaces
    }

    /// Fills one projected triangle into the buffers (pixel centres inside it, nearer wins).
    fn fill(&mut self, index: usize, [a, b, c]: [[f32; 3]; 3]) {
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area.abs() < 1e-9 {
            return; // Seen edge-on: its neighbours draw it.
        }
        // Depth plane through the three corners.
        let plane_a = ((b[2] - a[2]) * (c[1] - a[1]) - (c[2] - a[2]) * (b[1] - a[1])) / area;
        let plane_b = ((c[2] - a[2]) * (b[0] - a[0]) - (b[2] - a[2]) * (c[0] - a[0])) / area;
        let plane_c = a[2] - plane_a * a[0] - plane_b * a[1];
        self.planes[index] = [plane_a, plane_b, plane_c];
        let last = (self.side - 1) as f32;
        let left = a[0].min(b[0]).min(c[0]).floor().clamp(0.0, last) as usize;
        let right = a[0].max(b[0]).max(c[0]).ceil().clamp(0.0, last) as usize;
        let top = a[1].min(b[1]).min(c[1]).floor().clamp(0.0, last) as usize;
        let bottom = a[1].max(b[1]).max(c[1]).ceil().clamp(0.0, last) as usize;
        let edge = |p: [f32; 3], q: [f32; 3], x: f32, y: f32| {
            ((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])) * area.signum()
        };
        for y in top..=bottom {
            let centre_y = y as f32 + 0.5;
            for x in left..=right {
                let centre_x = x as f32 + 0.5;
                if edge(a, b, centre_x, centre_y) < 0.0
                    || edge(b, c, centre_x, centre_y) < 0.0
                    || edge(c, a, centre_x, centre_y) < 0.0
                {
                    continue;
                }
                let depth = plane_a * centre_x + plane_b * centre_y + plane_c;
                let at = y * self.side + x;
                if depth > self.depth[at] {
                    self.depth[at] = depth;
                    self.triangle[at] = index as u32;
                }
            }
        }
    }

    /// True when a line runs between pixels `p` and `q` (see the module comment).
    fn line_between(&self, p: usize, q: usize) -> bool {
        let (tp, tq) = (self.triangle[p], self.triangle[q]);
        if tp == tq {
            return false;
        }
        if tp == EMPTY || tq == EMPTY {
            return true;
        }
        let (np, nq) = (self.normals[tp as usize], self.normals[tq as usize]);
        // Two-sided: a fold is measured between the faces' planes, whichever way they point.
        if dot(np, nq).abs() < CREASE_DEGREES.to_radians().cos() {
            return true;
        }
        let centre = |at: usize| ((at % self.side) as f32 + 0.5, (at / self.side) as f32 + 0.5);
        let predicted = |triangle: u32, at: usize| {
            let [a, b, c] = self.planes[triangle as usize];
            let (x, y) = centre(at);
            a * x + b * y + c
        };
        (predicted(tp, q) - self.depth[q]).abs() > DEPTH_JUMP
            && (predicted(tq, p) - self.depth[p]).abs() > DEPTH_JUMP
    }
}

/// Renders the mesh (in its standard pose, radius 1) from `view` on a `side`² picture.
pub fn render(mesh: &Mesh, view: &Viewpoint, side: u32) -> RgbImage {
    let side_px = side.max(8) as usize;
    let surfaces = Surfaces::rasterise(mesh, view, side_px, Projection::Parallel);
    let towards = view.towards_viewer();
    // Light from the upper left, in front of the viewer.
    let light = normalised([
        towards[0] + 0.5 * (view.up[0] - view.right[0]),
        towards[1] + 0.5 * (view.up[1] - view.right[1]),
        towards[2] + 0.5 * (view.up[2] - view.right[2]),
    ]);
    let mut lines = vec![false; side_px * side_px];
    for y in 0..side_px {
        for x in 0..side_px {
            let at = y * side_px + x;
            if x + 1 < side_px && surfaces.line_between(at, at + 1) {
                lines[at] = true;
            }
            if y + 1 < side_px && surfaces.line_between(at, at + side_px) {
                lines[at] = true;
            }
        }
    }
    let pen = (PEN_WIDTH_AT_512 * side_px as f32 / 512.0).max(1.0);
    let reach = ((pen - 1.0) / 2.0).round() as isize;
    let thick = thicken(&lines, side_px, reach);
    RgbImage::from_fn(side_px as u32, side_px as u32, |x, y| {
        let at = y as usize * side_px + x as usize;
        if thick[at] {
            return Rgb(LINE);
        }
        match surfaces.triangle[at] {
            EMPTY => Rgb(PAPER),
            triangle => {
                let lit = dot(surfaces.normals[triangle as usize], light).abs();
                let grey = SHADE_DARKEST + (SHADE_LIGHTEST - SHADE_DARKEST) * lit;
                let grey = grey.round().clamp(0.0, 255.0) as u8;
                Rgb([grey, grey, grey])
            }
        }
    })
}

/// Side of the coarse silhouette a framed rendering finds its frame on.
const FRAMING_SIDE: usize = 128;

/// The mesh (in its standard pose, radius 1) seen from `view` in perspective from
/// [`EYE_DISTANCE`], and framed the way a photograph of it is framed before it is described
/// (`framing.rs`): a coarse silhouette gives the frame (the circle around its centroid), then the
/// framed square is rendered shaded (every surface filled and shaded by how
/// it faces a light from the upper left in front of the viewer, on white), straight at the framed
/// size. Saves rendering a large picture and framing it again.
pub fn render_framed(mesh: &Mesh, view: &Viewpoint) -> crate::framing::FramedView {
    use crate::framing::{FRAMED_SIDE, FramedView};
    let projection = Projection::Perspective {
        eye_distance: EYE_DISTANCE,
    };
    let coarse = Surfaces::rasterise(mesh, view, FRAMING_SIDE, projection);
    let coverage: Vec<f32> = coarse
        .triangle
        .iter()
        .map(|&t| if t == EMPTY { 0.0 } else { 1.0 })
        .collect();
    let frame = crate::normalise::content_frame(&coverage, FRAMING_SIDE, FRAMING_SIDE);
    // Coarse pixels to part units: the coarse picture spans ±1/PART_EXTENT.
    let unit = 2.0 / PART_EXTENT / FRAMING_SIDE as f32;
    let centre = [
        (frame.centre_x - FRAMING_SIDE as f32 / 2.0) * unit,
        (FRAMING_SIDE as f32 / 2.0 - frame.centre_y) * unit,
    ];
    let surfaces = Surfaces::rasterise_window(
        mesh,
        view,
        FRAMED_SIDE,
        centre,
        frame.half_side * unit,
        projection,
    );
    let towards = view.towards_viewer();
    let light = normalised([
        towards[0] + 0.5 * (view.up[0] - view.right[0]),
        towards[1] + 0.5 * (view.up[1] - view.right[1]),
        towards[2] + 0.5 * (view.up[2] - view.right[2]),
    ]);
    let mut silhouette = Vec::with_capacity(FRAMED_SIDE * FRAMED_SIDE);
    let mut luminance = Vec::with_capacity(FRAMED_SIDE * FRAMED_SIDE);
    for &triangle in &surfaces.triangle {
        if triangle == EMPTY {
            silhouette.push(0.0);
            luminance.push(1.0);
        } else {
            let lit = dot(surfaces.normals[triangle as usize], light).abs();
            silhouette.push(1.0);
            luminance.push((SHADED_DARKEST + (SHADED_LIGHTEST - SHADED_DARKEST) * lit) / 255.0);
        }
    }
    FramedView {
        silhouette,
        luminance,
    }
}

/// Shading range of a shaded rendering's surfaces (darkest to lightest grey): darker than paper
/// everywhere, so the whole part stands out as it does in a photograph.
const SHADED_DARKEST: f32 = 60.0;
const SHADED_LIGHTEST: f32 = 215.0;

/// Widens line pixels by `reach` pixels each way (a square pen).
fn thicken(lines: &[bool], side: usize, reach: isize) -> Vec<bool> {
    if reach <= 0 {
        return lines.to_vec();
    }
    let side_i = side as isize;
    let mut across = vec![false; lines.len()];
    for y in 0..side_i {
        for x in 0..side_i {
            if lines[(y * side_i + x) as usize] {
                for dx in -reach..=reach {
                    let nx = x + dx;
                    if (0..side_i).contains(&nx) {
                        across[(y * side_i + nx) as usize] = true;
                    }
                }
            }
        }
    }
    let mut thick = vec![false; lines.len()];
    for y in 0..side_i {
        for x in 0..side_i {
            if across[(y * side_i + x) as usize] {
                for dy in -reach..=reach {
                    let ny = y + dy;
                    if (0..side_i).contains(&ny) {
                        thick[(ny * side_i + x) as usize] = true;
                    }
                }
            }
        }
    }
    thick
}
