//! Photographs of a part as a user would take them, to search with: a perspective camera at any
//! azimuth and 10–60° above the table, turned about its axis (roll), the part at 0.6–1.2 of a
//! reference size and shifted in the frame, smoothly shaded in a colour (steel, brass, anodised,
//! painted…) with a key light, a fill light and a highlight, on a coloured background with a soft
//! gradient, then blurred, grainy and JPEG-compressed. This renderer shares no code with the
//! engine's: the engine never sees a picture made its own way. The includer (`mod.rs`, or a bench
//! that includes this file with `vector.rs` alone) gives the blur as `super::gaussian_blur`.

use image::{Rgb, RgbImage, imageops};
use rand::{RngExt, SeedableRng, rngs::StdRng};

use super::scene::{Scene, ShadowGrid, TableShading, Variations, pixel_ray, table_light};
use super::vector::{Triangles, add, cross, dot, normalised, scaled, sub};

/// How one photograph is taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Shot {
    /// Where the camera stands around the part, degrees.
    pub azimuth_degrees: f64,
    /// How high the camera looks down on the part, degrees above the table.
    pub elevation_degrees: f64,
    /// Turn of the camera about its axis, degrees.
    pub roll_degrees: f64,
    /// Size of the part: its enclosing sphere spans 0.8 × scale of the picture's shorter side.
    pub scale: f64,
    /// Offset of the part in the room the frame leaves it, −1..1 each way.
    pub shift: [f64; 2],
    /// Background colour, and how much it darkens from top to bottom.
    pub background: [u8; 3],
    /// Relative change of the background's brightness from top to bottom.
    pub background_gradient: f64,
    /// Colour of the part's surface.
    pub tint: [u8; 3],
    /// Strength of the highlight (0 = matte).
    pub highlight: f64,
    /// Direction of the key light in the camera's frame: right, up, towards the viewer.
    pub key_light: [f64; 3],
    /// Standard deviation of the sensor grain, in grey levels.
    pub grain: f64,
    /// Standard deviation of the blur, in pixels (0 = sharp).
    pub blur: f64,
    /// JPEG quality of the file.
    pub jpeg_quality: u8,
    /// Seed of the grain.
    pub seed: u64,
    /// What is around the part: [`Scene::plain`] for the quality set, [`Scene::varied`] for
    /// photographs as varied as real ones ([`Shot::varied`]).
    pub scene: Scene,
}

/// Surface colours parts come in.
const TINTS: [[u8; 3]; 10] = [
    [165, 168, 175],
    [205, 205, 210],
    [190, 155, 80],
    [72, 72, 78],
    [55, 90, 170],
    [180, 45, 40],
    [60, 130, 70],
    [225, 120, 40],
    [210, 190, 90],
    [232, 232, 226],
];

impl Shot {
    /// A shot drawn at random from the ranges in the module comment.
    pub fn random(random: &mut StdRng) -> Self {
        let tint = TINTS[random.random_range(0..TINTS.len())]
            .map(|channel| (f64::from(channel) * random.random_range(0.9..1.1)).min(255.0) as u8);
        // A photographer puts a part on a background it stands out from.
        let lit_part = tint.map(|channel| f64::from(channel) * 0.75);
        let mut background = [0; 3];
        for _attempt in 0..50 {
            background = hsv(
                random.random_range(0.0..360.0),
                random.random_range(0.1..0.75),
                random.random_range(0.3..0.97),
            );
            let contrast = (0..3)
                .map(|k| (f64::from(background[k]) - lit_part[k]).abs())
                .fold(0.0, f64::max);
            if contrast > 70.0 {
                break;
            }
        }
        let key_light = normalised([
            random.random_range(-0.8..0.8),
            random.random_range(0.2..0.9),
            random.random_range(0.5..1.0),
        ]);
        Self {
            azimuth_degrees: random.random_range(0.0..360.0),
            elevation_degrees: random.random_range(10.0..60.0),
            roll_degrees: random.random_range(-180.0..180.0),
            scale: random.random_range(0.6..1.2),
            shift: [
                random.random_range(-1.0..1.0),
                random.random_range(-1.0..1.0),
            ],
            background,
            background_gradient: random.random_range(-0.15..0.15),
            tint,
            highlight: random.random_range(0.0..0.5),
            key_light,
            grain: random.random_range(1.0..8.0),
            blur: random.random_range(0.0..1.8),
            jpeg_quality: random.random_range(70..95),
            seed: random.random_range(0..u64::MAX),
            scene: Scene::plain(),
        }
    }

    /// [`Shot::random`] (the same draws first, so the same pose, part colour and background), then
    /// a varied scene ([`Scene::varied`]), a blur up to 2.5 pixels and JPEG quality 50–95.
    pub fn varied(random: &mut StdRng) -> Self {
        Self::varied_in(random, &Variations::ALL)
    }

    /// [`Shot::varied`] with only the `kept` variations of the scene (the blur and the JPEG
    /// quality go with the camera's).
    pub fn varied_in(random: &mut StdRng, kept: &Variations) -> Self {
        let mut shot = Self::random(random);
        shot.scene = Scene::varied_in(random, kept);
        let (blur, jpeg_quality) = (random.random_range(0.0..2.5), random.random_range(50..95));
        if kept.camera {
            (shot.blur, shot.jpeg_quality) = (blur, jpeg_quality);
        }
        shot
    }
}

/// A colour from hue (degrees), saturation and value (0..1).
fn hsv(hue: f64, saturation: f64, value: f64) -> [u8; 3] {
    let chroma = value * saturation;
    let sector = (hue / 60.0).rem_euclid(6.0);
    let x = chroma * (1.0 - (sector % 2.0 - 1.0).abs());
    let (r, g, b) = match sector as usize {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = value - chroma;
    [r, g, b].map(|channel| ((channel + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

/// Pixels are rendered this many times finer each way, then averaged: smooth edges.
const SUPERSAMPLING: u32 = 2;
/// Faces meeting at less than this angle share their normals (a round surface looks round).
const SMOOTH_DEGREES: f64 = 40.0;

/// Per corner of every triangle, a normal that is smooth across gentle folds and sharp at creases.
fn corner_normals(triangles: &Triangles) -> Vec<[[f64; 3]; 3]> {
    let faces: Vec<([f64; 3], f64)> = triangles
        .iter()
        .map(|[a, b, c]| {
            let normal = cross(sub(*b, *a), sub(*c, *a));
            let area = dot(normal, normal).sqrt();
            (normalised(normal), area)
        })
        .collect();
    let extent = triangles
        .iter()
        .flatten()
        .flatten()
        .fold(0.0_f64, |largest, value| largest.max(value.abs()))
        .max(1e-9);
    let key = |point: &[f64; 3]| point.map(|value| (value / extent * 1e6).round() as i64);
    let mut around: std::collections::HashMap<[i64; 3], Vec<usize>> =
        std::collections::HashMap::new();
    for (face, triangle) in triangles.iter().enumerate() {
        for corner in triangle {
            around.entry(key(corner)).or_default().push(face);
        }
    }
    let smooth = SMOOTH_DEGREES.to_radians().cos();
    triangles
        .iter()
        .enumerate()
        .map(|(face, triangle)| {
            let own = faces[face].0;
            triangle.map(|corner| {
                let mut sum = [0.0; 3];
                for &other in around.get(&key(&corner)).map_or(&[][..], Vec::as_slice) {
                    let (normal, area) = faces[other];
                    if dot(normal, own) > smooth {
                        sum = add(sum, scaled(normal, area));
                    }
                }
                if dot(sum, sum) > 0.0 {
                    normalised(sum)
                } else {
                    own
                }
            })
        })
        .collect()
}

/// The photograph (see the module comment), `width` × `height` pixels.
pub fn photograph(triangles: &Triangles, shot: &Shot, width: u32, height: u32) -> RgbImage {
    let (fine_width, fine_height) = (width * SUPERSAMPLING, height * SUPERSAMPLING);
    // The part's enclosing sphere (about its bounding box's centre).
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
        .map(|point| {
            let offset = sub(*point, centre);
            dot(offset, offset).sqrt()
        })
        .fold(1e-9, f64::max);

    // The camera.
    let (azimuth, elevation, roll) = (
        shot.azimuth_degrees.to_radians(),
        shot.elevation_degrees.to_radians(),
        shot.roll_degrees.to_radians(),
    );
    let towards_camera = [
        elevation.cos() * azimuth.cos(),
        elevation.cos() * azimuth.sin(),
        elevation.sin(),
    ];
    let distance = shot.scene.distance_in_radii * radius;
    let position = add(centre, scaled(towards_camera, distance));
    let forward = scaled(towards_camera, -1.0);
    let level_right = normalised(cross(forward, [0.0, 0.0, 1.0]));
    let level_up = cross(level_right, forward);
    let right = add(
        scaled(level_right, roll.cos()),
        scaled(level_up, roll.sin()),
    );
    let up = add(
        scaled(level_right, -roll.sin()),
        scaled(level_up, roll.cos()),
    );
    let shorter = f64::from(fine_width.min(fine_height));
    let sphere_on_picture = 0.4 * shot.scale * shorter;
    let focal = sphere_on_picture * (distance * distance - radius * radius).sqrt() / radius;
    let room = [
        (f64::from(fine_width) / 2.0 - sphere_on_picture).max(0.0),
        (f64::from(fine_height) / 2.0 - sphere_on_picture).max(0.0),
    ];
    let picture_centre = [
        f64::from(fine_width) / 2.0 + shot.shift[0] * room[0],
        f64::from(fine_height) / 2.0 + shot.shift[1] * room[1],
    ];

    // Lights in the part's frame.
    let in_world = |camera: [f64; 3]| {
        normalised(add(
            add(scaled(right, camera[0]), scaled(up, camera[1])),
            scaled(towards_camera, camera[2]),
        ))
    };
    let key = in_world(shot.key_light);
    let fill = in_world([-0.5 * shot.key_light[0], 0.1, 1.0]);
    let half_way = normalised(add(key, towards_camera));

    // Rasterise: per fine pixel the nearest surface's normal.
    let pixels = (fine_width * fine_height) as usize;
    let mut nearness = vec![0.0_f64; pixels];
    let mut normal_at = vec![[0.0_f64; 3]; pixels];
    let normals = corner_normals(triangles);
    for (triangle, corner_normals) in triangles.iter().zip(&normals) {
        let projected = triangle.map(|point| {
            let offset = sub(point, position);
            let depth = dot(offset, forward).max(1e-9);
            [
                picture_centre[0] + focal * dot(offset, right) / depth,
                picture_centre[1] - focal * dot(offset, up) / depth,
                1.0 / depth,
            ]
        });
        let [a, b, c] = projected;
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area.abs() < 1e-12 {
            continue;
        }
        let left = a[0].min(b[0]).min(c[0]).floor().max(0.0) as u32;
        let right_edge = (a[0].max(b[0]).max(c[0]).ceil() as u32).min(fine_width - 1);
        let top = a[1].min(b[1]).min(c[1]).floor().max(0.0) as u32;
        let bottom = (a[1].max(b[1]).max(c[1]).ceil() as u32).min(fine_height - 1);
        if a[0].max(b[0]).max(c[0]) < 0.0 || a[1].max(b[1]).max(c[1]) < 0.0 {
            continue;
        }
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
                let at = (y * fine_width + x) as usize;
                if near > nearness[at] {
                    nearness[at] = near;
                    normal_at[at] = add(
                        add(scaled(corner_normals[0], wa), scaled(corner_normals[1], wb)),
                        scaled(corner_normals[2], wc),
                    );
                }
            }
        }
    }

    // Shade.
    let scene = &shot.scene;
    let tint = shot.tint.map(f64::from);
    let table = scene.table.as_ref().map(|table| TableShading {
        table,
        shadow: (table.shadow > 0.0)
            .then(|| ShadowGrid::cast(triangles, key, low[2], centre, radius))
            .flatten(),
        height: low[2],
        centre,
        radius,
        lit: table_light(scene, key),
    });
    let to_channel = |value: f64| value.round().clamp(0.0, 255.0) as u8;
    let fine = RgbImage::from_fn(fine_width, fine_height, |x, y| {
        let at = (y * fine_width + x) as usize;
        let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        let on_part = [
            (px - picture_centre[0]) / shorter,
            (py - picture_centre[1]) / shorter,
        ];
        if let Some(blob) = scene.in_front.as_ref().filter(|blob| blob.covers(on_part)) {
            return Rgb(blob.colour);
        }
        if nearness[at] <= 0.0 {
            let on_picture = [
                (px - f64::from(fine_width) / 2.0) / shorter,
                (py - f64::from(fine_height) / 2.0) / shorter,
            ];
            if let Some(blob) = scene.behind.iter().find(|blob| blob.covers(on_picture)) {
                return Rgb(blob.colour);
            }
            let ray = pixel_ray(
                forward,
                right,
                up,
                focal,
                [px - picture_centre[0], py - picture_centre[1]],
            );
            if let Some(colour) = table.as_ref().and_then(|table| table.colour(position, ray)) {
                return Rgb([0, 1, 2].map(|k| to_channel(colour[k] * scene.light_colour[k])));
            }
            let fade =
                1.0 - shot.background_gradient * (f64::from(y) / f64::from(fine_height) - 0.5);
            return Rgb(shot
                .background
                .map(|channel| (f64::from(channel) * fade).round().clamp(0.0, 255.0) as u8));
        }
        let mut normal = normalised(normal_at[at]);
        // Surfaces seen from behind (the inside of a bore) are lit as if they faced the camera.
        if dot(normal, towards_camera) < 0.0 {
            normal = scaled(normal, -1.0);
        }
        let light = scene.ambient
            + scene.key_strength * dot(normal, key).max(0.0)
            + 0.2 * dot(normal, fill).max(0.0);
        let shine = shot.highlight * 255.0 * dot(normal, half_way).max(0.0).powi(24);
        Rgb([0, 1, 2].map(|k| {
            (tint[k] * light * scene.light_colour[k] + shine)
                .round()
                .clamp(0.0, 255.0) as u8
        }))
    });
    let mut photo = imageops::resize(&fine, width, height, imageops::FilterType::Triangle);
    if shot.blur > 0.3 {
        photo = super::gaussian_blur(&photo, shot.blur as f32);
    }
    let mut grain = StdRng::seed_from_u64(shot.seed);
    for pixel in photo.pixels_mut() {
        for channel in &mut pixel.0 {
            // Box–Muller: a normal deviate from two uniform ones.
            let u1: f64 = grain.random_range(1e-12..1.0);
            let u2: f64 = grain.random_range(0.0..1.0);
            let normal = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            *channel = (f64::from(*channel) + shot.grain * normal)
                .round()
                .clamp(0.0, 255.0) as u8;
        }
    }
    photo
}
