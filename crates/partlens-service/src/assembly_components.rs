//! `indexAssemblyComponents=true`: a company-database STEP assembly's components get records of
//! their own, linked to it by the store's file relations (docs/OPERATIONS.md, "Assemblies").
//!
//! - **What becomes a record.** The product tree is read in a reader worker
//!   ([`crate::indexing::Indexer::read_components`]: unmeshed, each product written as a STEP file
//!   of its own by `partlens_geometry::step::component_tree`) before anything is stored. Each
//!   distinct product but the top (leaf parts and subassemblies) becomes a company-database record
//!   at `<assembly folder>/<assembly stem>/<component name><assembly extension>`
//!   (`Design/as1.stp`'s nut is `Design/as1/NUT.stp`): the name is the product's name (else its
//!   key), with `/ \ :` and control characters made `_`, at most [`MAX_NAME_CHARS`] characters,
//!   ` (2)`, ` (3)`, … after the first of names that are the same in any case. Each is uploaded
//!   and indexed as that file would be on its own (views, thumbnail, size, status; its words and
//!   product data as the STEP reader extracts them), with the assembly's `textOnly`. A file already at such a path is replaced in place (its UID kept).
//! - **Relations.** Each assembly and subassembly lists its direct components in
//!   `AssemblyChildren`, with the usage's quantity (the sum of the usages of that child under that
//!   parent) and its reference designators joined by `, `; each component lists its direct
//!   parents in `AssemblyParents`. Without the parameter no component records are made, and an
//!   assembly lists no children (a relation names records only).
//! - **Status.** The assembly's own indexing runs after its components have been indexed, so it
//!   turns *completed* only once they are (a component that fails keeps its own failed status).
//! - **Overwrite and delete.** Uploading the assembly again with the parameter keeps the record of
//!   each component whose path it still makes (replacing its content) and deletes those no longer
//!   in it; without the parameter, or replacing the assembly by a file of another UID, its
//!   components go. Deleting the assembly deletes, in the delete's one transaction, each component
//!   no file outside the deleted ones lists; the relations of the rest go with the deleted files.
//! - **Limits.** At most [`MAX_COMPONENTS_PER_FILE`] components a file; the STEP reader's (bytes,
//!   entities, tree: `partlens_geometry::assembly`), the worker's (time, memory) and
//!   [`partlens_sandbox::MAX_COMPONENT_BYTES`] of component files together. Past any of them the
//!   upload is a 400 that says which, before anything is stored. A file of another format, or a
//!   STEP file without a tree, is stored as without the parameter; so is one whose tree the
//!   reader refuses for its content (its own indexing then says why).

use std::collections::{HashMap, HashSet};

use partlens_geometry::ProductTree;
use partlens_sandbox::AssemblyComponents;
use partlens_store::model::{ClaimedJob, FileRecord, NewRelation};

use super::body::TempFile;
use super::derived_records::{delete_unused, descendants};
use super::error::ServiceError;
use super::file_storing::{store_and_index_file, store_file};
use super::state::AppState;
use super::stored_path::StoredPath;
use super::upload_params::{UploadParams, UploadTarget};
use crate::caller::Caller;

/// Most components (distinct products below the top) one assembly file may give records to.
pub const MAX_COMPONENTS_PER_FILE: usize = 500;

/// Most characters of a component's file name before its extension.
pub const MAX_NAME_CHARS: usize = partlens_geometry::assembly::MAX_COMPONENT_NAME_CHARS;

/// One component to store: its product in the tree, its stored path and its file.
struct Planned {
    product: usize,
    path: StoredPath,
    bytes: Vec<u8>,
}

/// What an assembly's upload stores beside it: the tree and each component.
struct Plan {
    tree: ProductTree,
    components: Vec<Planned>,
}

/// True for the extensions whose reader gives a product tree with component files.
fn has_component_files(extension: &str) -> bool {
    matches!(extension, ".step" | ".stp")
}

/// Stores a company-database upload sent with `indexAssemblyComponents=true`: the assembly, its
/// components (each indexed), the relations, the components it no longer has deleted, and then
/// the assembly indexed. Returns the assembly's record.
pub(crate) async fn store_assembly(
    state: &AppState,
    caller: &Caller,
    params: UploadParams,
    file: TempFile,
    size: u64,
) -> Result<FileRecord, ServiceError> {
    let UploadTarget::Database(path) = params.target.clone() else {
        return store_and_index_file(state, caller, params, file, size).await;
    };
    let plan = if has_component_files(&path.extension) {
        let bytes = tokio::fs::read(file.path()).await?;
        match state
            .indexer
            .read_components(&caller.company_id, bytes)
            .await?
        {
            Ok(Some(components)) => Some(plan_components(&path, components)?),
            Ok(None) => None,
            Err(refusal) if refusal.over_limit => {
                return Err(ServiceError::BadRequest(format!(
                    "the assembly's components cannot be indexed: {}; upload it without \
                     indexAssemblyComponents=true (it is then indexed as one model)",
                    refusal.reason
                )));
            }
            Err(refusal) => {
                let reason = refusal.reason;
                tracing::info!(%reason, "no components: the product tree cannot be read");
                None
            }
        }
    } else {
        None
    };
    let (text_only, extension) = (params.text_only, path.extension.clone());
    let (uid, revision) = store_file(state, caller, params, file, size).await?;
    let stored = store_components(state, caller, (&uid, text_only), plan).await;
    // The assembly is indexed last, so it is completed once its components are.
    state
        .indexer
        .index(ClaimedJob {
            uid: uid.clone(),
            revision,
            extension,
            company_id: caller.company_id.clone(),
            is_search_input: false,
            text_only,
        })
        .await?;
    stored?;
    let company_id = caller.company_id.clone();
    state
        .store
        .read_tx(move |tx| tx.find_file(&company_id, &uid))
        .await?
        .ok_or_else(|| ServiceError::NotFound("the file was deleted while it was uploaded".into()))
}

/// The components of `components` to store under the assembly at `path`, refused (400) past
/// [`MAX_COMPONENTS_PER_FILE`].
fn plan_components(
    path: &StoredPath,
    components: AssemblyComponents,
) -> Result<Plan, ServiceError> {
    let AssemblyComponents { tree, files } = components;
    let count = tree.products.len().saturating_sub(tree.roots.len());
    if count > MAX_COMPONENTS_PER_FILE {
        return Err(ServiceError::BadRequest(format!(
            "the assembly has {count} components; indexAssemblyComponents=true takes at most \
             {MAX_COMPONENTS_PER_FILE} a file: upload it without the parameter (it is then indexed \
             as one model), or its subassemblies one by one"
        )));
    }
    let folder = path
        .path
        .rsplit_once('.')
        .map_or(path.path.as_str(), |(stem, _)| stem);
    // The one naming rule, which the 3D preview's parts follow too.
    let names = partlens_geometry::assembly::component_names(&tree);
    let mut planned = Vec::with_capacity(count);
    for (product, file) in files.into_iter().enumerate() {
        let Some(Some(name)) = names.get(product) else {
            continue;
        };
        let path = StoredPath::parse(&format!("{folder}/{name}{}", path.extension))?;
        planned.push(Planned {
            product,
            path,
            bytes: file.bytes,
        });
    }
    Ok(Plan {
        tree,
        components: planned,
    })
}

/// Stores and indexes each component of `plan` (none without one), then writes the relations and
/// deletes the components the assembly `uid` no longer has, in one transaction. A component that
/// cannot be stored stops the upload with its error (the components stored so far are linked).
async fn store_components(
    state: &AppState,
    caller: &Caller,
    (uid, text_only): (&str, bool),
    plan: Option<Plan>,
) -> Result<(), ServiceError> {
    let Plan { tree, components } = plan.unwrap_or(Plan {
        tree: ProductTree::default(),
        components: Vec::new(),
    });
    let mut uids: HashMap<usize, String> = tree
        .roots
        .iter()
        .map(|&root| (root, uid.to_owned()))
        .collect();
    let mut failure = None;
    for planned in components {
        let file = (planned.path, planned.bytes);
        match store_component(state, caller, file, text_only).await {
            Ok(component) => {
                uids.insert(planned.product, component);
            }
            Err(error) => {
                failure = Some(error);
                break;
            }
        }
    }
    let mut relations = relations_of(&tree, &uids);
    if !relations.iter().any(|(parent, _)| parent == uid) {
        relations.push((uid.to_owned(), Vec::new()));
    }
    let (visual, blobs) = (state.indexer.visual().clone(), state.blobs.clone());
    let (company_id, assembly) = (caller.company_id.clone(), uid.to_owned());
    state
        .store
        .write_tx(move |tx| -> Result<(), ServiceError> {
            let old = descendants(tx, &assembly)?;
            for (parent, children) in &relations {
                tx.replace_children(parent, children)?;
            }
            let kept: HashSet<&String> = uids.values().collect();
            let gone = old.into_iter().filter(|old| !kept.contains(old)).collect();
            delete_unused(tx, (&visual, &blobs), &company_id, gone, &HashSet::new())
        })
        .await?;
    failure.map_or(Ok(()), Err)
}

/// Uploads one component as a database file at `path`, indexed during the call; returns its UID.
async fn store_component(
    state: &AppState,
    caller: &Caller,
    (path, bytes): (StoredPath, Vec<u8>),
    text_only: bool,
) -> Result<String, ServiceError> {
    let file = TempFile::new(state.disk.temp_path());
    let target = file.path().to_owned();
    let size = bytes.len() as u64;
    tokio::task::spawn_blocking(move || super::disk::write_private(&target, &bytes)).await??;
    let params = UploadParams {
        target: UploadTarget::Database(path),
        index_async: false,
        uid: None,
        overwrite_file: None,
        attributes: None,
        gzipped: false,
        callback_param: None,
        text_only,
        category_id: None,
        // Its own components are the assembly's upload's business: kept as they are.
        index_assembly_components: true,
    };
    let record = store_and_index_file(state, caller, params, file, size).await?;
    Ok(record.uid)
}

/// Each stored product's children (the root's are the assembly's), by the UIDs stored: the
/// quantity summed over the usages of one child under one parent, the reference designators
/// joined by `, `. A leaf's list is empty, so a component that was a subassembly loses its
/// children.
fn relations_of(
    tree: &ProductTree,
    uids: &HashMap<usize, String>,
) -> Vec<(String, Vec<NewRelation>)> {
    let mut lists: Vec<(String, Vec<NewRelation>)> = Vec::new();
    let mut stored: Vec<(&usize, &String)> = uids.iter().collect();
    stored.sort();
    for (&product, parent_uid) in stored {
        let at = match lists.iter().position(|(uid, _)| uid == parent_uid) {
            Some(at) => at,
            None => {
                lists.push((parent_uid.clone(), Vec::new()));
                lists.len() - 1
            }
        };
        for usage in tree.usages_of(product) {
            let Some(child_uid) = uids.get(&usage.child) else {
                continue;
            };
            let quantity = i64::try_from(usage.quantity).unwrap_or(i64::MAX).max(1);
            let designators = usage.reference_designators.join(", ");
            let children = &mut lists[at].1;
            match children.iter_mut().find(|c| &c.child_uid == child_uid) {
                Some(known) => known.quantity = known.quantity.saturating_add(quantity),
                None => children.push(NewRelation {
                    child_uid: child_uid.clone(),
                    quantity,
                    reference: (!designators.is_empty()).then_some(designators),
                }),
            }
        }
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A top of `count` parts, each used once, each with a file of a few bytes.
    fn flat_assembly(count: usize) -> AssemblyComponents {
        let products: Vec<partlens_geometry::Product> = (0..=count)
            .map(|index| partlens_geometry::Product {
                key: format!("P{index}"),
                name: if index == 2 {
                    "P1".into()
                } else {
                    String::new()
                },
                is_assembly: index == 0,
                ..Default::default()
            })
            .collect();
        let usages = (1..=count)
            .map(|child| partlens_geometry::Usage {
                parent: 0,
                child,
                quantity: 2,
                ..Default::default()
            })
            .collect();
        let files = products
            .iter()
            .map(|product| partlens_geometry::step::ComponentFile {
                key: product.key.clone(),
                bytes: b"ISO-10303-21;".to_vec(),
            })
            .collect();
        AssemblyComponents {
            tree: ProductTree {
                products,
                usages,
                roots: vec![0],
                occurrences: Vec::new(),
            },
            files,
        }
    }

    #[test]
    fn past_the_components_limit_the_upload_is_refused_saying_so() {
        let path = StoredPath::parse("Design/big.stp").unwrap();
        let over = plan_components(&path, flat_assembly(MAX_COMPONENTS_PER_FILE + 1));
        let Err(ServiceError::BadRequest(words)) = over else {
            panic!("not refused");
        };
        assert!(
            words.contains("501 components") && words.contains("at most 500"),
            "{words}"
        );
        let plan = plan_components(&path, flat_assembly(3)).unwrap();
        let paths: Vec<&str> = plan
            .components
            .iter()
            .map(|c| c.path.path.as_str())
            .collect();
        // The second product is named like the first's key: a name of its own.
        assert_eq!(
            paths,
            [
                "Design/big/P1.stp",
                "Design/big/P1 (2).stp",
                "Design/big/P3.stp"
            ]
        );
        let uids: HashMap<usize, String> = (0..4)
            .map(|product| (product, format!("u{product}")))
            .collect();
        let relations = relations_of(&plan.tree, &uids);
        assert_eq!(relations[0].0, "u0");
        assert_eq!(relations[0].1.len(), 3);
        assert!(relations[0].1.iter().all(|child| child.quantity == 2));
        assert!(
            relations[1..]
                .iter()
                .all(|(_, children)| children.is_empty())
        );
    }
}
