//! Hyperbolic edges given the stretch of the curve between their corners.
//!
//! A plane cutting a cone (a chamfer meeting a flat, common in turned and moulded parts) leaves a
//! hyperbola as the edge. truck finds the curve's parameters at the edge's corners with a quartic
//! that answers wrong (FreeCAD's Futaba 3003 servo horn: 1.110 and 1.194 where the corners are at
//! 3.331 and 3.584), so the edge is meshed on another stretch of the hyperbola, the face it bounds
//! is meshed out to it, and the model comes out 9.4 mm tall instead of 6.3. A point of the unit
//! hyperbola `(cosh t, sinh t)` has `t = asinh(y)`: the range is set from the corners again, and
//! the edge turned so that it runs from its first corner to its second.

use truck_stepio::r#in::alias::{
    BoundedCurve, Conic3D, Curve3D, Invertible, MetricSpace, Point3, SquareMatrix, Surface,
    Transform, TrimmedCurve, UnitHyperbola,
};
use truck_topology::compress::CompressedShell;

/// How far (in units of the unit hyperbola) a corner may be from the curve and still be on it.
const ON_CURVE: f64 = 1e-6;

/// Sets the range of every hyperbolic edge of `shell` from its corners. An edge whose corners are
/// not on its hyperbola is left as truck made it.
pub fn repair_hyperbola_ranges(shell: &mut CompressedShell<Point3, Curve3D, Surface>) {
    let vertices = &shell.vertices;
    for edge in &mut shell.edges {
        let Curve3D::Conic(Conic3D::Hyperbola(hyperbola)) = &edge.curve else {
            continue;
        };
        let (Some(first), Some(second)) =
            (vertices.get(edge.vertices.0), vertices.get(edge.vertices.1))
        else {
            continue;
        };
        let Some(to_unit) = hyperbola.transform().invert() else {
            continue;
        };
        let parameter = |corner: &Point3| -> Option<f64> {
            let unit = to_unit.transform_point(*corner);
            let t = unit.y.asinh();
            let on_curve = (unit.x - t.cosh()).abs() <= ON_CURVE * t.cosh().max(1.0)
                && unit.z.abs() <= ON_CURVE * t.cosh().max(1.0);
            on_curve.then_some(t)
        };
        let (Some(at_first), Some(at_second)) = (parameter(first), parameter(second)) else {
            continue;
        };
        if (at_first - at_second).abs() <= f64::EPSILON {
            continue;
        }
        let range = (at_first.min(at_second), at_first.max(at_second));
        let mut repaired = hyperbola.map_ref(|_| TrimmedCurve::new(UnitHyperbola::new(), range));
        if repaired.front().distance2(*first) > repaired.front().distance2(*second) {
            repaired.invert();
        }
        edge.curve = Curve3D::Conic(Conic3D::Hyperbola(repaired));
    }
}
