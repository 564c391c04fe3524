//! `service_load -- postgres` (issue 26): the bench's 32 clients against `partlens-service` nodes
//! sharing one PostgreSQL database and one `--data` folder. Run A: one node (the baseline). Run B:
//! two nodes on a fresh database, client i starting on node i % 2; when half of all operations are
//! done node A is SIGKILLed, and a client whose request dies on a closed or refused connection sends
//! it again to the other node (a retry, counted). Afterwards the survivor is asked for every
//! acknowledged upload (it must exist and end indexed: a job the dead node held is claimed again
//! after the heartbeat timeout) and every acknowledged attribute write (the client's last value for
//! that file must read back). The CPU time of the nodes, their reader workers, PostgreSQL and the
//! bench's own clients is read from `/proc` over each run, to say what bounds the throughput.
//!
//! Needs a PostgreSQL server (`partlens_testkit::postgres`: `PARTLENS_PG_BIN`); says so and
//! measures nothing without.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead as _;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use partlens_api::encoding::{
    QueryString, double_encoded_strings, password_digest, search_files_body,
};
use rand::{RngExt, SeedableRng, rngs::StdRng};

use super::{
    CLIENTS, COMPANIES, OPERATIONS, Operation, PASSWORD, Sample, latencies, ms, percentile,
    picture, seed,
};

/// How long the survivor may take to end the indexing of every acknowledged upload: a job claimed by
/// the killed node is claimed again only after its heartbeat is 30 s old.
const INDEXING_DEADLINE: Duration = Duration::from_secs(180);

/// Clock ticks a second in `/proc/PID/stat` (`USER_HZ`, 100 on Linux whatever the kernel's HZ).
const TICKS_PER_SECOND: f64 = 100.0;

/// A `partlens-service serve` process on PostgreSQL; killed when dropped.
struct Node {
    child: Child,
    base: String,
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Node {
    /// Starts a node on `data` and `database_url`, and reads its address from its first line.
    fn start(data: &Path, database_url: &str) -> Node {
        let mut child = Command::new(env!("CARGO_BIN_EXE_partlens-service"))
            .arg("--data")
            .arg(data)
            .args(["--database", database_url])
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
        assert!(!base.is_empty(), "the node did not start: {line:?}");
        Node { child, base }
    }
}

/// Adds the bench's accounts through the program's `user add --database`, as an operator would.
fn add_users_through_the_program(data: &Path, database_url: &str) {
    let add = |company: usize, user: &str, admin: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_partlens-service"));
        command
            .arg("--data")
            .arg(data)
            .args(["--database", database_url, "user", "add"])
            .args(["--company", &format!("Company {company}"), "--user", user])
            .args(["--password", PASSWORD]);
        if admin {
            command.arg("--admin");
        }
        let output = command.output().expect("partlens-service user add runs");
        assert!(
            output.status.success(),
            "user add {user}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    for company in 0..COMPANIES {
        add(company, &format!("boss{company}"), true);
        for user in 0..CLIENTS / COMPANIES {
            add(company, &format!("user{company}_{user}"), false);
        }
    }
}

/// A logged-in client that knows every node and moves to the next one when its node's connection
/// is closed or refused.
struct FailoverClient {
    http: reqwest::Client,
    bases: Vec<String>,
    current: usize,
    token: String,
}

/// What a failover client's request gave: the reply (or the transport error of the last try).
type Reply = reqwest::Result<reqwest::Response>;

impl FailoverClient {
    /// Logs `user` in on `bases[first]`.
    async fn log_in(bases: Vec<String>, first: usize, user: &str) -> FailoverClient {
        partlens_api::client::install_crypto_provider();
        let http = reqwest::Client::builder()
            .local_address(IpAddr::V4(Ipv4Addr::LOCALHOST))
            .build()
            .expect("an HTTP client");
        let mut client = FailoverClient {
            http,
            bases,
            current: first,
            token: String::new(),
        };
        let retries = AtomicUsize::new(0);
        assert!(client.log_in_again(user, &retries).await, "login of {user}");
        client
    }

    /// Sends the request `build` makes for a node's base address; on a transport error (the node's
    /// connection closed or refused) sends it once more to the next node, counting a retry.
    async fn send(
        &mut self,
        build: impl Fn(&reqwest::Client, &str, &str) -> reqwest::RequestBuilder,
        retries: &AtomicUsize,
    ) -> Reply {
        let first = build(&self.http, &self.bases[self.current], &self.token)
            .send()
            .await;
        match first {
            Err(error) if self.bases.len() > 1 && (error.is_connect() || error.is_request()) => {
                retries.fetch_add(1, Ordering::Relaxed);
                self.current = (self.current + 1) % self.bases.len();
                build(&self.http, &self.bases[self.current], &self.token)
                    .send()
                    .await
            }
            other => other,
        }
    }

    /// Logs `user` in again (on failover, as any request); true when a token came back.
    async fn log_in_again(&mut self, user: &str, retries: &AtomicUsize) -> bool {
        let digest = password_digest(PASSWORD);
        let reply = self
            .send(
                |http, base, _| {
                    http.post(format!("{base}/api/Token")).form(&[
                        ("grant_type", "password"),
                        ("client_id", "partlens"),
                        ("username", user),
                        ("password", digest.as_str()),
                    ])
                },
                retries,
            )
            .await;
        let Ok(reply) = reply else { return false };
        if !reply.status().is_success() {
            return false;
        }
        match reply.json::<serde_json::Value>().await {
            Ok(body) => {
                self.token = body["access_token"].as_str().unwrap_or_default().to_owned();
                !self.token.is_empty()
            }
            Err(_) => false,
        }
    }
}

/// True when `reply` is a 2xx whose body could be read.
async fn answered(reply: Reply) -> bool {
    match reply {
        Ok(reply) => reply.status().is_success() && reply.bytes().await.is_ok(),
        Err(_) => false,
    }
}

/// One request of a run, with when it started (before or after the kill).
struct TimedSample {
    sample: Sample,
    started: Instant,
}

/// What one client's session left to check: uploads acknowledged with a UID, and per file the
/// value of the client's last acknowledged attribute write (read back from `GET /api/File`).
#[derive(Default)]
struct Acknowledged {
    uploads: Vec<(usize, String)>,
    attribute_writes: Vec<(usize, String, String, String)>,
}

/// Counters shared by the clients of one run.
struct RunCounters {
    done: AtomicUsize,
    retries: AtomicUsize,
}

/// One client's session, the bench's mix, through a failover client; attribute writes add the
/// client's own attributes (`deleteExisting=false`) so each client's last write can be checked.
async fn failover_session(
    bases: Vec<String>,
    index: usize,
    files: Vec<String>,
    operations: usize,
    counters: Arc<RunCounters>,
) -> (Vec<TimedSample>, Acknowledged) {
    let company = index % COMPANIES;
    let user = index / COMPANIES;
    let name = format!("user{company}_{user}");
    let first = index % bases.len();
    let mut client = FailoverClient::log_in(bases, first, &name).await;
    let mut random = StdRng::seed_from_u64((company * 100 + user) as u64);
    let mut samples = Vec::with_capacity(operations);
    let mut acknowledged = Acknowledged::default();
    let mut last_writes: HashMap<String, String> = HashMap::new();
    let retries = &counters.retries;
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
                let path = format!("/api/Search?{query}");
                let reply = client
                    .send(
                        |http, base, token| http.get(format!("{base}{path}")).bearer_auth(token),
                        retries,
                    )
                    .await;
                answered(reply).await
            }
            Operation::PictureSearch => {
                let body = search_files_body(&[picture(random.random_range(0..10_000))]);
                let reply = client
                    .send(
                        |http, base, token| {
                            http.put(format!("{base}/api/Search?fileExtension=.png"))
                                .bearer_auth(token)
                                .header("Content-Type", "application/json")
                                .body(body.clone())
                        },
                        retries,
                    )
                    .await;
                answered(reply).await
            }
            Operation::Upload => {
                let bytes = picture(random.random_range(0..10_000));
                let mut query = QueryString::new();
                query
                    .push("file", format!("Clients/{name}/part-{step}.png"))
                    .push("isSearchInput", "false");
                let path = format!("/api/FileBinary?{query}");
                let reply = client
                    .send(
                        |http, base, token| {
                            http.put(format!("{base}{path}"))
                                .bearer_auth(token)
                                .header("Content-Type", "application/octet-stream")
                                .body(bytes.clone())
                        },
                        retries,
                    )
                    .await;
                match reply {
                    Ok(reply) if reply.status().is_success() => {
                        match reply.json::<String>().await {
                            Ok(uid) => {
                                acknowledged.uploads.push((company, uid));
                                true
                            }
                            Err(_) => false,
                        }
                    }
                    _ => false,
                }
            }
            Operation::AttributeWrite => {
                let value = format!("step {step} of {name}");
                let list: Vec<String> = (0..20)
                    .map(|attribute| format!("note_{name}_{attribute}={value}"))
                    .collect();
                let body = double_encoded_strings(&list);
                let path = format!("/api/FileAttributes?fileUID={file}&deleteExisting=false");
                let reply = client
                    .send(
                        |http, base, token| {
                            http.put(format!("{base}{path}"))
                                .bearer_auth(token)
                                .header("Content-Type", "application/json")
                                .body(body.clone())
                        },
                        retries,
                    )
                    .await;
                let ok = answered(reply).await;
                if ok {
                    last_writes.insert(file.clone(), value);
                }
                ok
            }
            Operation::RecordRead => {
                let record = format!("/api/File?fileUID={file}");
                let status = format!("/api/FileStatus?fileUID={file}");
                let first = client
                    .send(
                        |http, base, token| http.get(format!("{base}{record}")).bearer_auth(token),
                        retries,
                    )
                    .await;
                answered(first).await && {
                    let second = client
                        .send(
                            |http, base, token| {
                                http.get(format!("{base}{status}")).bearer_auth(token)
                            },
                            retries,
                        )
                        .await;
                    answered(second).await
                }
            }
            Operation::Login => client.log_in_again(&name, retries).await,
        };
        samples.push(TimedSample {
            sample: Sample {
                operation,
                elapsed: started.elapsed(),
                ok,
            },
            started,
        });
        counters.done.fetch_add(1, Ordering::Relaxed);
    }
    for (file, value) in last_writes {
        acknowledged
            .attribute_writes
            .push((company, file, format!("note_{name}_0"), value));
    }
    (samples, acknowledged)
}

/// CPU seconds over a run, by who spent them.
#[derive(Clone, Copy, Default)]
struct CpuSpent {
    /// The node processes themselves: HTTP, JSON, login hashing, pictures (analysed on the node's
    /// blocking threads), the database client, the in-memory visual index.
    nodes: f64,
    /// The nodes' reader worker processes (models and drawings; pictures are read in the node).
    readers: f64,
    /// The PostgreSQL server's processes (the postmaster, its backends, live and ended).
    database: f64,
    /// This bench process: the 32 clients (pictures drawn, requests sent).
    clients: f64,
}

/// One process's line of `/proc/PID/stat`: parent, command name, own and reaped children's ticks.
struct ProcessTicks {
    parent: u32,
    command: String,
    own: u64,
    children: u64,
}

/// Every process's ticks, by process id.
fn process_table() -> HashMap<u32, ProcessTicks> {
    let mut table = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return table;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let command = stat[open + 1..close].to_owned();
        let fields: Vec<u64> = stat[close + 1..]
            .split_whitespace()
            .skip(1)
            .map(|field| field.parse().unwrap_or(0))
            .collect();
        if fields.len() < 14 {
            continue;
        }
        table.insert(
            pid,
            ProcessTicks {
                parent: fields[0] as u32,
                command,
                own: fields[10] + fields[11],
                children: fields[12] + fields[13],
            },
        );
    }
    table
}

/// True when `pid` is `ancestor` or one of its descendants in `table`.
fn descends_from(table: &HashMap<u32, ProcessTicks>, mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..64 {
        if pid == ancestor {
            return true;
        }
        match table.get(&pid) {
            Some(process) if process.parent != pid && process.parent != 0 => pid = process.parent,
            _ => return false,
        }
    }
    false
}

/// CPU seconds spent so far by the nodes `node_pids` (and their readers), the PostgreSQL server
/// this process started and this process.
fn cpu_so_far(node_pids: &[u32]) -> BTreeMap<&'static str, f64> {
    let table = process_table();
    let me = std::process::id();
    let mut spent = BTreeMap::new();
    for (&pid, process) in &table {
        let seconds = |ticks: u64| ticks as f64 / TICKS_PER_SECOND;
        if pid == me {
            *spent.entry("clients").or_insert(0.0) += seconds(process.own);
        } else if node_pids.contains(&pid) {
            *spent.entry("nodes").or_insert(0.0) += seconds(process.own);
            *spent.entry("readers").or_insert(0.0) += seconds(process.children);
        } else if node_pids
            .iter()
            .any(|&node| descends_from(&table, pid, node))
        {
            *spent.entry("readers").or_insert(0.0) += seconds(process.own);
        } else if process.command == "postgres" && descends_from(&table, pid, me) {
            // Only the postmaster holds its ended backends' ticks as `children`.
            *spent.entry("database").or_insert(0.0) += seconds(process.own + process.children);
        }
    }
    spent
}

/// Samples `cpu_so_far` every 200 ms until `stop`, keeping per node the last value seen (a killed
/// node's ticks end with it); returns the CPU spent from the first sample to the last.
fn watch_cpu(node_pids: Vec<u32>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<CpuSpent> {
    std::thread::spawn(move || {
        let per_node = |pid: u32| cpu_so_far(&[pid]);
        let first_nodes: Vec<_> = node_pids.iter().map(|&pid| per_node(pid)).collect();
        let first = cpu_so_far(&[]);
        let mut last_nodes = first_nodes.clone();
        let mut last = first.clone();
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            for (index, &pid) in node_pids.iter().enumerate() {
                let now = per_node(pid);
                if now.contains_key("nodes") {
                    last_nodes[index] = now;
                }
            }
            last = cpu_so_far(&[]);
        }
        let delta = |after: &BTreeMap<&str, f64>, before: &BTreeMap<&str, f64>, key: &str| {
            after.get(key).copied().unwrap_or(0.0) - before.get(key).copied().unwrap_or(0.0)
        };
        let mut spent = CpuSpent {
            database: delta(&last, &first, "database"),
            clients: delta(&last, &first, "clients"),
            ..CpuSpent::default()
        };
        for (after, before) in last_nodes.iter().zip(&first_nodes) {
            spent.nodes += delta(after, before, "nodes");
            spent.readers += delta(after, before, "readers");
        }
        spent
    })
}

/// What one run on PostgreSQL gave.
struct PostgresRun {
    samples: Vec<TimedSample>,
    started: Instant,
    ended: Instant,
    killed_at: Option<Instant>,
    retries: usize,
    lost_uploads: usize,
    failed_indexing: usize,
    uploads_checked: usize,
    lost_writes: usize,
    writes_checked: usize,
    cpu: CpuSpent,
}

/// Runs the clients against `nodes` nodes on a fresh database (node A SIGKILLed halfway when
/// `kill_halfway`), then checks what was acknowledged on the last node.
async fn run_nodes(
    database_url: String,
    nodes: usize,
    kill_halfway: bool,
    operations: usize,
) -> PostgresRun {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).expect("the data folder");
    let (setup_data, setup_url) = (data.clone(), database_url.clone());
    tokio::task::spawn_blocking(move || add_users_through_the_program(&setup_data, &setup_url))
        .await
        .expect("the users are added");
    let mut started_nodes: Vec<Node> = Vec::new();
    for _ in 0..nodes {
        started_nodes.push(Node::start(&data, &database_url));
    }
    let bases: Vec<String> = started_nodes.iter().map(|node| node.base.clone()).collect();
    let node_pids: Vec<u32> = started_nodes.iter().map(|node| node.child.id()).collect();
    let files = seed(&bases[0]).await;
    let counters = Arc::new(RunCounters {
        done: AtomicUsize::new(0),
        retries: AtomicUsize::new(0),
    });
    let stop_watching = Arc::new(AtomicBool::new(false));
    let cpu = watch_cpu(node_pids, stop_watching.clone());
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|index| {
            tokio::spawn(failover_session(
                bases.clone(),
                index,
                files[index % COMPANIES].clone(),
                operations,
                counters.clone(),
            ))
        })
        .collect();
    let victim = Arc::new(Mutex::new(if kill_halfway && nodes > 1 {
        Some(started_nodes.remove(0))
    } else {
        None
    }));
    let killer = {
        let (victim, counters) = (victim.clone(), counters.clone());
        tokio::spawn(async move {
            let half = CLIENTS * operations / 2;
            loop {
                if victim.lock().map(|held| held.is_none()).unwrap_or(true) {
                    return None;
                }
                if counters.done.load(Ordering::Relaxed) >= half {
                    let mut held = victim.lock().ok()?;
                    if let Some(node) = held.as_mut() {
                        // SIGKILL on Unix: no shutdown, no goodbye to the database.
                        let _ = node.child.kill();
                        let _ = node.child.wait();
                    }
                    return Some(Instant::now());
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let mut samples = Vec::new();
    let mut acknowledged = Vec::new();
    for client in clients {
        let (client_samples, client_acknowledged) = client.await.expect("a client session");
        samples.extend(client_samples);
        acknowledged.push(client_acknowledged);
    }
    let ended = Instant::now();
    let killed_at = killer.await.ok().flatten();
    stop_watching.store(true, Ordering::Relaxed);
    let cpu = cpu.join().unwrap_or_default();
    let survivor = started_nodes.last().expect("a node").base.clone();
    let check = check_acknowledged(&survivor, &acknowledged).await;
    PostgresRun {
        samples,
        started,
        ended,
        killed_at,
        retries: counters.retries.load(Ordering::Relaxed),
        cpu,
        ..check
    }
}

/// Asks `survivor` for every acknowledged upload (it exists, and ends indexed within
/// `INDEXING_DEADLINE`) and every client's last acknowledged attribute write per file.
async fn check_acknowledged(survivor: &str, acknowledged: &[Acknowledged]) -> PostgresRun {
    let mut bosses = Vec::new();
    for company in 0..COMPANIES {
        bosses.push(
            FailoverClient::log_in(vec![survivor.to_owned()], 0, &format!("boss{company}")).await,
        );
    }
    let retries = AtomicUsize::new(0);
    let uploads: Vec<&(usize, String)> = acknowledged
        .iter()
        .flat_map(|client| &client.uploads)
        .collect();
    let mut pending: Vec<(usize, String)> = uploads.iter().map(|&upload| upload.clone()).collect();
    let (mut lost_uploads, mut failed_indexing) = (0, 0);
    let deadline = Instant::now() + INDEXING_DEADLINE;
    while !pending.is_empty() && Instant::now() < deadline {
        let mut still = Vec::new();
        for (company, uid) in pending {
            let path = format!("/api/FileStatus?fileUID={uid}");
            let reply = bosses[company]
                .send(
                    |http, base, token| http.get(format!("{base}{path}")).bearer_auth(token),
                    &retries,
                )
                .await;
            match reply.map(|reply| reply.status().as_u16()) {
                Ok(200) => {}
                Ok(404) => lost_uploads += 1,
                Ok(422) => failed_indexing += 1,
                _ => still.push((company, uid)),
            }
        }
        pending = still;
        if !pending.is_empty() {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    // Still in progress at the deadline: not indexed, counted as lost.
    lost_uploads += pending.len();
    let mut lost_writes = 0;
    let mut writes_checked = 0;
    for (company, file, attribute, value) in acknowledged
        .iter()
        .flat_map(|client| &client.attribute_writes)
    {
        writes_checked += 1;
        // The file record's `Attributes` (`name=value` strings); `GET /api/FileAttributes` lists the
        // company's attribute names only.
        let path = format!("/api/File?fileUID={file}");
        let reply = bosses[*company]
            .send(
                |http, base, token| http.get(format!("{base}{path}")).bearer_auth(token),
                &retries,
            )
            .await;
        let body = match reply {
            Ok(reply) if reply.status().is_success() => reply.text().await.unwrap_or_default(),
            _ => String::new(),
        };
        let written_back = body.contains(&format!("\"{attribute}={value}\""));
        if !written_back {
            if lost_writes == 0 {
                eprintln!("first lost write: {attribute}={value} not in {body}");
            }
            lost_writes += 1;
        }
    }
    PostgresRun {
        samples: Vec::new(),
        started: Instant::now(),
        ended: Instant::now(),
        killed_at: None,
        retries: 0,
        lost_uploads,
        failed_indexing,
        uploads_checked: uploads.len(),
        lost_writes,
        writes_checked,
        cpu: CpuSpent::default(),
    }
}

/// One column of the tables: a phase of a run, with its samples and how long it lasted.
struct Phase<'run> {
    name: &'static str,
    samples: Vec<&'run Sample>,
    seconds: f64,
}

impl Phase<'_> {
    /// Requests answered a second (a record read is two requests, counted as one operation).
    fn operations_per_second(&self) -> f64 {
        self.samples.len() as f64 / self.seconds.max(1e-9)
    }
}

/// The phases of run `run`: all of it, or before and after the kill.
fn phases<'run>(run: &'run PostgresRun, name: &'static str) -> Vec<Phase<'run>> {
    let Some(killed_at) = run.killed_at else {
        return vec![Phase {
            name,
            samples: run.samples.iter().map(|timed| &timed.sample).collect(),
            seconds: (run.ended - run.started).as_secs_f64(),
        }];
    };
    let before: Vec<&Sample> = run
        .samples
        .iter()
        .filter(|timed| timed.started < killed_at)
        .map(|timed| &timed.sample)
        .collect();
    let after: Vec<&Sample> = run
        .samples
        .iter()
        .filter(|timed| timed.started >= killed_at)
        .map(|timed| &timed.sample)
        .collect();
    vec![
        Phase {
            name: "two nodes, before the kill",
            samples: before,
            seconds: (killed_at - run.started).as_secs_f64(),
        },
        Phase {
            name: "one survivor, after the kill",
            samples: after,
            seconds: (run.ended - killed_at).as_secs_f64(),
        },
    ]
}

/// `service_load -- postgres [--quick]`: runs A and B and prints their tables.
pub fn main_postgres(quick: bool) {
    let operations = if quick { OPERATIONS / 10 } else { OPERATIONS };
    let Some(first_database) = partlens_testkit::postgres::database() else {
        println!(
            "no PostgreSQL server (set PARTLENS_PG_BIN, see partlens_testkit::postgres): nothing measured"
        );
        return;
    };
    let second_database = partlens_testkit::postgres::database().expect("a second database");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    eprintln!("run A: one node on PostgreSQL");
    let one = runtime.block_on(run_nodes(first_database.url.clone(), 1, false, operations));
    eprintln!("run B: two nodes on PostgreSQL, node A SIGKILLed halfway");
    let two = runtime.block_on(run_nodes(second_database.url.clone(), 2, true, operations));
    let mut columns = phases(&one, "one node");
    let two_phases = phases(&two, "two nodes");
    let two_overall = Phase {
        name: "two nodes, whole run",
        samples: two.samples.iter().map(|timed| &timed.sample).collect(),
        seconds: (two.ended - two.started).as_secs_f64(),
    };
    columns.extend(two_phases);
    columns.push(two_overall);
    let baseline = columns[0].operations_per_second();

    println!("| run | operations | errors | operations/s | × one node | p50 | p95 |");
    println!("|---|---|---|---|---|---|---|");
    for phase in &columns {
        let mut all: Vec<Duration> = phase.samples.iter().map(|sample| sample.elapsed).collect();
        all.sort();
        println!(
            "| {} | {} | {} | {:.1} | {:.2}× | {} | {} |",
            phase.name,
            phase.samples.len(),
            phase.samples.iter().filter(|sample| !sample.ok).count(),
            phase.operations_per_second(),
            phase.operations_per_second() / baseline.max(1e-9),
            ms(percentile(&all, 0.5)),
            ms(percentile(&all, 0.95)),
        );
    }
    println!();
    print!("| p50 / p95 by request |");
    for phase in &columns {
        print!(" {} |", phase.name);
    }
    println!();
    println!("|---|{}", "---|".repeat(columns.len()));
    for operation in [
        Operation::TextSearch,
        Operation::PictureSearch,
        Operation::Upload,
        Operation::AttributeWrite,
        Operation::RecordRead,
        Operation::Login,
    ] {
        print!("| {} |", operation.name());
        for phase in &columns {
            let owned: Vec<Sample> = phase
                .samples
                .iter()
                .map(|sample| Sample {
                    operation: sample.operation,
                    elapsed: sample.elapsed,
                    ok: sample.ok,
                })
                .collect();
            let times = latencies(&owned, Some(operation));
            print!(
                " {} / {} |",
                ms(percentile(&times, 0.5)),
                ms(percentile(&times, 0.95))
            );
        }
        println!();
    }
    println!();
    println!("| checked on the survivor (run B) | count |");
    println!("|---|---|");
    println!("| acknowledged uploads | {} |", two.uploads_checked);
    println!(
        "| lost uploads (404, or not indexed within {} s) | {} |",
        INDEXING_DEADLINE.as_secs(),
        two.lost_uploads
    );
    println!(
        "| uploads whose indexing failed (422) | {} |",
        two.failed_indexing
    );
    println!(
        "| acknowledged attribute writes (a client's last per file) | {} |",
        two.writes_checked
    );
    println!(
        "| acknowledged attribute writes lost | {} |",
        two.lost_writes
    );
    println!(
        "| retries on the other node (closed or refused connection) | {} |",
        two.retries
    );
    println!(
        "| errors (any other unexpected reply), after the kill | {} |",
        phases(&two, "").last().map_or(0, |after| after
            .samples
            .iter()
            .filter(|sample| !sample.ok)
            .count())
    );
    println!(
        "| errors (any other unexpected reply), whole run | {} |",
        two.samples.iter().filter(|timed| !timed.sample.ok).count()
    );
    println!();
    println!("| CPU seconds over the run (2 cores) | one node | two nodes (A until killed) |");
    println!("|---|---|---|");
    let wall = |run: &PostgresRun| (run.ended - run.started).as_secs_f64();
    for (label, pick) in [
        (
            "node processes (HTTP, JSON, login hashing, pictures analysed on blocking threads, database client, visual index)",
            (|cpu: &CpuSpent| cpu.nodes) as fn(&CpuSpent) -> f64,
        ),
        (
            "reader worker processes (models and drawings only; none here)",
            |cpu| cpu.readers,
        ),
        ("PostgreSQL (postmaster and backends)", |cpu| cpu.database),
        ("bench clients (this process)", |cpu| cpu.clients),
    ] {
        println!(
            "| {label} | {:.1} s ({:.0} % of 2 cores) | {:.1} s ({:.0} % of 2 cores) |",
            pick(&one.cpu),
            100.0 * pick(&one.cpu) / (2.0 * wall(&one)),
            pick(&two.cpu),
            100.0 * pick(&two.cpu) / (2.0 * wall(&two)),
        );
    }
    println!("| wall | {:.1} s | {:.1} s |", wall(&one), wall(&two));
}
