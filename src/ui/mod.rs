//! The egui views of the desktop app, one file a view. Only `main.rs` uses this module.

pub mod attributes;
pub mod detail;
pub mod results;
pub mod search_bar;
pub mod texture_cache;
