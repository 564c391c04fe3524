//! The worker's side: a program that hosts readers (`partlens-service`, the app) calls
//! [`run_if_requested`] first thing in `main`; when it was started as a worker
//! (`PROGRAM read-worker --memory-bytes N --cpu-seconds N`) it sets its own limits, greets, reads one
//! request from standard input, does it, writes the reply and exits.
//!
//! The limits are set before the request is read, with `setrlimit`: from then on the kernel
//! enforces them on everything in the process, the readers' native code included. Once it has the
//! request, the worker also lowers its scheduling priority (nice 10; 5 for a search input's
//! analysis, which a person waits for while database files are read beside it in a bulk load), so
//! that the service's own requests win the CPU. A read that
//! allocates past the memory limit ends the process (Rust aborts on a failed allocation, C++ throws
//! `bad_alloc`), one past the CPU limit gets `SIGXCPU` and then `SIGKILL`; the parent tells which
//! from the exit status and what the worker wrote on standard error.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use rlimit::Resource;

use super::wire::{GREETING, Outcome, PreviewWire, Reply, Request};

/// The hidden subcommand that makes a program a worker.
pub const WORKER_SUBCOMMAND: &str = "read-worker";

/// The exit code of a worker whose request could not be read or whose reply could not be written.
const BROKEN_PIPE_EXIT: u8 = 3;
/// The exit code of a worker whose limits could not be set (it reads nothing then).
const NO_LIMITS_EXIT: u8 = 4;

/// The environment variable that names the reader program, overriding [`default_program`]'s
/// search.
pub const READER_PROGRAM_VARIABLE: &str = "PARTLENS_READER_PROGRAM";

/// Programs that host workers, looked for beside a program that does not (a test binary).
const HOST_PROGRAMS: &[&str] = &["partlens-service", "partlens"];

/// Set once this program has called [`run_if_requested`]: it can then be its own worker.
static HOSTS_WORKERS: AtomicBool = AtomicBool::new(false);

/// The running program's own executable, as the kernel knows it (Linux): a program started from
/// this path is the very file this process runs, even after the file at its install path was
/// replaced (a package upgraded while the service runs) or rebuilt (`cargo build` under a
/// running service), whose workers would otherwise be another build than their parent.
pub(crate) const THIS_EXECUTABLE: &str = "/proc/self/exe";

/// This program, as a worker of the same build runs it: [`THIS_EXECUTABLE`] where the system has
/// it, else the path it was started from.
pub(crate) fn this_program() -> std::io::Result<PathBuf> {
    let this_executable = std::path::Path::new(THIS_EXECUTABLE);
    if this_executable.is_file() {
        return Ok(this_executable.to_path_buf());
    }
    std::env::current_exe()
}

/// The program workers run when none is configured: [`READER_PROGRAM_VARIABLE`] if set; this
/// program, if it hosts workers (it called [`run_if_requested`]): [`THIS_EXECUTABLE`] where the
/// system has it, so that a worker is always the same build as its parent; else
/// `partlens-service` or `partlens` of the same build, beside this program or one folder up (a
/// test binary in `target/debug/deps`). `None` when there is none.
pub fn default_program() -> Option<PathBuf> {
    if let Some(program) =
        std::env::var_os(READER_PROGRAM_VARIABLE).filter(|value| !value.is_empty())
    {
        return Some(PathBuf::from(program));
    }
    if HOSTS_WORKERS.load(Ordering::Relaxed) {
        return this_program().ok();
    }
    let this = std::env::current_exe().ok()?;
    let beside = this.parent()?;
    [Some(beside), beside.parent()]
        .into_iter()
        .flatten()
        .flat_map(|folder| {
            HOST_PROGRAMS
                .iter()
                .map(move |name| folder.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)))
        })
        .find(|candidate| candidate.is_file())
}

/// When this process was started as a reader worker, does the work and returns the exit code to end
/// with; otherwise `None` and the program goes on as itself (and can be its own worker from now
/// on: see [`default_program`]).
pub fn run_if_requested() -> Option<ExitCode> {
    HOSTS_WORKERS.store(true, Ordering::Relaxed);
    let mut arguments = std::env::args_os().skip(1);
    if arguments.next()? != WORKER_SUBCOMMAND {
        return None;
    }
    let rest: Vec<String> = arguments
        .map(|argument| argument.to_string_lossy().into_owned())
        .collect();
    Some(run_worker(&rest))
}

/// The worker: `--memory-bytes N --cpu-seconds N`, then one request.
fn run_worker(arguments: &[String]) -> ExitCode {
    let value_of = |name: &str| -> Option<u64> {
        let at = arguments.iter().position(|argument| argument == name)?;
        arguments.get(at + 1)?.parse().ok()
    };
    let (Some(memory_bytes), Some(cpu_seconds)) =
        (value_of("--memory-bytes"), value_of("--cpu-seconds"))
    else {
        eprintln!("read-worker: give --memory-bytes N --cpu-seconds N");
        return ExitCode::from(NO_LIMITS_EXIT);
    };
    if let Err(error) = set_limits(memory_bytes, cpu_seconds) {
        eprintln!("read-worker: cannot set the reader's limits: {error}");
        return ExitCode::from(NO_LIMITS_EXIT);
    }
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(GREETING)
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(BROKEN_PIPE_EXIT);
    }
    let mut input = Vec::new();
    if let Err(error) = std::io::stdin().lock().read_to_end(&mut input) {
        // The parent reads these words: past the memory limit, reading the request itself fails.
        if error.kind() == std::io::ErrorKind::OutOfMemory {
            eprintln!("read-worker: out of memory while receiving the file");
        }
        return ExitCode::from(BROKEN_PIPE_EXIT);
    }
    let request: Request = match postcard::from_bytes(&input) {
        Ok(request) => request,
        Err(error) => {
            eprintln!("read-worker: the request does not decode: {error}");
            return ExitCode::from(BROKEN_PIPE_EXIT);
        }
    };
    drop(input);
    lower_priority(niceness_for(&request));
    let outcome = handle(request);
    let reply = Reply {
        outcome,
        peak_memory_bytes: peak_memory_bytes(),
    };
    match postcard::to_stdvec(&reply) {
        Ok(bytes)
            if stdout
                .write_all(&bytes)
                .and_then(|()| stdout.flush())
                .is_ok() =>
        {
            ExitCode::SUCCESS
        }
        _ => ExitCode::from(BROKEN_PIPE_EXIT),
    }
}

/// Sets the memory (data and address space) and CPU-time limits of this process, soft and hard:
/// they cannot be raised again from inside.
fn set_limits(memory_bytes: u64, cpu_seconds: u64) -> std::io::Result<()> {
    Resource::DATA.set(memory_bytes, memory_bytes)?;
    let address_space = super::limits::address_space_for(memory_bytes);
    Resource::AS.set(address_space, address_space)?;
    // SIGXCPU at the soft limit (its default action ends the process), SIGKILL a second later.
    Resource::CPU.set(cpu_seconds.max(1), cpu_seconds.max(1) + 1)?;
    // A crash leaves no core file behind in the service's folder.
    Resource::CORE.set(0, 0)?;
    Ok(())
}

/// How much lower than its parent a worker runs (`nice`): reads are background work, and the
/// service's own requests (searches, pictures decoded in the service) should win the CPU.
const WORKER_NICENESS: i32 = 10;

/// How much lower than its parent a worker analysing a search input runs: above the other reads
/// (a bulk load's database files, background indexing), about three times their share of a busy
/// core (the kernel's weights for nice 5 and 10), still below the service's own requests.
const SEARCH_INPUT_NICENESS: i32 = 5;

/// Lowers the calling thread's scheduling priority to a background read's ([`WORKER_NICENESS`]
/// below what it had): for background work of the service itself (the pairing of indexed files
/// with their duplicates), so that a search input's read goes first. On Linux the nice value is
/// a thread's, so the rest of the process keeps its own; a thread cannot raise it again without
/// privilege, so give the work a thread of its own. A failure leaves the priority as it is.
pub fn lower_thread_priority() {
    lower_priority(WORKER_NICENESS);
}

/// How much lower than its parent the worker for `request` runs.
fn niceness_for(request: &Request) -> i32 {
    match request {
        Request::Analyze {
            search_input: true, ..
        } => SEARCH_INPUT_NICENESS,
        _ => WORKER_NICENESS,
    }
}

/// Lowers this process's scheduling priority by `niceness`; a failure leaves it as it is.
#[cfg(unix)]
#[allow(unsafe_code)]
fn lower_priority(niceness: i32) {
    // SAFETY: setpriority takes plain integers and touches no memory of ours; who = 0 is this
    // process. Raising the nice value needs no privilege.
    let current = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, current + niceness) };
}

#[cfg(not(unix))]
fn lower_priority(_niceness: i32) {}

/// Does one request.
fn handle(request: Request) -> Outcome {
    match request {
        #[cfg(feature = "analysis")]
        Request::Analyze {
            extension,
            bytes,
            extraction,
            search_input,
            text_only,
        } => {
            let limits = partlens_engine::ExtractionLimits::from(extraction);
            let purpose = if search_input {
                partlens_engine::Purpose::SearchInput
            } else {
                partlens_engine::Purpose::DatabaseFile
            };
            let analysis = if text_only {
                partlens_engine::analyze_text_only(&extension, &bytes, &limits)
            } else {
                partlens_engine::analyze_for(purpose, &extension, &bytes, &limits)
            };
            match analysis {
                Ok(analysis) => {
                    Outcome::Analyzed(super::wire::AnalysisWire::from_analysis(analysis))
                }
                Err(error) => Outcome::Refused(error.into()),
            }
        }
        #[cfg(not(feature = "analysis"))]
        Request::Analyze { .. } => Outcome::Refused(super::wire::EngineErrorWire::Other(
            "this program's reader workers read model previews only".to_owned(),
        )),
        Request::Preview {
            extension,
            bytes,
            budget,
        } => match preview(&extension, &bytes, budget) {
            Ok(preview) => Outcome::Previewed(preview),
            Err(reason) => Outcome::PreviewRefused(reason),
        },
        Request::Components { bytes } => super::component_reading::read_components(&bytes),
    }
}

/// Reads a model and reduces it for display (an assembly part by part, its parts kept).
fn preview(extension: &str, bytes: &[u8], budget: u64) -> Result<PreviewWire, String> {
    let reading = partlens_geometry::read_model(extension, bytes);
    let mesh = reading.mesh.map_err(|error| error.to_string())?;
    let parts = reading
        .assembly
        .map(|tree| tree.mesh_parts())
        .unwrap_or_default();
    let measurements = partlens_geometry::MeshMeasurements::of(&mesh)
        .ok_or_else(|| "the mesh has no triangles".to_owned())?;
    let budget = usize::try_from(budget).unwrap_or(usize::MAX);
    let (display, parts) = partlens_geometry::decimate_parts(&mesh, &parts, budget);
    drop(mesh);
    Ok(PreviewWire {
        vertices: display.vertices,
        triangles: display.triangles,
        bounds: measurements.bounds,
        triangle_count: measurements.triangles as u64,
        surface_area: measurements.surface_area,
        volume: measurements.volume,
        parts,
    })
}

/// This process's peak resident memory from `/proc/self/status` (`VmHWM`), in bytes; 0 elsewhere.
fn peak_memory_bytes() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyze(search_input: bool) -> Request {
        Request::Analyze {
            extension: ".stl".into(),
            bytes: Vec::new(),
            extraction: crate::wire::ExtractionCaps {
                max_text_bytes: 1,
                max_pmi_items: 1,
                max_image_pixels: 1,
                max_pictured_pixels: 1,
            },
            search_input,
            text_only: false,
        }
    }

    #[test]
    fn a_search_input_is_read_above_the_other_reads_and_below_the_service() {
        let search_input = niceness_for(&analyze(true));
        let database_file = niceness_for(&analyze(false));
        let preview = niceness_for(&Request::Preview {
            extension: ".stl".into(),
            bytes: Vec::new(),
            budget: 1,
        });
        assert!(0 < search_input && search_input < database_file);
        assert_eq!(database_file, WORKER_NICENESS);
        assert_eq!(preview, WORKER_NICENESS);
    }
}
