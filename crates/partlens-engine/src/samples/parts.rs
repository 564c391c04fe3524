//! Synthetic mechanical parts drawn as simple technical drawings (dark outlines, some with a tinted
//! body), and the transforms a second picture of the same part goes through (rotation, scale, shift,
//! line weight, paper shade, sensor noise, JPEG). The engine's quality tests, the sample library
//! (`examples/make_samples.rs`), the search benchmark and the integration tests all draw their parts
//! here, so they exercise the same shapes; [`draw_stripes`] is the one picture unlike any part, for
//! tests that need a file no part matches. Everything is deterministic: noise and varied poses come
//! from explicit seeds.

use std::f32::consts::{PI, TAU};
use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage, codecs::jpeg::JpegEncoder};
use imageproc::drawing::{draw_filled_circle_mut, draw_polygon_mut};
use imageproc::point::Point;
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// The parts this module can draw, by name.
pub const PART_NAMES: [&str; 12] = [
    "gear",
    "flange",
    "l-bracket",
    "washer",
    "hex-nut",
    "bolt",
    "stepped-shaft",
    "plate-with-holes",
    "pulley",
    "hinge",
    "spring",
    "t-slot-profile",
];

/// Side of the reference picture the pose's pixel quantities (shift, line width) are given for.
const REFERENCE_SIDE: f32 = 512.0;
/// Part radius (model units are ±1) as a fraction of the picture side at scale 1.
const PART_EXTENT: f32 = 0.34;
/// Drawings are made this many times larger and then averaged down: smooth, anti-aliased lines.
const SUPERSAMPLING: u32 = 2;

/// How one picture of a part is taken: the identity pose is the clean library drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Rotation about the picture centre, degrees, counter-clockwise.
    pub rotation_degrees: f32,
    /// Size relative to the library drawing.
    pub scale: f32,
    /// Offset of the part from the centre, in pixels of a 512-pixel picture.
    pub shift: (f32, f32),
    /// Outline width, in pixels of a 512-pixel picture.
    pub line_width: f32,
    /// Paper colour.
    pub background: [u8; 3],
    /// Standard deviation of Gaussian noise added to every channel (0 = none).
    pub noise: f32,
    /// Seed of the noise.
    pub seed: u64,
}

impl Default for Pose {
    fn default() -> Self {
        Self {
            rotation_degrees: 0.0,
            scale: 1.0,
            shift: (0.0, 0.0),
            line_width: 3.0,
            background: [255, 255, 255],
            noise: 0.0,
            seed: 0,
        }
    }
}

impl Pose {
    /// The clean library pose with light sensor noise from `seed`: pictures of one part that differ
    /// only in their noise, near-identical but not equal.
    pub fn noisy(seed: u64) -> Self {
        Self {
            noise: 2.0,
            seed,
            ..Self::default()
        }
    }

    /// A pose "as photographed again": rotated 10–20° either way, scaled 0.7–1.3, shifted, a
    /// different line weight and paper shade, light noise; reproducible from `seed`.
    pub fn varied(seed: u64) -> Self {
        let mut random = StdRng::seed_from_u64(seed);
        let sign = if random.random_bool(0.5) { 1.0 } else { -1.0 };
        Self {
            rotation_degrees: sign * random.random_range(10.0..20.0),
            scale: random.random_range(0.7..1.3),
            shift: (
                random.random_range(-40.0..40.0),
                random.random_range(-40.0..40.0),
            ),
            line_width: random.random_range(2.0..7.0),
            background: [random.random_range(205..=255); 3],
            noise: random.random_range(0.0..8.0),
            seed,
        }
    }
}

/// Draws part `name` (one of [`PART_NAMES`]) in `pose` on a `side`×`side` picture; `None` for an
/// unknown name.
pub fn draw_part(name: &str, pose: &Pose, side: u32) -> Option<RgbImage> {
    let drawing = part_drawing(name)?;
    let big_side = side.max(1) * SUPERSAMPLING;
    let mut canvas = RgbImage::from_pixel(big_side, big_side, Rgb(pose.background));
    let pixels_per_unit = big_side as f32 / REFERENCE_SIDE;
    let (sin, cos) = (-pose.rotation_degrees.to_radians()).sin_cos();
    let radius = PART_EXTENT * big_side as f32 * pose.scale;
    let centre = (
        big_side as f32 / 2.0 + pose.shift.0 * pixels_per_unit,
        big_side as f32 / 2.0 + pose.shift.1 * pixels_per_unit,
    );
    let place = |(x, y): (f32, f32)| {
        (
            centre.0 + radius * (x * cos - y * sin),
            centre.1 + radius * (x * sin + y * cos),
        )
    };
    for (outline, colour) in &drawing.bodies {
        let points: Vec<Point<i32>> = outline
            .iter()
            .map(|&point| {
                let (x, y) = place(point);
                Point::new(x.round() as i32, y.round() as i32)
            })
            .collect();
        fill_polygon(&mut canvas, &points, Rgb(*colour));
    }
    for &(hole_centre, hole_radius) in &drawing.holes {
        let (x, y) = place(hole_centre);
        draw_filled_circle_mut(
            &mut canvas,
            (x.round() as i32, y.round() as i32),
            (hole_radius * radius).round() as i32,
            Rgb(pose.background),
        );
    }
    let width = (pose.line_width * pixels_per_unit).max(1.0);
    for line in &drawing.lines {
        let placed: Vec<(f32, f32)> = line.iter().map(|&point| place(point)).collect();
        stroke(&mut canvas, &placed, width, Rgb(drawing.ink));
    }
    // Through `DynamicImage`, whose resampling is compiled (optimised) inside the image crate.
    let mut picture = DynamicImage::ImageRgb8(canvas)
        .thumbnail_exact(side.max(1), side.max(1))
        .into_rgb8();
    if pose.noise > 0.0 && pose.noise.is_finite() {
        add_noise(&mut picture, pose.noise, pose.seed);
    }
    Some(picture)
}

/// Adds zero-mean, nearly Gaussian noise of standard deviation `sigma` to every channel: the sum
/// of four uniform bytes (Irwin–Hall) of one SplitMix64 draw per channel. A few integer operations
/// a sample instead of a cryptographic generator and exact Gaussian sampling: this runs over a
/// million times per picture, in unoptimised test builds too.
fn add_noise(picture: &mut RgbImage, sigma: f32, seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut mixed = state;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        mixed ^ (mixed >> 31)
    };
    // Four uniform bytes: mean 510, standard deviation √(4 · (256² − 1) / 12) ≈ 147.8.
    let scale = sigma / 147.8;
    for channel in picture.iter_mut() {
        let bits = next();
        let sum: u32 = (0..4)
            .map(|byte| ((bits >> (8 * byte)) & 0xff) as u32)
            .sum();
        let noisy = f32::from(*channel) + (sum as f32 - 510.0) * scale;
        *channel = noisy.round().clamp(0.0, 255.0) as u8;
    }
}

/// A `side`×`side` picture unlike any part: fine diagonal stripes with noise, different for every
/// seed (and well over 1024 bytes as PNG from 32 pixels on).
pub fn draw_stripes(seed: u32, side: u32) -> RgbImage {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(7);
    RgbImage::from_fn(side, side, |x, y| {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let noise = ((state >> 16) % 40) as u8;
        let stripe = if x.wrapping_add(y).wrapping_add(seed) % 12 < 6 {
            30
        } else {
            200
        };
        Rgb([stripe + noise, 120 + noise, stripe / 2 + noise])
    })
}

/// The picture after a JPEG round trip at `quality` (1–100).
pub fn jpeg_round_trip(picture: &RgbImage, quality: u8) -> Result<RgbImage, image::ImageError> {
    let bytes = encode_jpeg(picture, quality)?;
    Ok(image::load_from_memory_with_format(&bytes, ImageFormat::Jpeg)?.to_rgb8())
}

/// The picture as JPEG bytes at `quality` (1–100).
pub fn encode_jpeg(picture: &RgbImage, quality: u8) -> Result<Vec<u8>, image::ImageError> {
    let mut bytes = Vec::new();
    JpegEncoder::new_with_quality(&mut bytes, quality.clamp(1, 100)).encode_image(picture)?;
    Ok(bytes)
}

/// The picture as PNG bytes.
pub fn encode_png(picture: &RgbImage) -> Result<Vec<u8>, image::ImageError> {
    let mut bytes = Vec::new();
    picture.write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)?;
    Ok(bytes)
}

/// Fills a polygon, skipping degenerate ones.
fn fill_polygon(canvas: &mut RgbImage, points: &[Point<i32>], colour: Rgb<u8>) {
    let mut points = points.to_vec();
    points.dedup();
    while points.len() > 1 && points.first() == points.last() {
        points.pop();
    }
    if points.len() >= 3 {
        draw_polygon_mut(canvas, &points, colour);
    }
}

/// Strokes a polyline `width` wide with round joins and caps.
fn stroke(canvas: &mut RgbImage, line: &[(f32, f32)], width: f32, colour: Rgb<u8>) {
    let half = width / 2.0;
    for pair in line.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let length = (dx * dx + dy * dy).sqrt();
        if length < 0.5 {
            continue;
        }
        let (nx, ny) = (-dy / length * half, dx / length * half);
        let corner = |x: f32, y: f32| Point::new(x.round() as i32, y.round() as i32);
        fill_polygon(
            canvas,
            &[
                corner(a.0 + nx, a.1 + ny),
                corner(b.0 + nx, b.1 + ny),
                corner(b.0 - nx, b.1 - ny),
                corner(a.0 - nx, a.1 - ny),
            ],
            colour,
        );
    }
    if half >= 1.0 {
        for &(x, y) in line {
            draw_filled_circle_mut(
                canvas,
                (x.round() as i32, y.round() as i32),
                (half - 0.5).round() as i32,
                colour,
            );
        }
    }
}

/// A polyline in model coordinates.
type Outline = Vec<(f32, f32)>;

/// A part in model coordinates (±1, y down).
struct PartDrawing {
    /// Filled regions and their tint, drawn first.
    bodies: Vec<(Outline, [u8; 3])>,
    /// Through holes (centre, radius): the paper shows through the bodies.
    holes: Vec<((f32, f32), f32)>,
    /// Outlines and edges, drawn last.
    lines: Vec<Vec<(f32, f32)>>,
    /// Outline colour.
    ink: [u8; 3],
}

impl PartDrawing {
    fn new(ink: [u8; 3]) -> Self {
        Self {
            bodies: Vec::new(),
            holes: Vec::new(),
            lines: Vec::new(),
            ink,
        }
    }

    /// A closed outline.
    fn outline(&mut self, mut points: Vec<(f32, f32)>) -> &mut Self {
        if let Some(&first) = points.first() {
            points.push(first);
        }
        self.lines.push(points);
        self
    }

    /// An open line.
    fn line(&mut self, points: Vec<(f32, f32)>) -> &mut Self {
        self.lines.push(points);
        self
    }

    fn circle(&mut self, centre: (f32, f32), radius: f32) -> &mut Self {
        self.outline(circle_points(centre, radius))
    }

    /// A through hole: paper inside, outlined.
    fn hole(&mut self, centre: (f32, f32), radius: f32) -> &mut Self {
        self.holes.push((centre, radius));
        self.circle(centre, radius)
    }

    /// A tinted body with its outline.
    fn body(&mut self, points: Vec<(f32, f32)>, tint: Option<[u8; 3]>) -> &mut Self {
        if let Some(tint) = tint {
            self.bodies.push((points.clone(), tint));
        }
        self.outline(points)
    }

    fn rectangle(&mut self, left: f32, top: f32, right: f32, bottom: f32) -> &mut Self {
        self.outline(rectangle_points(left, top, right, bottom))
    }
}

const BLACK_INK: [u8; 3] = [25, 25, 30];
const BLUE_INK: [u8; 3] = [20, 45, 130];

fn circle_points(centre: (f32, f32), radius: f32) -> Vec<(f32, f32)> {
    let segments = 72;
    (0..segments)
        .map(|step| {
            let angle = TAU * step as f32 / segments as f32;
            (
                centre.0 + radius * angle.cos(),
                centre.1 + radius * angle.sin(),
            )
        })
        .collect()
}

fn rectangle_points(left: f32, top: f32, right: f32, bottom: f32) -> Vec<(f32, f32)> {
    vec![(left, top), (right, top), (right, bottom), (left, bottom)]
}

fn polar(radius: f32, angle: f32) -> (f32, f32) {
    (radius * angle.cos(), radius * angle.sin())
}

/// The drawing of a named part.
fn part_drawing(name: &str) -> Option<PartDrawing> {
    let drawing = match name {
        "gear" => gear(),
        "flange" => flange(),
        "l-bracket" => l_bracket(),
        "washer" => washer(),
        "hex-nut" => hex_nut(),
        "bolt" => bolt(),
        "stepped-shaft" => stepped_shaft(),
        "plate-with-holes" => plate_with_holes(),
        "pulley" => pulley(),
        "hinge" => hinge(),
        "spring" => spring(),
        "t-slot-profile" => t_slot_profile(),
        _ => return None,
    };
    Some(drawing)
}

fn gear() -> PartDrawing {
    let teeth = 14;
    let pitch = TAU / teeth as f32;
    let mut outline = Vec::new();
    for tooth in 0..teeth {
        let start = tooth as f32 * pitch;
        outline.push(polar(0.78, start));
        outline.push(polar(0.95, start + pitch * 0.18));
        outline.push(polar(0.95, start + pitch * 0.45));
        outline.push(polar(0.78, start + pitch * 0.63));
    }
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing
        .body(outline, None)
        .circle((0.0, 0.0), 0.45)
        .hole((0.0, 0.0), 0.2)
        .rectangle(-0.05, -0.27, 0.05, -0.19);
    drawing
}

fn flange() -> PartDrawing {
    let mut drawing = PartDrawing::new(BLUE_INK);
    drawing
        .body(circle_points((0.0, 0.0), 0.95), Some([205, 215, 240]))
        .circle((0.0, 0.0), 0.52)
        .hole((0.0, 0.0), 0.3);
    for hole in 0..8 {
        drawing.hole(polar(0.74, TAU * hole as f32 / 8.0 + PI / 8.0), 0.08);
    }
    drawing
}

fn l_bracket() -> PartDrawing {
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing
        .body(
            vec![
                (-0.85, -0.95),
                (-0.4, -0.95),
                (-0.4, 0.45),
                (0.9, 0.45),
                (0.9, 0.9),
                (-0.85, 0.9),
            ],
            Some([245, 205, 150]),
        )
        .hole((-0.62, -0.55), 0.1)
        .hole((-0.62, -0.05), 0.1)
        .hole((0.5, 0.67), 0.1)
        .line(vec![(-0.4, 0.45), (-0.85, 0.9)]);
    drawing
}

fn washer() -> PartDrawing {
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing.circle((0.0, 0.0), 0.95).hole((0.0, 0.0), 0.48);
    drawing
}

fn hex_nut() -> PartDrawing {
    let hexagon = (0..6)
        .map(|corner| polar(0.95, PI / 3.0 * corner as f32))
        .collect();
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing
        .body(hexagon, Some([225, 225, 210]))
        .circle((0.0, 0.0), 0.82)
        .hole((0.0, 0.0), 0.42)
        .circle((0.0, 0.0), 0.5);
    drawing
}

fn bolt() -> PartDrawing {
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing
        .rectangle(-0.95, -0.45, -0.58, 0.45)
        .line(vec![(-0.95, -0.2), (-0.58, -0.2)])
        .line(vec![(-0.95, 0.2), (-0.58, 0.2)])
        .outline(vec![
            (-0.58, -0.2),
            (0.88, -0.2),
            (0.95, -0.13),
            (0.95, 0.13),
            (0.88, 0.2),
            (-0.58, 0.2),
        ]);
    let mut x = 0.05;
    while x < 0.85 {
        drawing.line(vec![(x, -0.2), (x + 0.06, 0.2)]);
        x += 0.09;
    }
    drawing
}

fn stepped_shaft() -> PartDrawing {
    let steps = [(-0.95, 0.22), (-0.55, 0.38), (-0.05, 0.5), (0.45, 0.3)];
    let end = 0.95;
    let mut outline = Vec::new();
    for (index, &(x, radius)) in steps.iter().enumerate() {
        let next = steps.get(index + 1).map_or(end, |step| step.0);
        outline.push((x, -radius));
        outline.push((next, -radius));
    }
    for (index, &(x, radius)) in steps.iter().enumerate().rev() {
        let next = steps.get(index + 1).map_or(end, |step| step.0);
        outline.push((next, radius));
        outline.push((x, radius));
    }
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing.body(outline, Some([220, 220, 225]));
    for &(x, radius) in &steps[1..] {
        drawing.line(vec![(x, -radius), (x, radius)]);
    }
    let mut x = -1.0;
    while x < 1.0 {
        drawing.line(vec![(x, 0.0), (x + 0.12, 0.0)]);
        x += 0.18;
    }
    drawing
}

fn plate_with_holes() -> PartDrawing {
    let mut drawing = PartDrawing::new(BLUE_INK);
    drawing.body(
        rectangle_points(-0.95, -0.6, 0.95, 0.6),
        Some([210, 235, 210]),
    );
    for (x, y) in [(-0.75, -0.4), (0.75, -0.4), (-0.75, 0.4), (0.75, 0.4)] {
        drawing.hole((x, y), 0.1);
    }
    let mut slot = Vec::new();
    for step in 0..=12 {
        slot.push(polar(0.12, PI / 2.0 + PI * step as f32 / 12.0));
    }
    let slot: Vec<(f32, f32)> = slot
        .iter()
        .map(|&(x, y)| (x - 0.3, y))
        .chain(slot.iter().map(|&(x, y)| (0.3 - x, -y)))
        .collect();
    drawing.outline(slot);
    drawing
}

fn pulley() -> PartDrawing {
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing
        .circle((0.0, 0.0), 0.95)
        .circle((0.0, 0.0), 0.86)
        .circle((0.0, 0.0), 0.72)
        .circle((0.0, 0.0), 0.3)
        .hole((0.0, 0.0), 0.14);
    for spoke in 0..5 {
        let angle = TAU * spoke as f32 / 5.0;
        for side in [-0.07, 0.07] {
            let (nx, ny) = polar(side, angle + PI / 2.0);
            let (inner_x, inner_y) = polar(0.3, angle);
            let (outer_x, outer_y) = polar(0.72, angle);
            drawing.line(vec![
                (inner_x + nx, inner_y + ny),
                (outer_x + nx, outer_y + ny),
            ]);
        }
    }
    drawing
}

fn hinge() -> PartDrawing {
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing
        .body(
            rectangle_points(-0.92, -0.75, -0.08, 0.75),
            Some([230, 215, 190]),
        )
        .body(
            rectangle_points(0.08, -0.75, 0.92, 0.75),
            Some([230, 215, 190]),
        );
    for knuckle in 0..5 {
        let top = -0.75 + 0.3 * knuckle as f32;
        drawing.rectangle(-0.12, top, 0.12, top + 0.3);
    }
    for x in [-0.5, 0.5] {
        for y in [-0.45, 0.0, 0.45] {
            drawing.hole((x, y), 0.09);
        }
    }
    drawing
}

fn spring() -> PartDrawing {
    let coils = 9;
    let mut zigzag = vec![(-0.95, 0.0), (-0.75, 0.0)];
    for coil in 0..coils {
        let x = -0.75 + 1.5 * (coil as f32 + 0.5) / coils as f32;
        let y = if coil % 2 == 0 { -0.38 } else { 0.38 };
        zigzag.push((x, y));
    }
    zigzag.push((0.75, 0.0));
    zigzag.push((0.95, 0.0));
    let mut drawing = PartDrawing::new(BLUE_INK);
    drawing
        .line(zigzag)
        .circle((-0.95, -0.12), 0.12)
        .circle((0.95, 0.12), 0.12);
    drawing
}

fn t_slot_profile() -> PartDrawing {
    // One side's slot, from the corner at (-0.9, -0.9) along the top edge, then turned four times.
    let side: Vec<(f32, f32)> = vec![
        (-0.9, -0.9),
        (-0.15, -0.9),
        (-0.15, -0.72),
        (-0.38, -0.72),
        (-0.38, -0.5),
        (0.38, -0.5),
        (0.38, -0.72),
        (0.15, -0.72),
        (0.15, -0.9),
    ];
    let mut outline = Vec::new();
    for quarter in 0..4 {
        let (sin, cos) = (PI / 2.0 * quarter as f32).sin_cos();
        outline.extend(
            side.iter()
                .map(|&(x, y)| (x * cos - y * sin, x * sin + y * cos)),
        );
    }
    let mut drawing = PartDrawing::new(BLACK_INK);
    drawing
        .body(outline, Some([200, 205, 215]))
        .hole((0.0, 0.0), 0.2);
    for (x, y) in [(-0.68, -0.68), (0.68, -0.68), (-0.68, 0.68), (0.68, 0.68)] {
        drawing.hole((x, y), 0.09);
    }
    drawing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_draws_and_unknown_names_do_not() {
        for name in PART_NAMES {
            let picture = draw_part(name, &Pose::default(), 128).unwrap();
            let inked = picture.pixels().filter(|pixel| pixel.0[0] < 128).count();
            assert!(inked > 100, "{name} has {inked} dark pixels");
        }
        assert!(draw_part("sprocket", &Pose::default(), 128).is_none());
    }

    #[test]
    fn noisy_poses_differ_only_in_their_noise() {
        let first = draw_part("washer", &Pose::noisy(1), 128).unwrap();
        let second = draw_part("washer", &Pose::noisy(2), 128).unwrap();
        assert_ne!(first, second);
        assert_eq!(first, draw_part("washer", &Pose::noisy(1), 128).unwrap());
        let largest_difference = first
            .iter()
            .zip(second.iter())
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap();
        assert!(largest_difference < 40, "{largest_difference}");
    }

    #[test]
    fn stripes_are_reproducible_per_seed_and_over_the_minimum_upload_size() {
        assert_eq!(draw_stripes(3, 96), draw_stripes(3, 96));
        assert_ne!(draw_stripes(3, 96), draw_stripes(4, 96));
        assert!(encode_png(&draw_stripes(3, 32)).unwrap().len() > 1024);
    }

    #[test]
    fn drawings_and_varied_poses_are_reproducible() {
        assert_eq!(Pose::varied(7), Pose::varied(7));
        assert_ne!(Pose::varied(7), Pose::varied(8));
        let pose = Pose::varied(3);
        assert_eq!(
            draw_part("gear", &pose, 96).unwrap(),
            draw_part("gear", &pose, 96).unwrap()
        );
    }
}
