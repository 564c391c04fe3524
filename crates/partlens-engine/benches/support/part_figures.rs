//! Figures of a model's parts measured on the real-world corpus and not kept in the engine
//! (docs/PERFORMANCE.md, "The parts of a part"), for `corpus_ranking`'s dump: the holes through the
//! part seen along each axis of its standard pose, each by its size (the square root of its share
//! of the silhouette's area) and its distance from the silhouette's centre (over the silhouette's
//! radius), and the outline of the silhouette along z (a flat part's largest face): the harmonics
//! of its radius about its centre against the angle. (The rotational profile measured beside them
//! was the ends' slices along a turned part's whole axis.)

use partlens_geometry::Mesh;

/// Side of the raster a silhouette is drawn on.
const RASTER: usize = 96;
/// Holes smaller than this many pixels are taken for cracks between facets, not holes.
const SMALLEST_HOLE: usize = 3;
/// Most holes described a direction (the largest).
const MOST_HOLES: usize = 12;
/// Angles the outline's radius is measured at.
const OUTLINE_ANGLES: usize = 64;
/// Harmonics of the outline kept (the first to this one; the mean is the scale, divided out).
const OUTLINE_HARMONICS: usize = 12;

/// The holes through a part's silhouette seen along one axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Holes {
    /// (size, distance from the centre) of each hole, the largest first; at most [`MOST_HOLES`].
    holes: Vec<(f32, f32)>,
}

/// The figures of one posed model.
pub struct PartFigures {
    /// Holes seen along x, y and z.
    holes: [Holes; 3],
    /// The outline's harmonics along z, each over the mean radius.
    outline: [f32; OUTLINE_HARMONICS],
}

impl PartFigures {
    /// The figures of a mesh in its standard pose; `None` without triangles.
    pub fn of_posed(posed: &Mesh) -> Option<Self> {
        let bounds = posed.bounds()?;
        Some(Self {
            holes: [0, 1, 2].map(|along| holes_of(posed, bounds, along)),
            outline: outline_of(posed, bounds),
        })
    }

    /// How alike the holes along x, y, z (`None` where neither has one) and the outlines are.
    pub fn similarities(&self, other: &Self) -> ([Option<f32>; 3], f32) {
        (
            [0, 1, 2].map(|along| self.holes[along].similarity(&other.holes[along])),
            1.0 - mean_difference(&self.outline, &other.outline),
        )
    }
}

impl Holes {
    /// How alike two sets of holes are: each hole paired with the nearest free one of the other
    /// set (size and place), a hole left without a partner counting as wholly unlike; `None` when
    /// neither set has a hole.
    fn similarity(&self, other: &Self) -> Option<f32> {
        let most = self.holes.len().max(other.holes.len());
        if most == 0 {
            return None;
        }
        let mut free: Vec<bool> = vec![true; other.holes.len()];
        let mut cost = 0.0_f32;
        for &(size, place) in &self.holes {
            let nearest = other
                .holes
                .iter()
                .enumerate()
                .filter(|(at, _)| free[*at])
                .map(|(at, &(other_size, other_place))| {
                    let apart = 2.0 * (size - other_size).abs() + (place - other_place).abs();
                    (at, apart.min(1.0))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match nearest {
                Some((at, apart)) => {
                    free[at] = false;
                    cost += apart;
                }
                None => cost += 1.0,
            }
        }
        cost += free.iter().filter(|&&left| left).count() as f32;
        Some(1.0 - cost / most as f32)
    }
}

/// Mean absolute difference of two equally long vectors (values in 0..1).
fn mean_difference(a: &[f32], b: &[f32]) -> f32 {
    if a.is_empty() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f32>() / a.len() as f32
}

/// The silhouette of the posed mesh seen along `along`, on a [`RASTER`]² grid over the part's
/// extent across that axis (the same scale on both sides): which pixels its facets cover.
fn silhouette(mesh: &Mesh, bounds: [[f32; 3]; 2], along: usize) -> Vec<bool> {
    let [u, v] = [(along + 1) % 3, (along + 2) % 3];
    let span = (bounds[1][u] - bounds[0][u]).max(bounds[1][v] - bounds[0][v]);
    let mut covered = vec![false; RASTER * RASTER];
    if span.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return covered;
    }
    // One pixel of margin all round, so the background always reaches the border.
    let scale = (RASTER - 2) as f32 / span;
    let centre = [u, v].map(|k| (bounds[0][k] + bounds[1][k]) / 2.0);
    let to_pixel = |point: [f32; 3]| {
        [
            (point[u] - centre[0]) * scale + RASTER as f32 / 2.0,
            (point[v] - centre[1]) * scale + RASTER as f32 / 2.0,
        ]
    };
    for triangle in &mesh.triangles {
        let [a, b, c] = triangle.map(|index| to_pixel(mesh.vertices[index as usize]));
        fill_triangle(&mut covered, a, b, c);
    }
    covered
}

/// Marks the pixels whose centres `a`, `b`, `c` cover (either winding); a triangle seen edge-on
/// (no area) covers nothing, and one smaller than a pixel its nearest pixel.
fn fill_triangle(covered: &mut [bool], a: [f32; 2], b: [f32; 2], c: [f32; 2]) {
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if area.abs() < 1e-9 {
        return;
    }
    let low = [0, 1].map(|k| a[k].min(b[k]).min(c[k]).floor().max(0.0) as usize);
    let high = [0, 1].map(|k| (a[k].max(b[k]).max(c[k]).ceil() as usize).min(RASTER - 1));
    let edge = |p: [f32; 2], q: [f32; 2], x: f32, y: f32| {
        ((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])) * area.signum()
    };
    let mut any = false;
    for y in low[1]..=high[1] {
        for x in low[0]..=high[0] {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            if edge(a, b, px, py) >= 0.0 && edge(b, c, px, py) >= 0.0 && edge(c, a, px, py) >= 0.0 {
                covered[y * RASTER + x] = true;
                any = true;
            }
        }
    }
    if !any {
        let centre = [0, 1].map(|k| ((a[k] + b[k] + c[k]) / 3.0).clamp(0.0, RASTER as f32 - 1.0));
        covered[centre[1] as usize * RASTER + centre[0] as usize] = true;
    }
}

/// The connected runs (4-neighbours) of uncovered pixels, each as its pixels; the first returned is
/// not special. Used to tell the background (touching the border) from holes.
fn uncovered_regions(covered: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = covered.to_vec();
    let mut regions = Vec::new();
    for start in 0..covered.len() {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut region = vec![start];
        let mut at = 0;
        while at < region.len() {
            let pixel = region[at];
            at += 1;
            let (x, y) = (pixel % RASTER, pixel / RASTER);
            let neighbours = [
                (x > 0).then(|| pixel - 1),
                (x + 1 < RASTER).then(|| pixel + 1),
                (y > 0).then(|| pixel - RASTER),
                (y + 1 < RASTER).then(|| pixel + RASTER),
            ];
            for next in neighbours.into_iter().flatten() {
                if !seen[next] {
                    seen[next] = true;
                    region.push(next);
                }
            }
        }
        regions.push(region);
    }
    regions
}

/// Whether a pixel is on the raster's border.
fn on_border(pixel: usize) -> bool {
    let (x, y) = (pixel % RASTER, pixel / RASTER);
    x == 0 || y == 0 || x == RASTER - 1 || y == RASTER - 1
}

/// A filled silhouette, its centre and radius in pixels, and its holes' pixels.
type Silhouette = (Vec<bool>, [f32; 2], f32, Vec<Vec<usize>>);

/// The filled silhouette along `along` (holes filled in), its centre and radius in pixels, and its
/// holes' pixels; `None` when nothing is covered.
fn silhouette_and_holes(mesh: &Mesh, bounds: [[f32; 3]; 2], along: usize) -> Option<Silhouette> {
    let covered = silhouette(mesh, bounds, along);
    let mut filled = covered.clone();
    let mut holes = Vec::new();
    for region in uncovered_regions(&covered) {
        if region.iter().any(|&pixel| on_border(pixel)) {
            continue;
        }
        for &pixel in &region {
            filled[pixel] = true;
        }
        if region.len() >= SMALLEST_HOLE {
            holes.push(region);
        }
    }
    let inside: Vec<usize> = (0..filled.len()).filter(|&pixel| filled[pixel]).collect();
    if inside.is_empty() {
        return None;
    }
    let centre = [0, 1].map(|k| {
        inside
            .iter()
            .map(|&pixel| if k == 0 { pixel % RASTER } else { pixel / RASTER } as f32 + 0.5)
            .sum::<f32>()
            / inside.len() as f32
    });
    let radius = inside
        .iter()
        .map(|&pixel| distance_to(pixel, centre))
        .fold(0.0_f32, f32::max)
        .max(0.5);
    Some((filled, centre, radius, holes))
}

/// The distance of a pixel's centre from `point`.
fn distance_to(pixel: usize, point: [f32; 2]) -> f32 {
    let (x, y) = ((pixel % RASTER) as f32 + 0.5, (pixel / RASTER) as f32 + 0.5);
    (x - point[0]).hypot(y - point[1])
}

/// The holes through the part seen along `along` (see the module doc).
fn holes_of(mesh: &Mesh, bounds: [[f32; 3]; 2], along: usize) -> Holes {
    let Some((filled, centre, radius, regions)) = silhouette_and_holes(mesh, bounds, along) else {
        return Holes { holes: Vec::new() };
    };
    let area = filled.iter().filter(|&&inside| inside).count() as f32;
    let mut holes: Vec<(f32, f32)> = regions
        .iter()
        .map(|region| {
            let middle = [0, 1].map(|k| {
                region
                    .iter()
                    .map(|&pixel| if k == 0 { pixel % RASTER } else { pixel / RASTER } as f32 + 0.5)
                    .sum::<f32>()
                    / region.len() as f32
            });
            let place = (middle[0] - centre[0]).hypot(middle[1] - centre[1]) / radius;
            ((region.len() as f32 / area).sqrt(), place.min(1.0))
        })
        .collect();
    holes.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.total_cmp(&b.1)));
    holes.truncate(MOST_HOLES);
    Holes { holes }
}

/// The outline along z: the harmonics of the filled silhouette's radius against the angle (see
/// the module doc), each over the mean radius and taken to 0..1.
fn outline_of(mesh: &Mesh, bounds: [[f32; 3]; 2]) -> [f32; OUTLINE_HARMONICS] {
    let mut harmonics = [0.0; OUTLINE_HARMONICS];
    let Some((filled, centre, radius, _)) = silhouette_and_holes(mesh, bounds, 2) else {
        return harmonics;
    };
    let radii: Vec<f32> = (0..OUTLINE_ANGLES)
        .map(|step| {
            let angle = std::f32::consts::TAU * step as f32 / OUTLINE_ANGLES as f32;
            let (dy, dx) = angle.sin_cos();
            // The farthest filled pixel along the ray, in half-pixel steps.
            let mut reach = 0.0_f32;
            let mut along = 0.0_f32;
            while along <= radius + 1.0 {
                let (x, y) = (centre[0] + dx * along, centre[1] + dy * along);
                if x >= 0.0
                    && y >= 0.0
                    && (x as usize) < RASTER
                    && (y as usize) < RASTER
                    && filled[y as usize * RASTER + x as usize]
                {
                    reach = along;
                }
                along += 0.5;
            }
            reach / radius
        })
        .collect();
    let mean = radii.iter().sum::<f32>() / OUTLINE_ANGLES as f32;
    if mean <= 0.0 {
        return harmonics;
    }
    for (k, harmonic) in harmonics.iter_mut().enumerate() {
        let frequency = (k + 1) as f32;
        let (mut re, mut im) = (0.0_f32, 0.0_f32);
        for (step, &r) in radii.iter().enumerate() {
            let angle = std::f32::consts::TAU * frequency * step as f32 / OUTLINE_ANGLES as f32;
            re += r * angle.cos();
            im += r * angle.sin();
        }
        let magnitude = re.hypot(im) / OUTLINE_ANGLES as f32 / mean;
        *harmonic = (4.0 * magnitude).min(1.0);
    }
    harmonics
}
