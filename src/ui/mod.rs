//! The egui views of the desktop app, one file a view. Only `main.rs` uses this module.
//!
//! [`App`] is the shell (the [`Place`] shown, login modal, drop overlay, command drain). Views read
//! state, send work for the task layer as [`partlens_tasks::Command`]s through the [`CommandQueue`],
//! return intents for where they lead, and never await. Shared pieces: [`picture`] (pictures from
//! the texture cache), [`load_state`] (loading something about one file), [`drafts`] (unsaved work
//! kept per file).

pub mod app;
pub mod app_command;
pub mod assembly_relations;
pub mod attributes;
pub mod callbacks_card;
pub mod columns;
pub mod compare;
pub mod detail;
pub mod detail_intent;
pub mod detail_model;
pub mod drafts;
pub mod drop_overlay;
pub mod duplicates;
pub mod elide;
pub mod file_browser;
pub mod history;
pub mod jobs;
pub mod keyboard;
pub mod library;
pub mod library_sync;
pub mod load_state;
pub mod login;
pub mod model_view;
pub mod notices;
pub mod picture;
pub mod place;
pub mod pmi;
pub mod results;
pub mod search_bar;
pub mod search_place;
pub mod settings;
pub mod shortcuts;
pub mod text_value;
pub mod texture_cache;
pub mod theme;
pub mod top_bar;
pub mod upload;
#[cfg(test)]
mod view_harness;

pub use app::{App, AppOptions, ConnectionState};
pub use app_command::{AppCommand, CommandQueue};
pub use place::Place;
pub use settings::Settings;
