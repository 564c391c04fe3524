//! The wire layer (`ApiClient`) against the strict wire-checking server: the exact shape of every
//! request, every status mapping, every local refusal (nothing sent), streaming uploads with progress,
//! image URLs used exactly as given, and replies written as JSON strings or bare text.

// Helpers outside #[test] functions unwrap too: a failed setup step should fail the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::wire as wire_support;

use std::sync::{Arc, Mutex};

use partlens_api::encoding::{base64_file_body, password_digest, search_files_body};
use partlens_api::{
    AccessToken, ApiClient, ApiError, Attribute, Credentials, FeedbackRequest, FileRef, FileStatus,
    FileUid, FilterTerm, GetFileRequest, ProgressFn, SearchFilter, SearchRequest, UploadEncoding,
    UploadRequest, UploadSource,
};
use partlens_tasks::poll::{PollPolicy, WaitOutcome, wait_for_indexing};
use partlens_tasks::search_flow::{FileSearchOptions, run_file_search};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use wire_support::server::{CLIENT_ID, PASSWORD, ReplyStyle, TOKEN, USER, WireServer};
use wire_support::test_file;

fn credentials(password: &str) -> Credentials {
    Credentials {
        client_id: CLIENT_ID.into(),
        username: USER.into(),
        password: password.into(),
    }
}

/// A client that already holds the server's token, so that no request has been sent yet.
fn client(server: &WireServer) -> ApiClient {
    ApiClient::new(&server.url())
        .unwrap()
        .with_token(Some(AccessToken::new(TOKEN)))
}

fn fast_polls() -> PollPolicy {
    PollPolicy {
        first_interval: std::time::Duration::from_millis(5),
        max_interval: std::time::Duration::from_millis(10),
        ..PollPolicy::default()
    }
}

fn uid(text: &str) -> FileUid {
    FileUid::parse(text).unwrap()
}

#[tokio::test]
async fn login_posts_the_password_grant_with_the_sha1_hex_password() {
    let server = WireServer::start();
    let mut client = ApiClient::new(&server.url()).unwrap();
    let reply = client.login(&credentials(PASSWORD)).await.unwrap();
    assert_eq!(reply.access_token, TOKEN);
    assert_eq!(client.token().unwrap().secret(), TOKEN);
    let token = server.only("POST", "/api/Token");
    assert_eq!(
        token.body_text(),
        format!(
            "grant_type=password&client_id=partlens&username=alice%40example.test&password={}",
            password_digest(PASSWORD)
        )
    );
    assert_eq!(
        token.content_type.as_deref(),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(token.authorization, None);
    assert_eq!(token.raw_query, None);
    server.assert_clean();
}

#[tokio::test]
async fn a_refused_login_names_the_status_and_the_reason() {
    let server = WireServer::start();
    let mut client = ApiClient::new(&server.url()).unwrap();
    let error = client.login(&credentials("wrong")).await.unwrap_err();
    assert!(
        matches!(&error, ApiError::LoginRefused { status: 400, message } if message.contains("incorrect")),
        "{error:?}"
    );
    assert!(error.to_string().contains("400"), "{error}");
    assert!(client.token().is_none());
    server.assert_clean();
}

#[tokio::test]
async fn binary_upload_sends_raw_bytes_and_only_the_parameters_that_are_set() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = test_file(dir.path(), "Bracket.PNG", 4096);
    let outcome = client(&server)
        .upload(
            &UploadRequest::search_input(UploadSource::Path(path.clone())),
            None,
        )
        .await
        .unwrap();
    let upload = server.only("PUT", "/api/FileBinary");
    assert_eq!(upload.query(), "file=.png&isSearchInput=true");
    assert_eq!(
        upload.content_type.as_deref(),
        Some("application/octet-stream")
    );
    assert_eq!(
        upload.authorization.as_deref(),
        Some("Bearer wire-token-7f3a9c1e55")
    );
    assert_eq!(upload.accept.as_deref(), Some("application/json"));
    assert_eq!(upload.body, std::fs::read(&path).unwrap());
    assert_eq!(
        outcome.uid.as_str(),
        upload.reply_json().as_str().unwrap(),
        "the UID is read from the JSON string reply"
    );
    assert!(outcome.record.is_none());
    server.assert_clean();
}

#[tokio::test]
async fn base64_upload_sends_a_json_string_of_base64() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    // 766 bytes are exactly 1024 base64 characters: the smallest upload PUT /api/File accepts.
    let path = test_file(dir.path(), "part.stp", 766);
    let mut request = UploadRequest::search_input(UploadSource::Path(path.clone()));
    request.encoding = UploadEncoding::Base64;
    let outcome = client(&server).upload(&request, None).await.unwrap();
    let upload = server.only("PUT", "/api/File");
    assert_eq!(upload.query(), "file=.stp&isSearchInput=true");
    assert_eq!(upload.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        upload.body_text(),
        base64_file_body(&std::fs::read(&path).unwrap())
    );
    assert_eq!(
        server.file(outcome.uid.as_str()).unwrap().content,
        std::fs::read(&path).unwrap()
    );
    server.assert_clean();
}

#[tokio::test]
async fn direct_upload_returns_the_record() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = test_file(dir.path(), "view.jpg", 2000);
    let mut request = UploadRequest::search_input(UploadSource::Path(path));
    request.encoding = UploadEncoding::Direct;
    let outcome = client(&server).upload(&request, None).await.unwrap();
    let upload = server.only("PUT", "/api/FileBinaryDirect");
    assert_eq!(upload.query(), "file=.jpg&isSearchInput=true");
    let record = outcome.record.unwrap();
    assert_eq!(record.uid, outcome.uid.as_str());
    assert!(record.indexing_finished);
    server.assert_clean();
}

#[tokio::test]
async fn database_upload_nests_the_attributes_query() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = test_file(dir.path(), "bracket.png", 3000);
    let attributes = vec![
        Attribute::parse("material=steel").unwrap(),
        Attribute::parse("region=EU|US").unwrap(),
        Attribute::parse("weight(kg)=12.3").unwrap(),
    ];
    let request =
        UploadRequest::database(UploadSource::Path(path), "Design/bracket.png", attributes);
    let outcome = client(&server).upload(&request, None).await.unwrap();
    let upload = server.only("PUT", "/api/FileBinary");
    assert_eq!(
        upload.query(),
        "file=Design%2Fbracket.png&isSearchInput=false&attributes=material%3Dsteel%26region%3DEU%257CUS%26weight%2528kg%2529%3D12.3"
    );
    let stored = server.file(outcome.uid.as_str()).unwrap();
    assert_eq!(stored.file_name, "Design/bracket.png");
    assert_eq!(
        stored.attributes,
        vec!["material=steel", "region=EU|US", "weight(kg)=12.3"]
    );
    server.assert_clean();
}

#[tokio::test]
async fn async_upload_with_a_chosen_uid_then_polling_until_200() {
    let server = WireServer::start();
    server.set_async_script(&[204, 204, 200]);
    let dir = tempfile::tempdir().unwrap();
    let path = test_file(dir.path(), "a.png", 1500);
    let chosen = FileUid::new_random();
    let mut request = UploadRequest::search_input(UploadSource::Path(path));
    request.index_async = true;
    request.uid = Some(chosen.clone());
    let client = client(&server);
    let outcome = client.upload(&request, None).await.unwrap();
    assert_eq!(outcome.uid.canonical(), chosen.canonical());
    assert_eq!(
        server.only("PUT", "/api/FileBinary").query(),
        format!("file=.png&isSearchInput=true&indexAsync=true&uid={chosen}")
    );
    let mut seen = Vec::new();
    let ended = wait_for_indexing(
        &client,
        &outcome.uid,
        1500,
        &fast_polls(),
        &CancellationToken::new(),
        |status, _| seen.push(status.name()),
    )
    .await
    .unwrap();
    assert!(matches!(
        ended,
        WaitOutcome::Finished(FileStatus::Completed { .. })
    ));
    assert_eq!(seen, vec!["in_progress", "in_progress", "completed"]);
    let polls = server.requests_to("GET", "/api/FileStatus");
    assert_eq!(polls.len(), 3);
    assert!(
        polls
            .iter()
            .all(|poll| poll.query() == format!("fileUID={chosen}"))
    );
    server.assert_clean();
}

#[tokio::test]
async fn a_20_mb_upload_streams_with_progress_in_many_steps() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let size = 20 * 1024 * 1024 + 17;
    let path = test_file(dir.path(), "scan.tif", size);
    let steps = Arc::new(Mutex::new(Vec::new()));
    let seen = steps.clone();
    let progress: ProgressFn =
        Arc::new(move |sent, total| seen.lock().unwrap().push((sent, total)));
    client(&server)
        .upload(
            &UploadRequest::search_input(UploadSource::Path(path.clone())),
            Some(progress),
        )
        .await
        .unwrap();
    let steps = steps.lock().unwrap().clone();
    assert!(steps.len() > 100, "only {} progress steps", steps.len());
    assert!(steps.windows(2).all(|pair| pair[0].0 < pair[1].0));
    assert!(steps.iter().all(|(_, total)| *total == size as u64));
    assert_eq!(steps.last().unwrap().0, size as u64);
    let upload = server.only("PUT", "/api/FileBinary");
    assert_eq!(upload.body.len(), size);
    assert!(upload.body == std::fs::read(&path).unwrap());
    server.assert_clean();
}

#[tokio::test]
async fn every_local_refusal_sends_nothing() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let client = client(&server);
    let file = uid("3f2504e0-4f89-41d3-9a0c-0305e82c3301");

    let small = test_file(dir.path(), "small.png", 1023);
    let error = client
        .upload(
            &UploadRequest::search_input(UploadSource::Path(small)),
            None,
        )
        .await
        .unwrap_err();
    assert!(error.to_string().contains("1024"), "{error}");

    // 765 bytes are 1020 base64 characters: under the minimum of PUT /api/File.
    let short_base64 = test_file(dir.path(), "short.png", 765);
    let mut request = UploadRequest::search_input(UploadSource::Path(short_base64));
    request.encoding = UploadEncoding::Base64;
    let error = client.upload(&request, None).await.unwrap_err();
    assert!(error.to_string().contains("1020 base64"), "{error}");

    let zip = test_file(dir.path(), "parts.zip", 4096);
    let mut request = UploadRequest::search_input(UploadSource::Path(zip));
    request.index_async = true;
    let error = client.upload(&request, None).await.unwrap_err();
    assert!(error.to_string().contains(".zip"), "{error}");

    let ok_file = test_file(dir.path(), "ok.png", 4096);
    let mut request = UploadRequest::search_input(UploadSource::Path(ok_file.clone()));
    request.uid = Some(FileUid::from_reply("not-a-guid"));
    let error = client.upload(&request, None).await.unwrap_err();
    assert!(error.to_string().contains("GUID"), "{error}");

    let eleven: Vec<UploadSource> = (0..11)
        .map(|_| UploadSource::Path(ok_file.clone()))
        .collect();
    let error = client
        .search_with_files_json(&eleven, &SearchFilter::new())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("at most 10"), "{error}");

    let piped_value = Attribute {
        name: "region".into(),
        unit: None,
        values: vec!["EU|US".into()],
    };
    let error = client
        .set_attributes(&FileRef::Uid(file.clone()), &[piped_value], true)
        .await
        .unwrap_err();
    assert!(error.to_string().contains('|'), "{error}");

    let error = client
        .set_attribute_strings(&FileRef::Uid(file.clone()), &["material".into()], true)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no \"=\""), "{error}");

    let feedback = FeedbackRequest {
        file_uid: Some(file.clone()),
        attributes: vec!["material=steel".into()],
        feedback: Some("x".repeat(301)),
        ..Default::default()
    };
    let error = client.send_feedback(&feedback).await.unwrap_err();
    assert!(error.to_string().contains("300"), "{error}");
    let feedback = FeedbackRequest {
        feedback: None,
        user: Some("u".repeat(101)),
        ..feedback
    };
    let error = client.send_feedback(&feedback).await.unwrap_err();
    assert!(error.to_string().contains("100"), "{error}");

    let error = client
        .search_json(&SearchRequest::new(SearchFilter::new()))
        .await
        .unwrap_err();
    assert!(matches!(error, ApiError::InvalidInput(_)), "{error:?}");

    assert_eq!(server.request_count(), 0, "{:#?}", server.summary());
}

#[tokio::test]
async fn file_records_by_uid_and_by_stored_path() {
    let server = WireServer::start();
    let stored =
        server.add_database_file("Design/bracket.png", &["material=steel", "region=EU|US"]);
    let client = client(&server);
    let by_uid = client
        .get_file_json(&GetFileRequest::new(FileRef::Uid(uid(&stored))))
        .await
        .unwrap();
    assert_eq!(server.requests()[0].query(), format!("fileUID={stored}"));
    assert_eq!(by_uid, server.requests()[0].reply_json());
    let record = client
        .get_file(&GetFileRequest::new(FileRef::Name(
            "Design/bracket.png".into(),
        )))
        .await
        .unwrap();
    assert_eq!(
        server.requests()[1].query(),
        "fileName=Design%2Fbracket.png"
    );
    assert_eq!(record.uid, stored);
    assert_eq!(record.parsed_attributes()[1].values, vec!["EU", "US"]);
    assert_eq!(record.extra.get("PageCount"), Some(&json!(1)));
    server.assert_clean();
}

#[tokio::test]
async fn statuses_map_to_typed_errors() {
    let server = WireServer::start();
    let client = client(&server);
    let request = GetFileRequest::new(FileRef::Uid(uid("3f2504e0-4f89-41d3-9a0c-0305e82c3301")));

    type Expected = fn(&ApiError) -> bool;
    let cases: Vec<(u16, &str, Expected)> = vec![
        (401, "", |error| matches!(error, ApiError::Unauthorized)),
        (403, "false", |error| {
            matches!(error, ApiError::Forbidden { .. })
        }),
        (404, r#"{"title":"Not Found","status":404}"#, |error| {
            matches!(error, ApiError::NotFound { .. })
        }),
        (
            400,
            r#"{"title":"Bad Request","status":400,"detail":"fileUID is malformed"}"#,
            |error| matches!(error, ApiError::BadRequest { status: 400, message } if message == "fileUID is malformed"),
        ),
        (
            400,
            "plain reason text",
            |error| matches!(error, ApiError::BadRequest { message, .. } if message == "plain reason text"),
        ),
        (500, "false", |error| {
            matches!(error, ApiError::Server { status: 500, .. })
        }),
        (503, "", |error| {
            matches!(error, ApiError::Server { status: 503, .. })
        }),
    ];
    for (status, body, expected) in cases {
        server.clear_answers();
        server.answer("GET", "/api/File", status, body);
        let error = client.get_file(&request).await.unwrap_err();
        assert!(expected(&error), "{status} {body}: {error:?}");
        assert!(
            error.to_string().contains(&status.to_string()),
            "{status}: {error}"
        );
    }

    server.clear_answers();
    server.drop_connections("GET", "/api/File");
    let error = client.get_file(&request).await.unwrap_err();
    assert!(matches!(error, ApiError::Network(_)), "{error:?}");
    assert!(server.requests().last().unwrap().dropped);
    assert!(!error.to_string().contains(TOKEN));
    server.assert_clean();
}

#[tokio::test]
async fn a_missing_token_is_a_401_with_an_empty_body() {
    let server = WireServer::start();
    let anonymous = ApiClient::new(&server.url()).unwrap();
    let error = anonymous.company_attributes().await.unwrap_err();
    assert_eq!(error, ApiError::Unauthorized);
    let request = server.only("GET", "/api/FileAttributes");
    assert_eq!(request.reply_status, 401);
    assert!(request.reply_body.is_empty());
    assert!(request.violation.unwrap().contains("bearer"));
}

#[tokio::test]
async fn delete_gives_403_for_company_files_and_404_the_second_time() {
    let server = WireServer::start();
    let client = client(&server);
    let company = server.add_database_file("Design/housing.step", &[]);
    let input = server.add_search_input(".png", &[200]);

    let error = client.delete_file(&uid(&company), None).await.unwrap_err();
    assert!(matches!(error, ApiError::Forbidden { .. }), "{error:?}");
    assert!(error.to_string().contains("403"));

    client.delete_file(&uid(&input), None).await.unwrap();
    let error = client.delete_file(&uid(&input), None).await.unwrap_err();
    assert!(matches!(error, ApiError::NotFound { .. }), "{error:?}");
    let deletes = server.requests_to("DELETE", "/api/File");
    assert_eq!(deletes[1].query(), format!("fileUID={input}"));
    assert_eq!(deletes[1].reply_body, b"true");

    server.set_admin(true);
    client.delete_file(&uid(&company), None).await.unwrap();
    server.assert_clean();
}

#[tokio::test]
async fn file_status_reads_every_state() {
    let server = WireServer::start();
    let client = client(&server);
    let running = server.add_search_input(".png", &[204, 200]);
    let failed = server.add_search_input(".png", &[422]);
    assert_eq!(
        client.file_status(&uid(&running)).await.unwrap(),
        FileStatus::InProgress
    );
    assert_eq!(
        client.file_status(&uid(&running)).await.unwrap(),
        FileStatus::Completed {
            indexed_at: "2026-11-22T04:53:09.123Z".into()
        }
    );
    server.set_reply_style(ReplyStyle::BareText);
    assert_eq!(
        client.file_status(&uid(&running)).await.unwrap(),
        FileStatus::Completed {
            indexed_at: "2026-11-22T04:53:09.123Z".into()
        }
    );
    assert_eq!(
        client.file_status(&uid(&failed)).await.unwrap(),
        FileStatus::Failed { reason: None }
    );
    assert_eq!(
        client
            .file_status(&uid("3f2504e0-4f89-41d3-9a0c-0305e82c3301"))
            .await
            .unwrap(),
        FileStatus::Unknown
    );
    server.answer("GET", "/api/FileStatus", 401, "");
    assert_eq!(
        client.file_status(&uid(&running)).await.unwrap_err(),
        ApiError::Unauthorized
    );
    server.assert_clean();
}

#[tokio::test]
async fn attributes_are_double_encoded_byte_for_byte() {
    let server = WireServer::start();
    let client = client(&server);
    let file = server.add_database_file("Design/bracket.png", &["finish=anodized"]);
    let attributes = vec![
        Attribute::parse("material=steel").unwrap(),
        Attribute::parse("region=EU|US").unwrap(),
        Attribute::parse("weight(kg)=12.3").unwrap(),
    ];
    assert!(
        client
            .set_attributes(&FileRef::Uid(uid(&file)), &attributes, false)
            .await
            .unwrap()
    );
    let put = server.only("PUT", "/api/FileAttributes");
    assert_eq!(put.query(), format!("fileUID={file}&deleteExisting=false"));
    assert_eq!(put.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        put.body_text(),
        r#""[\"material=steel\",\"region=EU|US\",\"weight(kg)=12.3\"]""#
    );
    assert_eq!(server.file(&file).unwrap().attributes.len(), 4);

    assert!(
        client
            .set_attribute_strings(
                &FileRef::Name("Design/bracket.png".into()),
                &["material=brass".into()],
                true
            )
            .await
            .unwrap()
    );
    let by_name = server.requests_to("PUT", "/api/FileAttributes").remove(1);
    assert_eq!(
        by_name.query(),
        "fileName=Design%2Fbracket.png&deleteExisting=true"
    );
    assert_eq!(
        server.file(&file).unwrap().attributes,
        vec!["material=brass"]
    );

    assert!(client.clear_attributes(&uid(&file)).await.unwrap());
    assert_eq!(
        server.only("DELETE", "/api/FileAttributes").query(),
        format!("fileUID={file}")
    );
    assert!(server.file(&file).unwrap().attributes.is_empty());
    server.assert_clean();
}

#[tokio::test]
async fn company_attributes_and_attribute_values() {
    let server = WireServer::start();
    server.set_attribute_values(
        "Material",
        json!([{"Name": "steel", "Count": 12}, {"Name": "brass", "Count": 3}]),
    );
    let client = client(&server);
    let list = client.company_attributes().await.unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[2].unit, "kg");
    assert_eq!(
        client.company_attributes_json().await.unwrap(),
        server.requests()[1].reply_json()
    );
    let values = client.attribute_values(" material ").await.unwrap();
    assert_eq!(values[0].name, "steel");
    assert_eq!(values[0].count, 12);
    assert_eq!(
        server.only("GET", "/api/AttributeValues").query(),
        "attribute=material"
    );
    server.assert_clean();
}

#[tokio::test]
async fn pmi_is_parsed_a_second_time_from_the_reply() {
    let server = WireServer::start();
    let file = server.add_database_file("Drawings/bracket.dxf", &[]);
    let data = client(&server).pmi_data(&uid(&file)).await.unwrap();
    assert_eq!(data.pages.len(), 1);
    assert_eq!(data.pages[0].image_size, [1700, 1100]);
    assert_eq!(data.pages[0].items[1].box_in_page, [200, 40, 380, 90]);
    assert_eq!(data.pages[0].items[0].text, "Ø12 H7");
    assert_eq!(data.unstructured_text, "BRACKET REV B");
    assert_eq!(
        data.extracted_attributes,
        vec!["material=steel", "revision=B"]
    );
    assert!(
        server.only("GET", "/api/PMIData").reply_json()["PMI"].is_string(),
        "the server sends PMI as a string holding JSON"
    );
    server.assert_clean();
}

#[tokio::test]
async fn feedback_sends_a_comma_joined_json_string() {
    let server = WireServer::start();
    let client = client(&server);
    let file = server.add_database_file("Drawings/bracket.dxf", &[]);
    let request = FeedbackRequest {
        file_uid: Some(uid(&file)),
        attributes: vec!["material=steel".into(), "revision=B".into()],
        feedback: Some("wrong material & rev".into()),
        user: Some("ext-42".into()),
        feedback_id: None,
    };
    assert_eq!(client.send_feedback(&request).await.unwrap(), "fb-1");
    let sent = server.only("PUT", "/api/ExtractedAttributeFeedback");
    assert_eq!(
        sent.query(),
        format!("fileUID={file}&feedback=wrong%20material%20%26%20rev&user=ext-42")
    );
    assert_eq!(sent.body_text(), r#""material=steel,revision=B""#);
    assert_eq!(sent.content_type.as_deref(), Some("application/json"));
    server.set_reply_style(ReplyStyle::BareText);
    assert_eq!(client.send_feedback(&request).await.unwrap(), "fb-2");
    server.assert_clean();
}

#[tokio::test]
async fn search_queries_match_the_spec_examples() {
    let server = WireServer::start();
    let client = client(&server);
    server.add_database_file("Design/pump-housing.step", &["material=steel"]);

    let result = client
        .search_json(&SearchRequest::new(
            SearchFilter::new().text("pump housing"),
        ))
        .await
        .unwrap();
    assert_eq!(
        server.requests()[0].query(),
        "filterStr=FT%3Dpump%20housing"
    );
    assert_eq!(result, server.requests()[0].reply_json());

    let nested = SearchFilter::new().all_of(vec![
        FilterTerm::Regular {
            name: "document_type".into(),
            value: "Assembly".into(),
        },
        FilterTerm::Regular {
            name: "material".into(),
            value: "Stainless Steel".into(),
        },
    ]);
    client.search(&SearchRequest::new(nested)).await.unwrap();
    assert_eq!(
        server.requests()[1].query(),
        "filterStr=FT%3Ddocument_type%253DAssembly%2526material%253DStainless%2520Steel"
    );

    let input = server.add_search_input(".png", &[200]);
    let by_uid = SearchFilter::new()
        .with_uids([uid(&input)])
        .term(FilterTerm::Exact {
            name: "document_number".into(),
            value: "AX-1000".into(),
        })
        .term(FilterTerm::Prefix {
            name: "document_number".into(),
            prefix: "AX-".into(),
        });
    let result = client.search(&SearchRequest::new(by_uid)).await.unwrap();
    assert_eq!(
        server.requests()[2].query(),
        format!(
            "filterStr=fileUID%3D{input}%26FT%3Ddocument_number%253D%255BAX-1000%255D%26FT%3Ddocument_number%253DAX-%252A"
        )
    );
    assert_eq!(result.input_uids(), vec![uid(&input)]);
    assert_eq!(result.total_results, 1);
    server.assert_clean();
}

#[tokio::test]
async fn single_call_search_sends_a_string_holding_an_array_of_base64() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let front = test_file(dir.path(), "front.png", 1200);
    let side = test_file(dir.path(), "side.PNG", 900);
    let earlier = server.add_search_input(".png", &[200]);
    let filter = SearchFilter::new()
        .with_uids([uid(&earlier)])
        .text("bracket");
    let result = client(&server)
        .search_with_files(
            &[
                UploadSource::Path(front.clone()),
                UploadSource::Path(side.clone()),
            ],
            &filter,
        )
        .await
        .unwrap();
    let put = server.only("PUT", "/api/Search");
    assert_eq!(
        put.query(),
        format!("fileExtension=.png&filterStr=fileUID%3D{earlier}%26FT%3Dbracket")
    );
    assert_eq!(
        put.body_text(),
        search_files_body(&[
            std::fs::read(&front).unwrap(),
            std::fs::read(&side).unwrap()
        ])
    );
    assert_eq!(result.input_uids().len(), 3, "earlier input plus two views");
    assert_eq!(result.input_uids()[0], uid(&earlier));
    server.assert_clean();
}

/// The single call indexes its views during the call: its answer is used as it is, with no
/// `FileStatus` for the views it just had indexed; only an answer without any result asks, so
/// that a view the service could not read says so instead of looking like no matches.
#[tokio::test]
async fn a_single_call_search_asks_no_status_unless_it_found_nothing() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let views = vec![
        UploadSource::Path(test_file(dir.path(), "front.png", 1500)),
        UploadSource::Path(test_file(dir.path(), "side.png", 1500)),
    ];
    let earlier = server.add_search_input(".png", &[200]);
    let search = |filter: SearchFilter| {
        let client = client(&server);
        let views = views.clone();
        async move {
            run_file_search(
                &client,
                &views,
                filter,
                &FileSearchOptions::default(),
                &fast_polls(),
                &CancellationToken::new(),
                |_| {},
            )
            .await
            .unwrap()
        }
    };
    // Nothing in the library: the two new inputs' status is asked (they are fine: no error).
    let empty = search(SearchFilter::new().with_uids([uid(&earlier)])).await;
    assert!(empty.result.results.is_empty());
    assert_eq!(server.requests_to("GET", "/api/FileStatus").len(), 2);
    assert_eq!(
        empty.view_uids.len(),
        2,
        "the views' UIDs, not the earlier input's"
    );
    assert!(!empty.view_uids.contains(&uid(&earlier)));

    server.add_database_file("Parts/bracket.png", &[]);
    let found = search(SearchFilter::new().with_uids([uid(&earlier)])).await;
    assert_eq!(found.result.results.len(), 1);
    assert_eq!(
        server.requests_to("GET", "/api/FileStatus").len(),
        2,
        "no status asked after an answer with results"
    );
    assert_eq!(server.requests_to("PUT", "/api/Search").len(), 2);
    assert_eq!(found.view_uids, found.result.input_uids()[1..].to_vec());
    server.assert_clean();
}

#[tokio::test]
async fn mixed_formats_with_async_indexing_search_only_after_every_input_is_indexed() {
    let server = WireServer::start();
    server.set_async_script(&[204, 204, 200]);
    let dir = tempfile::tempdir().unwrap();
    let views = vec![
        UploadSource::Path(test_file(dir.path(), "front.png", 1500)),
        UploadSource::Path(test_file(dir.path(), "part.stl", 2500)),
    ];
    let outcome = run_file_search(
        &client(&server),
        &views,
        SearchFilter::new().text("bracket"),
        &FileSearchOptions {
            index_async: true,
            ..FileSearchOptions::default()
        },
        &fast_polls(),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    let uploads = server.requests_to("PUT", "/api/FileBinary");
    assert_eq!(
        uploads[0].query(),
        "file=.png&isSearchInput=true&indexAsync=true"
    );
    assert_eq!(
        uploads[1].query(),
        "file=.stl&isSearchInput=true&indexAsync=true"
    );
    assert_eq!(server.requests_to("GET", "/api/FileStatus").len(), 6);
    let search = server.only("GET", "/api/Search");
    let uids: Vec<&str> = outcome.view_uids.iter().map(FileUid::as_str).collect();
    assert_eq!(
        search.param("filterStr").unwrap(),
        format!("fileUID={}&FT=bracket", uids.join(","))
    );
    // The server refuses a search by an input that is not indexed yet; there was none.
    server.assert_clean();
}

#[tokio::test]
async fn image_urls_are_fetched_exactly_as_given_with_the_token_only_at_home() {
    let server = WireServer::start();
    let client = client(&server);
    let foreign = format!(
        "{}/thumbs/a%20b.png?token=abc%2Fdef%3D&size=sm",
        server.cdn_url()
    );
    let bytes = client.fetch_image(&foreign).await.unwrap();
    let cdn = server.requests()[0].clone();
    assert_eq!(cdn.path, "/thumbs/a%20b.png");
    assert_eq!(cdn.query(), "token=abc%2Fdef%3D&size=sm");
    assert_eq!(cdn.authorization, None);
    assert_eq!(
        bytes.to_vec(),
        server.image_bytes("/thumbs/a%20b.png?token=abc%2Fdef%3D&size=sm")
    );

    let own = format!("{}/images/x/large.png?sig=1", server.url());
    client.fetch_image(&own).await.unwrap();
    let relative = "/images/y/thumb.png?sig=2";
    let bytes = client.fetch_image(relative).await.unwrap();
    let requests = server.requests();
    assert_eq!(
        requests[1].authorization.as_deref(),
        Some("Bearer wire-token-7f3a9c1e55")
    );
    assert_eq!(requests[2].path, "/images/y/thumb.png");
    assert_eq!(requests[2].query(), "sig=2");
    assert_eq!(
        requests[2].authorization.as_deref(),
        Some("Bearer wire-token-7f3a9c1e55")
    );
    assert_eq!(bytes.to_vec(), server.image_bytes(relative));

    // An own-origin URL that redirects to another origin: the token stays home.
    let bytes = client.fetch_image("/redirect-to-cdn/z.png").await.unwrap();
    let requests = server.requests();
    let (home, away) = (&requests[3], &requests[4]);
    assert_eq!(home.reply_status, 302);
    assert_eq!(
        home.authorization.as_deref(),
        Some("Bearer wire-token-7f3a9c1e55")
    );
    assert_eq!(away.origin, wire_support::server::Origin::Cdn);
    assert_eq!(away.path, "/thumbs/z.png");
    assert_eq!(away.authorization, None);
    assert_eq!(bytes.to_vec(), server.image_bytes("/thumbs/z.png"));
    server.assert_clean();
}

#[tokio::test]
async fn single_value_replies_are_read_as_json_strings_and_as_bare_text() {
    let server = WireServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = test_file(dir.path(), "a.png", 2048);
    let client = client(&server);
    let request = UploadRequest::search_input(UploadSource::Path(path));
    let quoted = client.upload(&request, None).await.unwrap();
    server.set_reply_style(ReplyStyle::BareText);
    let bare = client.upload(&request, None).await.unwrap();
    let replies: Vec<String> = server
        .requests_to("PUT", "/api/FileBinary")
        .iter()
        .map(|reply| String::from_utf8(reply.reply_body.clone()).unwrap())
        .collect();
    assert_eq!(replies[0], format!("\"{}\"", quoted.uid));
    assert_eq!(replies[1], bare.uid.as_str());
    assert!(server.file(quoted.uid.as_str()).is_some());
    assert!(server.file(bare.uid.as_str()).is_some());
    server.assert_clean();
}

#[tokio::test]
async fn legacy_and_internal_parameters_go_out_only_when_set() {
    let server = WireServer::start();
    server.allow_restricted_params();
    let dir = tempfile::tempdir().unwrap();
    let path = test_file(dir.path(), "a.png", 2048);
    let mut request = UploadRequest::search_input(UploadSource::Path(path));
    request.rm_if_dup = Some(true);
    request.category_id = Some(7);
    request.callback_param = Some("job 7".into());
    client(&server).upload(&request, None).await.unwrap();
    assert_eq!(
        server.only("PUT", "/api/FileBinary").query(),
        "file=.png&isSearchInput=true&categoryId=7&rmIfDup=true&callbackParam=job%207"
    );
    server.assert_clean();
}

#[tokio::test]
async fn a_refused_token_request_is_login_refused_for_401_too() {
    let server = WireServer::start();
    server.answer("POST", "/api/Token", 401, "");
    let mut client = ApiClient::new(&server.url()).unwrap();
    let error = client.login(&credentials(PASSWORD)).await.unwrap_err();
    assert!(
        matches!(error, ApiError::LoginRefused { status: 401, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("401"));
}

/// The checker itself: requests that break the spec are refused with 400 and recorded as violations,
/// so the clean runs above mean something.
#[tokio::test]
async fn the_checker_refuses_what_is_off_the_spec() {
    let server = WireServer::start();
    let file = server.add_database_file("Design/bracket.png", &[]);
    let http = partlens_api::client::plain_http_client();
    let base = server.url();
    let bearer = format!("Bearer {TOKEN}");
    let send = |method: reqwest::Method, target: String| {
        http.request(method, format!("{base}{target}"))
            .header("Authorization", bearer.as_str())
            .header("Accept", "application/json")
    };
    let cases: Vec<(&str, reqwest::RequestBuilder)> = vec![
        (
            "plain JSON array attribute body",
            send(
                reqwest::Method::PUT,
                format!("/api/FileAttributes?fileUID={file}"),
            )
            .header("Content-Type", "application/json")
            .body(r#"["material=steel"]"#),
        ),
        (
            "no Accept header",
            http.get(format!("{base}/api/FileAttributes"))
                .header("Authorization", bearer.as_str()),
        ),
        (
            "unencoded space and '=' in the query",
            send(
                reqwest::Method::GET,
                "/api/Search?filterStr=FT=pump%20housing".into(),
            ),
        ),
        (
            "filterStr that does not parse",
            send(
                reqwest::Method::GET,
                "/api/Search?filterStr=pump%20housing".into(),
            ),
        ),
        (
            "parameter the spec does not list",
            send(
                reqwest::Method::GET,
                format!("/api/File?fileUID={file}&verbose=true"),
            ),
        ),
        (
            "legacy parameter not asked for",
            send(
                reqwest::Method::PUT,
                "/api/FileBinary?file=.png&isPriority=true".into(),
            )
            .header("Content-Type", "application/octet-stream")
            .body(vec![1u8; 2048]),
        ),
        (
            "raw binary on PUT /api/File",
            send(reqwest::Method::PUT, "/api/File?file=.png".into())
                .header("Content-Type", "application/json")
                .body(vec![0x89u8; 2048]),
        ),
        (
            "base64 under 1024 characters",
            send(reqwest::Method::PUT, "/api/File?file=.png".into())
                .header("Content-Type", "application/json")
                .body(base64_file_body(&[1u8; 700])),
        ),
        (
            "binary under 1024 bytes",
            send(reqwest::Method::PUT, "/api/FileBinary?file=.png".into())
                .header("Content-Type", "application/octet-stream")
                .body(vec![1u8; 1000]),
        ),
        (
            "wrong Content-Type for a binary upload",
            send(reqwest::Method::PUT, "/api/FileBinary?file=.png".into())
                .header("Content-Type", "application/json")
                .body(vec![1u8; 2048]),
        ),
        (
            "eleven files in one search",
            send(
                reqwest::Method::PUT,
                "/api/Search?fileExtension=.png".into(),
            )
            .header("Content-Type", "application/json")
            .body(search_files_body(&vec![vec![1u8; 10]; 11])),
        ),
        (
            "a database path for a search input",
            send(
                reqwest::Method::PUT,
                "/api/FileBinary?file=Design%2Fa.png".into(),
            )
            .header("Content-Type", "application/octet-stream")
            .body(vec![1u8; 2048]),
        ),
        (
            "upper-case hex password",
            http.post(format!("{base}/api/Token"))
                .header("Accept", "application/json")
                .form(&[
                    ("grant_type", "password"),
                    ("client_id", CLIENT_ID),
                    ("username", USER),
                    ("password", &password_digest(PASSWORD).to_uppercase()),
                ]),
        ),
        (
            "plain password",
            http.post(format!("{base}/api/Token"))
                .header("Accept", "application/json")
                .form(&[
                    ("grant_type", "password"),
                    ("client_id", CLIENT_ID),
                    ("username", USER),
                    ("password", PASSWORD),
                ]),
        ),
        (
            "fileUID that is not a GUID",
            send(reqwest::Method::GET, "/api/FileStatus?fileUID=abc".into()),
        ),
        (
            "wrong method",
            send(reqwest::Method::POST, "/api/FileStatus".into()),
        ),
    ];
    for (index, (what, request)) in cases.into_iter().enumerate() {
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 400, "{what}");
        let recorded = server.requests()[index].clone();
        assert!(recorded.violation.is_some(), "{what} was not flagged");
    }
    // Paths are matched case-insensitively, as ASP.NET routes them.
    let response = send(reqwest::Method::GET, "/API/fileattributes".into())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert!(server.requests().last().unwrap().violation.is_none());
}

/// One call of every endpoint (with valid arguments), for the status-mapping matrix.
async fn call_endpoint(
    client: &ApiClient,
    endpoint: &str,
    file: &FileUid,
    upload: &std::path::Path,
) -> Result<(), ApiError> {
    let by_uid = FileRef::Uid(file.clone());
    let source = UploadSource::Path(upload.to_path_buf());
    let with_encoding = |encoding| {
        let mut request = UploadRequest::search_input(source.clone());
        request.encoding = encoding;
        request
    };
    match endpoint {
        "GET /api/File" => client
            .get_file(&GetFileRequest::new(by_uid))
            .await
            .map(drop),
        "DELETE /api/File" => client.delete_file(file, None).await,
        "GET /api/FileStatus" => client.file_status(file).await.map(drop),
        "GET /api/FileAttributes" => client.company_attributes().await.map(drop),
        "PUT /api/FileAttributes" => client
            .set_attribute_strings(&by_uid, &["a=b".into()], true)
            .await
            .map(drop),
        "DELETE /api/FileAttributes" => client.clear_attributes(file).await.map(drop),
        "GET /api/AttributeValues" => client.attribute_values("material").await.map(drop),
        "GET /api/PMIData" => client.pmi_data(file).await.map(drop),
        "PUT /api/ExtractedAttributeFeedback" => client
            .send_feedback(&FeedbackRequest {
                file_uid: Some(file.clone()),
                attributes: vec!["a=b".into()],
                ..Default::default()
            })
            .await
            .map(drop),
        "GET /api/Search" => client
            .search_json(&SearchRequest::new(SearchFilter::new().text("x")))
            .await
            .map(drop),
        "PUT /api/Search" => client
            .search_with_files_json(std::slice::from_ref(&source), &SearchFilter::new())
            .await
            .map(drop),
        "PUT /api/FileBinary" => client
            .upload(&with_encoding(UploadEncoding::Binary), None)
            .await
            .map(drop),
        "PUT /api/File" => client
            .upload(&with_encoding(UploadEncoding::Base64), None)
            .await
            .map(drop),
        "PUT /api/FileBinaryDirect" => client
            .upload(&with_encoding(UploadEncoding::Direct), None)
            .await
            .map(drop),
        other => panic!("no call for {other}"),
    }
}

#[tokio::test]
async fn every_endpoint_maps_statuses_and_dropped_connections_to_typed_errors() {
    let server = WireServer::start();
    let client = client(&server);
    let dir = tempfile::tempdir().unwrap();
    let upload = test_file(dir.path(), "view.png", 2048);
    let file = uid(&server.add_database_file("Design/bracket.png", &[]));
    let endpoints = [
        "GET /api/File",
        "DELETE /api/File",
        "GET /api/FileStatus",
        "GET /api/FileAttributes",
        "PUT /api/FileAttributes",
        "DELETE /api/FileAttributes",
        "GET /api/AttributeValues",
        "GET /api/PMIData",
        "PUT /api/ExtractedAttributeFeedback",
        "GET /api/Search",
        "PUT /api/Search",
        "PUT /api/FileBinary",
        "PUT /api/File",
        "PUT /api/FileBinaryDirect",
    ];
    for endpoint in endpoints {
        let (method, path) = endpoint.split_once(' ').unwrap();
        let outcomes = [
            (401, ""),
            (403, "false"),
            (404, r#"{"title":"Not Found","status":404,"detail":"gone"}"#),
            (
                400,
                r#"{"title":"Bad Request","status":400,"detail":"the reason"}"#,
            ),
            (500, "false"),
        ];
        for (status, body) in outcomes {
            server.clear_answers();
            server.answer(method, path, status, body);
            let result = call_endpoint(&client, endpoint, &file, &upload).await;
            let expected = match (status, endpoint) {
                // 404 is a state of FileStatus (unknown), not an error.
                (404, "GET /api/FileStatus") => result.is_ok(),
                (401, _) => result == Err(ApiError::Unauthorized),
                (403, _) => matches!(result, Err(ApiError::Forbidden { .. })),
                (404, _) => matches!(result, Err(ApiError::NotFound { .. })),
                (400, _) => matches!(
                    &result,
                    Err(ApiError::BadRequest { status: 400, message }) if message == "the reason"
                ),
                _ => matches!(result, Err(ApiError::Server { status: 500, .. })),
            };
            assert!(expected, "{endpoint} answering {status}: {result:?}");
        }
        server.clear_answers();
        server.drop_connections(method, path);
        let result = call_endpoint(&client, endpoint, &file, &upload).await;
        assert!(
            matches!(result, Err(ApiError::Network(_))),
            "{endpoint} dropped: {result:?}"
        );
        assert!(server.requests().last().unwrap().dropped, "{endpoint}");
    }
    server.clear_answers();
    server.assert_clean();
}
