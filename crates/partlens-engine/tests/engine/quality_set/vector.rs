//! The few vector sums the quality set's solids and its camera share, and its triangle soup: apart
//! from `solids.rs` so that the camera can be used on a mesh without the solids' builders (the
//! service's real-world bench photographs the corpus's models with it).

/// A triangle soup.
pub type Triangles = Vec<[[f64; 3]; 3]>;

pub fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn scaled(a: [f64; 3], factor: f64) -> [f64; 3] {
    a.map(|value| value * factor)
}

pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn normalised(a: [f64; 3]) -> [f64; 3] {
    let length = dot(a, a).sqrt();
    if length > 0.0 {
        scaled(a, 1.0 / length)
    } else {
        a
    }
}
