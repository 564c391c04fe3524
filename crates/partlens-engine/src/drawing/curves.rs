//! Curves approximated by polylines: circular arcs (also polyline bulges), elliptical arcs and
//! B-splines (NURBS by de Boor's algorithm). Segment counts are bounded so a hostile radius or knot
//! vector cannot make a curve expensive.

use std::f64::consts::TAU;

use super::scene::Point2;

/// Most segments one curve is split into.
pub const MAX_CURVE_SEGMENTS: usize = 256;
/// Segments for a full turn.
const SEGMENTS_PER_TURN: f64 = 96.0;

fn segments_for(sweep_radians: f64) -> usize {
    let wanted = (sweep_radians.abs() / TAU * SEGMENTS_PER_TURN).ceil();
    if wanted.is_finite() {
        (wanted as usize).clamp(2, MAX_CURVE_SEGMENTS)
    } else {
        2
    }
}

/// A circular arc from `start` to `end` (radians, counter-clockwise; `end < start` wraps a turn).
pub fn arc(center: Point2, radius: f64, start: f64, end: f64) -> Vec<Point2> {
    let mut sweep = end - start;
    while sweep <= 0.0 && sweep.is_finite() {
        sweep += TAU;
    }
    if !sweep.is_finite() || !radius.is_finite() {
        return Vec::new();
    }
    let sweep = sweep.min(TAU);
    let segments = segments_for(sweep);
    (0..=segments)
        .map(|step| {
            let angle = start + sweep * step as f64 / segments as f64;
            [
                center[0] + radius * angle.cos(),
                center[1] + radius * angle.sin(),
            ]
        })
        .collect()
}

/// A full circle (closed: the first point repeats).
pub fn circle(center: Point2, radius: f64) -> Vec<Point2> {
    arc(center, radius, 0.0, TAU)
}

/// The points of a polyline segment from `from` to `to` with a bulge (tan of a quarter of the arc's
/// sweep, positive counter-clockwise), without `from` itself.
pub fn bulge_segment(from: Point2, to: Point2, bulge: f64) -> Vec<Point2> {
    let chord = ((to[0] - from[0]).powi(2) + (to[1] - from[1]).powi(2)).sqrt();
    if bulge.abs() < 1e-9 || !bulge.is_finite() || chord < 1e-12 {
        return vec![to];
    }
    let sweep = 4.0 * bulge.atan();
    let radius = chord / (2.0 * (sweep / 2.0).sin()).abs();
    // The centre lies on the chord's perpendicular bisector, on the left for a positive bulge.
    let middle = [(from[0] + to[0]) / 2.0, (from[1] + to[1]) / 2.0];
    let sagitta_to_center = radius * (sweep / 2.0).cos() * sweep.signum();
    let normal = [-(to[1] - from[1]) / chord, (to[0] - from[0]) / chord];
    let center = [
        middle[0] + normal[0] * sagitta_to_center,
        middle[1] + normal[1] * sagitta_to_center,
    ];
    let start = (from[1] - center[1]).atan2(from[0] - center[0]);
    let segments = segments_for(sweep);
    (1..=segments)
        .map(|step| {
            let angle = start + sweep * step as f64 / segments as f64;
            [
                center[0] + radius * angle.cos(),
                center[1] + radius * angle.sin(),
            ]
        })
        .collect()
}

/// An elliptical arc: `major` is the major semi-axis vector, `ratio` minor/major, parameters in radians.
pub fn ellipse(center: Point2, major: Point2, ratio: f64, start: f64, end: f64) -> Vec<Point2> {
    let minor = [-major[1] * ratio, major[0] * ratio];
    let mut sweep = end - start;
    while sweep <= 0.0 && sweep.is_finite() {
        sweep += TAU;
    }
    if !sweep.is_finite() {
        return Vec::new();
    }
    let sweep = sweep.min(TAU);
    let segments = segments_for(sweep);
    (0..=segments)
        .map(|step| {
            let t = start + sweep * step as f64 / segments as f64;
            let (sin, cos) = t.sin_cos();
            [
                center[0] + major[0] * cos + minor[0] * sin,
                center[1] + major[1] * cos + minor[1] * sin,
            ]
        })
        .collect()
}

/// A B-spline (rational when `weights` has one weight a control point) sampled along its knot range.
/// When the knot vector does not fit the control points, the control polygon stands in for it.
pub fn spline(degree: usize, knots: &[f64], control: &[Point2], weights: &[f64]) -> Vec<Point2> {
    let n = control.len();
    let usable = (1..=10).contains(&degree)
        && n > degree
        && knots.len() == n + degree + 1
        && knots.windows(2).all(|pair| pair[0] <= pair[1])
        && knots.iter().all(|knot| knot.is_finite());
    if !usable {
        return control.to_vec();
    }
    let weight = |index: usize| {
        if weights.len() == n {
            weights[index]
        } else {
            1.0
        }
    };
    let low = knots[degree];
    let high = knots[n];
    if high <= low {
        return control.to_vec();
    }
    let segments = (n * 8).clamp(8, MAX_CURVE_SEGMENTS);
    let mut points = Vec::with_capacity(segments + 1);
    for step in 0..=segments {
        let t = low + (high - low) * step as f64 / segments as f64;
        // The knot span holding t (the last span for t == high).
        let mut span = degree;
        while span + 1 < n && knots[span + 1] <= t {
            span += 1;
        }
        // de Boor on homogeneous points.
        let mut work: Vec<[f64; 3]> = (0..=degree)
            .map(|j| {
                let index = span - degree + j;
                let w = weight(index);
                [control[index][0] * w, control[index][1] * w, w]
            })
            .collect();
        for r in 1..=degree {
            for j in (r..=degree).rev() {
                let i = span - degree + j;
                let denominator = knots[i + degree + 1 - r] - knots[i];
                let alpha = if denominator.abs() < 1e-15 {
                    0.0
                } else {
                    (t - knots[i]) / denominator
                };
                let previous = work[j - 1];
                for (value, earlier) in work[j].iter_mut().zip(previous) {
                    *value = (1.0 - alpha) * earlier + alpha * *value;
                }
            }
        }
        let [x, y, w] = work[degree];
        if w.abs() > 1e-15 {
            points.push([x / w, y / w]);
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Point2, b: Point2) -> bool {
        (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6
    }

    #[test]
    fn arcs_run_counter_clockwise_and_wrap() {
        let points = arc([0.0, 0.0], 2.0, 0.0, std::f64::consts::FRAC_PI_2);
        assert!(close(points[0], [2.0, 0.0]));
        assert!(close(*points.last().unwrap(), [0.0, 2.0]));
        // From 270° to 90° passes through 0°.
        let wrapped = arc(
            [0.0, 0.0],
            1.0,
            1.5 * std::f64::consts::PI,
            0.5 * std::f64::consts::PI,
        );
        assert!(wrapped.iter().any(|point| close(*point, [1.0, 0.0])));
        assert!(circle([0.0, 0.0], f64::NAN).is_empty());
        assert!(arc([0.0; 2], 1.0, 0.0, f64::NAN).is_empty());
    }

    #[test]
    fn a_bulge_of_one_is_a_half_circle_on_the_left() {
        let points = bulge_segment([0.0, 0.0], [2.0, 0.0], 1.0);
        assert!(close(*points.last().unwrap(), [2.0, 0.0]));
        // Counter-clockwise from (0,0) to (2,0) around (1,0) passes below the chord.
        assert!(points.iter().any(|point| close(*point, [1.0, -1.0])));
        assert_eq!(bulge_segment([0.0, 0.0], [2.0, 0.0], 0.0), vec![[2.0, 0.0]]);
    }

    #[test]
    fn ellipses_and_splines_pass_through_their_defining_points() {
        let points = ellipse([0.0, 0.0], [4.0, 0.0], 0.5, 0.0, std::f64::consts::TAU);
        assert!(points.iter().any(|point| close(*point, [0.0, 2.0])));
        // A clamped quadratic B-spline starts and ends at its end control points.
        let control = [[0.0, 0.0], [1.0, 2.0], [2.0, 0.0]];
        let curve = spline(2, &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0], &control, &[]);
        assert!(close(curve[0], [0.0, 0.0]));
        assert!(close(*curve.last().unwrap(), [2.0, 0.0]));
        assert!(curve.iter().any(|point| close(*point, [1.0, 1.0])));
        // A knot vector that does not fit falls back to the control polygon.
        assert_eq!(spline(2, &[0.0, 1.0], &control, &[]), control.to_vec());
    }
}
