//! The fault matrix of the local service (docs/OPERATIONS.md, "Fault matrix"): what it does when it is
//! killed while indexing asynchronously, during a synchronous upload and during an attribute write,
//! when its disk is full, and when a stored file is deleted or damaged. Kills and the full disk use
//! the `partlens-service` binary as a child process; the disk is made "full" by `RLIMIT_FSIZE`
//! (`ulimit -f` in bash, with SIGXFSZ ignored), so every write past the size fails with `EFBIG`
//! as it would with `ENOSPC`. Loopback only.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::service as service_support;

use std::path::Path;
use std::time::Duration;

use image::{ImageFormat, RgbImage};
use partlens_api::encoding::{QueryString, double_encoded_strings};
use partlens_store::DATABASE_FILE;
use service_support::{
    PASSWORD, Session, Shape, TestService, encode, png, serve_binary, serve_child, serve_command,
    wait_until,
};
use tokio::io::AsyncWriteExt as _;

/// The longest a test waits for something the service should do soon.
const DEADLINE: Duration = Duration::from_secs(120);

/// A noisy picture that takes the engine a while to describe (so a kill can land during it).
fn slow_picture(seed: u32) -> Vec<u8> {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    encode(
        &RgbImage::from_fn(768, 768, |x, y| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let shade = if (x / 64 + y / 64) % 2 == 0 { 40 } else { 200 };
            let noise = (state >> 16) as u8 % 32;
            image::Rgb([shade + noise, shade, shade + noise / 2])
        }),
        ImageFormat::Png,
    )
}

/// The UIDs of the files in `state`, read from the database beside the running service.
fn files_in_state(data: &Path, state: &str) -> Vec<String> {
    let database = rusqlite::Connection::open_with_flags(
        data.join(DATABASE_FILE),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    database.busy_timeout(Duration::from_secs(10)).unwrap();
    let mut statement = database
        .prepare("SELECT uid FROM files WHERE state = ?1")
        .unwrap();
    statement
        .query_map([state], |row| row.get(0))
        .unwrap()
        .collect::<rusqlite::Result<Vec<String>>>()
        .unwrap()
}

/// A data directory with user `ann` of company Acme.
fn data_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    partlens_service::admin::add_user(&data, "Acme", "ann", PASSWORD, false).unwrap();
    (dir, data)
}

/// Waits until the file's status is `status`.
async fn wait_for_status(session: &Session, uid: &str, status: u16) {
    wait_until(DEADLINE, &format!("{uid} to reach status {status}"), || {
        let session = session.clone();
        let path = format!("/api/FileStatus?fileUID={uid}");
        async move { (session.get(&path).await.status.as_u16() == status).then_some(()) }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_async_indexing_resumes_the_jobs_at_the_next_start() {
    let (_dir, data) = data_dir();
    let (mut server, base) = serve_binary(&data, &["--index-workers", "1"]).await;
    let ann = Session::login(&base, "ann").await;
    let mut inputs = Vec::new();
    for seed in 0..3 {
        inputs.push(
            ann.upload_search_input(".png", &slow_picture(seed), true)
                .await,
        );
    }
    wait_until(DEADLINE, "a worker to be indexing", || {
        let data = data.clone();
        async move { (!files_in_state(&data, "in_progress").is_empty()).then_some(()) }
    })
    .await;
    // SIGKILL while a worker is indexing.
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    drop(server);
    assert!(
        !files_in_state(&data, "in_progress").is_empty()
            || !files_in_state(&data, "queued").is_empty()
    );
    let (_server, base) = serve_binary(&data, &[]).await;
    let ann = Session { base, ..ann };
    for uid in &inputs {
        wait_for_status(&ann, uid, 200).await;
    }
    assert_eq!(std::fs::read_dir(data.join("tmp")).unwrap().count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_a_synchronous_upload_leaves_a_file_that_is_indexed_at_the_next_start() {
    let (_dir, data) = data_dir();
    let (mut server, base) = serve_binary(&data, &[]).await;
    let ann = Session::login(&base, "ann").await;
    let upload = {
        let ann = ann.clone();
        tokio::spawn(async move {
            ann.http
                .put(format!(
                    "{}/api/FileBinary?file=Sync%2Fslow.png&isSearchInput=false",
                    ann.base
                ))
                .bearer_auth(ann.token.as_deref().unwrap())
                .header("Content-Type", "application/octet-stream")
                .body(slow_picture(7))
                .send()
                .await
        })
    };
    let uid = wait_until(DEADLINE, "the upload to be indexing", || {
        let data = data.clone();
        async move { files_in_state(&data, "in_progress").into_iter().next() }
    })
    .await;
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    drop(server);
    assert!(
        upload.await.unwrap().is_err(),
        "the killed upload cannot answer"
    );
    let (_server, base) = serve_binary(&data, &[]).await;
    let ann = Session { base, ..ann };
    wait_for_status(&ann, &uid, 200).await;
    let record = ann.get("/api/File?fileName=Sync%2Fslow.png").await.json();
    assert_eq!(record["UID"], uid.as_str());
    assert_eq!(record["IndexingFinished"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_an_attribute_write_leaves_the_old_list_or_the_new_one_whole() {
    let (_dir, data) = data_dir();
    let (mut server, base) = serve_binary(&data, &[]).await;
    let ann = Session::login(&base, "ann").await;
    let uid = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[("round", "start")])
        .await;
    let mut before = vec!["round=start".to_owned()];
    let mut ann = ann;
    for round in 0..3 {
        let after: Vec<String> = (0..800).map(|i| format!("r{round}_{i}=v{i}")).collect();
        let body = double_encoded_strings(&after);
        let request = format!(
            "PUT /api/FileAttributes?fileUID={uid} HTTP/1.1\r\nHost: 127.0.0.1\r\n\
             Authorization: Bearer {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            ann.token.as_deref().unwrap(),
            body.len()
        );
        let address = ann.base.strip_prefix("http://").unwrap().to_owned();
        let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        // SIGKILL as soon as the whole request is on its way: before, during or after the write.
        server.0.kill().unwrap();
        server.0.wait().unwrap();
        drop(server);
        let (restarted, base) = serve_binary(&data, &[]).await;
        server = restarted;
        ann = Session { base, ..ann };
        let found = ann.attributes_of(&uid).await;
        assert!(
            found == before || found == after,
            "round {round}: {} attributes, neither the old {} nor the new {}",
            found.len(),
            before.len(),
            after.len()
        );
        before = found;
    }
}

/// `partlens-service serve` over `data` whose every file may grow to `kib` KiB, no further: writes
/// past it fail with `EFBIG` (SIGXFSZ is ignored), as they would on a full disk.
fn serve_with_file_size_limit(data: &Path, kib: u32) -> std::process::Command {
    let serve = serve_command(data, &[]);
    let mut command = std::process::Command::new("bash");
    command
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {kib}; exec \"$0\" \"$@\""))
        .arg(serve.get_program())
        .args(serve.get_args());
    command
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_the_write_keeps_nothing_half_done_and_serves_on() {
    let (_dir, data) = data_dir();
    let (server, base) = serve_child(serve_with_file_size_limit(&data, 1024)).await;
    let ann = Session::login(&base, "ann").await;
    let small = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    // Two MiB do not fit: 507, no record, nothing left in tmp/ or files/.
    let big: Vec<u8> = (0..2 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut query = QueryString::new();
    query
        .push("file", "Parts/big.bin")
        .push("isSearchInput", "false");
    let refused = ann
        .put_binary(&format!("/api/FileBinary?{query}"), big)
        .await;
    refused.expect(507);
    assert!(
        refused.text().contains("disk is full"),
        "{}",
        refused.text()
    );
    ann.get("/api/File?fileName=Parts%2Fbig.bin")
        .await
        .expect(404);
    assert_eq!(std::fs::read_dir(data.join("tmp")).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(data.join("files")).unwrap().count(), 1);
    // The database fills up too: attribute writes go on until one cannot be written; it is refused
    // whole (SQLite reports an I/O error under a file-size limit, 500; on a full disk it reports the
    // disk full, 507) and the list before it stays.
    let mut saved = ann.attributes_of(&small).await;
    let mut refused_write = None;
    for round in 0..400 {
        let list: Vec<String> = (0..300)
            .map(|i| format!("round_{round}_{i}={}", "v".repeat(40)))
            .collect();
        let reply = ann
            .put_json(
                &format!("/api/FileAttributes?fileUID={small}"),
                double_encoded_strings(&list),
            )
            .await;
        match reply.status.as_u16() {
            200 => saved = list,
            500 | 507 => {
                refused_write = Some(list);
                break;
            }
            other => panic!("{other}: {}", reply.text()),
        }
    }
    let refused_write = refused_write.expect("the database never filled up");
    assert_eq!(ann.attributes_of(&small).await, saved);
    // Reads go on.
    ann.get(&format!("/api/FileStatus?fileUID={small}"))
        .await
        .expect(200);
    assert_eq!(ann.search_uids("").await, vec![small.clone()]);
    // With room again (no limit), the same write succeeds.
    drop(server);
    let (_server, base) = serve_binary(&data, &[]).await;
    let ann = Session { base, ..ann };
    ann.put_json(
        &format!("/api/FileAttributes?fileUID={small}"),
        double_encoded_strings(&refused_write),
    )
    .await
    .expect(200);
    assert_eq!(ann.attributes_of(&small).await, refused_write);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_file_deleted_or_damaged_keeps_its_record_and_fails_only_when_read_again() {
    let mut service = TestService::start().await;
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    let bar = ann
        .upload_database_file("Parts/bar.png", png(Shape::VerticalBar, 2), &[])
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 3), false)
        .await;
    let files = service.dir.path().join("files");
    let images = service.dir.path().join("images");
    // The disc's bytes are deleted, the bar's damaged: records and search go on from the database.
    std::fs::remove_file(files.join(&disc)).unwrap();
    std::fs::write(files.join(&bar), b"not a picture any more").unwrap();
    assert_eq!(ann.search_uids(&format!("fileUID={input}")).await[0], disc);
    ann.get(&format!("/api/File?fileUID={disc}"))
        .await
        .expect(200);
    // A rendered image that is gone answers 404 (the record still offers its link).
    std::fs::remove_file(images.join(format!("{disc}.sm.jpg"))).unwrap();
    let record = ann.get(&format!("/api/File?fileUID={disc}")).await.json();
    let link = record["ThumbNailURLFromID"].as_str().unwrap();
    assert_eq!(reqwest::get(link).await.unwrap().status(), 404);
    // When they must be read again (their descriptors damaged, found at the next start), they
    // fail: 422, out of visual search, still listed and deletable.
    service.damage_descriptors(&disc);
    service.damage_descriptors(&bar);
    service.restart_with(|_| {}).await;
    let ann = Session {
        base: service.base.clone(),
        ..ann
    };
    for uid in [&disc, &bar] {
        wait_for_status(&ann, uid, 422).await;
    }
    assert!(
        ann.search_uids(&format!("fileUID={input}"))
            .await
            .is_empty()
    );
    // Uploading the file again repairs it.
    let reply = ann
        .put_binary(
            &format!("/api/FileBinary?file=Parts%2Fdisc.png&isSearchInput=false&uid={disc}"),
            png(Shape::Disc, 1),
        )
        .await;
    reply.expect(200);
    wait_for_status(&ann, &disc, 200).await;
    assert_eq!(
        ann.search_uids(&format!("fileUID={input}")).await,
        vec![disc]
    );
}
