//! Load benchmark of the local service under abuse (issue 10): 32 concurrent clients in four
//! companies run a mix of uploads, searches, attribute writes, record reads and logins against the
//! `partlens-service` binary, first alone, then with one abuser beside them:
//!
//! - **logins**: 128 wrong-password logins at a time from another address (127.0.0.2), without
//!   pause, for a name that is not one of the clients (item 3);
//! - **attributes**: one user of a client company writing 50,000 attributes to a file in one request
//!   and then the most one file may hold, without pause (item 2).
//!
//! Each run starts a fresh service process; the clients' latencies are taken per request, errors
//! are any reply but the one expected, and the service's peak resident memory is its `VmHWM` (Linux).
//! The runs are compared in the same process, the run without the abuser as the baseline. Prints
//! markdown tables for docs/PERFORMANCE.md.
//!
//! ```text
//! cargo bench -p partlens-service --bench service_load
//! cargo bench -p partlens-service --bench service_load -- --quick     # a tenth of the operations, to try it out
//! cargo bench -p partlens-service --bench service_load -- logins      # the baseline and one abuser only
//! cargo bench -p partlens-service --bench service_load -- memory      # peak memory of single large requests
//! cargo bench -p partlens-service --bench service_load -- postgres    # one node, then two with one SIGKILLed (issue 26)
//! ```

// A benchmark that cannot set itself up (start the service, log in) has nothing to measure: it stops
// with the reason.
#![allow(clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use image::{ImageFormat, RgbImage};
use partlens_api::encoding::{
    QueryString, double_encoded_strings, nested_attributes_query, password_digest,
    search_files_body,
};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// `-- postgres`: one node, then two nodes with one SIGKILLed halfway, on PostgreSQL (issue 26).
#[path = "support/load_postgres.rs"]
mod load_postgres;

/// Concurrent clients.
const CLIENTS: usize = 32;
/// Companies the clients belong to (eight each).
const COMPANIES: usize = 4;
/// Database files each company starts with.
const SEEDED_FILES: usize = 24;
/// Operations each client runs.
const OPERATIONS: usize = 60;
/// Wrong-password logins the login abuser keeps in flight.
const ABUSIVE_LOGINS_AT_ONCE: usize = 128;
/// Attributes in the attribute abuser's first request of each round.
const ABUSIVE_ATTRIBUTES: usize = 50_000;
/// The most attributes one file may hold (the service's default cap).
const ATTRIBUTES_AT_THE_CAP: usize = 1_000;
const PASSWORD: &str = "bench password";

/// Who runs beside the clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Abuser {
    None,
    Logins,
    Attributes,
}

impl Abuser {
    fn name(self) -> &'static str {
        match self {
            Self::None => "no abuser (baseline)",
            Self::Logins => "login abuser (item 3)",
            Self::Attributes => "attribute abuser (item 2)",
        }
    }
}

/// What a client did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Operation {
    TextSearch,
    PictureSearch,
    Upload,
    AttributeWrite,
    RecordRead,
    Login,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Self::TextSearch => "text/attribute search",
            Self::PictureSearch => "search by a picture (PUT /api/Search)",
            Self::Upload => "database upload",
            Self::AttributeWrite => "attribute write (20)",
            Self::RecordRead => "record + status read",
            Self::Login => "login",
        }
    }
}

/// One measured request of a client.
struct Sample {
    operation: Operation,
    elapsed: Duration,
    ok: bool,
}

/// What one run gave.
struct RunResult {
    abuser: Abuser,
    samples: Vec<Sample>,
    abuser_requests: usize,
    abuser_replies: BTreeMap<u16, usize>,
    peak_rss_kib: Option<u64>,
    wall: Duration,
}

/// A part picture: a dark shape on a light, finely textured ground (`seed` varies it).
fn picture(seed: u64) -> Vec<u8> {
    let mut random = StdRng::seed_from_u64(seed);
    let shape = seed % 4;
    let image = RgbImage::from_fn(128, 128, |x, y| {
        let (fx, fy) = (x as i32 - 64, y as i32 - 64);
        let inside = match shape {
            0 => fx * fx + fy * fy < 40 * 40,
            1 => (48..80).contains(&y),
            2 => (48..80).contains(&x),
            _ => (x < 40 && y > 16) || (y > 88 && x < 112),
        };
        let base: i32 = if inside { 40 } else { 215 };
        let value = (base + random.random_range(-12..12)).clamp(0, 255) as u8;
        image::Rgb([value, value, value])
    });
    let mut bytes = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut bytes), ImageFormat::Png)
        .unwrap_or_default();
    bytes
}

/// A service child process, killed when dropped.
struct Service {
    child: std::process::Child,
    base: String,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Service {
    fn start(data: &Path) -> Service {
        let mut child = Command::new(env!("CARGO_BIN_EXE_partlens-service"))
            .arg("--data")
            .arg(data)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("partlens-service starts");
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        }
        let base = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_default()
            .to_owned();
        assert!(!base.is_empty(), "the service did not start: {line:?}");
        Service { child, base }
    }

    /// The peak resident memory of the service so far (`VmHWM`, KiB; Linux only).
    fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

/// A logged-in client.
#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

async fn login(
    http: &reqwest::Client,
    base: &str,
    user: &str,
    password: &str,
) -> reqwest::Result<reqwest::Response> {
    http.post(format!("{base}/api/Token"))
        .form(&[
            ("grant_type", "password"),
            ("client_id", "partlens"),
            ("username", user),
            ("password", password_digest(password).as_str()),
        ])
        .send()
        .await
}

impl Client {
    async fn log_in(base: &str, user: &str, from: IpAddr) -> Client {
        partlens_api::client::install_crypto_provider();
        let http = reqwest::Client::builder()
            .local_address(from)
            .build()
            .expect("an HTTP client");
        let reply = login(&http, base, user, PASSWORD).await.expect("login");
        let body: serde_json::Value = reply.json().await.expect("a token");
        Client {
            http,
            base: base.to_owned(),
            token: body["access_token"].as_str().unwrap_or_default().to_owned(),
        }
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token)
    }

    async fn upload_database(
        &self,
        path: &str,
        bytes: Vec<u8>,
        attributes: &[(String, String)],
    ) -> Option<String> {
        let mut query = QueryString::new();
        query.push("file", path).push("isSearchInput", "false");
        if !attributes.is_empty() {
            query.push("attributes", nested_attributes_query(attributes));
        }
        let reply = self
            .request(reqwest::Method::PUT, &format!("/api/FileBinary?{query}"))
            .header("Content-Type", "application/octet-stream")
            .body(bytes)
            .send()
            .await
            .ok()?;
        if !reply.status().is_success() {
            return None;
        }
        reply.json::<String>().await.ok()
    }
}

/// Sets up the data directory: per company an admin (`boss{c}`) and eight users
/// (`user{c}_{k}`), and a user of company 0 (`abuser`) for the attribute abuser.
fn add_users(data: &Path) {
    use partlens_service::admin::add_user;
    for company in 0..COMPANIES {
        let name = format!("Company {company}");
        add_user(data, &name, &format!("boss{company}"), PASSWORD, true).expect("a user");
        for user in 0..CLIENTS / COMPANIES {
            add_user(
                data,
                &name,
                &format!("user{company}_{user}"),
                PASSWORD,
                false,
            )
            .expect("a user");
        }
    }
    add_user(data, "Company 0", "abuser", PASSWORD, false).expect("a user");
}

/// Uploads each company's database files; returns their UIDs by company.
async fn seed(base: &str) -> Vec<Vec<String>> {
    let mut by_company = Vec::new();
    for company in 0..COMPANIES {
        let boss = Client::log_in(
            base,
            &format!("boss{company}"),
            IpAddr::V4(Ipv4Addr::LOCALHOST),
        )
        .await;
        let mut uids = Vec::new();
        for file in 0..SEEDED_FILES {
            let seed = (company * 1000 + file) as u64;
            let attributes = vec![
                (
                    "material".to_owned(),
                    ["steel", "brass", "aluminium"][file % 3].to_owned(),
                ),
                ("part_number".to_owned(), format!("PN-{company}-{file:03}")),
            ];
            if let Some(uid) = boss
                .upload_database(&format!("Seed/part-{file}.png"), picture(seed), &attributes)
                .await
            {
                uids.push(uid);
            }
        }
        by_company.push(uids);
    }
    by_company
}

/// One client's session: `operations` requests chosen by a seeded draw.
async fn client_session(
    base: String,
    company: usize,
    user: usize,
    files: Vec<String>,
    operations: usize,
) -> Vec<Sample> {
    let name = format!("user{company}_{user}");
    let mut client = Client::log_in(&base, &name, IpAddr::V4(Ipv4Addr::LOCALHOST)).await;
    let mut random = StdRng::seed_from_u64((company * 100 + user) as u64);
    let mut samples = Vec::with_capacity(operations);
    for step in 0..operations {
        let draw = random.random_range(0..100);
        let operation = match draw {
            0..30 => Operation::TextSearch,
            30..42 => Operation::PictureSearch,
            42..57 => Operation::Upload,
            57..77 => Operation::AttributeWrite,
            77..90 => Operation::RecordRead,
            _ => Operation::Login,
        };
        let file = files[random.random_range(0..files.len())].clone();
        let started = Instant::now();
        let ok = match operation {
            Operation::TextSearch => {
                let filter = match step % 3 {
                    0 => "FT=material=[steel]".to_owned(),
                    1 => format!("FT=part_number=PN-{company}-0*"),
                    _ => "FT=part".to_owned(),
                };
                let mut query = QueryString::new();
                query.push("filterStr", filter);
                succeeded(
                    client
                        .request(reqwest::Method::GET, &format!("/api/Search?{query}"))
                        .send()
                        .await,
                )
                .await
            }
            Operation::PictureSearch => {
                let body = search_files_body(&[picture(random.random_range(0..10_000))]);
                succeeded(
                    client
                        .request(reqwest::Method::PUT, "/api/Search?fileExtension=.png")
                        .header("Content-Type", "application/json")
                        .body(body)
                        .send()
                        .await,
                )
                .await
            }
            Operation::Upload => client
                .upload_database(
                    &format!("Clients/{name}/part-{step}.png"),
                    picture(random.random_range(0..10_000)),
                    &[],
                )
                .await
                .is_some(),
            Operation::AttributeWrite => {
                let list: Vec<String> = (0..20)
                    .map(|index| format!("note_{index}=step {step} of {name}"))
                    .collect();
                succeeded(
                    client
                        .request(
                            reqwest::Method::PUT,
                            &format!("/api/FileAttributes?fileUID={file}"),
                        )
                        .header("Content-Type", "application/json")
                        .body(double_encoded_strings(&list))
                        .send()
                        .await,
                )
                .await
            }
            Operation::RecordRead => {
                succeeded(
                    client
                        .request(reqwest::Method::GET, &format!("/api/File?fileUID={file}"))
                        .send()
                        .await,
                )
                .await
                    && succeeded(
                        client
                            .request(
                                reqwest::Method::GET,
                                &format!("/api/FileStatus?fileUID={file}"),
                            )
                            .send()
                            .await,
                    )
                    .await
            }
            Operation::Login => match login(&client.http, &base, &name, PASSWORD).await {
                Ok(reply) if reply.status().is_success() => {
                    match reply.json::<serde_json::Value>().await {
                        Ok(body) => {
                            client.token =
                                body["access_token"].as_str().unwrap_or_default().to_owned();
                            true
                        }
                        Err(_) => false,
                    }
                }
                _ => false,
            },
        };
        samples.push(Sample {
            operation,
            elapsed: started.elapsed(),
            ok,
        });
    }
    samples
}

async fn succeeded(reply: reqwest::Result<reqwest::Response>) -> bool {
    match reply {
        Ok(reply) => {
            let ok = reply.status().is_success();
            // Read the body, as a client would.
            ok && reply.bytes().await.is_ok()
        }
        Err(_) => false,
    }
}

/// The login abuser: keeps 128 wrong-password logins in flight from 127.0.0.2 until `stop`.
async fn abuse_logins(
    base: String,
    stop: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
) -> BTreeMap<u16, usize> {
    partlens_api::client::install_crypto_provider();
    let http = reqwest::Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)))
        .build()
        .expect("an HTTP client");
    let mut tasks = Vec::new();
    for lane in 0..ABUSIVE_LOGINS_AT_ONCE {
        let (http, base, stop, requests) =
            (http.clone(), base.clone(), stop.clone(), requests.clone());
        tasks.push(tokio::spawn(async move {
            let mut replies = BTreeMap::new();
            let mut attempt = 0;
            while !stop.load(Ordering::Relaxed) {
                attempt += 1;
                let name = if lane % 2 == 0 {
                    "boss0".to_owned()
                } else {
                    format!("guess-{lane}-{attempt}")
                };
                let status = login(&http, &base, &name, "wrong guess")
                    .await
                    .map_or(0, |reply| reply.status().as_u16());
                requests.fetch_add(1, Ordering::Relaxed);
                *replies.entry(status).or_insert(0) += 1;
            }
            replies
        }));
    }
    let mut replies = BTreeMap::new();
    for task in tasks {
        for (status, count) in task.await.unwrap_or_default() {
            *replies.entry(status).or_insert(0) += count;
        }
    }
    replies
}

/// The attribute abuser: 50,000 attributes in one write, then the most a file may hold, in a loop
/// until `stop`.
async fn abuse_attributes(
    base: String,
    file: String,
    stop: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
) -> BTreeMap<u16, usize> {
    let client = Client::log_in(&base, "abuser", IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))).await;
    let huge: Vec<String> = (0..ABUSIVE_ATTRIBUTES)
        .map(|index| format!("a{index}=v"))
        .collect();
    let at_cap: Vec<String> = (0..ATTRIBUTES_AT_THE_CAP)
        .map(|index| format!("a{index}=v"))
        .collect();
    let bodies = [
        double_encoded_strings(&huge),
        double_encoded_strings(&at_cap),
    ];
    let mut replies = BTreeMap::new();
    let mut round = 0;
    while !stop.load(Ordering::Relaxed) {
        let body = bodies[round % 2].clone();
        round += 1;
        let status = client
            .request(
                reqwest::Method::PUT,
                &format!("/api/FileAttributes?fileUID={file}"),
            )
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .await
            .map_or(0, |reply| reply.status().as_u16());
        requests.fetch_add(1, Ordering::Relaxed);
        *replies.entry(status).or_insert(0) += 1;
    }
    replies
}

async fn run(abuser: Abuser, operations: usize) -> RunResult {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let data = dir.path().join("data");
    add_users(&data);
    let service = Service::start(&data);
    let base = service.base.clone();
    let files = seed(&base).await;
    let stop = Arc::new(AtomicBool::new(false));
    let requests = Arc::new(AtomicUsize::new(0));
    let abusing = match abuser {
        Abuser::None => None,
        Abuser::Logins => Some(tokio::spawn(abuse_logins(
            base.clone(),
            stop.clone(),
            requests.clone(),
        ))),
        Abuser::Attributes => Some(tokio::spawn(abuse_attributes(
            base.clone(),
            files[0][0].clone(),
            stop.clone(),
            requests.clone(),
        ))),
    };
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|index| {
            let company = index % COMPANIES;
            tokio::spawn(client_session(
                base.clone(),
                company,
                index / COMPANIES,
                files[company].clone(),
                operations,
            ))
        })
        .collect();
    let mut samples = Vec::new();
    for client in clients {
        samples.extend(client.await.unwrap_or_default());
    }
    let wall = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let abuser_replies = match abusing {
        Some(task) => task.await.unwrap_or_default(),
        None => BTreeMap::new(),
    };
    let peak_rss_kib = service.peak_rss_kib();
    drop(service);
    RunResult {
        abuser,
        samples,
        abuser_requests: requests.load(Ordering::Relaxed),
        abuser_replies,
        peak_rss_kib,
        wall,
    }
}

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64 * share).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn latencies(samples: &[Sample], operation: Option<Operation>) -> Vec<Duration> {
    let mut times: Vec<Duration> = samples
        .iter()
        .filter(|sample| operation.is_none_or(|wanted| sample.operation == wanted))
        .map(|sample| sample.elapsed)
        .collect();
    times.sort();
    times
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// The service's peak memory for single large requests, each in a fresh service next to one that
/// only started: a `PUT /api/Search` of ten files of 14 MB each (190 MB of body; stored, not
/// analysed: `.bin`), and one picture at the pixel cap analysed (a 40-megapixel PNG).
async fn memory_of_large_requests() -> Vec<(&'static str, Option<u64>)> {
    let mut measured = Vec::new();
    for case in [
        "started, idle",
        "PUT /api/Search, 190 MB body",
        "a 40-megapixel picture analysed",
    ] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let data = dir.path().join("data");
        partlens_service::admin::add_user(&data, "Company 0", "boss0", PASSWORD, true)
            .expect("a user");
        let service = Service::start(&data);
        let client = Client::log_in(&service.base, "boss0", IpAddr::V4(Ipv4Addr::LOCALHOST)).await;
        match case {
            "PUT /api/Search, 190 MB body" => {
                let files: Vec<Vec<u8>> = (0..10u32)
                    .map(|file| {
                        (0..14 * 1024 * 1024u32)
                            .map(|i| (i.wrapping_add(file).wrapping_mul(2_654_435_761) >> 24) as u8)
                            .collect()
                    })
                    .collect();
                let body = search_files_body(&files);
                drop(files);
                let status = client
                    .request(reqwest::Method::PUT, "/api/Search?fileExtension=.bin")
                    .header("Content-Type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .map(|reply| reply.status().as_u16());
                eprintln!("190 MB search body: {status:?}");
            }
            "a 40-megapixel picture analysed" => {
                let mut random = StdRng::seed_from_u64(40);
                let image = RgbImage::from_fn(8000, 5000, |x, y| {
                    let shade = if (x / 400 + y / 400) % 2 == 0 {
                        50
                    } else {
                        200
                    };
                    image::Rgb([shade + random.random_range(0..20u8), shade, shade])
                });
                let mut bytes = Vec::new();
                image
                    .write_to(&mut std::io::Cursor::new(&mut bytes), ImageFormat::Png)
                    .expect("a PNG");
                drop(image);
                let uid = client.upload_database("Big/picture.png", bytes, &[]).await;
                eprintln!("40-megapixel picture: {uid:?}");
            }
            _ => {}
        }
        measured.push((case, service.peak_rss_kib()));
    }
    measured
}

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let operations = if quick { OPERATIONS / 10 } else { OPERATIONS };
    if std::env::args().any(|arg| arg == "postgres") {
        load_postgres::main_postgres(quick);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    // `-- logins` or `-- attributes` runs only that abuser (beside the baseline).
    let chosen: Vec<Abuser> = [Abuser::Logins, Abuser::Attributes]
        .into_iter()
        .filter(|abuser| {
            let word = if *abuser == Abuser::Logins {
                "logins"
            } else {
                "attributes"
            };
            std::env::args().any(|arg| arg == word)
        })
        .collect();
    let abusers = if chosen.is_empty() {
        vec![Abuser::Logins, Abuser::Attributes]
    } else {
        chosen
    };
    if std::env::args().any(|arg| arg == "memory") {
        println!("| single request | service peak RSS |");
        println!("|---|---|");
        for (case, kib) in runtime.block_on(memory_of_large_requests()) {
            println!(
                "| {case} | {} |",
                kib.map_or("n/a".to_owned(), |kib| format!(
                    "{:.0} MiB",
                    kib as f64 / 1024.0
                ))
            );
        }
        return;
    }
    let results: Vec<RunResult> = std::iter::once(Abuser::None)
        .chain(abusers)
        .map(|abuser| {
            eprintln!("running: {}", abuser.name());
            runtime.block_on(run(abuser, operations))
        })
        .collect();
    let baseline_p95 = percentile(&latencies(&results[0].samples, None), 0.95);

    println!(
        "| run | client requests | client errors | p50 | p95 | p95 × baseline | abuser requests (replies) | service peak RSS | wall |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for result in &results {
        let all = latencies(&result.samples, None);
        let errors = result.samples.iter().filter(|sample| !sample.ok).count();
        let p95 = percentile(&all, 0.95);
        let replies = result
            .abuser_replies
            .iter()
            .map(|(status, count)| format!("{count}× {status}"))
            .collect::<Vec<_>>()
            .join(", ");
        println!(
            "| {} | {} | {} | {} | {} | {:.2}× | {} | {} | {:.1} s |",
            result.abuser.name(),
            result.samples.len(),
            errors,
            ms(percentile(&all, 0.5)),
            ms(p95),
            p95.as_secs_f64() / baseline_p95.as_secs_f64().max(1e-9),
            if result.abuser == Abuser::None {
                "–".to_owned()
            } else {
                format!("{} ({replies})", result.abuser_requests)
            },
            result.peak_rss_kib.map_or("n/a".to_owned(), |kib| format!(
                "{:.0} MiB",
                kib as f64 / 1024.0
            )),
            result.wall.as_secs_f64(),
        );
    }
    println!();
    print!("| client p95 by request |");
    for result in &results {
        print!(" {} |", result.abuser.name());
    }
    println!();
    println!("|---|{}", "---|".repeat(results.len()));
    for operation in [
        Operation::TextSearch,
        Operation::PictureSearch,
        Operation::Upload,
        Operation::AttributeWrite,
        Operation::RecordRead,
        Operation::Login,
    ] {
        print!("| {} |", operation.name());
        for result in &results {
            print!(
                " {} |",
                ms(percentile(
                    &latencies(&result.samples, Some(operation)),
                    0.95
                ))
            );
        }
        println!();
    }
}
