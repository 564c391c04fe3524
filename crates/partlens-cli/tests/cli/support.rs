//! Running the built `partlens-cli` as a user or a script runs it, for the CLI tests (`commands.rs`
//! against the wire-checking server, `against_service.rs` against the real service): [`Cli`] builds one
//! invocation like a command line, [`Cli::run`] runs it and checks the output contract, [`Run`] is
//! what it printed and returned.
//!
//! The contract every checked run keeps: at most one line of JSON on stdout; nothing on stderr on
//! success; on failure exit status 1 and exactly one `partlens-cli: …` line on stderr, never a
//! panic; and none of the secrets the test names ([`Cli::never_prints`]) anywhere.

// Each test binary uses a different part of these helpers; they are test code, where a failed step
// should panic (clippy's allow-unwrap-in-tests does not reach helper modules of integration tests).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use partlens_testkit::service::TestService;
use serde_json::Value;

/// One invocation of the binary, built up like a command line.
pub struct Cli {
    command: Command,
    stdin: Option<String>,
    secrets: Vec<String>,
}

/// What an invocation printed and returned.
#[derive(Debug)]
pub struct Run {
    /// The exit status (-1 when the process was killed by a signal).
    pub code: i32,
    /// Everything printed on stdout.
    pub stdout: String,
    /// Everything printed on stderr.
    pub stderr: String,
}

impl Cli {
    /// The binary with no PARTLENS_* variables at all.
    pub fn bare() -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_partlens-cli"));
        for (key, _) in std::env::vars() {
            if key.starts_with("PARTLENS_") {
                command.env_remove(key);
            }
        }
        Self {
            command,
            stdin: None,
            secrets: Vec::new(),
        }
    }

    /// The binary talking to `service` as `user` with `password`, all through the environment,
    /// polling every `poll_ms` milliseconds.
    pub fn logged_in(service: &str, user: &str, password: &str, poll_ms: u32) -> Self {
        Self::bare()
            .env("PARTLENS_SERVICE", service)
            .env("PARTLENS_USER", user)
            .env("PARTLENS_PASSWORD", password)
            .env("PARTLENS_POLL_MS", &poll_ms.to_string())
    }

    /// A checked run fails when `secret` shows on stdout or stderr.
    pub fn never_prints(mut self, secret: &str) -> Self {
        self.secrets.push(secret.to_owned());
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.command.env(key, value);
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(mut self, key: &str) -> Self {
        self.command.env_remove(key);
        self
    }

    /// Gives the binary `text` on stdin (else stdin is empty).
    pub fn stdin(mut self, text: &str) -> Self {
        self.stdin = Some(text.to_owned());
        self
    }

    /// Starts the binary and returns at once, its output piped (to be killed mid-run, or waited
    /// for with `wait_with_output`).
    pub fn spawn(mut self) -> std::process::Child {
        self.command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs without checking the output contract (for clap's own usage errors and help).
    pub fn run_raw(mut self) -> Run {
        self.command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.command.spawn().unwrap();
        if let Some(text) = &self.stdin {
            // Dropping the handle closes the pipe, so the binary sees the end of its input.
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(text.as_bytes()).unwrap();
        }
        let output = child.wait_with_output().unwrap();
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    /// Runs and checks the output contract (see the module doc).
    pub fn run(self) -> Run {
        let secrets = self.secrets.clone();
        let run = self.run_raw();
        for secret in &secrets {
            assert!(!run.stdout.contains(secret), "secret on stdout: {run:?}");
            assert!(!run.stderr.contains(secret), "secret on stderr: {run:?}");
        }
        assert!(
            run.stdout.is_empty()
                || (run.stdout.ends_with('\n') && run.stdout.lines().count() == 1),
            "stdout is not one line: {run:?}"
        );
        if run.code == 0 {
            assert!(run.stderr.is_empty(), "stderr on success: {run:?}");
        } else {
            assert_eq!(run.code, 1, "{run:?}");
            assert_eq!(
                run.stderr.lines().count(),
                1,
                "stderr is not one line: {run:?}"
            );
            assert!(run.stderr.starts_with("partlens-cli: "), "{run:?}");
            assert!(!run.stderr.contains("panicked"), "{run:?}");
        }
        run
    }
}

impl Run {
    /// The stdout JSON of a successful run.
    #[track_caller]
    pub fn ok_json(&self) -> Value {
        assert_eq!(self.code, 0, "{self:?}");
        serde_json::from_str(&self.stdout).unwrap()
    }

    /// The stdout JSON of a run that printed a result and then failed.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap()
    }

    /// The stderr line of a failed run.
    #[track_caller]
    pub fn error(&self) -> &str {
        assert_eq!(self.code, 1, "{self:?}");
        self.stderr.trim_end()
    }

    /// The stderr line of a run the service refused with `status`, which the line names; nothing
    /// was printed on stdout.
    #[track_caller]
    pub fn refused(&self, status: u16) -> &str {
        let line = self.error();
        assert!(line.contains(&format!("(HTTP {status})")), "{line}");
        assert!(self.stdout.is_empty(), "{self:?}");
        line
    }

    /// The stderr line of a run refused before anything was sent: no HTTP status in it.
    #[track_caller]
    pub fn refused_locally(&self) -> &str {
        let line = self.error();
        assert!(!line.contains("HTTP"), "{line}");
        assert!(self.stdout.is_empty(), "{self:?}");
        line
    }
}

/// A path as a command-line argument.
pub fn path_arg(path: &Path) -> String {
    path.display().to_string()
}

/// A two-thread runtime and a service started on it (the sync tests' set-up).
pub fn runtime_with_service() -> (tokio::runtime::Runtime, TestService) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let service = runtime.block_on(TestService::start());
    (runtime, service)
}
