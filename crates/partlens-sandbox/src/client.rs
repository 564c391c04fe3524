//! The parent's side: [`Sandbox`] starts one worker process a read (so that every file gets fresh
//! limits and a crash or a limit takes down only that worker), hands it the bytes, waits for the
//! reply within the wall-clock limit or until the caller cancels, and kills it otherwise. Blocking:
//! call it from a blocking thread.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::limits::{ReaderLimits, bytes_in_words, duration_in_words};
use super::wire::{GREETING, Outcome, Reply, Request};
use super::worker::WORKER_SUBCOMMAND;

/// How often a waiting parent looks at the worker, the clock and the cancel flag.
const POLL: Duration = Duration::from_millis(10);
/// Most bytes of a reply read back (a reduced mesh and two images are far smaller).
const MAX_REPLY_BYTES: u64 = 512 * 1024 * 1024;
/// How much of the worker's standard error is kept, from its end.
const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// How to start workers, and their limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandbox {
    program: PathBuf,
    limits: ReaderLimits,
}

/// Why a read in a worker gave no reply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SandboxFailure {
    /// The read took longer than the wall-clock limit; the worker was killed.
    #[error(
        "reading it took longer than the reader's time limit of {limit}; the worker was stopped (if the \
         file is sound, raise the reader time limit, or save it again from its CAD program)",
        limit = duration_in_words(*.0)
    )]
    TimeLimit(Duration),
    /// The read used more CPU time than its limit.
    #[error(
        "reading it used more than the reader's CPU-time limit of {limit}; the worker was stopped (if \
         the file is sound, raise the reader CPU limit)",
        limit = duration_in_words(*.0)
    )]
    CpuLimit(Duration),
    /// The read needed more memory than its limit.
    #[error(
        "reading it needed more than the reader's memory limit of {limit}; the worker was stopped (if \
         the machine has the memory, raise the reader memory limit, or simplify the model)",
        limit = bytes_in_words(*.0)
    )]
    MemoryLimit(u64),
    /// The worker ended without a reply: a crash inside a reader (a segmentation fault in native
    /// code, an abort, a panic).
    #[error(
        "the reader crashed on it ({how}); the file may be damaged or use something the reader \
         cannot handle: save it again from its CAD program, or report it with the file"
    )]
    Crashed {
        /// The signal or exit code, and the worker's last words.
        how: String,
    },
    /// The worker answered in a form this build does not read: it is another build (a reader
    /// program built before or after this one, named by `PARTLENS_READER_PROGRAM` or found beside
    /// a test program).
    #[error(
        "the reader program {program} is another build (its answer does not decode: {reason}); \
         build both from one source, or set PARTLENS_READER_PROGRAM to this build's program"
    )]
    OtherBuild {
        /// The reader program.
        program: String,
        /// What did not decode.
        reason: String,
    },
    /// The caller cancelled (the service is stopping, the slot was given to another company).
    #[error("the read was cancelled")]
    Cancelled,
    /// The worker could not be started, or is not a partlens reader.
    #[error(
        "the reader could not be started ({0}); check the reader program setting (PARTLENS_READER_PROGRAM)"
    )]
    CannotStart(String),
}

/// A finished read: the worker's outcome and its peak memory.
#[derive(Debug)]
pub struct Finished {
    /// What the worker read.
    pub outcome: Outcome,
    /// The worker's peak resident memory, bytes (0 when unknown).
    pub peak_memory_bytes: u64,
    /// How long the read took, the worker's start included.
    pub elapsed: Duration,
}

impl Sandbox {
    /// Workers are `program read-worker …` with `limits`; `program` must call
    /// [`crate::run_if_requested`] first thing.
    pub fn new(program: impl Into<PathBuf>, limits: ReaderLimits) -> Self {
        Self {
            program: program.into(),
            limits,
        }
    }

    /// Workers are this very program (which calls [`crate::run_if_requested`]), the same build
    /// even once its file on disk has been replaced (see [`crate::default_program`]).
    pub fn this_program(limits: ReaderLimits) -> std::io::Result<Self> {
        Ok(Self::new(crate::worker::this_program()?, limits))
    }

    /// The program workers run.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The limits of every read.
    pub fn limits(&self) -> ReaderLimits {
        self.limits
    }

    /// Runs `request` in a new worker; `cancelled` is asked every few milliseconds and stops the
    /// read (the worker is killed) when it says so.
    pub fn run(
        &self,
        request: &Request,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Finished, SandboxFailure> {
        let started = Instant::now();
        let message = postcard::to_stdvec(request)
            .map_err(|error| SandboxFailure::CannotStart(format!("request: {error}")))?;
        let mut command = Command::new(&self.program);
        name_the_process(&mut command, &self.program);
        let mut child = command
            .arg(WORKER_SUBCOMMAND)
            .arg("--memory-bytes")
            .arg(self.limits.memory_bytes.to_string())
            .arg("--cpu-seconds")
            .arg(self.limits.cpu.as_secs().max(1).to_string())
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| {
                SandboxFailure::CannotStart(format!("{}: {error}", self.program.display()))
            })?;
        let pipes = Pipes::start(&mut child, message);
        // A killed worker's pipe threads are left to end on their own (they do once every holder
        // of the pipes has gone), so that nothing the worker left behind can keep the caller.
        let status = match self.wait(&mut child, started, cancelled) {
            Ended::Exited(status) => status,
            Ended::TimedOut => return Err(SandboxFailure::TimeLimit(self.limits.time)),
            Ended::Cancelled => return Err(SandboxFailure::Cancelled),
        };
        let (stdout, stderr) = pipes.finish();
        let Some(reply) = stdout.strip_prefix(GREETING) else {
            return Err(self.without_reply(status, &stderr, stdout.is_empty()));
        };
        match postcard::from_bytes::<Reply>(reply) {
            Ok(reply) if status.success() => Ok(Finished {
                outcome: reply.outcome,
                peak_memory_bytes: reply.peak_memory_bytes,
                elapsed: started.elapsed(),
            }),
            _ => Err(self.without_reply(status, &stderr, false)),
        }
    }

    /// Waits for the worker to end, killing it at the wall-clock limit or on cancel.
    fn wait(&self, child: &mut Child, started: Instant, cancelled: &dyn Fn() -> bool) -> Ended {
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ended::Exited(status),
                Ok(None) => {}
                Err(_) => {
                    kill(child);
                    return Ended::Cancelled;
                }
            }
            if cancelled() {
                kill(child);
                return Ended::Cancelled;
            }
            if started.elapsed() >= self.limits.time {
                kill(child);
                return Ended::TimedOut;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Why a worker that ended gave no reply: a limit the kernel enforced, or a crash.
    fn without_reply(&self, status: ExitStatus, stderr: &[u8], silent: bool) -> SandboxFailure {
        let words = String::from_utf8_lossy(stderr);
        let out_of_memory = words.contains("memory allocation of")
            || words.contains("bad_alloc")
            || words.contains("Out of memory")
            || words.contains("out of memory")
            || words.contains("Standard_OutOfMemory");
        if out_of_memory {
            return SandboxFailure::MemoryLimit(self.limits.memory_bytes);
        }
        let signal = signal_of(status);
        // SIGXCPU at the soft CPU limit (its default action ends the worker).
        if signal == Some(24) {
            return SandboxFailure::CpuLimit(self.limits.cpu);
        }
        if silent && status.code() == Some(0) {
            return SandboxFailure::CannotStart(format!(
                "{} is not a partlens reader worker",
                self.program.display()
            ));
        }
        let last_words = words
            .lines()
            .map(str::trim)
            .rfind(|line| !line.is_empty())
            .map(|line| line.chars().take(160).collect::<String>());
        let how = match (signal, status.code()) {
            (Some(signal), _) => format!("signal {signal}{}", signal_name(signal)),
            (None, Some(code)) => format!("exit code {code}"),
            (None, None) => "no exit status".to_owned(),
        };
        SandboxFailure::Crashed {
            how: match last_words {
                Some(words) => format!("{how}: {words}"),
                None => how,
            },
        }
    }
}

/// How the wait ended.
enum Ended {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
}

/// Kills the worker and reaps it.
fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The threads that feed the worker's standard input and drain its output, so that neither side
/// blocks on a full pipe.
struct Pipes {
    stdin: Option<std::thread::JoinHandle<()>>,
    stdout: Option<std::thread::JoinHandle<Vec<u8>>>,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
}

impl Pipes {
    fn start(child: &mut Child, message: Vec<u8>) -> Self {
        let stdin = child.stdin.take().map(|mut pipe| {
            std::thread::spawn(move || {
                // A worker that ends early closes the pipe: its exit status says why.
                let _ = pipe.write_all(&message);
            })
        });
        let stdout = child.stdout.take().map(|pipe| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.take(MAX_REPLY_BYTES).read_to_end(&mut bytes);
                bytes
            })
        });
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut tail = Vec::new();
                let mut chunk = [0_u8; 4096];
                while let Ok(read) = pipe.read(&mut chunk) {
                    if read == 0 {
                        break;
                    }
                    tail.extend_from_slice(&chunk[..read]);
                    if tail.len() > STDERR_TAIL_BYTES {
                        tail.drain(..tail.len() - STDERR_TAIL_BYTES);
                    }
                }
                tail
            })
        });
        Self {
            stdin,
            stdout,
            stderr,
        }
    }

    /// The worker's output once it has ended (its pipes are closed then).
    fn finish(self) -> (Vec<u8>, Vec<u8>) {
        if let Some(stdin) = self.stdin {
            let _ = stdin.join();
        }
        let stdout = self
            .stdout
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        let stderr = self
            .stderr
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        (stdout, stderr)
    }
}

/// A worker started from this program's own executable ([`crate::worker::this_program`]) is
/// listed under this program's name (`partlens-service read-worker …` in `ps`), not as
/// `/proc/self/exe`.
#[cfg(unix)]
fn name_the_process(command: &mut Command, program: &Path) {
    use std::os::unix::process::CommandExt as _;
    if program == Path::new(crate::worker::THIS_EXECUTABLE)
        && let Some(name) = std::env::current_exe()
            .ok()
            .and_then(|this| this.file_name().map(std::ffi::OsStr::to_owned))
    {
        command.arg0(name);
    }
}

#[cfg(not(unix))]
fn name_the_process(_command: &mut Command, _program: &Path) {}

#[cfg(unix)]
fn signal_of(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal_of(_status: ExitStatus) -> Option<i32> {
    None
}

/// The usual name of a signal, for the reason.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => ", SIGILL",
        6 => ", SIGABRT",
        7 => ", SIGBUS",
        8 => ", SIGFPE",
        9 => ", SIGKILL: killed by the system, often for lack of memory",
        11 => ", SIGSEGV",
        _ => "",
    }
}
