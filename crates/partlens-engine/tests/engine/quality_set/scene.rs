//! What a real photograph has around the part (issue 49, item 6) and the quality set's own
//! photographs do not: the table the part stands on with its grain and the part's shadow on it,
//! things lying behind the part (another part, a hand), something in front covering a little of it
//! (a finger, a clamp), a warm or cool light, a camera near the part (strong perspective) or far
//! (nearly none). [`Scene::varied`] draws one at random; [`Scene::plain`] is the quality set's
//! (a coloured background, the camera five radii away), which the camera renders exactly as
//! before. The includer gives the vector sums as `super::vector`.

use rand::{RngExt, rngs::StdRng};

use super::vector::{Triangles, dot, normalised};

/// An ellipse on the picture, in units of the picture's shorter side about its centre.
#[derive(Clone, Debug, PartialEq)]
pub struct Blob {
    /// Centre, relative to the picture's centre.
    pub centre: [f64; 2],
    /// Half axes.
    pub radii: [f64; 2],
    /// Turn of its first axis, radians.
    pub angle: f64,
    /// Its colour.
    pub colour: [u8; 3],
}

impl Blob {
    /// True when the point (relative to the picture's centre, in shorter sides) is inside.
    pub fn covers(&self, point: [f64; 2]) -> bool {
        let (sin, cos) = self.angle.sin_cos();
        let (dx, dy) = (point[0] - self.centre[0], point[1] - self.centre[1]);
        let along = (dx * cos + dy * sin) / self.radii[0];
        let across = (-dx * sin + dy * cos) / self.radii[1];
        along * along + across * across <= 1.0
    }
}

/// The table under the part.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Its colour.
    pub colour: [u8; 3],
    /// Strength of its grain (0 = plain), and the grain's direction on the table, radians.
    pub grain: f64,
    pub grain_angle: f64,
    /// Grain lines per enclosing-sphere radius.
    pub grain_frequency: f64,
    /// How much the part's shadow darkens the table (0 = no shadow).
    pub shadow: f64,
}

/// Everything about a photograph but the part and the camera's pose (see the module comment).
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// The camera's distance from the part's centre, in enclosing-sphere radii.
    pub distance_in_radii: f64,
    /// The table, when the part stands on one (else the shot's coloured background).
    pub table: Option<Table>,
    /// Things behind the part, drawn over the table or background.
    pub behind: Vec<Blob>,
    /// Something in front of the part.
    pub in_front: Option<Blob>,
    /// Light that is not the key or the fill (0.25 in the quality set), and the key's strength (0.7).
    pub ambient: f64,
    pub key_strength: f64,
    /// The light's colour, a factor a channel (1, 1, 1: white).
    pub light_colour: [f64; 3],
}

/// Which variations a varied scene has.
#[derive(Clone, Debug, PartialEq)]
pub struct Variations {
    /// The table, its grain and the part's shadow.
    pub table: bool,
    /// Things behind the part.
    pub behind: bool,
    /// Something in front of the part.
    pub in_front: bool,
    /// The camera's distance (perspective).
    pub camera: bool,
    /// The light's strength and colour.
    pub light: bool,
}

impl Variations {
    /// All of them.
    pub const ALL: Self = Self {
        table: true,
        behind: true,
        in_front: true,
        camera: true,
        light: true,
    };

    /// The variations named in `list` (`table,behind,in_front,camera,light`; `all`), or `None`
    /// for an unknown name.
    pub fn named(list: &str) -> Option<Self> {
        let mut kept = Self {
            table: false,
            behind: false,
            in_front: false,
            camera: false,
            light: false,
        };
        for name in list.split(',') {
            match name.trim() {
                "all" => kept = Self::ALL,
                "table" => kept.table = true,
                "behind" => kept.behind = true,
                "in_front" => kept.in_front = true,
                "camera" => kept.camera = true,
                "light" => kept.light = true,
                _ => return None,
            }
        }
        Some(kept)
    }
}

/// Skin tones, for a hand behind or a finger in front.
const SKIN: [[u8; 3]; 4] = [
    [224, 172, 135],
    [198, 134, 96],
    [141, 85, 60],
    [240, 200, 170],
];

/// Table tops: light and dark wood, grey laminate, a green cutting mat, white paper, black foam.
const TABLES: [[u8; 3]; 6] = [
    [196, 160, 112],
    [120, 80, 50],
    [150, 150, 145],
    [60, 110, 80],
    [235, 235, 230],
    [40, 40, 42],
];

impl Scene {
    /// The quality set's scene: no table, nothing behind or in front, white light, five radii.
    pub fn plain() -> Self {
        Self {
            distance_in_radii: 5.0,
            table: None,
            behind: Vec::new(),
            in_front: None,
            ambient: 0.25,
            key_strength: 0.7,
            light_colour: [1.0; 3],
        }
    }

    /// A scene drawn at random: a table three times in four (a shadow on most), up to two things
    /// behind, something in front one time in three, the camera 2.2–10 radii away (log-uniform),
    /// the light 0.12–0.4 ambient, 0.5–0.9 key, from warm to cool.
    pub fn varied(random: &mut StdRng) -> Self {
        Self::varied_in(random, &Variations::ALL)
    }

    /// [`Scene::varied`] with only the `kept` variations (the same draws, so that each kind of
    /// variation can be measured alone against the same shots).
    pub fn varied_in(random: &mut StdRng, kept: &Variations) -> Self {
        let varied = Self::draw(random);
        let plain = Self::plain();
        Self {
            distance_in_radii: if kept.camera {
                varied.distance_in_radii
            } else {
                plain.distance_in_radii
            },
            table: varied.table.filter(|_| kept.table),
            behind: if kept.behind {
                varied.behind
            } else {
                plain.behind
            },
            in_front: varied.in_front.filter(|_| kept.in_front),
            ambient: if kept.light {
                varied.ambient
            } else {
                plain.ambient
            },
            key_strength: if kept.light {
                varied.key_strength
            } else {
                plain.key_strength
            },
            light_colour: if kept.light {
                varied.light_colour
            } else {
                plain.light_colour
            },
        }
    }

    /// Every variation drawn.
    fn draw(random: &mut StdRng) -> Self {
        let distance_in_radii = (random.random_range(2.2_f64.ln()..10.0_f64.ln())).exp();
        let table = random.random_bool(0.75).then(|| Table {
            colour: jittered(TABLES[random.random_range(0..TABLES.len())], random),
            grain: random.random_range(0.0..0.12),
            grain_angle: random.random_range(0.0..std::f64::consts::PI),
            grain_frequency: random.random_range(2.0..12.0),
            shadow: if random.random_bool(0.8) {
                random.random_range(0.25..0.6)
            } else {
                0.0
            },
        });
        let behind = (0..random.random_range(0..3))
            .map(|_| random_blob(random, 0.55, [0.1, 0.35]))
            .collect();
        let in_front = random
            .random_bool(1.0 / 3.0)
            .then(|| random_blob(random, 0.3, [0.05, 0.14]));
        let warmth = random.random_range(-1.0..1.0);
        Self {
            distance_in_radii,
            table,
            behind,
            in_front,
            ambient: random.random_range(0.12..0.4),
            key_strength: random.random_range(0.5..0.9),
            light_colour: [1.0 + 0.08 * warmth, 1.0, 1.0 - 0.12 * warmth],
        }
    }
}

/// A colour a little off `colour`.
fn jittered(colour: [u8; 3], random: &mut StdRng) -> [u8; 3] {
    let factor = random.random_range(0.85..1.1);
    colour.map(|channel| (f64::from(channel) * factor).clamp(0.0, 255.0) as u8)
}

/// An ellipse within `reach` of the picture's centre, its half axes in `radii`, skin-coloured one
/// time in two, else any colour.
fn random_blob(random: &mut StdRng, reach: f64, radii: [f64; 2]) -> Blob {
    let colour = if random.random_bool(0.5) {
        jittered(SKIN[random.random_range(0..SKIN.len())], random)
    } else {
        [
            random.random_range(20..240),
            random.random_range(20..240),
            random.random_range(20..240),
        ]
    };
    Blob {
        centre: [
            random.random_range(-reach..reach),
            random.random_range(-reach..reach),
        ],
        radii: [
            random.random_range(radii[0]..radii[1]),
            random.random_range(radii[0]..radii[1]),
        ],
        angle: random.random_range(0.0..std::f64::consts::PI),
        colour,
    }
}

/// The part's shadow on the table (the plane at height `table_height`), cast along the light
/// `key` (pointing from the part towards the light), as a grid over the table around the part.
pub struct ShadowGrid {
    cells: Vec<f64>,
    side: usize,
    origin: [f64; 2],
    cell: f64,
}

/// Cells a side of the shadow grid.
const SHADOW_CELLS: usize = 192;

impl ShadowGrid {
    /// The shadow of `triangles` around `centre` (±4 `radius`), softened over two cells; `None`
    /// when the light is at or below the table.
    pub fn cast(
        triangles: &Triangles,
        key: [f64; 3],
        table_height: f64,
        centre: [f64; 3],
        radius: f64,
    ) -> Option<Self> {
        if key[2] < 0.05 {
            return None;
        }
        let side = SHADOW_CELLS;
        let cell = 8.0 * radius / side as f64;
        let origin = [centre[0] - 4.0 * radius, centre[1] - 4.0 * radius];
        let mut hard = vec![0.0_f64; side * side];
        let on_table = |point: [f64; 3]| {
            let drop = (point[2] - table_height) / key[2];
            [
                (point[0] - key[0] * drop - origin[0]) / cell,
                (point[1] - key[1] * drop - origin[1]) / cell,
            ]
        };
        for triangle in triangles {
            let [a, b, c] = triangle.map(on_table);
            let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
            if area.abs() < 1e-12 {
                continue;
            }
            let low_x = a[0].min(b[0]).min(c[0]).floor().max(0.0) as usize;
            let high_x = (a[0].max(b[0]).max(c[0]).ceil().max(0.0) as usize).min(side - 1);
            let low_y = a[1].min(b[1]).min(c[1]).floor().max(0.0) as usize;
            let high_y = (a[1].max(b[1]).max(c[1]).ceil().max(0.0) as usize).min(side - 1);
            for y in low_y..=high_y {
                for x in low_x..=high_x {
                    let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
                    let wa = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / area;
                    let wb = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / area;
                    if wa >= 0.0 && wb >= 0.0 && wa + wb <= 1.0 {
                        hard[y * side + x] = 1.0;
                    }
                }
            }
        }
        let cells = (0..side * side)
            .map(|at| {
                let (x, y) = ((at % side) as i64, (at / side) as i64);
                let mut sum = 0.0;
                for dy in -2..=2_i64 {
                    for dx in -2..=2_i64 {
                        let (nx, ny) = (x + dx, y + dy);
                        if (0..side as i64).contains(&nx) && (0..side as i64).contains(&ny) {
                            sum += hard[ny as usize * side + nx as usize];
                        }
                    }
                }
                sum / 25.0
            })
            .collect();
        Some(Self {
            cells,
            side,
            origin,
            cell,
        })
    }

    /// How much of the light the table point (x, y) does not get: 0 (lit) to 1.
    pub fn at(&self, x: f64, y: f64) -> f64 {
        let (cx, cy) = (
            (x - self.origin[0]) / self.cell,
            (y - self.origin[1]) / self.cell,
        );
        if cx < 0.0 || cy < 0.0 || cx >= self.side as f64 || cy >= self.side as f64 {
            return 0.0;
        }
        self.cells[cy as usize * self.side + cx as usize]
    }
}

/// The table as one photograph shows it: where it is, its light and the part's shadow on it.
pub struct TableShading<'a> {
    /// The table.
    pub table: &'a Table,
    /// The part's shadow on it, when the table shows one.
    pub shadow: Option<ShadowGrid>,
    /// Its height (the part's lowest point).
    pub height: f64,
    /// The part's centre and enclosing radius (the grain's origin and scale).
    pub centre: [f64; 3],
    pub radius: f64,
    /// Its brightness under the lights ([`table_light`]).
    pub lit: f64,
}

impl TableShading<'_> {
    /// The table's colour where the ray from `eye` along `ray` meets it, with its grain and the
    /// shadow; `None` when the ray does not go down to it.
    pub fn colour(&self, eye: [f64; 3], ray: [f64; 3]) -> Option<[f64; 3]> {
        if ray[2] >= -1e-9 {
            return None;
        }
        let table = self.table;
        let t = (self.height - eye[2]) / ray[2];
        let (x, y) = (eye[0] + t * ray[0], eye[1] + t * ray[1]);
        let along = ((x - self.centre[0]) * table.grain_angle.cos()
            + (y - self.centre[1]) * table.grain_angle.sin())
            / self.radius;
        let grain = 1.0 + table.grain * (along * table.grain_frequency).sin();
        let dark = self.shadow.as_ref().map_or(0.0, |grid| grid.at(x, y)) * table.shadow;
        let light = self.lit * grain * (1.0 - dark);
        Some(table.colour.map(|channel| f64::from(channel) * light))
    }
}

/// The direction from the eye through a fine pixel (its offset from the picture's centre, x
/// right, y down, in fine pixels), for a camera with the given axes and focal length.
pub fn pixel_ray(
    forward: [f64; 3],
    right: [f64; 3],
    up: [f64; 3],
    focal: f64,
    offset: [f64; 2],
) -> [f64; 3] {
    normalised([0, 1, 2].map(|k| forward[k] * focal + right[k] * offset[0] - up[k] * offset[1]))
}

/// The brightness of the table under the lights: ambient plus the key's share on a flat surface.
pub fn table_light(scene: &Scene, key: [f64; 3]) -> f64 {
    scene.ambient + scene.key_strength * dot(key, [0.0, 0.0, 1.0]).max(0.0) + 0.1
}
