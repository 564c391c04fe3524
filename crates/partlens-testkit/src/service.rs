//! Shared helpers of the service tests: an in-process service on 127.0.0.1:0 over a temporary data
//! directory, the `partlens-service` binary as a child process, logged-in sessions speaking raw
//! HTTP, test images, waiting with a deadline.
//!
//! **Two stores, one suite.** A [`TestService`] keeps its records in SQLite (the default), or in a
//! fresh PostgreSQL database of its own when [`STORE_ENV`] is `postgres` (every test of the run) or
//! when a test asks with [`TestService::start_on`] (see [`crate::postgres`] for the server).

// Not every test file uses every helper; a failure in a helper is a failed test.

use std::future::Future;
use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use image::{ImageFormat, RgbImage};
use partlens_api::encoding::{QueryString, base64_file_body, password_digest};
use partlens_engine::samples::parts::{Pose, draw_part};
use partlens_service::{RunningService, ServiceConfig, admin};
use partlens_store::DatabaseUrl;
use reqwest::{Method, StatusCode};
use tempfile::TempDir;

use crate::postgres::TestDatabase;

/// The environment variable choosing the store every [`TestService`] of a run uses: `postgres`,
/// or `sqlite` (the default).
pub const STORE_ENV: &str = "PARTLENS_TEST_STORE";

/// Which store a test service keeps its records in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// The SQLite file in the data directory.
    Sqlite,
    /// A fresh PostgreSQL database on the test binary's server.
    Postgres,
}

impl StoreKind {
    /// The store [`STORE_ENV`] asks for (SQLite when it is unset).
    pub fn from_env() -> Self {
        match std::env::var(STORE_ENV).as_deref() {
            Ok("postgres" | "postgresql") => Self::Postgres,
            Ok("" | "sqlite") | Err(_) => Self::Sqlite,
            Ok(other) => panic!("{STORE_ENV}={other}: use postgres or sqlite"),
        }
    }

    /// A database for a service of this kind: `None` for SQLite; for PostgreSQL a fresh one, or
    /// `None` when there is no server and the test is to be skipped (off CI only).
    fn database(self) -> Option<TestDatabase> {
        match self {
            Self::Sqlite => None,
            Self::Postgres => crate::postgres::database(),
        }
    }
}

/// The password every test user gets.
pub const PASSWORD: &str = "correct horse";

/// A service running in this test, with its data directory.
pub struct TestService {
    /// The data directory (removed when the test ends).
    pub dir: TempDir,
    /// The configuration it was started with (the address is reused by restarts only as 127.0.0.1:0).
    pub config: ServiceConfig,
    service: Option<RunningService>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The PostgreSQL database it keeps its records in, when it does (dropped after the service).
    pub database: Option<TestDatabase>,
}

impl TestService {
    /// Starts a service with the defaults (two workers) and the users of [`add_standard_users`].
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// Starts a service whose configuration `adjust` may change, on the store [`STORE_ENV`] asks
    /// for. Panics when that is PostgreSQL and there is no server: a run asked for it.
    pub async fn start_with(adjust: impl FnOnce(&mut ServiceConfig)) -> Self {
        let kind = StoreKind::from_env();
        match Self::start_on(kind, adjust).await {
            Some(service) => service,
            None => panic!("{STORE_ENV}=postgres, but there is no PostgreSQL server (see above)"),
        }
    }

    /// Starts a service on the store `kind` with the users of [`add_standard_users`], its
    /// configuration changed by `adjust`; `None` when `kind` is PostgreSQL and there is no server
    /// off CI (the test is then skipped; under CI it fails instead).
    pub async fn start_on(
        kind: StoreKind,
        adjust: impl FnOnce(&mut ServiceConfig),
    ) -> Option<Self> {
        let database = kind.database();
        if kind == StoreKind::Postgres && database.is_none() {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut config = ServiceConfig::new(dir.path());
        config.addr = "127.0.0.1:0".parse().unwrap();
        config.database = database
            .as_ref()
            .map(|database| DatabaseUrl::parse(&database.url).unwrap());
        adjust(&mut config);
        // Blocking store work off the async runtime: PostgreSQL's synchronous client may not
        // block a thread that drives async tasks.
        let users = config.clone();
        tokio::task::spawn_blocking(move || add_standard_users(&users))
            .await
            .unwrap();
        let service = RunningService::start(config.clone()).await.unwrap();
        let base = service.base_url();
        Some(Self {
            dir,
            config,
            service: Some(service),
            base,
            database,
        })
    }

    /// Stops the service and starts it again on the same data directory (a new port), with the
    /// configuration changed by `adjust`.
    pub async fn restart_with(&mut self, adjust: impl FnOnce(&mut ServiceConfig)) {
        if let Some(service) = self.service.take() {
            service.shutdown().await;
        }
        adjust(&mut self.config);
        let service = RunningService::start(self.config.clone()).await.unwrap();
        self.base = service.base_url();
        self.service = Some(service);
    }

    /// Starts another service process on this service's PostgreSQL database, with a data folder
    /// of its own (returned: keep it while the node runs), on a free port, its configuration
    /// changed by `adjust`.
    pub async fn another_node(
        &self,
        adjust: impl FnOnce(&mut ServiceConfig),
    ) -> (RunningService, TempDir) {
        let database = self
            .database
            .as_ref()
            .expect("another node needs PostgreSQL");
        let dir = tempfile::tempdir().unwrap();
        let mut config = ServiceConfig::new(dir.path());
        config.addr = "127.0.0.1:0".parse().unwrap();
        config.database = Some(DatabaseUrl::parse(&database.url).unwrap());
        adjust(&mut config);
        (RunningService::start(config).await.unwrap(), dir)
    }

    /// Stops the service.
    pub async fn stop(&mut self) {
        if let Some(service) = self.service.take() {
            service.shutdown().await;
        }
    }

    /// Adds (or resets) a user in the store this service runs on, as `partlens-service user add`
    /// does with the service's `--data` and `--database`.
    pub async fn add_user(&self, company: &str, user: &str, password: &str, is_admin: bool) {
        let config = self.config.clone();
        let (company, user, password) = (company.to_owned(), user.to_owned(), password.to_owned());
        tokio::task::spawn_blocking(move || {
            admin::add_user_in(
                &config.data_dir,
                config.database.as_ref(),
                &company,
                &user,
                &password,
                is_admin,
            )
        })
        .await
        .unwrap()
        .unwrap();
    }

    /// Registers a client id in the store this service runs on.
    pub async fn add_client(&self, client_id: &str) {
        let config = self.config.clone();
        let client_id = client_id.to_owned();
        tokio::task::spawn_blocking(move || {
            admin::add_client_in(&config.data_dir, config.database.as_ref(), &client_id)
        })
        .await
        .unwrap()
        .unwrap();
    }

    /// Every column of the first row `sql` answers in this service's store (SQLite file or
    /// PostgreSQL database), as text (`None` for NULL); empty for no row. Write `sql` in the SQL
    /// both engines read, with values inline.
    pub fn query_row(&self, sql: &str) -> Vec<Option<String>> {
        if let Some(database) = &self.database {
            return database.query_row_text(sql);
        }
        let connection = self.sqlite();
        let mut statement = connection.prepare(sql).unwrap();
        let columns = statement.column_count();
        let mut rows = statement.query([]).unwrap();
        let Some(row) = rows.next().unwrap() else {
            return Vec::new();
        };
        (0..columns)
            .map(|at| match row.get_ref(at).unwrap() {
                rusqlite::types::ValueRef::Null => None,
                rusqlite::types::ValueRef::Integer(value) => Some(value.to_string()),
                rusqlite::types::ValueRef::Real(value) => Some(value.to_string()),
                rusqlite::types::ValueRef::Text(text) | rusqlite::types::ValueRef::Blob(text) => {
                    Some(String::from_utf8_lossy(text).into_owned())
                }
            })
            .collect()
    }

    /// The first column of the first row `sql` answers (see [`TestService::query_row`]).
    pub fn query_text(&self, sql: &str) -> Option<String> {
        self.query_row(sql).into_iter().next().flatten()
    }

    /// Runs `sql` (statements in the SQL both engines read, with values inline) on this service's
    /// store, beside the running service or while it is stopped.
    pub fn execute(&self, sql: &str) {
        match &self.database {
            Some(database) => database.execute(sql),
            None => self.sqlite().execute_batch(sql).unwrap(),
        }
    }

    /// Sets the stored view descriptors of a file to `bytes` in this service's store (beside the
    /// running service), as a damaged page or an earlier engine would leave them.
    pub fn set_descriptors(&self, uid: &str, bytes: &[u8]) {
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        let changed = match &self.database {
            Some(database) => {
                let before = database
                    .query_text(&format!(
                        "SELECT count(*) FROM views WHERE file_uid = '{uid}'"
                    ))
                    .unwrap_or_default();
                database.execute(&format!(
                    "UPDATE views SET descriptor = decode('{hex}', 'hex') WHERE file_uid = '{uid}'"
                ));
                before.parse::<usize>().unwrap_or(0)
            }
            None => self
                .sqlite()
                .execute(
                    &format!("UPDATE views SET descriptor = x'{hex}' WHERE file_uid = ?1"),
                    [uid],
                )
                .unwrap(),
        };
        assert!(changed > 0, "{uid} has no stored views");
    }

    /// The first stored view descriptor of a file in this service's store.
    pub fn first_descriptor(&self, uid: &str) -> Vec<u8> {
        match &self.database {
            Some(database) => {
                let hex = database
                    .query_text(&format!(
                        "SELECT encode(descriptor, 'hex') FROM views WHERE file_uid = '{uid}' \
                         ORDER BY position LIMIT 1"
                    ))
                    .unwrap_or_else(|| panic!("{uid} has no stored views"));
                (0..hex.len() / 2)
                    .map(|at| u8::from_str_radix(&hex[2 * at..2 * at + 2], 16).unwrap())
                    .collect()
            }
            None => self
                .sqlite()
                .query_row(
                    "SELECT descriptor FROM views WHERE file_uid = ?1 ORDER BY position LIMIT 1",
                    [uid],
                    |row| row.get(0),
                )
                .unwrap(),
        }
    }

    /// [`damage_descriptors`] in this service's store, whichever it is.
    pub fn damage_descriptors(&self, uid: &str) {
        self.set_descriptors(uid, &[0x00, 0xff, 0x00]);
    }

    /// A connection to the SQLite file of this service's data directory.
    fn sqlite(&self) -> rusqlite::Connection {
        let connection =
            rusqlite::Connection::open(self.config.data_dir.join(partlens_store::DATABASE_FILE))
                .unwrap();
        connection.busy_timeout(Duration::from_secs(10)).unwrap();
        connection
    }

    /// A URL of this service.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base)
    }

    /// Logs in as `user` and returns a session.
    pub async fn session(&self, user: &str) -> Session {
        Session::login(&self.base, user).await
    }

    /// A session without a token (or with any token given).
    pub fn anonymous(&self, token: Option<&str>) -> Session {
        Session {
            http: partlens_api::client::plain_http_client(),
            base: self.base.clone(),
            token: token.map(str::to_owned),
        }
    }
}

/// Users of every test: company Acme with `admin` (admin), `ann` and `bob`; company Globex with `gus`.
pub fn add_standard_users(config: &ServiceConfig) {
    for (company, user, is_admin) in [
        ("Acme", "admin", true),
        ("Acme", "ann", false),
        ("Acme", "bob", false),
        ("Globex", "gus", false),
    ] {
        admin::add_user_in(
            &config.data_dir,
            config.database.as_ref(),
            company,
            user,
            PASSWORD,
            is_admin,
        )
        .unwrap();
    }
}

/// A raw HTTP reply: status, headers, body.
#[derive(Debug)]
pub struct Reply {
    /// HTTP status.
    pub status: StatusCode,
    /// Headers.
    pub headers: reqwest::header::HeaderMap,
    /// Body bytes.
    pub body: bytes::Bytes,
}

impl Reply {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text()))
    }

    /// The body as a JSON string's content.
    pub fn string(&self) -> String {
        match self.json() {
            serde_json::Value::String(text) => text,
            other => panic!("not a JSON string: {other}"),
        }
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|value| value.to_str().unwrap().to_owned())
    }

    /// Asserts the status, showing the body when it differs.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text());
        self
    }
}

/// A user talking to the service over plain HTTP.
#[derive(Clone)]
pub struct Session {
    /// The HTTP client.
    pub http: reqwest::Client,
    /// The service's base URL.
    pub base: String,
    /// The bearer token.
    pub token: Option<String>,
}

impl Session {
    /// Logs in with the password grant.
    pub async fn login(base: &str, user: &str) -> Self {
        let http = partlens_api::client::plain_http_client();
        let reply = http
            .post(format!("{base}/api/Token"))
            .form(&[
                ("grant_type", "password"),
                ("client_id", "partlens"),
                ("username", user),
                ("password", password_digest(PASSWORD).as_str()),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), StatusCode::OK);
        let body: serde_json::Value = reply.json().await.unwrap();
        Self {
            http,
            base: base.to_owned(),
            token: Some(body["access_token"].as_str().unwrap().to_owned()),
        }
    }

    /// Sends a request with the token (when there is one) and reads the whole reply.
    pub async fn send(
        &self,
        method: Method,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Option<reqwest::Body>,
    ) -> Reply {
        let mut request = self
            .http
            .request(method, format!("{}{path_and_query}", self.base))
            .header("Accept", "application/json");
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(content_type) = content_type {
            request = request.header("Content-Type", content_type);
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        let response = request.send().await.unwrap();
        Reply {
            status: response.status(),
            headers: response.headers().clone(),
            body: response.bytes().await.unwrap(),
        }
    }

    /// GET.
    pub async fn get(&self, path_and_query: &str) -> Reply {
        self.send(Method::GET, path_and_query, None, None).await
    }

    /// DELETE.
    pub async fn delete(&self, path_and_query: &str) -> Reply {
        self.send(Method::DELETE, path_and_query, None, None).await
    }

    /// PUT with a JSON body given as text.
    pub async fn put_json(&self, path_and_query: &str, body: impl Into<String>) -> Reply {
        self.send(
            Method::PUT,
            path_and_query,
            Some("application/json"),
            Some(reqwest::Body::from(body.into())),
        )
        .await
    }

    /// PUT with raw bytes.
    pub async fn put_binary(&self, path_and_query: &str, bytes: Vec<u8>) -> Reply {
        self.send(
            Method::PUT,
            path_and_query,
            Some("application/octet-stream"),
            Some(reqwest::Body::from(bytes)),
        )
        .await
    }

    /// Uploads a company-database file with `PUT /api/FileBinary` and returns its UID.
    pub async fn upload_database_file(
        &self,
        stored_path: &str,
        bytes: Vec<u8>,
        attributes: &[(&str, &str)],
    ) -> String {
        let mut query = QueryString::new();
        query
            .push("file", stored_path)
            .push("isSearchInput", "false");
        if !attributes.is_empty() {
            let pairs: Vec<(String, String)> = attributes
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect();
            query.push(
                "attributes",
                partlens_api::encoding::nested_attributes_query(&pairs),
            );
        }
        let reply = self
            .put_binary(&format!("/api/FileBinary?{query}"), bytes)
            .await;
        reply.expect(200);
        reply.string()
    }

    /// Uploads a search input with `PUT /api/File` (base64 JSON string) and returns its UID.
    pub async fn upload_search_input(
        &self,
        extension: &str,
        bytes: &[u8],
        index_async: bool,
    ) -> String {
        let reply = self
            .put_json(
                &format!("/api/File?file={extension}&indexAsync={index_async}"),
                base64_file_body(bytes),
            )
            .await;
        reply.expect(200);
        reply.string()
    }

    /// The record of a file (`GET /api/File`, which must answer 200), as JSON.
    pub async fn file_record(&self, uid: &str) -> serde_json::Value {
        let reply = self.get(&format!("/api/File?fileUID={uid}")).await;
        reply.expect(200);
        reply.json()
    }

    /// How many database files the company's Library lists (`GET /api/Files`).
    pub async fn library_total(&self) -> u64 {
        let reply = self.get("/api/Files?limit=500").await;
        reply.expect(200);
        reply.json()["TotalFiles"].as_u64().unwrap()
    }

    /// The saved attributes of a file, as its record lists them.
    pub async fn attributes_of(&self, uid: &str) -> Vec<String> {
        let record = self.get(&format!("/api/File?fileUID={uid}")).await.json();
        record["Attributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|text| text.as_str().unwrap().to_owned())
            .collect()
    }

    /// `GET /api/Search` with an inner filter string.
    pub async fn search(&self, inner_filter: &str) -> Reply {
        let mut query = QueryString::new();
        query.push("filterStr", inner_filter);
        self.get(&format!("/api/Search?{query}")).await
    }

    /// The UIDs of a search reply, in order.
    pub async fn search_uids(&self, inner_filter: &str) -> Vec<String> {
        let reply = self.search(inner_filter).await;
        reply.expect(200);
        result_uids(&reply.json())
    }
}

/// The UIDs of a search reply body, in order.
pub fn result_uids(body: &serde_json::Value) -> Vec<String> {
    body["ResultsList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["UID"].as_str().unwrap().to_owned())
        .collect()
}

/// Shapes of test parts: sample parts of the library's generator that the visual descriptor tells
/// apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A round part: the washer.
    Disc,
    /// A long part lying down: the stepped shaft.
    HorizontalBar,
    /// A long part standing up: the bolt, turned upright.
    VerticalBar,
    /// An L-shaped part: the L-bracket.
    Bracket,
}

/// A 128×128 picture of a shape, drawn by the library's sample generator with light noise from
/// `seed`, so two seeds give near-identical but not equal pictures.
pub fn part_image(shape: Shape, seed: u32) -> RgbImage {
    let noisy = Pose::noisy(seed.into());
    let (name, pose) = match shape {
        Shape::Disc => ("washer", noisy),
        Shape::HorizontalBar => ("stepped-shaft", noisy),
        Shape::VerticalBar => (
            "bolt",
            Pose {
                rotation_degrees: 90.0,
                ..noisy
            },
        ),
        Shape::Bracket => ("l-bracket", noisy),
    };
    draw_part(name, &pose, 128).unwrap()
}

/// Encodes a picture in a format.
pub fn encode(image: &RgbImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut bytes), format)
        .unwrap();
    assert!(
        bytes.len() >= 1024,
        "{format:?} is only {} bytes",
        bytes.len()
    );
    bytes
}

/// A PNG of a shape.
pub fn png(shape: Shape, seed: u32) -> Vec<u8> {
    encode(&part_image(shape, seed), ImageFormat::Png)
}

/// Waits until `check` returns `Some`, polling every 50 ms, failing after `deadline`.
pub async fn wait_until<T, F, Fut>(deadline: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let started = tokio::time::Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(started.elapsed() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A child process that is killed when dropped, so a failed assertion leaves no process behind.
pub struct Child(pub std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The command line of `partlens-service --data DATA serve --addr 127.0.0.1:0 EXTRA…`.
pub fn serve_command(data: &std::path::Path, extra: &[&str]) -> Command {
    let mut command = Command::new(crate::program("partlens-service"));
    command
        .arg("--data")
        .arg(data)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(extra);
    command
}

/// The first line a child started with a piped stdout writes there (with its newline), read off
/// the async runtime.
pub async fn first_stdout_line(child: &mut Child) -> String {
    let stdout = child.0.stdout.take().unwrap();
    tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap();
        line
    })
    .await
    .unwrap()
}

/// Starts a service command (see [`serve_command`]) and returns it with its base URL, read from its
/// first line (`listening on URL`).
pub async fn serve_child(mut command: Command) -> (Child, String) {
    let mut server = Child(
        command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let first_line = first_stdout_line(&mut server).await;
    let base = first_line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {first_line:?}"))
        .to_owned();
    (server, base)
}

/// Starts `partlens-service serve` on 127.0.0.1:0 over `data` (with `extra` serve options) and
/// returns it with its base URL.
pub async fn serve_binary(data: &std::path::Path, extra: &[&str]) -> (Child, String) {
    serve_child(serve_command(data, extra)).await
}

/// The files under `folder` and its sub-folders (a node's bodies are under `tmp/node-ID/` on
/// PostgreSQL), sorted; none when it does not exist.
pub fn files_under(folder: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Overwrites the stored view descriptors of a file in the database of `data` with bytes that are
/// not a descriptor, as a damaged database page would leave them (beside a running service: the
/// store is in WAL mode).
pub fn damage_descriptors(data: &std::path::Path, uid: &str) {
    let database = rusqlite::Connection::open(data.join(partlens_store::DATABASE_FILE)).unwrap();
    database.busy_timeout(Duration::from_secs(10)).unwrap();
    let changed = database
        .execute(
            "UPDATE views SET descriptor = x'00ff00' WHERE file_uid = ?1",
            [uid],
        )
        .unwrap();
    assert!(changed > 0, "{uid} has no stored views");
}
