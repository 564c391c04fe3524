//! Cold start: the time from starting the `partlens` program to its first painted frame, next to an
//! empty eframe window (the same window options, nothing in it) measured in the same run, so the
//! ratio says what partlens adds to what any eframe app on this machine costs.
//!
//! Each round starts the empty window, then partlens on a new data folder (a first run: the local
//! workspace created and its sample library added, which should all happen after the first frame),
//! then partlens again on that folder. A program reports its first frame through
//! `PARTLENS_REPORT_FIRST_FRAME=1` (see `partlens::desktop::FirstFrameReport`) and closes; the time
//! is taken here, from the spawn to the report's line, and the program's own count from its `main`
//! is printed beside it.
//!
//! Needs a display: `DISPLAY` as it is, else an `Xvfb` of its own when the program is installed;
//! without either it says so and measures nothing. Run with
//! `cargo bench -p partlens --bench cold_start` (or `cargo test -p partlens --bench cold_start` for
//! a debug build, whose numbers are for comparison within the run only); `PARTLENS_COLD_ROUNDS`
//! sets the rounds (7).

// A bench: a failure to start a program or read its report ends it with the reason.
#![allow(clippy::expect_used)]

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use partlens::desktop::{FIRST_FRAME_LINE, FirstFrameReport, REPORT_FIRST_FRAME_ENV};

/// The argument that makes this program the empty window instead of the bench.
const EMPTY_WINDOW_ARGUMENT: &str = "--empty-window";

/// Longest wait for a program's first frame.
const FIRST_FRAME_WAIT: Duration = Duration::from_secs(60);

/// Longest wait for a program to close after its report.
const CLOSE_WAIT: Duration = Duration::from_secs(20);

fn main() {
    let started = Instant::now();
    if std::env::args().any(|argument| argument == EMPTY_WINDOW_ARGUMENT) {
        run_empty_window(started);
        return;
    }
    let display = match Display::find() {
        Ok(display) => display,
        Err(reason) => {
            println!("cold_start: skipped, {reason}");
            return;
        }
    };
    let rounds: usize = std::env::var("PARTLENS_COLD_ROUNDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(7)
        .max(1);
    let partlens = PathBuf::from(env!("CARGO_BIN_EXE_partlens"));
    let this = std::env::current_exe().expect("the bench's own path");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/samples");
    let mut empty = Vec::new();
    let mut first_run = Vec::new();
    let mut again = Vec::new();
    for round in 0..rounds {
        let data = tempfile::tempdir().expect("a temporary folder");
        let mut window = Command::new(&this);
        window.arg(EMPTY_WINDOW_ARGUMENT);
        display.give_to(&mut window);
        empty.push(first_frame(window));
        for times in [&mut first_run, &mut again] {
            let mut app = Command::new(&partlens);
            app.env("PARTLENS_DATA_DIR", data.path())
                .env("PARTLENS_SAMPLES_DIR", &samples)
                .env("RUST_LOG", "warn");
            display.give_to(&mut app);
            times.push(first_frame(app));
        }
        eprintln!(
            "round {}: empty {:.0} ms, partlens first run {:.0} ms, again {:.0} ms",
            round + 1,
            empty[round].spawned_ms,
            first_run[round].spawned_ms,
            again[round].spawned_ms
        );
    }
    println!(
        "Cold start, {rounds} rounds, median (spawn to the first painted frame; the program's own \
         count from its main in brackets):\n"
    );
    println!("| program | first frame | against the empty window |");
    println!("|---|---|---|");
    let baseline = median(&empty, |time| time.spawned_ms);
    for (name, times) in [
        ("empty eframe window", &empty),
        ("partlens, first run (new workspace)", &first_run),
        ("partlens, next run", &again),
    ] {
        let spawned = median(times, |time| time.spawned_ms);
        let own = median(times, |time| time.own_ms);
        println!(
            "| {name} | {spawned:.0} ms ({own:.0} ms) | {:.2}× |",
            spawned / baseline
        );
    }
}

/// One program's first frame: from the spawn, and as the program counted it.
struct FirstFrame {
    spawned_ms: f64,
    own_ms: f64,
}

/// Starts `command` with the report asked for, waits for its line, then for it to close.
fn first_frame(mut command: Command) -> FirstFrame {
    command
        .env(REPORT_FIRST_FRAME_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let spawned = Instant::now();
    let mut child = command.spawn().expect("the program starts");
    let stdout = child.stdout.take().expect("its output");
    let (lines, line) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for text in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(rest) = text.strip_prefix(FIRST_FRAME_LINE) {
                let _ = lines.send((spawned.elapsed(), rest.trim().to_owned()));
                return;
            }
        }
    });
    let Ok((elapsed, rest)) = line.recv_timeout(FIRST_FRAME_WAIT) else {
        let _ = child.kill();
        panic!("no first frame within {FIRST_FRAME_WAIT:?}");
    };
    close(&mut child);
    FirstFrame {
        spawned_ms: elapsed.as_secs_f64() * 1000.0,
        own_ms: rest
            .trim_end_matches("ms")
            .trim()
            .parse()
            .expect("milliseconds in the report"),
    }
}

/// Waits for a program to end on its own, killing it past [`CLOSE_WAIT`].
fn close(child: &mut Child) {
    let deadline = Instant::now() + CLOSE_WAIT;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The median of `value` over `times`.
fn median(times: &[FirstFrame], value: impl Fn(&FirstFrame) -> f64) -> f64 {
    let mut values: Vec<f64> = times.iter().map(value).collect();
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The empty window: partlens's window options, no content.
fn run_empty_window(started: Instant) {
    struct Empty;
    impl eframe::App for Empty {
        fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
            egui::CentralPanel::default().show(ui, |_| {});
        }
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("empty")
            .with_inner_size([1120.0, 720.0]),
        persistence_path: None,
        ..Default::default()
    };
    let outcome = eframe::run_native(
        "empty",
        options,
        Box::new(move |_| Ok(Box::new(FirstFrameReport::new(Empty, started)))),
    );
    if let Err(error) = outcome {
        eprintln!("the empty window could not open: {error}");
        std::process::exit(1);
    }
}

/// The display the programs open their windows on; an `Xvfb` started here ends with it.
struct Display {
    /// The `DISPLAY` to give the programs, when it is not this program's own.
    name: Option<String>,
    xvfb: Option<Child>,
}

impl Display {
    fn find() -> Result<Self, String> {
        if std::env::var_os("DISPLAY").is_some_and(|display| !display.is_empty()) {
            return Ok(Self {
                name: None,
                xvfb: None,
            });
        }
        let number = (90..200)
            .find(|number| !Path::new(&format!("/tmp/.X11-unix/X{number}")).exists())
            .ok_or("no free X display number")?;
        let xvfb = Command::new("Xvfb")
            .args([
                format!(":{number}"),
                "-screen".into(),
                "0".into(),
                "1280x800x24".into(),
                "-nolisten".into(),
                "tcp".into(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("no DISPLAY and no Xvfb to start ({error})"))?;
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !socket.exists() {
            if Instant::now() > deadline {
                return Err("Xvfb did not start".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Self {
            name: Some(format!(":{number}")),
            xvfb: Some(xvfb),
        })
    }
}

impl Display {
    /// Opens `command`'s windows on this display.
    fn give_to(&self, command: &mut Command) {
        if let Some(name) = &self.name {
            command.env("DISPLAY", name);
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some(xvfb) = &mut self.xvfb {
            let _ = xvfb.kill();
            let _ = xvfb.wait();
        }
    }
}
