//! A STEP assembly's components read in a worker: its product tree without meshes, and each
//! product as a STEP file of its own ([`partlens_geometry::step::component_tree`]), so the service
//! can give every component a record of its own without parsing a hostile file in its own process.

use partlens_geometry::{ProductTree, step::ComponentFile};

use super::client::{Sandbox, SandboxFailure};
use super::wire::{ComponentsWire, Outcome, Request};

/// Why an assembly's components were not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentsRefusal {
    /// Why, in words.
    pub reason: String,
    /// A limit refused them (sizes, counts, the components' bytes, the worker's time or memory),
    /// not the file's content.
    pub over_limit: bool,
}

/// An assembly's product tree (unmeshed) and each product's file, `files[i]` for
/// `tree.products[i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct AssemblyComponents {
    /// The tree: products, usages and roots.
    pub tree: ProductTree,
    /// Each product as a STEP file of its own.
    pub files: Vec<ComponentFile>,
}

impl Sandbox {
    /// The components of the STEP assembly `bytes`, read in a worker: `Ok(Ok(None))` for a file
    /// without a product tree, the reader's refusal, or why the worker gave no answer.
    pub fn components(
        &self,
        bytes: Vec<u8>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Result<Option<AssemblyComponents>, ComponentsRefusal>, SandboxFailure> {
        let finished = self.run(&Request::Components { bytes }, cancelled)?;
        match finished.outcome {
            Outcome::Components(None) => Ok(Ok(None)),
            Outcome::Components(Some(wire)) => checked(wire).map(|read| Ok(Some(read))),
            Outcome::ComponentsRefused { reason, over_limit } => {
                Ok(Err(ComponentsRefusal { reason, over_limit }))
            }
            _ => Err(SandboxFailure::Crashed {
                how: "it answered another question".to_owned(),
            }),
        }
    }
}

/// The components back from their wire form. They crossed a process boundary, so what the caller
/// indexes by (a file a product, usages naming products of the tree) is checked first.
fn checked(wire: ComponentsWire) -> Result<AssemblyComponents, SandboxFailure> {
    let count = wire.tree.products.len();
    let sound = wire.files.len() == count
        && wire
            .tree
            .usages
            .iter()
            .all(|usage| usage.parent < count && usage.child < count)
        && wire.tree.roots.iter().all(|&root| root < count);
    if !sound {
        return Err(SandboxFailure::Crashed {
            how: "its product tree does not hold together".to_owned(),
        });
    }
    let files = wire
        .tree
        .products
        .iter()
        .zip(wire.files)
        .map(|(product, bytes)| ComponentFile {
            key: product.key.clone(),
            bytes,
        })
        .collect();
    Ok(AssemblyComponents {
        tree: wire.tree,
        files,
    })
}
