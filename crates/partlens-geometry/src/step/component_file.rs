//! One product of a STEP assembly written as a STEP file of its own, so a component can be stored,
//! previewed and searched as the part it is: the entities that define it (its product definition,
//! formation and product, its shapes and shape representations, the relationships that join its
//! representations, and for a subassembly every usage below it with its placement and the
//! products it uses), each with everything it refers to (geometry, contexts, units), copied byte
//! for byte from the assembly in their `#id` order under a header of its own (the assembly's
//! schema). The usage that placed the component in its parent is not copied, so the component is
//! the top of its own file, in its own coordinates, and both readers read it back as that
//! component alone.
//!
//! What is not copied: what refers to the component from outside its definition and is not needed
//! to read its shape (colours and layers, approvals and people, categories that list other
//! products too); the application protocol definition of its context is copied.

use std::collections::{BTreeSet, HashSet};
use std::ops::Range;

use super::instances::Instances;
use super::structure::{StepStructure, read_structure};
use super::{MAX_STEP_BYTES, parse_error, product, text};
use crate::{GeometryError, Product, ProductTree, Usage};

/// One product of an assembly as a STEP file of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentFile {
    /// The product's key in the assembly's tree ([`crate::Product::key`]).
    pub key: String,
    /// The file: ISO 10303-21, the assembly's schema.
    pub bytes: Vec<u8>,
}

/// The product whose key is `key` in the tree of the STEP assembly `bytes`, as a STEP file of its
/// own (see the module doc). Refused with a reason when the file does not read, has no product
/// tree or no product of that key.
pub fn component_file(bytes: &[u8], key: &str) -> Result<Vec<u8>, GeometryError> {
    let source = Source::read(bytes)?;
    let index = source
        .structure
        .products
        .iter()
        .position(|product| product.key == key)
        .ok_or_else(|| GeometryError::Malformed(format!("the assembly has no product '{key}'")))?;
    Ok(source.write(index))
}

/// Every product of the tree of the STEP assembly `bytes` as a STEP file of its own, in the tree's
/// order (the same as [`crate::ProductTree::products`]).
pub fn component_files(bytes: &[u8]) -> Result<Vec<ComponentFile>, GeometryError> {
    let source = Source::read(bytes)?;
    Ok((0..source.structure.products.len())
        .map(|index| ComponentFile {
            key: source.structure.products[index].key.clone(),
            bytes: source.write(index),
        })
        .collect())
}

/// The product tree of the STEP assembly `bytes` read without meshing anything (products, usages
/// with their placements, and roots; no product's mesh, no extents, no occurrence), with every
/// product as a file of its own in the tree's order: what the service needs to give each component
/// a record. `None` for a file without a product tree (no product uses another); refused with a
/// reason when the file does not read or its tree breaks a limit of [`crate::assembly`].
pub fn component_tree(
    bytes: &[u8],
) -> Result<Option<(ProductTree, Vec<ComponentFile>)>, GeometryError> {
    let Some(source) = Source::read_if_tree(bytes)? else {
        return Ok(None);
    };
    let structure = &source.structure;
    let products = structure
        .products
        .iter()
        .enumerate()
        .map(|(index, product)| Product {
            key: product.key.clone(),
            definition_id: product.definition_id,
            part_number: product.part_number.clone(),
            name: product.name.clone(),
            description: product.description.clone(),
            revision: product.revision.clone(),
            is_assembly: structure.usages.iter().any(|usage| usage.parent == index),
            own_mesh: crate::Mesh::default(),
            extents: None,
        })
        .collect();
    let usages = structure
        .usages
        .iter()
        .map(|usage| Usage {
            parent: usage.parent,
            child: usage.child,
            quantity: usage.quantity,
            reference_designators: usage.reference_designators.clone(),
            placements: usage.placements.clone(),
        })
        .collect();
    let tree = ProductTree {
        products,
        usages,
        roots: structure.roots.clone(),
        occurrences: Vec::new(),
    };
    let files = (0..structure.products.len())
        .map(|index| ComponentFile {
            key: structure.products[index].key.clone(),
            bytes: source.write(index),
        })
        .collect();
    Ok(Some((tree, files)))
}

/// An assembly file read for copying: its statements' places, its tree, and what refers to what.
struct Source<'a> {
    bytes: &'a [u8],
    statements: Statements,
    structure: StepStructure,
    /// Each instance's references, by `#id`.
    references: std::collections::HashMap<u64, Vec<u64>>,
    /// `(APPLICATION_PROTOCOL_DEFINITION, the application context it names)`.
    protocols: Vec<(u64, u64)>,
}

impl<'a> Source<'a> {
    fn read(bytes: &'a [u8]) -> Result<Self, GeometryError> {
        Self::read_if_tree(bytes)?.ok_or_else(|| {
            GeometryError::Unsupported(
                "the STEP file has no product tree (no product uses another)".to_owned(),
            )
        })
    }

    /// [`Source::read`], `None` for a file without a product tree.
    fn read_if_tree(bytes: &'a [u8]) -> Result<Option<Self>, GeometryError> {
        if bytes.len() > MAX_STEP_BYTES {
            return Err(GeometryError::TooLarge {
                limit: MAX_STEP_BYTES,
            });
        }
        let prepared = text::prepare(bytes)?;
        let exchange =
            ruststep::parser::parse(&prepared).map_err(|error| parse_error(&error.to_string()))?;
        let instances = Instances::new(exchange.data.iter().flat_map(|section| &section.entities))?;
        instances.check()?;
        let unit = product::millimetres_per_unit(&instances);
        let Some(structure) = read_structure(&instances, unit)? else {
            return Ok(None);
        };
        let references = instances
            .iter()
            .map(|(id, _)| (id, instances.references(id)))
            .collect();
        let protocols = instances
            .named("APPLICATION_PROTOCOL_DEFINITION")
            .into_iter()
            .flat_map(|(id, _)| {
                instances
                    .references(id)
                    .into_iter()
                    .map(move |context| (id, context))
            })
            .collect();
        Ok(Some(Self {
            bytes,
            statements: Statements::of(bytes),
            structure,
            references,
            protocols,
        }))
    }

    /// The file of product `index`.
    fn write(&self, index: usize) -> Vec<u8> {
        let entities = self.closure(index);
        let key = &self.structure.products[index].key;
        let mut file = Vec::with_capacity(self.bytes.len() / 2);
        file.extend_from_slice(b"ISO-10303-21;\nHEADER;\n");
        file.extend_from_slice(
            format!(
                "FILE_DESCRIPTION(({}),'2;1');\nFILE_NAME({},'',(''),(''),'partlens','partlens','');\n",
                step_string(&format!("component {key} of an assembly")),
                step_string(&format!("{key}.step")),
            )
            .as_bytes(),
        );
        match &self.statements.schema {
            Some(schema) => file.extend_from_slice(&self.bytes[schema.clone()]),
            None => file.extend_from_slice(b"FILE_SCHEMA(('AUTOMOTIVE_DESIGN'))"),
        }
        file.extend_from_slice(b";\nENDSEC;\nDATA;\n");
        for id in entities {
            if let Some(span) = self.statements.entities.get(&id) {
                file.extend_from_slice(&self.bytes[span.clone()]);
                file.extend_from_slice(b";\n");
            }
        }
        file.extend_from_slice(b"ENDSEC;\nEND-ISO-10303-21;\n");
        file
    }

    /// The `#id`s product `index`'s file holds: what defines it and everything below it, with all
    /// they refer to.
    fn closure(&self, index: usize) -> BTreeSet<u64> {
        let structure = &self.structure;
        let mut below = vec![index];
        let mut seen = HashSet::from([index]);
        let mut seeds: Vec<u64> = Vec::new();
        while let Some(product) = below.pop() {
            seeds.extend(&structure.products[product].defining);
            for usage in structure
                .usages
                .iter()
                .filter(|usage| usage.parent == product)
            {
                seeds.extend(&usage.defining);
                if seen.insert(usage.child) {
                    below.push(usage.child);
                }
            }
        }
        let mut entities = BTreeSet::new();
        let mut queue = seeds;
        while let Some(id) = queue.pop() {
            if entities.insert(id) {
                queue.extend(self.references.get(&id).into_iter().flatten().copied());
            }
        }
        let protocols: Vec<u64> = self
            .protocols
            .iter()
            .filter(|(_, context)| entities.contains(context))
            .map(|&(protocol, _)| protocol)
            .collect();
        entities.extend(protocols);
        entities
    }
}

/// A string as a Part 21 string literal: quotes and backslashes doubled, every character outside
/// printable ASCII as `\X2\…\X0\`.
fn step_string(text: &str) -> String {
    let mut literal = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => literal.push_str("''"),
            '\\' => literal.push_str("\\\\"),
            ' '..='~' => literal.push(c),
            _ => {
                let mut units = [0_u16; 2];
                literal.push_str("\\X2\\");
                for unit in c.encode_utf16(&mut units) {
                    literal.push_str(&format!("{unit:04X}"));
                }
                literal.push_str("\\X0\\");
            }
        }
    }
    literal.push('\'');
    literal
}

/// Where a file's statements are, found byte by byte (every byte that matters is ASCII, in UTF-8
/// and ISO 8859-1 alike): each entity instance of the data sections by `#id`, and the header's
/// `FILE_SCHEMA`, without their `;`.
#[derive(Default)]
struct Statements {
    entities: std::collections::HashMap<u64, Range<usize>>,
    schema: Option<Range<usize>>,
}

impl Statements {
    fn of(bytes: &[u8]) -> Self {
        let mut found = Statements::default();
        for span in statement_spans(bytes) {
            let statement = &bytes[span.clone()];
            if statement.starts_with(b"FILE_SCHEMA") {
                found.schema = Some(span);
            } else if let Some(id) = instance_id(statement) {
                found.entities.insert(id, span);
            }
        }
        found
    }
}

/// The `#id` an instance statement (`#12 = …`) defines.
fn instance_id(statement: &[u8]) -> Option<u64> {
    let rest = statement.strip_prefix(b"#")?;
    let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let after = rest[digits..]
        .iter()
        .find(|byte| !byte.is_ascii_whitespace())?;
    if digits == 0 || *after != b'=' {
        return None;
    }
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// Each statement of the file, from its first byte of code (white space and comments before it
/// skipped) to before its `;`.
fn statement_spans(bytes: &[u8]) -> Vec<Range<usize>> {
    #[derive(PartialEq)]
    enum Place {
        Code,
        Text,
        Binary,
        Comment,
    }
    let mut spans = Vec::new();
    let mut place = Place::Code;
    let mut start: Option<usize> = None;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        match place {
            Place::Code => match byte {
                b'/' if bytes.get(at + 1) == Some(&b'*') => {
                    place = Place::Comment;
                    at += 1;
                }
                b';' => {
                    if let Some(first) = start.take() {
                        spans.push(first..at);
                    }
                }
                _ if byte.is_ascii_whitespace() => {}
                _ => {
                    start.get_or_insert(at);
                    match byte {
                        b'\'' => place = Place::Text,
                        b'"' => place = Place::Binary,
                        _ => {}
                    }
                }
            },
            // A doubled quote inside a string leaves it and enters it again: the same.
            Place::Text if byte == b'\'' => place = Place::Code,
            Place::Binary if byte == b'"' => place = Place::Code,
            Place::Comment if byte == b'*' && bytes.get(at + 1) == Some(&b'/') => {
                place = Place::Code;
                at += 1;
            }
            _ => {}
        }
        at += 1;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_found_around_strings_and_comments() {
        let text = b"ISO-10303-21;\nHEADER;\n/* a; comment */FILE_SCHEMA(('X'));\nENDSEC;\nDATA;\n#1 = PRODUCT('a;b','it''s;',$);\n/*c*/ #22=X('\"');#3=Y(\"0F\");\nENDSEC;\n";
        let found = Statements::of(text);
        let at = |id: u64| String::from_utf8_lossy(&text[found.entities[&id].clone()]).into_owned();
        assert_eq!(at(1), "#1 = PRODUCT('a;b','it''s;',$)");
        assert_eq!(at(22), "#22=X('\"')");
        assert_eq!(at(3), "#3=Y(\"0F\")");
        assert_eq!(
            found
                .schema
                .map(|span| String::from_utf8_lossy(&text[span]).into_owned()),
            Some("FILE_SCHEMA(('X'))".to_owned())
        );
        assert_eq!(
            step_string("it's a\\b é"),
            "'it''s a\\\\b \\X2\\00E9\\X0\\'"
        );
        assert_eq!(instance_id(b"#12 =X()"), Some(12));
        assert_eq!(instance_id(b"#=X()"), None);
        assert_eq!(instance_id(b"ENDSEC"), None);
    }
}
