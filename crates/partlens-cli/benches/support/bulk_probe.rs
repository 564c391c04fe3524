//! What the bulk-load bench measures on the service: the `partlens-service` process it starts
//! ([`ServiceProcess`]), what it reads of it before and after a run ([`Snapshot`]: request
//! durations from `/metrics`, the read and save times of the indexing from its JSON log, CPU time,
//! memory, the data folder's size), a person's uploads timed beside the load ([`Probes`]), and the
//! printed report.

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use partlens_tasks::sync::SyncSummary;
use partlens_testkit::realworld::corpus_file;
use partlens_testkit::service::{Child, Session, files_under};

/// The real STEP a person searches by while the load runs (a small part of the corpus).
pub const PROBE_STEP: &str =
    "step/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.step";

/// The message of the service's debug line after a synchronous indexing (`indexing.rs`).
const INDEXED_MESSAGE: &str = "indexed while the uploader waits";

/// The service's debug line of a file's pairing with its candidate duplicates.
const PAIRED_MESSAGE: &str = "paired with its candidate duplicates";

/// A line of a `/proc/PID/status` file in KiB; 0 when it is not there.
pub fn status_kib(status: &Path, field: &str) -> u64 {
    std::fs::read_to_string(status)
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The median of some durations (zero for none).
pub fn median(values: &[Duration]) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// The service as a child process, its log on a file.
pub struct ServiceProcess {
    child: Child,
    /// Its base URL.
    pub base: String,
    /// Its data folder.
    pub data: PathBuf,
    /// Its log (JSON lines).
    pub log_path: PathBuf,
}

impl ServiceProcess {
    /// `partlens-service --data DATA serve --addr 127.0.0.1:0` with the indexing's debug lines.
    pub async fn start(data: &Path, log_path: &Path) -> Self {
        Self::start_with(data, log_path, &[]).await
    }

    /// The same with `global` options before `serve` (`--database URL`).
    pub async fn start_with(data: &Path, log_path: &Path, global: &[&str]) -> Self {
        let log = std::fs::File::create(log_path).expect("the service's log");
        let mut child = Child(
            Command::new(partlens_testkit::program("partlens-service"))
                .arg("--data")
                .arg(data)
                .args(global)
                .args(["serve", "--addr", "127.0.0.1:0"])
                .env("PARTLENS_LOG_FORMAT", "json")
                .env("RUST_LOG", "info,partlens_service::indexing=debug")
                .stdout(Stdio::piped())
                .stderr(log)
                .spawn()
                .expect("partlens-service (build it with the same profile first)"),
        );
        let line = partlens_testkit::service::first_stdout_line(&mut child).await;
        let base = line
            .trim_end()
            .strip_prefix("listening on ")
            .expect("the service's first line")
            .to_owned();
        Self {
            child,
            base,
            data: data.to_path_buf(),
            log_path: log_path.to_path_buf(),
        }
    }

    /// What the service has done and holds now.
    pub async fn snapshot(&self) -> Snapshot {
        let pid = self.child.0.id();
        let metrics = Session {
            http: partlens_api::client::plain_http_client(),
            base: self.base.clone(),
            token: None,
        }
        .get("/metrics")
        .await
        .text();
        let (indexed, read, save, pair) = indexing_times(&self.log_path);
        Snapshot {
            routes: request_durations(&metrics),
            indexed,
            read,
            save,
            pair,
            cpu: cpu_seconds(pid),
            rss_kib: status_kib(&proc_status(pid), "VmRSS"),
            peak_kib: status_kib(&proc_status(pid), "VmHWM"),
            disk_bytes: files_under(&self.data)
                .iter()
                .filter_map(|path| std::fs::metadata(path).ok())
                .map(|meta| meta.len())
                .sum(),
        }
    }
}

fn proc_status(pid: u32) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}/status"))
}

/// The CPU seconds of a process, of its children it waited for and of its living children (the
/// reader workers).
fn cpu_seconds(pid: u32) -> f64 {
    // Fields after the command's closing parenthesis: state is field 3, utime 14 … cstime 17.
    let fields = |stat: &str| -> Option<Vec<u64>> {
        let rest = stat.rsplit_once(')')?.1;
        Some(
            rest.split_whitespace()
                .map(|field| field.parse().unwrap_or(0))
                .collect(),
        )
    };
    let ticks_per_second = 100.0;
    let own = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let mut ticks = fields(&own).map_or(0, |f| f.get(11..15).map_or(0, |t| t.iter().sum()));
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        if let Some(f) = fields(&stat)
            && f.get(1) == Some(&u64::from(pid))
        {
            ticks += f.get(11..13).map_or(0, |t| t.iter().sum::<u64>());
        }
    }
    ticks as f64 / ticks_per_second
}

/// Seconds and requests by `METHOD route`, from the service's metrics text.
fn request_durations(metrics: &str) -> BTreeMap<String, (f64, u64)> {
    let mut routes: BTreeMap<String, (f64, u64)> = BTreeMap::new();
    for line in metrics.lines() {
        let Some((name, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let label = |key: &str| {
            name.split(&format!("{key}=\""))
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_default()
                .to_owned()
        };
        let key = format!("{} {}", label("method"), label("route"));
        if name.starts_with("partlens_http_request_duration_seconds_sum{") {
            routes.entry(key).or_default().0 = value.parse().unwrap_or(0.0);
        } else if name.starts_with("partlens_http_request_duration_seconds_count{") {
            routes.entry(key).or_default().1 = value.parse().unwrap_or(0);
        }
    }
    routes
}

/// Synchronous indexings so far, the seconds of their reads and of their saves, and the seconds
/// of the pairings with candidate duplicates (every indexed file's, done after the upload answered).
fn indexing_times(log: &Path) -> (u64, f64, f64, f64) {
    let Ok(file) = std::fs::File::open(log) else {
        return (0, 0.0, 0.0, 0.0);
    };
    let mut found = (0, 0.0, 0.0, 0.0);
    for line in std::io::BufReader::new(file).lines().map_while(Result::ok) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let fields = &value["fields"];
        if fields["message"] == INDEXED_MESSAGE {
            found.0 += 1;
            found.1 += fields["read_ms"].as_f64().unwrap_or(0.0) / 1000.0;
            found.2 += fields["save_ms"].as_f64().unwrap_or(0.0) / 1000.0;
        } else if fields["message"] == PAIRED_MESSAGE {
            found.3 += fields["pair_ms"].as_f64().unwrap_or(0.0) / 1000.0;
        }
    }
    found
}

/// The service at one moment.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    routes: BTreeMap<String, (f64, u64)>,
    indexed: u64,
    read: f64,
    save: f64,
    pair: f64,
    cpu: f64,
    rss_kib: u64,
    peak_kib: u64,
    disk_bytes: u64,
}

impl Snapshot {
    /// The service's CPU seconds so far, its reader workers' included.
    pub fn cpu(&self) -> f64 {
        self.cpu
    }
}

/// A person's two uploads: a search input (a real STEP) and a database picture, both synchronous.
pub struct Probes {
    session: Session,
    step: Vec<u8>,
    picture: Vec<u8>,
    count: std::sync::atomic::AtomicUsize,
}

/// The times of one round of the probes: search input, database upload.
pub type ProbeTimes = (Duration, Duration);

impl Probes {
    /// Logs in as the bench's user.
    pub async fn new(base: &str) -> Self {
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/samples");
        Self {
            session: Session::login(base, "bulk").await,
            step: corpus_file(PROBE_STEP).expect("the probe STEP of the corpus"),
            picture: std::fs::read(samples.join("flange.png")).expect("a sample picture"),
            count: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// One round.
    pub async fn once(&self) -> ProbeTimes {
        // Other bytes each time, so no analysis of an earlier round is reused.
        let number = self
            .count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let step = crate::bulk_vault::with_step_comment(&self.step, &format!("probe {number}"));
        let mut picture = self.picture.clone();
        picture.extend(format!("probe {number}").as_bytes());
        let started = Instant::now();
        self.session
            .upload_search_input(".step", &step, false)
            .await;
        let search = started.elapsed();
        let started = Instant::now();
        self.session
            .upload_database_file(&format!("App/probe-{number}.png"), picture, &[])
            .await;
        (search, started.elapsed())
    }

    /// The medians of `rounds` rounds on the idle service (after one untimed).
    pub async fn idle(&self, rounds: usize) -> ProbeTimes {
        self.once().await;
        let mut search = Vec::new();
        let mut upload = Vec::new();
        for _ in 0..rounds {
            let (s, u) = self.once().await;
            search.push(s);
            upload.push(u);
        }
        (median(&search), median(&upload))
    }
}

/// What the report is made of.
pub struct Report<'a> {
    /// Files in the vault.
    pub files: usize,
    /// Uploads on their way at once.
    pub parallel: usize,
    /// Their bytes.
    pub vault_bytes: u64,
    /// What the sync said.
    pub summary: &'a SyncSummary,
    /// How long the sync took.
    pub wall: Duration,
    /// The service before the sync.
    pub before: &'a Snapshot,
    /// The service after it.
    pub after: &'a Snapshot,
    /// The probes' medians on the idle service.
    pub idle: &'a ProbeTimes,
    /// Files checked when a probe ran during the sync, and its times.
    pub busy: &'a [(usize, ProbeTimes)],
    /// The service's log.
    pub log: &'a Path,
}

fn ms(duration: Duration) -> String {
    format!("{:.0} ms", duration.as_secs_f64() * 1000.0)
}

/// Prints the markdown tables for docs/PERFORMANCE.md.
pub fn print_report(report: &Report<'_>) {
    let (before, after) = (report.before, report.after);
    let uploaded = report.summary.uploaded.len();
    let wall = report.wall.as_secs_f64();
    let cpu = after.cpu - before.cpu;
    println!(
        "\n| files | MiB | uploaded | failed | wall | files a minute | service CPU | CPU a file | \
         service RSS after (peak) | data folder a file |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {:.1} | {uploaded} | {} | {wall:.0} s | {:.1} | {cpu:.0} s | {:.2} s | {:.0} MiB \
         ({:.0} MiB) | {:.0} KiB |",
        report.files,
        report.vault_bytes as f64 / 1_048_576.0,
        report.summary.failed.len(),
        report.files as f64 * 60.0 / wall,
        cpu / report.files.max(1) as f64,
        after.rss_kib as f64 / 1024.0,
        after.peak_kib as f64 / 1024.0,
        after.disk_bytes.saturating_sub(before.disk_bytes) as f64
            / 1024.0
            / report.files.max(1) as f64,
    );
    print_where_time_goes(report);
    print_probes(report);
    for failure in report.summary.failed.iter().take(10) {
        println!("failed: {} — {}", failure.path, failure.reason);
    }
    println!("service log: {}", report.log.display());
}

fn print_where_time_goes(report: &Report<'_>) {
    let (before, after) = (report.before, report.after);
    let files = report.files.max(1) as f64;
    let mut uploads = 0.0;
    let mut others = 0.0;
    println!("\n| request | count | seconds | ms a file |");
    println!("|---|---|---|---|");
    for (route, (seconds, count)) in &after.routes {
        let (was_seconds, was_count) = before.routes.get(route).copied().unwrap_or_default();
        let (seconds, count) = (seconds - was_seconds, count - was_count);
        if count == 0 {
            continue;
        }
        println!(
            "| {route} | {count} | {seconds:.1} | {:.1} |",
            seconds * 1000.0 / files
        );
        if route.starts_with("PUT") {
            uploads += seconds;
        } else {
            others += seconds;
        }
    }
    let probes: f64 = report
        .busy
        .iter()
        .map(|(_, (search, upload))| (*search + *upload).as_secs_f64())
        .sum();
    let read = after.read - before.read;
    let save = after.save - before.save;
    let pair = after.pair - before.pair;
    // With one upload at a time the client's share is what the service's requests leave of the
    // wall time; with several they overlap and it cannot be told this way.
    let client = if report.parallel == 1 {
        report.wall.as_secs_f64() - (uploads + others - probes)
    } else {
        f64::NAN
    };
    println!("\n| where the time goes | seconds | ms a file |");
    println!("|---|---|---|");
    for (what, seconds) in [
        (
            "the sync client (scan, hash, record, HTTP client; one upload at a time only)",
            client,
        ),
        ("uploads: reading (worker: parse, views, descriptors)", read),
        (
            "uploads: saving (store; the pairing too when it ran in the upload)",
            save,
        ),
        (
            "uploads: the rest (body to disk, records)",
            uploads - read - save,
        ),
        (
            "pairing with its duplicates (after the upload answered, in the background)",
            pair,
        ),
        ("other requests (lookups, status)", others),
        ("of which the probes' requests", probes),
    ] {
        println!(
            "| {what} | {seconds:.1} | {:.1} |",
            seconds * 1000.0 / files
        );
    }
    println!(
        "(synchronous indexings in the log: {}, the probes' included)",
        after.indexed - before.indexed
    );
}

fn print_probes(report: &Report<'_>) {
    let (idle_search, idle_upload) = report.idle;
    println!(
        "\n| while | files done | search input (STEP) | × idle | database upload (PNG) | × idle |"
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| idle (median of 5) | 0 | {} | 1.00 | {} | 1.00 |",
        ms(*idle_search),
        ms(*idle_upload)
    );
    for (at, (search, upload)) in report.busy {
        println!(
            "| bulk load | {at} | {} | {:.2} | {} | {:.2} |",
            ms(*search),
            search.as_secs_f64() / idle_search.as_secs_f64().max(1e-9),
            ms(*upload),
            upload.as_secs_f64() / idle_upload.as_secs_f64().max(1e-9),
        );
    }
    let searches: Vec<Duration> = report.busy.iter().map(|(_, (s, _))| *s).collect();
    let uploads: Vec<Duration> = report.busy.iter().map(|(_, (_, u))| *u).collect();
    println!(
        "| bulk load (median) | | {} | {:.2} | {} | {:.2} |",
        ms(median(&searches)),
        median(&searches).as_secs_f64() / idle_search.as_secs_f64().max(1e-9),
        ms(median(&uploads)),
        median(&uploads).as_secs_f64() / idle_upload.as_secs_f64().max(1e-9),
    );
}
