//! The egui views of the desktop app, one file a view. Only `main.rs` uses this module.
//!
//! [`App`] is the shell (navigation, login modal, drop overlay, command drain); the views push
//! [`AppCommand`]s and read state, and never await.

pub mod app;
pub mod app_command;
pub mod attributes;
pub mod detail;
pub mod drop_overlay;
pub mod jobs;
pub mod login;
pub mod navigation;
pub mod notices;
pub mod pmi;
pub mod results;
pub mod search_bar;
pub mod search_place;
pub mod settings;
pub mod texture_cache;
pub mod theme;
pub mod top_bar;
pub mod upload;
#[cfg(test)]
mod view_harness;

pub use app::{App, AppOptions, ConnectionState};
pub use app_command::{AppCommand, CommandQueue};
pub use navigation::View;
pub use settings::Settings;
