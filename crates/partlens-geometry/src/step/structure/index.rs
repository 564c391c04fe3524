//! One pass over a STEP file's instances that finds what its product structure is made of and
//! indexes it by what refers to what (Part 21 references point one way, from the usage to the
//! product and from the shape to the product, so the tree is read backwards):
//!
//! - the usages: `NEXT_ASSEMBLY_USAGE_OCCURRENCE` and `QUANTIFIED_ASSEMBLY_COMPONENT_USAGE`, simple
//!   or in a complex instance (`PRODUCT_DEFINITION_RELATIONSHIP(…)` carrying the parent and child,
//!   `ASSEMBLY_COMPONENT_USAGE(…)` the reference designator, the quantity its own record);
//! - the shapes of product definitions and usages (`PRODUCT_DEFINITION_SHAPE`), their
//!   representations (`SHAPE_DEFINITION_REPRESENTATION`) and the placements of usages
//!   (`CONTEXT_DEPENDENT_SHAPE_REPRESENTATION`);
//! - the relationships between representations: those a placement names, and the others, which
//!   join representations that share coordinates (a product's shape and its B-rep).

use std::collections::{HashMap, HashSet};

use ruststep::ast::{Parameter, Record};

use super::super::instances::Instances;
use super::super::product::{first_strings, number};
use super::{list_references, parameters, reference};

/// One usage entity: the parent and child product definitions it joins.
pub(super) struct UsageRecord {
    /// Its `#id`.
    pub id: u64,
    /// The parent's product definition.
    pub relating: u64,
    /// The child's product definition.
    pub related: u64,
    /// Its reference designator, where it states one.
    pub designator: Option<String>,
    /// Its stated quantity, 1 where it states none or one that is not a count.
    pub quantity: u64,
}

/// A relationship between two representations.
#[derive(Clone, Copy)]
pub(super) struct RepresentationRelationship {
    /// Its first representation (usually the child's shape).
    pub rep_1: u64,
    /// Its second.
    pub rep_2: u64,
    /// `REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION`'s operator, when it has one.
    pub transformation: Option<u64>,
}

/// The product structure's entities, indexed.
#[derive(Default)]
pub(super) struct StructureIndex {
    /// Every usage, in `#id` order.
    pub usages: Vec<UsageRecord>,
    /// `PRODUCT_DEFINITION_SHAPE`s by the `#id` of what they define (a product definition or a
    /// usage).
    pub shapes_of: HashMap<u64, Vec<u64>>,
    /// `(SHAPE_DEFINITION_REPRESENTATION, representation)` by product definition shape.
    pub representations_of: HashMap<u64, Vec<(u64, u64)>>,
    /// `(CONTEXT_DEPENDENT_SHAPE_REPRESENTATION, relationship)` by product definition shape.
    pub placements_of: HashMap<u64, Vec<(u64, u64)>>,
    /// Every representation relationship by its `#id`.
    pub relationships: HashMap<u64, RepresentationRelationship>,
    /// The untransformed relationships no placement names, each way: representation → `(other
    /// representation, relationship)`.
    pub links: HashMap<u64, Vec<(u64, u64)>>,
}

const USAGES: [&str; 2] = [
    "NEXT_ASSEMBLY_USAGE_OCCURRENCE",
    "QUANTIFIED_ASSEMBLY_COMPONENT_USAGE",
];

/// Indexes the structure of `instances`; `None` when the file has no usage (a part, or products
/// side by side), which is then read as it always was.
pub(super) fn index(instances: &Instances<'_>) -> Option<StructureIndex> {
    let has_usage = instances.iter().any(|(_, records)| {
        records
            .iter()
            .any(|record| USAGES.contains(&record.name.as_str()))
    });
    if !has_usage {
        return None;
    }
    let mut index = StructureIndex::default();
    for (id, records) in instances.iter() {
        index.add(instances, id, records);
    }
    index.usages.sort_by_key(|usage| usage.id);
    for list in index.shapes_of.values_mut() {
        list.sort_unstable();
    }
    for list in index.placements_of.values_mut() {
        list.sort_unstable();
    }
    for list in index.representations_of.values_mut() {
        list.sort_unstable();
    }
    index.link_representations();
    Some(index)
}

impl StructureIndex {
    fn add(&mut self, instances: &Instances<'_>, id: u64, records: &[Record]) {
        if records.iter().any(|r| USAGES.contains(&r.name.as_str())) {
            if let Some(usage) = usage_record(instances, id, records) {
                self.usages.push(usage);
            }
            return;
        }
        for record in records {
            let p = parameters(record);
            match record.name.as_str() {
                "PRODUCT_DEFINITION_SHAPE" => {
                    if let Some(defined) = p.get(2).and_then(reference) {
                        self.shapes_of.entry(defined).or_default().push(id);
                    }
                }
                "SHAPE_DEFINITION_REPRESENTATION" => {
                    if let (Some(shape), Some(representation)) =
                        (p.first().and_then(reference), p.get(1).and_then(reference))
                    {
                        self.representations_of
                            .entry(shape)
                            .or_default()
                            .push((id, representation));
                    }
                }
                "CONTEXT_DEPENDENT_SHAPE_REPRESENTATION" => {
                    if let (Some(relationship), Some(shape)) =
                        (p.first().and_then(reference), p.get(1).and_then(reference))
                    {
                        self.placements_of
                            .entry(shape)
                            .or_default()
                            .push((id, relationship));
                    }
                }
                _ => {}
            }
        }
        if let Some(relationship) = representation_relationship(records) {
            self.relationships.insert(id, relationship);
        }
    }

    /// The untransformed relationships no placement names, as links both ways.
    fn link_representations(&mut self) {
        let placing: HashSet<u64> = self
            .placements_of
            .values()
            .flatten()
            .map(|&(_, relationship)| relationship)
            .collect();
        let mut ids: Vec<u64> = self.relationships.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let relationship = self.relationships[&id];
            if relationship.transformation.is_some() || placing.contains(&id) {
                continue;
            }
            self.links
                .entry(relationship.rep_1)
                .or_default()
                .push((relationship.rep_2, id));
            self.links
                .entry(relationship.rep_2)
                .or_default()
                .push((relationship.rep_1, id));
        }
    }
}

/// The parent, child, designator and quantity of a usage instance.
fn usage_record(instances: &Instances<'_>, id: u64, records: &[Record]) -> Option<UsageRecord> {
    let named = |name: &str| records.iter().find(|record| record.name == name);
    let (relating, related, designator, quantity) =
        if let Some(relationship) = named("PRODUCT_DEFINITION_RELATIONSHIP") {
            let p = parameters(relationship);
            let designator = named("ASSEMBLY_COMPONENT_USAGE")
                .and_then(|usage| first_strings(&usage.parameter, 0).into_iter().next());
            let quantity = named("QUANTIFIED_ASSEMBLY_COMPONENT_USAGE")
                .and_then(|quantified| parameters(quantified).first().and_then(reference));
            (p.get(3), p.get(4), designator, quantity)
        } else {
            let record = records
                .iter()
                .find(|record| USAGES.contains(&record.name.as_str()))?;
            let p = parameters(record);
            let designator = first_strings(&record.parameter, 5).into_iter().next();
            let quantity = (record.name == "QUANTIFIED_ASSEMBLY_COMPONENT_USAGE")
                .then(|| p.get(6).and_then(reference))
                .flatten();
            (p.get(3), p.get(4), designator, quantity)
        };
    Some(UsageRecord {
        id,
        relating: relating.and_then(reference)?,
        related: related.and_then(reference)?,
        designator: designator.filter(|text| !text.trim().is_empty()),
        quantity: quantity.map_or(1, |measure| count(instances, measure)),
    })
}

/// A quantity's measure (`MEASURE_WITH_UNIT(COUNT_MEASURE(4.), #u)`) as a count: its number when
/// it is a whole number above zero (saturating), else 1 (a length of cable is one usage).
fn count(instances: &Instances<'_>, measure: u64) -> u64 {
    let value = instances.get(measure).and_then(|records| {
        records
            .iter()
            .find_map(|record| match parameters(record).first()? {
                Parameter::Typed { parameter, .. } => number(parameter),
                other => number(other),
            })
    });
    match value {
        Some(value) if value >= 1.0 && (value - value.round()).abs() < 1e-6 => {
            if value >= u64::MAX as f64 {
                u64::MAX
            } else {
                value.round() as u64
            }
        }
        _ => 1,
    }
}

/// The two representations of a representation relationship instance (simple or complex) and its
/// transformation operator, if any.
fn representation_relationship(records: &[Record]) -> Option<RepresentationRelationship> {
    const NAMES: [&str; 4] = [
        "REPRESENTATION_RELATIONSHIP",
        "SHAPE_REPRESENTATION_RELATIONSHIP",
        "REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION",
        "SHAPE_REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION",
    ];
    let mut pair = None;
    let mut transformation = None;
    for record in records {
        if !NAMES.contains(&record.name.as_str()) {
            continue;
        }
        let p = parameters(record);
        if p.len() >= 4
            && let (Some(rep_1), Some(rep_2)) = (reference(&p[2]), reference(&p[3]))
        {
            pair = Some((rep_1, rep_2));
        }
        if record.name.ends_with("WITH_TRANSFORMATION") {
            transformation = p.last().and_then(reference);
        }
    }
    let (rep_1, rep_2) = pair?;
    Some(RepresentationRelationship {
        rep_1,
        rep_2,
        transformation,
    })
}

/// The items of representation `#id` (its list of items) and its context; `None` when `#id` is
/// not a representation.
pub(super) fn representation(instances: &Instances<'_>, id: u64) -> Option<(Vec<u64>, u64)> {
    instances.get(id)?.iter().find_map(|record| {
        let p = parameters(record);
        if !record.name.ends_with("REPRESENTATION") || p.len() < 3 {
            return None;
        }
        Some((list_references(&p[1]), reference(&p[2])?))
    })
}
