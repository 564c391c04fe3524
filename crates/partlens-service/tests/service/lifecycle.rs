//! The local service as a server that keeps data: who may delete what, what another company sees,
//! a restart with everything intact, an asynchronous job that survives a restart, the
//! `partlens-service` binary as scripts run it, and many clients at once (concurrent uploads and
//! searches, deletes racing uploads and indexing, attributes changed while searches run).

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::service as service_support;

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use futures_util::StreamExt as _;

use partlens_api::encoding::{
    QueryString, base64_file_body, double_encoded_strings, password_digest, search_files_body,
};
use partlens_engine::ViewDescriptor;
use service_support::{Shape, TestService, png, serve_binary, wait_until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_follows_the_permission_matrix() {
    let service = TestService::start().await;
    let admin = service.session("admin").await;
    let ann = service.session("ann").await;
    let bob = service.session("bob").await;
    let gus = service.session("gus").await;
    let database_file = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    let anns_input = ann
        .upload_search_input(".png", &png(Shape::Disc, 2), false)
        .await;
    let bobs_input = bob
        .upload_search_input(".png", &png(Shape::Disc, 3), false)
        .await;
    let delete = |session: &service_support::Session, uid: &str| {
        let session = session.clone();
        let path = format!("/api/File?fileUID={uid}");
        async move { session.delete(&path).await }
    };

    // Another user of the same company: 403 with body false; the file stays.
    let refused = delete(&bob, &anns_input).await;
    refused.expect(403);
    assert_eq!(refused.text(), "false");
    // A user of another company: 404, as if it did not exist.
    delete(&gus, &anns_input).await.expect(404);
    // A non-admin deleting a database file, even one they uploaded: 403.
    let refused = delete(&ann, &database_file).await;
    refused.expect(403);
    assert_eq!(refused.text(), "false");
    // Nor by overwriting it as a search input through `uid=` (which would let them delete it, and
    // takes it out of the database): 403, and it stays a database file.
    for session in [&ann, &bob] {
        let refused = session
            .put_binary(
                &format!("/api/FileBinary?file=.png&uid={database_file}"),
                png(Shape::Disc, 9),
            )
            .await;
        refused.expect(403);
        assert_eq!(refused.text(), "false");
    }
    // Nor by uploading another file to its path under a new UID, which replaces (deletes) it.
    for session in [&ann, &bob] {
        let refused = session
            .put_binary(
                &format!(
                    "/api/FileBinary?file=Parts%2Fdisc.png&isSearchInput=false&uid={}",
                    uuid::Uuid::new_v4()
                ),
                png(Shape::Disc, 10),
            )
            .await;
        refused.expect(403);
        assert_eq!(refused.text(), "false");
    }
    let record = ann
        .get(&format!("/api/File?fileUID={database_file}"))
        .await
        .json();
    assert_eq!(record["FileName"], "Parts/disc.png");
    assert_eq!(
        ann.get("/api/File?fileName=Parts%2Fdisc.png").await.json()["UID"],
        database_file.as_str()
    );
    delete(&ann, &database_file).await.expect(403);
    ann.get(&format!("/api/File?fileUID={anns_input}"))
        .await
        .expect(200);
    // The owner deletes their own input: 200 true, then 404.
    let deleted = delete(&ann, &anns_input).await;
    deleted.expect(200);
    assert_eq!(deleted.text(), "true");
    delete(&ann, &anns_input).await.expect(404);
    ann.get(&format!("/api/FileStatus?fileUID={anns_input}"))
        .await
        .expect(404);
    // An admin deletes a database file and another user's input: 200, then 404; it leaves search.
    assert_eq!(admin.search_uids("").await, vec![database_file.clone()]);
    delete(&admin, &database_file).await.expect(200);
    delete(&admin, &database_file).await.expect(404);
    assert!(admin.search_uids("").await.is_empty());
    delete(&admin, &bobs_input).await.expect(200);
    // Missing or malformed fileUID: 400.
    admin.delete("/api/File").await.expect(400);
    admin.delete("/api/File?fileUID=xyz").await.expect(400);
    // The bytes and images of deleted files are gone from the data directory.
    for uid in [&database_file, &anns_input, &bobs_input] {
        assert!(!service.dir.path().join("files").join(uid).exists());
        assert!(
            !service
                .dir
                .path()
                .join("images")
                .join(format!("{uid}.sm.jpg"))
                .exists()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_company_sees_nothing() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let gus = service.session("gus").await;
    let uid = ann
        .upload_database_file(
            "Parts/disc.png",
            png(Shape::Disc, 4),
            &[("material", "steel")],
        )
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 5), false)
        .await;
    let acme_space =
        ann.get(&format!("/api/File?fileUID={uid}")).await.json()["VizSpaceID"].clone();

    gus.get(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(404);
    gus.get("/api/File?fileName=Parts%2Fdisc.png")
        .await
        .expect(404);
    gus.get(&format!("/api/FileStatus?fileUID={uid}"))
        .await
        .expect(404);
    gus.get(&format!("/api/PMIData?fileUID={uid}"))
        .await
        .expect(404);
    gus.put_json(
        &format!("/api/FileAttributes?fileUID={uid}"),
        double_encoded_strings(&["a=b".into()]),
    )
    .await
    .expect(404);
    gus.delete(&format!("/api/FileAttributes?fileUID={uid}"))
        .await
        .expect(404);
    gus.put_json(
        &format!("/api/ExtractedAttributeFeedback?fileUID={uid}"),
        "\"a=b\"",
    )
    .await
    .expect(404);
    assert_eq!(
        gus.get("/api/FileAttributes").await.json(),
        serde_json::json!([])
    );
    assert_eq!(
        gus.get("/api/AttributeValues?attribute=material")
            .await
            .json(),
        serde_json::json!([])
    );
    assert!(gus.search_uids("FT=disc").await.is_empty());
    assert!(gus.search_uids("").await.is_empty());
    // Acme's input UID gives Globex no matches; Globex's own input does not reach Acme's files.
    assert!(
        gus.search_uids(&format!("fileUID={input}"))
            .await
            .is_empty()
    );
    let globex_input = gus
        .upload_search_input(".png", &png(Shape::Disc, 6), false)
        .await;
    assert!(
        gus.search_uids(&format!("fileUID={globex_input}"))
            .await
            .is_empty()
    );
    // Its own files carry its own VizSpaceID; reusing Acme's UID is refused (409, without saying
    // whose it is).
    let own = gus
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 7), &[])
        .await;
    assert_ne!(own, uid);
    let record = gus.get(&format!("/api/File?fileUID={own}")).await.json();
    assert_ne!(record["VizSpaceID"], acme_space);
    gus.put_binary(
        &format!("/api/FileBinary?file=.png&uid={uid}"),
        png(Shape::Disc, 8),
    )
    .await
    .expect(409);
    // And Acme still sees its own.
    assert_eq!(ann.search_uids("FT=disc").await, vec![uid]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_every_record_attribute_token_and_result() {
    let mut service = TestService::start().await;
    let ann = service.session("ann").await;
    let first = ann
        .upload_database_file(
            "Parts/disc.png",
            png(Shape::Disc, 10),
            &[("region", "EU|US")],
        )
        .await;
    let second = ann
        .upload_database_file(
            "Parts/bar.png",
            png(Shape::HorizontalBar, 11),
            &[("region", "US")],
        )
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 12), false)
        .await;
    let feedback = ann
        .put_json(
            &format!("/api/ExtractedAttributeFeedback?fileUID={first}&feedback=ok"),
            "\"a=b\"",
        )
        .await
        .string();
    let before = (
        ann.get(&format!("/api/File?fileUID={first}")).await.json(),
        ann.get("/api/FileAttributes").await.json(),
        ann.get("/api/AttributeValues?attribute=region")
            .await
            .json(),
        ann.search(&format!("fileUID={input}")).await.json(),
        ann.search("FT=region=[US]").await.json(),
        ann.get(&format!("/api/FileStatus?fileUID={second}"))
            .await
            .string(),
    );

    service.restart_with(|_| {}).await;
    // The same token works against the restarted service (tokens are stored, hashed).
    let ann = service_support::Session {
        base: service.base.clone(),
        ..ann
    };
    let after = (
        ann.get(&format!("/api/File?fileUID={first}")).await.json(),
        ann.get("/api/FileAttributes").await.json(),
        ann.get("/api/AttributeValues?attribute=region")
            .await
            .json(),
        ann.search(&format!("fileUID={input}")).await.json(),
        ann.search("FT=region=[US]").await.json(),
        ann.get(&format!("/api/FileStatus?fileUID={second}"))
            .await
            .string(),
    );
    let without_urls = |mut value: serde_json::Value| {
        strip_image_tokens(&mut value);
        value
    };
    assert_eq!(
        without_urls(after.0.clone()),
        without_urls(before.0.clone())
    );
    assert_eq!(after.1, before.1);
    assert_eq!(after.2, before.2);
    assert_eq!(
        without_urls(after.3.clone()),
        without_urls(before.3.clone())
    );
    assert_eq!(without_urls(after.4), without_urls(before.4));
    assert_eq!(after.5, before.5);
    assert_eq!(service_support::result_uids(&after.3)[0], first);
    // Image URLs minted before the restart still open (the signing secret is stored).
    let old_url = rebase(
        before.0["ThumbNailURLFromID"].as_str().unwrap(),
        &service.base,
    );
    assert_eq!(
        partlens_api::client::plain_http_client()
            .get(&old_url)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    // Feedback and users survive too.
    let stored = service.query_text(&format!(
        "SELECT feedback FROM feedback WHERE id = '{feedback}'"
    ));
    assert_eq!(stored.as_deref(), Some("ok"));
    service.session("bob").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn descriptors_of_an_earlier_engine_are_indexed_again_after_a_restart() {
    let mut service = TestService::start().await;
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 30), &[])
        .await;
    let bar = ann
        .upload_database_file("Parts/bar.png", png(Shape::HorizontalBar, 31), &[])
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 32), false)
        .await;
    service.stop().await;
    // The database as the engine before photo search left it (its descriptors, version 1), and one
    // file whose descriptors are damaged.
    let earlier = |seed: u32| {
        let image = image::load_from_memory(&png(Shape::Disc, seed)).unwrap();
        ViewDescriptor::of_image_legacy(&image).to_bytes()
    };
    for (uid, descriptor) in [
        (&disc, earlier(30)),
        (&input, earlier(32)),
        (&bar, b"PLV\x0c not a descriptor".to_vec()),
    ] {
        service.set_descriptors(uid, &descriptor);
    }

    service.restart_with(|_| {}).await;
    let ann = service_support::Session {
        base: service.base.clone(),
        ..ann
    };
    // Searching while they are indexed again is never an error (search_uids wants 200), and ends
    // with the right part first.
    let found = wait_until(
        Duration::from_secs(60),
        "the files to be indexed again",
        || {
            let ann = ann.clone();
            let input = input.clone();
            async move {
                let found = ann.search_uids(&format!("fileUID={input}")).await;
                (found.len() == 2).then_some(found)
            }
        },
    )
    .await;
    assert_eq!(found, vec![disc.clone(), bar.clone()]);
    for uid in [&disc, &bar, &input] {
        ann.get(&format!("/api/FileStatus?fileUID={uid}"))
            .await
            .expect(200);
    }
    // What is stored now is today's descriptor.
    let stored = service.first_descriptor(&disc);
    assert!(ViewDescriptor::from_bytes(&stored).is_ok());
}

/// Replaces the origin of a URL (the restarted service listens on a new port).
fn rebase(url: &str, base: &str) -> String {
    let path = &url[url.find("/api/").unwrap()..];
    format!("{base}{path}")
}

/// Blanks the image URLs (their host and token change with the port and the time).
fn strip_image_tokens(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                if key == "ThumbNailURLFromID" || key == "PNGURLFromID" {
                    *field =
                        serde_json::Value::Bool(!field.as_str().unwrap_or_default().is_empty());
                } else {
                    strip_image_tokens(field);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_image_tokens),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_job_interrupted_by_a_restart_finishes_afterwards() {
    let mut service = TestService::start_with(|config| config.index_workers = 0).await;
    let ann = service.session("ann").await;
    let parts = [
        ann.upload_database_file("Parts/disc.png", png(Shape::Disc, 20), &[])
            .await,
        ann.upload_database_file("Parts/bar.png", png(Shape::HorizontalBar, 21), &[])
            .await,
    ];
    let queued = ann
        .upload_search_input(".png", &png(Shape::Disc, 22), true)
        .await;
    let broken = ann.upload_search_input(".png", &[0x42u8; 4096], true).await;
    ann.get(&format!("/api/FileStatus?fileUID={queued}"))
        .await
        .expect(204);
    assert!(
        ann.search_uids(&format!("fileUID={queued}"))
            .await
            .is_empty()
    );

    service
        .restart_with(|config| config.index_workers = 2)
        .await;
    let ann = service_support::Session {
        base: service.base.clone(),
        ..ann
    };
    let status = wait_until(Duration::from_secs(60), "the queued job to finish", || {
        let ann = ann.clone();
        let queued = queued.clone();
        async move {
            let reply = ann.get(&format!("/api/FileStatus?fileUID={queued}")).await;
            (reply.status != 204).then_some(reply)
        }
    })
    .await;
    status.expect(200);
    assert_eq!(
        ann.search_uids(&format!("fileUID={queued}")).await[0],
        parts[0]
    );
    let failed = wait_until(Duration::from_secs(60), "the broken job to fail", || {
        let ann = ann.clone();
        let broken = broken.clone();
        async move {
            let reply = ann.get(&format!("/api/FileStatus?fileUID={broken}")).await;
            (reply.status != 204).then_some(reply)
        }
    })
    .await;
    failed.expect(422);
    // With workers running, an async upload finishes without a restart.
    let live = ann
        .upload_search_input(".png", &png(Shape::HorizontalBar, 23), true)
        .await;
    wait_until(Duration::from_secs(60), "the live job to finish", || {
        let ann = ann.clone();
        let live = live.clone();
        async move {
            (ann.get(&format!("/api/FileStatus?fileUID={live}"))
                .await
                .status
                == 200)
                .then_some(())
        }
    })
    .await;
    assert_eq!(
        ann.search_uids(&format!("fileUID={live}")).await[0],
        parts[1]
    );
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_and_manages_users() {
    let binary = env!("CARGO_BIN_EXE_partlens-service");
    // --help describes the service and how to start it, not the package.
    for flag in ["--help", "-h"] {
        let help = Command::new(binary).arg(flag).output().unwrap();
        assert!(help.status.success());
        let text = String::from_utf8_lossy(&help.stdout);
        for phrase in [
            "local File Indexing and Search Service",
            "user add",
            "serve --addr",
        ] {
            assert!(text.contains(phrase), "{flag} lacks {phrase:?}: {text}");
        }
        assert!(!text.contains("Desktop client"), "{flag}: {text}");
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut add = Command::new(binary)
        .args([
            "--data",
            data.to_str().unwrap(),
            "user",
            "add",
            "--company",
            "Acme",
            "--user",
            "cli-user",
            "--password-stdin",
            "--admin",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    add.stdin
        .take()
        .unwrap()
        .write_all(b"s3cret pass\n")
        .unwrap();
    assert!(add.wait().unwrap().success());
    let client = Command::new(binary)
        .args([
            "--data",
            data.to_str().unwrap(),
            "client",
            "add",
            "script-client",
        ])
        .output()
        .unwrap();
    assert!(client.status.success());
    let refused = Command::new(binary)
        .args([
            "--data",
            data.to_str().unwrap(),
            "user",
            "add",
            "--company",
            "Other",
            "--user",
            "cli-user",
            "--password",
            "x",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("another company"), "{message}");

    let (server, base) = serve_binary(&data, &[]).await;
    let port: u16 = base
        .strip_prefix("http://127.0.0.1:")
        .unwrap()
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    let digest = password_digest("s3cret pass");
    let reply = partlens_api::client::plain_http_client()
        .post(format!("{base}/api/token"))
        .form(&[
            ("grant_type", "password"),
            ("client_id", "script-client"),
            ("username", "cli-user"),
            ("password", digest.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let token: serde_json::Value = reply.json().await.unwrap();
    let attributes = partlens_api::client::plain_http_client()
        .get(format!("{base}/api/FileAttributes"))
        .bearer_auth(token["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(attributes.status(), 200);
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attributes_sent_while_their_file_is_deleted_are_a_404_not_a_500() {
    let service = TestService::start().await;
    let admin = service.session("admin").await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Race/part.png", png(Shape::Disc, 20), &[])
        .await;
    // The body comes in two parts; the file is deleted after the first (the service has found the
    // file by then) and before the second.
    let (first_sent, first_was_sent) = tokio::sync::oneshot::channel::<()>();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let parts = futures_util::stream::unfold(
        (0, Some(first_sent), Some(released)),
        |(step, mut first_sent, mut released)| async move {
            let chunk = match step {
                0 => "\"[\\\"material=",
                1 => {
                    if let Some(signal) = first_sent.take() {
                        signal.send(()).unwrap();
                    }
                    if let Some(wait) = released.take() {
                        wait.await.unwrap();
                    }
                    "steel\\\"]\""
                }
                _ => return None,
            };
            Some((
                Ok::<_, std::io::Error>(bytes::Bytes::from_static(chunk.as_bytes())),
                (step + 1, first_sent, released),
            ))
        },
    );
    let put = {
        let ann = ann.clone();
        let path = format!("/api/FileAttributes?fileUID={uid}");
        tokio::spawn(async move {
            ann.send(
                reqwest::Method::PUT,
                &path,
                Some("application/json"),
                Some(reqwest::Body::wrap_stream(parts)),
            )
            .await
        })
    };
    first_was_sent.await.unwrap();
    admin
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(200);
    // Under load the service may answer before it asks for the rest of the body (the request has
    // then dropped the stream, and nothing waits for the release): the answer is checked either way.
    let _ = release.send(());
    let reply = put.await.unwrap();
    reply.expect(404);
    assert_eq!(reply.json()["status"], 404);
    ann.get(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(404);
}

/// One request of the load test: what it was, and the reply.
type Outcome = (&'static str, service_support::Reply);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_concurrent_uploads_and_searches_all_succeed() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let bob = service.session("bob").await;
    let seed = ann
        .upload_database_file("Load/seed.png", png(Shape::Disc, 60), &[("batch", "load")])
        .await;
    let shapes = [
        Shape::Disc,
        Shape::HorizontalBar,
        Shape::VerticalBar,
        Shape::Bracket,
    ];
    let mut requests = tokio::task::JoinSet::new();
    for n in 0..40u32 {
        let session = if n % 2 == 0 { ann.clone() } else { bob.clone() };
        let seed = seed.clone();
        let picture = png(shapes[(n % 4) as usize], 100 + n);
        requests.spawn(async move {
            let outcome: Outcome = match n % 5 {
                0 => {
                    let mut query = QueryString::new();
                    query
                        .push("file", format!("Load/part-{n}.png"))
                        .push("isSearchInput", "false")
                        .push("attributes", "batch=load");
                    (
                        "database upload",
                        session
                            .put_binary(&format!("/api/FileBinary?{query}"), picture)
                            .await,
                    )
                }
                1 => (
                    "synchronous search input",
                    session
                        .put_json("/api/File?file=.png", base64_file_body(&picture))
                        .await,
                ),
                2 => (
                    "asynchronous search input",
                    session
                        .put_binary("/api/FileBinary?file=.png&indexAsync=true", picture)
                        .await,
                ),
                3 => (
                    "single-call search",
                    session
                        .put_json(
                            "/api/Search?fileExtension=.png",
                            search_files_body(&[picture]),
                        )
                        .await,
                ),
                _ => (
                    "search by input and text",
                    session
                        .search(&format!("fileUID={seed}&FT=batch=[load]"))
                        .await,
                ),
            };
            outcome
        });
    }
    let mut uploaded = Vec::new();
    let mut asynchronous = Vec::new();
    while let Some(done) = requests.join_next().await {
        let (what, reply) = done.unwrap();
        assert_eq!(reply.status, 200, "{what}: {}", reply.text());
        match what {
            "database upload" => uploaded.push(reply.string()),
            "asynchronous search input" => asynchronous.push(reply.string()),
            "synchronous search input" => {
                let uid = reply.string();
                ann.get(&format!("/api/FileStatus?fileUID={uid}"))
                    .await
                    .expect(200);
            }
            "single-call search" | "search by input and text" => {
                assert!(reply.json()["ResultsList"].is_array(), "{what}");
            }
            _ => unreachable!(),
        }
    }
    assert_eq!((uploaded.len(), asynchronous.len()), (8, 8));
    for uid in &asynchronous {
        wait_until(
            Duration::from_secs(120),
            "an async upload to finish",
            || {
                let ann = ann.clone();
                let path = format!("/api/FileStatus?fileUID={uid}");
                async move { (ann.get(&path).await.status == 200).then_some(()) }
            },
        )
        .await;
    }
    // Every database file is there once, with its attributes, and searchable.
    let mut found = ann.search_uids("FT=batch=[load]").await;
    found.sort();
    uploaded.push(seed);
    uploaded.sort();
    assert_eq!(found, uploaded);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_racing_uploads_and_indexing_leave_nothing_behind() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let admin = service.session("admin").await;
    let mut races = tokio::task::JoinSet::new();
    for n in 0..12u32 {
        let (ann, admin) = (ann.clone(), admin.clone());
        races.spawn(async move {
            let uid = uuid::Uuid::new_v4().to_string();
            let picture = png(Shape::Bracket, 200 + n);
            // Even: an async search input deleted by its owner while queued or being indexed.
            // Odd: a database file (indexed during the call) deleted by an admin meanwhile.
            let (upload_path, deleter) = if n % 2 == 0 {
                (
                    format!("/api/FileBinary?file=.png&indexAsync=true&uid={uid}"),
                    ann.clone(),
                )
            } else {
                (
                    format!(
                        "/api/FileBinary?file=Race%2Fpart-{n}.png&isSearchInput=false&uid={uid}"
                    ),
                    admin,
                )
            };
            let delete_path = format!("/api/File?fileUID={uid}");
            let (uploaded, deleted) = tokio::join!(ann.put_binary(&upload_path, picture), async {
                // Keep deleting until the file existed and is gone (the upload may not have
                // created it yet).
                let started = tokio::time::Instant::now();
                loop {
                    let reply = deleter.delete(&delete_path).await;
                    if reply.status != 404 {
                        return reply;
                    }
                    assert!(
                        started.elapsed() < Duration::from_secs(60),
                        "the uploaded file never appeared"
                    );
                    tokio::task::yield_now().await;
                }
            });
            (uid, uploaded, deleted)
        });
    }
    while let Some(done) = races.join_next().await {
        let (uid, uploaded, deleted) = done.unwrap();
        // The upload either finished first (200) or saw its file deleted under it (404).
        assert!(
            [200, 404].contains(&uploaded.status.as_u16()),
            "upload: {} {}",
            uploaded.status,
            uploaded.text()
        );
        deleted.expect(200);
        assert_eq!(deleted.text(), "true");
        ann.get(&format!("/api/FileStatus?fileUID={uid}"))
            .await
            .expect(404);
        ann.get(&format!("/api/File?fileUID={uid}"))
            .await
            .expect(404);
    }
    // Once the queue is empty and the analyses still running on a deleted file (a worker may have
    // claimed a job before its file went) have ended, no bytes, images or temporary files of a
    // deleted file are left, and search has none.
    let data_dir = service.dir.path().to_path_buf();
    let leftovers = |data_dir: &std::path::Path| -> Vec<String> {
        ["files", "images", "tmp"]
            .iter()
            .flat_map(|folder| service_support::files_under(&data_dir.join(folder)))
            .map(|path| path.display().to_string())
            .collect()
    };
    wait_until(
        Duration::from_secs(60),
        "the indexing queue to empty and every deleted file's bytes, images and temporary files to go",
        || {
            let left = leftovers(&data_dir);
            let counts =
                service.query_row("SELECT (SELECT count(*) FROM jobs), (SELECT count(*) FROM files)");
            async move {
                let empty = counts.iter().all(|count| count.as_deref() == Some("0"));
                (empty && left.is_empty()).then_some(())
            }
        },
    )
    .await;
    assert_eq!(leftovers(&data_dir), Vec::<String>::new());
    assert!(admin.search_uids("").await.is_empty());
    let probe = ann
        .upload_search_input(".png", &png(Shape::Bracket, 250), false)
        .await;
    assert!(
        ann.search_uids(&format!("fileUID={probe}"))
            .await
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attributes_replaced_while_searches_run_give_consistent_results() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file(
            "Swap/part.png",
            png(Shape::Disc, 70),
            &[("swap_material", "steel")],
        )
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 71), false)
        .await;
    let writer = {
        let ann = ann.clone();
        let path = format!("/api/FileAttributes?fileUID={uid}");
        tokio::spawn(async move {
            for round in 0..40 {
                let material = if round % 2 == 0 { "brass" } else { "steel" };
                ann.put_json(
                    &path,
                    double_encoded_strings(&[format!("swap_material={material}")]),
                )
                .await
                .expect(200);
            }
        })
    };
    let mut searches = 0;
    while !writer.is_finished() || searches < 10 {
        searches += 1;
        for filter in [
            "FT=swap_material=[steel]".to_owned(),
            format!("fileUID={input}&FT=swap_material=[steel]"),
        ] {
            let reply = ann.search(&filter).await;
            reply.expect(200);
            let body = reply.json();
            let results = body["ResultsList"].as_array().unwrap();
            assert_eq!(
                body["TotalResults"].as_u64().unwrap() as usize,
                results.len(),
                "{filter}: {body}"
            );
            // A file found by the filter shows the attributes it was found by.
            for item in results {
                assert_eq!(
                    item["ShapeResult"]["Attributes"],
                    serde_json::json!(["swap_material=steel"]),
                    "{filter}"
                );
            }
        }
    }
    writer.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_service_shows_no_half_upload_and_finishes_its_queue_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    partlens_service::admin::add_user(&data, "Acme", "ann", service_support::PASSWORD, false)
        .unwrap();
    // No workers: the async uploads stay queued until the kill.
    let (mut server, base) = serve_binary(&data, &["--index-workers", "0"]).await;
    let ann = service_support::Session::login(&base, "ann").await;
    let stored = ann
        .upload_database_file("Crash/whole.png", png(Shape::Disc, 80), &[])
        .await;
    let queued = [
        ann.upload_search_input(".png", &png(Shape::Disc, 81), true)
            .await,
        ann.upload_search_input(".png", &png(Shape::Bracket, 82), true)
            .await,
    ];
    ann.get(&format!("/api/FileStatus?fileUID={}", queued[0]))
        .await
        .expect(204);
    // An upload whose body stops half-way: its first part reaches the service, the rest never does.
    let half = png(Shape::HorizontalBar, 83);
    let first_part = bytes::Bytes::copy_from_slice(&half[..half.len() / 2]);
    let body = futures_util::stream::once(async move { Ok::<_, std::io::Error>(first_part) })
        .chain(futures_util::stream::pending());
    let stalled = {
        let ann = ann.clone();
        tokio::spawn(async move {
            ann.http
                .put(format!(
                    "{}/api/FileBinary?file=Crash%2Fhalf.png&isSearchInput=false",
                    ann.base
                ))
                .bearer_auth(ann.token.as_deref().unwrap())
                .header("Content-Type", "application/octet-stream")
                .header("Content-Length", half.len().to_string())
                .body(reqwest::Body::wrap_stream(body))
                .send()
                .await
        })
    };
    let tmp = data.join("tmp");
    wait_until(
        Duration::from_secs(30),
        "the half upload to reach tmp/",
        || {
            let tmp = tmp.clone();
            async move {
                std::fs::read_dir(&tmp)
                    .unwrap()
                    .any(|entry| entry.unwrap().metadata().unwrap().len() > 0)
                    .then_some(())
            }
        },
    )
    .await;

    // SIGKILL: no graceful shutdown, no cleanup.
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    assert!(
        stalled.await.unwrap().is_err(),
        "the stalled upload cannot succeed"
    );
    drop(server);

    let (_server, base) = serve_binary(&data, &[]).await;
    let ann = service_support::Session { base, ..ann };
    // Nothing of the half upload: no record, no bytes, no leftovers in tmp/.
    ann.get("/api/File?fileName=Crash%2Fhalf.png")
        .await
        .expect(404);
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(data.join("files")).unwrap().count(), 3);
    ann.get(&format!("/api/File?fileUID={stored}"))
        .await
        .expect(200);
    // The queued jobs run to completion and their inputs find the stored file.
    for uid in &queued {
        wait_until(Duration::from_secs(60), "a queued job to finish", || {
            let ann = ann.clone();
            let path = format!("/api/FileStatus?fileUID={uid}");
            async move { (ann.get(&path).await.status == 200).then_some(()) }
        })
        .await;
    }
    assert_eq!(
        ann.search_uids(&format!("fileUID={}", queued[0])).await,
        vec![stored]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_whose_bytes_cannot_be_removed_still_deletes_the_file_whole() {
    let service = TestService::start().await;
    let admin = service.session("admin").await;
    let uid = admin
        .upload_database_file("Held/part.png", png(Shape::Disc, 120), &[])
        .await;
    let input = admin
        .upload_search_input(".png", &png(Shape::Disc, 121), false)
        .await;
    assert_eq!(
        admin.search_uids(&format!("fileUID={input}")).await,
        vec![uid.clone()]
    );
    // The stored bytes cannot be removed (as when another program holds them open): here they are
    // replaced by a folder that is not empty.
    let content = service.dir.path().join("files").join(&uid);
    std::fs::remove_file(&content).unwrap();
    std::fs::create_dir_all(content.join("held")).unwrap();

    let deleted = admin.delete(&format!("/api/File?fileUID={uid}")).await;
    deleted.expect(200);
    assert_eq!(deleted.text(), "true");
    // Gone everywhere at once: record, status, text search and image search.
    admin
        .get(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(404);
    admin
        .get(&format!("/api/FileStatus?fileUID={uid}"))
        .await
        .expect(404);
    assert!(admin.search_uids("").await.is_empty());
    assert!(
        admin
            .search_uids(&format!("fileUID={input}"))
            .await
            .is_empty()
    );
    admin
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_replaced_at_its_path_whose_bytes_cannot_be_removed_is_still_replaced() {
    let service = TestService::start().await;
    // Replacing a database file deletes it, so it takes an admin.
    let ann = service.session("admin").await;
    let old = ann
        .upload_database_file("Held/part.png", png(Shape::Disc, 130), &[])
        .await;
    let content = service.dir.path().join("files").join(&old);
    std::fs::remove_file(&content).unwrap();
    std::fs::create_dir_all(content.join("held")).unwrap();
    // A new UID at the same path replaces the old file.
    let new = uuid::Uuid::new_v4().to_string();
    let reply = ann
        .put_binary(
            &format!("/api/FileBinary?file=Held%2Fpart.png&isSearchInput=false&uid={new}"),
            png(Shape::HorizontalBar, 131),
        )
        .await;
    reply.expect(200);
    assert_eq!(reply.string(), new);
    ann.get(&format!("/api/File?fileUID={old}"))
        .await
        .expect(404);
    let record = ann.get("/api/File?fileName=Held%2Fpart.png").await.json();
    assert_eq!(record["UID"], new.as_str());
    assert_eq!(ann.search_uids("").await, vec![new]);
}
