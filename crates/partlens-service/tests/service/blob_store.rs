//! Stored files and images in an S3-compatible bucket (`--blobs s3://…`): a real S3 server on
//! loopback in this process (`s3s-fs`: S3's HTTP API with signature checks, objects as files in a
//! temporary folder), on whichever store the run asks for.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use hyper_util::rt::TokioIo;
use partlens_service::ServiceConfig;
use partlens_service::blobs::{BlobLocation, S3Location};
use partlens_testkit::service::{Session, Shape, StoreKind, TestService, png};
use reqwest::Method;
use tokio_util::sync::CancellationToken;

const ACCESS_KEY: &str = "partlens-test";
const SECRET_KEY: &str = "partlens-test-secret-key";
const BUCKET: &str = "parts";
const PREFIX: &str = "team-a";

/// An S3 server on a loopback port, keeping the bucket [`BUCKET`] as a folder under `root`.
struct S3Server {
    root: tempfile::TempDir,
    addr: SocketAddr,
    stop: CancellationToken,
}

impl S3Server {
    async fn start() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(BUCKET)).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = serve_s3(root.path(), listener);
        Self { root, addr, stop }
    }

    /// Stops answering: the port refuses connections until [`S3Server::resume`].
    fn pause(&self) {
        self.stop.cancel();
    }

    /// Answers again on the same port, with the same objects.
    async fn resume(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.addr).await.unwrap();
        self.stop = serve_s3(self.root.path(), listener);
    }

    /// The service's `--blobs` with the settings an operator gives by `AWS_*` variables.
    fn location(&self) -> BlobLocation {
        BlobLocation::S3(
            S3Location::parse(&format!("s3://{BUCKET}/{PREFIX}"))
                .unwrap()
                .with_setting("aws_endpoint", &format!("http://{}", self.addr))
                .with_setting("aws_access_key_id", ACCESS_KEY)
                .with_setting("aws_secret_access_key", SECRET_KEY)
                .with_setting("aws_region", "us-east-1")
                .with_setting("aws_allow_http", "true"),
        )
    }

    /// Where the server keeps the object `key` (under the prefix).
    fn object(&self, key: &str) -> PathBuf {
        self.root.path().join(BUCKET).join(PREFIX).join(key)
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn serve_s3(root: &Path, listener: tokio::net::TcpListener) -> CancellationToken {
    let file_system = s3s_fs::FileSystem::new(root).unwrap();
    let mut builder = s3s::service::S3ServiceBuilder::new(file_system);
    builder.set_auth(s3s::auth::SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
    let service = builder.build();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    tokio::spawn(async move {
        let mut connections = tokio::task::JoinSet::new();
        loop {
            let (socket, _) = tokio::select! {
                () = stopped.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(_) => continue,
                },
            };
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(socket), service.clone());
            connections.spawn(connection);
        }
        // The listener and every open connection go: the port refuses from now on.
        drop(listener);
        connections.abort_all();
    });
    stop
}

async fn ready(service: &TestService) -> (u16, String) {
    let reply = service
        .anonymous(None)
        .send(Method::GET, "/health/ready", None, None)
        .await;
    (reply.status.as_u16(), reply.text())
}

/// Fetches the thumbnail link of `record` and checks it is the bucket's image of `uid`.
async fn assert_thumbnail_is_the_buckets(record: &serde_json::Value, s3: &S3Server, uid: &str) {
    let thumbnail_url = record["ThumbNailURLFromID"].as_str().unwrap();
    let thumbnail = reqwest::get(thumbnail_url).await.unwrap();
    assert_eq!(thumbnail.status().as_u16(), 200);
    assert_eq!(
        thumbnail.bytes().await.unwrap().as_ref(),
        std::fs::read(s3.object(&format!("images/{uid}.sm.jpg"))).unwrap()
    );
}

/// Uploads another picture of the disc through `uploading` and searches by it through
/// `searching`: the disc `uid` comes first.
async fn assert_a_disc_finds_first(uploading: &Session, searching: &Session, uid: &str) {
    let input = uploading
        .upload_search_input(".png", &png(Shape::Disc, 4), false)
        .await;
    let found = searching.search_uids(&format!("fileUID={input}")).await;
    assert_eq!(found.first().map(String::as_str), Some(uid), "{found:?}");
}

/// `partlens-service --data DIR --blobs s3://… ARGUMENTS…` run as an operator runs it, the bucket
/// reached through the `AWS_*` variables; returns its stdout and stderr, and whether it succeeded.
async fn run_program(s3: &S3Server, data: &Path, arguments: &[&str]) -> (String, bool) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_partlens-service"));
    command
        .arg("--data")
        .arg(data)
        .args(["--blobs", &format!("s3://{BUCKET}/{PREFIX}")])
        .args(arguments)
        .env("AWS_ENDPOINT_URL", format!("http://{}", s3.addr))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env("AWS_REGION", "us-east-1")
        .env_remove("PARTLENS_DATABASE_URL")
        .env_remove("PARTLENS_BLOBS");
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (said, output.status.success())
}

/// What `check` says of the bucket: (its lines, success).
async fn check(service: &TestService, s3: &S3Server) -> (String, bool) {
    run_program(s3, service.dir.path(), &["check"]).await
}

fn on_s3(server: &S3Server) -> impl FnOnce(&mut ServiceConfig) {
    let location = server.location();
    move |config| config.blobs = location
}

#[tokio::test]
async fn files_and_images_live_in_the_bucket_and_go_with_their_record() {
    let s3 = S3Server::start().await;
    let service = TestService::start_with(on_s3(&s3)).await;
    let ann = service.session("ann").await;
    let disc = png(Shape::Disc, 3);
    let uid = ann
        .upload_database_file("Parts/disc.png", disc.clone(), &[])
        .await;
    let _square = ann
        .upload_database_file("Parts/square.png", png(Shape::Bracket, 5), &[])
        .await;

    // The bytes went to the bucket, under the prefix, with the folder store's names; nothing to
    // the data directory.
    assert_eq!(
        std::fs::read(s3.object(&format!("files/{uid}"))).unwrap(),
        disc
    );
    assert!(!service.dir.path().join("files").exists());
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await;
    record.expect(200);
    let record = record.json();
    assert_eq!(record["IndexingFinished"], true, "{record}");
    assert_eq!(record["HasThumbnail"], true, "{record}");

    // The thumbnail is served from the bucket; a search by another picture of the disc reads its
    // input back from the bucket and finds the disc first.
    assert_thumbnail_is_the_buckets(&record, &s3, &uid).await;
    assert_a_disc_finds_first(&ann, &ann, &uid).await;

    let (status, body) = ready(&service).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""storage":"ok""#), "{body}");

    // Deleting the file removes its objects.
    let admin = service.session("admin").await;
    admin
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(200);
    assert!(!s3.object(&format!("files/{uid}")).exists());
    assert!(!s3.object(&format!("images/{uid}.sm.jpg")).exists());
    assert!(!s3.object(&format!("images/{uid}.lg.png")).exists());
}

/// The images of a drawing's pages after the first live in the bucket beside the file's, and go
/// with the file (the folder store's `images/pages/UID/`, removed as a prefix).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drawings_page_images_live_in_the_bucket_and_go_with_it() {
    let Some(pdf) = partlens_testkit::realworld::joined_drawings_pdf() else {
        return;
    };
    let s3 = S3Server::start().await;
    let service = TestService::start_with(on_s3(&s3)).await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Drawings/three-pages.pdf", pdf, &[])
        .await;
    let pages = s3.object(&format!("images/pages/{uid}"));
    let mut held: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    held.sort();
    assert_eq!(held, ["2.lg.png", "2.sm.jpg", "3.lg.png", "3.sm.jpg"]);
    let page_three = ann
        .get(&format!("/api/File?fileUID={uid}&lgFileNumber=3"))
        .await;
    page_three.expect(200);
    let url = page_three.json()["PNGURLFromID"]
        .as_str()
        .unwrap()
        .to_owned();
    let served = reqwest::get(&url).await.unwrap().bytes().await.unwrap();
    assert_eq!(
        served.as_ref(),
        std::fs::read(pages.join("3.lg.png")).unwrap(),
        "page 3 is served from the bucket"
    );
    service
        .session("admin")
        .await
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(200);
    let left = std::fs::read_dir(&pages).map_or(0, |entries| entries.count());
    assert_eq!(left, 0, "the page images go with the file");
    assert!(!s3.object(&format!("files/{uid}")).exists());
}

#[tokio::test]
async fn a_bucket_that_stops_answering_fails_uploads_with_a_reason_and_loses_nothing() {
    let mut s3 = S3Server::start().await;
    let service = TestService::start_with(on_s3(&s3)).await;
    let ann = service.session("ann").await;
    let kept = ann
        .upload_database_file("Parts/kept.png", png(Shape::Disc, 8), &[])
        .await;

    let (said, usable) = check(&service, &s3).await;
    assert!(usable, "{said}");
    assert!(
        said.contains("stored files and images in s3://parts/team-a: reachable, takes writes"),
        "{said}"
    );

    s3.pause();
    let (said, usable) = check(&service, &s3).await;
    assert!(!usable, "{said}");
    assert!(said.contains("the blob store cannot be used"), "{said}");
    let (status, body) = ready(&service).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains(r#""storage":"not writable""#), "{body}");
    assert!(body.contains(r#""database":"ok""#), "{body}");
    let refused = ann
        .put_binary(
            "/api/FileBinary?file=Parts%2Flost.png&isSearchInput=false",
            png(Shape::Bracket, 9),
        )
        .await;
    assert_eq!(refused.status.as_u16(), 500, "{}", refused.text());
    assert!(refused.text().contains("retry later"), "{}", refused.text());
    // The refused upload left no record, and the one before it is whole.
    let listed = ann.get("/api/File?fileName=Parts%2Flost.png").await;
    assert_eq!(listed.status.as_u16(), 404, "{}", listed.text());
    ann.get(&format!("/api/File?fileUID={kept}"))
        .await
        .expect(200);

    s3.resume().await;
    let (status, body) = ready(&service).await;
    assert_eq!(status, 200, "{body}");
    let again = ann
        .upload_database_file("Parts/lost.png", png(Shape::Bracket, 9), &[])
        .await;
    assert!(s3.object(&format!("files/{again}")).is_file());
}

#[tokio::test]
async fn two_nodes_on_one_database_serve_each_others_files_from_one_bucket() {
    let s3 = S3Server::start().await;
    let Some(first) = TestService::start_on(StoreKind::Postgres, on_s3(&s3)).await else {
        eprintln!("skipped: no PostgreSQL server for the second node");
        return;
    };
    let (second, _second_dir) = first.another_node(on_s3(&s3)).await;
    let on_first = first.session("ann").await;
    let on_second = Session::login(&second.base_url(), "ann").await;

    let uid = on_first
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 3), &[])
        .await;
    // The second node serves the thumbnail the first one rendered, and indexes a search input
    // from the bucket that finds the file.
    let record = on_second.get(&format!("/api/File?fileUID={uid}")).await;
    record.expect(200);
    let record = record.json();
    let thumbnail_url = record["ThumbNailURLFromID"].as_str().unwrap();
    assert!(
        thumbnail_url.starts_with(&second.base_url()),
        "{thumbnail_url}"
    );
    assert_thumbnail_is_the_buckets(&record, &s3, &uid).await;
    assert_a_disc_finds_first(&on_second, &on_first, &uid).await;
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_sends_a_data_directorys_files_to_the_bucket_and_resumes() {
    let s3 = S3Server::start().await;
    let Some(database) = partlens_testkit::postgres::database() else {
        eprintln!("skipped: no PostgreSQL server to migrate into");
        return;
    };
    // A data directory of one's own, its file indexed, its service stopped.
    let mut source = TestService::start_on(StoreKind::Sqlite, |_| {})
        .await
        .unwrap();
    let uid = source
        .session("ann")
        .await
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 3), &[])
        .await;
    source.stop().await;
    let target = tempfile::tempdir().unwrap();
    let from = source.dir.path().to_string_lossy().into_owned();
    let arguments = ["migrate", "--from", &from, "--to", &database.url];
    let (said, succeeded) = run_program(&s3, target.path(), &arguments).await;
    assert!(succeeded, "{said}");
    assert!(
        said.contains("files/: 1 copied, 0 already there (s3://parts/team-a)"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(s3.object(&format!("files/{uid}"))).unwrap(),
        std::fs::read(source.dir.path().join(format!("files/{uid}"))).unwrap()
    );
    assert!(s3.object(&format!("images/{uid}.sm.jpg")).is_file());
    assert!(
        !target.path().join("files").exists(),
        "nothing went to --data"
    );

    let (said, succeeded) = run_program(&s3, target.path(), &arguments).await;
    assert!(succeeded, "{said}");
    assert!(said.contains("files/: 0 copied, 1 already there"), "{said}");

    // Served from PostgreSQL and the bucket: the thumbnail comes from the bucket.
    let node = TestService::start_on(StoreKind::Postgres, |config| {
        config.database = Some(partlens_store::DatabaseUrl::parse(&database.url).unwrap());
        config.blobs = s3.location();
    })
    .await
    .unwrap();
    let record = node
        .session("ann")
        .await
        .get(&format!("/api/File?fileUID={uid}"))
        .await;
    record.expect(200);
    assert_thumbnail_is_the_buckets(&record.json(), &s3, &uid).await;
}
