//! The async task layer between the front ends (app, CLI) and the wire layer: workflows that take
//! several calls (upload → index → poll, search by views), cancellation, progress reporting.

pub mod poll;
pub mod search_flow;
pub mod thumbnails;
pub mod view_search;
