//! The engine's integration tests, one binary: photographs find their model (a fixed slice of the
//! project's photo → model quality set).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod photo_to_model;
mod quality_set;
