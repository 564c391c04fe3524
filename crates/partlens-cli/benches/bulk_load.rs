//! The bulk load (issue 51, item 3): a vault of part files synced into the company database by the
//! library-sync engine (`partlens_tasks::sync::run_sync`, what `partlens-cli sync` runs), against
//! the `partlens-service` binary on 127.0.0.1, with a person's uploads timed beside it.
//!
//! **load** (the default): for each `parallel=N,M…` (1; `--parallel` of `partlens-cli sync`),
//! writes a vault of `files=N` copies of a real-file mix
//! (`support/bulk_vault.rs`), starts a fresh service (SQLite, the default reader slots, its log in
//! JSON with the indexing's debug lines), times a synchronous search-input upload of a real STEP
//! and a synchronous database upload of a picture on the idle service (median of five), then runs
//! the sync and repeats both uploads every `probe_s=S` seconds (20) while it runs. Prints the files
//! a minute, where the time goes (the service's request durations from `/metrics`, the read and the
//! save of each synchronous indexing from its log), the service's CPU time and memory, the data
//! folder's growth a file, and each probe against the idle median; then each `parallel` against
//! the first.
//!
//! **memory**: the sync's own memory at `files=N` (default 100,000): writes N tiny part files and a
//! sync record that knows all of them, then runs the engine over them in a child process (nothing
//! changed, so nothing is sent) and prints its peak resident memory (`VmHWM`) and the record's
//! size.
//!
//! **postgres**: `files=N` (200) synced into one node on PostgreSQL (one upload at a time), then
//! into two nodes on a fresh database sharing one data folder, half the vault to each node at once
//! (one upload at a time each); prints the files a minute and the nodes' CPU a file of each.
//!
//! ```text
//! cargo build -p partlens-service --profile dev --config 'profile.dev.opt-level=3'
//! cargo bench -p partlens-cli --bench bulk_load --profile dev --config 'profile.dev.opt-level=3' -- files=400 parallel=1,2
//! cargo bench -p partlens-cli --bench bulk_load --profile dev --config 'profile.dev.opt-level=3' -- memory files=200000
//! cargo bench -p partlens-cli --bench bulk_load --profile dev --config 'profile.dev.opt-level=3' -- postgres files=200
//! ```

// A benchmark that cannot set itself up (start the service, write the vault) has nothing to
// measure: it stops with the reason.
#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "support/bulk_nodes.rs"]
mod bulk_nodes;
#[path = "support/bulk_probe.rs"]
mod bulk_probe;

use bulk_nodes::nodes_on_postgres;
#[path = "support/bulk_vault.rs"]
mod bulk_vault;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use partlens_api::FileUid;
use partlens_tasks::ServiceChoice;
use partlens_tasks::sync::scan::sha1_of_file;
use partlens_tasks::sync::sync_state::{SyncKey, SyncRecord, SyncStore, SyncedFile, sync_dir};
use partlens_tasks::sync::{
    SyncContext, SyncControl, SyncLimits, SyncOrigin, SyncSetup, absolute_folder, run_sync,
};
use partlens_testkit::service::PASSWORD;

use bulk_probe::{Probes, ServiceProcess};

/// The prefix the vault is synced to.
const PREFIX: &str = "Vault";

/// The command line: `key=value` options and bare words.
struct Options {
    words: Vec<String>,
    values: Vec<(String, String)>,
}

impl Options {
    fn parse() -> Self {
        let mut words = Vec::new();
        let mut values = Vec::new();
        for arg in std::env::args().skip(1).filter(|arg| arg != "--bench") {
            match arg.split_once('=') {
                Some((key, value)) => values.push((key.to_owned(), value.to_owned())),
                None => words.push(arg),
            }
        }
        Self { words, values }
    }

    fn has(&self, word: &str) -> bool {
        self.words.iter().any(|known| known == word)
    }

    /// A comma-separated list of numbers (`parallel=1,2`).
    fn list(&self, key: &str, default: &str) -> Vec<usize> {
        self.values
            .iter()
            .find(|(known, _)| known == key)
            .map_or(default, |(_, value)| value.as_str())
            .split(',')
            .map(|number| number.trim().parse().expect("numbers after key="))
            .collect()
    }

    fn number(&self, key: &str, default: usize) -> usize {
        self.values
            .iter()
            .find(|(known, _)| known == key)
            .map_or(default, |(_, value)| {
                value.parse().expect("a number after key=")
            })
    }
}

fn main() {
    let options = Options::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    if let Some(dir) = options.values.iter().find(|(key, _)| key == "memory-run") {
        runtime.block_on(memory_run(Path::new(&dir.1)));
    } else if options.has("memory") {
        runtime.block_on(memory(options.number("files", 100_000)));
    } else if options.has("postgres") {
        runtime.block_on(nodes_on_postgres(options.number("files", 200)));
    } else {
        let files = options.number("files", 400);
        let probe_every = Duration::from_secs(options.number("probe_s", 20) as u64);
        let mut rates = Vec::new();
        for parallel in options.list("parallel", "1") {
            println!("\n## {files} files, --parallel {parallel}");
            rates.push((
                parallel,
                runtime.block_on(load(files, parallel, probe_every)),
            ));
        }
        if let Some((_, (base_rate, base_cpu))) = rates.first().copied() {
            println!("\n| --parallel | files a minute | × the first | CPU a file | × the first |");
            println!("|---|---|---|---|---|");
            for (parallel, (rate, cpu)) in &rates {
                println!(
                    "| {parallel} | {rate:.1} | {:.2} | {cpu:.2} s | {:.2} |",
                    rate / base_rate,
                    cpu / base_cpu
                );
            }
        }
    }
}

/// The context both modes sync in.
fn context(data: &Path, service: &str, max_files: usize, uploads_at_once: usize) -> SyncContext {
    SyncContext {
        sync_dir: sync_dir(data),
        service_key: ServiceChoice::remote(service, "partlens").key(),
        limits: SyncLimits {
            max_files,
            ..SyncLimits::default()
        },
        origin: SyncOrigin::Cli,
        uploads_at_once,
    }
}

fn setup(folder: &Path) -> SyncSetup {
    SyncSetup {
        folder: folder.to_path_buf(),
        prefix: PREFIX.into(),
        attributes: None,
        delete_removed: false,
    }
}

/// A line of `/proc/self/status` in KiB (`VmHWM`, `VmRSS`).
fn own_status_kib(field: &str) -> u64 {
    bulk_probe::status_kib(Path::new("/proc/self/status"), field)
}

// ---- memory ----------------------------------------------------------------------------------------

/// The service address the memory run names (nothing listens there: nothing is sent).
const NO_SERVICE: &str = "http://127.0.0.1:9";

async fn memory(files: usize) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let folder = dir.path().join("vault");
    let started = Instant::now();
    for index in 0..files {
        let sub = folder.join(format!("d{:04}", index / 1_000));
        if index % 1_000 == 0 {
            std::fs::create_dir_all(&sub).expect("a vault folder");
        }
        std::fs::write(sub.join(format!("{index:06}_part.png")), index.to_string())
            .expect("a vault file");
    }
    let absolute = absolute_folder(&folder).expect("the vault");
    let context = context(dir.path(), NO_SERVICE, files, 1);
    let key = SyncKey::new(&context.service_key, &absolute, PREFIX);
    let mut store = SyncStore::open(&context.sync_dir, &key, || {
        SyncRecord::new(&context.service_key, setup(&absolute), SyncOrigin::Cli)
    })
    .await
    .expect("the record");
    for index in 0..files {
        let relative = format!("d{:04}/{index:06}_part.png", index / 1_000);
        let hash = sha1_of_file(&folder.join(&relative)).expect("a vault file");
        store.record_mut().files.insert(
            relative,
            SyncedFile {
                hash,
                uid: FileUid::new_random(),
                attributes: None,
            },
        );
    }
    store.save().await.expect("the record saved");
    drop(store);
    println!(
        "wrote {files} files and their record in {:.1?}",
        started.elapsed()
    );
    let record_bytes = std::fs::metadata(context.sync_dir.join(format!("{key}.json")))
        .map(|meta| meta.len())
        .unwrap_or(0);
    let output = std::process::Command::new(std::env::current_exe().expect("this program"))
        .arg(format!("memory-run={}", dir.path().display()))
        .output()
        .expect("the measuring child");
    print!("{}", String::from_utf8_lossy(&output.stdout));
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    println!(
        "record: {:.1} MiB ({} bytes a file)",
        record_bytes as f64 / 1_048_576.0,
        record_bytes / files.max(1) as u64
    );
}

/// The child of `memory`: one run over the vault of `dir`, which the record knows whole.
async fn memory_run(dir: &Path) {
    let before = own_status_kib("VmHWM");
    let folder = dir.join("vault");
    let context = context(dir, NO_SERVICE, usize::MAX, 1);
    let client = partlens_api::ApiClient::new(NO_SERVICE).expect("a client");
    let started = Instant::now();
    let summary = run_sync(
        &client,
        &setup(&folder),
        &context,
        &SyncControl::default(),
        &|_| {},
    )
    .await
    .expect("the run");
    let peak = own_status_kib("VmHWM");
    assert_eq!(summary.unchanged, summary.files, "{:?}", summary.failed);
    println!(
        "a run over {} files the record knows: {:.1?}; peak resident memory {:.1} MiB \
         ({:.1} MiB at start, {} bytes a file above it)",
        summary.files,
        started.elapsed(),
        peak as f64 / 1024.0,
        before as f64 / 1024.0,
        (peak.saturating_sub(before) * 1024) / summary.files.max(1) as u64
    );
}

// ---- load ------------------------------------------------------------------------------------------

/// One load; answers its files a minute and the service's CPU seconds a file.
async fn load(files: usize, parallel: usize, probe_every: Duration) -> (f64, f64) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let folder = dir.path().join("vault");
    let vault_bytes = bulk_vault::write_vault(&folder, files);
    let data = dir.path().join("service");
    partlens_service::admin::add_user(&data, "Acme", "bulk", PASSWORD, true).expect("a user");
    let service = ServiceProcess::start(&data, &dir.path().join("service.log")).await;
    let client = partlens_testkit::sync::client(&service.base, "bulk", PASSWORD).await;
    let probes = Probes::new(&service.base).await;
    let idle = probes.idle(5).await;
    let before = service.snapshot().await;

    let context = context(dir.path(), &service.base, files, parallel);
    let checked = Arc::new(AtomicUsize::new(0));
    let progress = checked.clone();
    let started = Instant::now();
    let sync = tokio::spawn(async move {
        let report = move |now: &partlens_tasks::sync::SyncProgress| {
            progress.store(now.checked, Ordering::Relaxed);
        };
        run_sync(
            &client,
            &setup(&folder),
            &context,
            &SyncControl::default(),
            &report,
        )
        .await
    });
    let mut busy = Vec::new();
    let mut last_probe = Instant::now();
    while !sync.is_finished() {
        tokio::time::sleep(Duration::from_millis(250)).await;
        if last_probe.elapsed() >= probe_every && !sync.is_finished() {
            last_probe = Instant::now();
            let at = checked.load(Ordering::Relaxed);
            busy.push((at, probes.once().await));
        }
    }
    let summary = sync.await.expect("the sync task").expect("the sync");
    let wall = started.elapsed();
    let after = service.snapshot().await;
    let report = bulk_probe::Report {
        files,
        parallel,
        vault_bytes,
        summary: &summary,
        wall,
        before: &before,
        after: &after,
        idle: &idle,
        busy: &busy,
        log: &service.log_path,
    };
    bulk_probe::print_report(&report);
    (
        files as f64 * 60.0 / wall.as_secs_f64(),
        (after.cpu() - before.cpu()) / files.max(1) as f64,
    )
}
