//! partlens-cli as a user runs it: the built binary with real arguments, the password from stdin or
//! the environment, against the strict wire-checking server. Every run checks the output contract:
//! at most one line of JSON on stdout, exactly one `partlens-cli: …` line on stderr when it fails,
//! nothing on stderr when it succeeds, and never the token anywhere.

// Helpers outside #[test] functions unwrap too: a failed setup step should fail the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as cli_support;
use partlens_testkit::wire as wire_support;

use cli_support::{Cli, path_arg};
use partlens_api::encoding::{base64_file_body, password_digest, search_files_body};
use serde_json::json;
use wire_support::server::{PASSWORD, ReplyStyle, TOKEN, USER, WireServer};
use wire_support::test_file;

impl Cli {
    /// The binary logged in to `server` as its user through the environment, polling every 10 ms;
    /// the bearer token must never show in its output.
    fn for_wire(server: &WireServer) -> Self {
        Self::logged_in(&server.url(), USER, PASSWORD, 10).never_prints(TOKEN)
    }
}

const UNKNOWN_UID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

// ---- help -------------------------------------------------------------------------------------

#[test]
fn help_describes_the_tool_and_every_command() {
    let top = Cli::bare().args(["--help"]).run_raw();
    assert_eq!(top.code, 0);
    for word in [
        "upload",
        "status",
        "file",
        "delete",
        "attributes",
        "attrs",
        "values",
        "pmi",
        "feedback",
        "search",
        "image",
        "--service",
        "PARTLENS_SERVICE",
        "--client-id",
        "PARTLENS_CLIENT_ID",
        "--user",
        "PARTLENS_USER",
        "--password-stdin",
        "PARTLENS_PASSWORD",
    ] {
        assert!(top.stdout.contains(word), "--help lacks {word}");
    }
    let commands: &[(&[&str], &str)] = &[
        (&["upload"], "--database"),
        (&["status"], "indexed_at"),
        (&["file"], "GET /api/File"),
        (&["delete"], "DELETE /api/File"),
        (&["attributes"], "FileAttribute"),
        (&["attrs"], "clear"),
        (&["attrs", "set"], "--keep-existing"),
        (&["attrs", "clear"], "DELETE /api/FileAttributes"),
        (&["values"], "AttributeValue"),
        (&["pmi"], "unstructured_text"),
        (&["feedback"], "300 characters"),
        (&["search"], "--two-step"),
        (&["image"], "--large"),
    ];
    for (command, phrase) in commands {
        let help = Cli::bare().args(*command).args(["--help"]).run_raw();
        assert_eq!(help.code, 0, "{command:?}");
        assert!(
            help.stdout.contains(phrase),
            "{command:?} --help lacks {phrase}: {}",
            help.stdout
        );
    }
}

#[test]
fn usage_errors_exit_2_and_send_nothing() {
    let server = WireServer::start();
    let run = Cli::for_wire(&server).args(["upload"]).run_raw();
    assert_eq!(run.code, 2, "{run:?}");
    let run = Cli::for_wire(&server)
        .args(["file", UNKNOWN_UID, "--name", "a/b.png"])
        .run_raw();
    assert_eq!(run.code, 2, "{run:?}");
    let run = Cli::for_wire(&server)
        .args(["upload", "a.png", "--encoding", "zip"])
        .run_raw();
    assert_eq!(run.code, 2, "{run:?}");
    // A password is never an argument.
    let run = Cli::for_wire(&server)
        .args(["--password", "x", "attributes"])
        .run_raw();
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(server.request_count(), 0);
}

// ---- login ------------------------------------------------------------------------------------

#[test]
fn password_stdin_logs_in_once_with_the_sha1_digest() {
    let server = WireServer::start();
    let run = Cli::for_wire(&server)
        .env_remove("PARTLENS_PASSWORD")
        .args(["--password-stdin", "attributes"])
        .stdin(&format!("{PASSWORD}\n"))
        .run();
    let list = run.ok_json();
    assert_eq!(list, server.only("GET", "/api/FileAttributes").reply_json());
    assert_eq!(list[1]["Name"], "material");
    let token = server.only("POST", "/api/Token");
    assert!(
        token
            .body_text()
            .ends_with(&format!("&password={}", password_digest(PASSWORD)))
    );
    server.assert_clean();
}

#[test]
fn global_options_as_arguments_instead_of_the_environment() {
    let server = WireServer::start();
    let run = Cli::bare()
        .env("PARTLENS_PASSWORD", PASSWORD)
        .args([
            "--service",
            &server.url(),
            "--client-id",
            "partlens",
            "--user",
            USER,
            "values",
            "Material",
        ])
        .run();
    assert_eq!(run.ok_json(), json!([]));
    assert_eq!(
        server.only("GET", "/api/AttributeValues").query(),
        "attribute=Material"
    );
    assert!(
        server
            .only("POST", "/api/Token")
            .body_text()
            .starts_with("grant_type=password&client_id=partlens&username=alice%40example.test&")
    );
    server.assert_clean();
}

#[test]
fn missing_credentials_are_one_line_and_send_nothing() {
    let server = WireServer::start();
    let no_user = Cli::for_wire(&server)
        .env_remove("PARTLENS_USER")
        .args(["attributes"])
        .run();
    assert!(no_user.error().contains("--user"), "{no_user:?}");
    let no_password = Cli::for_wire(&server)
        .env_remove("PARTLENS_PASSWORD")
        .args(["attributes"])
        .run();
    assert!(
        no_password.error().contains("--password-stdin"),
        "{no_password:?}"
    );
    let empty_stdin = Cli::for_wire(&server)
        .env_remove("PARTLENS_PASSWORD")
        .args(["--password-stdin", "attributes"])
        .stdin("")
        .run();
    assert!(
        empty_stdin.error().contains("standard input"),
        "{empty_stdin:?}"
    );
    assert_eq!(server.request_count(), 0);
}

#[test]
fn refused_logins_name_the_http_status() {
    let server = WireServer::start();
    let wrong_password = Cli::for_wire(&server)
        .env("PARTLENS_PASSWORD", "not it")
        .args(["attributes"])
        .run();
    let line = wrong_password.error();
    assert!(line.contains("400") && line.contains("incorrect"), "{line}");
    let wrong_client = Cli::for_wire(&server)
        .args(["--client-id", "other-app", "attributes"])
        .run();
    let line = wrong_client.error();
    assert!(line.contains("400") && line.contains("client"), "{line}");
    let wrong_client_env = Cli::for_wire(&server)
        .env("PARTLENS_CLIENT_ID", "other-app")
        .args(["attributes"])
        .run();
    assert!(wrong_client_env.error().contains("client"));
    assert_eq!(server.requests_to("GET", "/api/FileAttributes").len(), 0);
    server.assert_clean();
}

// ---- upload -----------------------------------------------------------------------------------

#[test]
fn upload_a_search_input_streams_the_binary_body() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "bracket.PNG", 5000);
    let run = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file)])
        .run();
    let line = run.ok_json();
    let upload = server.only("PUT", "/api/FileBinary");
    assert_eq!(upload.query(), "file=.png&isSearchInput=true");
    assert_eq!(upload.body, std::fs::read(&file).unwrap());
    let uid = upload.reply_json().as_str().unwrap().to_owned();
    assert_eq!(line, json!({"uid": uid, "state": "completed"}));
    // The state printed is the one the service reports after the upload, asked once.
    assert_eq!(
        server.only("GET", "/api/FileStatus").query(),
        format!("fileUID={uid}")
    );
    assert_eq!(server.request_count(), 3, "login, upload and one status");
    server.assert_clean();
}

#[test]
fn a_synchronous_upload_whose_indexing_failed_prints_failed_and_exits_1() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "scan.png", 3000);
    server.answer("GET", "/api/FileStatus", 422, "failed");
    let run = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file)])
        .run();
    assert_eq!(run.json()["state"], "failed");
    assert!(run.error().contains("HTTP 422"), "{run:?}");
    // Still being indexed (a database file the service indexes later) is an answer, not a failure.
    server.clear_answers();
    server.answer("GET", "/api/FileStatus", 204, "");
    let run = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file), "--database", "Scans/scan.png"])
        .run();
    assert_eq!(run.ok_json()["state"], "in_progress");
    server.assert_clean();
}

#[test]
fn upload_with_base64_and_direct_encodings() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "part.step", 3000);
    let base64 = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file), "--encoding", "base64"])
        .run();
    let put = server.only("PUT", "/api/File");
    assert_eq!(put.query(), "file=.step&isSearchInput=true");
    assert_eq!(
        put.body_text(),
        base64_file_body(&std::fs::read(&file).unwrap())
    );
    assert_eq!(base64.ok_json()["state"], "completed");

    let direct = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file), "--encoding", "direct"])
        .run();
    let put = server.only("PUT", "/api/FileBinaryDirect");
    assert_eq!(direct.ok_json()["uid"], put.reply_json()["UID"]);
    server.assert_clean();
}

#[test]
fn upload_into_the_database_with_attributes_and_a_chosen_uid() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "local-name.png", 4096);
    let chosen = "9a1b2c3d-4f89-41d3-9a0c-0305e82c3302";
    let run = Cli::for_wire(&server)
        .args([
            "upload",
            &path_arg(&file),
            "--database",
            "Design/bracket.png",
            "--attr",
            "material=steel",
            "--attr",
            "region=EU|US",
            "--attr",
            "weight(kg)=12.3",
            "--uid",
            chosen,
            "--wait",
        ])
        .run();
    assert_eq!(run.ok_json(), json!({"uid": chosen, "state": "completed"}));
    assert_eq!(
        server.only("GET", "/api/FileStatus").query(),
        format!("fileUID={chosen}")
    );
    assert_eq!(
        server.only("PUT", "/api/FileBinary").query(),
        format!(
            "file=Design%2Fbracket.png&isSearchInput=false&attributes=material%3Dsteel%26region%3DEU%257CUS%26weight%2528kg%2529%3D12.3&uid={chosen}"
        )
    );
    assert_eq!(
        server.file(chosen).unwrap().attributes,
        vec!["material=steel", "region=EU|US", "weight(kg)=12.3"]
    );
    server.assert_clean();
}

#[test]
fn upload_refusals_send_nothing_not_even_a_login() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let small = test_file(dir.path(), "small.png", 1023);
    let fine = test_file(dir.path(), "fine.png", 2048);
    let zip = test_file(dir.path(), "parts.zip", 2048);
    let short_base64 = test_file(dir.path(), "short.png", 700);
    let folder_png = dir.path().join("folder.png");
    std::fs::create_dir(&folder_png).unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["upload".into(), path_arg(&small)], "1024"),
        (
            vec![
                "upload".into(),
                path_arg(&short_base64),
                "--encoding".into(),
                "base64".into(),
            ],
            "base64 characters",
        ),
        (
            vec!["upload".into(), path_arg(&zip), "--async".into()],
            ".zip",
        ),
        (
            vec![
                "upload".into(),
                path_arg(&fine),
                "--uid".into(),
                "not-a-guid".into(),
            ],
            "GUID",
        ),
        (
            vec![
                "upload".into(),
                path_arg(&fine),
                "--attr".into(),
                "material=steel".into(),
            ],
            "--database",
        ),
        (
            vec![
                "upload".into(),
                path_arg(&fine),
                "--database".into(),
                "Design/fine.png".into(),
                "--attr".into(),
                "material".into(),
            ],
            "=",
        ),
        (
            vec![
                "upload".into(),
                path_arg(&fine),
                "--encoding".into(),
                "direct".into(),
                "--async".into(),
            ],
            "direct",
        ),
        (
            vec!["upload".into(), path_arg(&dir.path().join("missing.png"))],
            "missing.png",
        ),
        // A folder, even one named like a file.
        (
            vec!["upload".into(), path_arg(&folder_png)],
            "is a folder, not a file",
        ),
        (
            vec![
                "upload".into(),
                path_arg(&folder_png),
                "--encoding".into(),
                "base64".into(),
            ],
            "is a folder, not a file",
        ),
    ];
    for (args, phrase) in cases {
        let run = Cli::for_wire(&server).args(&args).run();
        assert!(run.error().contains(phrase), "{args:?}: {run:?}");
    }
    assert_eq!(server.request_count(), 0, "{:#?}", server.summary());
}

#[test]
fn upload_async_returns_at_once_and_wait_follows_the_status_to_the_end() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "view.png", 3000);

    let run = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file), "--async"])
        .run();
    assert_eq!(run.ok_json()["state"], "in_progress");
    assert_eq!(
        server.only("PUT", "/api/FileBinary").query(),
        "file=.png&isSearchInput=true&indexAsync=true"
    );
    assert!(server.requests_to("GET", "/api/FileStatus").is_empty());

    server.set_async_script(&[204, 204, 200]);
    let run = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file), "--async", "--wait"])
        .run();
    let line = run.ok_json();
    assert_eq!(line["state"], "completed");
    let polls = server.requests_to("GET", "/api/FileStatus");
    assert_eq!(polls.len(), 3);
    assert_eq!(
        polls[0].query(),
        format!("fileUID={}", line["uid"].as_str().unwrap())
    );
    server.assert_clean();
}

#[test]
fn upload_wait_that_ends_failed_prints_the_state_and_exits_1() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "view.png", 3000);
    server.set_async_script(&[204, 422]);
    let run = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file), "--async", "--wait"])
        .run();
    assert_eq!(run.json()["state"], "failed");
    assert!(run.error().contains("422"), "{run:?}");
    server.assert_clean();
}

#[test]
fn upload_wait_gives_up_at_the_deadline() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "view.png", 3000);
    server.set_async_script(&[204]);
    let run = Cli::for_wire(&server)
        .env("PARTLENS_POLL_DEADLINE_MS", "60")
        .args(["upload", &path_arg(&file), "--async", "--wait"])
        .run();
    assert_eq!(run.json()["state"], "in_progress");
    assert!(run.error().contains("still being indexed"), "{run:?}");
    assert!(server.requests_to("GET", "/api/FileStatus").len() >= 2);
    server.assert_clean();
}

#[test]
fn bare_text_replies_work_as_well_as_json_strings() {
    let server = WireServer::start();
    server.set_reply_style(ReplyStyle::BareText);
    let dir = tempfile::tempdir().unwrap();
    let file = test_file(dir.path(), "view.png", 3000);
    let run = Cli::for_wire(&server)
        .args(["upload", &path_arg(&file)])
        .run();
    let upload = server.only("PUT", "/api/FileBinary");
    assert_eq!(run.ok_json()["uid"], upload.body_text_reply());
    let uid = upload.body_text_reply();
    let status = Cli::for_wire(&server).args(["status", &uid]).run();
    assert_eq!(status.ok_json()["indexed_at"], "2026-11-22T04:53:09.123Z");
    let feedback = Cli::for_wire(&server)
        .args(["feedback", &uid, "--attrs", "material=steel"])
        .run();
    assert_eq!(feedback.ok_json(), json!({"feedback_id": "fb-1"}));
    server.assert_clean();
}

trait ReplyText {
    fn body_text_reply(&self) -> String;
}

impl ReplyText for wire_support::server::Recorded {
    fn body_text_reply(&self) -> String {
        String::from_utf8(self.reply_body.clone()).unwrap()
    }
}

// ---- status -----------------------------------------------------------------------------------

#[test]
fn status_reports_each_state() {
    let server = WireServer::start();
    let running = server.add_search_input(".png", &[204, 204, 200]);
    let failed = server.add_search_input(".png", &[422]);

    let run = Cli::for_wire(&server).args(["status", &running]).run();
    assert_eq!(
        run.ok_json(),
        json!({"uid": running, "state": "in_progress", "indexed_at": null})
    );
    let run = Cli::for_wire(&server).args(["status", &failed]).run();
    assert_eq!(
        run.ok_json(),
        json!({"uid": failed, "state": "failed", "indexed_at": null})
    );
    let run = Cli::for_wire(&server).args(["status", UNKNOWN_UID]).run();
    assert_eq!(run.ok_json()["state"], "unknown");

    let run = Cli::for_wire(&server)
        .args(["status", &running, "--wait"])
        .run();
    assert_eq!(
        run.ok_json(),
        json!({"uid": running, "state": "completed", "indexed_at": "2026-11-22T04:53:09.123Z"})
    );
    let run = Cli::for_wire(&server)
        .args(["status", UNKNOWN_UID, "--wait"])
        .run();
    assert_eq!(run.json()["state"], "unknown");
    assert!(run.error().contains("404"), "{run:?}");

    let run = Cli::for_wire(&server).args(["status", "nope"]).run();
    assert!(run.error().contains("GUID"));
    server.assert_clean();
}

// ---- file, delete -----------------------------------------------------------------------------

#[test]
fn file_prints_the_record_as_the_service_gave_it() {
    let server = WireServer::start();
    let uid = server.add_database_file("Design/bracket.png", &["material=steel", "region=EU|US"]);
    let by_uid = Cli::for_wire(&server).args(["file", &uid]).run();
    let get = server.requests_to("GET", "/api/File").remove(0);
    assert_eq!(get.query(), format!("fileUID={uid}"));
    assert_eq!(by_uid.ok_json(), get.reply_json());
    assert_eq!(by_uid.ok_json()["PageCount"], 1, "unknown fields are kept");

    let by_name = Cli::for_wire(&server)
        .args(["file", "--name", "Design/bracket.png"])
        .run();
    let get = server.requests_to("GET", "/api/File").remove(1);
    assert_eq!(get.query(), "fileName=Design%2Fbracket.png");
    assert_eq!(by_name.ok_json()["UID"], uid.as_str());

    let missing = Cli::for_wire(&server).args(["file", UNKNOWN_UID]).run();
    assert!(missing.error().contains("404"), "{missing:?}");
    server.assert_clean();
}

#[test]
fn delete_prints_deleted_or_one_line_naming_403_and_404() {
    let server = WireServer::start();
    let input = server.add_search_input(".png", &[200]);
    let company = server.add_database_file("Design/housing.step", &[]);
    let run = Cli::for_wire(&server).args(["delete", &input]).run();
    assert_eq!(run.ok_json(), json!({"deleted": true}));
    assert_eq!(
        server.requests_to("DELETE", "/api/File")[0].query(),
        format!("fileUID={input}")
    );
    let again = Cli::for_wire(&server).args(["delete", &input]).run();
    assert!(again.error().contains("404"), "{again:?}");
    assert!(again.stdout.is_empty());
    let forbidden = Cli::for_wire(&server).args(["delete", &company]).run();
    let line = forbidden.error();
    assert!(
        line.contains("403") && line.contains("only an admin"),
        "{line}"
    );
    assert!(server.file(&company).is_some());
    server.assert_clean();
}

// ---- attributes -------------------------------------------------------------------------------

#[test]
fn attributes_and_values_print_the_lists_as_given() {
    let server = WireServer::start();
    let values = json!([{"Name": "steel", "Count": 12}, {"Name": "brass", "Count": 3}]);
    server.set_attribute_values("material", values.clone());
    let run = Cli::for_wire(&server).args(["values", "material"]).run();
    assert_eq!(run.ok_json(), values);
    let run = Cli::for_wire(&server).args(["attributes"]).run();
    assert_eq!(run.ok_json()[2]["Unit"], "kg");
    server.assert_clean();
}

#[test]
fn attrs_set_and_clear() {
    let server = WireServer::start();
    let uid = server.add_database_file("Design/bracket.png", &["finish=anodized"]);
    let run = Cli::for_wire(&server)
        .args([
            "attrs",
            "set",
            &uid,
            "material=steel",
            "region=EU|US",
            "weight(kg)=12.3",
        ])
        .run();
    assert_eq!(run.ok_json(), json!({"ok": true}));
    let put = server.only("PUT", "/api/FileAttributes");
    assert_eq!(put.query(), format!("fileUID={uid}&deleteExisting=true"));
    assert_eq!(
        put.body_text(),
        r#""[\"material=steel\",\"region=EU|US\",\"weight(kg)=12.3\"]""#
    );
    assert_eq!(server.file(&uid).unwrap().attributes.len(), 3);

    let run = Cli::for_wire(&server)
        .args([
            "attrs",
            "set",
            "--name",
            "Design/bracket.png",
            "finish=anodized",
            "--keep-existing",
        ])
        .run();
    assert_eq!(run.ok_json(), json!({"ok": true}));
    let put = server.requests_to("PUT", "/api/FileAttributes").remove(1);
    assert_eq!(
        put.query(),
        "fileName=Design%2Fbracket.png&deleteExisting=false"
    );
    assert_eq!(server.file(&uid).unwrap().attributes.len(), 4);

    let run = Cli::for_wire(&server).args(["attrs", "clear", &uid]).run();
    assert_eq!(run.ok_json(), json!({"ok": true}));
    assert_eq!(
        server.only("DELETE", "/api/FileAttributes").query(),
        format!("fileUID={uid}")
    );
    assert!(server.file(&uid).unwrap().attributes.is_empty());
    server.assert_clean();
}

#[test]
fn attrs_set_refusals_send_nothing() {
    let server = WireServer::start();
    for args in [
        vec!["attrs", "set", UNKNOWN_UID, "material"],
        vec!["attrs", "set", UNKNOWN_UID],
        vec!["attrs", "set", "not-a-uid", "a=b"],
        vec!["attrs", "set", UNKNOWN_UID, "=steel"],
        vec!["attrs", "clear", "not-a-uid"],
        vec!["values", " "],
    ] {
        let run = Cli::for_wire(&server).args(&args).run();
        assert_eq!(run.code, 1, "{args:?}");
    }
    assert_eq!(server.request_count(), 0);
}

// ---- pmi, feedback ----------------------------------------------------------------------------

#[test]
fn pmi_prints_the_parsed_pages() {
    let server = WireServer::start();
    let uid = server.add_database_file("Drawings/bracket.dxf", &[]);
    let run = Cli::for_wire(&server).args(["pmi", &uid]).run();
    assert_eq!(
        run.ok_json(),
        json!({
            "pages": [{"page": 1, "image_size": [1700, 1100], "items": [
                {"box": [10, 20, 110, 60], "type_id": 2, "text": "Ø12 H7"},
                {"box": [200, 40, 380, 90], "type_id": 5, "text": "MATERIAL: STEEL"}
            ]}],
            "unstructured_text": "BRACKET REV B",
            "extracted_attributes": ["material=steel", "revision=B"]
        })
    );
    assert_eq!(
        server.only("GET", "/api/PMIData").query(),
        format!("fileUID={uid}")
    );

    server.set_pmi(&uid, json!({"PMI": "[{\"page\":", "UnstructuredText": ""}));
    let broken = Cli::for_wire(&server).args(["pmi", &uid]).run();
    assert!(broken.error().contains("PMI"), "{broken:?}");
    server.assert_clean();
}

#[test]
fn feedback_sends_the_attributes_text_and_external_user() {
    let server = WireServer::start();
    let uid = server.add_database_file("Drawings/bracket.dxf", &[]);
    let run = Cli::for_wire(&server)
        .args([
            "feedback",
            &uid,
            "--attrs",
            "material=steel,revision=B",
            "--text",
            "revision is C",
            "--user",
            "ext-42",
        ])
        .run();
    assert_eq!(run.ok_json(), json!({"feedback_id": "fb-1"}));
    let sent = server.only("PUT", "/api/ExtractedAttributeFeedback");
    assert_eq!(
        sent.query(),
        format!("fileUID={uid}&feedback=revision%20is%20C&user=ext-42")
    );
    assert_eq!(sent.body_text(), r#""material=steel,revision=B""#);
    assert_eq!(
        server.feedback(),
        vec![(
            uid.clone(),
            vec!["material=steel".to_owned(), "revision=B".to_owned()]
        )]
    );
    server.assert_clean();

    let before = server.request_count();
    let long_text = "x".repeat(301);
    let long_user = "u".repeat(101);
    for args in [
        vec!["feedback", &uid, "--attrs", "a=b", "--text", &long_text],
        vec!["feedback", &uid, "--attrs", "a=b", "--user", &long_user],
        vec!["feedback", &uid, "--attrs", "steel"],
        vec!["feedback", "not-a-uid", "--attrs", "a=b"],
    ] {
        let run = Cli::for_wire(&server).args(&args).run();
        assert_eq!(run.code, 1, "{args:?}");
    }
    assert_eq!(server.request_count(), before);
}

// ---- search -----------------------------------------------------------------------------------

#[test]
fn search_by_text_and_attributes_sends_the_spec_filter() {
    let server = WireServer::start();
    server.add_database_file("Design/pump-housing.step", &["material=steel"]);
    let run = Cli::for_wire(&server)
        .args(["search", "--text", "pump housing"])
        .run();
    let get = server.requests_to("GET", "/api/Search").remove(0);
    assert_eq!(get.query(), "filterStr=FT%3Dpump%20housing");
    assert_eq!(run.ok_json(), get.reply_json());
    assert_eq!(run.ok_json()["TotalResults"], 1);

    let input = server.add_search_input(".png", &[200]);
    Cli::for_wire(&server)
        .args([
            "search",
            "--uid",
            &input,
            "--attr",
            "material=Stainless Steel",
            "--exact",
            "document_number=AX-1000",
            "--prefix",
            "document_number=AX-",
        ])
        .run()
        .ok_json();
    let get = server.requests_to("GET", "/api/Search").remove(1);
    assert_eq!(
        get.query(),
        format!(
            "filterStr=fileUID%3D{input}%26FT%3Dmaterial%253DStainless%2520Steel%26FT%3Ddocument_number%253D%255BAX-1000%255D%26FT%3Ddocument_number%253DAX-%252A"
        )
    );
    server.assert_clean();
}

#[test]
fn search_by_files_of_one_extension_is_one_put() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let front = test_file(dir.path(), "front.png", 1500);
    let side = test_file(dir.path(), "side.png", 800);
    let run = Cli::for_wire(&server)
        .args([
            "search",
            &path_arg(&front),
            &path_arg(&side),
            "--text",
            "bracket",
        ])
        .run();
    let put = server.only("PUT", "/api/Search");
    assert_eq!(put.query(), "fileExtension=.png&filterStr=FT%3Dbracket");
    assert_eq!(
        put.body_text(),
        search_files_body(&[
            std::fs::read(&front).unwrap(),
            std::fs::read(&side).unwrap()
        ])
    );
    assert_eq!(run.ok_json(), put.reply_json());
    assert_eq!(
        run.ok_json()["InputFileUID"]
            .as_str()
            .unwrap()
            .split(',')
            .count(),
        2
    );
    // Login, one search, then one status check per new input (a view the service failed to index
    // must not pass for a search without matches).
    assert_eq!(
        server.request_count(),
        4,
        "login, one search, two status checks"
    );
    assert_eq!(server.requests_to("GET", "/api/FileStatus").len(), 2);
    server.assert_clean();
}

#[test]
fn search_by_mixed_files_or_two_step_uploads_first() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let image = test_file(dir.path(), "front.png", 1500);
    let model = test_file(dir.path(), "part.stl", 2500);
    let run = Cli::for_wire(&server)
        .args(["search", &path_arg(&image), &path_arg(&model)])
        .run();
    let uploads = server.requests_to("PUT", "/api/FileBinary");
    assert_eq!(uploads[0].query(), "file=.png&isSearchInput=true");
    assert_eq!(uploads[1].query(), "file=.stl&isSearchInput=true");
    let uids: Vec<String> = uploads
        .iter()
        .map(|upload| upload.reply_json().as_str().unwrap().to_owned())
        .collect();
    let get = server.only("GET", "/api/Search");
    assert_eq!(
        get.param("filterStr").unwrap(),
        format!("fileUID={}", uids.join(","))
    );
    assert_eq!(run.ok_json(), get.reply_json());

    let two_step = Cli::for_wire(&server)
        .args(["search", &path_arg(&image), "--two-step", "--text", "x"])
        .run();
    assert_eq!(server.requests_to("PUT", "/api/FileBinary").len(), 3);
    assert!(server.requests_to("PUT", "/api/Search").is_empty());
    assert_eq!(two_step.ok_json()["TotalResults"], 0);
    server.assert_clean();
}

#[test]
fn search_async_waits_for_every_input_before_searching() {
    let server = WireServer::start();
    server.set_async_script(&[204, 204, 200]);
    let dir = tempfile::tempdir().unwrap();
    let front = test_file(dir.path(), "front.png", 1500);
    let side = test_file(dir.path(), "side.png", 1500);
    let run = Cli::for_wire(&server)
        .args(["search", &path_arg(&front), &path_arg(&side), "--async"])
        .run();
    let uploads = server.requests_to("PUT", "/api/FileBinary");
    assert_eq!(uploads.len(), 2);
    assert!(
        uploads
            .iter()
            .all(|upload| upload.query().ends_with("&indexAsync=true"))
    );
    assert_eq!(server.requests_to("GET", "/api/FileStatus").len(), 6);
    // The server refuses a search by an input that is not indexed yet: a clean run proves the wait.
    let get = server.only("GET", "/api/Search");
    assert_eq!(run.ok_json(), get.reply_json());
    server.assert_clean();

    server.set_async_script(&[204, 422]);
    let failed = Cli::for_wire(&server)
        .args(["search", &path_arg(&front), "--async"])
        .run();
    let line = failed.error();
    assert!(
        line.contains("could not be indexed") && line.contains("422"),
        "{line}"
    );
    assert_eq!(server.requests_to("GET", "/api/Search").len(), 1);
}

#[test]
fn search_refusals_send_nothing() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..11)
        .map(|index| path_arg(&test_file(dir.path(), &format!("v{index}.png"), 1100)))
        .collect();
    let mut eleven = vec!["search".to_owned()];
    eleven.extend(files.iter().cloned());
    let run = Cli::for_wire(&server).args(&eleven).run();
    assert!(run.error().contains("at most 10"), "{run:?}");

    let mut ten_plus_uid = vec!["search".to_owned()];
    ten_plus_uid.extend(files[..10].iter().cloned());
    ten_plus_uid.extend(["--uid".to_owned(), UNKNOWN_UID.to_owned()]);
    let run = Cli::for_wire(&server).args(&ten_plus_uid).run();
    assert!(run.error().contains("at most 10"), "{run:?}");

    for args in [
        vec!["search"],
        vec!["search", "--attr", "steel"],
        vec!["search", "--uid", "not-a-uid"],
        vec!["search", "--text", "x", "--async"],
        vec!["search", "missing-file.png"],
    ] {
        let run = Cli::for_wire(&server).args(&args).run();
        assert_eq!(run.code, 1, "{args:?}");
    }
    assert_eq!(server.request_count(), 0, "{:#?}", server.summary());
}

// ---- image ------------------------------------------------------------------------------------

#[test]
fn image_downloads_the_thumbnail_from_the_cdn_without_the_token() {
    let server = WireServer::start();
    let uid = server.add_database_file("Design/bracket.png", &[]);
    let thumbnail = format!(
        "{}/thumbs/{uid}.png?token=abc%2Fdef%3D&size=sm",
        server.cdn_url()
    );
    let large = format!("{}/images/{uid}/large.png?sig=own", server.url());
    server.set_image_urls(&uid, &thumbnail, &large);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("thumb.png");
    std::fs::write(&out, b"old content").unwrap();

    let run = Cli::for_wire(&server)
        .args(["image", &uid, "--out", &path_arg(&out)])
        .run();
    let expected = server.image_bytes(&format!("/thumbs/{uid}.png?token=abc%2Fdef%3D&size=sm"));
    assert_eq!(
        run.ok_json(),
        json!({"path": path_arg(&out), "bytes": expected.len()})
    );
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    let cdn = server.requests().last().unwrap().clone();
    assert_eq!(cdn.origin, wire_support::server::Origin::Cdn);
    assert_eq!(cdn.path, format!("/thumbs/{uid}.png"));
    assert_eq!(cdn.query(), "token=abc%2Fdef%3D&size=sm");
    assert_eq!(cdn.authorization, None);

    let large_out = dir.path().join("large.png");
    let run = Cli::for_wire(&server)
        .args(["image", &uid, "--large", "--out", &path_arg(&large_out)])
        .run();
    assert_eq!(run.ok_json()["path"], path_arg(&large_out));
    let own = server.requests().last().unwrap().clone();
    assert_eq!(own.origin, wire_support::server::Origin::Service);
    assert_eq!(own.path, format!("/images/{uid}/large.png"));
    assert_eq!(own.query(), "sig=own");
    assert_eq!(own.authorization, Some(format!("Bearer {TOKEN}")));
    assert_eq!(
        std::fs::read(&large_out).unwrap(),
        server.image_bytes(&format!("/images/{uid}/large.png?sig=own"))
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temporary left"
    );
    server.assert_clean();
}

#[test]
fn image_failures_are_one_line() {
    let server = WireServer::start();
    let uid = server.add_database_file("Design/bracket.png", &[]);
    server.set_image_urls(&uid, "", "");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("thumb.png");
    let run = Cli::for_wire(&server)
        .args(["image", &uid, "--out", &path_arg(&out)])
        .run();
    assert!(run.error().contains("no thumbnail"), "{run:?}");
    let run = Cli::for_wire(&server)
        .args(["image", UNKNOWN_UID, "--out", &path_arg(&out)])
        .run();
    assert!(run.error().contains("404"), "{run:?}");
    assert!(!out.exists());
}

// ---- failures of the service ------------------------------------------------------------------

#[test]
fn service_failures_are_one_line_naming_the_status() {
    let server = WireServer::start();
    let uid = server.add_database_file("Design/bracket.png", &[]);
    let cases: &[(&str, &str, u16, &str, &[&str])] = &[
        ("GET", "/api/File", 401, "", &["file", &uid]),
        ("GET", "/api/FileAttributes", 500, "false", &["attributes"]),
        (
            "PUT",
            "/api/FileAttributes",
            400,
            r#"{"title":"Bad Request","status":400,"detail":"attribute list is malformed"}"#,
            &["attrs", "set", &uid, "a=b"],
        ),
        ("GET", "/api/PMIData", 403, "", &["pmi", &uid]),
    ];
    for (method, path, status, body, args) in cases {
        server.clear_answers();
        server.answer(method, path, *status, body);
        let run = Cli::for_wire(&server).args(*args).run();
        let line = run.error();
        assert!(line.contains(&status.to_string()), "{args:?}: {line}");
        assert!(run.stdout.is_empty());
        if !body.is_empty() && body.contains("malformed") {
            assert!(line.contains("attribute list is malformed"), "{line}");
        }
    }
    server.assert_clean();
}

#[test]
fn network_failures_are_one_line() {
    let server = WireServer::start();
    server.drop_connections("GET", "/api/FileAttributes");
    let run = Cli::for_wire(&server).args(["attributes"]).run();
    assert!(
        run.error().contains("could not reach the service"),
        "{run:?}"
    );
    assert!(server.requests().last().unwrap().dropped);

    // Nothing listens on a port that was just released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = Cli::for_wire(&server)
        .args([
            "--service",
            &format!("http://127.0.0.1:{port}"),
            "attributes",
        ])
        .run();
    assert!(
        run.error().contains("could not reach the service"),
        "{run:?}"
    );
    assert!(
        run.error()
            .contains("check the service address and that the service is running"),
        "{run:?}"
    );

    let run = Cli::for_wire(&server)
        .args(["--service", "ftp://example.test", "attributes"])
        .run();
    assert!(run.error().contains("http"), "{run:?}");
}
