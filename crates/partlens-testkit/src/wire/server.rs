//! A strict wire-checking server for the File Indexing and Search Service interface, started inside the
//! test process on 127.0.0.1:0.
//!
//! It is a checker, not an implementation: every request is recorded (method, path, raw query, the
//! headers that matter, body bytes, the reply), and anything off the spec is refused with HTTP 400 and
//! a problem-details body naming the violation (also recorded, so a test can assert that there was
//! none). What passes is answered with spec-shaped data from a small in-memory store: files with
//! scripted FileStatus sequences, company attributes, attribute values, PMI, search results.
//!
//! Tests can also make a path answer a given status and body, drop connections to a path (a network
//! error: the connection closes before any reply), switch single-value replies between JSON strings
//! and bare text, and fetch images from a second listener (the "CDN", a foreign origin that must never
//! see the bearer token).
//!
//! Every reply carries `Connection: close`, so each request arrives on a fresh connection; that lets
//! the listener decide to drop a connection from the request line alone.

use std::collections::{BTreeMap, VecDeque};
use std::future::IntoFuture as _;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use partlens_api::encoding::{
    QueryString, base64_decode, decode_double_encoded_strings, decode_json_string_body,
    decode_nested_attributes_query, password_digest,
};
use partlens_api::filter::SearchFilter;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The user the server knows.
pub const USER: &str = "alice@example.test";
/// That user's plain password (only its SHA-1 hex travels).
pub const PASSWORD: &str = "s3cret pass";
/// The client id the server expects.
pub const CLIENT_ID: &str = "partlens";
/// The bearer token the server issues; tests check it never shows in any output.
pub const TOKEN: &str = "wire-token-7f3a9c1e55";

/// Parameters that exist but are legacy, internal or operator-only: sending one is a violation unless
/// the test allowed them.
const RESTRICTED_PARAMS: &[&str] = &[
    "isGZipCompressed",
    "rmIfDup",
    "isPriority",
    "QRCodeId",
    "attrTemplate",
    "includeShapes",
    "accountName",
];

/// The query parameters of `PUT /api/File` and `PUT /api/FileBinary`.
const UPLOAD_PARAMS: &[&str] = &[
    "file",
    "isGZipCompressed",
    "isSearchInput",
    "indexAsync",
    "attributes",
    "QRCodeId",
    "categoryId",
    "textOnly",
    "attrTemplate",
    "uid",
    "rmIfDup",
    "isPriority",
    "overwriteFile",
    "indexAssemblyComponents",
    "callbackParam",
    "accountName",
];

/// The query parameters of `PUT /api/FileBinaryDirect` (no indexAsync; three record options).
const DIRECT_PARAMS: &[&str] = &[
    "file",
    "isGZipCompressed",
    "isSearchInput",
    "attributes",
    "QRCodeId",
    "categoryId",
    "textOnly",
    "attrTemplate",
    "uid",
    "rmIfDup",
    "isPriority",
    "overwriteFile",
    "indexAssemblyComponents",
    "callbackParam",
    "accountName",
    "includeShapelets",
    "lgFileNumber",
    "includeShapes",
];

/// Parameters whose value must be `true` or `false`.
const BOOLEAN_PARAMS: &[&str] = &[
    "isGZipCompressed",
    "isSearchInput",
    "indexAsync",
    "textOnly",
    "rmIfDup",
    "isPriority",
    "overwriteFile",
    "indexAssemblyComponents",
    "includeShapelets",
    "includeShapes",
    "deleteExisting",
];

/// Parameters whose value must be a GUID.
const GUID_PARAMS: &[&str] = &["fileUID", "uid", "feedbackId"];

/// Which listener a request reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The service's own address.
    Service,
    /// The second listener: a foreign origin standing in for a CDN.
    Cdn,
}

/// How single-value replies (a UID, a feedback id, a timestamp) are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyStyle {
    /// `"3f25…"` (what ASP.NET sends for a string).
    JsonString,
    /// `3f25…` (bare text).
    BareText,
}

/// One request as it arrived, and what the server answered.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Which listener received it.
    pub origin: Origin,
    /// HTTP method.
    pub method: String,
    /// The path as sent (case kept).
    pub path: String,
    /// The raw query string as sent, without `?`.
    pub raw_query: Option<String>,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The `Accept` header.
    pub accept: Option<String>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The body bytes.
    pub body: Vec<u8>,
    /// What was off the spec, if anything.
    pub violation: Option<String>,
    /// True when the connection was dropped on purpose (no reply).
    pub dropped: bool,
    /// The status answered.
    pub reply_status: u16,
    /// The body answered.
    pub reply_body: Vec<u8>,
}

impl Recorded {
    /// True for this method and path (the path compared case-insensitively).
    pub fn is(&self, method: &str, path: &str) -> bool {
        self.method.eq_ignore_ascii_case(method) && self.path.eq_ignore_ascii_case(path)
    }

    /// The raw query string, or "".
    pub fn query(&self) -> &str {
        self.raw_query.as_deref().unwrap_or("")
    }

    /// A decoded query parameter (name compared case-insensitively).
    pub fn param(&self, name: &str) -> Option<String> {
        QueryString::parse(self.query())
            .get(name)
            .map(str::to_owned)
    }

    /// The body as text.
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The reply body parsed as JSON.
    pub fn reply_json(&self) -> Value {
        serde_json::from_slice(&self.reply_body).unwrap_or(Value::Null)
    }
}

/// A file in the server's store.
#[derive(Clone, Debug)]
pub struct StoredFile {
    /// The UID as the server gave it.
    pub uid: String,
    /// Stored path (database files) or `<uid><ext>` (search inputs).
    pub file_name: String,
    /// The attributes, `name=value`.
    pub attributes: Vec<String>,
    /// Search input or company-database file.
    pub is_search_input: bool,
    /// The content.
    pub content: Vec<u8>,
    /// The FileStatus script still to play (the last step repeats).
    pub statuses: VecDeque<u16>,
    /// True once the file is indexed (a sync upload, or a 200 from FileStatus).
    pub indexed: bool,
    /// `ThumbNailURLFromID`.
    pub thumbnail_url: String,
    /// `PNGURLFromID`.
    pub large_image_url: String,
    /// The PMIData reply.
    pub pmi: Value,
    /// The query the file was uploaded with (decoded pairs), when it was uploaded.
    pub upload_query: Vec<(String, String)>,
}

/// A scripted answer for a path.
#[derive(Clone, Debug)]
struct Override {
    method: String,
    path: String,
    reply: OverrideReply,
}

#[derive(Clone, Debug)]
enum OverrideReply {
    Answer { status: u16, body: String },
    Drop,
}

/// A reply before it becomes an HTTP response.
struct Reply {
    status: u16,
    content_type: Option<&'static str>,
    body: Vec<u8>,
    no_store: bool,
    location: Option<String>,
}

impl Reply {
    fn json(status: u16, value: &Value) -> Self {
        Self {
            status,
            content_type: Some("application/json; charset=utf-8"),
            body: value.to_string().into_bytes(),
            no_store: false,
            location: None,
        }
    }

    fn text(status: u16, text: &str) -> Self {
        Self {
            status,
            content_type: Some("text/plain; charset=utf-8"),
            body: text.as_bytes().to_vec(),
            no_store: false,
            location: None,
        }
    }

    fn empty(status: u16) -> Self {
        Self {
            status,
            content_type: None,
            body: Vec::new(),
            no_store: false,
            location: None,
        }
    }

    fn bytes(content_type: &'static str, body: Vec<u8>) -> Self {
        Self {
            status: 200,
            content_type: Some(content_type),
            body,
            no_store: false,
            location: None,
        }
    }

    fn problem(status: u16, title: &str, detail: &str) -> Self {
        Self {
            status,
            content_type: Some("application/problem+json"),
            body: json!({"title": title, "status": status, "detail": detail})
                .to_string()
                .into_bytes(),
            no_store: false,
            location: None,
        }
    }
}

/// A refusal found by a check: the status to answer and the violation to record.
struct Refusal {
    status: u16,
    violation: String,
    body: Option<Reply>,
}

impl Refusal {
    fn bad(violation: impl Into<String>) -> Self {
        Self {
            status: 400,
            violation: violation.into(),
            body: None,
        }
    }

    fn reply(self) -> Reply {
        match self.body {
            Some(reply) => reply,
            None if self.status == 401 => Reply::empty(401),
            None => Reply::problem(
                self.status,
                "Bad Request",
                &format!("wire check: {}", self.violation),
            ),
        }
    }
}

type Checked<T> = Result<T, Refusal>;

/// Everything the server knows and has seen.
struct Store {
    service_url: String,
    cdn_url: String,
    records: Vec<Recorded>,
    files: BTreeMap<String, StoredFile>,
    overrides: Vec<Override>,
    reply_style: ReplyStyle,
    allow_restricted: bool,
    admin: bool,
    async_script: Vec<u16>,
    company_attributes: Value,
    attribute_values: BTreeMap<String, Value>,
    images: BTreeMap<String, Vec<u8>>,
    feedback: Vec<(String, Vec<String>)>,
    next_id: u64,
}

type Shared = Arc<Mutex<Store>>;

/// The server: a service listener and a CDN listener on 127.0.0.1, on a thread of their own.
pub struct WireServer {
    store: Shared,
    service_addr: SocketAddr,
    cdn_addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WireServer {
    /// Starts both listeners and waits until they accept connections.
    pub fn start() -> Self {
        let store: Shared = Arc::new(Mutex::new(Store::new()));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (shutdown_tx, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let thread_store = store.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let service = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let cdn = TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addrs = (service.local_addr().unwrap(), cdn.local_addr().unwrap());
                {
                    let mut store = thread_store.lock().unwrap();
                    store.service_url = format!("http://{}", addrs.0);
                    store.cdn_url = format!("http://{}", addrs.1);
                }
                let service_app = Router::new()
                    .fallback(service_handler)
                    .with_state(thread_store.clone());
                let cdn_app = Router::new()
                    .fallback(cdn_handler)
                    .with_state(thread_store.clone());
                let service = axum::serve(
                    CheckedListener {
                        inner: service,
                        store: thread_store.clone(),
                        origin: Origin::Service,
                    },
                    service_app,
                );
                let cdn = axum::serve(
                    CheckedListener {
                        inner: cdn,
                        store: thread_store.clone(),
                        origin: Origin::Cdn,
                    },
                    cdn_app,
                );
                ready_tx.send(addrs).unwrap();
                tokio::select! {
                    _ = service.into_future() => {}
                    _ = cdn.into_future() => {}
                    _ = shutdown_rx => {}
                }
            });
        });
        let (service_addr, cdn_addr) = ready_rx.recv().unwrap();
        Self {
            store,
            service_addr,
            cdn_addr,
            shutdown: Some(shutdown_tx),
            thread: Some(thread),
        }
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap()
    }

    /// The service's base address, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.service_addr)
    }

    /// The CDN's base address (another port: a foreign origin).
    pub fn cdn_url(&self) -> String {
        format!("http://{}", self.cdn_addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.store().records.clone()
    }

    /// How many requests arrived so far.
    pub fn request_count(&self) -> usize {
        self.store().records.len()
    }

    /// The requests to one endpoint (path compared case-insensitively).
    pub fn requests_to(&self, method: &str, path: &str) -> Vec<Recorded> {
        self.store()
            .records
            .iter()
            .filter(|record| record.is(method, path))
            .cloned()
            .collect()
    }

    /// The one request to an endpoint; panics when there is not exactly one.
    pub fn only(&self, method: &str, path: &str) -> Recorded {
        let mut found = self.requests_to(method, path);
        assert_eq!(
            found.len(),
            1,
            "expected one {method} {path}, got {:#?}",
            self.summary()
        );
        found.remove(0)
    }

    /// Every recorded violation.
    pub fn violations(&self) -> Vec<String> {
        self.store()
            .records
            .iter()
            .filter_map(|record| record.violation.clone())
            .collect()
    }

    /// Panics when any request was off the spec.
    pub fn assert_clean(&self) {
        let violations = self.violations();
        assert!(violations.is_empty(), "wire violations: {violations:#?}");
    }

    /// `METHOD path?query -> status` of every request, for failure messages.
    pub fn summary(&self) -> Vec<String> {
        self.store()
            .records
            .iter()
            .map(|record| {
                format!(
                    "{} {}?{} -> {}{}",
                    record.method,
                    record.path,
                    record.query(),
                    record.reply_status,
                    record
                        .violation
                        .as_ref()
                        .map(|violation| format!(" VIOLATION {violation}"))
                        .unwrap_or_default()
                )
            })
            .collect()
    }

    /// Makes every later `method path` request get this status and body (after the spec checks).
    pub fn answer(&self, method: &str, path: &str, status: u16, body: &str) {
        self.store().overrides.push(Override {
            method: method.to_ascii_uppercase(),
            path: path.to_ascii_lowercase(),
            reply: OverrideReply::Answer {
                status,
                body: body.to_owned(),
            },
        });
    }

    /// Makes every later `method path` request lose its connection before any reply.
    pub fn drop_connections(&self, method: &str, path: &str) {
        self.store().overrides.push(Override {
            method: method.to_ascii_uppercase(),
            path: path.to_ascii_lowercase(),
            reply: OverrideReply::Drop,
        });
    }

    /// Forgets every scripted answer and drop.
    pub fn clear_answers(&self) {
        self.store().overrides.clear();
    }

    /// How single-value replies are written from now on.
    pub fn set_reply_style(&self, style: ReplyStyle) {
        self.store().reply_style = style;
    }

    /// Allows the legacy, internal and operator-only parameters.
    pub fn allow_restricted_params(&self) {
        self.store().allow_restricted = true;
    }

    /// Makes the logged-in user an admin (may delete company-database files).
    pub fn set_admin(&self, admin: bool) {
        self.store().admin = admin;
    }

    /// The FileStatus script of later asynchronous uploads (default 204 then 200).
    pub fn set_async_script(&self, statuses: &[u16]) {
        self.store().async_script = statuses.to_vec();
    }

    /// Replaces the company's FileAttribute list.
    pub fn set_company_attributes(&self, list: Value) {
        self.store().company_attributes = list;
    }

    /// Sets the AttributeValue list of an attribute (name lower-cased, as the service does).
    pub fn set_attribute_values(&self, name: &str, list: Value) {
        self.store()
            .attribute_values
            .insert(name.to_lowercase(), list);
    }

    /// Stores a company-database file at `path` with attributes; it is indexed. Returns its UID.
    pub fn add_database_file(&self, path: &str, attributes: &[&str]) -> String {
        let mut store = self.store();
        let uid = store.new_uid();
        let mut file = store.new_file(&uid, path, false, vec![7; 2048], true);
        file.attributes = attributes.iter().map(|item| (*item).to_owned()).collect();
        store.files.insert(uid.clone(), file);
        uid
    }

    /// Stores a search input whose FileStatus plays `statuses` (the last repeats). Returns its UID.
    pub fn add_search_input(&self, extension: &str, statuses: &[u16]) -> String {
        let mut store = self.store();
        let uid = store.new_uid();
        let indexed = statuses.first() == Some(&200);
        let mut file = store.new_file(
            &uid,
            &format!("{uid}{extension}"),
            true,
            vec![7; 2048],
            indexed,
        );
        file.statuses = statuses.iter().copied().collect();
        store.files.insert(uid.clone(), file);
        uid
    }

    /// Sets the image URLs of a file's record.
    pub fn set_image_urls(&self, uid: &str, thumbnail: &str, large: &str) {
        let mut store = self.store();
        let file = store.files.get_mut(&uid.to_lowercase()).unwrap();
        file.thumbnail_url = thumbnail.to_owned();
        file.large_image_url = large.to_owned();
    }

    /// Sets the PMIData reply of a file.
    pub fn set_pmi(&self, uid: &str, reply: Value) {
        self.store().files.get_mut(&uid.to_lowercase()).unwrap().pmi = reply;
    }

    /// A stored file, by UID.
    pub fn file(&self, uid: &str) -> Option<StoredFile> {
        self.store().files.get(&uid.to_lowercase()).cloned()
    }

    /// The bytes an image path (with its query) is served with.
    pub fn image_bytes(&self, path_and_query: &str) -> Vec<u8> {
        self.store().image(path_and_query)
    }

    /// The feedback received: (fileUID, attributes).
    pub fn feedback(&self) -> Vec<(String, Vec<String>)> {
        self.store().feedback.clone()
    }
}

impl Drop for WireServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Store {
    fn new() -> Self {
        Self {
            service_url: String::new(),
            cdn_url: String::new(),
            records: Vec::new(),
            files: BTreeMap::new(),
            overrides: Vec::new(),
            reply_style: ReplyStyle::JsonString,
            allow_restricted: false,
            admin: false,
            async_script: vec![204, 200],
            company_attributes: json!([
                {"ID": 12, "Name": "document_type", "Unit": "", "Value": null, "IsCustom": false, "Timestamp": null},
                {"ID": 13, "Name": "material", "Unit": "", "Value": null, "IsCustom": true, "Timestamp": null},
                {"ID": 14, "Name": "weight", "Unit": "kg", "Value": null, "IsCustom": true, "Timestamp": "2026-01-02T03:04:05Z"}
            ]),
            attribute_values: BTreeMap::new(),
            images: BTreeMap::new(),
            feedback: Vec::new(),
            next_id: 1,
        }
    }

    fn new_uid(&mut self) -> String {
        let id = self.next_id;
        self.next_id += 1;
        format!("{id:08x}-5a5a-4b4b-8c8c-{id:012x}")
    }

    fn new_file(
        &self,
        uid: &str,
        file_name: &str,
        is_search_input: bool,
        content: Vec<u8>,
        indexed: bool,
    ) -> StoredFile {
        StoredFile {
            uid: uid.to_owned(),
            file_name: file_name.to_owned(),
            attributes: Vec::new(),
            is_search_input,
            content,
            statuses: VecDeque::from([200]),
            indexed,
            thumbnail_url: format!(
                "{}/thumbs/{uid}.png?token=cdn%2Ftoken&size=sm",
                self.cdn_url
            ),
            large_image_url: format!("{}/images/{uid}/large.png?sig=own", self.service_url),
            pmi: json!({
                "PMI": json!([{"page": 1, "ImageSize": [1700, 1100], "PMI": [
                    {"box": [10, 20, 110, 60], "type_id": 2, "text": "Ø12 H7"},
                    {"box": [200, 40, 380, 90], "type_id": 5, "text": "MATERIAL: STEEL"}
                ]}]).to_string(),
                "UnstructuredText": "BRACKET REV B",
                "ExtractedAttributes": ["material=steel", "revision=B"]
            }),
            upload_query: Vec::new(),
        }
    }

    fn image(&self, path_and_query: &str) -> Vec<u8> {
        self.images.get(path_and_query).cloned().unwrap_or_else(|| {
            let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
            bytes.extend_from_slice(path_and_query.as_bytes());
            bytes
        })
    }

    fn plain(&self, text: &str) -> Reply {
        match self.reply_style {
            ReplyStyle::JsonString => Reply::json(200, &Value::String(text.to_owned())),
            ReplyStyle::BareText => Reply::text(200, text),
        }
    }

    fn file_map(&self, file: &StoredFile) -> Value {
        let display = file
            .file_name
            .rsplit('/')
            .next()
            .unwrap_or(&file.file_name)
            .to_owned();
        json!({
            "UID": file.uid,
            "VizSpaceID": "11111111-2222-4333-8444-555555555555",
            "FileName": file.file_name,
            "DisplayName": display,
            "Attributes": file.attributes,
            "ExtractedAttributes": file.pmi.get("ExtractedAttributes").cloned().unwrap_or(json!([])),
            "ThumbNailURLFromID": file.thumbnail_url,
            "PNGURLFromID": file.large_image_url,
            "PDFUrl": "",
            "HasThumbnail": true,
            "IndexingFinished": file.indexed,
            "AssemblyParents": [],
            "AssemblyChildren": [],
            "PageCount": 1
        })
    }

    fn find(&self, uid: &str) -> Option<&StoredFile> {
        self.files.get(&uid.to_lowercase())
    }

    fn find_by_name(&self, name: &str) -> Option<&StoredFile> {
        self.files
            .values()
            .find(|file| file.file_name.eq_ignore_ascii_case(name))
    }

    fn override_for(&self, method: &str, path: &str) -> Option<OverrideReply> {
        self.overrides
            .iter()
            .rev()
            .find(|rule| {
                rule.method.eq_ignore_ascii_case(method) && rule.path == path.to_lowercase()
            })
            .map(|rule| rule.reply.clone())
    }

    /// Answers one request to the service origin, recording any violation on it.
    fn answer(&mut self, record: &mut Recorded) -> Reply {
        let path = record.path.to_ascii_lowercase();
        if path.starts_with("/images/") {
            let target = match &record.raw_query {
                Some(query) => format!("{}?{query}", record.path),
                None => record.path.clone(),
            };
            return Reply::bytes("image/png", self.image(&target));
        }
        if let Some(rest) = path.strip_prefix("/redirect-to-cdn/") {
            // An own-origin image URL that redirects to the CDN: the token must not follow it.
            let mut reply = Reply::empty(302);
            reply.location = Some(format!("{}/thumbs/{rest}", self.cdn_url));
            return reply;
        }
        let outcome = self.check_and_answer(record, &path);
        let reply = match outcome {
            Ok(reply) => reply,
            Err(refusal) => {
                record.violation = Some(refusal.violation.clone());
                return refusal.reply();
            }
        };
        match self.override_for(&record.method, &path) {
            Some(OverrideReply::Answer { status, body }) => {
                let mut scripted = Reply::text(status, &body);
                if body.trim_start().starts_with(['{', '[', '"']) {
                    scripted.content_type = Some("application/json; charset=utf-8");
                }
                if body.is_empty() {
                    scripted.content_type = None;
                }
                scripted
            }
            _ => reply,
        }
    }

    fn check_and_answer(&mut self, record: &Recorded, path: &str) -> Checked<Reply> {
        let method = record.method.as_str();
        let endpoint = Endpoint::of(method, path)?;
        check_raw_query(record.query())?;
        if endpoint != Endpoint::Token {
            check_bearer(record.authorization.as_deref())?;
        }
        match record.accept.as_deref() {
            Some(accept) if accept.to_ascii_lowercase().contains("application/json") => {}
            other => {
                return Err(Refusal::bad(format!(
                    "Accept must include application/json, got {other:?}"
                )));
            }
        }
        check_content_type(endpoint, record)?;
        let query = self.check_params(endpoint, record.query())?;
        match endpoint {
            Endpoint::Token => self.token(&record.body),
            Endpoint::GetFile => self.get_file(&query),
            Endpoint::PutFile | Endpoint::PutBinary | Endpoint::PutDirect => {
                self.upload(endpoint, &query, &record.body)
            }
            Endpoint::DeleteFile => self.delete_file(&query),
            Endpoint::FileStatus => self.file_status(&query),
            Endpoint::ListAttributes => Ok(Reply::json(200, &self.company_attributes.clone())),
            Endpoint::PutAttributes => self.put_attributes(&query, &record.body),
            Endpoint::DeleteAttributes => self.delete_attributes(&query),
            Endpoint::AttributeValues => {
                let name = required(&query, "attribute")?;
                Ok(Reply::json(
                    200,
                    &self
                        .attribute_values
                        .get(&name.to_lowercase())
                        .cloned()
                        .unwrap_or(json!([])),
                ))
            }
            Endpoint::PmiData => {
                let uid = required(&query, "fileUID")?;
                match self.find(&uid) {
                    Some(file) => Ok(Reply::json(200, &file.pmi)),
                    None => Ok(Reply::problem(404, "Not Found", "no such file")),
                }
            }
            Endpoint::Feedback => self.feedback(&query, &record.body),
            Endpoint::PutSearch => self.put_search(&query, &record.body),
            Endpoint::GetSearch => self.get_search(&query),
        }
    }

    /// Checks the parameter names against the endpoint's list and their values against their types.
    fn check_params(&self, endpoint: Endpoint, raw: &str) -> Checked<QueryString> {
        let query = QueryString::parse(raw);
        let allowed = endpoint.params();
        let mut seen: Vec<String> = Vec::new();
        for (name, value) in query.pairs() {
            let Some(spec_name) = allowed
                .iter()
                .find(|known| known.eq_ignore_ascii_case(name))
            else {
                return Err(Refusal::bad(format!(
                    "parameter {name} is not in the spec's list for {endpoint:?}"
                )));
            };
            if seen.iter().any(|other| other.eq_ignore_ascii_case(name)) {
                return Err(Refusal::bad(format!("parameter {name} is sent twice")));
            }
            seen.push(name.clone());
            if !self.allow_restricted && RESTRICTED_PARAMS.contains(spec_name) {
                return Err(Refusal::bad(format!(
                    "parameter {name} is legacy/internal/operator-only and was not asked for"
                )));
            }
            if BOOLEAN_PARAMS.contains(spec_name) && value != "true" && value != "false" {
                return Err(Refusal::bad(format!(
                    "parameter {name} must be true or false, got {value:?}"
                )));
            }
            if GUID_PARAMS.contains(spec_name) && uuid::Uuid::parse_str(value).is_err() {
                return Err(Refusal::bad(format!(
                    "parameter {name} must be a GUID, got {value:?}"
                )));
            }
            if *spec_name == "categoryId" && value.parse::<i64>().is_err() {
                return Err(Refusal::bad(format!(
                    "categoryId must be an integer, got {value:?}"
                )));
            }
        }
        Ok(query)
    }

    fn token(&mut self, body: &[u8]) -> Checked<Reply> {
        let text =
            std::str::from_utf8(body).map_err(|_| Refusal::bad("the token form is not UTF-8"))?;
        let form = QueryString::parse(text);
        let mut names: Vec<String> = form.pairs().iter().map(|(name, _)| name.clone()).collect();
        names.sort();
        if names != ["client_id", "grant_type", "password", "username"] {
            return Err(Refusal::bad(format!(
                "the token form must hold exactly grant_type, client_id, username, password; got {names:?}"
            )));
        }
        if form.get("grant_type") != Some("password") {
            return Err(Refusal::bad("grant_type must be password"));
        }
        let password = form.get("password").unwrap_or_default();
        if password.len() != 40
            || !password
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        {
            return Err(Refusal::bad(
                "password must be the SHA-1 digest as 40 lower-case hex characters",
            ));
        }
        if form.get("client_id") != Some(CLIENT_ID) {
            return Ok(Reply::json(
                400,
                &json!({"error": "invalid_client", "error_description": "The client id is unknown."}),
            ));
        }
        if form.get("username") != Some(USER) || password != password_digest(PASSWORD) {
            return Ok(Reply::json(
                400,
                &json!({"error": "invalid_grant", "error_description": "The user name or password is incorrect."}),
            ));
        }
        Ok(Reply::json(
            200,
            &json!({"access_token": TOKEN, "token_type": "bearer", "expires_in": 86399}),
        ))
    }

    fn get_file(&self, query: &QueryString) -> Checked<Reply> {
        let file = match (query.get("fileUID"), query.get("fileName")) {
            (Some(uid), _) => self.find(uid),
            (None, Some(name)) if !name.is_empty() => self.find_by_name(name),
            _ => return Err(Refusal::bad("GET /api/File needs fileUID or fileName")),
        };
        Ok(match file {
            Some(file) => Reply::json(200, &self.file_map(file)),
            None => Reply::problem(404, "Not Found", "no such file for this account"),
        })
    }

    fn upload(&mut self, endpoint: Endpoint, query: &QueryString, body: &[u8]) -> Checked<Reply> {
        let content = match endpoint {
            Endpoint::PutFile => {
                let text = decode_json_string_body(body).map_err(|error| {
                    Refusal::bad(format!(
                        "PUT /api/File body must be a JSON string of base64: {error}"
                    ))
                })?;
                if text.len() < 1024 {
                    return Err(Refusal::bad(format!(
                        "PUT /api/File base64 text is {} characters, under the 1024 minimum",
                        text.len()
                    )));
                }
                base64_decode(&text).map_err(|error| Refusal::bad(error.to_string()))?
            }
            _ => {
                if body.len() < 1024 {
                    return Err(Refusal::bad(format!(
                        "binary upload of {} bytes is under the 1024 minimum",
                        body.len()
                    )));
                }
                body.to_vec()
            }
        };
        let file = required(query, "file")?;
        let search_input = query.get("isSearchInput") != Some("false");
        let index_async = query.get("indexAsync") == Some("true");
        if search_input {
            if !file.starts_with('.') || file.contains('/') || file.len() < 2 {
                return Err(Refusal::bad(format!(
                    "a search input's file parameter must be only its extension, got {file:?}"
                )));
            }
            if query.get("attributes").is_some() {
                return Err(Refusal::bad(
                    "attributes is read only when isSearchInput=false",
                ));
            }
            if index_async && file.to_lowercase().ends_with(".zip") {
                return Err(Refusal::bad(
                    ".zip search inputs cannot be indexed asynchronously",
                ));
            }
        } else {
            let name = file.rsplit('/').next().unwrap_or_default();
            if !file.contains('/') || !name.contains('.') || name.starts_with('.') {
                return Err(Refusal::bad(format!(
                    "a database file parameter must be <folder>/<name>.<ext>, got {file:?}"
                )));
            }
        }
        let mut attributes = Vec::new();
        if let Some(nested) = query.get("attributes") {
            for (name, value) in decode_nested_attributes_query(nested) {
                if name.is_empty() {
                    return Err(Refusal::bad(format!(
                        "attributes holds a pair without a name: {nested:?}"
                    )));
                }
                attributes.push(format!("{name}={value}"));
            }
        }
        let uid = match query.get("uid") {
            Some(uid) => uid.to_owned(),
            None => self.new_uid(),
        };
        let async_indexing = index_async && search_input;
        let stored_name = if search_input {
            format!("{uid}{file}")
        } else {
            file.clone()
        };
        let mut stored = self.new_file(&uid, &stored_name, search_input, content, !async_indexing);
        stored.attributes = attributes;
        stored.upload_query = query.pairs().to_vec();
        if async_indexing {
            stored.statuses = self.async_script.iter().copied().collect();
        }
        let map = self.file_map(&stored);
        self.files.insert(uid.to_lowercase(), stored);
        Ok(match endpoint {
            Endpoint::PutDirect => Reply::json(200, &map),
            _ => self.plain(&uid),
        })
    }

    fn delete_file(&mut self, query: &QueryString) -> Checked<Reply> {
        let uid = required(query, "fileUID")?.to_lowercase();
        let Some(file) = self.files.get(&uid) else {
            return Ok(Reply::problem(
                404,
                "Not Found",
                "unknown fileUID for this account",
            ));
        };
        if !file.is_search_input && !self.admin {
            return Ok(Reply::json(403, &json!(false)));
        }
        self.files.remove(&uid);
        Ok(Reply::json(200, &json!(true)))
    }

    fn file_status(&mut self, query: &QueryString) -> Checked<Reply> {
        let uid = required(query, "fileUID")?.to_lowercase();
        let style = self.reply_style;
        let Some(file) = self.files.get_mut(&uid) else {
            let mut reply = Reply::problem(404, "Not Found", "unknown fileUID");
            reply.no_store = true;
            return Ok(reply);
        };
        let step = if file.statuses.len() > 1 {
            file.statuses.pop_front().unwrap_or(200)
        } else {
            file.statuses.front().copied().unwrap_or(200)
        };
        let mut reply = match step {
            200 => {
                file.indexed = true;
                let stamp = "2026-11-22T04:53:09.123Z";
                match style {
                    ReplyStyle::JsonString => Reply::json(200, &json!(stamp)),
                    ReplyStyle::BareText => Reply::text(200, stamp),
                }
            }
            204 => Reply::empty(204),
            422 => Reply::text(422, "failed"),
            404 => Reply::problem(404, "Not Found", "unknown fileUID"),
            other => Reply::empty(other),
        };
        reply.no_store = true;
        Ok(reply)
    }

    fn put_attributes(&mut self, query: &QueryString, body: &[u8]) -> Checked<Reply> {
        let items = decode_double_encoded_strings(body).map_err(|error| {
            Refusal::bad(format!(
                "the attribute body must be double-encoded (a JSON string holding a JSON array of strings): {error}"
            ))
        })?;
        if let Some(item) = items.iter().find(|item| !item.contains('=')) {
            return Err(Refusal::bad(format!("attribute {item:?} has no '='")));
        }
        let key = match (query.get("fileUID"), query.get("fileName")) {
            (Some(uid), _) => Some(uid.to_lowercase()),
            (None, Some(name)) => self.find_by_name(name).map(|file| file.uid.to_lowercase()),
            _ => {
                return Err(Refusal::bad(
                    "PUT /api/FileAttributes needs fileUID or fileName",
                ));
            }
        };
        let replace = query.get("deleteExisting") != Some("false");
        let Some(file) = key.and_then(|key| self.files.get_mut(&key)) else {
            return Ok(Reply::problem(404, "Not Found", "no such file"));
        };
        if replace {
            file.attributes = items;
        } else {
            for item in items {
                let name = item.split('=').next().unwrap_or_default().to_owned();
                file.attributes
                    .retain(|existing| existing.split('=').next() != Some(name.as_str()));
                file.attributes.push(item);
            }
        }
        Ok(Reply::json(200, &json!(true)))
    }

    fn delete_attributes(&mut self, query: &QueryString) -> Checked<Reply> {
        let uid = required(query, "fileUID")?.to_lowercase();
        match self.files.get_mut(&uid) {
            Some(file) => {
                file.attributes.clear();
                Ok(Reply::json(200, &json!(true)))
            }
            None => Ok(Reply::problem(404, "Not Found", "no such file")),
        }
    }

    fn feedback(&mut self, query: &QueryString, body: &[u8]) -> Checked<Reply> {
        let uid = required(query, "fileUID")?;
        if let Some(text) = query.get("feedback")
            && text.chars().count() > 300
        {
            return Err(Refusal::bad("feedback is over 300 characters"));
        }
        if let Some(user) = query.get("user")
            && user.chars().count() > 100
        {
            return Err(Refusal::bad("user is over 100 characters"));
        }
        let text = decode_json_string_body(body).map_err(|error| {
            Refusal::bad(format!("the feedback body must be a JSON string: {error}"))
        })?;
        let items: Vec<String> = text.split(',').map(str::to_owned).collect();
        if let Some(item) = items.iter().find(|item| !item.contains('=')) {
            return Err(Refusal::bad(format!(
                "feedback attribute {item:?} is not name=value"
            )));
        }
        self.feedback.push((uid, items));
        let id = query
            .get("feedbackId")
            .map(str::to_owned)
            .unwrap_or_else(|| format!("fb-{}", self.feedback.len()));
        Ok(self.plain(&id))
    }

    fn put_search(&mut self, query: &QueryString, body: &[u8]) -> Checked<Reply> {
        let extension = required(query, "fileExtension")?;
        if !extension.starts_with('.') || extension.contains('/') {
            return Err(Refusal::bad(format!(
                "fileExtension must be an extension such as .png, got {extension:?}"
            )));
        }
        let filter = match query.get("filterStr") {
            Some(inner) => check_filter(inner)?,
            None => SearchFilter::new(),
        };
        let files = decode_double_encoded_strings(body).map_err(|error| {
            Refusal::bad(format!(
                "the search body must be a JSON string holding a JSON array of base64 strings: {error}"
            ))
        })?;
        if files.is_empty() || files.len() > 10 {
            return Err(Refusal::bad(format!(
                "PUT /api/Search carries 1 to 10 files, got {}",
                files.len()
            )));
        }
        let mut inputs: Vec<String> = filter
            .file_uids
            .iter()
            .map(|uid| uid.as_str().to_owned())
            .collect();
        for text in files {
            let content = base64_decode(&text).map_err(|error| Refusal::bad(error.to_string()))?;
            if content.is_empty() {
                return Err(Refusal::bad("an empty file in PUT /api/Search"));
            }
            let uid = self.new_uid();
            let stored = self.new_file(&uid, &format!("{uid}{extension}"), true, content, true);
            self.files.insert(uid.clone(), stored);
            inputs.push(uid);
        }
        Ok(Reply::json(200, &self.search_result(&inputs, &filter)))
    }

    fn get_search(&mut self, query: &QueryString) -> Checked<Reply> {
        let inner = required(query, "filterStr")?;
        let filter = check_filter(&inner)?;
        let mut inputs = Vec::new();
        for uid in &filter.file_uids {
            match self.find(uid.as_str()) {
                Some(file) if file.indexed => inputs.push(file.uid.clone()),
                Some(_) => {
                    return Err(Refusal::bad(format!(
                        "searched by {uid} before its indexing completed"
                    )));
                }
                None => {
                    return Err(Refusal::bad(format!("searched by unknown input {uid}")));
                }
            }
        }
        Ok(Reply::json(200, &self.search_result(&inputs, &filter)))
    }

    fn search_result(&self, inputs: &[String], filter: &SearchFilter) -> Value {
        let results: Vec<Value> = self
            .files
            .values()
            .filter(|file| !file.is_search_input)
            .enumerate()
            .map(|(rank, file)| {
                let lower: Vec<String> = file
                    .attributes
                    .iter()
                    .map(|item| match item.split_once('=') {
                        Some((name, value)) => format!("{}={value}", name.to_lowercase()),
                        None => item.clone(),
                    })
                    .collect();
                let objects: Vec<Value> = file
                    .attributes
                    .iter()
                    .filter_map(|item| item.split_once('='))
                    .map(|(name, value)| json!({"Name": name, "Value": value}))
                    .collect();
                json!({
                    "UID": file.uid,
                    "FileName": file.file_name,
                    "DisplayName": file.file_name.rsplit('/').next().unwrap_or_default(),
                    "Score": 0.9 - rank as f64 * 0.1,
                    "ThumbNailURLFromID": file.thumbnail_url,
                    "PNGURLFromID": file.large_image_url,
                    "ShapeResult": {"Attributes": lower},
                    "Attributes": objects
                })
            })
            .collect();
        let terms: Vec<String> = filter.terms().map(|term| term.expression()).collect();
        json!({
            "InputFileUID": inputs.join(","),
            "TotalResults": results.len(),
            "ResultsList": results,
            "FilterTerms": terms
        })
    }
}

/// The endpoints of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Endpoint {
    Token,
    GetFile,
    PutFile,
    PutBinary,
    PutDirect,
    DeleteFile,
    FileStatus,
    ListAttributes,
    PutAttributes,
    DeleteAttributes,
    AttributeValues,
    PmiData,
    Feedback,
    PutSearch,
    GetSearch,
}

impl Endpoint {
    fn of(method: &str, path: &str) -> Checked<Self> {
        let path = path.trim_end_matches('/');
        let by_path: &[(&str, Self)] = match path {
            "/api/token" => &[("POST", Self::Token)],
            "/api/file" => &[
                ("GET", Self::GetFile),
                ("PUT", Self::PutFile),
                ("DELETE", Self::DeleteFile),
            ],
            "/api/filebinary" => &[("PUT", Self::PutBinary)],
            "/api/filebinarydirect" => &[("PUT", Self::PutDirect)],
            "/api/filestatus" => &[("GET", Self::FileStatus)],
            "/api/fileattributes" => &[
                ("GET", Self::ListAttributes),
                ("PUT", Self::PutAttributes),
                ("DELETE", Self::DeleteAttributes),
            ],
            "/api/attributevalues" => &[("GET", Self::AttributeValues)],
            "/api/pmidata" => &[("GET", Self::PmiData)],
            "/api/extractedattributefeedback" => &[("PUT", Self::Feedback)],
            "/api/search" => &[("PUT", Self::PutSearch), ("GET", Self::GetSearch)],
            other => return Err(Refusal::bad(format!("no endpoint {other} in the spec"))),
        };
        by_path
            .iter()
            .find(|(allowed, _)| allowed.eq_ignore_ascii_case(method))
            .map(|(_, endpoint)| *endpoint)
            .ok_or_else(|| Refusal::bad(format!("{method} is not a method of {path}")))
    }

    fn params(self) -> &'static [&'static str] {
        match self {
            Self::Token | Self::ListAttributes => &[],
            Self::GetFile => &[
                "fileUID",
                "fileName",
                "includeShapelets",
                "lgFileNumber",
                "includeShapes",
                "accountName",
            ],
            Self::PutFile | Self::PutBinary => UPLOAD_PARAMS,
            Self::PutDirect => DIRECT_PARAMS,
            Self::DeleteFile => &["fileUID", "accountName"],
            Self::FileStatus | Self::DeleteAttributes | Self::PmiData => &["fileUID"],
            Self::PutAttributes => &["fileUID", "fileName", "deleteExisting"],
            Self::AttributeValues => &["attribute"],
            Self::Feedback => &["fileUID", "feedback", "user", "feedbackId"],
            Self::PutSearch => &["fileExtension", "filterStr"],
            Self::GetSearch => &["filterStr"],
        }
    }

    /// The Content-Type a request body must have; `None` for endpoints without a body.
    fn content_type(self) -> Option<&'static str> {
        match self {
            Self::Token => Some("application/x-www-form-urlencoded"),
            Self::PutFile | Self::PutAttributes | Self::Feedback | Self::PutSearch => {
                Some("application/json")
            }
            Self::PutBinary | Self::PutDirect => Some("application/octet-stream"),
            _ => None,
        }
    }
}

/// A required parameter with a non-empty value.
fn required(query: &QueryString, name: &str) -> Checked<String> {
    match query.get(name) {
        Some(value) if !value.is_empty() => Ok(value.to_owned()),
        _ => Err(Refusal::bad(format!("parameter {name} is required"))),
    }
}

/// The raw query may hold only unreserved characters, `%XX` escapes, and `&`/`=` as structure (one
/// `=` per pair: a value's own `=` must be encoded).
fn check_raw_query(raw: &str) -> Checked<()> {
    if raw.is_empty() {
        return Ok(());
    }
    let bytes = raw.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        if byte == b'%' {
            let escape = raw.get(index + 1..index + 3).unwrap_or_default();
            if escape.len() != 2 || !escape.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(Refusal::bad(format!("bad percent escape in query {raw:?}")));
            }
            index += 3;
            continue;
        }
        if !(byte.is_ascii_alphanumeric() || b"-._~&=".contains(&byte)) {
            return Err(Refusal::bad(format!(
                "query character {:?} is not percent-encoded in {raw:?}",
                byte as char
            )));
        }
        index += 1;
    }
    for pair in raw.split('&') {
        if pair.matches('=').count() != 1 || pair.starts_with('=') {
            return Err(Refusal::bad(format!(
                "query part {pair:?} is not name=value with the value's own '=' encoded"
            )));
        }
    }
    Ok(())
}

fn check_bearer(authorization: Option<&str>) -> Checked<()> {
    let valid = authorization
        .and_then(|value| value.split_once(' '))
        .is_some_and(|(scheme, token)| scheme.eq_ignore_ascii_case("bearer") && token == TOKEN);
    if valid {
        Ok(())
    } else {
        Err(Refusal {
            status: 401,
            violation: format!("missing or wrong bearer token: {authorization:?}"),
            body: None,
        })
    }
}

fn check_content_type(endpoint: Endpoint, record: &Recorded) -> Checked<()> {
    match endpoint.content_type() {
        Some(expected) => {
            let actual = record.content_type.as_deref().unwrap_or_default();
            let media = actual.split(';').next().unwrap_or_default().trim();
            if !media.eq_ignore_ascii_case(expected) {
                return Err(Refusal::bad(format!(
                    "Content-Type must be {expected}, got {actual:?}"
                )));
            }
        }
        None => {
            if !record.body.is_empty() {
                return Err(Refusal::bad(format!(
                    "{} {} takes no body, got {} bytes",
                    record.method,
                    record.path,
                    record.body.len()
                )));
            }
        }
    }
    Ok(())
}

/// Parses an inner filterStr, refusing what is not `fileUID=<guid>[,<guid>…]` and `FT=<expression>`
/// parts.
fn check_filter(inner: &str) -> Checked<SearchFilter> {
    if inner.trim().is_empty() {
        return Err(Refusal::bad("filterStr is empty"));
    }
    for part in inner.split('&') {
        let Some((key, value)) = part.split_once('=') else {
            return Err(Refusal::bad(format!(
                "filterStr part {part:?} is not fileUID=… or FT=… (does it need its inner encoding?)"
            )));
        };
        if key.eq_ignore_ascii_case("fileUID") {
            for uid in value.split(',') {
                if uuid::Uuid::parse_str(uid.trim()).is_err() {
                    return Err(Refusal::bad(format!(
                        "filterStr fileUID {uid:?} is not a GUID"
                    )));
                }
            }
        } else if key.eq_ignore_ascii_case("FT") {
            if value.trim().is_empty() {
                return Err(Refusal::bad("filterStr has an empty FT part"));
            }
        } else {
            return Err(Refusal::bad(format!(
                "filterStr part {part:?} is not fileUID=… or FT=… (does it need its inner encoding?)"
            )));
        }
    }
    Ok(SearchFilter::parse_inner(inner))
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
}

async fn read_request(request: Request, origin: Origin) -> Recorded {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .map(|bytes| bytes.to_vec())
        .unwrap_or_default();
    Recorded {
        origin,
        method: parts.method.as_str().to_owned(),
        path: parts.uri.path().to_owned(),
        raw_query: parts.uri.query().map(str::to_owned),
        authorization: header_text(&parts.headers, header::AUTHORIZATION),
        accept: header_text(&parts.headers, header::ACCEPT),
        content_type: header_text(&parts.headers, header::CONTENT_TYPE),
        body,
        violation: None,
        dropped: false,
        reply_status: 0,
        reply_body: Vec::new(),
    }
}

fn into_response(reply: Reply) -> Response {
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    if let Some(content_type) = reply.content_type {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    if let Some(location) = reply
        .location
        .as_deref()
        .and_then(|url| HeaderValue::from_str(url).ok())
    {
        headers.insert(header::LOCATION, location);
    }
    if reply.no_store {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

async fn service_handler(State(store): State<Shared>, request: Request) -> Response {
    let mut record = read_request(request, Origin::Service).await;
    let mut store = store.lock().unwrap();
    let reply = store.answer(&mut record);
    record.reply_status = reply.status;
    record.reply_body = reply.body.clone();
    store.records.push(record);
    into_response(reply)
}

async fn cdn_handler(State(store): State<Shared>, request: Request) -> Response {
    let mut record = read_request(request, Origin::Cdn).await;
    let mut store = store.lock().unwrap();
    let target = match &record.raw_query {
        Some(query) => format!("{}?{query}", record.path),
        None => record.path.clone(),
    };
    let reply = if record.authorization.is_some() {
        record.violation = Some("the bearer token was sent to a foreign origin (the CDN)".into());
        Reply::problem(
            400,
            "Bad Request",
            "wire check: bearer token on a foreign origin",
        )
    } else {
        Reply::bytes("image/png", store.image(&target))
    };
    record.reply_status = reply.status;
    record.reply_body = reply.body.clone();
    store.records.push(record);
    into_response(reply)
}

/// A TCP listener whose connections can be dropped after their request line, by the tests' rules.
struct CheckedListener {
    inner: TcpListener,
    store: Shared,
    origin: Origin,
}

impl axum::serve::Listener for CheckedListener {
    type Io = CheckedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            if let Ok((stream, addr)) = self.inner.accept().await {
                let stream = CheckedStream {
                    inner: stream,
                    store: self.store.clone(),
                    origin: self.origin,
                    head: Vec::new(),
                    decided: false,
                };
                return (stream, addr);
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection that reads its request line first and fails (dropping the connection) when a drop
/// rule matches it.
struct CheckedStream {
    inner: TcpStream,
    store: Shared,
    origin: Origin,
    head: Vec<u8>,
    decided: bool,
}

impl CheckedStream {
    /// True when the request line `METHOD /path?query HTTP/1.1` is to be dropped (it is recorded).
    fn drops(&self, line: &str) -> bool {
        let mut words = line.split_whitespace();
        let (Some(method), Some(target)) = (words.next(), words.next()) else {
            return false;
        };
        let (path, query) = match target.split_once('?') {
            Some((path, query)) => (path, Some(query.to_owned())),
            None => (target, None),
        };
        let mut store = self.store.lock().unwrap();
        if self.origin != Origin::Service
            || !matches!(
                store.override_for(method, &path.to_lowercase()),
                Some(OverrideReply::Drop)
            )
        {
            return false;
        }
        store.records.push(Recorded {
            origin: self.origin,
            method: method.to_owned(),
            path: path.to_owned(),
            raw_query: query,
            authorization: None,
            accept: None,
            content_type: None,
            body: Vec::new(),
            violation: None,
            dropped: true,
            reply_status: 0,
            reply_body: Vec::new(),
        });
        true
    }
}

impl AsyncRead for CheckedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        if !this.decided {
            let fresh = &buf.filled()[before..];
            this.head.extend_from_slice(fresh);
            let line_end = this.head.iter().position(|byte| *byte == b'\n');
            if line_end.is_some() || fresh.is_empty() {
                this.decided = true;
                let end = line_end.unwrap_or(this.head.len());
                let line = String::from_utf8_lossy(&this.head[..end]).into_owned();
                if this.drops(&line) {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::ConnectionReset,
                        "connection dropped by the test",
                    )));
                }
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for CheckedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
