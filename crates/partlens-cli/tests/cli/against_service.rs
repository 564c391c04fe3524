//! partlens-cli against the real partlens-service, end to end: the built binary with real arguments,
//! as a script runs it, against the service started in-process on 127.0.0.1:0 over a data directory
//! holding the sample library (`assets/samples/`: twelve part drawings, four STL and three STEP
//! models of some of those parts (`models/gear.stl`, `models/flange.step`, with the drawing's
//! attributes) and three DXF/PDF drawings, uploaded as company-database files, and two query views
//! of each drawn part). Real files, real indexing.
//!
//! One service serves every test of this file (starting it and indexing the library once keeps the
//! file quick on two cores). Tests therefore never change the library's files or attributes: what a
//! test changes it uploads itself, under its own folder and attribute names, as pictures unlike any
//! sample part, so that rankings, counts and filters over the library stay the same whatever runs
//! beside them.
//!
//! Users: `admin` (admin) and `ann` of company Acme, which owns the library; `gus` of company Globex.
//! Every run checks the output contract: one line of JSON on stdout at most, nothing on stderr on
//! success, exactly one `partlens-cli: …` line on stderr and exit status 1 on failure, never the
//! password.

// Helpers outside #[test] functions unwrap too: a failed setup step should fail the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as cli_support;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cli_support::{Cli, Run, path_arg};
use futures_util::StreamExt as _;
use partlens_api::{ApiClient, Attribute, Credentials, UploadRequest, UploadSource};
use partlens_engine::samples::parts::draw_stripes;
use partlens_engine::samples::{SampleManifest, read_manifest};
use partlens_service::{RunningService, ServiceConfig, admin};
use partlens_store::DATABASE_FILE;
use serde_json::{Value, json};
use tempfile::TempDir;

/// The password of every user.
const PASSWORD: &str = "Tr0ub4dor &3";
/// Admin of Acme, the company that owns the sample library.
const ADMIN: &str = "admin";
/// A user of Acme without admin rights.
const ANN: &str = "ann";
/// A user of Globex, another company.
const GUS: &str = "gus";
/// A GUID no file has.
const UNKNOWN_UID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

// ---- the shared service with the sample library -------------------------------------------------

/// One part of the sample library as stored in the service.
#[derive(Debug)]
struct Part {
    /// The file name without its folder and extension (`gear`, `flange-drawing`).
    name: String,
    /// Where it is stored (`Samples/gear.png`).
    stored_path: String,
    /// Its UID.
    uid: String,
    /// Its attributes as the manifest gives them.
    attributes: Vec<String>,
    /// Its two query views (a PNG and a JPEG).
    views: Vec<PathBuf>,
}

/// The service every test talks to, with the library loaded.
struct Library {
    /// Runs the service (never stopped: it lives as long as the test process).
    _runtime: tokio::runtime::Runtime,
    _service: RunningService,
    /// The data directory (under cargo's scratch folder for integration tests).
    data_dir: TempDir,
    /// `http://127.0.0.1:PORT`.
    base: String,
    /// The parts, in manifest order.
    parts: Vec<Part>,
}

static LIBRARY: OnceLock<Library> = OnceLock::new();

fn samples_folder() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("assets/samples")
}

/// The shared service, started (and the library uploaded) by the first test that asks.
fn library() -> &'static Library {
    LIBRARY.get_or_init(start_library)
}

fn start_library() -> Library {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Statics are never dropped, so the directory goes where cargo keeps integration-test scratch
    // files rather than in /tmp, and the next run removes it.
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    remove_stale_data_dirs(scratch);
    let data_dir = tempfile::Builder::new()
        .prefix(DATA_DIR_PREFIX)
        .tempdir_in(scratch)
        .unwrap();
    for (company, user, is_admin) in [
        ("Acme", ADMIN, true),
        ("Acme", ANN, false),
        ("Globex", GUS, false),
    ] {
        admin::add_user(data_dir.path(), company, user, PASSWORD, is_admin).unwrap();
    }
    let mut config = ServiceConfig::new(data_dir.path());
    config.addr = "127.0.0.1:0".parse().unwrap();
    let service = runtime.block_on(RunningService::start(config)).unwrap();
    let base = service.base_url();
    let manifest = read_manifest(&samples_folder()).unwrap();
    let parts = runtime.block_on(upload_library(&base, &manifest));
    Library {
        _runtime: runtime,
        _service: service,
        data_dir,
        base,
        parts,
    }
}

/// How the data directories of this file's runs are named.
const DATA_DIR_PREFIX: &str = "cli_service-";

/// Removes the data directories earlier runs left behind. One untouched for an hour belongs to no
/// running test (a run takes seconds).
fn remove_stale_data_dirs(scratch: &Path) {
    let Ok(entries) = std::fs::read_dir(scratch) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .file_name()
            .to_string_lossy()
            .starts_with(DATA_DIR_PREFIX)
            && entry
                .metadata()
                .and_then(|metadata| metadata.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(60 * 60));
        if stale {
            // Another run may be removing it too; what is left is removed next time.
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Uploads every manifest part as a database file with its attributes, two at a time.
async fn upload_library(base: &str, manifest: &SampleManifest) -> Vec<Part> {
    let mut client = ApiClient::new(base).unwrap();
    client
        .login(&Credentials {
            client_id: "partlens".into(),
            username: ADMIN.into(),
            password: PASSWORD.into(),
        })
        .await
        .unwrap();
    let client = &client;
    let uploads = manifest.parts.iter().map(|part| {
        let file = part.file.clone();
        let stored_path = part.stored_path.clone();
        let attributes = part.attributes.clone();
        // Models (`models/gear.stl`) have no query views.
        let views = part
            .views
            .iter()
            .map(|view| samples_folder().join(view))
            .collect();
        async move {
            let request = UploadRequest::database(
                UploadSource::Path(samples_folder().join(&file)),
                stored_path.clone(),
                attributes
                    .iter()
                    .map(|text| Attribute::parse(text).unwrap())
                    .collect(),
            );
            let outcome = client.upload(&request, None).await.unwrap();
            Part {
                // `gear` for the picture, `models/gear.stl` for the model, `flange-drawing` for
                // the drawing `drawings/flange-drawing.dxf`.
                name: match file.strip_prefix("drawings/") {
                    Some(drawing) => drawing
                        .rsplit_once('.')
                        .map_or(drawing, |(stem, _)| stem)
                        .to_owned(),
                    None => file.trim_end_matches(".png").to_owned(),
                },
                stored_path,
                uid: outcome.uid.as_str().to_owned(),
                attributes,
                views,
            }
        }
    });
    // In manifest order, two uploads in flight (CI has two cores).
    let parts: Vec<Part> = futures_util::stream::iter(uploads)
        .buffered(2)
        .collect()
        .await;
    // Twelve part pictures, four STL models (gear, washer, flange, stepped shaft), three STEP models
    // (washer, flange, stepped shaft), two DXF drawings (flange, stepped shaft) and a PDF drawing
    // (L-bracket).
    assert_eq!(parts.len(), 22);
    parts
}

/// The library part called `name` (`gear`).
fn part(name: &str) -> &'static Part {
    library()
        .parts
        .iter()
        .find(|part| part.name == name)
        .unwrap_or_else(|| panic!("no sample part {name}"))
}

/// The UIDs of the parts called `names`.
fn uids_of(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| part(name).uid.clone()).collect()
}

/// The UIDs of every library file of the part called `name`: its drawing and its models, if any.
fn files_of(name: &str) -> Vec<String> {
    let models = [format!("models/{name}.stl"), format!("models/{name}.step")];
    library()
        .parts
        .iter()
        .filter(|part| part.name == name || models.contains(&part.name))
        .map(|part| part.uid.clone())
        .collect()
}

/// True when the first results of `ranked` are the files of the part called `name` (its drawing
/// and model in either order), ahead of every other file.
fn part_comes_first(ranked: &[String], name: &str) -> bool {
    let files = files_of(name);
    ranked.len() >= files.len() && ranked[..files.len()].iter().all(|uid| files.contains(uid))
}

// ---- running the binary -------------------------------------------------------------------------

impl Cli {
    /// The binary logged in as `user` through the environment, polling every 20 ms; the password
    /// must never show in its output.
    fn as_user(user: &str) -> Self {
        Self::logged_in(&library().base, user, PASSWORD, 20).never_prints(PASSWORD)
    }
}

/// Runs `partlens-cli ARGS…` as `user`.
fn cli<S: AsRef<OsStr>>(user: &str, args: impl IntoIterator<Item = S>) -> Run {
    Cli::as_user(user).args(args).run()
}

/// A view of a sample part: `view("gear", 0)` is `views/gear-a.png`, 1 the JPEG.
fn view(name: &str, which: usize) -> String {
    path_arg(&part(name).views[which])
}

/// The UIDs of a search result, in order.
fn result_uids(result: &Value) -> Vec<String> {
    result["ResultsList"]
        .as_array()
        .unwrap_or_else(|| panic!("no ResultsList: {result}"))
        .iter()
        .map(|item| item["UID"].as_str().unwrap().to_owned())
        .collect()
}

/// The search-input UIDs a search result reports.
fn input_uids(result: &Value) -> Vec<String> {
    result["InputFileUID"]
        .as_str()
        .unwrap()
        .split(',')
        .filter(|uid| !uid.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A picture unlike any sample part (fine diagonal stripes with noise), different for every seed,
/// written as PNG into `dir`.
fn stripes_png(dir: &Path, name: &str, seed: u32) -> PathBuf {
    let path = dir.join(name);
    draw_stripes(seed, 96)
        .save_with_format(&path, image::ImageFormat::Png)
        .unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() >= 1024);
    path
}

/// Uploads a stripes picture into Acme's database at `stored_path` (as admin), with attributes, and
/// returns its UID.
fn upload_database_file(dir: &Path, stored_path: &str, seed: u32, attributes: &[&str]) -> String {
    let file = stripes_png(dir, &format!("local-{seed}.png"), seed);
    let mut args = vec![
        "upload".to_owned(),
        path_arg(&file),
        "--database".to_owned(),
        stored_path.to_owned(),
    ];
    for attribute in attributes {
        args.push("--attr".into());
        args.push((*attribute).to_owned());
    }
    let line = cli(ADMIN, &args).ok_json();
    assert_eq!(line["state"], "completed", "{line}");
    line["uid"].as_str().unwrap().to_owned()
}

/// The saved attributes of a file, as `file UID` prints them.
fn attributes_of(user: &str, uid: &str) -> Vec<String> {
    let record = cli(user, ["file", uid]).ok_json();
    record["Attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|text| text.as_str().unwrap().to_owned())
        .collect()
}

/// The feedback stored for a file: (text, external user, attributes as JSON), oldest first. Read
/// from the service's database through a read-only connection: the interface has no way to read
/// feedback back.
fn stored_feedback(uid: &str) -> Vec<(String, String, String)> {
    let connection = rusqlite::Connection::open_with_flags(
        library().data_dir.path().join(DATABASE_FILE),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    connection
        .busy_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    let mut statement = connection
        .prepare(
            "SELECT feedback, external_user, attributes FROM feedback WHERE file_uid = ?1
             ORDER BY created_at, id",
        )
        .unwrap();
    statement
        .query_map([uid], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap()
}

/// `{"Name": value, "Count": n}` pairs of a `values` reply as a map.
fn value_counts(reply: &Value) -> BTreeMap<String, i64> {
    reply
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["Name"].as_str().unwrap().to_owned(),
                item["Count"].as_i64().unwrap(),
            )
        })
        .collect()
}

// ---- login ----------------------------------------------------------------------------------------

#[test]
fn logging_in_with_options_or_stdin_and_refused_logins() {
    let base = &library().base;
    // Every global option as an argument, the password on stdin.
    let list = Cli::bare()
        .args([
            "--service",
            base,
            "--client-id",
            "partlens",
            "--user",
            ANN,
            "--password-stdin",
            "attributes",
        ])
        .stdin(&format!("{PASSWORD}\n"))
        .run()
        .ok_json();
    assert!(list.as_array().unwrap().len() >= 10, "{list}");
    // The client id from the environment.
    Cli::as_user(ANN)
        .env("PARTLENS_CLIENT_ID", "partlens")
        .args(["values", "category"])
        .run()
        .ok_json();

    let line = Cli::as_user(ANN)
        .env("PARTLENS_PASSWORD", "not the password")
        .args(["attributes"])
        .run()
        .refused(400)
        .to_owned();
    assert!(line.contains("login refused"), "{line}");
    Cli::as_user("nobody")
        .args(["attributes"])
        .run()
        .refused(400);
    let line = Cli::as_user(ANN)
        .args(["--client-id", "someone-else", "attributes"])
        .run()
        .refused(400)
        .to_owned();
    assert!(line.contains("client"), "{line}");
    // No service there: one line, no status.
    let line = Cli::as_user(ANN)
        .args(["--service", "http://127.0.0.1:9", "attributes"])
        .run()
        .error()
        .to_owned();
    assert!(line.contains("could not reach"), "{line}");
}

// ---- upload, status, file -----------------------------------------------------------------------

#[test]
fn upload_a_search_input_with_each_encoding_then_read_its_status_and_record() {
    let gear_view = view("gear", 0);
    for encoding in ["binary", "base64", "direct"] {
        let line = cli(ANN, ["upload", &gear_view, "--encoding", encoding]).ok_json();
        assert_eq!(line["state"], "completed", "{encoding}: {line}");
        let uid = line["uid"].as_str().unwrap();
        assert_eq!(line.as_object().unwrap().len(), 2, "{line}");

        let status = cli(ANN, ["status", uid]).ok_json();
        assert_eq!(status["uid"], uid);
        assert_eq!(status["state"], "completed");
        let indexed_at = status["indexed_at"].as_str().unwrap();
        assert!(
            chrono::DateTime::parse_from_rfc3339(indexed_at).is_ok(),
            "{indexed_at}"
        );

        let record = cli(ANN, ["file", uid]).ok_json();
        assert_eq!(record["UID"], uid, "{encoding}");
        assert_eq!(record["IndexingFinished"], true);
        assert_eq!(record["HasThumbnail"], true);
        assert_eq!(record["Attributes"], json!([]));
        // Searching by the input finds the part it shows.
        let result = cli(ANN, ["search", "--uid", uid]).ok_json();
        assert!(
            part_comes_first(&result_uids(&result), "gear"),
            "{encoding}: {result}"
        );
    }
}

#[test]
fn asynchronous_uploads_are_in_progress_until_status_wait_sees_them_completed() {
    let pulley_view = view("pulley", 1);
    let line = cli(ANN, ["upload", &pulley_view, "--async"]).ok_json();
    assert_eq!(line["state"], "in_progress");
    let uid = line["uid"].as_str().unwrap();
    let waited = cli(ANN, ["status", uid, "--wait"]).ok_json();
    assert_eq!(waited["state"], "completed", "{waited}");
    assert!(waited["indexed_at"].is_string());
    // Once completed, a plain status says so too, with the same timestamp.
    assert_eq!(cli(ANN, ["status", uid]).ok_json(), waited);

    let line = cli(ANN, ["upload", &pulley_view, "--async", "--wait"]).ok_json();
    assert_eq!(line["state"], "completed", "{line}");
    let status = cli(ANN, ["status", line["uid"].as_str().unwrap()]).ok_json();
    assert_eq!(status["state"], "completed");
}

#[test]
fn status_of_an_unknown_file_is_unknown_and_waiting_on_it_fails_with_404() {
    let status = cli(ANN, ["status", UNKNOWN_UID]).ok_json();
    assert_eq!(
        status,
        json!({"uid": UNKNOWN_UID, "state": "unknown", "indexed_at": null})
    );
    let waited = cli(ANN, ["status", UNKNOWN_UID, "--wait"]);
    assert!(waited.error().contains("HTTP 404"), "{waited:?}");
    assert_eq!(waited.json()["state"], "unknown");
    // A file of another company is unknown to this user.
    let acme_file = &part("gear").uid;
    assert_eq!(
        cli(GUS, ["status", acme_file]).ok_json()["state"],
        "unknown"
    );
}

#[test]
fn a_chosen_uid_names_the_upload_and_a_second_upload_overwrites_it() {
    let chosen = uuid::Uuid::new_v4().to_string();
    let line = cli(ANN, ["upload", &view("gear", 0), "--uid", &chosen]).ok_json();
    assert_eq!(line, json!({"uid": chosen, "state": "completed"}));
    let first = cli(ANN, ["search", "--uid", &chosen]).ok_json();
    assert!(part_comes_first(&result_uids(&first), "gear"), "{first}");

    let line = cli(
        ANN,
        [
            "upload",
            &view("hinge", 0),
            "--uid",
            &chosen,
            "--encoding",
            "base64",
        ],
    )
    .ok_json();
    assert_eq!(line["uid"], chosen.as_str());
    let second = cli(ANN, ["search", "--uid", &chosen]).ok_json();
    assert_eq!(result_uids(&second)[0], part("hinge").uid);

    // Only its owner or an admin may overwrite a search input; another company may not use its UID.
    let admins = uuid::Uuid::new_v4().to_string();
    cli(ADMIN, ["upload", &view("gear", 0), "--uid", &admins]).ok_json();
    let line = cli(ANN, ["upload", &view("gear", 1), "--uid", &admins])
        .refused(403)
        .to_owned();
    assert!(line.contains("only an admin may overwrite"), "{line}");
    assert!(line.contains("--uid"), "{line}");
    cli(GUS, ["upload", &view("gear", 1), "--uid", &chosen]).refused(409);
    let line = cli(ADMIN, ["upload", &view("spring", 0), "--uid", &chosen]).ok_json();
    assert_eq!(line["uid"], chosen.as_str());
    let third = cli(ANN, ["search", "--uid", &chosen]).ok_json();
    assert_eq!(result_uids(&third)[0], part("spring").uid);
}

#[test]
fn upload_into_the_database_with_attributes_then_read_it_by_uid_and_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = stripes_png(dir.path(), "local-name.png", 101);
    let line = cli(
        ADMIN,
        [
            "upload",
            &path_arg(&file),
            "--database",
            "Upload Tests/bracket copy.png",
            "--attr",
            "upload_material=steel",
            "--attr",
            "upload_region=EU|US",
            "--attr",
            "upload_weight(kg)=12.3",
            "--wait",
        ],
    )
    .ok_json();
    assert_eq!(line["state"], "completed", "{line}");
    let uid = line["uid"].as_str().unwrap();
    let by_uid = cli(ANN, ["file", uid]).ok_json();
    let by_name = cli(ANN, ["file", "--name", "Upload Tests/bracket copy.png"]).ok_json();
    assert_eq!(by_uid["UID"], uid);
    assert_eq!(by_name["UID"], uid);
    assert_eq!(by_uid["FileName"], "Upload Tests/bracket copy.png");
    assert_eq!(by_uid["DisplayName"], "bracket copy.png");
    assert_eq!(
        by_uid["Attributes"],
        json!([
            "upload_material=steel",
            "upload_region=EU|US",
            "upload_weight(kg)=12.3"
        ])
    );
    assert_eq!(by_uid["Attributes"], by_name["Attributes"]);
    // The attributes are searchable at once: each value of a multi-value on its own.
    let found = cli(ANN, ["search", "--exact", "upload_region=US"]).ok_json();
    assert_eq!(result_uids(&found), vec![uid.to_owned()]);

    // Uploading to the same stored path replaces the file in place: same UID, attributes kept
    // unless new ones are given.
    let replacement = stripes_png(dir.path(), "replacement.png", 104);
    let again = cli(
        ADMIN,
        [
            "upload",
            &path_arg(&replacement),
            "--database",
            "Upload Tests/bracket copy.png",
        ],
    )
    .ok_json();
    assert_eq!(again, json!({"uid": uid, "state": "completed"}));
    assert_eq!(
        attributes_of(ANN, uid),
        vec![
            "upload_material=steel",
            "upload_region=EU|US",
            "upload_weight(kg)=12.3"
        ]
    );

    // Direct and base64 encodings store database files as well.
    for (encoding, stored_path, seed) in [
        ("direct", "Upload Tests/direct.png", 102),
        ("base64", "Upload Tests/base64.png", 103),
    ] {
        let file = stripes_png(dir.path(), &format!("{encoding}.png"), seed);
        let attribute = format!("upload_encoding={encoding}");
        let line = cli(
            ADMIN,
            [
                "upload",
                &path_arg(&file),
                "--database",
                stored_path,
                "--encoding",
                encoding,
                "--attr",
                &attribute,
            ],
        )
        .ok_json();
        let record = cli(ANN, ["file", "--name", stored_path]).ok_json();
        assert_eq!(record["UID"], line["uid"], "{encoding}");
        assert_eq!(
            record["Attributes"],
            json!([format!("upload_encoding={encoding}")])
        );
    }
}

#[test]
fn refused_uploads_name_the_reason_and_leave_the_service_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = dir.path().join("tiny.png");
    std::fs::write(&tiny, vec![7u8; 1000]).unwrap();
    let line = cli(
        ADMIN,
        ["upload", &path_arg(&tiny), "--database", "Refused/tiny.png"],
    )
    .refused_locally()
    .to_owned();
    assert!(line.contains("1024"), "{line}");
    // 1000 bytes are 1336 base64 characters: enough for PUT /api/File, which measures those.
    let line = cli(
        ADMIN,
        [
            "upload",
            &path_arg(&tiny),
            "--database",
            "Refused/tiny-base64.png",
            "--encoding",
            "base64",
        ],
    );
    // The bytes are no PNG: the service stores the file and its indexing fails (422).
    assert_eq!(line.json()["state"], "failed", "{line:?}");
    assert!(line.error().contains("HTTP 422"), "{line:?}");

    let picture = stripes_png(dir.path(), "ok.png", 201);
    let line = cli(ANN, ["upload", &path_arg(&picture), "--attr", "a=b"])
        .refused_locally()
        .to_owned();
    assert!(line.contains("--database"), "{line}");
    let line = cli(
        ADMIN,
        [
            "upload",
            &path_arg(&picture),
            "--database",
            "Refused/async.png",
            "--async",
        ],
    )
    .refused_locally()
    .to_owned();
    assert!(line.contains("--async"), "{line}");
    cli(
        ADMIN,
        [
            "upload",
            &path_arg(&picture),
            "--database",
            "Refused/bad-attr.png",
            "--attr",
            "no value here",
        ],
    )
    .refused_locally();
    cli(
        ADMIN,
        [
            "upload",
            &path_arg(&picture),
            "--database",
            "Refused/bad-uid.png",
            "--uid",
            "not-a-guid",
        ],
    )
    .refused_locally();
    cli(
        ANN,
        [
            "upload",
            &path_arg(&picture),
            "--encoding",
            "direct",
            "--async",
        ],
    )
    .refused_locally();
    for stored_path in [
        "Refused/tiny.png",
        "Refused/async.png",
        "Refused/bad-attr.png",
        "Refused/bad-uid.png",
    ] {
        cli(ANN, ["file", "--name", stored_path]).refused(404);
    }
    let missing = dir.path().join("missing.png");
    let line = cli(ANN, ["upload", &path_arg(&missing)])
        .refused_locally()
        .to_owned();
    assert!(line.contains("missing.png"), "{line}");
}

#[test]
fn a_file_of_another_company_is_not_found() {
    let gear = &part("gear");
    let line = cli(GUS, ["file", &gear.uid]).refused(404).to_owned();
    assert!(line.contains("not found"), "{line}");
    cli(GUS, ["file", "--name", &gear.stored_path]).refused(404);
    // Acme's own users read it.
    let record = cli(ANN, ["file", "--name", &gear.stored_path]).ok_json();
    assert_eq!(record["UID"], gear.uid.as_str());
    assert_eq!(record["Attributes"], json!(gear.attributes));
    cli(ANN, ["file", "--name", "Samples/no-such-part.png"]).refused(404);
}

// ---- delete -------------------------------------------------------------------------------------

#[test]
fn only_an_admin_deletes_database_files_and_a_second_delete_is_404() {
    let dir = tempfile::tempdir().unwrap();
    let uid = upload_database_file(dir.path(), "Delete Tests/doomed.png", 301, &[]);
    let line = cli(ANN, ["delete", &uid]).refused(403).to_owned();
    assert!(line.contains("admin"), "{line}");
    // Refused: the file is still there.
    assert_eq!(cli(ANN, ["file", &uid]).ok_json()["UID"], uid.as_str());
    cli(GUS, ["delete", &uid]).refused(404);

    assert_eq!(
        cli(ADMIN, ["delete", &uid]).ok_json(),
        json!({"deleted": true})
    );
    cli(ADMIN, ["delete", &uid]).refused(404);
    cli(ANN, ["file", &uid]).refused(404);
    assert_eq!(cli(ANN, ["status", &uid]).ok_json()["state"], "unknown");
}

#[test]
fn users_delete_their_own_search_inputs_but_not_another_users() {
    let mine = cli(ANN, ["upload", &view("washer", 0)]).ok_json()["uid"]
        .as_str()
        .unwrap()
        .to_owned();
    let admins = cli(ADMIN, ["upload", &view("washer", 1)]).ok_json()["uid"]
        .as_str()
        .unwrap()
        .to_owned();
    cli(ANN, ["delete", &admins]).refused(403);
    assert_eq!(
        cli(ANN, ["delete", &mine]).ok_json(),
        json!({"deleted": true})
    );
    cli(ANN, ["delete", &mine]).refused(404);
    // An admin may delete any file of the company.
    assert_eq!(
        cli(ADMIN, ["delete", &admins]).ok_json(),
        json!({"deleted": true})
    );
    cli(ANN, ["delete", "not-a-guid"]).refused_locally();
}

// ---- attributes ---------------------------------------------------------------------------------

#[test]
fn attributes_lists_the_names_the_company_uses() {
    let list = cli(ANN, ["attributes"]).ok_json();
    let names: Vec<(String, String)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            assert!(item["ID"].is_i64(), "{item}");
            assert!(item["IsCustom"].is_boolean(), "{item}");
            (
                item["Name"].as_str().unwrap().to_owned(),
                item["Unit"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for wanted in [
        ("part_number", ""),
        ("material", ""),
        ("category", ""),
        ("weight", "kg"),
        ("supplier", ""),
        ("teeth", ""),
        ("diameter", "mm"),
        ("finish", ""),
        ("thread", ""),
        ("length", "mm"),
    ] {
        assert!(
            names.contains(&(wanted.0.to_owned(), wanted.1.to_owned())),
            "{wanted:?} missing from {names:?}"
        );
    }
    // Another company sees none of Acme's names.
    let other = cli(GUS, ["attributes"]).ok_json();
    assert!(
        !other
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["Name"] == "teeth" || item["Name"] == "part_number"),
        "{other}"
    );
}

#[test]
fn attrs_set_by_uid_and_name_with_units_several_values_keep_existing_then_clear() {
    let dir = tempfile::tempdir().unwrap();
    let stored_path = "Attrs Tests/plate.png";
    let uid = upload_database_file(dir.path(), stored_path, 401, &["attrs_colour=red"]);
    assert_eq!(attributes_of(ANN, &uid), vec!["attrs_colour=red"]);

    // Replace all by UID: several values and a unit.
    let ok = cli(
        ANN,
        [
            "attrs",
            "set",
            &uid,
            "attrs_colour=blue|green",
            "attrs_thickness(mm)=2.5",
        ],
    )
    .ok_json();
    assert_eq!(ok, json!({"ok": true}));
    assert_eq!(
        attributes_of(ANN, &uid),
        vec!["attrs_colour=blue|green", "attrs_thickness(mm)=2.5"]
    );

    // Add by stored path, keeping the others; a name given again replaces its values.
    cli(
        ANN,
        [
            "attrs",
            "set",
            "--name",
            stored_path,
            "--keep-existing",
            "attrs_grade=A",
            "attrs_colour=green",
        ],
    )
    .ok_json();
    let kept = attributes_of(ANN, &uid);
    assert_eq!(kept.len(), 3, "{kept:?}");
    for wanted in [
        "attrs_colour=green",
        "attrs_thickness(mm)=2.5",
        "attrs_grade=A",
    ] {
        assert!(
            kept.contains(&wanted.to_owned()),
            "{wanted} missing: {kept:?}"
        );
    }

    // Without --keep-existing the list replaces everything.
    cli(
        ANN,
        ["attrs", "set", "--name", stored_path, "attrs_grade=B"],
    )
    .ok_json();
    assert_eq!(attributes_of(ANN, &uid), vec!["attrs_grade=B"]);
    let values = cli(ANN, ["values", "attrs_grade"]).ok_json();
    assert_eq!(values, json!([{"Name": "B", "Count": 1}]));

    // Refused before sending: no `=`, no name, a `|` in the name, no attribute at all. The file's
    // attributes stay as they were.
    cli(ANN, ["attrs", "set", &uid, "attrs_grade"]).refused_locally();
    cli(ANN, ["attrs", "set", &uid, "=C"]).refused_locally();
    cli(ANN, ["attrs", "set", &uid, "attrs|grade=C"]).refused_locally();
    cli(ANN, ["attrs", "set", &uid]).refused_locally();
    assert_eq!(attributes_of(ANN, &uid), vec!["attrs_grade=B"]);

    // Refused by the service: files it does not know for this user.
    cli(
        ANN,
        ["attrs", "set", "--name", "Attrs Tests/none.png", "a=b"],
    )
    .refused(404);
    cli(GUS, ["attrs", "set", &uid, "attrs_grade=Z"]).refused(404);
    cli(GUS, ["attrs", "clear", &uid]).refused(404);
    assert_eq!(attributes_of(ANN, &uid), vec!["attrs_grade=B"]);

    assert_eq!(
        cli(ANN, ["attrs", "clear", &uid]).ok_json(),
        json!({"ok": true})
    );
    assert_eq!(attributes_of(ANN, &uid), Vec::<String>::new());
    assert_eq!(cli(ANN, ["values", "attrs_grade"]).ok_json(), json!([]));
    cli(ANN, ["attrs", "clear", UNKNOWN_UID]).refused(404);
}

#[test]
fn values_count_each_of_several_values_in_the_company() {
    let material = value_counts(&cli(ANN, ["values", "material"]).ok_json());
    assert_eq!(
        material,
        BTreeMap::from([
            // The L-bracket's PDF drawing carries its part's material.
            ("aluminium".to_owned(), 4),
            ("brass".to_owned(), 2),
            ("cast iron".to_owned(), 1),
            ("spring steel".to_owned(), 1),
            // Pictures 3, STL and STEP models of the flange and the washer 4, the flange's
            // drawing 1.
            ("stainless steel".to_owned(), 8),
            // Pictures 5, STL models of the gear, flange and stepped shaft 3, STEP models of the
            // flange and stepped shaft 2, their two DXF drawings 2.
            ("steel".to_owned(), 12),
        ])
    );
    // Most frequent first.
    assert_eq!(
        cli(ANN, ["values", "material"]).ok_json()[0],
        json!({"Name": "steel", "Count": 12})
    );
    // The name is matched case-insensitively; a unit in the name narrows to it.
    assert_eq!(
        value_counts(&cli(ANN, ["values", "MATERIAL"]).ok_json()),
        material
    );
    let finish = value_counts(&cli(ANN, ["values", "finish"]).ok_json());
    assert_eq!(
        finish,
        // The L-bracket and its PDF drawing both say "anodised|powder coated".
        BTreeMap::from([
            ("anodised".to_owned(), 3),
            ("polished".to_owned(), 1),
            ("powder coated".to_owned(), 2),
        ])
    );
    let diameter = value_counts(&cli(ANN, ["values", "diameter(mm)"]).ok_json());
    assert_eq!(diameter.len(), 3, "{diameter:?}");
    assert_eq!(cli(ANN, ["values", "diameter(in)"]).ok_json(), json!([]));
    // Scoped to the company.
    assert_eq!(cli(GUS, ["values", "material"]).ok_json(), json!([]));
    cli(ANN, ["values", " "]).refused_locally();
}

// ---- pmi and feedback ---------------------------------------------------------------------------

#[test]
fn pmi_prints_pages_text_and_extracted_attributes() {
    let gear = part("gear");
    let pmi = cli(ANN, ["pmi", &gear.uid]).ok_json();
    let fields: Vec<&str> = pmi
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        vec!["extracted_attributes", "pages", "unstructured_text"],
        "{pmi}"
    );
    assert!(pmi["pages"].is_array(), "{pmi}");
    assert!(pmi["unstructured_text"].is_string(), "{pmi}");
    // A picture has no drawing items, and the service reads its size.
    assert_eq!(
        pmi["extracted_attributes"],
        json!(["width_px=512", "height_px=512"])
    );
    // The same extracted attributes as the record shows.
    let record = cli(ANN, ["file", &gear.uid]).ok_json();
    assert_eq!(record["ExtractedAttributes"], pmi["extracted_attributes"]);
    cli(ANN, ["pmi", UNKNOWN_UID]).refused(404);
    cli(GUS, ["pmi", &gear.uid]).refused(404);
}

#[test]
fn pmi_prints_the_items_of_a_drawing() {
    let drawing = part("flange-drawing");
    let pmi = cli(ANN, ["pmi", &drawing.uid]).ok_json();
    let pages = pmi["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 1, "{pmi}");
    let page = &pages[0];
    let [width, height] = [
        page["image_size"][0].as_i64().unwrap(),
        page["image_size"][1].as_i64().unwrap(),
    ];
    let items = page["items"].as_array().unwrap();
    assert!(
        items
            .iter()
            .any(|item| item["type_id"] == 2 && item["text"] == "Ø60 H7 ±0.015"),
        "{pmi}"
    );
    for item in items {
        let [left, top, right, bottom] = [0, 1, 2, 3].map(|i| item["box"][i].as_i64().unwrap());
        assert!(0 <= left && left < right && right <= width, "{item}");
        assert!(0 <= top && top < bottom && bottom <= height, "{item}");
    }
    assert!(
        pmi["unstructured_text"]
            .as_str()
            .unwrap()
            .contains("BREAK ALL SHARP EDGES"),
        "{pmi}"
    );
    assert!(
        pmi["extracted_attributes"]
            .as_array()
            .unwrap()
            .contains(&json!("drawing_number=DWG-1002")),
        "{pmi}"
    );
    // A word of its note finds the drawing.
    let found = cli(ANN, ["search", "--text", "deburr"]).ok_json();
    assert_eq!(result_uids(&found), vec![drawing.uid.clone()], "{found}");
}

#[test]
fn feedback_is_stored_with_and_without_text_and_limits_are_refused_locally() {
    let dir = tempfile::tempdir().unwrap();
    let uid = upload_database_file(dir.path(), "Feedback Tests/part.png", 501, &[]);
    let with_text = cli(
        ANN,
        [
            "feedback",
            &uid,
            "--attrs",
            "width_px=96,height_px=96",
            "--text",
            "width is right, height & depth? 100%",
            "--user",
            "ext-42",
        ],
    )
    .ok_json();
    let id = with_text["feedback_id"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(id).is_ok(), "{with_text}");
    let without_text = cli(ANN, ["feedback", &uid, "--attrs", "width_px=96"]).ok_json();
    assert_ne!(without_text["feedback_id"], with_text["feedback_id"]);
    let stored = stored_feedback(&uid);
    assert_eq!(stored.len(), 2, "{stored:?}");
    assert!(
        stored.contains(&(
            "width is right, height & depth? 100%".to_owned(),
            "ext-42".to_owned(),
            r#"["width_px=96","height_px=96"]"#.to_owned()
        )),
        "{stored:?}"
    );
    assert!(
        stored.contains(&(
            String::new(),
            String::new(),
            r#"["width_px=96"]"#.to_owned()
        )),
        "{stored:?}"
    );

    // Over the limits: refused before anything is sent, nothing stored.
    let line = cli(
        ANN,
        [
            "feedback",
            &uid,
            "--attrs",
            "a=b",
            "--text",
            &"x".repeat(301),
        ],
    )
    .refused_locally()
    .to_owned();
    assert!(line.contains("300"), "{line}");
    let line = cli(
        ANN,
        [
            "feedback",
            &uid,
            "--attrs",
            "a=b",
            "--user",
            &"u".repeat(101),
        ],
    )
    .refused_locally()
    .to_owned();
    assert!(line.contains("100"), "{line}");
    cli(ANN, ["feedback", &uid, "--attrs", " , "]).refused_locally();
    assert_eq!(stored_feedback(&uid).len(), 2);
    // Exactly at the limits is fine.
    cli(
        ANN,
        [
            "feedback",
            &uid,
            "--attrs",
            "a=b",
            "--text",
            &"é".repeat(300),
            "--user",
            &"u".repeat(100),
        ],
    )
    .ok_json();
    assert_eq!(stored_feedback(&uid).len(), 3);
    // Unknown files are refused by the service.
    cli(ANN, ["feedback", UNKNOWN_UID, "--attrs", "a=b"]).refused(404);
    cli(GUS, ["feedback", &uid, "--attrs", "a=b"]).refused(404);
}

// ---- search -------------------------------------------------------------------------------------

#[test]
fn one_file_goes_up_in_a_single_call_and_finds_its_part_first() {
    for name in ["gear", "l-bracket", "spring"] {
        let result = cli(ANN, ["search", &view(name, 0)]).ok_json();
        let inputs = input_uids(&result);
        assert_eq!(inputs.len(), 1, "{result}");
        assert!(
            part_comes_first(&result_uids(&result), name),
            "{name}: {result}"
        );
        assert!(result["TotalResults"].as_i64().unwrap() >= 16, "{result}");
        // The input was stored as a search input of this user, indexed during the call.
        let record = cli(ANN, ["file", &inputs[0]]).ok_json();
        assert_eq!(record["IndexingFinished"], true);
    }
}

#[test]
fn two_views_of_a_part_in_mixed_formats_go_up_in_two_steps_and_rank_it_first() {
    // Every part picture has two query views (the models and drawings have none).
    for part in library().parts.iter().filter(|part| !part.views.is_empty()) {
        let result = cli(
            ANN,
            [
                "search",
                &path_arg(&part.views[0]),
                &path_arg(&part.views[1]),
            ],
        )
        .ok_json();
        let inputs = input_uids(&result);
        assert_eq!(inputs.len(), 2, "{result}");
        // Two steps: each view was uploaded on its own and is completed before the search.
        for input in &inputs {
            assert_eq!(cli(ANN, ["status", input]).ok_json()["state"], "completed");
        }
        // The part's picture or one of its models (which render like the picture) comes first.
        let ranked = result_uids(&result);
        assert!(
            files_of(&part.name).contains(&ranked[0]),
            "{}: {result}",
            part.name
        );
    }
}

#[test]
fn two_step_and_asynchronous_searches_by_one_file() {
    for options in [
        &["--two-step"][..],
        &["--async"],
        &["--two-step", "--async"],
    ] {
        let mut args = vec!["search".to_owned(), view("hex-nut", 1)];
        args.extend(options.iter().map(|option| (*option).to_owned()));
        let result = cli(ANN, &args).ok_json();
        let inputs = input_uids(&result);
        assert_eq!(inputs.len(), 1, "{options:?}: {result}");
        assert_eq!(
            cli(ANN, ["status", &inputs[0]]).ok_json()["state"],
            "completed"
        );
        assert_eq!(result_uids(&result)[0], part("hex-nut").uid, "{options:?}");
    }
}

#[test]
fn earlier_inputs_are_searched_by_uid_alone_or_with_more_files() {
    let first = cli(ANN, ["upload", &view("flange", 0)]).ok_json()["uid"]
        .as_str()
        .unwrap()
        .to_owned();
    let by_uid = cli(ANN, ["search", "--uid", &first]).ok_json();
    assert_eq!(input_uids(&by_uid), vec![first.clone()]);
    assert!(files_of("flange").contains(&result_uids(&by_uid)[0]));

    // A FILE beside --uid: one call, the new input appended to the earlier one.
    let with_file = cli(ANN, ["search", &view("flange", 1), "--uid", &first]).ok_json();
    let inputs = input_uids(&with_file);
    assert_eq!(inputs.len(), 2, "{with_file}");
    assert_eq!(inputs[0], first);
    assert!(files_of("flange").contains(&result_uids(&with_file)[0]));

    // The same in two steps.
    let two_step = cli(
        ANN,
        ["search", &view("flange", 1), "--uid", &first, "--two-step"],
    )
    .ok_json();
    assert_eq!(input_uids(&two_step).len(), 2, "{two_step}");
    assert_eq!(input_uids(&two_step)[0], first);
    assert!(files_of("flange").contains(&result_uids(&two_step)[0]));

    // Another company's user cannot search by Acme's input or see Acme's files.
    let other = cli(GUS, ["search", "--uid", &first]).ok_json();
    assert_eq!(other["TotalResults"], 0, "{other}");
    let other = cli(GUS, ["search", &view("flange", 0)]).ok_json();
    assert_eq!(other["TotalResults"], 0, "{other}");
}

#[test]
fn text_and_attribute_filters_narrow_the_library() {
    let search = |args: &[&str]| {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        result_uids(&cli(ANN, &all).ok_json())
    };
    // Without inputs, results come in display-name order.
    assert_eq!(search(&["--text", "pulley"]), uids_of(&["pulley"]));
    assert_eq!(
        search(&["--text", "Norder aluminium"]),
        uids_of(&["l-bracket-drawing", "l-bracket", "t-slot-profile"])
    );
    // Exact matches hit one value of a multi-value.
    assert_eq!(
        search(&["--exact", "material=brass"]),
        uids_of(&["hex-nut", "hinge"])
    );
    // The flange's drawing shares its attributes ("flange-drawing.dxf" sorts before "flange.png").
    assert_eq!(
        search(&["--exact", "material=stainless steel"]),
        uids_of(&[
            "flange-drawing",
            "flange",
            "models/flange.step",
            "models/flange.stl",
            "hinge",
            "washer",
            "models/washer.step",
            "models/washer.stl"
        ])
    );
    // A regular match finds the text inside a value; exact needs the whole value.
    assert_eq!(
        search(&["--attr", "supplier=keystone"]).len(),
        6,
        "bolt, hex nut, spring, washer and its two models"
    );
    assert!(search(&["--exact", "supplier=Keystone"]).is_empty());
    // Prefixes, with or without the trailing *.
    assert_eq!(
        search(&["--prefix", "part_number=PL-101"]),
        uids_of(&["hinge", "spring", "t-slot-profile"])
    );
    assert_eq!(
        search(&["--prefix", "part_number=PL-101*"]),
        search(&["--prefix", "part_number=PL-101"])
    );
    // Units ride in the name.
    assert_eq!(
        search(&["--exact", "diameter(mm)=160"]),
        uids_of(&[
            "flange-drawing",
            "flange",
            "models/flange.step",
            "models/flange.stl"
        ])
    );
    // Numeric ranges: an attribute's numbers (the range converted to the name's unit) and a
    // model's size (length: its largest extent, in millimetres without a unit).
    assert_eq!(
        search(&["--range", "diameter(mm)=15..17cm"]),
        search(&["--exact", "diameter(mm)=160"])
    );
    assert_eq!(
        search(&["--range", "length=150..170"]),
        uids_of(&["models/flange.step", "models/flange.stl"])
    );
    // Drawings are told apart by their document type.
    assert_eq!(
        search(&["--exact", "document_type=drawing"]),
        uids_of(&[
            "flange-drawing",
            "l-bracket-drawing",
            "stepped-shaft-drawing"
        ])
    );
    // Every filter must hold.
    assert_eq!(
        search(&[
            "--text",
            "fastener",
            "--exact",
            "thread=M12",
            "--attr",
            "material=brass"
        ]),
        uids_of(&["hex-nut"])
    );
    // Filters narrow a search by file; the part stays first.
    let result = cli(ANN, ["search", &view("bolt", 0), "--exact", "thread=M12"]).ok_json();
    assert_eq!(result_uids(&result), uids_of(&["bolt", "hex-nut"]));
    let result = cli(
        ANN,
        [
            "search",
            &view("bolt", 0),
            &view("bolt", 1),
            "--text",
            "keystone",
            "--prefix",
            "part_number=PL-100",
        ],
    )
    .ok_json();
    assert_eq!(result_uids(&result)[0], part("bolt").uid);
    // Bolt, hex nut, washer and the washer's two models (STL and STEP).
    assert_eq!(result["TotalResults"], 5, "{result}");
}

#[test]
fn filters_narrow_by_attributes_set_with_attrs() {
    let dir = tempfile::tempdir().unwrap();
    let first = upload_database_file(dir.path(), "Narrow Tests/first.png", 601, &[]);
    let second = upload_database_file(dir.path(), "Narrow Tests/second.png", 602, &[]);
    cli(
        ADMIN,
        [
            "attrs",
            "set",
            "--name",
            "Narrow Tests/first.png",
            "narrow_batch=NB-100|NB-200",
            "narrow_gauge(mm)=1.5",
        ],
    )
    .ok_json();
    cli(ADMIN, ["attrs", "set", &second, "narrow_batch=NB-300"]).ok_json();
    let search = |args: &[&str]| {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        result_uids(&cli(ANN, &all).ok_json())
    };
    assert_eq!(
        search(&["--exact", "narrow_batch=NB-200"]),
        vec![first.clone()]
    );
    assert_eq!(
        search(&["--exact", "narrow_batch=nb-100"]),
        vec![first.clone()]
    );
    assert!(search(&["--exact", "narrow_batch=NB-2"]).is_empty());
    assert_eq!(
        search(&["--attr", "narrow_batch=NB-2"]),
        vec![first.clone()]
    );
    assert_eq!(
        search(&["--prefix", "narrow_batch=NB-"]),
        vec![first.clone(), second.clone()]
    );
    assert_eq!(
        search(&["--prefix", "narrow_batch=NB-3*"]),
        vec![second.clone()]
    );
    assert_eq!(
        search(&[
            "--exact",
            "narrow_batch=NB-100",
            "--exact",
            "narrow_batch=NB-200"
        ]),
        vec![first.clone()]
    );
    assert!(
        search(&[
            "--exact",
            "narrow_batch=NB-100",
            "--exact",
            "narrow_batch=NB-300"
        ])
        .is_empty()
    );
    assert_eq!(
        search(&["--exact", "narrow_gauge(mm)=1.5"]),
        vec![first.clone()]
    );
    assert!(search(&["--exact", "narrow_gauge(in)=1.5"]).is_empty());
    assert_eq!(search(&["--text", "nb-300"]), vec![second.clone()]);
    // A search by the first file's own picture, narrowed to the second file's batch.
    let picture = dir.path().join("local-601.png");
    let result = cli(
        ANN,
        ["search", &path_arg(&picture), "--prefix", "narrow_batch=NB"],
    )
    .ok_json();
    assert_eq!(result_uids(&result), vec![first.clone(), second.clone()]);
    let result = cli(
        ANN,
        [
            "search",
            &path_arg(&picture),
            "--exact",
            "narrow_batch=NB-300",
        ],
    )
    .ok_json();
    assert_eq!(result_uids(&result), vec![second.clone()]);
    // Cleared attributes no longer match.
    cli(ADMIN, ["attrs", "clear", &second]).ok_json();
    assert_eq!(search(&["--prefix", "narrow_batch=NB-"]), vec![first]);
}

#[test]
fn search_refusals_and_inputs_that_cannot_be_indexed_name_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let line = cli(ANN, ["search"]).refused_locally().to_owned();
    assert!(line.contains("empty"), "{line}");
    let eleven: Vec<String> = (0..11).map(|_| view("gear", 0)).collect();
    let mut args = vec!["search".to_owned()];
    args.extend(eleven);
    let line = cli(ANN, &args).refused_locally().to_owned();
    assert!(line.contains("at most 10"), "{line}");
    // Ten views (of one extension) go up in one call.
    let mut ten = vec!["search".to_owned()];
    ten.extend(
        library()
            .parts
            .iter()
            .take(10)
            .map(|part| path_arg(&part.views[0])),
    );
    let result = cli(ANN, &ten).ok_json();
    assert_eq!(input_uids(&result).len(), 10, "{result}");
    cli(ANN, ["search", "--two-step", "--text", "gear"]).refused_locally();
    cli(ANN, ["search", "--attr", "steel"]).refused_locally();
    cli(ANN, ["search", "--uid", "not-a-guid"]).refused_locally();
    cli(ANN, ["search", &path_arg(&dir.path().join("missing.png"))]).refused_locally();
    // A view the service cannot index: the two-step search stops at it and names the status.
    let broken = dir.path().join("broken.png");
    std::fs::write(&broken, vec![0u8; 4096]).unwrap();
    let run = cli(ANN, ["search", &path_arg(&broken), "--async"]);
    assert!(run.error().contains("HTTP 422"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    // In one call too: the service stores the input, and the search stops at its failed state
    // instead of showing an empty result.
    let run = cli(ANN, ["search", &path_arg(&broken)]);
    assert!(run.error().contains("HTTP 422"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    // Uploaded on its own, its state says why.
    let upload = cli(ANN, ["upload", &path_arg(&broken)]);
    assert!(upload.error().contains("HTTP 422"), "{upload:?}");
    let inputs = [upload.json()["uid"].as_str().unwrap().to_owned()];
    let status = cli(ANN, ["status", &inputs[0]]).ok_json();
    assert_eq!(status["state"], "failed", "{status}");
    let reason = status["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("cannot decode the .png content"),
        "{status}"
    );
    assert_eq!(upload.json()["reason"], reason);
    let waited = cli(ANN, ["status", &inputs[0], "--wait"]);
    assert_eq!(waited.json()["state"], "failed");
    assert!(waited.error().contains("HTTP 422"), "{waited:?}");
    // Nothing was rendered from it.
    let record = cli(ANN, ["file", &inputs[0]]).ok_json();
    assert_eq!(record["IndexingFinished"], false, "{record}");
    assert_eq!(record["HasThumbnail"], false, "{record}");
    let line = cli(
        ANN,
        [
            "image",
            &inputs[0],
            "--out",
            &path_arg(&dir.path().join("none.jpg")),
        ],
    )
    .error()
    .to_owned();
    assert!(line.contains("thumbnail"), "{line}");
    assert!(!dir.path().join("none.jpg").exists());
}

// ---- images -------------------------------------------------------------------------------------

#[test]
fn image_downloads_the_thumbnail_and_the_large_image() {
    let dir = tempfile::tempdir().unwrap();
    let gear = part("gear");
    let thumbnail = dir.path().join("gear-thumb.jpg");
    let line = cli(ANN, ["image", &gear.uid, "--out", &path_arg(&thumbnail)]).ok_json();
    let bytes = std::fs::read(&thumbnail).unwrap();
    assert_eq!(
        line,
        json!({"path": path_arg(&thumbnail), "bytes": bytes.len()})
    );
    assert_eq!(
        image::guess_format(&bytes).unwrap(),
        image::ImageFormat::Jpeg
    );
    let small = image::load_from_memory(&bytes).unwrap();
    assert_eq!(small.width().max(small.height()), 256);

    let large = dir.path().join("gear-large.png");
    let line = cli(
        ANN,
        ["image", &gear.uid, "--large", "--out", &path_arg(&large)],
    )
    .ok_json();
    let bytes = std::fs::read(&large).unwrap();
    assert_eq!(line["bytes"], bytes.len());
    assert_eq!(
        image::guess_format(&bytes).unwrap(),
        image::ImageFormat::Png
    );
    let big = image::load_from_memory(&bytes).unwrap();
    assert_eq!((big.width(), big.height()), (512, 512));

    // A search input has pictures too.
    let input = cli(ANN, ["upload", &view("gear", 1)]).ok_json()["uid"]
        .as_str()
        .unwrap()
        .to_owned();
    let input_thumbnail = dir.path().join("input.jpg");
    cli(ANN, ["image", &input, "--out", &path_arg(&input_thumbnail)]).ok_json();
    assert!(image::load_from_memory(&std::fs::read(&input_thumbnail).unwrap()).is_ok());

    // Refusals leave the output path alone.
    let untouched = dir.path().join("untouched.png");
    cli(ANN, ["image", UNKNOWN_UID, "--out", &path_arg(&untouched)]).refused(404);
    cli(GUS, ["image", &gear.uid, "--out", &path_arg(&untouched)]).refused(404);
    cli(ANN, ["image", &gear.uid, "--out", &path_arg(dir.path())]).refused_locally();
    assert!(!untouched.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

// ---- characters that need encoding --------------------------------------------------------------

#[test]
fn paths_values_and_filters_with_characters_that_need_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let paths = [
        "Odd Tests/a+b & c=d.png",
        "Odd Tests/100% #1.png",
        "Odd Tests/Ø-flange ünï.png",
        "Odd Tests/semi;colon,comma'quote\".png",
    ];
    let mut uids = Vec::new();
    for (number, path) in paths.iter().enumerate() {
        let file = stripes_png(
            dir.path(),
            &format!("odd-{number}.png"),
            700 + number as u32,
        );
        let line = cli(
            ADMIN,
            [
                "upload",
                &path_arg(&file),
                "--database",
                path,
                "--attr",
                "odd_note=a=b&c d+e%20f|ü,x",
                "--attr",
                "odd_größe(mm)=5",
            ],
        )
        .ok_json();
        let uid = line["uid"].as_str().unwrap().to_owned();
        let record = cli(ANN, ["file", "--name", path]).ok_json();
        assert_eq!(record["UID"], uid.as_str(), "{path}");
        assert_eq!(record["FileName"], *path);
        assert_eq!(
            record["Attributes"],
            json!(["odd_note=a=b&c d+e%20f|ü,x", "odd_größe(mm)=5"])
        );
        let index = format!("odd_index=R&D={number}");
        cli(
            ANN,
            ["attrs", "set", "--name", path, "--keep-existing", &index],
        )
        .ok_json();
        assert_eq!(attributes_of(ANN, &uid).last(), Some(&index));
        uids.push(uid);
    }
    let search = |args: &[&str]| {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        let mut found = result_uids(&cli(ANN, &all).ok_json());
        found.sort();
        found
    };
    let mut all = uids.clone();
    all.sort();
    assert_eq!(search(&["--exact", "odd_note=a=b&c d+e%20f"]), all);
    assert_eq!(search(&["--exact", "odd_note=ü,x"]), all);
    assert_eq!(search(&["--attr", "odd_note=b&c"]), all);
    assert_eq!(search(&["--prefix", "odd_note=a=b&"]), all);
    assert_eq!(search(&["--exact", "odd_größe(mm)=5"]), all);
    // An exact value holding both `&` and `=` is one condition, not two.
    assert_eq!(
        search(&["--exact", "odd_index=R&D=1"]),
        vec![uids[1].clone()]
    );
    assert_eq!(search(&["--text", "a+b"]), vec![uids[0].clone()]);
    assert_eq!(search(&["--text", "100%"]), vec![uids[1].clone()]);
    assert_eq!(search(&["--text", "ünï"]), vec![uids[2].clone()]);
    assert_eq!(search(&["--text", "comma'quote\""]), vec![uids[3].clone()]);
    assert_eq!(
        value_counts(&cli(ANN, ["values", "odd_note"]).ok_json()),
        BTreeMap::from([("a=b&c d+e%20f".to_owned(), 4), ("ü,x".to_owned(), 4)])
    );
    assert_eq!(
        cli(ANN, ["values", "ODD_Größe"]).ok_json(),
        json!([{"Name": "5", "Count": 4}])
    );
}

#[test]
fn duplicates_groups_each_sample_model_with_its_other_format_and_refuses_a_bad_score() {
    let line = cli(ANN, ["duplicates", "--min-score", "1.5"])
        .refused_locally()
        .to_owned();
    assert!(line.contains("from 0 to 1"), "{line}");
    let reply = cli(ANN, ["duplicates"]).ok_json();
    assert_eq!(reply["MinScore"].as_f64(), Some(0.885), "{reply}");
    let groups = reply["Groups"].as_array().unwrap();
    let group_of = |uid: &str| {
        groups.iter().position(|group| {
            group["Files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|file| file["UID"] == uid)
        })
    };
    // The sample parts that are there as an STL and a STEP (the washer's IGES is read only with
    // OpenCASCADE): the two files of each are one group, and no two parts share one.
    let parts = ["flange", "stepped-shaft", "washer"];
    let mut seen = Vec::new();
    for name in parts {
        let stl = group_of(&part(&format!("models/{name}.stl")).uid);
        let step = group_of(&part(&format!("models/{name}.step")).uid);
        assert!(stl.is_some() && stl == step, "{name}: {reply}");
        assert!(!seen.contains(&stl), "{name} shares a group: {reply}");
        seen.push(stl);
    }
    for group in groups {
        let files = group["Files"].as_array().unwrap();
        assert!(files.len() >= 2, "{group}");
        let score = group["Score"].as_f64().unwrap();
        assert!((0.885..=1.0).contains(&score), "{group}");
    }
}

#[test]
fn files_pages_the_library_newest_first_by_kind_folder_and_attribute() {
    for (args, words) in [
        (vec!["files", "--limit", "0"], "1 to 500"),
        (vec!["files", "--kind", "sketch"], "picture, model"),
        (vec!["files", "--exact", "material"], "name=value"),
    ] {
        let line = cli(ANN, &args).refused_locally().to_owned();
        assert!(line.contains(words), "{args:?}: {line}");
    }
    // Other tests upload beside the library, under their own folders: the library's models are
    // the files of kind model under Samples, and never change.
    let models: BTreeMap<String, String> = library()
        .parts
        .iter()
        .filter(|part| part.stored_path.starts_with("Samples/models/"))
        .map(|part| (part.uid.clone(), part.stored_path.clone()))
        .collect();
    assert_eq!(models.len(), 7);
    let page = |offset: &str, limit: &str| {
        cli(
            ANN,
            [
                "files", "--kind", "model", "--folder", "samples", "--offset", offset, "--limit",
                limit,
            ],
        )
        .ok_json()
    };
    let whole = page("0", "500");
    assert_eq!(whole["TotalFiles"], 7, "{whole}");
    let uids = |page: &Value| -> Vec<String> {
        page["Files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|file| file["UID"].as_str().unwrap().to_owned())
            .collect()
    };
    let listed = uids(&whole);
    assert_eq!(
        listed
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        models.keys().cloned().collect()
    );
    // Newest first, and pages of three are the same list cut in three.
    let times: Vec<&str> = whole["Files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["UploadedAt"].as_str().unwrap())
        .collect();
    assert!(times.windows(2).all(|pair| pair[0] >= pair[1]), "{times:?}");
    let mut paged = Vec::new();
    for offset in ["0", "3", "6"] {
        let part_page = page(offset, "3");
        assert_eq!(part_page["TotalFiles"], 7);
        paged.extend(uids(&part_page));
    }
    assert_eq!(paged, listed);
    for file in whole["Files"].as_array().unwrap() {
        assert_eq!(file["Kind"], "model");
        assert_eq!(file["Folder"], "Samples/models");
        assert_eq!(
            file["FileName"].as_str(),
            models
                .get(file["UID"].as_str().unwrap())
                .map(String::as_str)
        );
    }
    // An attribute filter: the pictures and models of the gear carry its part number.
    let gear = part("gear");
    let number = gear
        .attributes
        .iter()
        .find(|text| text.starts_with("part_number="))
        .unwrap()
        .clone();
    let by_number = cli(ANN, ["files", "--folder", "Samples", "--exact", &number]).ok_json();
    let found = uids(&by_number);
    assert!(found.contains(&gear.uid), "{by_number}");
    assert!(
        by_number["Files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|file| file["Attributes"]
                .to_string()
                .contains(number.split_once('=').unwrap().1)),
        "{by_number}"
    );
    // Another company's library is its own.
    let globex = cli(GUS, ["files", "--folder", "Samples"]).ok_json();
    assert_eq!(globex["TotalFiles"], 0, "{globex}");
}

/// A zip of `(name, path)` entries (deflated), written into `dir`.
fn zip_file(dir: &Path, name: &str, entries: &[(&str, &Path)]) -> PathBuf {
    use std::io::Write as _;
    let path = dir.join(name);
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (entry, file) in entries {
        writer.start_file(*entry, options).unwrap();
        writer.write_all(&std::fs::read(file).unwrap()).unwrap();
    }
    writer.finish().unwrap();
    path
}

#[test]
fn components_and_where_used_walk_the_relations_of_a_bundle() {
    let dir = TempDir::new().unwrap();
    let pictures: Vec<PathBuf> = (0..3)
        .map(|seed| stripes_png(dir.path(), &format!("entry-{seed}.png"), 9_100 + seed))
        .collect();
    let bundle = zip_file(
        dir.path(),
        "bundle.zip",
        &[
            ("cover.png", &pictures[0]),
            ("plate.png", &pictures[1]),
            ("stop.png", &pictures[2]),
        ],
    );
    let line = cli(
        ADMIN,
        [
            "upload".to_owned(),
            path_arg(&bundle),
            "--database".to_owned(),
            "CliWhereUsed/bundle.zip".to_owned(),
        ],
    )
    .ok_json();
    let zip_uid = line["uid"].as_str().unwrap().to_owned();
    // Down: the bundle's three entries, each a leaf.
    let components = cli(ANN, ["components", zip_uid.as_str()]).ok_json();
    assert_eq!(components["UID"], zip_uid.as_str(), "{components}");
    let listed = components["Components"].as_array().unwrap();
    let mut names: Vec<&str> = listed
        .iter()
        .map(|entry| entry["FileName"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names.len(), 3, "{components}");
    assert!(
        names.iter().all(|name| name.starts_with("CliWhereUsed/")),
        "{components}"
    );
    assert!(
        listed
            .iter()
            .all(|entry| entry["Components"].as_array().is_some_and(Vec::is_empty))
    );
    assert_eq!(components["CutShort"], false);
    // Up, from an entry named by its stored path: the bundle is where it is used, and its top.
    let entry_path = names[0];
    let used = cli(ANN, ["where-used", entry_path]).ok_json();
    assert_eq!(used["FileName"], entry_path, "{used}");
    assert_eq!(used["UsedIn"][0]["UID"], zip_uid.as_str(), "{used}");
    assert_eq!(used["TopAssemblies"][0]["UID"], zip_uid.as_str(), "{used}");
    assert_eq!(used["TopAssemblies"].as_array().map(Vec::len), Some(1));
    // A file used nowhere, and one of another company, by the same commands.
    let alone = cli(ANN, ["where-used", zip_uid.as_str()]).ok_json();
    assert_eq!(alone["UsedIn"], json!([]), "{alone}");
    assert_eq!(alone["TopAssemblies"], json!([]), "{alone}");
    cli(GUS, ["where-used", zip_uid.as_str()]).refused(404);
}
