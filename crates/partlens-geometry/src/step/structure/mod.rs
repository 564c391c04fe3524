//! The product tree of a STEP file, read from its entities before anything is meshed: the
//! products (`PRODUCT` id, name and description, its `PRODUCT_DEFINITION` and the formation's
//! version), the usages (`NEXT_ASSEMBLY_USAGE_OCCURRENCE`, `QUANTIFIED_ASSEMBLY_COMPONENT_USAGE`:
//! parent, child, quantity, reference designator), each usage's placement
//! (`CONTEXT_DEPENDENT_SHAPE_REPRESENTATION` → `REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION` →
//! `ITEM_DEFINED_TRANSFORMATION` or a transformation operator; or, for a relationship without
//! one, the `MAPPED_ITEM` that maps the child's representation), and each product's own shells:
//! those its shape representations reach (through the untransformed relationships that join a
//! shape to its B-rep, and through mapped items that place no component, with their placements),
//! each in the length unit of the representation it was found in.
//!
//! A file without any usage has no tree and is read as it always was. A tree is checked against
//! the limits of [`crate::assembly`] here (products, depth, occurrences, cycles, each refusal
//! naming the entity), so neither reader meshes a tree that would break one. A representation that
//! maps itself through mapped items is refused with the `MAPPED_ITEM` named.

mod frames;
mod index;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use ruststep::ast::{Name, Parameter, Record};

use super::instances::Instances;
use super::product::first_strings;
use crate::assembly::{MAX_ASSEMBLY_DEPTH, TreeShape, check_tree_shape};
use crate::{GeometryError, Placement};
use frames::Frames;
use index::{StructureIndex, representation};

/// The product tree of a STEP file, without meshes.
pub(crate) struct StepStructure {
    /// Every product of the tree, in `#id` order of their definitions.
    pub products: Vec<StructureProduct>,
    /// Every usage, one per pair of parent and child.
    pub usages: Vec<StructureUsage>,
    /// The products no usage has as its child.
    pub roots: Vec<usize>,
}

/// One product of the tree (the words as [`crate::Product`] has them).
pub(crate) struct StructureProduct {
    /// The `#id` of its `PRODUCT_DEFINITION`.
    pub definition_id: u64,
    /// Its key in the tree (see [`crate::Product::key`]).
    pub key: String,
    /// `PRODUCT.id`.
    pub part_number: String,
    /// `PRODUCT.name`.
    pub name: String,
    /// `PRODUCT.description`.
    pub description: String,
    /// The formation's id, empty for none.
    pub revision: String,
    /// Its own shells, in its own coordinates.
    pub shells: Vec<PlacedShell>,
    /// The entities that define it and that nothing of it refers to: its definition, the shapes
    /// and shape definition representations that name it, its representations and the
    /// relationships that join them (what a file of the product alone must hold, with all they
    /// refer to).
    pub defining: Vec<u64>,
}

/// A shell of a product and where it sits in the product's coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlacedShell {
    /// The `CLOSED_SHELL` or `OPEN_SHELL`.
    pub shell: u64,
    /// Millimetres a unit of the representation it was found in.
    pub millimetres_per_unit: f64,
    /// From the shell's representation (in millimetres) to the product's.
    pub placement: Placement,
}

/// All usages of one product by one assembly (as [`crate::Usage`] has them).
pub(crate) struct StructureUsage {
    /// The assembly (index into [`StepStructure::products`]).
    pub parent: usize,
    /// The component.
    pub child: usize,
    /// The stated quantities added up.
    pub quantity: u64,
    /// The usages' reference designators, where given.
    pub reference_designators: Vec<String>,
    /// One a usage entity, in `#id` order.
    pub placements: Vec<Placement>,
    /// The usage entities, their shapes and their placements' representations (see
    /// [`StructureProduct::defining`]).
    pub defining: Vec<u64>,
}

/// The product tree of `instances` (lengths in `file_unit` millimetres where a representation's
/// context states none), checked against the assembly limits; `None` for a file without usages.
pub(crate) fn read_structure(
    instances: &Instances<'_>,
    file_unit: f64,
) -> Result<Option<StepStructure>, GeometryError> {
    let Some(index) = index::index(instances) else {
        return Ok(None);
    };
    let mut reader = StructureReader {
        instances,
        index: &index,
        frames: Frames::new(instances, file_unit),
        groups: HashMap::new(),
    };
    let definitions = reader.definitions();
    let number: HashMap<u64, usize> = definitions
        .iter()
        .enumerate()
        .map(|(at, &id)| (id, at))
        .collect();
    let records: Vec<(usize, usize, &index::UsageRecord)> = index
        .usages
        .iter()
        .filter_map(|usage| {
            Some((
                *number.get(&usage.relating)?,
                *number.get(&usage.related)?,
                usage,
            ))
        })
        .collect();
    let mut products: Vec<StructureProduct> =
        definitions.iter().map(|&id| reader.product(id)).collect();
    name_uniquely(&mut products);
    check_tree_shape(&TreeShape {
        names: &products.iter().map(described).collect::<Vec<_>>(),
        usages: &records
            .iter()
            .map(|&(parent, child, usage)| {
                let entity = format!("{} #{}", usage_name(instances, usage.id), usage.id);
                (parent, child, usage.quantity, entity)
            })
            .collect::<Vec<_>>(),
    })?;
    let children_groups = reader.children_groups(&definitions, &records);
    for (at, product) in products.iter_mut().enumerate() {
        product.shells = reader.own_shells(definitions[at], &children_groups[at])?;
    }
    let usages = reader.usages(&definitions, &records);
    let used: HashSet<usize> = usages.iter().map(|usage| usage.child).collect();
    let roots = (0..products.len())
        .filter(|at| !used.contains(at))
        .collect();
    Ok(Some(StepStructure {
        products,
        usages,
        roots,
    }))
}

/// `'NUT' (#2310)`: a product as a refusal names it.
fn described(product: &StructureProduct) -> String {
    format!("'{}' (#{})", product.key, product.definition_id)
}

fn usage_name(instances: &Instances<'_>, id: u64) -> &'static str {
    match instances.record(id, "NEXT_ASSEMBLY_USAGE_OCCURRENCE") {
        Some(_) => "NEXT_ASSEMBLY_USAGE_OCCURRENCE",
        None => "QUANTIFIED_ASSEMBLY_COMPONENT_USAGE",
    }
}

/// Each product's key from its part number and name (in the tree's order): the part number, else
/// the name, else `product`; ` #2`, ` #3`, … after the first of products that share one.
pub(crate) fn product_keys<'a>(products: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    products
        .map(|(part_number, name)| {
            let base = [part_number.trim(), name.trim()]
                .into_iter()
                .find(|base| !base.is_empty())
                .unwrap_or("product");
            let count = seen.entry(base.to_owned()).or_insert(0);
            *count += 1;
            if *count == 1 {
                base.to_owned()
            } else {
                format!("{base} #{count}")
            }
        })
        .collect()
}

fn name_uniquely(products: &mut [StructureProduct]) {
    let keys = product_keys(
        products
            .iter()
            .map(|product| (product.part_number.as_str(), product.name.as_str())),
    );
    for (product, key) in products.iter_mut().zip(keys) {
        product.key = key;
    }
}

/// A representation's group: the representations sharing its coordinates, and the relationships
/// that join them.
#[derive(Default)]
struct Group {
    representations: Vec<u64>,
    links: Vec<u64>,
}

struct StructureReader<'a> {
    instances: &'a Instances<'a>,
    index: &'a StructureIndex,
    frames: Frames<'a>,
    /// Each representation's group, by the smallest `#id` in it.
    groups: HashMap<u64, std::rc::Rc<Group>>,
}

impl StructureReader<'_> {
    /// The product definitions of the tree: those the usages join, and those with a shape of their
    /// own besides, in `#id` order.
    fn definitions(&mut self) -> Vec<u64> {
        let instances = self.instances;
        let is_definition = |id: u64| {
            instances.get(id).is_some_and(|records| {
                records.iter().any(|record| {
                    matches!(
                        record.name.as_str(),
                        "PRODUCT_DEFINITION" | "PRODUCT_DEFINITION_WITH_ASSOCIATED_DOCUMENTS"
                    )
                })
            })
        };
        let mut definitions: Vec<u64> = self
            .index
            .usages
            .iter()
            .flat_map(|usage| [usage.relating, usage.related])
            .filter(|&id| is_definition(id))
            .collect();
        let mut others: Vec<u64> = instances
            .iter()
            .map(|(id, _)| id)
            .filter(|&id| is_definition(id))
            .collect();
        others.sort_unstable();
        let joined: HashSet<u64> = definitions.iter().copied().collect();
        for id in others {
            if !joined.contains(&id) && self.has_shells(id) {
                definitions.push(id);
            }
        }
        definitions.sort_unstable();
        definitions.dedup();
        definitions
    }

    fn has_shells(&mut self, definition: u64) -> bool {
        let group = self.definition_group(definition);
        let mut visited = HashSet::new();
        group
            .representations
            .iter()
            .any(|&rep| !self.walk_items(rep, &mut visited).0.is_empty())
    }

    /// The words of product definition `#id` and what defines it.
    fn product(&mut self, definition: u64) -> StructureProduct {
        let instances = self.instances;
        let record_of = |id: Option<u64>, wanted: &dyn Fn(&str) -> bool| -> Option<&Record> {
            instances
                .get(id?)?
                .iter()
                .find(|record| wanted(record.name.as_str()))
        };
        let text = |record: Option<&Record>, at: usize| -> String {
            record
                .and_then(|record| first_strings(&record.parameter, at).into_iter().next())
                .unwrap_or_default()
        };
        let formation_id = record_of(Some(definition), &|name| {
            matches!(
                name,
                "PRODUCT_DEFINITION" | "PRODUCT_DEFINITION_WITH_ASSOCIATED_DOCUMENTS"
            )
        })
        .and_then(|record| parameters(record).get(2).and_then(reference));
        let formation = record_of(formation_id, &|name| {
            name.starts_with("PRODUCT_DEFINITION_FORMATION")
        });
        let product = record_of(
            formation.and_then(|record| parameters(record).get(2).and_then(reference)),
            &|name| name == "PRODUCT",
        );
        let revision = text(formation, 0);
        let revision = match revision.to_lowercase().as_str() {
            "none" | "any" => String::new(),
            _ => revision,
        };
        let group = self.definition_group(definition);
        let mut defining = vec![definition];
        for &shape in self.index.shapes_of.get(&definition).into_iter().flatten() {
            defining.push(shape);
            for &(sdr, _) in self
                .index
                .representations_of
                .get(&shape)
                .into_iter()
                .flatten()
            {
                defining.push(sdr);
            }
        }
        defining.extend(&group.representations);
        defining.extend(&group.links);
        StructureProduct {
            definition_id: definition,
            key: String::new(),
            part_number: text(product, 0),
            name: text(product, 1),
            description: text(product, 2),
            revision,
            shells: Vec::new(),
            defining,
        }
    }

    /// The representations of product definition `#id`'s shapes, with those joined to them.
    fn definition_group(&mut self, definition: u64) -> std::rc::Rc<Group> {
        let mut starts = Vec::new();
        for &shape in self.index.shapes_of.get(&definition).into_iter().flatten() {
            for &(_, rep) in self
                .index
                .representations_of
                .get(&shape)
                .into_iter()
                .flatten()
            {
                starts.push(rep);
            }
        }
        let mut merged = Group::default();
        for rep in starts {
            let group = self.group(rep);
            for &rep in &group.representations {
                if !merged.representations.contains(&rep) {
                    merged.representations.push(rep);
                }
            }
            for &link in &group.links {
                if !merged.links.contains(&link) {
                    merged.links.push(link);
                }
            }
        }
        std::rc::Rc::new(merged)
    }

    /// The group of representation `#rep`: a walk over the untransformed links.
    fn group(&mut self, rep: u64) -> std::rc::Rc<Group> {
        if let Some(group) = self.groups.get(&rep) {
            return group.clone();
        }
        let mut group = Group::default();
        let mut seen = HashSet::from([rep]);
        let mut queue = VecDeque::from([rep]);
        while let Some(next) = queue.pop_front() {
            group.representations.push(next);
            for &(other, link) in self.index.links.get(&next).into_iter().flatten() {
                if !group.links.contains(&link) {
                    group.links.push(link);
                }
                if seen.insert(other) {
                    queue.push_back(other);
                }
            }
        }
        group.representations.sort_unstable();
        let group = std::rc::Rc::new(group);
        for &member in &group.representations {
            self.groups.insert(member, group.clone());
        }
        group
    }

    /// For each product, the representations of its usages' children (a mapped item that maps one
    /// of them places a component, not geometry of the product's own).
    fn children_groups(
        &mut self,
        definitions: &[u64],
        records: &[(usize, usize, &index::UsageRecord)],
    ) -> Vec<HashSet<u64>> {
        let mut groups = vec![HashSet::new(); definitions.len()];
        for &(parent, child, _) in records {
            let group = self.definition_group(definitions[child]);
            groups[parent].extend(group.representations.iter().copied());
        }
        groups
    }

    /// The shells product definition `#definition`'s representations reach, placed; mapped items
    /// of `components` (its children's representations) left to the usages.
    fn own_shells(
        &mut self,
        definition: u64,
        components: &HashSet<u64>,
    ) -> Result<Vec<PlacedShell>, GeometryError> {
        let group = self.definition_group(definition);
        let mut shells = Vec::new();
        // Each step: a group's representations, where they sit, and the groups above it.
        let mut pending = vec![(group, Placement::IDENTITY, Vec::<u64>::new())];
        while let Some((group, placement, above)) = pending.pop() {
            let Some(&first) = group.representations.first() else {
                continue;
            };
            let mut visited = HashSet::new();
            for &rep in &group.representations {
                let (found, mapped) = self.walk_items(rep, &mut visited);
                for (shell, unit) in found {
                    shells.push(PlacedShell {
                        shell,
                        millimetres_per_unit: unit,
                        placement,
                    });
                }
                for (item, mapped_rep, at) in mapped {
                    if components.contains(&mapped_rep) {
                        continue;
                    }
                    let inner = self.group(mapped_rep);
                    let inner_first = inner.representations.first().copied().unwrap_or(mapped_rep);
                    if inner_first == first || above.contains(&inner_first) {
                        return Err(GeometryError::Malformed(format!(
                            "MAPPED_ITEM #{item} places the representation it is part of"
                        )));
                    }
                    if above.len() >= MAX_ASSEMBLY_DEPTH {
                        return Err(GeometryError::OverLimit(format!(
                            "mapped items nest more than {MAX_ASSEMBLY_DEPTH} levels deep"
                        )));
                    }
                    let mut path = above.clone();
                    path.push(first);
                    pending.push((inner, placement.after(&at), path));
                }
            }
        }
        shells.sort_by_key(|placed| placed.shell);
        Ok(shells)
    }

    /// What representation `#rep`'s items reach: shells (with the representation's unit) and
    /// mapped items (`MAPPED_ITEM`, the representation it maps, its placement), not looking inside
    /// either. `visited` is shared by the walks of one product.
    #[allow(clippy::type_complexity)]
    fn walk_items(
        &mut self,
        rep: u64,
        visited: &mut HashSet<u64>,
    ) -> (Vec<(u64, f64)>, Vec<(u64, u64, Placement)>) {
        let Some((items, context)) = representation(self.instances, rep) else {
            return (Vec::new(), Vec::new());
        };
        let unit = self.frames.unit_of_context(context);
        let mut shells = Vec::new();
        let mut mapped = Vec::new();
        let mut queue: VecDeque<u64> = items.into_iter().collect();
        while let Some(id) = queue.pop_front() {
            if !visited.insert(id) {
                continue;
            }
            let Some(records) = self.instances.get(id) else {
                continue;
            };
            if records
                .iter()
                .any(|r| matches!(r.name.as_str(), "CLOSED_SHELL" | "OPEN_SHELL"))
            {
                shells.push((id, unit));
            } else if let Some(item) = records.iter().find(|r| r.name == "MAPPED_ITEM") {
                if let Some((mapped_rep, at)) = self.mapped_item(item, unit) {
                    mapped.push((id, mapped_rep, at));
                }
            } else {
                queue.extend(self.instances.references(id));
            }
        }
        (shells, mapped)
    }

    /// The representation a `MAPPED_ITEM` record maps and where it puts it (`target · origin⁻¹`),
    /// its target in units of `unit` millimetres.
    fn mapped_item(&mut self, item: &Record, unit: f64) -> Option<(u64, Placement)> {
        let p = parameters(item);
        let map = self
            .instances
            .record(p.get(1).and_then(reference)?, "REPRESENTATION_MAP")?;
        let m = parameters(map);
        let mapped_rep = m.get(1).and_then(reference)?;
        let mapped_unit = representation(self.instances, mapped_rep)
            .map_or(unit, |(_, context)| self.frames.unit_of_context(context));
        let origin = self
            .frames
            .frame(m.first().and_then(reference)?, mapped_unit)?;
        let target = self.frames.frame(p.get(2).and_then(reference)?, unit)?;
        Some((mapped_rep, target.after(&origin.inverse()?)))
    }

    /// The usages grouped by parent and child, each entity's placement found.
    fn usages(
        &mut self,
        definitions: &[u64],
        records: &[(usize, usize, &index::UsageRecord)],
    ) -> Vec<StructureUsage> {
        let mut grouped: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut usages: Vec<StructureUsage> = Vec::new();
        for &(parent, child, record) in records {
            let at = *grouped.entry((parent, child)).or_insert_with(|| {
                usages.push(StructureUsage {
                    parent,
                    child,
                    quantity: 0,
                    reference_designators: Vec::new(),
                    placements: Vec::new(),
                    defining: Vec::new(),
                });
                usages.len() - 1
            });
            let nth = usages[at].placements.len();
            let (placement, defining) =
                self.placement(record.id, definitions[parent], definitions[child], nth);
            let usage = &mut usages[at];
            usage.quantity = usage.quantity.saturating_add(record.quantity);
            usage
                .reference_designators
                .extend(record.designator.clone());
            usage.placements.push(placement);
            usage.defining.push(record.id);
            usage.defining.extend(defining);
        }
        usages
    }

    /// Where usage entity `#usage` (the `nth` of its parent and child) puts the child in the
    /// parent, and the shapes and placements that say so.
    fn placement(
        &mut self,
        usage: u64,
        parent: u64,
        child: u64,
        nth: usize,
    ) -> (Placement, Vec<u64>) {
        let mut defining = Vec::new();
        let mut relationship = None;
        for &shape in self.index.shapes_of.get(&usage).into_iter().flatten() {
            defining.push(shape);
            for &(cdsr, related) in self.index.placements_of.get(&shape).into_iter().flatten() {
                defining.push(cdsr);
                relationship = relationship.or(self.index.relationships.get(&related).copied());
            }
        }
        let child_group = self.definition_group(child);
        let parent_group = self.definition_group(parent);
        let Some(relationship) = relationship else {
            // No placement of its own: the parent's `nth` mapped item of the child's shape, if it
            // has one; else where the child was modelled.
            let child_reps: HashSet<u64> = child_group.representations.iter().copied().collect();
            let placed =
                self.mapped_placement(&[], &parent_group.representations, &child_reps, nth);
            return (placed.unwrap_or(Placement::IDENTITY), defining);
        };
        let in_child = |rep: u64| child_group.representations.contains(&rep);
        let in_parent = |rep: u64| parent_group.representations.contains(&rep);
        let (r1, r2) = (relationship.rep_1, relationship.rep_2);
        // As OpenCASCADE decides: the child's shape first unless the file says otherwise.
        let reversed = !(in_child(r1) && in_parent(r2)) && (in_child(r2) || in_parent(r1));
        let placed = match relationship.transformation {
            Some(transformation) => {
                self.transformation(transformation, r1, r2)
                    .map(|first_to_second| {
                        if reversed {
                            first_to_second.inverse().unwrap_or(first_to_second)
                        } else {
                            first_to_second
                        }
                    })
            }
            None => {
                let child_reps: HashSet<u64> =
                    child_group.representations.iter().copied().collect();
                let sides: Vec<u64> = [r1, r2]
                    .into_iter()
                    .filter(|rep| !child_reps.contains(rep))
                    .collect();
                self.mapped_placement(&sides, &parent_group.representations, &child_reps, nth)
            }
        };
        (placed.unwrap_or(Placement::IDENTITY), defining)
    }

    /// The map from representation `#r1`'s coordinates to `#r2`'s that operator `#id` states.
    fn transformation(&mut self, id: u64, r1: u64, r2: u64) -> Option<Placement> {
        let unit = |frames: &mut Frames<'_>, rep: u64| {
            representation(self.instances, rep).map(|(_, context)| frames.unit_of_context(context))
        };
        let (u1, u2) = (unit(&mut self.frames, r1)?, unit(&mut self.frames, r2)?);
        if let Some(defined) = self.instances.record(id, "ITEM_DEFINED_TRANSFORMATION") {
            let p = parameters(defined);
            let first = self.frames.frame(p.get(2).and_then(reference)?, u1)?;
            let second = self.frames.frame(p.get(3).and_then(reference)?, u2)?;
            return Some(second.after(&first.inverse()?));
        }
        self.frames.frame(id, u2)
    }

    /// For a placement relationship without a transformation: the mapped item that maps the
    /// child's representation, in the relationship's representations that are not the child's
    /// (`sides`) or else the `nth` such item in the parent's representations.
    fn mapped_placement(
        &mut self,
        sides: &[u64],
        parent: &[u64],
        child: &HashSet<u64>,
        nth: usize,
    ) -> Option<Placement> {
        let found_in = |reps: &[u64], this: &mut Self| -> Vec<Placement> {
            let mut placements = Vec::new();
            for &rep in reps {
                let mut visited = HashSet::new();
                let (_, mapped) = this.walk_items(rep, &mut visited);
                placements.extend(
                    mapped
                        .into_iter()
                        .filter(|(_, mapped_rep, _)| child.contains(mapped_rep))
                        .map(|(_, _, at)| at),
                );
            }
            placements
        };
        let direct = found_in(sides, self);
        if let Some(&first) = direct.first() {
            return Some(first);
        }
        found_in(parent, self).get(nth).copied()
    }
}

/// The parameters of a record (empty when it has none).
pub(super) fn parameters(record: &Record) -> &[Parameter] {
    match &record.parameter {
        Parameter::List(items) => items,
        _ => &[],
    }
}

/// The `#id` a parameter is, if it is a reference.
pub(super) fn reference(parameter: &Parameter) -> Option<u64> {
    match parameter {
        Parameter::Ref(Name::Entity(id)) => Some(*id),
        _ => None,
    }
}

/// The `#id`s a list parameter holds.
pub(super) fn list_references(parameter: &Parameter) -> Vec<u64> {
    match parameter {
        Parameter::List(items) => items.iter().filter_map(reference).collect(),
        _ => reference(parameter).into_iter().collect(),
    }
}

#[cfg(test)]
mod structure_tests;
