//! Library sync against the real service started in-process on 127.0.0.1:0: the engine a run at a
//! time (a dropped connection before and after the service got an upload, a pause, changed
//! attributes, a file the service refuses), the app's backend carrying on a run after a restart,
//! and `partlens-cli sync` as a script runs it (exactly the changed file goes up again; a removed
//! file is reported, and deleted only with --delete by an admin; CSV attributes arrive with their
//! units and several values; what cannot be used is refused before anything is sent).
//!
//! "Uploaded once" is checked through the service: its FileStatus timestamp and UID, and the
//! revision its database keeps for every upload over a file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as cli_support;
use partlens_testkit::service as service_support;
use partlens_testkit::sync as sync_support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use cli_support::{Cli, Run, path_arg, runtime_with_service};
use partlens_tasks::sync::sync_state::{RunStatus, SyncKey, load_record, sync_dir};
use partlens_tasks::sync::{
    CsvMapping, SyncContext, SyncControl, SyncLimits, SyncOrigin, SyncPhase, SyncProgress,
    SyncSetup, SyncStop, SyncSummary, absolute_folder, run_sync,
};
use partlens_tasks::{
    Backend, BackendParts, Command, Event, MemoryStore, NoLocalWorkspace, PreparedFilePicker,
    ServiceChoice,
};
use serde_json::Value;
use service_support::{PASSWORD, TestService};
use sync_support::{
    DroppingProxy, FOLDER_FILES, Loss, StoredFile, change_file, client, sample_folder, stored_files,
};

/// The prefix every test syncs to.
const PREFIX: &str = "Library";

fn setup(folder: &Path) -> SyncSetup {
    SyncSetup {
        folder: folder.to_path_buf(),
        prefix: PREFIX.into(),
        attributes: Some(CsvMapping {
            csv: folder.join("attributes.csv"),
            ..CsvMapping::default()
        }),
        delete_removed: false,
    }
}

fn context(data_dir: &Path, service_base: &str, origin: SyncOrigin) -> SyncContext {
    SyncContext {
        sync_dir: sync_dir(data_dir),
        service_key: ServiceChoice::remote(service_base, "partlens").key(),
        limits: SyncLimits::default(),
        origin,
        uploads_at_once: 1,
    }
}

fn paths(files: &[StoredFile]) -> Vec<&str> {
    files.iter().map(|file| file.path.as_str()).collect()
}

fn stored_path(relative: &str) -> String {
    format!("{PREFIX}/{relative}")
}

/// Syncs with nothing listening to the progress.
async fn sync(
    client: &partlens_api::ApiClient,
    setup: &SyncSetup,
    context: &SyncContext,
) -> SyncSummary {
    run_sync(client, setup, context, &SyncControl::default(), &|_| {})
        .await
        .unwrap()
}

// ---- the engine, one run at a time ---------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_whose_answer_was_lost_is_found_on_the_service_and_not_sent_again() {
    let service = TestService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let folder = sample_folder(dir.path());
    let proxy = DroppingProxy::start(&service.base).await;
    let client = client(&proxy.base, "admin", PASSWORD).await;
    let context = context(dir.path(), &proxy.base, SyncOrigin::Cli);
    let setup = setup(&folder);

    // The third upload reaches the service, which stores it; its answer never comes back.
    proxy.cut_upload(3, Loss::Answer);
    let first = sync(&client, &setup, &context).await;
    assert!(
        matches!(first.stop, Some(SyncStop::ConnectionLost(_))),
        "{first:?}"
    );
    assert!(first.interrupted.as_deref().unwrap().contains("carries on"));
    assert_eq!(first.uploaded, ["bolt.png", "flange.png"]);
    assert_eq!(proxy.uploads_seen(), 3);
    let after_first = stored_files(service.dir.path(), PREFIX);
    assert_eq!(
        paths(&after_first),
        ["Library/bolt.png", "Library/flange.png", "Library/gear.png"],
        "the service has the file whose answer was lost"
    );

    proxy.restore();
    let second = sync(&client, &setup, &context).await;
    assert_eq!(second.stop, None, "{second:?}");
    assert_eq!(second.confirmed, ["gear.png"], "found, not sent again");
    assert_eq!(
        second.uploaded,
        ["hinge.png", "models/washer.stl", "washer.png"]
    );
    assert_eq!(second.unchanged, 2);
    assert!(second.failed.is_empty(), "{:?}", second.failed);
    assert_eq!(proxy.uploads_seen(), 6, "one upload a file in all");
    let after_second = stored_files(service.dir.path(), PREFIX);
    assert_eq!(after_second.len(), FOLDER_FILES.len());
    assert!(
        after_second.iter().all(|file| file.revision == 1),
        "every file went up once: {after_second:?}"
    );
    assert_eq!(
        after_second[2], after_first[2],
        "gear.png kept its UID and index time"
    );

    // The record says what went up; a third run sends nothing.
    let third = sync(&client, &setup, &context).await;
    assert!(third.uploaded.is_empty() && third.confirmed.is_empty());
    assert_eq!(third.unchanged, FOLDER_FILES.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_lost_on_its_way_goes_up_when_the_connection_is_back() {
    let service = TestService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let folder = sample_folder(dir.path());
    let proxy = DroppingProxy::start(&service.base).await;
    let client = client(&proxy.base, "admin", PASSWORD).await;
    let context = context(dir.path(), &proxy.base, SyncOrigin::Cli);
    let setup = setup(&folder);

    proxy.cut_upload(3, Loss::Request);
    let first = sync(&client, &setup, &context).await;
    assert!(
        matches!(first.stop, Some(SyncStop::ConnectionLost(_))),
        "{first:?}"
    );
    assert_eq!(first.uploaded, ["bolt.png", "flange.png"]);
    assert_eq!(
        stored_files(service.dir.path(), PREFIX).len(),
        2,
        "the service never saw the third"
    );
    let key = SyncKey::new(
        &context.service_key,
        &absolute_folder(&folder).unwrap(),
        PREFIX,
    );
    let record = load_record(&context.sync_dir, &key).await.unwrap().unwrap();
    assert_eq!(record.status, RunStatus::Interrupted);
    assert_eq!(record.files.len(), 2);

    proxy.restore();
    let second = sync(&client, &setup, &context).await;
    assert_eq!(second.stop, None, "{second:?}");
    assert!(second.confirmed.is_empty());
    assert_eq!(
        second.uploaded,
        ["gear.png", "hinge.png", "models/washer.stl", "washer.png"]
    );
    assert_eq!(second.unchanged, 2);
    let stored = stored_files(service.dir.path(), PREFIX);
    assert_eq!(stored.len(), FOLDER_FILES.len());
    assert!(stored.iter().all(|file| file.revision == 1), "{stored:?}");
    let record = load_record(&context.sync_dir, &key).await.unwrap().unwrap();
    assert_eq!(record.status, RunStatus::Finished);
    assert!(record.pending.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_run_carries_on_and_changed_attributes_are_set_without_an_upload() {
    let service = TestService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let folder = sample_folder(dir.path());
    // Too small to upload (the interface's minimum is 1024 bytes): reported, the rest goes on.
    std::fs::write(folder.join("tiny.png"), [0u8; 100]).unwrap();
    let client = client(&service.base, "admin", PASSWORD).await;
    let context = context(dir.path(), &service.base, SyncOrigin::Cli);
    let setup = setup(&folder);

    // Paused by the user after two files (from the progress callback, so exactly there).
    let control = SyncControl::default();
    let pause = control.pause.clone();
    let pause_after_two = move |progress: &SyncProgress| {
        if progress.checked == 2 {
            pause.cancel();
        }
    };
    let paused = run_sync(&client, &setup, &context, &control, &pause_after_two)
        .await
        .unwrap();
    assert_eq!(paused.stop, Some(SyncStop::Paused));
    assert_eq!(paused.uploaded, ["bolt.png", "flange.png"]);

    let resumed = sync(&client, &setup, &context).await;
    assert_eq!(
        resumed.uploaded,
        ["gear.png", "hinge.png", "models/washer.stl", "washer.png"]
    );
    assert_eq!(resumed.unchanged, 2);
    assert_eq!(resumed.failed.len(), 1);
    assert_eq!(resumed.failed[0].path, "tiny.png");
    assert!(
        resumed.failed[0].reason.contains("too small"),
        "{}",
        resumed.failed[0].reason
    );
    assert!(
        resumed
            .warnings
            .iter()
            .any(|warning| warning.contains("missing.png")),
        "{:?}",
        resumed.warnings
    );

    // A new weight for the flange: only its attributes change on the service.
    let csv = folder.join("attributes.csv");
    let text = std::fs::read_to_string(&csv).unwrap().replace(
        "flange.png,steel|stainless steel,1.2",
        "flange.png,steel|stainless steel,1.3",
    );
    std::fs::write(&csv, text).unwrap();
    let before = stored_files(service.dir.path(), PREFIX);
    let updated = sync(&client, &setup, &context).await;
    assert_eq!(updated.attributes_updated, ["flange.png"]);
    assert!(updated.uploaded.is_empty(), "{:?}", updated.uploaded);
    assert_eq!(
        stored_files(service.dir.path(), PREFIX),
        before,
        "no upload"
    );
    let record = client
        .get_file(&partlens_api::GetFileRequest::new(
            partlens_api::FileRef::Name(stored_path("flange.png")),
        ))
        .await
        .unwrap();
    assert!(
        record.attributes.contains(&"weight(kg)=1.3".to_owned()),
        "{:?}",
        record.attributes
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_at_once_go_on_past_an_upload_that_hangs() {
    // The held upload's connection reaches the service with no request on it: the service would
    // close it after its header timeout (15 s), which a loaded machine could reach.
    let service = TestService::start_with(|config| {
        config.limits.connections.header_read_timeout = Duration::from_secs(120);
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let folder = sample_folder(dir.path());
    let proxy = DroppingProxy::start(&service.base).await;
    let client = client(&proxy.base, "admin", PASSWORD).await;
    let mut context = context(dir.path(), &proxy.base, SyncOrigin::Cli);
    context.uploads_at_once = 3;
    let setup = setup(&folder);

    // The first upload (bolt.png) never reaches the service; with three on their way the other
    // five go up beside it, and the run is paused once they are up. One at a time, none would go
    // up: the run would wait on bolt.png until the pause a minute later.
    proxy.cut_upload(1, Loss::Hold);
    let control = SyncControl::default();
    let pause = control.pause.clone();
    let pause_when_five_are_up = move |progress: &SyncProgress| {
        if progress.uploaded == FOLDER_FILES.len() - 1 {
            pause.cancel();
        }
    };
    let late_pause = control.pause.clone();
    let fallback = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        late_pause.cancel();
    });
    let paused = run_sync(&client, &setup, &context, &control, &pause_when_five_are_up)
        .await
        .unwrap();
    fallback.abort();
    assert_eq!(paused.stop, Some(SyncStop::Paused), "{paused:?}");
    let mut uploaded = paused.uploaded.clone();
    uploaded.sort();
    assert_eq!(
        uploaded,
        FOLDER_FILES[1..],
        "all but the held one: {paused:?}"
    );

    // The held upload was abandoned with its intent recorded: the next run sends it, once.
    proxy.restore();
    let resumed = sync(&client, &setup, &context).await;
    assert_eq!(resumed.uploaded, ["bolt.png"], "{resumed:?}");
    assert_eq!(resumed.unchanged, FOLDER_FILES.len() - 1);
    let stored = stored_files(service.dir.path(), PREFIX);
    assert_eq!(stored.len(), FOLDER_FILES.len());
    assert!(stored.iter().all(|file| file.revision == 1), "{stored:?}");
}

// ---- the app's backend: a run carries on after a restart ----------------------------------------

fn next_event(
    events: &std::sync::mpsc::Receiver<Event>,
    what: &str,
    wanted: impl Fn(&Event) -> bool,
) -> Event {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let event = events
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no {what} within the deadline"));
        if wanted(&event) {
            return event;
        }
    }
}

#[test]
fn a_sync_the_app_left_unfinished_carries_on_after_the_next_login() {
    let (runtime, service) = runtime_with_service();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let folder = sample_folder(dir.path());
    let setup = setup(&folder);

    // The app closes after two files: its run is stopped, not paused.
    runtime.block_on(async {
        let client = client(&service.base, "admin", PASSWORD).await;
        let context = context(&data_dir, &service.base, SyncOrigin::App);
        let control = SyncControl::default();
        let stop = control.stop.clone();
        let closing = move |progress: &SyncProgress| {
            if progress.checked == 2 {
                stop.cancel();
            }
        };
        let stopped = run_sync(&client, &setup, &context, &control, &closing)
            .await
            .unwrap();
        assert_eq!(stopped.stop, Some(SyncStop::Stopped));
        assert_eq!(stopped.uploaded.len(), 2);
    });

    // The app starts again: the run shows as interrupted, and carries on after the login.
    let (backend, events) = Backend::new(BackendParts {
        runtime: runtime.handle().clone(),
        data_dir: data_dir.clone(),
        secrets: Arc::new(MemoryStore::new()),
        picker: Arc::new(PreparedFilePicker::default()),
        launcher: Arc::new(NoLocalWorkspace("not in this test".into())),
        upload_slots: 2,
    });
    let Event::SyncUpdated(restored) = next_event(&events, "the restored sync", |event| {
        matches!(event, Event::SyncUpdated(_))
    }) else {
        unreachable!()
    };
    assert!(
        matches!(restored.phase, SyncPhase::Interrupted { .. }),
        "{restored:?}"
    );
    let service_choice = ServiceChoice::remote(&service.base, "partlens");
    backend.send(Command::Connect {
        service: service_choice.clone(),
        user: None,
    });
    next_event(&events, "the login form", |event| {
        matches!(event, Event::LoginRequired { .. })
    });
    backend.send(Command::LogIn {
        service: service_choice,
        user: "admin".into(),
        password: PASSWORD.into(),
        remember: false,
    });
    let Event::SyncUpdated(finished) = next_event(&events, "the finished sync", |event| {
        matches!(
            event,
            Event::SyncUpdated(run) if matches!(run.phase, SyncPhase::Finished(_) | SyncPhase::Failed(_))
        )
    }) else {
        unreachable!()
    };
    let SyncPhase::Finished(summary) = &finished.phase else {
        panic!("{finished:?}")
    };
    assert_eq!(
        summary.uploaded,
        ["gear.png", "hinge.png", "models/washer.stl", "washer.png"]
    );
    assert_eq!(summary.unchanged, 2);
    let stored = stored_files(service.dir.path(), PREFIX);
    assert_eq!(stored.len(), FOLDER_FILES.len());
    assert!(stored.iter().all(|file| file.revision == 1), "{stored:?}");
    runtime.block_on(backend.shutdown());
}

// ---- partlens-cli sync ---------------------------------------------------------------------------

/// `partlens-cli` as `user` against `service`, with its data folder in `data_dir`.
fn cli(service: &TestService, data_dir: &Path, user: &str) -> Cli {
    Cli::logged_in(&service.base, user, PASSWORD, 50)
        .env("PARTLENS_DATA_DIR", &path_arg(data_dir))
        .never_prints(PASSWORD)
}

fn sync_args(folder: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "sync".to_owned(),
        path_arg(folder),
        "--to".to_owned(),
        PREFIX.to_owned(),
        "--attributes".to_owned(),
        path_arg(&folder.join("attributes.csv")),
    ];
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|item| item.as_str().unwrap().to_owned())
        .collect()
}

/// The saved attributes of a stored file, as `file --name` prints them.
fn attributes_of(service: &TestService, data_dir: &Path, relative: &str) -> Vec<String> {
    let record = cli(service, data_dir, "admin")
        .args(["file", "--name", &stored_path(relative)])
        .run()
        .ok_json();
    strings(&record["Attributes"])
}

/// When the service last indexed a file, as `status` prints it.
fn indexed_at(service: &TestService, data_dir: &Path, uid: &str) -> String {
    let status = cli(service, data_dir, "admin")
        .args(["status", uid])
        .run()
        .ok_json();
    status["indexed_at"].as_str().unwrap().to_owned()
}

#[test]
fn the_cli_sends_again_exactly_the_changed_file_and_deletes_only_when_asked() {
    let (_runtime, service) = runtime_with_service();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let folder = sample_folder(dir.path());

    let first = cli(&service, &data_dir, "admin")
        .args(sync_args(&folder, &[]))
        .run()
        .ok_json();
    assert_eq!(strings(&first["uploaded"]), FOLDER_FILES);
    assert_eq!(first["files"], 6);
    assert_eq!(first["unchanged"], 0);
    assert_eq!(strings(&first["ignored"]), ["readme.txt"]);
    assert_eq!(first["failed"], serde_json::json!([]));
    assert_eq!(first["interrupted"], Value::Null);
    assert!(
        strings(&first["warnings"])
            .iter()
            .any(|warning| warning.contains("missing.png")),
        "{first}"
    );
    // The CSV's attributes arrived with their units and several values.
    let flange = attributes_of(&service, &data_dir, "flange.png");
    for expected in [
        "material=steel|stainless steel",
        "weight(kg)=1.2",
        "region=EU|US",
    ] {
        assert!(flange.contains(&expected.to_owned()), "{flange:?}");
    }
    let washer_model = attributes_of(&service, &data_dir, "models/washer.stl");
    assert!(
        washer_model.contains(&"region=APAC".to_owned()),
        "{washer_model:?}"
    );
    assert!(attributes_of(&service, &data_dir, "hinge.png").is_empty());
    let before = stored_files(service.dir.path(), PREFIX);
    assert_eq!(before.len(), 6);
    let indexed_before: Vec<String> = before
        .iter()
        .map(|file| indexed_at(&service, &data_dir, &file.uid))
        .collect();
    assert!(
        std::fs::read_dir(data_dir.join("sync")).unwrap().count() > 0,
        "the record is in the data folder"
    );

    // One file changed, one removed: exactly the changed one goes up again.
    change_file(&folder, "flange.png");
    std::fs::remove_file(folder.join("washer.png")).unwrap();
    let second = cli(&service, &data_dir, "admin")
        .args(sync_args(&folder, &[]))
        .run()
        .ok_json();
    assert_eq!(strings(&second["uploaded"]), ["flange.png"]);
    assert_eq!(second["unchanged"], 4);
    assert_eq!(strings(&second["removed"]), ["washer.png"]);
    assert_eq!(strings(&second["deleted"]), Vec::<String>::new());
    let after = stored_files(service.dir.path(), PREFIX);
    assert_eq!(after.len(), 6, "the removed file stays on the service");
    for (index, (old, new)) in before.iter().zip(&after).enumerate() {
        assert_eq!(old.uid, new.uid, "{} keeps its UID", new.path);
        let now = indexed_at(&service, &data_dir, &new.uid);
        if new.path == "Library/flange.png" {
            assert_eq!(new.revision, 2);
            assert_ne!(
                now, indexed_before[index],
                "the changed file was indexed again"
            );
        } else {
            assert_eq!(new.revision, 1, "{}", new.path);
            assert_eq!(
                now, indexed_before[index],
                "{} was not sent again",
                new.path
            );
        }
    }

    // Deleting company files needs an admin: a user's --delete is refused and reported.
    let refused = cli(&service, &data_dir, "ann")
        .args(sync_args(&folder, &["--delete"]))
        .run();
    assert!(
        refused.error().contains("could not be synced"),
        "{refused:?}"
    );
    let refused_json = refused.json();
    assert_eq!(refused_json["failed"][0]["path"], "washer.png");
    assert!(
        refused_json["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("Only an admin"),
        "{refused_json}"
    );
    assert_eq!(stored_files(service.dir.path(), PREFIX).len(), 6);

    let deleted = cli(&service, &data_dir, "admin")
        .args(sync_args(&folder, &["--delete"]))
        .run()
        .ok_json();
    assert_eq!(strings(&deleted["deleted"]), ["washer.png"]);
    assert_eq!(strings(&deleted["uploaded"]), Vec::<String>::new());
    assert_eq!(deleted["unchanged"], 5);
    let gone = cli(&service, &data_dir, "admin")
        .args(["file", "--name", &stored_path("washer.png")])
        .run();
    gone.refused(404);
    assert_eq!(stored_files(service.dir.path(), PREFIX).len(), 5);
}

/// A run that was refused before anything was sent.
fn refused_before_sending(run: &Run, service: &TestService, wanted: &str) {
    let line = run.refused_locally();
    assert!(line.contains(wanted), "{line}");
    assert!(stored_files(service.dir.path(), PREFIX).is_empty());
}

#[test]
fn the_cli_refuses_a_folder_or_csv_it_cannot_use_before_sending_anything() {
    let (_runtime, service) = runtime_with_service();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let folder = sample_folder(dir.path());
    let run = |args: Vec<String>| cli(&service, &data_dir, "admin").args(args).run();

    let missing_folder = run(vec![
        "sync".into(),
        path_arg(&dir.path().join("nowhere")),
        "--to".into(),
        PREFIX.into(),
    ]);
    refused_before_sending(&missing_folder, &service, "nowhere");
    let bad_prefix = run(vec![
        "sync".into(),
        path_arg(&folder),
        "--to".into(),
        "../up".into(),
    ]);
    refused_before_sending(&bad_prefix, &service, "'..'");
    let unknown_column = run(sync_args(&folder, &["--file-column", "part"]));
    refused_before_sending(&unknown_column, &service, "no column \"part\"");

    // The CSV limits of the module doc, as written there.
    let csv = folder.join("attributes.csv");
    let header: Vec<String> = std::iter::once("file".to_owned())
        .chain((1..=64).map(|i| format!("a{i}")))
        .collect();
    std::fs::write(&csv, format!("{}\nbolt.png\n", header.join(","))).unwrap();
    let columns = run(sync_args(&folder, &[]));
    refused_before_sending(&columns, &service, "65 columns, more than 64");
    let mut rows = String::from("file,material\n");
    for i in 0..=100_000 {
        rows.push_str(&format!("part-{i}.png,steel\n"));
    }
    std::fs::write(&csv, rows).unwrap();
    let many_rows = run(sync_args(&folder, &[]));
    refused_before_sending(&many_rows, &service, "more than 100000 rows");
    let big = vec![b'x'; 16 * 1024 * 1024 + 1];
    std::fs::write(&csv, big).unwrap();
    let too_big = run(sync_args(&folder, &[]));
    refused_before_sending(&too_big, &service, "larger than 16777216 bytes");
    let long_cell = format!("file,material\nbolt.png,{}\n", "x".repeat(1_025));
    std::fs::write(&csv, long_cell).unwrap();
    let cell = run(sync_args(&folder, &[]));
    refused_before_sending(&cell, &service, "more than 1024 characters");
}
