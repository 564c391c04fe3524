//! Parent/child relations between files: a `.zip` bundle and the records of its entries today, an
//! assembly and its components next. One relation is one row: the parent, the child, how many of
//! the child the parent holds, an optional reference designator and the child's place among the
//! parent's children. A relation goes with either file (the rows cascade on delete).

/// One child of a parent, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRelation {
    /// The child file's UID.
    pub child_uid: String,
    /// How many of the child the parent holds (at least 1).
    pub quantity: i64,
    /// The reference designator (an assembly's `R12`, `U3`), if any.
    pub reference: Option<String>,
}

/// How many relations one file has on each side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelationCount {
    /// Relations in which it is the parent (its components, a bundle's entries).
    pub children: u32,
    /// Relations in which it is the child (the assemblies or bundles that hold it).
    pub parents: u32,
}

/// One stored relation, read from either side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// The parent file's UID.
    pub parent_uid: String,
    /// The child file's UID.
    pub child_uid: String,
    /// How many of the child the parent holds.
    pub quantity: i64,
    /// The reference designator, if any.
    pub reference: Option<String>,
    /// The child's place among the parent's children, from 0.
    pub position: i64,
}
