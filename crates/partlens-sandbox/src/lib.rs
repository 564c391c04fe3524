//! Reading models and drawings in a worker process with hard limits enforced by the operating
//! system, so that no file (a STEP that sends a reader into a loop, a mesh that asks for gigabytes,
//! a crash inside OpenCASCADE) can hang, exhaust or take down the service or the app.
//!
//! The parent ([`Sandbox`], in `client.rs`) starts one worker a read: the same program, run with
//! the hidden subcommand `read-worker` ([`run_if_requested`], in `worker.rs`, which every program
//! that reads files calls first in `main`). The worker sets its own memory and CPU-time limits with
//! `setrlimit` before it reads a byte; the parent kills it at the wall-clock limit or when the
//! caller cancels. Request and reply cross the worker's standard input and output (`wire.rs`).
//! Limits and their defaults: [`ReaderLimits`] (60 s, 2 GiB, 60 s of CPU).
//!
//! How many workers run at once is the caller's business (the service's fair pool, the app's one
//! preview at a time).

mod client;
mod component_reading;
mod components;
mod limits;
pub mod wire;
mod worker;

pub use client::{Finished, Sandbox, SandboxFailure};
pub use component_reading::MAX_COMPONENT_BYTES;
pub use components::{AssemblyComponents, ComponentsRefusal};
pub use limits::{
    DEFAULT_CPU_LIMIT, DEFAULT_MEMORY_LIMIT_BYTES, DEFAULT_TIME_LIMIT, MIN_MEMORY_LIMIT_BYTES,
    ReaderLimits, bytes_in_words, duration_in_words,
};
pub use worker::{
    READER_PROGRAM_VARIABLE, WORKER_SUBCOMMAND, default_program, lower_thread_priority,
    run_if_requested,
};

use wire::{Outcome, PreviewWire, Request};

/// A model's reduced mesh for a preview and the measurements of the whole mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewMesh {
    /// The reduced mesh.
    pub display: partlens_geometry::Mesh,
    /// The measurements of the mesh as read.
    pub measurements: partlens_geometry::MeshMeasurements,
    /// For an assembly, which triangles of `display` are which placed component; empty otherwise.
    pub parts: Vec<partlens_geometry::MeshPart>,
}

#[cfg(feature = "analysis")]
impl Sandbox {
    /// The engine's analysis of a file for `purpose` (what the service indexes), read in a
    /// worker: the engine's answer, or why the worker gave none.
    pub fn analyze(
        &self,
        purpose: partlens_engine::Purpose,
        extension: &str,
        bytes: Vec<u8>,
        extraction: &partlens_engine::ExtractionLimits,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Result<partlens_engine::Analysis, partlens_engine::EngineError>, SandboxFailure>
    {
        self.analyze_measured(purpose, false, extension, bytes, extraction, cancelled)
            .map(|(analysis, _)| analysis)
    }

    /// The engine's text-only analysis of a file ([`partlens_engine::analyze_text_only`]: its
    /// words, nothing meshed or rendered), read in a worker: the engine's answer, or why the
    /// worker gave none.
    pub fn analyze_text_only(
        &self,
        extension: &str,
        bytes: Vec<u8>,
        extraction: &partlens_engine::ExtractionLimits,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Result<partlens_engine::Analysis, partlens_engine::EngineError>, SandboxFailure>
    {
        self.analyze_measured(
            partlens_engine::Purpose::DatabaseFile,
            true,
            extension,
            bytes,
            extraction,
            cancelled,
        )
        .map(|(analysis, _)| analysis)
    }

    /// [`Sandbox::analyze`] of a company-database file, never cancelled, with the worker's peak
    /// memory in bytes (for benchmarks and the corpus test).
    pub fn run_analysis(
        &self,
        extension: &str,
        bytes: Vec<u8>,
        extraction: &partlens_engine::ExtractionLimits,
    ) -> Result<
        (
            Result<partlens_engine::Analysis, partlens_engine::EngineError>,
            u64,
        ),
        SandboxFailure,
    > {
        self.analyze_measured(
            partlens_engine::Purpose::DatabaseFile,
            false,
            extension,
            bytes,
            extraction,
            &|| false,
        )
    }

    fn analyze_measured(
        &self,
        purpose: partlens_engine::Purpose,
        text_only: bool,
        extension: &str,
        bytes: Vec<u8>,
        extraction: &partlens_engine::ExtractionLimits,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<
        (
            Result<partlens_engine::Analysis, partlens_engine::EngineError>,
            u64,
        ),
        SandboxFailure,
    > {
        let request = Request::Analyze {
            extension: extension.to_owned(),
            bytes,
            extraction: wire::ExtractionCaps::from(extraction),
            search_input: purpose == partlens_engine::Purpose::SearchInput,
            text_only,
        };
        let finished = self.run(&request, cancelled)?;
        let peak = finished.peak_memory_bytes;
        match finished.outcome {
            Outcome::Analyzed(analysis) => analysis
                .into_analysis()
                .map(|analysis| (Ok(analysis), peak))
                .map_err(|reason| SandboxFailure::OtherBuild {
                    program: self.program().display().to_string(),
                    reason,
                }),
            Outcome::Refused(error) => Ok((Err(error.into_engine_error(extension)), peak)),
            _ => Err(SandboxFailure::Crashed {
                how: "it answered another question".to_owned(),
            }),
        }
    }
}

impl Sandbox {
    /// A model's mesh reduced to `budget` triangles, read in a worker: the mesh, the reader's
    /// refusal in words, or why the worker gave no answer.
    pub fn preview(
        &self,
        extension: &str,
        bytes: Vec<u8>,
        budget: usize,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Result<PreviewMesh, String>, SandboxFailure> {
        let request = Request::Preview {
            extension: extension.to_owned(),
            bytes,
            budget: budget as u64,
        };
        let finished = self.run(&request, cancelled)?;
        match finished.outcome {
            Outcome::Previewed(preview) => preview_mesh(preview).map(Ok),
            Outcome::PreviewRefused(reason) => Ok(Err(reason)),
            _ => Err(SandboxFailure::Crashed {
                how: "it answered another question".to_owned(),
            }),
        }
    }
}

/// The preview mesh back from its wire form. It crossed a process boundary, so the mesh's
/// invariant (at least one triangle, every index names a vertex) and its parts' (bounded, ranges
/// inside the mesh and in order) are checked before anyone draws it.
fn preview_mesh(wire: PreviewWire) -> Result<PreviewMesh, SandboxFailure> {
    let corners = wire.vertices.len();
    let whole = wire
        .triangles
        .iter()
        .flatten()
        .all(|&corner| usize::try_from(corner).is_ok_and(|corner| corner < corners));
    if wire.triangles.is_empty() || !whole {
        return Err(SandboxFailure::Crashed {
            how: "its mesh does not hold together".to_owned(),
        });
    }
    if let Err(reason) =
        partlens_geometry::assembly::check_mesh_parts(&wire.parts, wire.triangles.len())
    {
        return Err(SandboxFailure::Crashed {
            how: format!("its assembly's parts do not fit its mesh: {reason}"),
        });
    }
    Ok(PreviewMesh {
        display: partlens_geometry::Mesh {
            vertices: wire.vertices,
            triangles: wire.triangles,
        },
        measurements: partlens_geometry::MeshMeasurements {
            bounds: wire.bounds,
            triangles: usize::try_from(wire.triangle_count).unwrap_or(usize::MAX),
            surface_area: wire.surface_area,
            volume: wire.volume,
        },
        parts: wire.parts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(parts: Vec<partlens_geometry::MeshPart>) -> PreviewWire {
        PreviewWire {
            vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            triangles: vec![[0, 1, 2], [0, 2, 1]],
            bounds: [[0.0; 3], [1.0, 1.0, 0.0]],
            triangle_count: 2,
            surface_area: 1.0,
            volume: None,
            parts,
        }
    }

    fn part(name: &str, triangles: std::ops::Range<u32>) -> partlens_geometry::MeshPart {
        partlens_geometry::MeshPart {
            name: name.to_owned(),
            parent: None,
            triangles,
        }
    }

    /// An assembly's parts come through when they fit the mesh; parts that do not (outside it,
    /// overlapping) make the worker's answer a crash, never a preview drawn with them.
    #[test]
    fn a_previews_parts_are_checked_against_its_mesh() {
        let kept = preview_mesh(wire(vec![part("NUT", 0..1), part("BOLT", 1..2)])).unwrap();
        assert_eq!(kept.parts.len(), 2);
        for broken in [
            vec![part("NUT", 0..3)],
            vec![part("NUT", 0..2), part("BOLT", 1..2)],
        ] {
            assert!(matches!(
                preview_mesh(wire(broken)),
                Err(SandboxFailure::Crashed { .. })
            ));
        }
    }
}
