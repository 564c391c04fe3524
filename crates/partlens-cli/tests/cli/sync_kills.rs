//! A bulk load killed for real (issue 51, item 3): `partlens-cli sync` of twelve sample pictures
//! SIGKILLed in the middle of its run, and the `partlens-service` process under it SIGKILLed in
//! the middle of a run and started again on the same data folder and address. Run again, the sync
//! carries on: every file is stored once at its path (the service's revision of each is 1), none
//! went up twice, the files the first run had done keep their UID and index time, and the second
//! run's "uploaded", "confirmed" and "unchanged" add up to the folder.
//!
//! Real processes on 127.0.0.1; the kill lands once the service holds four of the twelve files
//! (each is indexed during its upload, so the run is far from its end). The service is killed
//! under `--parallel 2`, so two uploads are on their way.

use crate::support as cli_support;
use partlens_testkit::service as service_support;
use partlens_testkit::sync as sync_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cli_support::{Cli, path_arg, runtime_with_service};
use partlens_tasks::ServiceChoice;
use partlens_tasks::sync::absolute_folder;
use partlens_tasks::sync::sync_state::{SyncKey, SyncRecord, load_record, sync_dir};
use serde_json::Value;
use service_support::{Child, PASSWORD, first_stdout_line};
use sync_support::{StoredFile, samples, stored_files};

/// The prefix the tests sync to.
const PREFIX: &str = "Vault";

/// Files the service holds when the kill lands.
const STORED_AT_THE_KILL: usize = 4;

/// The longest a test waits for the service or the sync.
const DEADLINE: Duration = Duration::from_secs(120);

/// A folder of the twelve sample pictures; returns it and their names.
fn picture_folder(parent: &Path) -> (PathBuf, Vec<String>) {
    let folder = parent.join("vault");
    std::fs::create_dir_all(&folder).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(samples())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".png"))
        .collect();
    names.sort();
    for name in &names {
        std::fs::copy(samples().join(name), folder.join(name)).unwrap();
    }
    assert_eq!(names.len(), 12, "{names:?}");
    (folder, names)
}

/// `partlens-cli sync FOLDER --to Vault EXTRA…` as admin against `base`, its data folder in
/// `data_dir`.
fn sync_cli(base: &str, data_dir: &Path, folder: &Path, extra: &[&str]) -> Cli {
    Cli::logged_in(base, "admin", PASSWORD, 50)
        .env("PARTLENS_DATA_DIR", &path_arg(data_dir))
        .never_prints(PASSWORD)
        .args(["sync", &path_arg(folder), "--to", PREFIX])
        .args(extra)
}

/// Waits until the service whose data folder is `service_dir` holds `count` files of the vault.
fn wait_for_stored(service_dir: &Path, count: usize) {
    let started = Instant::now();
    while stored_files(service_dir, PREFIX).len() < count {
        assert!(
            started.elapsed() < DEADLINE,
            "the sync never stored {count} files"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The sync record of `folder` synced to `base`, as the next run reads it.
fn record(data_dir: &Path, base: &str, folder: &Path) -> SyncRecord {
    let key = SyncKey::new(
        &ServiceChoice::remote(base, "").key(),
        &absolute_folder(folder).unwrap(),
        PREFIX,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime
        .block_on(load_record(&sync_dir(data_dir), &key))
        .unwrap()
        .expect("the killed run left its record")
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|item| item.as_str().unwrap().to_owned())
        .collect()
}

/// The checks after the second run (see the module doc): `done` is what the killed run had
/// recorded as up, `before` the service's files right after the kill.
fn assert_carried_on(
    second: &Value,
    names: &[String],
    done: &[String],
    before: &[StoredFile],
    after: &[StoredFile],
) {
    let uploaded = strings(&second["uploaded"]);
    let confirmed = strings(&second["confirmed"]);
    let unchanged = second["unchanged"].as_u64().unwrap() as usize;
    assert_eq!(
        uploaded.len() + confirmed.len() + unchanged,
        names.len(),
        "{second}"
    );
    assert_eq!(
        unchanged,
        done.len(),
        "every file done before counts unchanged: {second}"
    );
    for name in done {
        assert!(
            !uploaded.contains(name) && !confirmed.contains(name),
            "{name} was done before the kill and went up again: {second}"
        );
    }
    let stored: Vec<&str> = after.iter().map(|file| file.path.as_str()).collect();
    let wanted: Vec<String> = names
        .iter()
        .map(|name| format!("{PREFIX}/{name}"))
        .collect();
    assert_eq!(stored, wanted, "every file stored once at its path");
    assert!(
        after.iter().all(|file| file.revision == 1),
        "none went up twice: {after:?}"
    );
    let before: BTreeMap<&str, &StoredFile> = before
        .iter()
        .map(|file| (file.path.as_str(), file))
        .collect();
    for name in done {
        let path = format!("{PREFIX}/{name}");
        let now = after.iter().find(|file| file.path == path).unwrap();
        let then = before[path.as_str()];
        assert_eq!(now.uid, then.uid, "{path} keeps its UID");
        assert_eq!(
            now.indexed_at, then.indexed_at,
            "{path} was not indexed again"
        );
    }
}

#[test]
fn a_sync_killed_mid_run_carries_on_without_sending_a_file_twice() {
    let (_runtime, service) = runtime_with_service();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let (folder, names) = picture_folder(dir.path());

    let mut killed = sync_cli(&service.base, &data_dir, &folder, &[]).spawn();
    wait_for_stored(service.dir.path(), STORED_AT_THE_KILL);
    killed.kill().unwrap();
    killed.wait().unwrap();
    let record = record(&data_dir, &service.base, &folder);
    let done: Vec<String> = record.files.keys().cloned().collect();
    assert!(
        done.len() >= STORED_AT_THE_KILL - 1 && done.len() < names.len(),
        "the kill landed mid-run: {done:?}"
    );
    let before = stored_files(service.dir.path(), PREFIX);

    let second = sync_cli(&service.base, &data_dir, &folder, &[])
        .run()
        .ok_json();
    assert_eq!(second["interrupted"], Value::Null, "{second}");
    let after = stored_files(service.dir.path(), PREFIX);
    assert_carried_on(&second, &names, &done, &before, &after);
}

/// `partlens-service` over `data` on `addr`, and its base URL; a just-killed predecessor's port
/// may take a moment to be free.
fn start_service(data: &Path, addr: &str) -> (Child, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    loop {
        let mut child = Child(
            Command::new(partlens_testkit::program("partlens-service"))
                .arg("--data")
                .arg(data)
                .args(["serve", "--addr", addr])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        let line = runtime.block_on(first_stdout_line(&mut child));
        if let Some(base) = line.trim_end().strip_prefix("listening on ") {
            return (child, base.to_owned());
        }
        assert!(
            started.elapsed() < DEADLINE,
            "the service did not start on {addr}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_service_killed_under_a_sync_carries_on_after_its_restart_without_a_file_twice() {
    let dir = tempfile::tempdir().unwrap();
    let service_dir = dir.path().join("service");
    partlens_service::admin::add_user(&service_dir, "Acme", "admin", PASSWORD, true).unwrap();
    let data_dir = dir.path().join("data");
    let (folder, names) = picture_folder(dir.path());
    let (mut server, base) = start_service(&service_dir, "127.0.0.1:0");

    // Two uploads on their way when the service dies: both are settled by the next run.
    let sync = sync_cli(&base, &data_dir, &folder, &["--parallel", "2"]).spawn();
    wait_for_stored(&service_dir, STORED_AT_THE_KILL);
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    drop(server);
    let output = sync.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let first: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        first["interrupted"]
            .as_str()
            .unwrap()
            .contains("carries on"),
        "{first}"
    );
    let record = record(&data_dir, &base, &folder);
    let done: Vec<String> = record.files.keys().cloned().collect();
    let mut said = strings(&first["uploaded"]);
    said.sort();
    assert_eq!(said, done, "the record holds what the run said");
    assert!(
        done.len() < names.len(),
        "the kill landed mid-run: {done:?}"
    );
    let before = stored_files(&service_dir, PREFIX);

    // The same address, so the sync knows it for the same service.
    let addr = base.trim_start_matches("http://").to_owned();
    let (_server, base_again) = start_service(&service_dir, &addr);
    assert_eq!(base_again, base);
    let second = sync_cli(&base, &data_dir, &folder, &["--parallel", "2"])
        .run()
        .ok_json();
    assert_eq!(second["interrupted"], Value::Null, "{second}");
    let after = stored_files(&service_dir, PREFIX);
    assert_carried_on(&second, &names, &done, &before, &after);
}
