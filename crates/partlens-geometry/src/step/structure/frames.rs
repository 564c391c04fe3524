//! Where STEP puts things: a representation's length unit (its context's), the frame an
//! `AXIS2_PLACEMENT_3D` or a `CARTESIAN_TRANSFORMATION_OPERATOR_3D` stands for (in millimetres), and
//! the placement a relationship or a mapped item gives a component.
//!
//! An `ITEM_DEFINED_TRANSFORMATION` says that its first item, a frame in the relationship's first
//! representation, sits where its second item, a frame in the second, does: the first
//! representation is moved by `A₂ · A₁⁻¹` into the second's coordinates. The child's shape is
//! usually the first (AP203, AP214); SolidWorks writes the parent first, which is found by which
//! representation belongs to the usage's child (as OpenCASCADE does), and the map is turned round.
//! A `MAPPED_ITEM` places its representation map's representation by `target · origin⁻¹`.

use std::collections::HashMap;

use ruststep::ast::Parameter;

use super::super::instances::Instances;
use super::super::product::{number, unit_in_millimetres};
use super::{parameters, reference};
use crate::Placement;

/// Frames and units, looked up once each.
pub(super) struct Frames<'a> {
    instances: &'a Instances<'a>,
    /// Millimetres a unit where a context states no length unit.
    file_unit: f64,
    units: HashMap<u64, f64>,
}

impl<'a> Frames<'a> {
    pub(super) fn new(instances: &'a Instances<'a>, file_unit: f64) -> Self {
        Self {
            instances,
            file_unit,
            units: HashMap::new(),
        }
    }

    /// Millimetres a unit of the representation context `#context`: its assigned length unit,
    /// else the file's.
    pub(super) fn unit_of_context(&mut self, context: u64) -> f64 {
        if let Some(&unit) = self.units.get(&context) {
            return unit;
        }
        let instances = self.instances;
        let unit = instances
            .record(context, "GLOBAL_UNIT_ASSIGNED_CONTEXT")
            .and_then(|assigned| parameters(assigned).first().map(super::list_references))
            .unwrap_or_default()
            .into_iter()
            .filter(|&unit| instances.record(unit, "LENGTH_UNIT").is_some())
            .find_map(|unit| unit_in_millimetres(instances, unit, 0))
            .unwrap_or(self.file_unit);
        self.units.insert(context, unit);
        unit
    }

    /// The frame `#id` stands for, its lengths in units of `unit` millimetres: an
    /// `AXIS2_PLACEMENT_3D` (axis and reference direction as stated, else z and x) or a
    /// `CARTESIAN_TRANSFORMATION_OPERATOR_3D`. `None` for anything else or a frame that is not one
    /// (parallel axes, a number out of range).
    pub(super) fn frame(&self, id: u64, unit: f64) -> Option<Placement> {
        let placement = if let Some(axes) = self.instances.record(id, "AXIS2_PLACEMENT_3D") {
            let p = parameters(axes);
            let origin = self.point(p.get(1)?)?.map(|value| value * unit);
            let z = self.direction(p.get(2)).unwrap_or([0.0, 0.0, 1.0]);
            let x = self.direction(p.get(3)).unwrap_or([1.0, 0.0, 0.0]);
            let (x, y, z) = right_handed_axes(z, x)?;
            Placement::from_axes(origin, x, y, z)
        } else {
            self.operator(id, unit)?
        };
        placement.is_finite().then_some(placement)
    }

    /// A `CARTESIAN_TRANSFORMATION_OPERATOR_3D` (simple, or complex with its attributes spread
    /// over `CARTESIAN_TRANSFORMATION_OPERATOR(axis1, axis2, origin, scale)` and `…_3D(axis3)`):
    /// ISO 10303-42's base axes, scaled.
    fn operator(&self, id: u64, unit: f64) -> Option<Placement> {
        let records = self.instances.get(id)?;
        let simple = records
            .iter()
            .find(|record| record.name == "CARTESIAN_TRANSFORMATION_OPERATOR_3D")?;
        let p = parameters(simple);
        // Simple: name, axis1, axis2, origin, scale, axis3 (some writers put the functionally
        // defined transformation's description after the name).
        let (axis1, axis2, origin, scale, axis3) = if p.len() >= 6 {
            let at = p.len() - 6;
            (
                p.get(at + 1),
                p.get(at + 2),
                p.get(at + 3)?,
                p.get(at + 4),
                p.get(at + 5),
            )
        } else {
            let base = records
                .iter()
                .find(|record| record.name == "CARTESIAN_TRANSFORMATION_OPERATOR")?;
            let b = parameters(base);
            (b.first(), b.get(1), b.get(2)?, b.get(3), p.first())
        };
        let origin = self.point(origin)?.map(|value| value * unit);
        let scale = scale
            .and_then(number)
            .filter(|scale| scale.is_normal() && *scale > 0.0)
            .unwrap_or(1.0);
        let z = self.direction(axis3).unwrap_or([0.0, 0.0, 1.0]);
        let x = self.direction(axis1).unwrap_or([1.0, 0.0, 0.0]);
        let (x, right_y, z) = right_handed_axes(z, x)?;
        // A stated second axis on the other side of the first two makes a mirror.
        let y = match self.direction(axis2) {
            Some(stated) if dot(stated, right_y) < 0.0 => right_y.map(|value| -value),
            _ => right_y,
        };
        let [x, y, z] = [x, y, z].map(|axis| axis.map(|value| value * scale));
        Some(Placement::from_axes(origin, x, y, z))
    }

    fn point(&self, parameter: &Parameter) -> Option<[f64; 3]> {
        let point = self
            .instances
            .record(reference(parameter)?, "CARTESIAN_POINT")?;
        coordinates(parameters(point).get(1)?)
    }

    /// A `DIRECTION`, made unit length; `None` for `$` or one of no length.
    fn direction(&self, parameter: Option<&Parameter>) -> Option<[f64; 3]> {
        let direction = self.instances.record(reference(parameter?)?, "DIRECTION")?;
        let vector = coordinates(parameters(direction).get(1)?)?;
        normalised(vector)
    }
}

/// Up to three numbers of a list (a 2D point or direction gets z = 0).
fn coordinates(parameter: &Parameter) -> Option<[f64; 3]> {
    let Parameter::List(values) = parameter else {
        return None;
    };
    let mut point = [0.0; 3];
    for (slot, value) in point.iter_mut().zip(values) {
        *slot = number(value)?;
    }
    Some(point)
}

/// Orthonormal right-handed axes from a main axis `z` and a direction `x` near the first axis
/// (ISO 10303-42's `build_axes`): `x` made square to `z`; another when it is along `z`.
fn right_handed_axes(z: [f64; 3], x: [f64; 3]) -> Option<([f64; 3], [f64; 3], [f64; 3])> {
    let z = normalised(z)?;
    let square = |x: [f64; 3]| normalised(sub(x, scale(z, dot(x, z))));
    let x = square(x)
        .or_else(|| square([1.0, 0.0, 0.0]))
        .or_else(|| square([0.0, 1.0, 0.0]))?;
    Some((x, cross(z, x), z))
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: [f64; 3], factor: f64) -> [f64; 3] {
    a.map(|value| value * factor)
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalised(a: [f64; 3]) -> Option<[f64; 3]> {
    let length = dot(a, a).sqrt();
    (length.is_normal() && length.is_finite()).then(|| scale(a, 1.0 / length))
}
