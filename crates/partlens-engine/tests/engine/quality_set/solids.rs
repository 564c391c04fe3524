//! Building blocks of the quality set's parts: prisms from outlines with holes, solids of revolution
//! from a profile, tubes swept along a path, and moving them about. Everything is a triangle soup in
//! millimetres with outward-facing triangles; solids may overlap (a bolt is a head plus a shank), which
//! a renderer with a depth buffer draws as their union.

use std::f64::consts::TAU;

pub use super::vector::{Triangles, add, cross, dot, normalised, scaled, sub};

/// A point of an outline in a plane.
pub type Point = [f64; 2];

/// A full circle of `segments` points, counter-clockwise, starting at angle `phase`.
pub fn circle(centre: Point, radius: f64, segments: usize, phase: f64) -> Vec<Point> {
    (0..segments)
        .map(|step| {
            let angle = phase + TAU * step as f64 / segments as f64;
            [
                centre[0] + radius * angle.cos(),
                centre[1] + radius * angle.sin(),
            ]
        })
        .collect()
}

/// The point at `radius` and `angle` from the origin.
pub fn polar(radius: f64, angle: f64) -> Point {
    [radius * angle.cos(), radius * angle.sin()]
}

fn signed_area(outline: &[Point]) -> f64 {
    let count = outline.len();
    (0..count)
        .map(|i| {
            let (p, q) = (outline[i], outline[(i + 1) % count]);
            p[0] * q[1] - q[0] * p[1]
        })
        .sum::<f64>()
        / 2.0
}

fn oriented(mut outline: Vec<Point>, counter_clockwise: bool) -> Vec<Point> {
    if (signed_area(&outline) > 0.0) != counter_clockwise {
        outline.reverse();
    }
    outline
}

/// A prism along z from `z0` to `z1`: the region inside `outer` and outside `holes`, caps
/// triangulated by earcut on the outline's own points so that caps and walls meet edge to edge.
pub fn extrude(outer: &[Point], holes: &[Vec<Point>], z0: f64, z1: f64) -> Triangles {
    let outer = oriented(outer.to_vec(), true);
    let holes: Vec<Vec<Point>> = holes
        .iter()
        .map(|hole| oriented(hole.clone(), false))
        .collect();
    let mut points = outer.clone();
    let mut hole_starts = Vec::new();
    for hole in &holes {
        hole_starts.push(points.len());
        points.extend_from_slice(hole);
    }
    let mut corners: Vec<usize> = Vec::new();
    earcut::Earcut::new().earcut(points.iter().copied(), &hole_starts, &mut corners);
    let mut triangles = Triangles::new();
    for corner in corners.chunks_exact(3) {
        let [a, b, c] = [points[corner[0]], points[corner[1]], points[corner[2]]];
        let counter_clockwise = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0.0;
        let (b, c) = if counter_clockwise { (b, c) } else { (c, b) };
        triangles.push([[a[0], a[1], z1], [b[0], b[1], z1], [c[0], c[1], z1]]);
        triangles.push([[a[0], a[1], z0], [c[0], c[1], z0], [b[0], b[1], z0]]);
    }
    for boundary in std::iter::once(&outer).chain(&holes) {
        for i in 0..boundary.len() {
            let (p, q) = (boundary[i], boundary[(i + 1) % boundary.len()]);
            triangles.push([[p[0], p[1], z0], [q[0], q[1], z0], [q[0], q[1], z1]]);
            triangles.push([[p[0], p[1], z0], [q[0], q[1], z1], [p[0], p[1], z1]]);
        }
    }
    triangles
}

/// A solid of revolution about z: the closed `profile` of (radius, height) points, counter-clockwise
/// in the (radius, height) plane, turned a full circle in `segments` steps.
pub fn revolve(profile: &[Point], segments: usize) -> Triangles {
    let profile = oriented(profile.to_vec(), true);
    let mut triangles = Triangles::new();
    let at = |point: Point, step: usize| {
        let angle = TAU * step as f64 / segments as f64;
        [point[0] * angle.cos(), point[0] * angle.sin(), point[1]]
    };
    for i in 0..profile.len() {
        let (p, q) = (profile[i], profile[(i + 1) % profile.len()]);
        for step in 0..segments {
            let (p0, q0, p1, q1) = (at(p, step), at(q, step), at(p, step + 1), at(q, step + 1));
            // Turning the profile counter-clockwise (seen from +z) sweeps its outward side outwards.
            if p[0] > 1e-12 {
                triangles.push([p0, p1, q0]);
            }
            if q[0] > 1e-12 {
                triangles.push([q0, p1, q1]);
            }
        }
    }
    triangles
}

/// A tube swept along `path`, `segments` around: solid (`inner` 0, ends closed by discs) or hollow
/// (ends closed by rings between the walls). Frames are
/// carried along the path without twisting.
pub fn sweep_tube(path: &[[f64; 3]], outer: f64, inner: f64, segments: usize) -> Triangles {
    let count = path.len();
    if count < 2 {
        return Triangles::new();
    }
    let tangent = |i: usize| {
        let (a, b) = (path[i.saturating_sub(1)], path[(i + 1).min(count - 1)]);
        normalised(sub(b, a))
    };
    let first = tangent(0);
    let helper = if first[2].abs() < 0.9 {
        [0.0, 0.0, 1.0]
    } else {
        [1.0, 0.0, 0.0]
    };
    let mut normal = normalised(cross(helper, first));
    let mut rings_outer = Vec::with_capacity(count);
    let mut rings_inner = Vec::with_capacity(count);
    for (i, &centre) in path.iter().enumerate() {
        let along = tangent(i);
        // Parallel transport: take the previous normal's part across the new tangent.
        normal = normalised(sub(normal, scaled(along, dot(normal, along))));
        let binormal = cross(along, normal);
        let ring = |radius: f64| -> Vec<[f64; 3]> {
            (0..segments)
                .map(|step| {
                    let angle = TAU * step as f64 / segments as f64;
                    add(
                        centre,
                        add(
                            scaled(normal, radius * angle.cos()),
                            scaled(binormal, radius * angle.sin()),
                        ),
                    )
                })
                .collect()
        };
        rings_outer.push(ring(outer));
        rings_inner.push(ring(inner));
    }
    let mut triangles = Triangles::new();
    let band = |triangles: &mut Triangles, a: &[[f64; 3]], b: &[[f64; 3]], outwards: bool| {
        for step in 0..segments {
            let next = (step + 1) % segments;
            let quad = [a[step], b[step], b[next], a[next]];
            if outwards {
                triangles.push([quad[0], quad[2], quad[1]]);
                triangles.push([quad[0], quad[3], quad[2]]);
            } else {
                triangles.push([quad[0], quad[1], quad[2]]);
                triangles.push([quad[0], quad[2], quad[3]]);
            }
        }
    };
    for i in 0..count - 1 {
        band(&mut triangles, &rings_outer[i], &rings_outer[i + 1], true);
        if inner > 0.0 {
            band(&mut triangles, &rings_inner[i], &rings_inner[i + 1], false);
        }
    }
    // End caps: a disc, or a ring between the inner and the outer wall.
    for (end, outwards) in [(0, false), (count - 1, true)] {
        if inner > 0.0 {
            band(
                &mut triangles,
                &rings_outer[end],
                &rings_inner[end],
                outwards,
            );
        } else {
            let centre = path[end];
            let ring = &rings_outer[end];
            for step in 0..segments {
                let next = (step + 1) % segments;
                if outwards {
                    triangles.push([centre, ring[step], ring[next]]);
                } else {
                    triangles.push([centre, ring[next], ring[step]]);
                }
            }
        }
    }
    triangles
}

/// The soup moved by `offset`.
pub fn moved(triangles: Triangles, offset: [f64; 3]) -> Triangles {
    triangles
        .into_iter()
        .map(|triangle| triangle.map(|point| add(point, offset)))
        .collect()
}

/// The soup with its axes turned: `(x, y, z) → (z, x, y)`, so what ran along z runs along x
/// (a proper rotation, triangles keep facing outwards).
pub fn z_to_x(triangles: Triangles) -> Triangles {
    triangles
        .into_iter()
        .map(|triangle| triangle.map(|[x, y, z]| [z, x, y]))
        .collect()
}
