//! The parsed entity instances of a STEP file, looked up by `#id`, and the checks they pass before
//! truck converts them: truck follows references by recursion and builds B-spline knot vectors from
//! the multiplicities as written, so a reference cycle, a very long reference chain or a claimed
//! multiplicity of a billion would overflow the stack or exhaust memory, neither of which can be
//! caught. Refused here instead, with the entity named:
//!
//! - an `#id` defined twice, or a shell's geometry naming an `#id` the file does not have;
//! - a reference cycle under a shell, or a chain of references under a shell longer than
//!   [`MAX_REFERENCE_DEPTH`];
//! - a number that is not finite (`1.0E999`);
//! - in a B-spline record, a degree or multiplicity above [`MAX_SPLINE_INTEGER`] or multiplicities
//!   adding up to more than [`MAX_KNOTS`].

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use ruststep::ast::{EntityInstance, Name, Parameter, Record};

use crate::GeometryError;

/// Longest chain of references from a shell to the last point it depends on (real files need
/// about fifteen: shell, face, bound, loop, edge, curve, pcurve, surface, placement, point…).
pub const MAX_REFERENCE_DEPTH: usize = 100;
/// Largest degree or knot multiplicity a B-spline record may state.
pub const MAX_SPLINE_INTEGER: i64 = 10_000;
/// Most knots a B-spline record may add up to through its multiplicities.
pub const MAX_KNOTS: i64 = 100_000;

/// The instances of a file's data sections by `#id`; each is one record (a simple instance) or
/// several (a complex one).
pub struct Instances<'a> {
    by_id: HashMap<u64, &'a [Record]>,
}

impl<'a> Instances<'a> {
    /// Indexes the instances; an `#id` defined twice is an error.
    pub fn new(entities: impl Iterator<Item = &'a EntityInstance>) -> Result<Self, GeometryError> {
        let mut by_id = HashMap::new();
        for instance in entities {
            let (id, records) = match instance {
                EntityInstance::Simple { id, record } => (*id, std::slice::from_ref(record)),
                EntityInstance::Complex { id, subsuper } => (*id, subsuper.0.as_slice()),
            };
            match by_id.entry(id) {
                Entry::Occupied(_) => {
                    return Err(GeometryError::Malformed(format!(
                        "entity #{id} is defined twice"
                    )));
                }
                Entry::Vacant(place) => {
                    place.insert(records);
                }
            }
        }
        Ok(Self { by_id })
    }

    /// The records of instance `#id`.
    pub fn get(&self, id: u64) -> Option<&'a [Record]> {
        self.by_id.get(&id).copied()
    }

    /// The record named `name` (upper case) of instance `#id`.
    pub fn record(&self, id: u64, name: &str) -> Option<&'a Record> {
        self.get(id)?.iter().find(|record| record.name == name)
    }

    /// Every instance, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &'a [Record])> + '_ {
        self.by_id.iter().map(|(&id, &records)| (id, records))
    }

    /// The `#id`s instance `#id` refers to, in order (none for an instance the file does not
    /// have).
    pub fn references(&self, id: u64) -> Vec<u64> {
        let mut references = Vec::new();
        for record in self.get(id).unwrap_or_default() {
            collect_references(&record.parameter, &mut references);
        }
        references
    }

    /// Every instance with a record named `name`, in `#id` order, with that record.
    pub fn named(&self, name: &str) -> Vec<(u64, &'a Record)> {
        let mut found: Vec<(u64, &'a Record)> = self
            .by_id
            .iter()
            .filter_map(|(&id, records)| {
                records
                    .iter()
                    .find(|record| record.name == name)
                    .map(|record| (id, record))
            })
            .collect();
        found.sort_by_key(|(id, _)| *id);
        found
    }

    /// Runs every check of the module doc.
    pub fn check(&self) -> Result<(), GeometryError> {
        for (&id, records) in &self.by_id {
            for record in *records {
                check_numbers(id, record)?;
            }
        }
        let mut shells = self.named("CLOSED_SHELL");
        shells.extend(self.named("OPEN_SHELL"));
        let mut depths = HashMap::new();
        for (shell, _) in shells {
            self.reference_depth(shell, &mut depths)?;
        }
        Ok(())
    }

    /// The longest chain of references below `root`, without recursion (an iterative depth-first
    /// walk), refusing cycles, missing instances and chains over [`MAX_REFERENCE_DEPTH`].
    /// `depths` keeps what earlier walks found.
    fn reference_depth(
        &self,
        root: u64,
        depths: &mut HashMap<u64, Option<usize>>,
    ) -> Result<usize, GeometryError> {
        // `None` while an instance is on the walk's path, `Some(depth)` once finished.
        struct Step {
            id: u64,
            references: Vec<u64>,
            next: usize,
            deepest: usize,
        }
        let start = |id: u64, from: Option<u64>| -> Result<Step, GeometryError> {
            let records = self.get(id).ok_or_else(|| {
                GeometryError::Malformed(match from {
                    Some(from) => {
                        format!("entity #{from} refers to #{id}, which the file does not have")
                    }
                    None => format!("entity #{id} is missing"),
                })
            })?;
            let mut references = Vec::new();
            for record in records {
                collect_references(&record.parameter, &mut references);
            }
            Ok(Step {
                id,
                references,
                next: 0,
                deepest: 0,
            })
        };
        if let Some(Some(depth)) = depths.get(&root) {
            return Ok(*depth);
        }
        depths.insert(root, None);
        let mut path = vec![start(root, None)?];
        loop {
            let Some(top) = path.last_mut() else {
                unreachable!("the walk ends when its root is finished")
            };
            if top.next == top.references.len() {
                let finished = path.pop().map_or(0, |step| {
                    depths.insert(step.id, Some(step.deepest));
                    step.deepest
                });
                match path.last_mut() {
                    Some(parent) => parent.deepest = parent.deepest.max(finished + 1),
                    None => return Ok(finished),
                }
                continue;
            }
            let (from, child) = (top.id, top.references[top.next]);
            top.next += 1;
            match depths.get(&child) {
                Some(Some(depth)) => {
                    let depth = *depth;
                    if let Some(top) = path.last_mut() {
                        top.deepest = top.deepest.max(depth + 1);
                    }
                }
                Some(None) => {
                    return Err(GeometryError::Malformed(format!(
                        "entity #{child} refers back to itself through #{from}"
                    )));
                }
                None => {
                    if path.len() >= MAX_REFERENCE_DEPTH {
                        return Err(GeometryError::OverLimit(format!(
                            "a chain of more than {MAX_REFERENCE_DEPTH} references starts at shell #{root}"
                        )));
                    }
                    depths.insert(child, None);
                    path.push(start(child, Some(from))?);
                }
            }
        }
    }
}

/// The `#id`s a parameter names, in order (a value instance `@id` or a constant is not followed).
fn collect_references(parameter: &Parameter, references: &mut Vec<u64>) {
    match parameter {
        Parameter::Ref(Name::Entity(id)) => references.push(*id),
        Parameter::List(items) => {
            for item in items {
                collect_references(item, references);
            }
        }
        Parameter::Typed { parameter, .. } => collect_references(parameter, references),
        _ => {}
    }
}

/// Numbers of one record: finite reals everywhere; bounded integers in B-spline records.
fn check_numbers(id: u64, record: &Record) -> Result<(), GeometryError> {
    let spline = record.name.starts_with("B_SPLINE") || record.name.starts_with("BEZIER");
    let mut failure = None;
    visit_numbers(&record.parameter, &mut |number, list_sum| {
        if failure.is_some() {
            return;
        }
        match number {
            Number::Real(value) if !value.is_finite() => {
                failure = Some(GeometryError::Malformed(format!(
                    "entity #{id} ({}) holds a number out of range",
                    record.name
                )));
            }
            Number::Integer(value) if spline && !(0..=MAX_SPLINE_INTEGER).contains(&value) => {
                failure = Some(GeometryError::OverLimit(format!(
                    "entity #{id} ({}) states a degree or multiplicity of {value}, over {MAX_SPLINE_INTEGER}",
                    record.name
                )));
            }
            _ => {}
        }
        if spline && list_sum > MAX_KNOTS && failure.is_none() {
            failure = Some(GeometryError::OverLimit(format!(
                "entity #{id} ({}) adds up to more than {MAX_KNOTS} knots",
                record.name
            )));
        }
    });
    failure.map_or(Ok(()), Err)
}

/// A number met while visiting a parameter.
#[derive(Clone, Copy)]
enum Number {
    Integer(i64),
    Real(f64),
}

/// Calls `visit` for every number inside `parameter` with the running sum of the integers of the
/// list it is in (saturating), so a list of multiplicities is checked as it is read.
fn visit_numbers(parameter: &Parameter, visit: &mut impl FnMut(Number, i64)) {
    match parameter {
        Parameter::Integer(value) => visit(Number::Integer(*value), 0),
        Parameter::Real(value) => visit(Number::Real(*value), 0),
        Parameter::Typed { parameter, .. } => visit_numbers(parameter, visit),
        Parameter::List(items) => {
            let mut sum = 0_i64;
            for item in items {
                match item {
                    Parameter::Integer(value) => {
                        sum = sum.saturating_add(*value);
                        visit(Number::Integer(*value), sum);
                    }
                    other => visit_numbers(other, visit),
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instances(data: &str) -> ruststep::ast::Exchange {
        let text = format!(
            "ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\nFILE_NAME('','',(''),(''),'','','');\nFILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\nENDSEC;\nDATA;\n{data}\nENDSEC;\nEND-ISO-10303-21;\n"
        );
        ruststep::parser::parse(&super::super::text::prepare(text.as_bytes()).unwrap()).unwrap()
    }

    fn check(data: &str) -> Result<(), GeometryError> {
        let exchange = instances(data);
        Instances::new(exchange.data.iter().flat_map(|section| &section.entities))?.check()
    }

    #[test]
    fn a_sound_shell_passes_and_lookups_work() {
        let exchange = instances(
            "#1=CLOSED_SHELL('',(#2));\n#2=ADVANCED_FACE('',(),#3,.T.);\n#3=PLANE('',#4);\n#4=AXIS2_PLACEMENT_3D('',#5,$,$);\n#5=CARTESIAN_POINT('',(0.,0.,1.5));\n#6=(LENGTH_UNIT()NAMED_UNIT(*)SI_UNIT(.MILLI.,.METRE.));",
        );
        let instances =
            Instances::new(exchange.data.iter().flat_map(|section| &section.entities)).unwrap();
        instances.check().unwrap();
        assert_eq!(instances.named("PLANE").len(), 1);
        assert!(instances.record(6, "SI_UNIT").is_some());
        assert!(instances.record(6, "PLANE").is_none());
        let mut depths = HashMap::new();
        assert_eq!(instances.reference_depth(1, &mut depths).unwrap(), 4);
    }

    #[test]
    fn cycles_missing_instances_and_duplicates_are_refused_with_the_entity_named() {
        let cycle = check("#1=CLOSED_SHELL('',(#2));\n#2=ADVANCED_FACE('',(),#3,.T.);\n#3=SURFACE_CURVE('',#2,(),.CURVE_3D.);")
            .unwrap_err();
        assert!(
            cycle
                .to_string()
                .contains("#2 refers back to itself through #3"),
            "{cycle}"
        );
        let itself = check("#1=CLOSED_SHELL('',(#1));").unwrap_err();
        assert!(itself.to_string().contains("#1 refers back"), "{itself}");
        let missing =
            check("#1=CLOSED_SHELL('',(#2));\n#2=ADVANCED_FACE('',(),#9,.T.);").unwrap_err();
        assert!(missing.to_string().contains("#2 refers to #9"), "{missing}");
        let twice = check("#1=PLANE('',$);\n#1=PLANE('',$);").unwrap_err();
        assert!(twice.to_string().contains("#1 is defined twice"), "{twice}");
        // Outside the shells a missing reference is not the geometry's business.
        check("#1=PRODUCT_DEFINITION('','',#77,#78);").unwrap();
    }

    #[test]
    fn long_chains_are_refused_without_recursion() {
        let mut data = String::from("#1=CLOSED_SHELL('',(#2));\n");
        let length = MAX_REFERENCE_DEPTH * 50;
        for id in 2..length {
            data.push_str(&format!(
                "#{id}=SURFACE_CURVE('',#{},(),.CURVE_3D.);\n",
                id + 1
            ));
        }
        data.push_str(&format!("#{length}=CARTESIAN_POINT('',(0.,0.,0.));\n"));
        let error = check(&data).unwrap_err();
        assert!(matches!(error, GeometryError::OverLimit(_)), "{error}");
    }

    #[test]
    fn huge_multiplicities_and_numbers_out_of_range_are_refused() {
        let knots = check("#1=B_SPLINE_CURVE_WITH_KNOTS('',3,(#2,#2,#2,#2),.UNSPECIFIED.,.F.,.F.,(4,1000000000),(0.,1.),.UNSPECIFIED.);").unwrap_err();
        assert!(knots.to_string().contains("1000000000"), "{knots}");
        let many = check(&format!(
            "#1=B_SPLINE_CURVE_WITH_KNOTS('',3,(#2),.UNSPECIFIED.,.F.,.F.,({}),(0.,1.),.UNSPECIFIED.);",
            vec!["9000"; 20].join(",")
        ))
        .unwrap_err();
        assert!(many.to_string().contains("knots"), "{many}");
        let infinite = check("#1=CARTESIAN_POINT('',(0.,1.0E999,0.));").unwrap_err();
        assert!(infinite.to_string().contains("out of range"), "{infinite}");
        // Integers elsewhere are not B-spline counts.
        check("#1=TRIANGULATED_FACE('',#2,3,(),$,(1,2,3),((1,2,3000000)));").unwrap();
    }
}
