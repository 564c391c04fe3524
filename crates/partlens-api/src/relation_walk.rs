//! Walks the assembly relations of a file through `GET /api/File`: down its components (the
//! detail's component tree) or up to the top assemblies that use it (`partlens-cli where-used`,
//! the detail's *Used in* list). A record holds only its direct relations, so a walk reads one
//! record a file, each file once however often it is used.
//!
//! Limits, because relations come from the service and may be wrong or hostile: at most
//! [`WalkLimits::max_depth`] levels and [`WalkLimits::max_records`] records read; a file that
//! is its own ancestor is listed once more and not followed (a cycle); a related file that no
//! longer exists is listed as missing. A walk past a limit says so ([`RelationTree::cut_short`]).

use std::collections::HashMap;

use super::client::ApiClient;
use super::error::ApiError;
use super::files::{FileRef, GetFileRequest};
use super::model::FileMap;
use super::relations::Relation;
use super::uid::FileUid;

/// Which relations a walk follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkDirection {
    /// Down: an assembly's components, theirs, and so on (`AssemblyChildren`).
    Components,
    /// Up: the assemblies that use the file, theirs, and so on (`AssemblyParents`).
    UsedIn,
}

/// How far a walk goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkLimits {
    /// The most levels below (or above) the file a walk follows.
    pub max_depth: usize,
    /// The most records a walk reads.
    pub max_records: usize,
}

impl Default for WalkLimits {
    /// 16 levels (deeper than any real product tree the corpus holds: AS1 has three) and 500
    /// records.
    fn default() -> Self {
        Self {
            max_depth: 16,
            max_records: 500,
        }
    }
}

/// Why a node's relations were not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkStop {
    /// The file is its own ancestor in the relations (listed, not followed again).
    Cycle,
    /// The depth limit was reached.
    Depth,
    /// The record limit was reached.
    Records,
    /// The file's record does not exist any more (a relation to a deleted file).
    Missing,
}

/// One file in a walk, with the files related to it in the walk's direction.
#[derive(Clone, Debug, PartialEq)]
pub struct RelationNode {
    /// The file.
    pub uid: FileUid,
    /// Its stored name (from its record, else from the relation entry).
    pub file_name: String,
    /// Its display name.
    pub display_name: String,
    /// Its thumbnail URL (used as given), empty when it has none or was not read.
    pub thumbnail_url: String,
    /// How many of the child the parent holds, where the relation says (for a component: of it in
    /// its assembly; for an assembly above: of the file below in it). None for the walk's root.
    pub quantity: Option<u32>,
    /// The child's reference designator in the parent, where the relation gives one.
    pub reference_designator: Option<String>,
    /// The related files in the walk's direction.
    pub related: Vec<RelationNode>,
    /// Why `related` was not read, if it was not.
    pub stop: Option<WalkStop>,
}

impl RelationNode {
    /// The name to show: the display name, else the last part of the stored name, else the UID.
    pub fn title(&self) -> String {
        Relation {
            uid: self.uid.clone(),
            file_name: self.file_name.clone(),
            display_name: self.display_name.clone(),
            quantity: None,
            reference_designator: None,
        }
        .title()
    }

    /// The nodes of this tree, this one first, depth first, each with its depth (the root 0).
    pub fn flatten(&self) -> Vec<(usize, &RelationNode)> {
        let mut nodes = Vec::new();
        let mut stack = vec![(0, self)];
        while let Some((depth, node)) = stack.pop() {
            nodes.push((depth, node));
            stack.extend(node.related.iter().rev().map(|child| (depth + 1, child)));
        }
        nodes
    }
}

/// A finished walk.
#[derive(Clone, Debug, PartialEq)]
pub struct RelationTree {
    /// The file the walk started from, with everything reached from it.
    pub root: RelationNode,
    /// Records read.
    pub records_read: usize,
    /// True when a limit stopped a branch (the tree is incomplete).
    pub cut_short: bool,
}

/// The state of one walk: the records read so far, each once.
struct Walk<'a> {
    client: &'a ApiClient,
    direction: WalkDirection,
    limits: WalkLimits,
    records: HashMap<FileUid, Option<FileMap>>,
    cut_short: bool,
}

impl Walk<'_> {
    /// The record of `uid`, read once; `None` when it does not exist.
    async fn record(&mut self, uid: &FileUid) -> Result<Option<FileMap>, ApiError> {
        if let Some(known) = self.records.get(uid) {
            return Ok(known.clone());
        }
        let read = match self
            .client
            .get_file(&GetFileRequest::new(FileRef::Uid(uid.clone())))
            .await
        {
            Ok(record) => Some(record),
            Err(ApiError::NotFound { .. }) => None,
            Err(error) => return Err(error),
        };
        self.records.insert(uid.clone(), read.clone());
        Ok(read)
    }

    fn relations_of(&self, record: &FileMap) -> Vec<Relation> {
        match self.direction {
            WalkDirection::Components => record.components(),
            WalkDirection::UsedIn => record.used_in(),
        }
    }

    /// The nodes related to `record`, found `depth` levels from the root, whose path from the root
    /// is `path` (for cycles). Iterative over levels would lose the tree's shape, so this recurses,
    /// boxed; the depth limit bounds it.
    fn related<'b>(
        &'b mut self,
        record: &'b FileMap,
        depth: usize,
        path: &'b mut Vec<FileUid>,
    ) -> futures_util::future::BoxFuture<'b, Result<Vec<RelationNode>, ApiError>> {
        Box::pin(async move {
            let mut nodes = Vec::new();
            for relation in self.relations_of(record) {
                let mut node = RelationNode {
                    uid: relation.uid.clone(),
                    file_name: relation.file_name.clone(),
                    display_name: relation.display_name.clone(),
                    thumbnail_url: String::new(),
                    quantity: relation.quantity,
                    reference_designator: relation.reference_designator.clone(),
                    related: Vec::new(),
                    stop: None,
                };
                if path.contains(&relation.uid) {
                    node.stop = Some(WalkStop::Cycle);
                    self.cut_short = true;
                } else if !self.records.contains_key(&relation.uid)
                    && self.records.len() >= self.limits.max_records
                {
                    node.stop = Some(WalkStop::Records);
                    self.cut_short = true;
                } else {
                    match self.record(&relation.uid).await? {
                        None => node.stop = Some(WalkStop::Missing),
                        Some(child) => {
                            fill_from_record(&mut node, &child);
                            if depth + 1 >= self.limits.max_depth {
                                if !self.relations_of(&child).is_empty() {
                                    node.stop = Some(WalkStop::Depth);
                                    self.cut_short = true;
                                }
                            } else {
                                path.push(relation.uid.clone());
                                node.related = self.related(&child, depth + 1, path).await?;
                                path.pop();
                            }
                        }
                    }
                }
                nodes.push(node);
            }
            Ok(nodes)
        })
    }
}

/// Takes a node's names and thumbnail from its record (the record knows better than the entry).
fn fill_from_record(node: &mut RelationNode, record: &FileMap) {
    if !record.file_name.is_empty() {
        node.file_name = record.file_name.clone();
    }
    if !record.display_name.is_empty() {
        node.display_name = record.display_name.clone();
    }
    node.thumbnail_url = record.thumbnail_url.trim().to_owned();
}

impl Walk<'_> {
    /// The tree below (or above) `root_record` in the walk's direction.
    async fn tree(&mut self, root_record: &FileMap) -> Result<RelationTree, ApiError> {
        let root_uid = root_record.file_uid();
        self.records
            .insert(root_uid.clone(), Some(root_record.clone()));
        self.cut_short = false;
        let mut root = RelationNode {
            uid: root_uid.clone(),
            file_name: String::new(),
            display_name: String::new(),
            thumbnail_url: String::new(),
            quantity: None,
            reference_designator: None,
            related: Vec::new(),
            stop: None,
        };
        fill_from_record(&mut root, root_record);
        if self.limits.max_depth == 0 {
            root.stop = Some(WalkStop::Depth);
            self.cut_short = !self.relations_of(root_record).is_empty();
        } else {
            let mut path = vec![root_uid];
            root.related = self.related(root_record, 0, &mut path).await?;
        }
        Ok(RelationTree {
            root,
            records_read: self.records.len(),
            cut_short: self.cut_short,
        })
    }
}

impl ApiClient {
    /// Walks the relations of `file` in `direction` within `limits`: the file's components and
    /// theirs, or the assemblies that use it up to the top ones. The file itself must exist (404
    /// otherwise); related files that do not are listed as missing.
    pub async fn relation_tree(
        &self,
        file: &FileRef,
        direction: WalkDirection,
        limits: WalkLimits,
    ) -> Result<RelationTree, ApiError> {
        let root_record = self.get_file(&GetFileRequest::new(file.clone())).await?;
        let mut walk = Walk {
            client: self,
            direction,
            limits,
            records: HashMap::new(),
            cut_short: false,
        };
        walk.tree(&root_record).await
    }

    /// Both walks of `file` (its components, then where it is used), each record read once for
    /// both: the detail's tree and *Used in* list. [`WalkLimits::max_records`] counts the records
    /// of both.
    pub async fn relation_trees(
        &self,
        file: &FileRef,
        limits: WalkLimits,
    ) -> Result<(RelationTree, RelationTree), ApiError> {
        let root_record = self.get_file(&GetFileRequest::new(file.clone())).await?;
        let mut walk = Walk {
            client: self,
            direction: WalkDirection::Components,
            limits,
            records: HashMap::new(),
            cut_short: false,
        };
        let components = walk.tree(&root_record).await?;
        walk.direction = WalkDirection::UsedIn;
        let used_in = walk.tree(&root_record).await?;
        Ok((components, used_in))
    }
}
