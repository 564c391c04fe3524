//! The local service as a server that keeps data: who may delete what, what another company sees,
//! a restart with everything intact, an asynchronous job that survives a restart, and the
//! `partlens-service` binary as scripts run it.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod service_support;

use std::io::{BufRead as _, Write as _};
use std::process::{Command, Stdio};
use std::time::Duration;

use partlens::api::encoding::{double_encoded_strings, password_digest};
use service_support::{Shape, TestService, png, wait_until};

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
    // Its own files carry its own VizSpaceID; reusing Acme's UID is refused.
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
    .expect(400);
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
    assert_eq!(reqwest::get(&old_url).await.unwrap().status(), 200);
    // Feedback and users survive too.
    let database = rusqlite::Connection::open(service.dir.path().join("partlens.sqlite3")).unwrap();
    let stored: String = database
        .query_row(
            "SELECT feedback FROM feedback WHERE id = ?1",
            [&feedback],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(stored, "ok");
    service.session("bob").await;
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

/// Kills the child when dropped, so a failed assertion leaves no process behind.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_and_manages_users() {
    let binary = env!("CARGO_BIN_EXE_partlens-service");
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

    let mut server = Child(
        Command::new(binary)
            .args([
                "--data",
                data.to_str().unwrap(),
                "serve",
                "--addr",
                "127.0.0.1:0",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let stdout = server.0.stdout.take().unwrap();
    let first_line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap();
        line
    })
    .await
    .unwrap();
    let base = first_line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {first_line:?}"))
        .to_owned();
    let port: u16 = base
        .strip_prefix("http://127.0.0.1:")
        .unwrap()
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    let digest = password_digest("s3cret pass");
    let reply = reqwest::Client::new()
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
    let attributes = reqwest::Client::new()
        .get(format!("{base}/api/FileAttributes"))
        .bearer_auth(token["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(attributes.status(), 200);
    drop(server);
}
