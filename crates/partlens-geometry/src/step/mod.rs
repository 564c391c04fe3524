//! STEP models (ISO 10303-21 files: AP203, AP214, AP242) read in pure Rust: parsed by ruststep,
//! their B-rep shells converted and meshed by truck (planes, cylinders, cones, spheres, tori,
//! B-spline, extruded and revolved surfaces), their header and product data read into words.
//!
//! A file goes through five steps, each refusing what would hurt the next one:
//!
//! 1. `text.rs`: at most [`MAX_STEP_BYTES`]; must be a complete exchange structure; brackets nest at
//!    most [`text::MAX_NESTING`] deep; at most [`text::MAX_ENTITIES`] instances.
//! 2. The ruststep parser; then `instances.rs`: no `#id` twice, no reference cycle or missing
//!    instance under a shell, reference chains at most [`instances::MAX_REFERENCE_DEPTH`] long,
//!    finite numbers, B-spline degrees and multiplicities at most
//!    [`instances::MAX_SPLINE_INTEGER`] adding up to at most [`instances::MAX_KNOTS`] knots.
//! 3. `product.rs`: part numbers, names, revisions, materials, protocol, CAD system (read even when
//!    the shape cannot be meshed, so the file stays findable by them).
//! 4. `structure/`: for a file with usages (an assembly), its product tree: products, usages with
//!    quantities and reference designators, placements, each product's own shells; refused over
//!    [`crate::assembly`]'s limits (products, depth, occurrences) or with a cycle, the entity
//!    named, before anything is meshed. A file without usages has no tree.
//! 5. `tessellate.rs` under `budget.rs`: meshing stops within the time budget
//!    ([`STEP_TIME_BUDGET`], counted from the start of reading) and the triangle budget
//!    ([`STEP_TRIANGLE_BUDGET`]); a panic inside truck is caught and reported. A part's shells are
//!    drawn where they were modelled; an assembly's are meshed once each and placed down the tree
//!    (`assembled.rs`), the assembled mesh within the builder's caps.
//!
//! [`component_file`] writes one product of an assembly as a STEP file of its own
//! (`component_file.rs`).
//!
//! Memory: the parsed file takes about 20 times its size at most (measured: see docs/PERFORMANCE.md), so a
//! file at the size limit stays under about 1.3 GiB while it is read.

mod assembled;
mod budget;
mod component_file;
mod hyperbolas;
mod instances;
mod product;
mod structure;
mod tessellate;
mod text;
mod trimming;

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use super::{GeometryError, Mesh, ModelDescription, ModelReading, ProductTree};
use budget::Budget;
use instances::Instances;
pub(crate) use structure::StepStructure;
#[cfg(feature = "occt")]
pub(crate) use structure::{StructureProduct, product_keys};

pub use component_file::{ComponentFile, component_file, component_files, component_tree};
pub use instances::{MAX_KNOTS, MAX_REFERENCE_DEPTH, MAX_SPLINE_INTEGER};
pub use product::{MAX_TEXT_BYTES, MAX_VALUE_CHARS};
pub use tessellate::TOLERANCE_OF_SIZE;
pub use text::{MAX_ENTITIES, MAX_NESTING};

/// Largest STEP file read, in bytes.
pub const MAX_STEP_BYTES: usize = 64 * 1024 * 1024;
/// How long reading and meshing one STEP file may take.
pub const STEP_TIME_BUDGET: Duration = Duration::from_secs(30);
/// How many triangles meshing one STEP file may make (counted as sample points, two triangles a
/// point).
pub const STEP_TRIANGLE_BUDGET: usize = 2_000_000;

/// What reading one STEP file may spend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepBudget {
    /// Time from the start of reading to the end of meshing.
    pub time: Duration,
    /// Triangles meshing may make.
    pub triangles: usize,
}

impl Default for StepBudget {
    fn default() -> Self {
        Self {
            time: STEP_TIME_BUDGET,
            triangles: STEP_TRIANGLE_BUDGET,
        }
    }
}

/// Reads a STEP file within the default budget.
pub fn read_step(bytes: &[u8]) -> ModelReading {
    read_step_within(bytes, StepBudget::default())
}

/// Reads a STEP file within `limits`: its description (whatever could be read) and its mesh in
/// millimetres, or why there is none.
pub fn read_step_within(bytes: &[u8], limits: StepBudget) -> ModelReading {
    if bytes.len() > MAX_STEP_BYTES {
        return ModelReading::unread(GeometryError::TooLarge {
            limit: MAX_STEP_BYTES,
        });
    }
    std::panic::catch_unwind(AssertUnwindSafe(|| read_within_limits(bytes, limits))).unwrap_or_else(
        |panic| {
            ModelReading::unread(GeometryError::ReaderFailed(tessellate::panic_words(
                panic.as_ref(),
            )))
        },
    )
}

/// Reads only the words of a STEP file (header and product data) and checks its structure, without
/// meshing it: for a build whose shape comes from another reader. The check is the pure-Rust
/// reader's (size, nesting, counts, the parser, references: no cycle, no missing instance, finite
/// numbers, and an assembly's product tree within [`crate::assembly`]'s limits): a file it refuses
/// is not handed to native code that has no such guards (OpenCASCADE crashes on a vertex that
/// refers to itself). Returns the words (whatever could be read) and the refusal, if any.
pub fn describe_step(bytes: &[u8]) -> (ModelDescription, Result<(), GeometryError>) {
    let (description, checked) = describe_step_structure(bytes);
    (description, checked.map(|_| ()))
}

/// [`describe_step`] with the product tree it read (`None` for a file without usages).
pub(crate) fn describe_step_structure(
    bytes: &[u8],
) -> (
    ModelDescription,
    Result<Option<StepStructure>, GeometryError>,
) {
    if bytes.len() > MAX_STEP_BYTES {
        return (
            ModelDescription::default(),
            Err(GeometryError::TooLarge {
                limit: MAX_STEP_BYTES,
            }),
        );
    }
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        let text = match text::prepare(bytes) {
            Ok(text) => text,
            Err(error) => return (ModelDescription::default(), Err(error)),
        };
        let exchange = match ruststep::parser::parse(&text) {
            Ok(exchange) => exchange,
            Err(error) => {
                return (
                    ModelDescription::default(),
                    Err(parse_error(&error.to_string())),
                );
            }
        };
        let entities = exchange.data.iter().flat_map(|section| &section.entities);
        let instances = match Instances::new(entities) {
            Ok(instances) => instances,
            Err(error) => return (ModelDescription::default(), Err(error)),
        };
        let description = product::describe(&exchange.header, &instances);
        let structure = instances.check().and_then(|()| {
            structure::read_structure(&instances, product::millimetres_per_unit(&instances))
        });
        (description, structure)
    }))
    .unwrap_or_else(|panic| {
        (
            ModelDescription::default(),
            Err(GeometryError::ReaderFailed(tessellate::panic_words(
                panic.as_ref(),
            ))),
        )
    })
}

fn read_within_limits(bytes: &[u8], limits: StepBudget) -> ModelReading {
    let budget = Budget::new(limits.time, limits.triangles / 2);
    let text = match text::prepare(bytes) {
        Ok(text) => text,
        Err(error) => return ModelReading::unread(error),
    };
    let exchange = match ruststep::parser::parse(&text) {
        Ok(exchange) => exchange,
        Err(error) => return ModelReading::unread(parse_error(&error.to_string())),
    };
    let entities = || exchange.data.iter().flat_map(|section| &section.entities);
    let instances = match Instances::new(entities()) {
        Ok(instances) => instances,
        Err(error) => return ModelReading::unread(error),
    };
    let description = product::describe(&exchange.header, &instances);
    let shape = instances.check().and_then(|()| {
        if budget.exceeded().is_some() {
            return Err(GeometryError::OutOfTime {
                seconds: limits.time.as_secs_f64(),
            });
        }
        let unit = product::millimetres_per_unit(&instances);
        match structure::read_structure(&instances, unit)? {
            None => Ok((tessellate::mesh_shells(entities(), unit, &budget)?, None)),
            Some(structure) => {
                let meshed = tessellate::mesh_each_shell(entities(), &budget)?;
                let (mesh, tree) =
                    assembled::assemble_structure(structure, &meshed, unit, &budget)?;
                Ok((mesh, Some(tree)))
            }
        }
    });
    with_shape(description, shape)
}

/// A reading of `description` and the shape (the mesh and, for an assembly, its tree).
fn with_shape(
    description: ModelDescription,
    shape: Result<(Mesh, Option<ProductTree>), GeometryError>,
) -> ModelReading {
    match shape {
        Ok((mesh, assembly)) => ModelReading {
            description,
            mesh: Ok(mesh),
            assembly,
        },
        Err(error) => ModelReading::of(description, Err(error)),
    }
}

/// The parser's complaint in a few words with the line it names (its own text quotes the input).
fn parse_error(rendered: &str) -> GeometryError {
    let line = rendered.split("at line ").nth(1).and_then(|rest| {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<usize>().ok()
    });
    GeometryError::Malformed(match line {
        Some(line) => format!("the STEP text does not parse (line {line})"),
        None => "the STEP text does not parse".to_owned(),
    })
}

impl ModelReading {
    /// A reading with no description and no mesh.
    fn unread(error: GeometryError) -> Self {
        Self::of(ModelDescription::default(), Err(error))
    }
}

#[cfg(test)]
pub(crate) mod assembly_tests;
#[cfg(test)]
mod step_tests;
