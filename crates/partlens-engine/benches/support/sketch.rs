//! Sketches to search with, as a person draws a part (issue 49: the sketch set). A part is drawn
//! from one of the views people draw (square-on from a side, from above, or from three-quarters,
//! never exactly), as its outline and the edges that show, without perspective; a drawing is its
//! page copied out, lettering left out. Either goes through one hand: proportions a little off (stretched up to ±12 %
//! one way, turned up to ±5°), lines that wander (a smooth displacement of up to 1.5 % of the
//! picture), a pen 2.5–6 pixels wide (the sketch pad's widths) that lifts now and then (up to 15 %
//! of the lines left out), the part filling 55–75 % of the sheet (the pad frames it at 66 %), in
//! dark ink on white paper, as a PNG of the pad's size. This renderer shares no
//! code with the engine's.

use image::{GrayImage, Luma, imageops};
use imageproc::distance_transform::Norm;
use rand::{RngExt, rngs::StdRng};

use crate::vector::{Triangles, add, cross, dot, normalised, scaled, sub};

/// The hand draws on a grid this many times finer than the picture, then the picture is shrunk.
const FINE: u32 = 2;

/// Where a person sketches a part from.
#[derive(Clone, Copy, Debug)]
pub struct Pose {
    /// Where the eye stands around the part, degrees.
    pub azimuth_degrees: f64,
    /// How high the eye looks down on the part, degrees above the part's XY plane.
    pub elevation_degrees: f64,
}

impl Pose {
    /// One of the views people draw, off by up to 6° each way: square-on from one of the four
    /// sides, from above, or from three-quarters (45° around, 30° up).
    pub fn random(random: &mut StdRng) -> Self {
        let quarter = f64::from(random.random_range(0..4_u8)) * 90.0;
        let (azimuth, elevation) = match random.random_range(0..4_u8) {
            0 => (quarter, 0.0),
            1 => (quarter, 90.0),
            _ => (quarter + 45.0, 30.0),
        };
        Self {
            azimuth_degrees: azimuth + random.random_range(-6.0..6.0),
            elevation_degrees: (elevation + random.random_range(-6.0..6.0_f64)).min(89.0),
        }
    }
}

/// How one person's hand draws.
#[derive(Clone, Debug)]
pub struct Hand {
    /// How far lines wander, as a share of the picture's shorter side.
    wander: f64,
    /// The waves the lines wander by, each way: (direction, cycles across the shorter side,
    /// phase, weight).
    waves: [[(f64, f64, f64, f64); 3]; 2],
    /// How the proportions are off: the drawing's width and height against the part's.
    stretch: [f64; 2],
    /// How much the drawing is turned, degrees.
    turn_degrees: f64,
    /// Half the pen's width, in picture pixels.
    pen_radius: f64,
    /// The share of the lines the pen lifts off.
    lifts: f64,
    /// The waves where the pen lifts: (direction, cycles across the shorter side, phase).
    lift_waves: [(f64, f64, f64); 3],
    /// How much of the shorter side the part fills.
    size: f64,
    /// Grey of the ink and of the paper.
    ink: u8,
    paper: u8,
}

impl Hand {
    /// A hand drawn at random from the ranges in the module comment; without `lifts`, a pen that
    /// never lifts (the same draws, the lifts set to none).
    pub fn random(random: &mut StdRng, lifts: bool) -> Self {
        let mut wave = |low: f64, high: f64| {
            (
                random.random_range(0.0..std::f64::consts::PI),
                random.random_range(low..high),
                random.random_range(0.0..std::f64::consts::TAU),
                random.random_range(0.3..1.0),
            )
        };
        let waves = [
            [wave(0.7, 4.0), wave(0.7, 4.0), wave(0.7, 4.0)],
            [wave(0.7, 4.0), wave(0.7, 4.0), wave(0.7, 4.0)],
        ];
        let mut lift = || {
            (
                random.random_range(0.0..std::f64::consts::PI),
                random.random_range(6.0..16.0),
                random.random_range(0.0..std::f64::consts::TAU),
            )
        };
        let lift_waves = [lift(), lift(), lift()];
        let stretched = random.random_range(0.88..1.12);
        Self {
            wander: random.random_range(0.003..0.015),
            waves,
            stretch: if random.random_bool(0.5) {
                [stretched, 1.0]
            } else {
                [1.0, stretched]
            },
            turn_degrees: random.random_range(-5.0..5.0),
            pen_radius: random.random_range(1.25..3.0),
            lifts: random.random_range(0.0..0.15) * if lifts { 1.0 } else { 0.0 },
            lift_waves,
            size: random.random_range(0.55..0.75),
            ink: random.random_range(15..90),
            paper: random.random_range(236..=252),
        }
    }
}

/// A sketch of the part `triangles` from `pose` by `hand`, `width` × `height` pixels.
pub fn sketch_part(
    triangles: &Triangles,
    pose: Pose,
    hand: &Hand,
    width: u32,
    height: u32,
) -> GrayImage {
    let (fine_width, fine_height) = (width * FINE, height * FINE);
    let lines = part_lines(
        triangles,
        pose,
        hand.size * f64::from(fine_width.min(fine_height)),
        fine_width,
        fine_height,
    );
    draw(&lines, hand, width, height)
}

/// A drawing's `page` (the engine's picture of it) copied out by `hand` onto a sheet of `width` ×
/// `height` pixels: its dark lines, fitted to the sheet.
pub fn sketch_page(page: &GrayImage, hand: &Hand, width: u32, height: u32) -> GrayImage {
    let (fine_width, fine_height) = (width * FINE, height * FINE);
    let fit = (hand.size * f64::from(fine_width) / f64::from(page.width().max(1)))
        .min(hand.size * f64::from(fine_height) / f64::from(page.height().max(1)));
    let (drawn_width, drawn_height) = (
        ((f64::from(page.width()) * fit).round() as u32).max(1),
        ((f64::from(page.height()) * fit).round() as u32).max(1),
    );
    let shrunk = imageops::resize(
        page,
        drawn_width,
        drawn_height,
        imageops::FilterType::Triangle,
    );
    // A thin line shrunk is a light grey: anything clearly darker than the paper was drawn.
    let drawn = GrayImage::from_fn(drawn_width, drawn_height, |x, y| {
        Luma([if shrunk.get_pixel(x, y).0[0] < 200 {
            255
        } else {
            0
        }])
    });
    // Nobody copies the lettering: the marks smaller than 4 % of the sheet each way are left out
    // (all of them kept where nothing larger is on the page).
    let smallest = (0.04 * f64::from(fine_width.min(fine_height))) as u32;
    let larger = larger_marks(&drawn, smallest);
    let kept = if larger.pixels().any(|pixel| pixel.0[0] > 0) {
        larger
    } else {
        drawn
    };
    let mut lines = GrayImage::new(fine_width, fine_height);
    let (left, top) = (
        (fine_width.saturating_sub(drawn_width)) / 2,
        (fine_height.saturating_sub(drawn_height)) / 2,
    );
    for (x, y, pixel) in kept.enumerate_pixels() {
        if pixel.0[0] > 0 && left + x < fine_width && top + y < fine_height {
            lines.put_pixel(left + x, top + y, Luma([255]));
        }
    }
    draw(&lines, hand, width, height)
}

/// The marks of `lines` (255, joined corner to corner) that span at least `smallest` pixels one
/// way or the other.
fn larger_marks(lines: &GrayImage, smallest: u32) -> GrayImage {
    let labels = imageproc::region_labelling::connected_components(
        lines,
        imageproc::region_labelling::Connectivity::Eight,
        Luma([0]),
    );
    // Per label: the box it spans (left, top, right, bottom).
    let mut boxes: Vec<[u32; 4]> = Vec::new();
    for (x, y, label) in labels.enumerate_pixels() {
        let label = label.0[0] as usize;
        if label == 0 {
            continue;
        }
        if boxes.len() <= label {
            boxes.resize(label + 1, [u32::MAX, u32::MAX, 0, 0]);
        }
        let found = &mut boxes[label];
        *found = [
            found[0].min(x),
            found[1].min(y),
            found[2].max(x),
            found[3].max(y),
        ];
    }
    GrayImage::from_fn(lines.width(), lines.height(), |x, y| {
        let label = labels.get_pixel(x, y).0[0] as usize;
        let large = boxes.get(label).is_some_and(|found| {
            label > 0 && (found[2] - found[0] >= smallest || found[3] - found[1] >= smallest)
        });
        Luma([if large { 255 } else { 0 }])
    })
}

/// The lines a person draws of the part on a `width` × `height` grid: its outline, the edges where
/// its surface folds by more than 35°, and where a nearer surface hides a farther one; seen from
/// `pose` without perspective, the part's enclosing sphere `across` pixels wide. Lines are 255.
fn part_lines(
    triangles: &Triangles,
    pose: Pose,
    across: f64,
    width: u32,
    height: u32,
) -> GrayImage {
    let mut low = [f64::INFINITY; 3];
    let mut high = [f64::NEG_INFINITY; 3];
    for point in triangles.iter().flatten() {
        for k in 0..3 {
            low[k] = low[k].min(point[k]);
            high[k] = high[k].max(point[k]);
        }
    }
    let centre = scaled(add(low, high), 0.5);
    let radius = triangles
        .iter()
        .flatten()
        .map(|point| dot(sub(*point, centre), sub(*point, centre)).sqrt())
        .fold(1e-9, f64::max);
    let (azimuth, elevation) = (
        pose.azimuth_degrees.to_radians(),
        pose.elevation_degrees.to_radians(),
    );
    let towards_eye = [
        elevation.cos() * azimuth.cos(),
        elevation.cos() * azimuth.sin(),
        elevation.sin(),
    ];
    let right = normalised(cross([0.0, 0.0, 1.0], towards_eye));
    let right = if dot(right, right) > 0.5 {
        right
    } else {
        [1.0, 0.0, 0.0]
    };
    let up = cross(towards_eye, right);
    let pixels_a_unit = across / (2.0 * radius);
    let (middle_x, middle_y) = (f64::from(width) / 2.0, f64::from(height) / 2.0);

    // Per pixel: the nearest surface's nearness (towards the eye) and its facing normal.
    let count = (width * height) as usize;
    let mut nearness = vec![f64::NEG_INFINITY; count];
    let mut normal_at = vec![[0.0_f64; 3]; count];
    for triangle in triangles {
        let mut normal = normalised(cross(
            sub(triangle[1], triangle[0]),
            sub(triangle[2], triangle[0]),
        ));
        if dot(normal, normal) < 0.5 {
            continue;
        }
        if dot(normal, towards_eye) < 0.0 {
            normal = scaled(normal, -1.0);
        }
        let projected = triangle.map(|point| {
            let offset = sub(point, centre);
            [
                middle_x + pixels_a_unit * dot(offset, right),
                middle_y - pixels_a_unit * dot(offset, up),
                dot(offset, towards_eye),
            ]
        });
        let [a, b, c] = projected;
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area.abs() < 1e-12 {
            continue;
        }
        let left = a[0].min(b[0]).min(c[0]).floor().max(0.0) as u32;
        let right_edge = (a[0].max(b[0]).max(c[0]).ceil().max(0.0) as u32).min(width - 1);
        let top = a[1].min(b[1]).min(c[1]).floor().max(0.0) as u32;
        let bottom = (a[1].max(b[1]).max(c[1]).ceil().max(0.0) as u32).min(height - 1);
        for y in top..=bottom {
            let py = f64::from(y) + 0.5;
            for x in left..=right_edge {
                let px = f64::from(x) + 0.5;
                let wa = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / area;
                let wb = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / area;
                let wc = 1.0 - wa - wb;
                if wa < 0.0 || wb < 0.0 || wc < 0.0 {
                    continue;
                }
                let near = wa * a[2] + wb * b[2] + wc * c[2];
                let at = (y * width + x) as usize;
                if near > nearness[at] {
                    nearness[at] = near;
                    normal_at[at] = normal;
                }
            }
        }
    }

    // A line where a pixel and its neighbour to the right or below differ: one on the part and
    // one not, a step in nearness (a surface hiding another), or a fold.
    let step = 0.04 * radius;
    let fold = 35.0_f64.to_radians().cos();
    let mut lines = GrayImage::new(width, height);
    for y in 0..height {
        for x in 0..width {
            let at = (y * width + x) as usize;
            let neighbours = [
                (x + 1 < width).then(|| at + 1),
                (y + 1 < height).then(|| at + width as usize),
            ];
            let here = nearness[at].is_finite();
            let differs = neighbours.into_iter().flatten().any(|other| {
                let there = nearness[other].is_finite();
                if here != there {
                    return true;
                }
                here && ((nearness[at] - nearness[other]).abs() > step
                    || dot(normal_at[at], normal_at[other]) < fold)
            });
            if differs {
                lines.put_pixel(x, y, Luma([255]));
            }
        }
    }
    lines
}

/// `lines` (255 on a fine grid [`FINE`] times the picture's) drawn by `hand`: inked with its pen,
/// wandering and lifting as it does, on its paper, shrunk to `width` × `height`.
fn draw(lines: &GrayImage, hand: &Hand, width: u32, height: u32) -> GrayImage {
    let (fine_width, fine_height) = lines.dimensions();
    let pen = (hand.pen_radius * f64::from(FINE)).round().max(1.0) as u8;
    let inked = imageproc::morphology::dilate(lines, Norm::L2, pen);
    let shorter = f64::from(fine_width.min(fine_height));
    let (middle_x, middle_y) = (f64::from(fine_width) / 2.0, f64::from(fine_height) / 2.0);
    let (turn_sin, turn_cos) = hand.turn_degrees.to_radians().sin_cos();
    let wave_sum = |waves: &[(f64, f64, f64, f64); 3], x: f64, y: f64| {
        let weights: f64 = waves.iter().map(|wave| wave.3).sum();
        waves
            .iter()
            .map(|&(direction, cycles, phase, weight)| {
                let along = x * direction.cos() + y * direction.sin();
                weight * (std::f64::consts::TAU * cycles * along / shorter + phase).sin()
            })
            .sum::<f64>()
            / weights
    };
    let lifted_by = |x: f64, y: f64| {
        hand.lift_waves
            .iter()
            .map(|&(direction, cycles, phase)| {
                let along = x * direction.cos() + y * direction.sin();
                (std::f64::consts::TAU * cycles * along / shorter + phase).sin()
            })
            .sum::<f64>()
            / 3.0
    };
    // The pen lifts where the lift waves are highest: the threshold that leaves out `lifts` of
    // the sheet, found on a coarse grid.
    let mut samples: Vec<f64> = (0..64)
        .flat_map(|row| (0..64).map(move |column| (row, column)))
        .map(|(row, column)| {
            lifted_by(
                f64::from(column) * f64::from(fine_width) / 64.0,
                f64::from(row) * f64::from(fine_height) / 64.0,
            )
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    let lift_from = samples
        .get(((1.0 - hand.lifts) * samples.len() as f64) as usize)
        .copied()
        .unwrap_or(f64::INFINITY);
    let wander = hand.wander * shorter;
    let sheet = GrayImage::from_fn(fine_width, fine_height, |x, y| {
        let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        if hand.lifts > 0.0 && lifted_by(px, py) > lift_from {
            return Luma([hand.paper]);
        }
        // Where on the lines the hand is: turned and stretched about the middle, then wandering.
        let (dx, dy) = (px - middle_x, py - middle_y);
        let (turned_x, turned_y) = (
            turn_cos * dx + turn_sin * dy,
            -turn_sin * dx + turn_cos * dy,
        );
        let source_x =
            middle_x + turned_x / hand.stretch[0] + wander * wave_sum(&hand.waves[0], px, py);
        let source_y =
            middle_y + turned_y / hand.stretch[1] + wander * wave_sum(&hand.waves[1], px, py);
        let on_line = source_x >= 0.0
            && source_y >= 0.0
            && (source_x as u32) < fine_width
            && (source_y as u32) < fine_height
            && inked.get_pixel(source_x as u32, source_y as u32).0[0] > 0;
        Luma([if on_line { hand.ink } else { hand.paper }])
    });
    imageops::resize(&sheet, width, height, imageops::FilterType::Triangle)
}

/// The sketch as the PNG the app's sketch pad uploads.
pub fn png(sketch: &GrayImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    sketch
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .expect("a PNG in memory");
    bytes
}
