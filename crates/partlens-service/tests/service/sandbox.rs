//! Models and drawings read in worker processes: a read that hangs is killed at the time limit, one
//! past the memory limit and a worker that crashes fail only their file, reads are shared fairly
//! between companies, SIGTERM ends the service at once with its jobs kept, and `GET /metrics` counts
//! the workers killed by each limit.
//!
//! A hanging or crashing reader is played by a small shell script in place of the reader program:
//! for a file whose bytes hold a marker it greets as a worker and then sleeps (or kills itself with
//! SIGSEGV); any other file it hands to the real worker (`partlens-service read-worker`), so that
//! the service's path (spawn, limits, kill, reasons) is the real one.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use partlens_testkit::service::{self as service_support, Shape, TestService, png, wait_until};

use crate::metrics::readers_killed_at;

/// Bytes that make the stand-in reader hang.
const HANG: &str = "HANG-FOREVER";
/// Bytes that make the stand-in reader crash.
const CRASH: &str = "CRASH-NOW";

/// Writes the stand-in reader program into `dir`; a hanging read sleeps `sleep_seconds` (a number
/// of the test's own, so that [`hanging_reads`] counts only its reads).
fn stand_in_reader(dir: &Path, sleep_seconds: u32) -> PathBuf {
    let real = env!("CARGO_BIN_EXE_partlens-service");
    let script = format!(
        "#!/bin/sh\n\
         request=$(mktemp)\n\
         cat > \"$request\"\n\
         if grep -q {HANG} \"$request\"; then rm -f \"$request\"; printf 'partlens-reader-worker 1\\n'; exec sleep {sleep_seconds}; fi\n\
         if grep -q {CRASH} \"$request\"; then rm -f \"$request\"; printf 'partlens-reader-worker 1\\n'; kill -SEGV $$; fi\n\
         exec 3< \"$request\"\n\
         rm -f \"$request\"\n\
         exec '{real}' \"$@\" <&3\n"
    );
    let path = dir.join("stand-in-reader");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// How many hanging reads of `sleep_seconds` run on this machine now.
fn hanging_reads(sleep_seconds: u32) -> usize {
    let wanted = format!("sleep\0{sleep_seconds}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|cmdline| cmdline == wanted.as_bytes())
        })
        .count()
}

/// A STEP file of the sample library.
fn sample_step(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/samples/models"
        ))
        .join(format!("{name}.step")),
    )
    .unwrap()
}

/// A STEP file with a marker for the stand-in reader in a comment.
fn marked_step(marker: &str) -> Vec<u8> {
    let mut bytes = format!("/* {marker} */\n").into_bytes();
    bytes.extend(sample_step("washer"));
    bytes
}

/// Waits until the file is indexed or failed; returns the status reply.
async fn finished(session: &service_support::Session, uid: &str) -> service_support::Reply {
    let path = format!("/api/FileStatus?fileUID={uid}");
    wait_until(Duration::from_secs(120), "the file to finish", || {
        let path = path.clone();
        async move {
            let reply = session.get(&path).await;
            (reply.status != 204).then_some(reply)
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_that_hangs_is_killed_at_the_time_limit_and_only_its_file_fails() {
    // 8 s: long enough for the sound files below on a loaded 2-core machine (workers run at nice 10).
    let programs = tempfile::tempdir().unwrap();
    let reader = stand_in_reader(programs.path(), 601);
    let service = TestService::start_with(|config| {
        config.reader.program = Some(reader);
        config.reader.limits.time = Duration::from_secs(8);
    })
    .await;
    let ann = service.session("ann").await;
    let hanging = ann
        .upload_database_file("CAD/hangs.step", marked_step(HANG), &[])
        .await;
    let status = ann.get(&format!("/api/FileStatus?fileUID={hanging}")).await;
    status.expect(422);
    let reason = status.header("x-failure-reason").unwrap();
    assert!(
        reason.contains("over a limit") && reason.contains("time limit of 8 s"),
        "{reason}"
    );
    // Counted for the operator, by its limit.
    assert_eq!(readers_killed_at(&service.base, "time").await, 1.0);
    assert_eq!(readers_killed_at(&service.base, "memory").await, 0.0);
    // The service goes on: a sound model and a picture index.
    let sound = ann
        .upload_database_file("CAD/washer.step", sample_step("washer"), &[])
        .await;
    ann.get(&format!("/api/FileStatus?fileUID={sound}"))
        .await
        .expect(200);
    let picture = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 3), &[])
        .await;
    ann.get(&format!("/api/FileStatus?fileUID={picture}"))
        .await
        .expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_crashes_fails_its_file_with_the_signal_and_the_service_goes_on() {
    let programs = tempfile::tempdir().unwrap();
    let reader = stand_in_reader(programs.path(), 604);
    let service = TestService::start_with(|config| config.reader.program = Some(reader)).await;
    let ann = service.session("ann").await;
    let crashing = ann
        .upload_search_input(".step", &marked_step(CRASH), true)
        .await;
    let status = finished(&ann, &crashing).await;
    status.expect(422);
    let reason = status.header("x-failure-reason").unwrap();
    assert!(
        reason.contains("crashed") && reason.contains("signal 11"),
        "{reason}"
    );
    // A crash is no kill at a limit.
    for limit in ["time", "cpu", "memory"] {
        assert_eq!(
            readers_killed_at(&service.base, limit).await,
            0.0,
            "{limit}"
        );
    }
    let record = ann
        .get(&format!("/api/File?fileUID={crashing}"))
        .await
        .json();
    assert_eq!(record["IndexingError"], reason.as_str());
    let sound = ann
        .upload_search_input(".step", &sample_step("washer"), true)
        .await;
    finished(&ann, &sound).await.expect(200);
}

/// A binary STL of `count` small triangles on a grid (50 bytes each).
fn binary_stl(count: u32) -> Vec<u8> {
    let mut bytes = vec![0_u8; 80];
    bytes.extend(count.to_le_bytes());
    for index in 0..count {
        let (x, y) = ((index % 1000) as f32, (index / 1000) as f32);
        bytes.extend([0_u8; 12]);
        for [cx, cy] in [[x, y], [x + 1.0, y], [x, y + 1.0]] {
            for value in [cx, cy, 0.0_f32] {
                bytes.extend(value.to_le_bytes());
            }
        }
        bytes.extend([0_u8; 2]);
    }
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_past_the_memory_limit_fails_with_that_limit() {
    // A 40 MB mesh of 800,000 triangles read with 64 MiB: the worker's copy of the request and the
    // mesh built from it do not fit.
    let service = TestService::start_with(|config| {
        config.reader.program = Some(env!("CARGO_BIN_EXE_partlens-service").into());
        config.reader.limits.memory_bytes = 64 * 1024 * 1024;
    })
    .await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("CAD/plate.stl", binary_stl(800_000), &[])
        .await;
    let status = ann.get(&format!("/api/FileStatus?fileUID={uid}")).await;
    status.expect(422);
    let reason = status.header("x-failure-reason").unwrap();
    assert!(reason.contains("memory limit of 64 MiB"), "{reason}");
    assert_eq!(readers_killed_at(&service.base, "memory").await, 1.0);
    // The same service reads a model that fits.
    let flange = ann
        .upload_database_file("CAD/flange.step", sample_step("flange"), &[])
        .await;
    ann.get(&format!("/api/FileStatus?fileUID={flange}"))
        .await
        .expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_company_is_read_while_three_reads_of_one_company_hang() {
    let programs = tempfile::tempdir().unwrap();
    let reader = stand_in_reader(programs.path(), 602);
    let service = TestService::start_with(|config| {
        config.reader.program = Some(reader);
        config.reader.slots = 2;
    })
    .await;
    let ann = service.session("ann").await;
    let gus = service.session("gus").await;
    // Acme uploads three models that hang, side by side (a database upload is indexed during the
    // call, so each call waits).
    let hanging: Vec<_> = (0..3)
        .map(|number| {
            let ann = ann.clone();
            tokio::spawn(async move {
                ann.upload_database_file(
                    &format!("CAD/hangs-{number}.step"),
                    marked_step(HANG),
                    &[],
                )
                .await
            })
        })
        .collect();
    wait_until(
        Duration::from_secs(30),
        "both slots to be taken",
        || async { (hanging_reads(602) >= 2).then_some(()) },
    )
    .await;
    // Globex's model and picture are read meanwhile (Acme gives up one of its two slots).
    let model = gus
        .upload_database_file("CAD/washer.step", sample_step("washer"), &[])
        .await;
    gus.get(&format!("/api/FileStatus?fileUID={model}"))
        .await
        .expect(200);
    let picture = gus
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 5), &[])
        .await;
    gus.get(&format!("/api/FileStatus?fileUID={picture}"))
        .await
        .expect(200);
    // Acme's reads still hang (their limit is 60 s): Globex did not wait for them.
    assert!(hanging_reads(602) >= 1);
    assert!(hanging.iter().all(|upload| !upload.is_finished()));
    for upload in hanging {
        upload.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_the_service_at_once_and_keeps_the_job_being_read() {
    let programs = tempfile::tempdir().unwrap();
    let reader = stand_in_reader(programs.path(), 603);
    let data = tempfile::tempdir().unwrap();
    let config = partlens_service::ServiceConfig::new(data.path());
    service_support::add_standard_users(&config);
    let mut command = service_support::serve_command(data.path(), &["--reader-time-limit", "600"]);
    command.env(partlens_sandbox::READER_PROGRAM_VARIABLE, &reader);
    let (mut server, base) = service_support::serve_child(command).await;
    let ann = service_support::Session::login(&base, "ann").await;
    // A search input indexed in the background: a worker reads it.
    let uid = ann
        .upload_search_input(".step", &marked_step(HANG), true)
        .await;
    wait_until(Duration::from_secs(30), "the read to start", || async {
        (hanging_reads(603) >= 1).then_some(())
    })
    .await;
    let terminated = std::process::Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(terminated.success());
    // Far sooner than the read's own limit (600 s): the worker is killed, not waited for.
    let status = wait_until(Duration::from_secs(30), "the service to stop", || {
        let exited = server.0.try_wait().unwrap();
        async move { exited }
    })
    .await;
    assert!(status.success(), "{status}");
    // The job is still there: at the next start (with a reader that works) the file is indexed.
    drop(server);
    let (_server, base) = service_support::serve_binary(data.path(), &[]).await;
    let ann = service_support::Session::login(&base, "ann").await;
    let status = finished(&ann, &uid).await;
    // The real reader reads the marked washer (a comment before the header is not STEP).
    assert_ne!(status.status, 204);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_whose_program_is_replaced_on_disk_reads_with_its_own_build() {
    // The service started from its own copy of the program, as from an installed package.
    let programs = tempfile::tempdir().unwrap();
    let installed = programs.path().join("partlens-service");
    std::fs::copy(env!("CARGO_BIN_EXE_partlens-service"), &installed).unwrap();
    let data = tempfile::tempdir().unwrap();
    let config = partlens_service::ServiceConfig::new(data.path());
    service_support::add_standard_users(&config);
    let mut command = std::process::Command::new(&installed);
    command
        .arg("--data")
        .arg(data.path())
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove(partlens_sandbox::READER_PROGRAM_VARIABLE);
    let (_server, base) = service_support::serve_child(command).await;
    // An upgrade replaces the file while the service runs (here by a program that reads nothing):
    // its workers must still be the running build, not whatever the path now holds.
    let upgrade = programs.path().join("partlens-service.new");
    std::fs::write(&upgrade, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&upgrade, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(&upgrade, &installed).unwrap();
    let ann = service_support::Session::login(&base, "ann").await;
    let uid = ann
        .upload_database_file("CAD/washer.step", sample_step("washer"), &[])
        .await;
    ann.get(&format!("/api/FileStatus?fileUID={uid}"))
        .await
        .expect(200);
    // Read as a model: its extents were extracted.
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
    let extracted = record["ExtractedAttributes"].as_array().unwrap();
    assert!(
        extracted.iter().any(|attribute| attribute
            .as_str()
            .is_some_and(|text| text.starts_with("bounding_box(mm)="))),
        "{extracted:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_program_of_another_build_fails_its_file_saying_so() {
    // A reader program built before this one: it greets and answers, but with a view descriptor
    // of an earlier version (7, the 92 directions), which this build does not read.
    use partlens_sandbox::wire::{AnalysisWire, GREETING, Outcome, Reply};
    let programs = tempfile::tempdir().unwrap();
    let answer = Reply {
        outcome: Outcome::Analyzed(AnalysisWire {
            views: vec![b"PLV\x07".to_vec()],
            thumbnail_jpeg: None,
            large_png: None,
            text: String::new(),
            extracted_attributes: Vec::new(),
            pmi_json: "[]".to_owned(),
            pages: Vec::new(),
        }),
        peak_memory_bytes: 0,
    };
    let mut bytes = GREETING.to_vec();
    bytes.extend(postcard::to_stdvec(&answer).unwrap());
    let answer_file = programs.path().join("answer");
    std::fs::write(&answer_file, bytes).unwrap();
    let reader = programs.path().join("older-reader");
    std::fs::write(
        &reader,
        format!(
            "#!/bin/sh\ncat > /dev/null\ncat '{}'\n",
            answer_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&reader, std::fs::Permissions::from_mode(0o755)).unwrap();
    let service = TestService::start_with(|config| {
        config.reader.program = Some(reader.clone());
    })
    .await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("CAD/washer.step", sample_step("washer"), &[])
        .await;
    let status = ann.get(&format!("/api/FileStatus?fileUID={uid}")).await;
    status.expect(422);
    let reason = status.header("x-failure-reason").unwrap();
    // Not "the reader crashed … save it again from its CAD program": the program, not the file.
    assert!(
        reason.contains("another build")
            && reason.contains(&reader.display().to_string())
            && reason.contains("version 7")
            && reason.contains("set PARTLENS_READER_PROGRAM to this build's program")
            && !reason.contains("crashed"),
        "{reason}"
    );
    // Picture files are read in the service itself and still index.
    let picture = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 5), &[])
        .await;
    ann.get(&format!("/api/FileStatus?fileUID={picture}"))
        .await
        .expect(200);
}
