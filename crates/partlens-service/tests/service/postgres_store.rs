//! The PostgreSQL store (issue 26) beside the SQLite one: what runs on PostgreSQL so far, checked
//! on a real server (see `partlens_testkit::postgres`; skipped with a message off CI when there is
//! none, a failure under CI). The whole suite runs on PostgreSQL with `PARTLENS_TEST_STORE=postgres`.

use partlens_service::admin;
use partlens_store::DatabaseUrl;
use partlens_testkit::service::{PASSWORD, StoreKind, TestService};
use reqwest::Method;

/// A service on a fresh PostgreSQL database, or `None` when the test is skipped.
async fn on_postgres() -> Option<TestService> {
    TestService::start_on(StoreKind::Postgres, |_| {}).await
}

/// Runs blocking store work (the administration commands) off the test's async runtime, as the
/// program runs them (PostgreSQL's synchronous client may not block a thread driving async tasks).
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work).await.unwrap()
}

/// `GET /api/FileStatus` without its `fileUID`: 401 without a valid token, 400 with one (the token
/// is checked first), whatever else is stored.
async fn status_without_uid(service: &TestService, token: Option<&str>) -> u16 {
    service
        .anonymous(token)
        .send(Method::GET, "/api/FileStatus", None, None)
        .await
        .status
        .as_u16()
}

#[tokio::test]
async fn users_log_in_and_their_tokens_are_accepted_on_postgres() {
    let Some(service) = on_postgres().await else {
        return;
    };
    let ann = service.session("ann").await;
    let token = ann.token.clone().unwrap();
    assert_eq!(status_without_uid(&service, Some(&token)).await, 400);
    assert_eq!(status_without_uid(&service, Some("not-a-token")).await, 401);
    // User names are matched case-insensitively, as in SQLite.
    service.session("ANN").await;

    let form = |client: &str, password: &str| {
        vec![
            ("grant_type", "password".to_owned()),
            ("client_id", client.to_owned()),
            ("username", "bob".to_owned()),
            (
                "password",
                partlens_api::encoding::password_digest(password),
            ),
        ]
    };
    let http = partlens_api::client::plain_http_client();
    let wrong = http
        .post(service.url("/api/Token"))
        .form(&form("partlens", "wrong"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 400);
    assert!(wrong.text().await.unwrap().contains("invalid_grant"));
    let unknown_client = http
        .post(service.url("/api/Token"))
        .form(&form("someone-else", PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown_client.status().as_u16(), 400);
    assert!(
        unknown_client
            .text()
            .await
            .unwrap()
            .contains("invalid_client")
    );
}

#[tokio::test]
async fn a_password_reset_ends_the_tokens_and_a_name_stays_with_its_company() {
    let Some(service) = on_postgres().await else {
        return;
    };
    let token = service.session("bob").await.token.unwrap();
    assert_eq!(status_without_uid(&service, Some(&token)).await, 400);
    let (dir, database) = (
        service.config.data_dir.clone(),
        service.config.database.clone(),
    );
    let (taken, robot_twice) = blocking(move || {
        let database = database.as_ref();
        admin::add_user_in(&dir, database, "acme", "Bob", "new", false).unwrap();
        let taken = admin::add_user_in(&dir, database, "Globex", "bob", "x", false);
        let robot = admin::add_client_in(&dir, database, "robot")
            .and_then(|()| admin::add_client_in(&dir, database, "robot"));
        (taken, robot)
    })
    .await;
    assert_eq!(status_without_uid(&service, Some(&token)).await, 401);
    assert!(
        taken
            .unwrap_err()
            .to_string()
            .contains("already belongs to another company")
    );
    robot_twice.unwrap();
}

#[tokio::test]
async fn a_token_issued_by_one_node_is_accepted_by_another_on_the_same_database() {
    let Some(first) = on_postgres().await else {
        return;
    };
    let url = first.database.as_ref().unwrap().url.clone();
    let second_dir = tempfile::tempdir().unwrap();
    let mut config = partlens_service::ServiceConfig::new(second_dir.path());
    config.addr = "127.0.0.1:0".parse().unwrap();
    config.database = Some(DatabaseUrl::parse(&url).unwrap());
    let second = partlens_service::RunningService::start(config)
        .await
        .unwrap();
    let token = first.session("gus").await.token.unwrap();
    let reply = first
        .anonymous(Some(&token))
        .http
        .get(format!("{}/api/FileStatus", second.base_url()))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        reply.status().as_u16(),
        400,
        "the second node knows the token"
    );
    second.shutdown().await;
}

#[tokio::test]
async fn a_database_with_a_newer_schema_is_refused_with_a_sentence() {
    let Some(service) = on_postgres().await else {
        return;
    };
    let database = service.database.as_ref().unwrap();
    assert_eq!(
        database.query_text("SELECT count(*) FROM clients WHERE id = 'partlens'"),
        Some("1".into()),
        "migrated once, with the default client, though opened five times"
    );
    database.execute("UPDATE partlens_schema SET version = version + 100");
    let (dir, database) = (
        service.config.data_dir.clone(),
        service.config.database.clone(),
    );
    let refused = blocking(move || admin::add_client_in(&dir, database.as_ref(), "late"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("newer than this program's"), "{refused}");
}

/// `GET /health/live` and `/health/ready` of a service, without a token: (status, body) each.
async fn health(service: &TestService) -> ((u16, String), (u16, String)) {
    let anonymous = service.anonymous(None);
    let live = anonymous
        .send(Method::GET, "/health/live", None, None)
        .await;
    let ready = anonymous
        .send(Method::GET, "/health/ready", None, None)
        .await;
    (
        (live.status.as_u16(), live.text()),
        (ready.status.as_u16(), ready.text()),
    )
}

#[tokio::test]
async fn health_is_live_and_ready_on_sqlite_without_a_token() {
    let service = TestService::start_on(StoreKind::Sqlite, |_| {})
        .await
        .unwrap();
    let ((live, _), (ready, body)) = health(&service).await;
    assert_eq!(live, 200);
    assert_eq!(ready, 200, "{body}");
    assert!(body.contains(r#""database":"ok""#), "{body}");
}

#[tokio::test]
async fn ready_names_a_schema_newer_than_the_program_and_check_refuses_it() {
    let Some(service) = on_postgres().await else {
        return;
    };
    let ((live, _), (ready, body)) = health(&service).await;
    assert_eq!((live, ready), (200, 200), "{body}");
    let database = service.database.as_ref().unwrap();
    let check = || {
        std::process::Command::new(partlens_testkit::program("partlens-service"))
            .arg("--data")
            .arg(service.dir.path())
            .args(["--database", &database.url, "check"])
            .output()
            .unwrap()
    };
    let fine = check();
    let said = String::from_utf8_lossy(&fine.stdout).into_owned();
    assert!(fine.status.success(), "{said}");
    assert!(
        said.contains("is current") && said.contains("ready to serve"),
        "{said}"
    );

    database.execute("UPDATE partlens_schema SET version = version + 100");
    let ((live, _), (ready, body)) = health(&service).await;
    assert_eq!(live, 200);
    assert_eq!(ready, 503, "{body}");
    assert!(body.contains("this program writes"), "{body}");
    let refused = check();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stdout).contains("newer than this program's"),
        "{}",
        String::from_utf8_lossy(&refused.stdout)
    );
}

#[tokio::test]
async fn ready_says_the_database_is_unreachable_when_it_is_gone_and_live_stays() {
    let Some(mut service) = on_postgres().await else {
        return;
    };
    service.database.as_ref().unwrap().drop_now();
    let ((live, _), (ready, body)) = health(&service).await;
    assert_eq!(live, 200);
    assert_eq!(ready, 503, "{body}");
    assert!(body.contains(r#""database":"unreachable""#), "{body}");
    assert!(body.contains(r#""storage":"ok""#), "{body}");
    // The service's background loops are waiting for a connection meanwhile (up to the pool's 30 s,
    // twice); with the database back, empty, they get one and the service stops at once.
    service.database.as_ref().unwrap().create_again();
    service.stop().await;
}

#[tokio::test]
async fn the_program_runs_on_postgres_from_its_option_or_its_environment() {
    let Some(database) = partlens_testkit::postgres::database() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let added = std::process::Command::new(partlens_testkit::program("partlens-service"))
        .arg("--data")
        .arg(data.path())
        .args(["--database", &database.url, "user", "add"])
        .args(["--company", "Acme", "--user", "zed", "--password", PASSWORD])
        .output()
        .unwrap();
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let mut serve = partlens_testkit::service::serve_command(data.path(), &[]);
    serve.env("PARTLENS_DATABASE_URL", &database.url);
    let (_server, base) = partlens_testkit::service::serve_child(serve).await;
    let zed = partlens_testkit::service::Session::login(&base, "zed").await;
    let reply = zed.send(Method::GET, "/api/FileStatus", None, None).await;
    assert_eq!(reply.status.as_u16(), 400, "{}", reply.text());
    assert!(
        !data.path().join(partlens_store::DATABASE_FILE).exists(),
        "no SQLite database is made beside a PostgreSQL one"
    );
}

/// Waits until `GET /api/FileStatus` of `uid` is no longer 204; returns the final reply's status and
/// body.
async fn indexed_status(session: &partlens_testkit::service::Session, uid: &str) -> (u16, String) {
    partlens_testkit::service::wait_until(
        std::time::Duration::from_secs(60),
        "indexing to end",
        || async {
            let reply = session.get(&format!("/api/FileStatus?fileUID={uid}")).await;
            (reply.status.as_u16() != 204).then(|| (reply.status.as_u16(), reply.text()))
        },
    )
    .await
}

#[tokio::test]
async fn an_upload_is_indexed_and_its_record_status_attributes_and_deletion_work_on_postgres() {
    use partlens_testkit::service::{Shape, png};
    let Some(service) = on_postgres().await else {
        return;
    };
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file(
            "Design/Bracket.png",
            png(Shape::Bracket, 1),
            &[("Material", "Steel")],
        )
        .await;
    let (status, body) = indexed_status(&ann, &uid).await;
    assert_eq!(status, 200, "{body}");
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await;
    record.expect(200);
    let record = record.json();
    assert_eq!(record["FileName"], "Design/Bracket.png");
    assert_eq!(ann.attributes_of(&uid).await, ["Material=Steel"]);
    // By its stored path, whatever the case.
    let by_name = ann.get("/api/File?fileName=design%2Fbracket.png").await;
    by_name.expect(200);
    assert_eq!(by_name.json()["UID"], record["UID"]);
    // Its thumbnail, through the signed link of its record.
    let thumbnail = ann
        .http
        .get(record["ThumbNailURLFromID"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(thumbnail.status().as_u16(), 200);

    // Attributes written and read back, merged, counted and named.
    ann.put_json(
        &format!("/api/FileAttributes?fileUID={uid}&deleteExisting=false"),
        serde_json::to_string(&serde_json::to_string(&["Finish=Zinc", "material=Brass"]).unwrap())
            .unwrap(),
    )
    .await
    .expect(200);
    assert_eq!(
        ann.attributes_of(&uid).await,
        ["material=Brass", "Finish=Zinc"]
    );
    let names = ann.get("/api/FileAttributes").await.json();
    let names: Vec<&str> = names
        .as_array()
        .unwrap()
        .iter()
        .filter(|name| name["IsCustom"] == true)
        .map(|name| name["Name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Finish", "Material"]);
    let values = ann
        .get("/api/AttributeValues?attribute=MATERIAL")
        .await
        .json();
    assert_eq!(values[0]["Name"], "Brass");
    assert_eq!(values[0]["Count"], 1);
    ann.delete(&format!("/api/FileAttributes?fileUID={uid}"))
        .await
        .expect(200);
    assert!(ann.attributes_of(&uid).await.is_empty());

    // Another company sees nothing of it.
    let gus = service.session("gus").await;
    gus.get(&format!("/api/FileStatus?fileUID={uid}"))
        .await
        .expect(404);

    // A search input queued for the workers is indexed by them.
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 2), true)
        .await;
    let (status, body) = indexed_status(&ann, &input).await;
    assert_eq!(status, 200, "{body}");

    // A file that cannot be read fails with its reason.
    let broken = ann
        .upload_search_input(".png", &b"not a picture at all ".repeat(100), true)
        .await;
    let (status, body) = indexed_status(&ann, &broken).await;
    assert_eq!((status, body.as_str()), (422, "failed"));

    // Deleting a company file needs an admin.
    ann.delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(403);
    let admin = service.session("admin").await;
    admin
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(200);
    ann.get(&format!("/api/FileStatus?fileUID={uid}"))
        .await
        .expect(404);
    ann.get(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(404);
}

#[tokio::test]
async fn an_upload_through_one_node_is_indexed_and_read_through_another() {
    use partlens_testkit::service::{Session, Shape, png};
    let Some(first) = on_postgres().await else {
        return;
    };
    let url = first.database.as_ref().unwrap().url.clone();
    let second_dir = tempfile::tempdir().unwrap();
    let mut config = partlens_service::ServiceConfig::new(second_dir.path());
    config.addr = "127.0.0.1:0".parse().unwrap();
    config.database = Some(DatabaseUrl::parse(&url).unwrap());
    config.index_workers = 0;
    // Only the first node reads files: a job queued on the second is the first's to take.
    let second = partlens_service::RunningService::start(config)
        .await
        .unwrap();
    let ann = first.session("ann").await;
    let on_second = Session {
        base: second.base_url(),
        ..ann.clone()
    };
    // Stored on the first node's disk (the blob store is not shared yet), so uploaded there.
    let uid = ann
        .upload_search_input(".png", &png(Shape::Disc, 3), true)
        .await;
    let (status, body) = indexed_status(&on_second, &uid).await;
    assert_eq!(status, 200, "{body}");
    on_second
        .put_json(
            &format!("/api/FileAttributes?fileUID={uid}"),
            serde_json::to_string(&serde_json::to_string(&["Owner=B"]).unwrap()).unwrap(),
        )
        .await
        .expect(200);
    assert_eq!(ann.attributes_of(&uid).await, ["Owner=B"]);
    second.shutdown().await;
}

#[tokio::test]
async fn a_filter_search_and_the_library_listing_run_on_postgres() {
    use partlens_testkit::service::{Shape, png};
    let Some(service) = on_postgres().await else {
        return;
    };
    let ann = service.session("ann").await;
    let housing = ann
        .upload_database_file(
            "Pumps/Pump Housing.png",
            png(Shape::Disc, 4),
            &[("Material", "Stainless Steel"), ("Region", "EU|US")],
        )
        .await;
    let bracket = ann
        .upload_database_file(
            "Brackets/bracket.png",
            png(Shape::Bracket, 5),
            &[("Material", "Brass"), ("weight(kg)", "12")],
        )
        .await;
    for uid in [&housing, &bracket] {
        assert_eq!(indexed_status(&ann, uid).await.0, 200);
    }
    // Another company's file is never found.
    let gus = service.session("gus").await;
    gus.upload_database_file("Pumps/pump.png", png(Shape::Disc, 6), &[])
        .await;

    // By display name (bracket.png before Pump Housing.png, letters case-folded).
    assert_eq!(
        ann.search_uids("FT=png").await,
        [bracket.clone(), housing.clone()]
    );
    assert_eq!(ann.search_uids("FT=PUMP housing").await, [housing.as_str()]);
    assert_eq!(ann.search_uids("FT=stainless").await, [housing.as_str()]);
    assert!(ann.search_uids("FT=titanium").await.is_empty());
    assert_eq!(
        ann.search_uids("FT=material=steel").await,
        [housing.as_str()]
    );
    assert_eq!(ann.search_uids("FT=region=[us]").await, [housing.as_str()]);
    assert!(ann.search_uids("FT=region=[u]").await.is_empty());
    assert_eq!(ann.search_uids("FT=material=br*").await, [bracket.as_str()]);
    assert_eq!(
        ann.search_uids("FT=weight(kg)=12").await,
        [bracket.as_str()]
    );
    assert!(ann.search_uids("FT=weight(lb)=12").await.is_empty());

    // The library: newest first, by folder, by filter.
    let page = |query: &'static str| {
        let ann = ann.clone();
        async move {
            let reply = ann.get(&format!("/api/Files?{query}")).await;
            reply.expect(200);
            let page = reply.json();
            let uids: Vec<String> = page["Files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|file| file["UID"].as_str().unwrap().to_owned())
                .collect();
            (uids, page["TotalFiles"].as_u64().unwrap())
        }
    };
    assert_eq!(page("").await, (vec![bracket.clone(), housing.clone()], 2));
    assert_eq!(page("limit=1&offset=1").await, (vec![housing.clone()], 2));
    assert_eq!(page("folder=pumps").await, (vec![housing.clone()], 1));
    assert_eq!(
        page("filterStr=FT%3Dmaterial%253Dbrass").await,
        (vec![bracket.clone()], 1)
    );
}

#[tokio::test]
async fn a_search_by_picture_ranks_and_filters_on_postgres() {
    use partlens_testkit::service::{Shape, png};
    let Some(service) = on_postgres().await else {
        return;
    };
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 7), &[("Region", "EU")])
        .await;
    let disc_twin = ann
        .upload_database_file(
            "Parts/disc-twin.png",
            png(Shape::Disc, 8),
            &[("Region", "APAC")],
        )
        .await;
    let bracket = ann
        .upload_database_file(
            "Parts/bracket.png",
            png(Shape::Bracket, 9),
            &[("Region", "APAC")],
        )
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 10), false)
        .await;
    let reply = ann.search(&format!("fileUID={input}")).await;
    reply.expect(200);
    let body = reply.json();
    assert_eq!(body["TotalResults"], 3);
    let uids = partlens_testkit::service::result_uids(&body);
    let mut top_two = uids[..2].to_vec();
    top_two.sort();
    let mut discs = vec![disc.clone(), disc_twin.clone()];
    discs.sort();
    assert_eq!(top_two, discs, "the discs rank first");
    assert_eq!(uids[2], bracket);
    // A filter narrows it; changed attributes are seen at once (the metadata generation moved).
    assert_eq!(
        ann.search_uids(&format!("fileUID={input}&FT=region=[APAC]"))
            .await,
        [disc_twin.as_str(), bracket.as_str()]
    );
    let generation = || {
        service
            .database
            .as_ref()
            .unwrap()
            .query_text("SELECT value FROM metadata_generation")
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    let before = generation();
    ann.put_json(
        &format!("/api/FileAttributes?fileUID={disc}"),
        serde_json::to_string(&serde_json::to_string(&["Region=APAC"]).unwrap()).unwrap(),
    )
    .await
    .expect(200);
    assert!(generation() > before);
    assert_eq!(
        ann.search_uids(&format!("fileUID={input}&FT=region=[APAC]"))
            .await
            .len(),
        3
    );
}

#[tokio::test]
async fn duplicates_are_found_on_postgres() {
    use partlens_testkit::service::{Shape, png};
    let Some(service) = on_postgres().await else {
        return;
    };
    let ann = service.session("ann").await;
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 11), &[])
        .await;
    let copy = ann
        .upload_database_file("Copies/disc.png", png(Shape::Disc, 11), &[])
        .await;
    ann.upload_database_file("Parts/bracket.png", png(Shape::Bracket, 12), &[])
        .await;
    let reply = ann.get("/api/Duplicates").await;
    reply.expect(200);
    let body = reply.json();
    assert_eq!(body["FilesCompared"], 3, "{body}");
    let grouped = body["Groups"].as_array().unwrap().iter().any(|group| {
        let uids: Vec<&str> = group["Files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|file| file["UID"].as_str().unwrap())
            .collect();
        uids.contains(&disc.as_str()) && uids.contains(&copy.as_str())
    });
    assert!(grouped, "the two copies are one group: {body}");
}

/// A second service process on the database of `first` (its own data folder), without indexing
/// workers unless `workers` says so.
async fn second_node(
    first: &TestService,
    workers: usize,
) -> (partlens_service::RunningService, tempfile::TempDir) {
    first
        .another_node(|config| config.index_workers = workers)
        .await
}

#[tokio::test]
async fn views_indexed_and_files_deleted_through_one_node_are_searched_through_another() {
    use partlens_testkit::service::{Session, Shape, png};
    let Some(first) = on_postgres().await else {
        return;
    };
    // Started before anything is indexed: what it finds it learns from the database's journal.
    let (second, _second_dir) = second_node(&first, 0).await;
    let ann = first.session("ann").await;
    let on_second = Session {
        base: second.base_url(),
        ..ann.clone()
    };
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 7), &[])
        .await;
    let bracket = ann
        .upload_database_file("Parts/bracket.png", png(Shape::Bracket, 9), &[])
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 10), false)
        .await;
    let query = format!("fileUID={input}");
    let reply = on_second.search(&query).await;
    reply.expect(200);
    assert_eq!(reply.json()["TotalResults"], 2);
    assert_eq!(
        on_second.search_uids(&query).await,
        [disc.as_str(), bracket.as_str()]
    );

    // Deleted through the first node: gone from the second's visual index without a restart.
    first
        .session("admin")
        .await
        .delete(&format!("/api/File?fileUID={disc}"))
        .await
        .expect(200);
    let reply = on_second.search(&query).await;
    reply.expect(200);
    assert_eq!(reply.json()["TotalResults"], 1);
    assert_eq!(on_second.search_uids(&query).await, [bracket.as_str()]);

    // Indexed again through the first node (an overwrite): found again through the second.
    let again = ann
        .upload_database_file("Parts/disc-again.png", png(Shape::Disc, 7), &[])
        .await;
    assert_eq!(
        on_second.search_uids(&query).await,
        [again.as_str(), bracket.as_str()]
    );

    // A node started now loads the company's views from the database.
    let (third, _third_dir) = second_node(&first, 0).await;
    let on_third = Session {
        base: third.base_url(),
        ..ann.clone()
    };
    assert_eq!(
        on_third.search_uids(&query).await,
        [again.as_str(), bracket.as_str()]
    );
    // The journal says what changed, with the company, in the order it was committed.
    let journal = first
        .database
        .as_ref()
        .unwrap()
        .query_text(&format!(
            "SELECT count(*) FROM visual_changes WHERE file_uid = '{disc}'"
        ))
        .unwrap();
    assert!(journal.parse::<i64>().unwrap() >= 2, "{journal}");
    third.shutdown().await;
    second.shutdown().await;
}

/// The seconds the stand-in reader of node A sleeps: a number of this test's own, so that its
/// reads are found (and ended) by their command line.
const HANGING_SECONDS: u32 = 617;

/// The ids of the processes of the stand-in reads that sleep [`HANGING_SECONDS`] (started by
/// this test's node A, and left behind when it is killed).
fn hanging_reads() -> Vec<i32> {
    let wanted = format!("sleep\0{HANGING_SECONDS}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|cmdline| cmdline == wanted.as_bytes())
        })
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_on_one_database_and_data_folder_share_work_and_a_killed_ones_job_is_finished()
 {
    use partlens_testkit::service::{
        Session, Shape, add_standard_users, png, serve_child, wait_until,
    };
    use std::os::unix::fs::PermissionsExt as _;
    use std::time::Duration;
    let Some(database) = partlens_testkit::postgres::database() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut config = partlens_service::ServiceConfig::new(&data);
    config.database = Some(DatabaseUrl::parse(&database.url).unwrap());
    blocking(move || add_standard_users(&config)).await;
    // Node A reads models with a stand-in reader that hangs on a marked file (and hands any other
    // to the real reader); node B with the real one. Both on one data folder.
    let real = env!("CARGO_BIN_EXE_partlens-service");
    let reader = dir.path().join("stand-in-reader");
    std::fs::write(
        &reader,
        format!(
            "#!/bin/sh\n\
             request=$(mktemp)\n\
             cat > \"$request\"\n\
             if grep -q HANG-ON-NODE-A \"$request\"; then rm -f \"$request\"; printf 'partlens-reader-worker 1\\n'; exec sleep {HANGING_SECONDS}; fi\n\
             exec 3< \"$request\"\n\
             rm -f \"$request\"\n\
             exec '{real}' \"$@\" <&3\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&reader, std::fs::Permissions::from_mode(0o755)).unwrap();
    let node = |reader: Option<&std::path::Path>| {
        let mut command =
            partlens_testkit::service::serve_command(&data, &["--index-workers", "1"]);
        command.env("PARTLENS_DATABASE_URL", &database.url);
        if let Some(reader) = reader {
            command.env("PARTLENS_READER_PROGRAM", reader);
        }
        command
    };
    let (mut node_a, base_a) = serve_child(node(Some(&reader))).await;
    let (node_b, base_b) = serve_child(node(None)).await;
    assert!(
        !std::fs::exists(data.join(partlens_store::DATABASE_FILE)).unwrap(),
        "no SQLite file beside PostgreSQL"
    );

    // A token issued by A is accepted by B; an upload through A is searched by picture through B;
    // attributes written through B are read through A.
    let on_a = Session::login(&base_a, "ann").await;
    let on_b = Session {
        base: base_b.clone(),
        ..on_a.clone()
    };
    let disc = on_a
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 3), &[])
        .await;
    let input = on_a
        .upload_search_input(".png", &png(Shape::Disc, 4), false)
        .await;
    assert_eq!(
        on_b.search_uids(&format!("fileUID={input}")).await,
        [disc.as_str()]
    );
    on_b.put_json(
        &format!("/api/FileAttributes?fileUID={disc}"),
        serde_json::to_string(&serde_json::to_string(&["Owner=B"]).unwrap()).unwrap(),
    )
    .await
    .expect(200);
    assert_eq!(on_a.attributes_of(&disc).await, ["Owner=B"]);
    // Bytes uploaded through B are served through A (one data folder).
    let through_b = on_b
        .upload_database_file("Parts/bar.png", png(Shape::VerticalBar, 5), &[])
        .await;
    let record = on_a.get(&format!("/api/File?fileUID={through_b}")).await;
    record.expect(200);

    // A model uploaded through A (indexed during the upload, so A's) hangs in A's reader; A is
    // killed in the middle; B finishes the job.
    // The marker in a comment after the first line, which STEP allows anywhere.
    let model = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/samples/models/washer.step"
    ))
    .unwrap()
    .replacen(
        "ISO-10303-21;\n",
        "ISO-10303-21;\n/* HANG-ON-NODE-A */\n",
        1,
    )
    .into_bytes();
    let uploading = {
        let on_a = on_a.clone();
        // Sent without the test kit's session, which fails the test when no reply comes.
        tokio::spawn(async move {
            partlens_api::client::plain_http_client()
                .put(format!(
                    "{}/api/FileBinary?file=CAD%2Fwasher.step&isSearchInput=false",
                    on_a.base
                ))
                .bearer_auth(on_a.token.unwrap_or_default())
                .header("Content-Type", "application/octet-stream")
                .body(model)
                .send()
                .await
        })
    };
    let uid = wait_until(Duration::from_secs(60), "node A to read the model", || {
        let hanging = !hanging_reads().is_empty();
        let uid = database.query_text(
            "SELECT f.uid FROM files f JOIN jobs j ON j.file_uid = f.uid \
             WHERE f.display_name = 'washer.step' AND f.state = 'in_progress' \
             AND j.claimed_by IS NOT NULL",
        );
        async move { uid.filter(|_| hanging) }
    })
    .await;
    let node_of_a = database
        .query_text(&format!(
            "SELECT claimed_by FROM jobs WHERE file_uid = '{uid}'"
        ))
        .unwrap();
    node_a.0.kill().unwrap();
    node_a.0.wait().unwrap();
    // The upload's connection closed with the process (no reply).
    let _ = uploading.await;
    for pid in hanging_reads() {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
    // A's heartbeat stopped with it; instead of waiting the 30 s after which its jobs are anyone's
    // (`a_job_claimed_by_one_node_…` checks that wait), its last beat is made older.
    database.execute(&format!(
        "UPDATE nodes SET heartbeat_at = now() - interval '1 hour' WHERE id = '{node_of_a}'"
    ));
    let status = wait_until(
        Duration::from_secs(120),
        "node B to index the model",
        || {
            let on_b = on_b.clone();
            let uid = uid.clone();
            async move {
                let reply = on_b.get(&format!("/api/FileStatus?fileUID={uid}")).await;
                (reply.status != 204).then_some((reply.status, reply.text()))
            }
        },
    )
    .await;
    assert_eq!(status.0, 200, "{}", status.1);
    let claimed = database.query_text(&format!(
        "SELECT count(*) FROM jobs WHERE file_uid = '{uid}'"
    ));
    assert_eq!(claimed.as_deref(), Some("0"), "the job is done");
    let record = on_b.get(&format!("/api/File?fileUID={uid}")).await;
    record.expect(200);
    drop(node_b);
}

#[tokio::test]
async fn a_node_behind_the_journal_kept_loads_its_visual_index_again() {
    use partlens_testkit::service::{Session, Shape, png, wait_until};
    use std::time::Duration;
    // The first node's maintenance round (which forgets old journal rows) runs often; the
    // second's never during the test, so it learns of changes only when it searches.
    let Some(first) = TestService::start_on(StoreKind::Postgres, |config| {
        config.visual_maintenance_interval = Duration::from_millis(100);
    })
    .await
    else {
        return;
    };
    let database = first.database.as_ref().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = partlens_service::ServiceConfig::new(dir.path());
    config.addr = "127.0.0.1:0".parse().unwrap();
    config.database = Some(DatabaseUrl::parse(&database.url).unwrap());
    config.index_workers = 0;
    config.visual_maintenance_interval = Duration::from_secs(3600);
    let second = partlens_service::RunningService::start(config)
        .await
        .unwrap();
    let ann = first.session("ann").await;
    let on_second = Session {
        base: second.base_url(),
        ..ann.clone()
    };
    let disc = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 7), &[])
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 10), false)
        .await;
    // The disc's journal rows are made older than the journal keeps, and forgotten by the first
    // node's maintenance: the second, which never applied them, is now behind what is kept.
    database.execute("UPDATE visual_changes SET at = now() - interval '2 hours'");
    wait_until(
        Duration::from_secs(30),
        "the old rows to be forgotten",
        || {
            let left = database.query_text("SELECT count(*) FROM visual_changes");
            let trimmed = database.query_text("SELECT trimmed_through FROM visual_journal");
            async move {
                (left.as_deref() == Some("0") && trimmed.as_deref() != Some("0")).then_some(())
            }
        },
    )
    .await;
    assert_eq!(
        on_second.search_uids(&format!("fileUID={input}")).await,
        [disc.as_str()]
    );
    second.shutdown().await;
}
