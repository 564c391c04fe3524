//! The sample library: its manifest ([`SampleManifest`], always built: the local workspace seeds a
//! new workspace from it) and the generators that draw it ([`parts`]: pictures of synthetic parts;
//! [`drawings`]: DXF and PDF drawings) and what the engine's scores mean on it ([`calibration`]);
//! the fixed split of the real-world corpus into a tuning and a held-out half ([`corpus_halves`]);
//! and the large synthetic libraries for measuring search at scale ([`synthetic_views`]: perturbed
//! copies of analysed part pictures; [`model_view_sets`]: synthetic models blended from the
//! real corpus's models direction by direction; [`large_library`]: a whole company library written straight
//! into a store).
//!
//! The generators serve the tests, the benchmark and the `examples/make_sample*.rs` programs that
//! write `assets/samples/`; the shipped programs never draw a sample, so they are built only for
//! tests and with the `samples` feature (which `cargo test`, `cargo bench` and
//! `cargo build --examples` turn on through the package's dev-dependency on itself).

mod manifest;

#[cfg(any(test, feature = "samples"))]
pub mod calibration;
#[cfg(any(test, feature = "samples"))]
pub mod corpus_halves;
#[cfg(any(test, feature = "samples"))]
pub mod drawings;
#[cfg(any(test, feature = "samples"))]
pub mod model_view_sets;
#[cfg(any(test, feature = "samples"))]
pub mod parts;
#[cfg(any(test, feature = "samples"))]
pub mod synthetic_views;

pub use manifest::{MANIFEST_FILE_NAME, SampleManifest, SamplePart, read_manifest, write_manifest};
