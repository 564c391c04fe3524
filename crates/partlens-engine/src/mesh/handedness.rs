//! Whether a model is the mirror image of another (issue 49: "a left and a right bracket are the
//! same part mirrored"). The standard pose (`normalise.rs`) turns a mirrored copy into the same
//! pose, so views, D2 and parts score a left bracket as the right one; what tells them apart is
//! the shape's **handedness**, a number that changes sign under a mirror and under nothing else.
//!
//! In the posed frame (principal axes, right-handed), the surface's standardised third moment along
//! each axis, `kᵢ = E[uᵢ³] / E[uᵢ²]^{3/2}`, flips sign with the axis's direction; their product
//! `kₓ·k_y·k_z` is therefore the same whichever right-handed signs the axes got, and changes sign
//! when the shape is mirrored (a mirror turns a right-handed frame into a left-handed one). Its
//! sign is the handedness; the smallest of the three `|kᵢ|` says how clearly the shape is handed
//! (its **chirality**): a part with a mirror plane has one of them 0 (the plane's normal is a
//! principal axis and the surface is balanced across it), so a washer, a nut, a plain screw, a
//! symmetric bracket are never handed. When two principal axes are nearly as long as each other
//! ([`AXES_APART`]: a turned part, a square plate), the axes are not fixed by the shape and the
//! moments along them mean nothing: such a part counts as not handed either (a fan's twisted blades
//! are handed, but not told apart this way).
//!
//! Two models whose shapes match are mirror images of each other when both are clearly handed
//! ([`CHIRAL_FROM`]) and their handedness differs ([`Handedness::mirrors`]). It is a fact stored
//! with a model's views (one byte), never a term of a score: ranking is unchanged by it.

use super::Mesh;

/// Two principal axes whose second moments differ by less than this share of the larger are taken
/// as interchangeable (the frame is not fixed by the shape), and the part as not handed.
pub const AXES_APART: f32 = 0.05;

/// A model is clearly handed when its chirality (the smallest `|kᵢ|`, see the module doc) is at
/// least this. The corpus's symmetric parts (nuts, washers, screws, rings) measure 0.000–0.005
/// (their meshes are not quite symmetric); handed parts (a panel clip, a motor mount, a lever)
/// 0.05 and more.
pub const CHIRAL_FROM: f32 = 0.02;

/// How the chirality is stored: a signed byte, the square root of the chirality times this (fine
/// steps near [`CHIRAL_FROM`]: 0.02 is 18, one step is about 0.002 there).
const STORED_SCALE: f32 = 127.0;

/// Largest chirality kept: standardised skews of real parts stay well below 1.
const LARGEST: f32 = 1.0;

/// A model's handedness and how clearly it is handed (see the module doc): in −1..1, its sign the
/// handedness, its magnitude the chirality; 0 for a part that is not handed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Handedness(f32);

impl Handedness {
    /// The handedness of a mesh in its standard pose (its surface centroid at the origin, its
    /// principal axes along x, y, z by decreasing spread); not handed when it has no area.
    pub fn of_posed(posed: &Mesh) -> Self {
        let mut area_total = 0.0_f64;
        let mut second = [0.0_f64; 3];
        let mut third = [0.0_f64; 3];
        let mut first = [0.0_f64; 3];
        for triangle in &posed.triangles {
            let corners = triangle.map(|index| {
                posed
                    .vertices
                    .get(index as usize)
                    .map_or([0.0; 3], |vertex| vertex.map(f64::from))
            });
            let area = triangle_area(&corners);
            area_total += area;
            for axis in 0..3 {
                let [a, b, c] = corners.map(|corner| corner[axis]);
                first[axis] += area * (a + b + c) / 3.0;
                // Exact surface integrals of u² and u³ over a triangle where u is linear.
                second[axis] += area * (a * a + b * b + c * c + a * b + a * c + b * c) / 6.0;
                third[axis] += area
                    * (a * a * a
                        + b * b * b
                        + c * c * c
                        + a * a * (b + c)
                        + b * b * (a + c)
                        + c * c * (a + b)
                        + a * b * c)
                    / 10.0;
            }
        }
        if area_total <= 0.0 {
            return Self::default();
        }
        // Moments about the centroid (the pose centres it; f32 vertices leave a little offset).
        let mut skews = [0.0_f64; 3];
        let mut spreads = [0.0_f64; 3];
        for axis in 0..3 {
            let mean = first[axis] / area_total;
            let raw2 = second[axis] / area_total;
            let raw3 = third[axis] / area_total;
            let variance = raw2 - mean * mean;
            let central3 = raw3 - 3.0 * mean * raw2 + 2.0 * mean * mean * mean;
            spreads[axis] = variance;
            skews[axis] = if variance > 0.0 {
                central3 / variance.powf(1.5)
            } else {
                0.0
            };
        }
        let mut sorted = spreads;
        sorted.sort_by(|a, b| b.total_cmp(a));
        let apart = |larger: f64, smaller: f64| {
            larger > 0.0 && larger - smaller >= f64::from(AXES_APART) * larger
        };
        if !apart(sorted[0], sorted[1]) || !apart(sorted[1], sorted[2]) {
            return Self::default();
        }
        let chirality = skews
            .iter()
            .map(|skew| skew.abs())
            .fold(f64::INFINITY, f64::min)
            .min(f64::from(LARGEST));
        let sign = (skews[0] * skews[1] * skews[2]).signum();
        Self((sign * chirality) as f32)
    }

    /// How clearly the shape is handed, in 0..1 (0: it has a mirror plane, or its axes are not
    /// fixed by its shape).
    pub fn chirality(&self) -> f32 {
        self.0.abs()
    }

    /// Whether the shape is clearly handed ([`CHIRAL_FROM`]).
    pub fn is_handed(&self) -> bool {
        self.chirality() >= CHIRAL_FROM
    }

    /// Whether a shape of this handedness and one of `other`'s are mirror images of each other,
    /// should their shapes match: both clearly handed, of opposite hands.
    pub fn mirrors(&self, other: &Self) -> bool {
        self.is_handed() && other.is_handed() && (self.0 > 0.0) != (other.0 > 0.0)
    }

    /// The stored form: one signed byte, the handedness's sign and the square root of its
    /// chirality in 127ths.
    pub fn to_byte(self) -> u8 {
        let magnitude = (self.chirality().sqrt() * STORED_SCALE)
            .round()
            .clamp(0.0, STORED_SCALE);
        let signed = if self.0 < 0.0 { -magnitude } else { magnitude };
        (signed as i8).cast_unsigned()
    }

    /// Reads the stored form; `None` for the one byte [`Self::to_byte`] never writes (−128).
    pub fn from_byte(byte: u8) -> Option<Self> {
        let signed = byte.cast_signed();
        if signed == i8::MIN {
            return None;
        }
        let magnitude = f32::from(signed.unsigned_abs()) / STORED_SCALE;
        Some(Self(f32::from(signed.signum()) * magnitude * magnitude))
    }
}

/// Area of a triangle.
fn triangle_area(corners: &[[f64; 3]; 3]) -> f64 {
    let [a, b, c] = corners;
    let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let ac = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    0.5 * super::normalise::length(super::normalise::cross(ab, ac))
}
