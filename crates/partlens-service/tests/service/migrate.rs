//! `partlens-service migrate --from DIR --to postgres://…`: a data directory made through the real
//! service (real-world meshes, attributes, feedback, a queued job) moved onto PostgreSQL by the
//! program, run twice, then served from PostgreSQL. Needs a PostgreSQL server (see
//! `partlens_testkit::postgres`: skipped with a message off CI when there is none, a failure under
//! CI) and the real-world corpus, whichever store the run's other tests use.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use partlens_service::{RunningService, ServiceConfig};
use partlens_testkit::postgres::TestDatabase;
use partlens_testkit::realworld::{corpus_dir, corpus_files_for_test};
use partlens_testkit::service::{Session, StoreKind, TestService, wait_until};
use reqwest::Method;

/// Three meshes of the corpus, different parts.
const MESHES: [&str; 3] = [
    "mesh/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.stl",
    "mesh/freecadlib__Nuts__ISO4032_Hex_Nut_M4.stl",
    "mesh/freecadlib__Washers__DIN127_CLASS_B_M8GrowerWasher.stl",
];

/// One more mesh, a search input uploaded asynchronously while no worker indexes: it stays queued.
const QUEUED_MESH: &str = "mesh/freecadlib__Washers__DIN463_M6TabWasher.stl";

/// Runs `partlens-service --data TARGET migrate --from FROM --to URL` and returns what it did.
async fn run_migrate(target: &Path, from: &Path, to: &str) -> Output {
    let mut command = std::process::Command::new(partlens_testkit::program("partlens-service"));
    command
        .arg("--data")
        .arg(target)
        .args(["migrate", "--from"])
        .arg(from)
        .args(["--to", to])
        .env_remove("PARTLENS_DATABASE_URL");
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// The count line of `table` on stdout: `(source, target, verdict)`.
fn count_line(stdout: &str, table: &str) -> (u64, u64, String) {
    let line = stdout
        .lines()
        .find(|line| line.split_whitespace().next() == Some(table))
        .unwrap_or_else(|| panic!("no count of {table} in:\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words.len(), 5, "{line}");
    assert_eq!(words[2], "→", "{line}");
    (
        words[1].parse().unwrap(),
        words[3].parse().unwrap(),
        words[4].to_owned(),
    )
}

/// Waits until the file's status is no longer 204 (queued or being indexed) and returns it.
async fn settled_status(session: &Session, uid: &str) -> u16 {
    wait_until(Duration::from_secs(120), "the file to be indexed", || {
        let path = format!("/api/FileStatus?fileUID={uid}");
        async move {
            let status = session.get(&path).await.status.as_u16();
            (status != 204).then_some(status)
        }
    })
    .await
}

/// A SQLite data directory with the standard users and the meshes of [`MESHES`] (attributes,
/// feedback) indexed, and [`QUEUED_MESH`] queued; stopped. Returns it with the UIDs (the queued one
/// last) and the token `ann` had.
async fn sqlite_data_dir() -> (TestService, Vec<String>, String) {
    let mut service = TestService::start_on(StoreKind::Sqlite, |config| {
        config.index_workers = 0;
    })
    .await
    .unwrap();
    let ann = service.session("ann").await;
    let mut uids = Vec::new();
    for (index, relative) in MESHES.iter().enumerate() {
        let bytes = std::fs::read(corpus_dir().join(relative)).unwrap();
        let name = Path::new(relative).file_name().unwrap().to_string_lossy();
        let uid = ann
            .upload_database_file(
                &format!("Fasteners/{name}"),
                bytes,
                &[("Material", if index == 0 { "steel" } else { "brass" })],
            )
            .await;
        assert_eq!(settled_status(&ann, &uid).await, 200, "{relative}");
        uids.push(uid);
    }
    ann.put_json(
        &format!("/api/FileAttributes?fileUID={}", uids[1]),
        serde_json::to_string(
            &serde_json::to_string(&["Material=brass", "Finish=zinc|black"]).unwrap(),
        )
        .unwrap(),
    )
    .await
    .expect(200);
    ann.put_json(
        &format!(
            "/api/ExtractedAttributeFeedback?fileUID={}&feedback=length%20is%20wrong&user=u-1",
            uids[0]
        ),
        "\"length=10\"",
    )
    .await
    .expect(200);
    let queued = ann
        .upload_search_input(
            ".stl",
            &std::fs::read(corpus_dir().join(QUEUED_MESH)).unwrap(),
            true,
        )
        .await;
    ann.get(&format!("/api/FileStatus?fileUID={queued}"))
        .await
        .expect(204);
    uids.push(queued);
    let token = ann.token.clone().unwrap();
    service.stop().await;
    (service, uids, token)
}

/// A fresh PostgreSQL database and the corpus, or `None` when the test is skipped.
fn postgres_and_corpus() -> Option<TestDatabase> {
    corpus_files_for_test()?;
    partlens_testkit::postgres::database()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_directory_moves_onto_postgres_and_a_second_run_changes_nothing() {
    let Some(database) = postgres_and_corpus() else {
        return;
    };
    let (source, uids, old_token) = sqlite_data_dir().await;
    let source_db = source.dir.path().join("partlens.sqlite3");
    let source_bytes = std::fs::read(&source_db).unwrap();
    let target = tempfile::tempdir().unwrap();

    let first = run_migrate(target.path(), source.dir.path(), &database.url).await;
    let stdout = String::from_utf8_lossy(&first.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(first.status.success(), "{stdout}\n{stderr}");
    for (table, expected) in [
        ("companies", 2),
        ("users", 4),
        ("files", 4),
        ("feedback", 1),
        ("jobs", 1),
        ("file_attributes", 4),
        ("attribute_values", 5),
    ] {
        assert_eq!(
            count_line(&stdout, table),
            (expected, expected, "ok".to_owned()),
            "{table}:\n{stdout}"
        );
    }
    // The saved names (2) and those extracted from the meshes.
    let (names, copied_names, verdict) = count_line(&stdout, "attribute_names");
    assert!(
        names > 2 && names == copied_names && verdict == "ok",
        "{stdout}"
    );
    let (views, copied_views, verdict) = count_line(&stdout, "views");
    assert!(
        views > 0 && views == copied_views && verdict == "ok",
        "{stdout}"
    );
    assert!(stdout.lines().all(|line| line.ends_with(" ok")), "{stdout}");
    for uid in &uids {
        assert!(target.path().join("files").join(uid).is_file(), "{uid}");
    }
    assert!(
        target
            .path()
            .join("images")
            .join(format!("{}.sm.jpg", uids[0]))
            .is_file()
    );

    // A second run resumes where nothing is left: every row was there, the counts still agree.
    let second = run_migrate(target.path(), source.dir.path(), &database.url).await;
    let second_stdout = String::from_utf8_lossy(&second.stdout).into_owned();
    let second_stderr = String::from_utf8_lossy(&second.stderr).into_owned();
    assert!(second.status.success(), "{second_stderr}");
    assert_eq!(second_stdout, stdout);
    assert!(
        second_stderr.contains("files: 0 of 4 written"),
        "{second_stderr}"
    );
    assert!(
        second_stderr.contains("files/: 0 copied, 4 already there"),
        "{second_stderr}"
    );
    // The source was only read.
    assert_eq!(std::fs::read(&source_db).unwrap(), source_bytes);

    // Served from PostgreSQL with the target folder: the same passwords and tokens, records,
    // attributes, searches; the queued job is indexed.
    let mut config = ServiceConfig::new(target.path());
    config.addr = "127.0.0.1:0".parse().unwrap();
    config.database = Some(partlens_store::DatabaseUrl::parse(&database.url).unwrap());
    let service = RunningService::start(config).await.unwrap();
    let base = service.base_url();
    let ann = Session::login(&base, "ann").await;
    let old_session = Session {
        http: partlens_api::client::plain_http_client(),
        base: base.clone(),
        token: Some(old_token),
    };
    old_session
        .send(
            Method::GET,
            &format!("/api/File?fileUID={}", uids[0]),
            None,
            None,
        )
        .await
        .expect(200);
    assert_eq!(ann.attributes_of(&uids[0]).await, ["Material=steel"]);
    assert_eq!(
        ann.attributes_of(&uids[1]).await,
        ["Material=brass", "Finish=zinc|black"]
    );
    let mut brass = ann.search_uids("FT=material=[brass]").await;
    brass.sort();
    let mut expected = vec![uids[1].clone(), uids[2].clone()];
    expected.sort();
    assert_eq!(brass, expected);
    assert_eq!(
        ann.search_uids("FT=finish=[black]").await,
        [uids[1].as_str()]
    );
    assert_eq!(settled_status(&ann, &uids[3]).await, 200);
    let bytes = std::fs::read(corpus_dir().join(MESHES[0])).unwrap();
    let input = ann.upload_search_input(".stl", &bytes, false).await;
    let found = ann.search_uids(&format!("fileUID={input}")).await;
    assert_eq!(found.first(), Some(&uids[0]), "{found:?}");
    // A new user gets an id past the copied ones.
    Session::login(&base, "gus").await;
    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_differing_counts_and_another_team_each_exit_1() {
    let mut source = TestService::start_on(StoreKind::Sqlite, |_| {})
        .await
        .unwrap();
    source.stop().await;
    let target = tempfile::tempdir().unwrap();

    let unreachable = run_migrate(
        target.path(),
        source.dir.path(),
        "postgresql://postgres@localhost/none?host=/nonexistent-partlens-socket&port=5432",
    )
    .await;
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert_eq!(unreachable.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot connect to the target PostgreSQL database"),
        "{stderr}"
    );

    let Some(database) = partlens_testkit::postgres::database() else {
        return;
    };
    let first = run_migrate(target.path(), source.dir.path(), &database.url).await;
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // With --data the source directory itself, its stored files stay where they are.
    let in_place = run_migrate(source.dir.path(), source.dir.path(), &database.url).await;
    let stderr = String::from_utf8_lossy(&in_place.stderr);
    assert!(in_place.status.success(), "{stderr}");
    assert!(
        stderr.contains("--data is the source directory, nothing to copy"),
        "{stderr}"
    );
    // The target gains a row of the copied company the source does not have.
    database.execute(
        "INSERT INTO attribute_names (company_id, name, unit, name_key, unit_key)
         SELECT id, 'Colour', '', 'colour', '' FROM companies WHERE name = 'Acme'",
    );
    let differing = run_migrate(target.path(), source.dir.path(), &database.url).await;
    let stdout = String::from_utf8_lossy(&differing.stdout);
    let stderr = String::from_utf8_lossy(&differing.stderr);
    assert_eq!(differing.status.code(), Some(1), "{stderr}");
    assert_eq!(
        count_line(&stdout, "attribute_names"),
        (0, 1, "DIFFERS".to_owned())
    );
    assert!(
        stderr.contains("the counts of attribute_names (0 in the source, 1 in PostgreSQL) differ"),
        "{stderr}"
    );

    // Another team's directory (its own company Acme, another id) is refused before any write.
    let mut other = TestService::start_on(StoreKind::Sqlite, |_| {})
        .await
        .unwrap();
    other.stop().await;
    let users_before = database.query_text("SELECT count(*) FROM users");
    let refused = run_migrate(target.path(), other.dir.path(), &database.url).await;
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("another team's data"), "{stderr}");
    assert!(stderr.contains("company Acme"), "{stderr}");
    assert_eq!(
        database.query_text("SELECT count(*) FROM users"),
        users_before
    );
}
