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
    /// The direction from the part towards the viewer (unit length): right × up.
    pub fn towards_viewer(&self) -> [f32; 3] {
        cross(self.right, self.up)
    }

    /// The direction the light comes from: the upper left, in front of the viewer (unit length).
    fn light(&self) -> [f32; 3] {
        let towards = self.towards_viewer();
        normalised([
            towards[0] + 0.5 * (self.up[0] - self.right[0]),
            towards[1] + 0.5 * (self.up[1] - self.right[1]),
            towards[2] + 0.5 * (self.up[2] - self.right[2]),
        ])
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

/// Per triangle of `mesh`: its unit normal in the part's frame (zero for a degenerate triangle).
/// The same for every view, so a model's many views share one computation.
fn facet_normals(mesh: &Mesh) -> Vec<[f32; 3]> {
    mesh.triangles
        .iter()
        .map(|triangle| {
            let [a, b, c] = triangle.map(|corner| mesh.vertices[corner as usize]);
            normalised(cross(
                [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
            ))
        })
        .collect()
}

/// Per vertex of `mesh` seen from `view`: its right and up coordinates on the plane through the
/// part's centre (enlarged under perspective) and its depth (larger is nearer; under perspective
/// the inverse distance, which is linear over the picture as [`Surfaces::fill`] interpolates it).
/// A view's pictures of any window and size are placed from these.
fn view_coordinates(mesh: &Mesh, view: &Viewpoint, projection: Projection) -> Vec<[f32; 3]> {
    let towards = view.towards_viewer();
    mesh.vertices
        .iter()
        .map(|&point| {
            let near = dot(point, towards);
            let (enlarged, depth) = match projection {
                Projection::Parallel => (1.0, near),
                Projection::Perspective { eye_distance } => {
                    let away = (eye_distance - near).max(1e-3);
                    (eye_distance / away, 1.0 / away)
                }
            };
            [
                dot(point, view.right) * enlarged,
                dot(point, view.up) * enlarged,
                depth,
            ]
        })
        .collect()
}

/// A picture's window onto a view: the square of half-side `half` around `centre` (in the view's
/// right and up coordinates, part units) on a `side`² picture.
#[derive(Clone, Copy, Debug)]
struct Window {
    side: usize,
    centre: [f32; 2],
    half: f32,
}

impl Window {
    /// The whole part: its enclosing sphere takes [`PART_EXTENT`] of the side.
    fn whole_part(side: usize) -> Self {
        Self {
            side,
            centre: [0.0, 0.0],
            half: 1.0 / PART_EXTENT,
        }
    }

    /// View coordinates placed on the picture: pixel x, pixel y (down), depth.
    fn place(&self, coordinates: &[[f32; 3]]) -> Vec<[f32; 3]> {
        let half_px = self.side as f32 / 2.0;
        let scale = half_px / self.half.max(1e-6);
        coordinates
            .iter()
            .map(|&[right, up, depth]| {
                [
                    half_px + (right - self.centre[0]) * scale,
                    half_px - (up - self.centre[1]) * scale,
                    depth,
                ]
            })
            .collect()
    }
}

/// `value.floor().clamp(0.0, last) as usize` without a call to `floorf` (a pixel row or column;
/// not a number gives 0, as the cast does).
fn floor_pixel(value: f32, last: usize) -> usize {
    if value >= last as f32 {
        last
    } else if value > 0.0 {
        value as usize
    } else {
        0
    }
}

/// `value.ceil().clamp(0.0, last) as usize` without a call to `ceilf`.
fn ceil_pixel(value: f32, last: usize) -> usize {
    if value >= last as f32 {
        last
    } else if value > 0.0 {
        let whole = value as usize;
        if (whole as f32) < value {
            whole + 1
        } else {
            whole
        }
    } else {
        0
    }
}

/// The pixels whose centres a placed triangle may cover: its bounding box on the picture, and the
/// signed area its edge tests are scaled by; `None` when it is seen edge-on (its neighbours draw
/// it).
fn pixel_box(side: usize, [a, b, c]: [[f32; 3]; 3]) -> Option<(f32, [usize; 4])> {
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if area.abs() < 1e-9 {
        return None;
    }
    let last = side - 1;
    Some((
        area,
        [
            floor_pixel(a[0].min(b[0]).min(c[0]), last),
            ceil_pixel(a[0].max(b[0]).max(c[0]), last),
            floor_pixel(a[1].min(b[1]).min(c[1]), last),
            ceil_pixel(a[1].max(b[1]).max(c[1]), last),
        ],
    ))
}

/// True when the pixel centre `(x, y)` is inside the placed triangle of signed `area`.
fn covers([a, b, c]: &[[f32; 3]; 3], area: f32, x: f32, y: f32) -> bool {
    let edge = |p: [f32; 3], q: [f32; 3]| {
        ((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])) * area.signum()
    };
    !(edge(*a, *b) < 0.0 || edge(*b, *c) < 0.0 || edge(*c, *a) < 0.0)
}

/// Which pixels of a `side`² picture any triangle covers (1) or none (0): what a view's frame is
/// found on, with no depth to keep.
fn coverage(mesh: &Mesh, placed: &[[f32; 3]], side: usize) -> Vec<f32> {
    let mut covered = vec![0.0; side * side];
    for triangle in &mesh.triangles {
        let corners = triangle.map(|corner| placed[corner as usize]);
        let Some((area, [left, right, top, bottom])) = pixel_box(side, corners) else {
            continue;
        };
        for y in top..=bottom {
            let centre_y = y as f32 + 0.5;
            let row = &mut covered[y * side..(y + 1) * side];
            for (x, pixel) in row.iter_mut().enumerate().take(right + 1).skip(left) {
                if *pixel == 0.0 && covers(&corners, area, x as f32 + 0.5, centre_y) {
                    *pixel = 1.0;
                }
            }
        }
    }
    covered
}

/// Per-pixel nearest surface: which triangle and at what depth (larger is nearer).
struct Surfaces<'a> {
    side: usize,
    triangle: Vec<u32>,
    depth: Vec<f32>,
    /// Per triangle: depth as a plane over the picture, `d = a·x + b·y + c` (empty unless the
    /// pictures' lines are looked for).
    planes: Vec<[f32; 3]>,
    /// Per triangle: unit normal in the part's frame.
    normals: &'a [[f32; 3]],
}

impl<'a> Surfaces<'a> {
    /// The nearest surface at every pixel of `window`, the vertices at their view `coordinates`;
    /// with `keep_planes` each triangle's depth plane is kept for [`Self::line_between`].
    fn rasterise(
        mesh: &Mesh,
        normals: &'a [[f32; 3]],
        coordinates: &[[f32; 3]],
        window: Window,
        keep_planes: bool,
    ) -> Self {
        let placed = window.place(coordinates);
        let side = window.side;
        let mut surfaces = Self {
            side,
            triangle: vec![EMPTY; side * side],
            depth: vec![f32::NEG_INFINITY; side * side],
            planes: if keep_planes {
                vec![[0.0; 3]; mesh.triangles.len()]
            } else {
                Vec::new()
            },
            normals,
        };
        for (index, triangle) in mesh.triangles.iter().enumerate() {
            let corners = triangle.map(|corner| placed[corner as usize]);
            surfaces.fill(index, corners);
        }
        surfaces
    }

    /// Fills one placed triangle into the buffers (pixel centres inside it, nearer wins).
    fn fill(&mut self, index: usize, corners: [[f32; 3]; 3]) {
        let Some((area, [left, right, top, bottom])) = pixel_box(self.side, corners) else {
            return;
        };
        let [a, b, c] = corners;
        // Depth plane through the three corners.
        let plane_a = ((b[2] - a[2]) * (c[1] - a[1]) - (c[2] - a[2]) * (b[1] - a[1])) / area;
        let plane_b = ((c[2] - a[2]) * (b[0] - a[0]) - (b[2] - a[2]) * (c[0] - a[0])) / area;
        let plane_c = a[2] - plane_a * a[0] - plane_b * a[1];
        if let Some(plane) = self.planes.get_mut(index) {
            *plane = [plane_a, plane_b, plane_c];
        }
        for y in top..=bottom {
            let centre_y = y as f32 + 0.5;
            for x in left..=right {
                let centre_x = x as f32 + 0.5;
                if !covers(&corners, area, centre_x, centre_y) {
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
    let normals = facet_normals(mesh);
    let coordinates = view_coordinates(mesh, view, Projection::Parallel);
    let surfaces = Surfaces::rasterise(
        mesh,
        &normals,
        &coordinates,
        Window::whole_part(side_px),
        true,
    );
    let light = view.light();
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
/// [`EYE_DISTANCE`], and framed the way a photograph of it is framed before it is described:
/// [`FramedRenderer::render`]. A model seen from many directions shares one [`FramedRenderer`].
pub fn render_framed(mesh: &Mesh, view: &Viewpoint) -> crate::framing::FramedView {
    FramedRenderer::new(mesh).render(view)
}

/// Renders one mesh framed from any number of directions ([`FramedRenderer::render`]), with
/// what does not depend on the direction (the facets' normals) computed once.
pub struct FramedRenderer<'a> {
    mesh: &'a Mesh,
    normals: Vec<[f32; 3]>,
}

impl<'a> FramedRenderer<'a> {
    /// A renderer of `mesh` (in its standard pose, radius 1).
    pub fn new(mesh: &'a Mesh) -> Self {
        Self {
            mesh,
            normals: facet_normals(mesh),
        }
    }

    /// The mesh seen from `view` in perspective from [`EYE_DISTANCE`], and framed the way a
    /// photograph of it is framed before it is described (`framing.rs`): a coarse silhouette gives
    /// the frame (the circle around its centroid), then the framed square is rendered shaded
    /// (every surface filled and shaded by how it faces a light from the upper left in front of
    /// the viewer, on white), straight at the framed size. Saves rendering a large picture and
    /// framing it again.
    pub fn render(&self, view: &Viewpoint) -> crate::framing::FramedView {
        use crate::framing::{FRAMED_SIDE, FramedView};
        let projection = Projection::Perspective {
            eye_distance: EYE_DISTANCE,
        };
        let coordinates = view_coordinates(self.mesh, view, projection);
        let coarse = coverage(
            self.mesh,
            &Window::whole_part(FRAMING_SIDE).place(&coordinates),
            FRAMING_SIDE,
        );
        let frame = crate::normalise::content_frame(&coarse, FRAMING_SIDE, FRAMING_SIDE);
        // Coarse pixels to part units: the coarse picture spans ±1/PART_EXTENT.
        let unit = 2.0 / PART_EXTENT / FRAMING_SIDE as f32;
        let window = Window {
            side: FRAMED_SIDE,
            centre: [
                (frame.centre_x - FRAMING_SIDE as f32 / 2.0) * unit,
                (FRAMING_SIDE as f32 / 2.0 - frame.centre_y) * unit,
            ],
            half: frame.half_side * unit,
        };
        let surfaces = Surfaces::rasterise(self.mesh, &self.normals, &coordinates, window, false);
        let light = view.light();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_rounding_matches_floor_and_ceil_clamped() {
        let last = 127;
        for value in [
            -3.5,
            -1.0,
            -0.25,
            -0.0,
            0.0,
            0.25,
            1.0,
            1.5,
            126.0,
            126.5,
            127.0,
            127.5,
            1e9,
            f32::NAN,
        ] {
            assert_eq!(
                floor_pixel(value, last),
                value.floor().clamp(0.0, last as f32) as usize,
                "floor of {value}"
            );
            assert_eq!(
                ceil_pixel(value, last),
                value.ceil().clamp(0.0, last as f32) as usize,
                "ceil of {value}"
            );
        }
    }
}
