//! The desktop app's integration tests, one binary: the app driven with egui_kittest against the
//! service on 127.0.0.1:0, the programs' packaging, the score calibration table.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod assembly;
mod bad_files;
mod basics;
mod callbacks;
mod duplicates;
mod file_dialogs;
mod first_run;
mod keyboard;
mod library;
mod mirrored_parts;
mod packaging;
mod pages;
mod pmi_review;
mod results_order;
mod score_calibration;
mod score_scale;
mod search;
mod service_away;
mod sketch_history;
mod support;
mod sync;
mod text;
mod viewer;
mod window_sizes;
