//! The building blocks of view descriptors, shared by today's descriptor and the legacy one: gradients
//! of a square map, soft binning, orientation histograms on a grid (HOG-like) and relative to the
//! centre (radial edges), Zernike moment magnitudes, the generic Fourier descriptor and a density
//! layout. Each returns a raw block; `descriptor.rs` normalises and weights it.

use std::sync::LazyLock;

/// Highest Zernike order.
const ZERNIKE_ORDER: usize = 10;
/// Zernike moments kept: every (n, m) with m ≤ n ≤ 10, n − m even, except Z00 (the mass, divided
/// out) and Z11 (zero about the centroid).
pub(super) const ZERNIKE_LEN: usize = 34;

/// Halves the side of a square map by averaging 2×2 blocks.
pub(super) fn downsample_half(map: &[f32], side: usize) -> Vec<f32> {
    let half = side / 2;
    let mut small = vec![0.0; half * half];
    for y in 0..half {
        for x in 0..half {
            let top = 2 * y * side + 2 * x;
            let bottom = top + side;
            small[y * half + x] = (map[top] + map[top + 1] + map[bottom] + map[bottom + 1]) / 4.0;
        }
    }
    small
}

/// Gradient magnitude and unsigned orientation (0..π) of every inner pixel of a square map.
pub(super) struct Gradients {
    pub(super) side: usize,
    pub(super) magnitude: Vec<f32>,
    pub(super) orientation: Vec<f32>,
}

impl Gradients {
    pub(super) fn of(map: &[f32], side: usize) -> Self {
        let mut magnitude = vec![0.0; side * side];
        let mut orientation = vec![0.0; side * side];
        for y in 1..side - 1 {
            for x in 1..side - 1 {
                let at = y * side + x;
                // Sobel: smooths across the edge, so one-pixel lines give clean orientations.
                let gx = (map[at - side + 1] + 2.0 * map[at + 1] + map[at + side + 1])
                    - (map[at - side - 1] + 2.0 * map[at - 1] + map[at + side - 1]);
                let gy = (map[at + side - 1] + 2.0 * map[at + side] + map[at + side + 1])
                    - (map[at - side - 1] + 2.0 * map[at - side] + map[at - side + 1]);
                magnitude[at] = (gx * gx + gy * gy).sqrt();
                orientation[at] = gy.atan2(gx).rem_euclid(std::f32::consts::PI);
            }
        }
        Self {
            side,
            magnitude,
            orientation,
        }
    }
}

/// `value.floor()`, without a call to the C library's `floorf` for values below 2²³ (every
/// `f32` from 2²³ on is whole): a bin position is floored for every pixel of every view.
pub(super) fn floor(value: f32) -> f32 {
    const WHOLE_FROM: f32 = 8_388_608.0;
    if value.abs() < WHOLE_FROM {
        let truncated = value as i32 as f32;
        if truncated > value {
            truncated - 1.0
        } else {
            // −0 stays −0.
            truncated.copysign(value)
        }
    } else {
        value.floor()
    }
}

/// Splits a continuous bin position into two neighbouring bins and their weights; `wrap` for
/// circular quantities (orientation), clamping otherwise.
pub(super) fn soft_bins(position: f32, bins: usize, wrap: bool) -> [(usize, f32); 2] {
    let floor = floor(position);
    let fraction = position - floor;
    let lower = floor as i64;
    let fix = |bin: i64| -> usize {
        if wrap {
            bin.rem_euclid(bins as i64) as usize
        } else {
            bin.clamp(0, bins as i64 - 1) as usize
        }
    };
    [(fix(lower), 1.0 - fraction), (fix(lower + 1), fraction)]
}

/// HOG-like grid: orientation histograms of a map's edges in `cells`² cells and `bins` orientations,
/// trilinear voting.
pub(super) fn edge_grid(gradients: &Gradients, cells: usize, bins_count: usize) -> Vec<f32> {
    let side = gradients.side;
    let cell = side as f32 / cells as f32;
    let bin_width = std::f32::consts::PI / bins_count as f32;
    let mut histogram = vec![0.0; cells * cells * bins_count];
    for y in 0..side {
        for x in 0..side {
            let at = y * side + x;
            let magnitude = gradients.magnitude[at];
            if magnitude <= 0.0 {
                continue;
            }
            let bins = soft_bins(
                gradients.orientation[at] / bin_width - 0.5,
                bins_count,
                true,
            );
            let columns = soft_bins((x as f32 + 0.5) / cell - 0.5, cells, false);
            let rows = soft_bins((y as f32 + 0.5) / cell - 0.5, cells, false);
            for (row, row_weight) in rows {
                for (column, column_weight) in columns {
                    let base = (row * cells + column) * bins_count;
                    for (bin, bin_weight) in bins {
                        histogram[base + bin] +=
                            magnitude * row_weight * column_weight * bin_weight;
                    }
                }
            }
        }
    }
    histogram
}

/// Edge orientation relative to the direction from the frame centre (the ink centroid), in rings:
/// unchanged by any rotation of the part. `rings_count` rings × `bins_count` relative orientations.
pub(super) fn radial_edges(
    gradients: &Gradients,
    rings_count: usize,
    bins_count: usize,
) -> Vec<f32> {
    let side = gradients.side;
    let centre = side as f32 / 2.0;
    let bin_width = std::f32::consts::PI / bins_count as f32;
    let mut histogram = vec![0.0; rings_count * bins_count];
    for y in 0..side {
        for x in 0..side {
            let at = y * side + x;
            let magnitude = gradients.magnitude[at];
            if magnitude <= 0.0 {
                continue;
            }
            let dx = x as f32 + 0.5 - centre;
            let dy = y as f32 + 0.5 - centre;
            let radius = (dx * dx + dy * dy).sqrt() / centre;
            let relative =
                (gradients.orientation[at] - dy.atan2(dx)).rem_euclid(std::f32::consts::PI);
            let bins = soft_bins(relative / bin_width - 0.5, bins_count, true);
            let rings = soft_bins(radius * rings_count as f32 - 0.5, rings_count, false);
            for (ring, ring_weight) in rings {
                for (bin, bin_weight) in bins {
                    histogram[ring * bins_count + bin] += magnitude * ring_weight * bin_weight;
                }
            }
        }
    }
    histogram
}

/// One kept Zernike moment: order n, repetition m, and its radial polynomial as
/// (power of the radius, coefficient) terms.
struct ZernikeTerm {
    n: usize,
    m: usize,
    radial: Vec<(usize, f32)>,
}

/// Every kept Zernike moment.
static ZERNIKE_TERMS: LazyLock<Vec<ZernikeTerm>> = LazyLock::new(|| {
    let factorial = |k: usize| (1..=k).map(|i| i as f64).product::<f64>();
    let mut terms = Vec::with_capacity(ZERNIKE_LEN);
    for n in 0..=ZERNIKE_ORDER {
        for m in (n % 2..=n).step_by(2) {
            if (n, m) == (0, 0) || (n, m) == (1, 1) {
                continue;
            }
            let coefficients = (0..=(n - m) / 2)
                .map(|k| {
                    let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                    let value = sign * factorial(n - k)
                        / (factorial(k) * factorial((n + m) / 2 - k) * factorial((n - m) / 2 - k));
                    (n - 2 * k, value as f32)
                })
                .collect();
            terms.push(ZernikeTerm {
                n,
                m,
                radial: coefficients,
            });
        }
    }
    terms
});

/// What the Zernike moments need of one pixel inside a map's inscribed disc, which depends only on
/// where the pixel is: every kept moment's radial polynomial at its radius, and the cosine and sine
/// of each repetition `m` times its angle.
struct ZernikePixel {
    /// Position in the map (row-major).
    at: usize,
    radial: [f32; ZERNIKE_LEN],
    cosines: [f32; ZERNIKE_ORDER + 1],
    sines: [f32; ZERNIKE_ORDER + 1],
}

/// Side of the maps whose [`ZernikePixel`]s are computed once ([`ZERNIKE_BASIS_64`]): the side
/// both descriptors compute their moments at. Other sides compute theirs for each map.
const ZERNIKE_TABLED_SIDE: usize = 64;

/// The [`ZernikePixel`]s of a 64² map, computed once: every view of every model has two maps.
static ZERNIKE_BASIS_64: LazyLock<Vec<ZernikePixel>> =
    LazyLock::new(|| zernike_basis(ZERNIKE_TABLED_SIDE));

/// The [`ZernikePixel`]s of a `side`² map: its pixels whose centres are inside its inscribed disc,
/// row by row.
fn zernike_basis(side: usize) -> Vec<ZernikePixel> {
    let centre = side as f32 / 2.0;
    let terms = &*ZERNIKE_TERMS;
    let mut basis = Vec::new();
    for y in 0..side {
        for x in 0..side {
            let dx = (x as f32 + 0.5 - centre) / centre;
            let dy = (y as f32 + 0.5 - centre) / centre;
            let radius = (dx * dx + dy * dy).sqrt();
            if radius > 1.0 {
                continue;
            }
            let (cos_1, sin_1) = if radius > 0.0 {
                (dx / radius, dy / radius)
            } else {
                (1.0, 0.0)
            };
            let mut powers = [0.0_f32; ZERNIKE_ORDER + 1];
            let mut cosines = [0.0_f32; ZERNIKE_ORDER + 1];
            let mut sines = [0.0_f32; ZERNIKE_ORDER + 1];
            powers[0] = 1.0;
            cosines[0] = 1.0;
            sines[0] = 0.0;
            for k in 1..=ZERNIKE_ORDER {
                powers[k] = powers[k - 1] * radius;
                cosines[k] = cosines[k - 1] * cos_1 - sines[k - 1] * sin_1;
                sines[k] = sines[k - 1] * cos_1 + cosines[k - 1] * sin_1;
            }
            let mut radial = [0.0_f32; ZERNIKE_LEN];
            for (value, term) in radial.iter_mut().zip(terms) {
                *value = term
                    .radial
                    .iter()
                    .map(|&(power, coefficient)| coefficient * powers[power])
                    .sum();
            }
            basis.push(ZernikePixel {
                at: y * side + x,
                radial,
                cosines,
                sines,
            });
        }
    }
    basis
}

/// Magnitudes of the Zernike moments of a square map (`side`²) over its inscribed disc, divided by the
/// ink mass: unchanged by rotation, and by scale and shift once the view is framed.
pub(super) fn zernike_magnitudes(map: &[f32], side: usize) -> Vec<f32> {
    let computed;
    let basis: &[ZernikePixel] = if side == ZERNIKE_TABLED_SIDE {
        &ZERNIKE_BASIS_64
    } else {
        computed = zernike_basis(side);
        &computed
    };
    let terms = &*ZERNIKE_TERMS;
    let mut real = [0.0_f32; ZERNIKE_LEN];
    let mut imaginary = [0.0_f32; ZERNIKE_LEN];
    let mut mass = 0.0_f32;
    for pixel in basis {
        let value = map[pixel.at];
        if value <= 0.0 {
            continue;
        }
        mass += value;
        for (index, term) in terms.iter().enumerate() {
            let weighted = value * pixel.radial[index];
            real[index] += weighted * pixel.cosines[term.m];
            imaginary[index] -= weighted * pixel.sines[term.m];
        }
    }
    if mass <= 0.0 {
        return vec![0.0; ZERNIKE_LEN];
    }
    terms
        .iter()
        .enumerate()
        .map(|(index, term)| {
            let scale = (term.n as f32 + 1.0) / mass;
            (real[index] * real[index] + imaginary[index] * imaginary[index]).sqrt() * scale
        })
        .collect()
}

/// Density of a square map (`side`²) on a `cells`² grid, each pixel shared between its nearest
/// cells (bilinear).
pub(super) fn layout(map: &[f32], side: usize, cells: usize) -> Vec<f32> {
    let cell = side as f32 / cells as f32;
    let mut grid = vec![0.0; cells * cells];
    for y in 0..side {
        let rows = soft_bins((y as f32 + 0.5) / cell - 0.5, cells, false);
        for x in 0..side {
            let value = map[y * side + x];
            if value <= 0.0 {
                continue;
            }
            let columns = soft_bins((x as f32 + 0.5) / cell - 0.5, cells, false);
            for (row, row_weight) in rows {
                for (column, column_weight) in columns {
                    grid[row * cells + column] += value * row_weight * column_weight;
                }
            }
        }
    }
    grid
}

/// Shape of a generic Fourier descriptor: rings and angles of the polar grid, radial and angular
/// frequencies kept (every pair below both), and the angular frequencies kept beyond those for the
/// radial frequency 0 alone (gear teeth, bolt circles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FourierShape {
    /// Rings of the polar grid.
    pub(super) rings: usize,
    /// Angles of the polar grid.
    pub(super) angles: usize,
    /// Radial frequencies kept.
    pub(super) radial: usize,
    /// Angular frequencies kept at every radial frequency.
    pub(super) angular: usize,
    /// Highest angular frequency kept at radial frequency 0.
    pub(super) high_angular: usize,
}

impl FourierShape {
    /// Values the descriptor has.
    pub(super) const fn len(&self) -> usize {
        self.radial * self.angular - 1 + (self.high_angular + 1).saturating_sub(self.angular)
    }
}

/// The generic Fourier descriptor (Zhang & Lu) of a square map about its centre: the magnitudes of
/// the 2D Fourier transform of its polar image (area-weighted), divided by the DC term. A rotation of
/// the map is a shift along the angle and a mirror image reverses it; both change only phases.
pub(super) fn generic_fourier(map: &[f32], side: usize, shape: FourierShape) -> Vec<f32> {
    let FourierShape {
        rings,
        angles,
        radial,
        angular,
        high_angular,
    } = shape;
    let centre = side as f32 / 2.0;
    let sample = |x: f32, y: f32| -> f32 {
        let (left, top) = (x.floor(), y.floor());
        let (fx, fy) = (x - left, y - top);
        let at = |ix: isize, iy: isize| -> f32 {
            if ix < 0 || iy < 0 || ix >= side as isize || iy >= side as isize {
                0.0
            } else {
                map[iy as usize * side + ix as usize]
            }
        };
        let (ix, iy) = (left as isize, top as isize);
        (at(ix, iy) * (1.0 - fx) + at(ix + 1, iy) * fx) * (1.0 - fy)
            + (at(ix, iy + 1) * (1.0 - fx) + at(ix + 1, iy + 1) * fx) * fy
    };
    let frequencies = high_angular.max(angular) + 1;
    let turns: Vec<(f32, f32)> = (0..angles)
        .map(|t| (std::f32::consts::TAU * t as f32 / angles as f32).sin_cos())
        .collect();
    // Per ring, its angular spectrum.
    let mut spectra = vec![[0.0_f32; 2]; rings * frequencies];
    let mut values = vec![0.0_f32; angles];
    for ring in 0..rings {
        let share = (ring as f32 + 0.5) / rings as f32;
        let radius = share * centre;
        for (value, &(sin, cos)) in values.iter_mut().zip(&turns) {
            *value = share * sample(centre + radius * cos - 0.5, centre + radius * sin - 0.5);
        }
        for k in 0..frequencies {
            let (mut re, mut im) = (0.0, 0.0);
            for (t, value) in values.iter().enumerate() {
                let (sin, cos) = turns[(k * t) % angles];
                re += value * cos;
                im -= value * sin;
            }
            spectra[ring * frequencies + k] = [re, im];
        }
    }
    // Across the rings, for one angular frequency.
    let magnitude = |rho: usize, k: usize| -> f32 {
        let (mut re, mut im) = (0.0_f32, 0.0_f32);
        for ring in 0..rings {
            let [a, b] = spectra[ring * frequencies + k];
            let (sin, cos) = (std::f32::consts::TAU * (rho * ring) as f32 / rings as f32).sin_cos();
            re += a * cos + b * sin;
            im += b * cos - a * sin;
        }
        (re * re + im * im).sqrt()
    };
    let dc = magnitude(0, 0).max(1e-6);
    let mut features = Vec::with_capacity(shape.len());
    for rho in 0..radial {
        for k in 0..angular {
            if (rho, k) != (0, 0) {
                features.push(magnitude(rho, k) / dc);
            }
        }
    }
    for k in angular..=high_angular {
        features.push(magnitude(0, k) / dc);
    }
    features
}

/// The outline as seen from the centre of a square map: per direction (`angles` of them), the
/// distance from the centre of the farthest silhouette pixel (weight ≥ ½) on that ray, as a share of
/// the half side; then the profile's mean, and the magnitudes of its Fourier coefficients
/// 1..=`frequencies` divided by that mean. Unchanged by rotation (a shift of the profile) and mirror
/// image (its reversal), and by scale once the view is framed.
pub(super) fn outline_profile(
    map: &[f32],
    side: usize,
    angles: usize,
    frequencies: usize,
) -> Vec<f32> {
    let centre = side as f32 / 2.0;
    let steps = side;
    let profile: Vec<f32> = (0..angles)
        .map(|a| {
            let (sin, cos) = (std::f32::consts::TAU * a as f32 / angles as f32).sin_cos();
            let mut reach = 0.0;
            for step in 0..steps {
                let radius = (step as f32 + 0.5) / steps as f32 * centre;
                let x = (centre + radius * cos) as isize;
                let y = (centre + radius * sin) as isize;
                if x >= 0
                    && y >= 0
                    && (x as usize) < side
                    && (y as usize) < side
                    && map[y as usize * side + x as usize] >= 0.5
                {
                    reach = radius / centre;
                }
            }
            reach
        })
        .collect();
    let mean = profile.iter().sum::<f32>() / angles as f32;
    let mut features = Vec::with_capacity(frequencies + 1);
    features.push(mean);
    for k in 1..=frequencies {
        let (mut re, mut im) = (0.0_f32, 0.0_f32);
        for (a, value) in profile.iter().enumerate() {
            let (sin, cos) = (std::f32::consts::TAU * (k * a) as f32 / angles as f32).sin_cos();
            re += value * cos;
            im -= value * sin;
        }
        features.push((re * re + im * im).sqrt() / angles as f32 / mean.max(1e-3));
    }
    features
}

/// Share of the strongest edge below which a pixel takes no part in [`orientation_pairs`].
const PAIR_EDGE_FLOOR: f32 = 0.1;

/// How edge orientations agree at a distance (a co-occurrence of orientations): for every pair of
/// edge pixels `distance` apart (each of `distances`), the difference of their orientations folded
/// to 0..π/2, as a soft histogram of `bins` bins weighted by the geometric mean of their magnitudes;
/// one histogram a distance, concatenated. Straight edges and parallel walls put their pairs at 0,
/// corners at their angle (a hexagon's at π/3), curves spread them by their curvature: what tells a
/// hex nut from a pipe elbow when their outlines' moments agree. Unchanged by rotation and mirror
/// image (only differences of orientation count) and, once the view is framed, by scale.
pub(super) fn orientation_pairs(
    gradients: &Gradients,
    distances: &[usize],
    bins: usize,
) -> Vec<f32> {
    let side = gradients.side;
    let strongest = gradients.magnitude.iter().copied().fold(0.0_f32, f32::max);
    let floor = PAIR_EDGE_FLOOR * strongest;
    let strong: Vec<usize> = (0..side * side)
        .filter(|&at| gradients.magnitude[at] > floor)
        .collect();
    // A pair's weight is the geometric mean of its magnitudes: the square roots, once a pixel.
    let root: Vec<f32> = gradients
        .magnitude
        .iter()
        .map(|&magnitude| {
            if magnitude > floor {
                magnitude.sqrt()
            } else {
                0.0
            }
        })
        .collect();
    // The maps with a margin as wide as the longest distance, whose pixels are no edges: every
    // pair's second pixel is then on the padded map, and one off the map weighs nothing.
    let margin = distances.iter().copied().max().unwrap_or(0);
    let padded_side = side + 2 * margin;
    let mut padded_root = vec![0.0_f32; padded_side * padded_side];
    let mut padded_orientation = vec![0.0_f32; padded_side * padded_side];
    for y in 0..side {
        let from = y * side;
        let to = (y + margin) * padded_side + margin;
        padded_root[to..to + side].copy_from_slice(&root[from..from + side]);
        padded_orientation[to..to + side]
            .copy_from_slice(&gradients.orientation[from..from + side]);
    }
    let mut histogram = vec![0.0; distances.len() * bins];
    let half_pi = std::f32::consts::FRAC_PI_2;
    for (slot, &distance) in distances.iter().enumerate() {
        let d = distance as isize;
        // Offsets on the upper half ring (each unordered pair once), as steps on the padded map.
        let offsets: Vec<usize> = (-d..=d)
            .flat_map(|dy| (-d..=d).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| {
                let r = ((dx * dx + dy * dy) as f32).sqrt();
                (r - d as f32).abs() < 0.5 && (dy > 0 || (dy == 0 && dx > 0))
            })
            .map(|(dx, dy)| {
                (dy * padded_side as isize + dx + (margin * (padded_side + 1)) as isize) as usize
            })
            .collect();
        let slot_bins = &mut histogram[slot * bins..(slot + 1) * bins];
        for &at in &strong {
            let (x, y) = (at % side, at / side);
            // The padded position of `at`, less the margin folded into the offsets.
            let base = y * padded_side + x;
            let (root_at, orientation_at) = (root[at], gradients.orientation[at]);
            for &offset in &offsets {
                let other = base + offset;
                let weight = root_at * padded_root[other];
                if weight <= 0.0 {
                    continue;
                }
                // Orientations are in 0..π: their difference folded to 0..π/2.
                let mut difference = (orientation_at - padded_orientation[other]).abs();
                if difference > half_pi {
                    difference = std::f32::consts::PI - difference;
                }
                for (bin, share) in soft_bins(difference / half_pi * bins as f32 - 0.5, bins, false)
                {
                    slot_bins[bin] += weight * share;
                }
            }
        }
    }
    histogram
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIDE: usize = 64;

    /// A square map painted where `inside(x, y)` holds (pixel centres, in −1..1 about the centre).
    fn map(inside: impl Fn(f32, f32) -> bool) -> Vec<f32> {
        (0..SIDE * SIDE)
            .map(|at| {
                let x = ((at % SIDE) as f32 + 0.5) / SIDE as f32 * 2.0 - 1.0;
                let y = ((at / SIDE) as f32 + 0.5) / SIDE as f32 * 2.0 - 1.0;
                if inside(x, y) { 1.0 } else { 0.0 }
            })
            .collect()
    }

    /// The map turned a quarter (exactly, on the pixel grid).
    fn quarter_turn(map: &[f32]) -> Vec<f32> {
        (0..SIDE * SIDE)
            .map(|at| map[(at % SIDE) * SIDE + (SIDE - 1 - at / SIDE)])
            .collect()
    }

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-3 * x.abs().max(y.abs()).max(1.0))
    }

    #[test]
    fn the_floor_is_the_standard_librarys_floor() {
        let mut value = -20.0_f32;
        while value < 20.0 {
            for nudged in [value, value.next_down(), value.next_up()] {
                assert_eq!(
                    floor(nudged).to_bits(),
                    nudged.floor().to_bits(),
                    "{nudged}"
                );
            }
            value += 0.125;
        }
        for value in [
            -0.0,
            0.0,
            8_388_607.5,
            -8_388_607.5,
            1e10,
            -1e10,
            f32::MAX,
            f32::MIN,
        ] {
            assert_eq!(floor(value).to_bits(), value.floor().to_bits(), "{value}");
        }
    }

    #[test]
    fn orientation_pairs_see_straight_edges_and_corners_and_ignore_a_turn() {
        let bar = map(|x, y| x.abs() < 0.7 && y.abs() < 0.25);
        let disc = map(|x, y| x * x + y * y < 0.5);
        let pairs = |map: &[f32]| orientation_pairs(&Gradients::of(map, SIDE), &[3, 12], 8);
        assert!(close(&pairs(&bar), &pairs(&quarter_turn(&bar))));
        // A bar's edges 12 pixels apart are mostly parallel (first bin) or at right angles (last);
        // a circle's are spread by its curvature, in the bins between.
        let middle_share = |histogram: &[f32]| {
            let far = &histogram[8..16];
            far[1..7].iter().sum::<f32>() / far.iter().sum::<f32>()
        };
        assert!(middle_share(&pairs(&bar)) < 0.2, "{:?}", pairs(&bar));
        assert!(middle_share(&pairs(&disc)) > 0.5, "{:?}", pairs(&disc));
        // Nothing drawn, nothing counted.
        assert!(
            pairs(&vec![0.0; SIDE * SIDE])
                .iter()
                .all(|&value| value == 0.0)
        );
    }

    #[test]
    fn the_outline_profile_tells_a_disc_from_a_bar_and_ignores_a_turn() {
        let bar = map(|x, y| x.abs() < 0.7 && y.abs() < 0.25);
        let disc = map(|x, y| x * x + y * y < 0.5);
        let profile = |map: &[f32]| outline_profile(map, SIDE, 64, 16);
        assert_eq!(profile(&bar).len(), 17);
        assert!(close(&profile(&bar), &profile(&quarter_turn(&bar))));
        // A disc reaches as far in every direction: no frequency but the mean.
        let round = profile(&disc);
        assert!((round[0] - 0.5_f32.sqrt()).abs() < 0.05, "{round:?}");
        assert!(round[1..].iter().all(|&value| value < 0.03), "{round:?}");
        // A bar reaches twice as far along it as across: its second harmonic is strong.
        assert!(profile(&bar)[2] > 0.1, "{:?}", profile(&bar));
    }
}
