//! The local service: a complete, persistent implementation of the File Indexing and Search Service
//! interface (HTTP routes, storage, users and companies, indexing queue, search), used as the app's
//! local workspace and by the tests. It depends only on the shared wire types of `crate::api`.

pub mod engine;
