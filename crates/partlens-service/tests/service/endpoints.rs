//! The local service endpoint by endpoint, over real HTTP on 127.0.0.1: every status and body the
//! spec names, the legacy encodings, the limits, and the image URLs with their own tokens.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::service as service_support;

use std::time::Duration;

use image::ImageFormat;
use partlens_api::encoding::{
    QueryString, base64_encode, double_encoded_strings, json_string_body, password_digest,
    search_files_body,
};
use partlens_api::{ApiClient, Credentials, FileStatus, FileUid, SearchFilter, SearchRequest};
use reqwest::Method;
use service_support::{PASSWORD, Shape, TestService, encode, part_image, png, wait_until};

const UNKNOWN_UID: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

async fn token_reply(
    service: &TestService,
    path: &str,
    form: &[(&str, &str)],
) -> (u16, serde_json::Value) {
    let response = partlens_api::client::plain_http_client()
        .post(service.url(path))
        .form(form)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_is_issued_for_the_password_grant_and_refused_otherwise() {
    let service = TestService::start().await;
    let digest = password_digest(PASSWORD);
    let good = [
        ("grant_type", "password"),
        ("client_id", "partlens"),
        ("username", "ann"),
        ("password", digest.as_str()),
    ];
    for path in [
        "/api/Token",
        "/api/token",
        "/API/TOKEN",
        "/Token",
        "/api/Token/",
    ] {
        let (status, body) = token_reply(&service, path, &good).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(body["access_token"].as_str().unwrap().len(), 64);
        assert_eq!(body["token_type"], "bearer");
        assert_eq!(body["expires_in"], 12 * 60 * 60);
    }
    let wrong_password = password_digest("wrong");
    let (status, body) = token_reply(
        &service,
        "/api/Token",
        &[
            good[0],
            good[1],
            good[2],
            ("password", wrong_password.as_str()),
        ],
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    assert_eq!(
        body["error_description"],
        "The user name or password is incorrect."
    );
    let (status, body) = token_reply(
        &service,
        "/api/Token",
        &[good[0], good[1], ("username", "nobody"), good[3]],
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    let (status, body) = token_reply(
        &service,
        "/api/Token",
        &[good[0], ("client_id", "other-app"), good[2], good[3]],
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_client"))
    );
    let (status, body) = token_reply(
        &service,
        "/api/Token",
        &[("grant_type", "client_credentials"), good[1]],
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("unsupported_grant_type"))
    );

    // A client registered while the service runs is accepted at once.
    service.add_client("other-app").await;
    let (status, _) = token_reply(
        &service,
        "/api/Token",
        &[good[0], ("client_id", "other-app"), good[2], good[3]],
    )
    .await;
    assert_eq!(status, 200);

    // The client layer logs in against it as well.
    let mut client = ApiClient::new(&service.base).unwrap();
    let reply = client
        .login(&Credentials {
            client_id: "partlens".into(),
            username: "ANN".into(),
            password: PASSWORD.into(),
        })
        .await
        .unwrap();
    assert_eq!(reply.token_type.as_deref(), Some("bearer"));

    // At rest the store (the data directory's files; on PostgreSQL every row of the users and
    // tokens) holds neither a token nor the password or its digest.
    let token = service.session("ann").await.token.unwrap();
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(service.dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            stored.extend(std::fs::read(path).unwrap());
        }
    }
    if service.database.is_some() {
        let rows = service.query_text(
            "SELECT (SELECT string_agg(u::text, ' ') FROM users u) || ' ' || \
             (SELECT string_agg(t::text, ' ') FROM tokens t)",
        );
        stored.extend(rows.unwrap_or_default().into_bytes());
    }
    let stored = String::from_utf8_lossy(&stored).to_lowercase();
    assert!(stored.contains("$argon2"), "the store was not read");
    for secret in [token.as_str(), digest.as_str(), PASSWORD] {
        assert!(
            !stored.contains(&secret.to_lowercase()),
            "{secret} is stored"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_but_token_needs_a_valid_token_and_401_has_an_empty_body() {
    let service =
        TestService::start_with(|config| config.token_lifetime = Duration::from_secs(4)).await;
    let endpoints = [
        (
            Method::GET,
            "/api/File?fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ),
        (Method::PUT, "/api/File?file=.png"),
        (
            Method::DELETE,
            "/api/File?fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ),
        (Method::PUT, "/api/FileBinary?file=.png"),
        (Method::PUT, "/api/FileBinaryDirect?file=.png"),
        (
            Method::GET,
            "/api/FileStatus?fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ),
        (Method::GET, "/api/FileAttributes"),
        (
            Method::PUT,
            "/api/FileAttributes?fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ),
        (
            Method::DELETE,
            "/api/FileAttributes?fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ),
        (Method::GET, "/api/AttributeValues?attribute=material"),
        (
            Method::GET,
            "/api/PMIData?fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ),
        (
            Method::PUT,
            "/api/ExtractedAttributeFeedback?fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        ),
        (Method::GET, "/api/Search?filterStr=FT%3Dx"),
        (Method::PUT, "/api/Search?fileExtension=.png"),
    ];
    for token in [None, Some("not-a-token")] {
        let caller = service.anonymous(token);
        for (method, path) in &endpoints {
            let reply = caller
                .send(
                    method.clone(),
                    path,
                    Some("application/json"),
                    Some("\"x\"".into()),
                )
                .await;
            assert_eq!(reply.status, 401, "{method} {path} with {token:?}");
            assert!(reply.body.is_empty(), "{method} {path}: {}", reply.text());
        }
    }
    // A token works, then expires after its lifetime. It is issued just before the first check so
    // that a loaded machine does not eat its lifetime first.
    let session = service.session("ann").await;
    assert_eq!(session.get("/api/FileAttributes").await.status, 200);
    wait_until(Duration::from_secs(20), "the token to expire", || async {
        (session.get("/api/FileAttributes").await.status == 401).then_some(())
    })
    .await;
    let reply = session.get("/api/FileAttributes").await;
    assert!(reply.body.is_empty());
    // A lower-case `bearer` scheme is accepted.
    let fresh = service.session("ann").await;
    let reply = fresh
        .http
        .get(service.url("/api/FileAttributes"))
        .header(
            "Authorization",
            format!("bearer {}", fresh.token.as_deref().unwrap()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_records_are_found_by_uid_and_by_name() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file(
            "Design/Brackets/L-bracket.png",
            png(Shape::Bracket, 1),
            &[
                ("document_number", "AX-1000"),
                ("region", "EU|US"),
                ("weight(kg)", "12.3"),
            ],
        )
        .await;
    assert!(FileUid::parse(&uid).unwrap().is_guid());
    let by_uid = ann
        .get(&format!("/api/File?fileUID={}", uid.to_uppercase()))
        .await;
    by_uid.expect(200);
    let record = by_uid.json();
    assert_eq!(record["UID"], uid.as_str());
    assert_eq!(record["FileName"], "Design/Brackets/L-bracket.png");
    assert_eq!(record["DisplayName"], "L-bracket.png");
    assert_eq!(
        record["Attributes"],
        serde_json::json!(["document_number=AX-1000", "region=EU|US", "weight(kg)=12.3"])
    );
    assert_eq!(record["IndexingFinished"], true);
    assert_eq!(record["HasThumbnail"], true);
    assert!(FileUid::parse(record["VizSpaceID"].as_str().unwrap()).is_ok());
    for field in ["ExtractedAttributes", "AssemblyParents", "AssemblyChildren"] {
        assert!(record[field].is_array(), "{field}");
    }
    assert_eq!(record["PDFUrl"], "");
    assert!(
        record["ThumbNailURLFromID"]
            .as_str()
            .unwrap()
            .starts_with(&service.url("/api/Image?fid="))
    );

    let by_name = ann
        .get("/api/File?fileName=design%2Fbrackets%2FL-bracket.png")
        .await;
    by_name.expect(200);
    assert_eq!(by_name.json()["UID"], uid.as_str());
    // fileUID wins over fileName.
    let both = ann
        .get(&format!(
            "/api/File?fileUID={UNKNOWN_UID}&fileName=Design%2FBrackets%2FL-bracket.png"
        ))
        .await;
    both.expect(404);
    assert_eq!(both.json()["status"], 404);
    assert!(both.json()["title"].is_string());
    ann.get(&format!("/api/File?fileUID={UNKNOWN_UID}"))
        .await
        .expect(404);
    ann.get("/api/File?fileName=Design%2Fnothing.png")
        .await
        .expect(404);
    ann.get("/api/File?fileUID=not-a-guid").await.expect(400);
    ann.get("/api/File").await.expect(400);
    // A file is found by the name it was uploaded with, however its separators were written.
    let windows = ann
        .upload_database_file("Design\\Sub//clip.png", png(Shape::Disc, 2), &[])
        .await;
    let record = ann
        .get("/api/File?fileName=Design%5CSub%2F%2Fclip.png")
        .await;
    record.expect(200);
    assert_eq!(record.json()["UID"], windows.as_str());
    assert_eq!(record.json()["FileName"], "Design/Sub/clip.png");
    ann.put_json(
        "/api/FileAttributes?fileName=Design%5CSub%2F%2Fclip.png",
        double_encoded_strings(&["material=steel".into()]),
    )
    .await
    .expect(200);
    ann.get("/api/File?fileName=..%2Fclip.png")
        .await
        .expect(404);

    // The client layer reads the same record.
    let client = ApiClient::new(&service.base)
        .unwrap()
        .with_token(ann.token.clone().map(partlens_api::AccessToken::new));
    let map = client
        .get_file(&partlens_api::GetFileRequest::new(
            partlens_api::FileRef::Uid(FileUid::parse(&uid).unwrap()),
        ))
        .await
        .unwrap();
    assert_eq!(map.parsed_attributes()[1].values, vec!["EU", "US"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_file_takes_a_json_string_of_base64_of_at_least_1024_characters() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let picture = png(Shape::Disc, 1);
    let reply = ann
        .put_json(
            "/api/File?file=.png",
            json_string_body(&base64_encode(&picture)),
        )
        .await;
    reply.expect(200);
    let uid = reply.string();
    ann.get(&format!("/api/FileStatus?fileUID={uid}"))
        .await
        .expect(200);

    // 765 bytes are 1020 base64 characters: refused. 766 bytes are 1024: accepted (a .step is stored).
    let short = ann
        .put_json(
            "/api/File?file=.step",
            json_string_body(&base64_encode(&[7u8; 765])),
        )
        .await;
    short.expect(400);
    assert!(short.json()["detail"].as_str().unwrap().contains("1024"));
    ann.put_json(
        "/api/File?file=.step",
        json_string_body(&base64_encode(&[7u8; 766])),
    )
    .await
    .expect(200);
    // Raw binary, a plain array, broken base64: 400.
    let raw = ann
        .send(
            Method::PUT,
            "/api/File?file=.png",
            Some("application/json"),
            Some(picture.clone().into()),
        )
        .await;
    raw.expect(400);
    assert!(raw.text().contains("FileBinary"), "{}", raw.text());
    ann.put_json(
        "/api/File?file=.png",
        format!("[\"{}\"]", base64_encode(&picture)),
    )
    .await
    .expect(400);
    ann.put_json("/api/File?file=.png", format!("\"{}!!\"", "A".repeat(2000)))
        .await
        .expect(400);
    // Missing `file`: 400. Legacy parameters are accepted.
    ann.put_json("/api/File", base64_encode(&picture))
        .await
        .expect(400);
    ann.put_json(
        "/api/File?file=.png&rmIfDup=true&isPriority=true&textOnly=false&categoryId=3&QRCodeId=q&attrTemplate=t",
        json_string_body(&base64_encode(&picture)),
    )
    .await
    .expect(200);
}

/// `PUT /api/File` and `PUT /api/Search` read base64 alike: padded or not at the very end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_file_and_put_search_read_base64_with_or_without_its_padding() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let picture = (1..)
        .map(|seed| png(Shape::Bracket, seed))
        .find(|picture| picture.len() % 3 != 0)
        .unwrap();
    let padded = base64_encode(&picture);
    let unpadded = padded.trim_end_matches('=').to_owned();
    assert_ne!(padded, unpadded);
    for text in [&padded, &unpadded] {
        let file = ann
            .put_json("/api/File?file=.png", json_string_body(text))
            .await;
        file.expect(200);
        ann.get(&format!("/api/FileStatus?fileUID={}", file.string()))
            .await
            .expect(200);
        ann.put_json(
            "/api/Search?fileExtension=.png",
            double_encoded_strings(std::slice::from_ref(text)),
        )
        .await
        .expect(200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_uploads_enforce_the_limits() {
    let service = TestService::start_with(|config| config.max_body_bytes = 64 * 1024).await;
    let ann = service.session("ann").await;
    let picture = png(Shape::Disc, 2);
    assert!(picture.len() < 64 * 1024);
    let uid = ann
        .put_binary("/api/FileBinary?file=.png", picture.clone())
        .await;
    uid.expect(200);
    ann.put_binary("/api/FileBinary?file=.png", vec![1u8; 1023])
        .await
        .expect(400);
    ann.put_binary("/api/FileBinary?file=.bin", vec![1u8; 1024])
        .await
        .expect(200);
    ann.put_binary("/api/FileBinary?file=.zip&indexAsync=true", vec![1u8; 4096])
        .await
        .expect(400);
    // A .zip is read as what it holds (zip_upload.rs): bytes that are no archive are refused.
    ann.put_binary("/api/FileBinary?file=.zip", vec![1u8; 4096])
        .await
        .expect(400);
    // Over the limit: refused on the declared length, and while streaming when none is declared.
    let too_big = ann
        .put_binary("/api/FileBinary?file=.png", vec![0u8; 100 * 1024])
        .await;
    too_big.expect(413);
    // The unread rest of the body is on the connection: the client is told not to reuse it.
    assert_eq!(too_big.header("connection").as_deref(), Some("close"));
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..10).map(|_| Ok(vec![0u8; 16 * 1024])).collect();
    let streamed = ann
        .send(
            Method::PUT,
            "/api/FileBinary?file=.png",
            Some("application/octet-stream"),
            Some(reqwest::Body::wrap_stream(futures_util::stream::iter(
                chunks,
            ))),
        )
        .await;
    streamed.expect(413);
    // Stored paths that escape their folder, bad UIDs.
    for path in [
        "..%2Fx.png",
        "a%2F..%2F..%2Fx.png",
        "%2Fetc%2Fx.png",
        "C%3A%5Cx.png",
        "a%5C..%5Cx.png",
        "Design%2F",
    ] {
        ann.put_binary(
            &format!("/api/FileBinary?file={path}&isSearchInput=false"),
            picture.clone(),
        )
        .await
        .expect(400);
    }
    ann.put_binary("/api/FileBinary?file=.png&uid=12345", picture.clone())
        .await
        .expect(400);
    // A chosen UID is used, and a second upload with it overwrites the file.
    let chosen = "9a1b2c3d-4f89-41d3-9a0c-0305e82c3302";
    let first = ann
        .put_binary(
            &format!("/api/FileBinary?file=.png&uid={chosen}"),
            picture.clone(),
        )
        .await;
    assert_eq!(first.string(), chosen);
    let again = ann
        .put_binary(
            &format!("/api/FileBinary?file=.png&uid={}", chosen.to_uppercase()),
            png(Shape::Bracket, 3),
        )
        .await;
    assert_eq!(again.string(), chosen);
    // Duplicate stored paths: replaced in place by default, refused with overwriteFile=false.
    let original = ann
        .upload_database_file("Design/disc.png", picture.clone(), &[("material", "steel")])
        .await;
    let replaced = ann
        .upload_database_file("design/DISC.png", png(Shape::Disc, 4), &[])
        .await;
    assert_eq!(replaced, original);
    let record = ann
        .get(&format!("/api/File?fileUID={original}"))
        .await
        .json();
    assert_eq!(
        record["Attributes"],
        serde_json::json!(["material=steel"]),
        "attributes kept"
    );
    let refused = ann
        .put_binary(
            "/api/FileBinary?file=Design%2Fdisc.png&isSearchInput=false&overwriteFile=false",
            picture,
        )
        .await;
    refused.expect(400);
    assert!(refused.text().contains("overwriteFile"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_with_a_body_refuses_an_oversized_one() {
    let service = TestService::start_with(|config| config.max_body_bytes = 64 * 1024).await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Limits/part.png", png(Shape::Disc, 90), &[])
        .await;
    // Valid bodies of each kind, just too big: a JSON string of 100 KiB.
    let too_big = json_string_body(&"A".repeat(100 * 1024));
    let attributes_too_big = double_encoded_strings(&[format!("note={}", "n".repeat(100 * 1024))]);
    let endpoints = [
        ("/api/File?file=.png".to_owned(), too_big.clone()),
        ("/api/FileBinary?file=.png".to_owned(), too_big.clone()),
        (
            "/api/FileBinaryDirect?file=.png".to_owned(),
            too_big.clone(),
        ),
        (
            format!("/api/FileAttributes?fileUID={uid}"),
            attributes_too_big.clone(),
        ),
        (
            format!("/api/ExtractedAttributeFeedback?fileUID={uid}"),
            json_string_body(&format!("a={}", "b".repeat(100 * 1024))),
        ),
        (
            "/api/Search?fileExtension=.png".to_owned(),
            search_files_body(&[vec![7u8; 80 * 1024]]),
        ),
    ];
    for (path, body) in &endpoints {
        // Declared with Content-Length, and streamed without one.
        let declared = ann.put_json(path, body.clone()).await;
        declared.expect(413);
        assert_eq!(
            declared.header("connection").as_deref(),
            Some("close"),
            "{path}"
        );
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> = body
            .as_bytes()
            .chunks(8 * 1024)
            .map(|chunk| Ok(chunk.to_vec()))
            .collect();
        let streamed = ann
            .send(
                Method::PUT,
                path,
                Some("application/json"),
                Some(reqwest::Body::wrap_stream(futures_util::stream::iter(
                    chunks,
                ))),
            )
            .await;
        assert_eq!(streamed.status, 413, "{path} streamed: {}", streamed.text());
    }
    // The token form has its own small limit.
    let form = format!(
        "grant_type=password&client_id=partlens&username=ann&password={}",
        "0".repeat(20 * 1024)
    );
    let reply = partlens_api::client::plain_http_client()
        .post(service.url("/api/Token"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 413);
    // The file and its attributes are as they were.
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
    assert_eq!(record["Attributes"], serde_json::json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attribute_lists_have_their_own_body_limit() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Limits/part.png", png(Shape::Disc, 91), &[])
        .await;
    // Far below the upload limit, far above any real attribute list: refused without being kept.
    let long = double_encoded_strings(&[format!("note={}", "n".repeat(2 * 1024 * 1024))]);
    ann.put_json(&format!("/api/FileAttributes?fileUID={uid}"), long)
        .await
        .expect(413);
    let normal = double_encoded_strings(&[format!("note={}", "n".repeat(64 * 1024))]);
    ann.put_json(&format!("/api/FileAttributes?fileUID={uid}"), normal)
        .await
        .expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_optional_parameters_of_uploads_and_records_are_accepted() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let picture = png(Shape::Disc, 95);
    let mut gzipped = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gzipped, &picture).unwrap();
    let gzipped = gzipped.finish().unwrap();
    // isGZipCompressed: the bytes are unpacked before they are stored and indexed, on both bodies.
    let binary = ann
        .put_binary(
            "/api/FileBinary?file=Gz%2Fdisc.png&isSearchInput=false&isGZipCompressed=true",
            gzipped.clone(),
        )
        .await;
    binary.expect(200);
    let uid = binary.string();
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
    assert_eq!(record["IndexingFinished"], true);
    assert_eq!(record["HasThumbnail"], true);
    let stored = std::fs::read(service.dir.path().join("files").join(&uid)).unwrap();
    assert_eq!(stored, picture);
    let input = ann
        .put_json(
            "/api/File?file=.png&isGZipCompressed=true&callbackParam=job-7&indexAssemblyComponents=true&accountName=acme",
            json_string_body(&base64_encode(&gzipped)),
        )
        .await;
    input.expect(200);
    ann.get(&format!("/api/FileStatus?fileUID={}", input.string()))
        .await
        .expect(200);
    // Bytes that are not gzip, although the upload says so: 400.
    let refused = ann
        .put_binary(
            "/api/FileBinary?file=.png&isGZipCompressed=true",
            picture.clone(),
        )
        .await;
    refused.expect(400);
    assert!(refused.text().contains("gzip"), "{}", refused.text());
    // GET /api/File takes its optional parameters (a picture is one page: pages.rs has the rest).
    let detailed = ann
        .get(&format!(
            "/api/File?fileUID={uid}&includeShapelets=true&lgFileNumber=1&includeShapes=false&accountName=acme"
        ))
        .await;
    detailed.expect(200);
    assert_eq!(detailed.json()["UID"], uid.as_str());
    assert_eq!(detailed.json()["Pages"], serde_json::json!([]));
    // PUT /api/FileBinaryDirect takes its own.
    let direct = ann
        .put_binary(
            "/api/FileBinaryDirect?file=.png&includeShapelets=true&lgFileNumber=1&includeShapes=false",
            picture.clone(),
        )
        .await;
    direct.expect(200);
    assert_eq!(direct.json()["IndexingFinished"], true);
    // overwriteFile=true replaces the file at the same path in place.
    let replaced = ann
        .put_binary(
            "/api/FileBinary?file=gz%2FDISC.png&isSearchInput=false&overwriteFile=true",
            png(Shape::Bracket, 96),
        )
        .await;
    replaced.expect(200);
    assert_eq!(replaced.string(), uid);
    // DELETE /api/File takes accountName.
    let deleted = ann
        .delete(&format!(
            "/api/File?fileUID={}&accountName=acme",
            input.string()
        ))
        .await;
    deleted.expect(200);
    // GET /api/Version needs no token.
    let version = service.anonymous(None).get("/api/Version").await;
    version.expect(200);
    assert!(version.json()["apiVersion"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_direct_returns_the_indexed_record_and_formats_are_indexed() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let picture = part_image(Shape::HorizontalBar, 5);
    for (format, extension) in [
        (ImageFormat::Png, "png"),
        (ImageFormat::Jpeg, "jpg"),
        (ImageFormat::Bmp, "bmp"),
        (ImageFormat::Tiff, "tiff"),
        (ImageFormat::WebP, "webp"),
    ] {
        let reply = ann
            .put_binary(
                &format!("/api/FileBinaryDirect?file=Formats%2Fbar.{extension}&isSearchInput=false&indexAsync=true"),
                encode(&picture, format),
            )
            .await;
        reply.expect(200);
        let record = reply.json();
        assert_eq!(
            record["FileName"],
            format!("Formats/bar.{extension}"),
            "{extension}"
        );
        assert_eq!(record["IndexingFinished"], true, "{extension}");
        assert_eq!(record["HasThumbnail"], true, "{extension}");
        let thumbnail = partlens_api::client::plain_http_client()
            .get(record["ThumbNailURLFromID"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(thumbnail.status(), 200, "{extension}");
    }
    // A format the service does not read (DWG) is stored and has empty image URLs.
    let reply = ann
        .put_binary(
            "/api/FileBinaryDirect?file=Drawings%2Fpart.dwg&isSearchInput=false",
            b"AC1032 drawing\n".repeat(100),
        )
        .await;
    reply.expect(200);
    let record = reply.json();
    assert_eq!(record["IndexingFinished"], true);
    assert_eq!(record["HasThumbnail"], false);
    assert_eq!(record["ThumbNailURLFromID"], "");
    assert_eq!(record["PNGURLFromID"], "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_status_reports_every_state_without_caching() {
    let service = TestService::start_with(|config| config.index_workers = 0).await;
    let ann = service.session("ann").await;
    let status = |uid: String| {
        let ann = ann.clone();
        async move {
            let reply = ann.get(&format!("/api/FileStatus?fileUID={uid}")).await;
            assert_eq!(
                reply.header("cache-control").as_deref(),
                Some("no-store"),
                "{}",
                reply.status
            );
            reply
        }
    };
    let queued = ann
        .upload_search_input(".png", &png(Shape::Disc, 6), true)
        .await;
    let reply = status(queued.clone()).await;
    reply.expect(204);
    assert!(reply.body.is_empty());
    let done = ann
        .upload_search_input(".png", &png(Shape::Disc, 7), false)
        .await;
    let reply = status(done.clone()).await;
    reply.expect(200);
    let timestamp = reply.string();
    assert!(
        chrono::DateTime::parse_from_rfc3339(&timestamp).is_ok(),
        "{timestamp}"
    );
    let broken = ann
        .upload_search_input(".png", &[0x42u8; 2000], false)
        .await;
    let reply = status(broken.clone()).await;
    reply.expect(422);
    assert_eq!(reply.text(), "failed");
    // Why, in words: a header beside the spec's body, and a field of the file's record.
    let reason = reply.header("x-failure-reason").unwrap();
    assert!(
        reason.starts_with("cannot decode the .png content"),
        "{reason}"
    );
    let record = ann.get(&format!("/api/File?fileUID={broken}")).await.json();
    assert_eq!(record["IndexingFinished"], false);
    assert_eq!(record["IndexingError"], reason.as_str());
    let indexed = ann.get(&format!("/api/File?fileUID={done}")).await.json();
    assert!(indexed.get("IndexingError").is_none());
    let reply = status(UNKNOWN_UID.to_owned()).await;
    reply.expect(404);
    assert_eq!(reply.json()["status"], 404);
    let reply = ann.get("/api/FileStatus").await;
    reply.expect(400);
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    let reply = service
        .anonymous(None)
        .get(&format!("/api/FileStatus?fileUID={queued}"))
        .await;
    reply.expect(401);
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));

    // The client layer reads the same states.
    let client = ApiClient::new(&service.base)
        .unwrap()
        .with_token(ann.token.clone().map(partlens_api::AccessToken::new));
    assert_eq!(
        client
            .file_status(&FileUid::parse(&queued).unwrap())
            .await
            .unwrap(),
        FileStatus::InProgress
    );
    assert_eq!(
        client
            .file_status(&FileUid::parse(&broken).unwrap())
            .await
            .unwrap(),
        FileStatus::Failed {
            reason: Some(reason)
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attributes_are_replaced_added_cleared_listed_and_counted() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let first = ann
        .upload_database_file("Parts/a.png", png(Shape::Disc, 8), &[("Material", "steel")])
        .await;
    let second = ann
        .upload_database_file("Parts/b.png", png(Shape::Bracket, 9), &[])
        .await;
    let attributes_of = |uid: String| {
        let ann = ann.clone();
        async move { ann.get(&format!("/api/File?fileUID={uid}")).await.json()["Attributes"].clone() }
    };
    let body = double_encoded_strings(&["region=EU|US".into(), "weight(kg)=12.3".into()]);
    let reply = ann
        .put_json(
            &format!("/api/FileAttributes?fileUID={first}"),
            body.clone(),
        )
        .await;
    reply.expect(200);
    assert_eq!(reply.json(), serde_json::json!(true));
    assert_eq!(
        attributes_of(first.clone()).await,
        serde_json::json!(["region=EU|US", "weight(kg)=12.3"])
    );
    // deleteExisting=false adds and replaces by name; fileName is resolved to the UID.
    let add = double_encoded_strings(&["material=brass".into(), "REGION=EU|APAC".into()]);
    ann.put_json(
        "/api/FileAttributes?fileName=Parts%2Fa.png&deleteExisting=false",
        add,
    )
    .await
    .expect(200);
    assert_eq!(
        attributes_of(first.clone()).await,
        serde_json::json!(["REGION=EU|APAC", "weight(kg)=12.3", "material=brass"])
    );
    ann.put_json(
        &format!("/api/FileAttributes?fileUID={second}"),
        double_encoded_strings(&["region=EU".into(), "material=Brass".into()]),
    )
    .await
    .expect(200);
    // A plain array, a bad attribute, no file, an unknown file: refused.
    ann.put_json(
        &format!("/api/FileAttributes?fileUID={first}"),
        "[\"material=steel\"]",
    )
    .await
    .expect(400);
    ann.put_json(
        &format!("/api/FileAttributes?fileUID={first}"),
        double_encoded_strings(&["no equals".into()]),
    )
    .await
    .expect(400);
    ann.put_json("/api/FileAttributes", body.clone())
        .await
        .expect(400);
    ann.put_json(&format!("/api/FileAttributes?fileUID={UNKNOWN_UID}"), body)
        .await
        .expect(404);

    // The company's attribute names, with stable IDs: those saved (custom), beside those the
    // service extracted from the pictures (not custom).
    let list = ann.get("/api/FileAttributes").await;
    list.expect(200);
    let list = list.json();
    let names: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["IsCustom"] == true)
        .map(|item| {
            (
                item["Name"].as_str().unwrap(),
                item["Unit"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![("Material", ""), ("region", ""), ("weight", "kg")]
    );
    for item in list.as_array().unwrap() {
        assert!(item["ID"].is_i64());
        assert!(
            item["Value"].is_null() || item["Value"].is_string(),
            "{item}"
        );
        assert!(item["Timestamp"].is_string(), "{item}");
        if item["IsCustom"] == false {
            assert!(item["Value"].is_null(), "an extracted name: {item}");
        }
    }
    assert_eq!(
        ann.get("/api/FileAttributes").await.json(),
        list,
        "IDs are stable"
    );

    // Values: the name in any case; each value of a multi-valued attribute counted.
    let values = ann.get("/api/AttributeValues?attribute=REGION").await;
    values.expect(200);
    assert_eq!(
        values.json(),
        serde_json::json!([{"Name": "EU", "Count": 2}, {"Name": "APAC", "Count": 1}])
    );
    let units = ann
        .get("/api/AttributeValues?attribute=weight(kg)")
        .await
        .json();
    assert_eq!(units, serde_json::json!([{"Name": "12.3", "Count": 1}]));
    assert_eq!(
        ann.get("/api/AttributeValues?attribute=unknown")
            .await
            .json(),
        serde_json::json!([])
    );
    ann.get("/api/AttributeValues").await.expect(400);

    // DELETE removes them all.
    let cleared = ann
        .delete(&format!("/api/FileAttributes?fileUID={first}"))
        .await;
    cleared.expect(200);
    assert_eq!(cleared.json(), serde_json::json!(true));
    assert_eq!(attributes_of(first).await, serde_json::json!([]));
    ann.delete(&format!("/api/FileAttributes?fileUID={UNKNOWN_UID}"))
        .await
        .expect(404);
    ann.delete("/api/FileAttributes").await.expect(400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pmi_data_and_feedback() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Drawings/d.png", png(Shape::Bracket, 10), &[])
        .await;
    let reply = ann.get(&format!("/api/PMIData?fileUID={uid}")).await;
    reply.expect(200);
    let pmi = reply.json();
    let pages: serde_json::Value =
        serde_json::from_str(pmi["PMI"].as_str().expect("PMI is a string")).unwrap();
    assert!(pages.is_array());
    assert!(pmi["UnstructuredText"].is_string());
    assert!(pmi["ExtractedAttributes"].is_array());
    ann.get(&format!("/api/PMIData?fileUID={UNKNOWN_UID}"))
        .await
        .expect(404);
    ann.get("/api/PMIData").await.expect(400);

    let with_text = ann
        .put_json(
            &format!("/api/ExtractedAttributeFeedback?fileUID={uid}&feedback=width%20is%20wrong&user=u-17"),
            "\"width_px=128,height_px=64\"",
        )
        .await;
    with_text.expect(200);
    let first_id = with_text.string();
    assert!(FileUid::parse(&first_id).is_ok());
    let without = ann
        .put_json(
            &format!("/api/ExtractedAttributeFeedback?fileUID={uid}"),
            "\"width_px=128\"",
        )
        .await;
    without.expect(200);
    let second_id = without.string();
    let chosen = "5b3a7a8e-2f6e-4c1a-9d2e-8f0a1b2c3d4e";
    let reply = ann
        .put_json(
            &format!("/api/ExtractedAttributeFeedback?fileUID={uid}&feedbackId={chosen}"),
            "\"\"",
        )
        .await;
    assert_eq!(reply.string(), chosen);
    ann.put_json(
        &format!(
            "/api/ExtractedAttributeFeedback?fileUID={uid}&feedback={}",
            "x".repeat(301)
        ),
        "\"a=b\"",
    )
    .await
    .expect(400);
    ann.put_json(
        &format!(
            "/api/ExtractedAttributeFeedback?fileUID={uid}&feedback={}",
            "x".repeat(300)
        ),
        "\"a=b\"",
    )
    .await
    .expect(200);
    ann.put_json(
        &format!(
            "/api/ExtractedAttributeFeedback?fileUID={uid}&user={}",
            "u".repeat(101)
        ),
        "\"a=b\"",
    )
    .await
    .expect(400);
    ann.put_json(
        &format!("/api/ExtractedAttributeFeedback?fileUID={UNKNOWN_UID}"),
        "\"a=b\"",
    )
    .await
    .expect(404);
    ann.put_json("/api/ExtractedAttributeFeedback", "\"a=b\"")
        .await
        .expect(400);

    // What was stored, read straight from the store.
    let stored: Vec<(String, String, String)> = [first_id, second_id]
        .iter()
        .map(|id| {
            let row = service.query_row(&format!(
                "SELECT feedback, external_user, attributes FROM feedback WHERE id = '{id}'"
            ));
            let text = |at: usize| row[at].clone().unwrap();
            (text(0), text(1), text(2))
        })
        .collect();
    assert_eq!(
        stored[0],
        (
            "width is wrong".into(),
            "u-17".into(),
            "[\"width_px=128\",\"height_px=64\"]".into()
        )
    );
    assert_eq!(
        stored[1],
        (String::new(), String::new(), "[\"width_px=128\"]".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_urls_carry_their_own_short_lived_token() {
    let service =
        TestService::start_with(|config| config.image_token_lifetime = Duration::from_secs(2))
            .await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 11), &[])
        .await;
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
    let thumbnail_url = record["ThumbNailURLFromID"].as_str().unwrap().to_owned();
    let large_url = record["PNGURLFromID"].as_str().unwrap().to_owned();
    assert!(thumbnail_url.contains("type=0") && thumbnail_url.contains("token="));
    assert!(large_url.contains("type=1"));
    // No bearer token needed.
    let http = partlens_api::client::plain_http_client();
    let thumbnail = http.get(&thumbnail_url).send().await.unwrap();
    assert_eq!(thumbnail.status(), 200);
    assert_eq!(thumbnail.headers()["content-type"], "image/jpeg");
    let decoded = image::load_from_memory(&thumbnail.bytes().await.unwrap()).unwrap();
    assert!(decoded.width() > 0);
    let large = http.get(&large_url).send().await.unwrap();
    assert_eq!(large.headers()["content-type"], "image/png");
    assert_eq!(
        image::load_from_memory(&large.bytes().await.unwrap())
            .unwrap()
            .width(),
        128
    );
    // Tampered: another file, another type, a changed signature or expiry.
    let (before, token) = thumbnail_url.split_once("token=").unwrap();
    let (expiry, signature) = token.split_once('.').unwrap();
    let flipped = if signature.starts_with('0') { "1" } else { "0" };
    for url in [
        thumbnail_url.replace(&uid, UNKNOWN_UID),
        thumbnail_url.replace("type=0", "type=1"),
        format!("{before}token={expiry}.{flipped}{}", &signature[1..]),
        format!(
            "{before}token={}.{signature}",
            expiry.parse::<i64>().unwrap() + 1000
        ),
        before.trim_end_matches('&').to_owned(),
    ] {
        let reply = http.get(&url).send().await.unwrap();
        assert_eq!(reply.status(), 401, "{url}");
        assert!(reply.bytes().await.unwrap().is_empty());
    }
    // Expired.
    wait_until(
        Duration::from_secs(10),
        "the image token to expire",
        || async { (http.get(&thumbnail_url).send().await.unwrap().status() == 401).then_some(()) },
    )
    .await;
    // The client layer fetches a fresh URL as given.
    let client = ApiClient::new(&service.base).unwrap();
    let fresh = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
    let bytes = client
        .fetch_image(fresh["ThumbNailURLFromID"].as_str().unwrap())
        .await
        .unwrap();
    assert!(image::load_from_memory(&bytes).is_ok());
}

/// A small company database for the search tests.
struct Catalogue {
    disc: String,
    disc_twin: String,
    horizontal: String,
    vertical: String,
    bracket: String,
}

async fn catalogue(ann: &service_support::Session) -> Catalogue {
    Catalogue {
        disc: ann
            .upload_database_file(
                "Catalogue/pump housing.png",
                png(Shape::Disc, 20),
                &[
                    ("document_number", "AX-1000"),
                    ("region", "EU|US"),
                    ("material", "Stainless Steel"),
                ],
            )
            .await,
        disc_twin: ann
            .upload_database_file(
                "Catalogue/housing cover.png",
                png(Shape::Disc, 21),
                &[
                    ("document_number", "AX-1001"),
                    ("region", "APAC"),
                    ("material", "Brass"),
                ],
            )
            .await,
        horizontal: ann
            .upload_database_file(
                "Catalogue/flat bar.png",
                png(Shape::HorizontalBar, 22),
                &[
                    ("document_number", "BX-2000"),
                    ("region", "US"),
                    ("weight(kg)", "12.3"),
                ],
            )
            .await,
        vertical: ann
            .upload_database_file(
                "Catalogue/post.png",
                png(Shape::VerticalBar, 23),
                &[("document_number", "BX-2001"), ("material", "Steel")],
            )
            .await,
        bracket: ann
            .upload_database_file(
                "Catalogue/angle bracket.png",
                png(Shape::Bracket, 24),
                &[("document_number", "CX-3000"), ("region", "EU")],
            )
            .await,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_by_text_and_metadata_terms() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let parts = catalogue(&ann).await;
    // Search inputs are never results.
    ann.upload_search_input(".png", &png(Shape::Disc, 25), false)
        .await;

    // Free text in names, attributes (names and values): every word must be found.
    assert_eq!(
        ann.search_uids("FT=housing").await,
        vec![parts.disc_twin.clone(), parts.disc.clone()]
    );
    assert_eq!(
        ann.search_uids("FT=PUMP housing").await,
        vec![parts.disc.clone()]
    );
    assert_eq!(
        ann.search_uids("FT=stainless").await,
        vec![parts.disc.clone()]
    );
    assert!(ann.search_uids("FT=titanium").await.is_empty());
    // Regular: the value contains the text; names in any case; a unit narrows.
    assert_eq!(
        ann.search_uids("FT=Material=steel").await,
        vec![parts.vertical.clone(), parts.disc.clone()]
    );
    assert_eq!(
        ann.search_uids("FT=weight=12").await,
        vec![parts.horizontal.clone()]
    );
    assert!(ann.search_uids("FT=weight(lb)=12").await.is_empty());
    // Exact: a whole value, any one of a multi-valued attribute.
    assert_eq!(
        ann.search_uids("FT=region=[US]").await,
        vec![parts.horizontal.clone(), parts.disc.clone()]
    );
    assert_eq!(
        ann.search_uids("FT=material=[steel]").await,
        vec![parts.vertical.clone()]
    );
    assert!(ann.search_uids("FT=region=[E]").await.is_empty());
    // Prefix.
    assert_eq!(
        ann.search_uids("FT=document_number=BX-*").await,
        vec![parts.horizontal.clone(), parts.vertical.clone()]
    );
    // Repeated FT narrows; both encodings of the spec's examples are read.
    assert_eq!(
        ann.search_uids("FT=region=[EU]&FT=document_number=AX-*")
            .await,
        vec![parts.disc.clone()]
    );
    let filter = SearchFilter::new().all_of(vec![
        partlens_api::FilterTerm::parse("region=EU"),
        partlens_api::FilterTerm::parse("material=Stainless Steel"),
    ]);
    assert_eq!(
        ann.search_uids(&filter.inner()).await,
        vec![parts.disc.clone()]
    );
    // Without inputs: every match, score null, by display name then UID.
    let all = ann.search("").await.json();
    assert_eq!(all["TotalResults"], 5);
    assert_eq!(all["InputFileUID"], "");
    let names: Vec<&str> = all["ResultsList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["DisplayName"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "angle bracket.png",
            "flat bar.png",
            "housing cover.png",
            "post.png",
            "pump housing.png"
        ]
    );
    assert!(all["ResultsList"][0]["Score"].is_null());
    let item = &ann.search("FT=pump").await.json()["ResultsList"][0];
    assert_eq!(
        item["ShapeResult"]["Attributes"],
        serde_json::json!([
            "document_number=AX-1000",
            "region=EU|US",
            "material=Stainless Steel"
        ])
    );
    assert_eq!(
        item["Attributes"][1],
        serde_json::json!({"Name": "region", "Value": "EU|US"})
    );
    assert_eq!(item["IndexingFinished"], true);
    assert!(
        item["ThumbNailURLFromID"]
            .as_str()
            .unwrap()
            .contains("token=")
    );
    // maxResults (extension) caps the list, not the total; a missing filterStr is a 400.
    let capped = ann.get("/api/Search?filterStr=&maxResults=2").await.json();
    assert_eq!(
        (
            capped["TotalResults"].as_i64(),
            capped["ResultsList"].as_array().unwrap().len()
        ),
        (Some(5), 2)
    );
    ann.get("/api/Search?filterStr=&maxResults=0")
        .await
        .expect(400);
    ann.get("/api/Search").await.expect(400);
    ann.search("fileUID=nope").await.expect(400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_by_images_ranks_similar_parts_first() {
    let service = TestService::start_with(|config| config.index_workers = 0).await;
    let ann = service.session("ann").await;
    let parts = catalogue(&ann).await;
    let disc_input = ann
        .upload_search_input(".png", &png(Shape::Disc, 30), false)
        .await;
    let reply = ann.search(&format!("fileUID={disc_input}")).await;
    reply.expect(200);
    let body = reply.json();
    assert_eq!(body["InputFileUID"], disc_input.as_str());
    assert_eq!(body["TotalResults"], 5);
    let uids = service_support::result_uids(&body);
    let mut top_two = uids[..2].to_vec();
    top_two.sort();
    let mut discs = vec![parts.disc.clone(), parts.disc_twin.clone()];
    discs.sort();
    assert_eq!(top_two, discs, "the discs rank first");
    let scores: Vec<f64> = body["ResultsList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["Score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.iter().all(|score| (0.0..=1.0).contains(score)),
        "{scores:?}"
    );
    assert!(
        scores.windows(2).all(|pair| pair[0] >= pair[1]),
        "{scores:?}"
    );
    assert!(scores[1] > scores[4]);
    // Deterministic: the same search gives the same order.
    assert_eq!(
        ann.search_uids(&format!("fileUID={disc_input}")).await,
        uids
    );
    // Filters narrow an image search.
    assert_eq!(
        ann.search_uids(&format!("fileUID={disc_input}&FT=region=[APAC]"))
            .await,
        vec![parts.disc_twin.clone()]
    );
    // An input of another format (JPEG) ranks the same part first.
    let bar_input = ann
        .upload_search_input(
            ".jpg",
            &encode(&part_image(Shape::HorizontalBar, 31), ImageFormat::Jpeg),
            false,
        )
        .await;
    assert_eq!(
        ann.search_uids(&format!("fileUID={bar_input}")).await[0],
        parts.horizontal
    );
    // Multi-view: two views, both must be matched by different views of a candidate.
    let multi = ann
        .search(&format!("fileUID={disc_input},{bar_input}"))
        .await
        .json();
    assert_eq!(multi["InputFileUID"], format!("{disc_input},{bar_input}"));
    assert_eq!(multi["TotalResults"], 5);
    // Not indexed yet (queued with no workers): no matches.
    let queued = ann
        .upload_search_input(".png", &png(Shape::Disc, 32), true)
        .await;
    let pending = ann.search(&format!("fileUID={queued}")).await.json();
    assert_eq!(pending["TotalResults"], 0);
    assert_eq!(pending["InputFileUID"], queued.as_str());
    // The client layer searches the same way.
    let client = ApiClient::new(&service.base)
        .unwrap()
        .with_token(ann.token.clone().map(partlens_api::AccessToken::new));
    let result = client
        .search(&SearchRequest::new(
            SearchFilter::new().with_uids([FileUid::parse(&bar_input).unwrap()]),
        ))
        .await
        .unwrap();
    assert_eq!(result.results[0].uid, parts.horizontal);
    assert!(result.results[0].score.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_search_uploads_the_inputs_and_searches_in_one_call() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let parts = catalogue(&ann).await;
    let body = search_files_body(&[png(Shape::VerticalBar, 40)]);
    let reply = ann.put_json("/api/Search?fileExtension=.png", body).await;
    reply.expect(200);
    let result = reply.json();
    let first_input = result["InputFileUID"].as_str().unwrap().to_owned();
    assert!(FileUid::parse(&first_input).is_ok());
    assert_eq!(service_support::result_uids(&result)[0], parts.vertical);
    // The input is a search input of the caller, indexed.
    ann.get(&format!("/api/FileStatus?fileUID={first_input}"))
        .await
        .expect(200);
    // An existing fileUID list in filterStr is kept and the new input appended.
    let mut query = QueryString::new();
    query.push("fileExtension", ".png").push(
        "filterStr",
        format!("fileUID={first_input}&FT=material=steel"),
    );
    let reply = ann
        .put_json(
            &format!("/api/Search?{query}"),
            search_files_body(&[png(Shape::Disc, 41), png(Shape::Disc, 42)]),
        )
        .await;
    reply.expect(200);
    let result = reply.json();
    let inputs: Vec<&str> = result["InputFileUID"]
        .as_str()
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(inputs.len(), 3);
    assert_eq!(inputs[0], first_input);
    let mut found = service_support::result_uids(&result);
    found.sort();
    let mut expected = vec![parts.disc.clone(), parts.vertical.clone()];
    expected.sort();
    assert_eq!(found, expected);
    // Limits.
    let eleven: Vec<Vec<u8>> = (0..11).map(|seed| png(Shape::Disc, 50 + seed)).collect();
    ann.put_json("/api/Search?fileExtension=.png", search_files_body(&eleven))
        .await
        .expect(400);
    ann.put_json("/api/Search?fileExtension=.png", search_files_body(&[]))
        .await
        .expect(400);
    ann.put_json("/api/Search", search_files_body(&[png(Shape::Disc, 43)]))
        .await
        .expect(400);
    ann.put_json(
        "/api/Search?fileExtension=.png",
        format!("[\"{}\"]", base64_encode(&png(Shape::Disc, 44))),
    )
    .await
    .expect(400);
    // A bad earlier input is refused before the new files are stored.
    let stored_files = || {
        std::fs::read_dir(service.dir.path().join("files"))
            .unwrap()
            .count()
    };
    let before = stored_files();
    ann.put_json(
        "/api/Search?fileExtension=.png&filterStr=fileUID%3Dnot-a-guid",
        search_files_body(&[png(Shape::Disc, 46), png(Shape::Disc, 47)]),
    )
    .await
    .expect(400);
    assert_eq!(stored_files(), before);
    // The client layer's single-call search.
    let client = ApiClient::new(&service.base)
        .unwrap()
        .with_token(ann.token.clone().map(partlens_api::AccessToken::new));
    let result = client
        .search_with_files(
            &[partlens_api::UploadSource::Bytes {
                name: "query.png".into(),
                bytes: png(Shape::Bracket, 45).into(),
            }],
            &SearchFilter::new(),
        )
        .await
        .unwrap();
    assert_eq!(result.results[0].uid, parts.bracket);
}

/// A sample model of the library (`assets/samples/models/NAME.stl`).
fn sample_model(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/samples/models")
            .join(format!("{name}.stl")),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stl_models_are_indexed_pictured_measured_and_found_by_a_model() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let mut uids = Vec::new();
    for name in ["gear", "washer", "flange", "stepped-shaft"] {
        uids.push(
            ann.upload_database_file(&format!("Models/{name}.stl"), sample_model(name), &[])
                .await,
        );
    }
    // Pictures too, so the model competes with files of the other kind.
    ann.upload_database_file("Parts/disc.png", png(Shape::Disc, 61), &[])
        .await;
    ann.upload_database_file("Parts/bracket.png", png(Shape::Bracket, 62), &[])
        .await;
    let gear = &uids[0];
    let status = ann.get(&format!("/api/FileStatus?fileUID={gear}")).await;
    status.expect(200);
    assert!(chrono::DateTime::parse_from_rfc3339(&status.string()).is_ok());

    let record = ann.get(&format!("/api/File?fileUID={gear}")).await.json();
    assert_eq!(record["IndexingFinished"], true, "{record}");
    assert_eq!(record["HasThumbnail"], true, "{record}");
    let http = partlens_api::client::plain_http_client();
    let thumbnail = http
        .get(record["ThumbNailURLFromID"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(thumbnail.status(), 200);
    let thumbnail = image::load_from_memory(&thumbnail.bytes().await.unwrap()).unwrap();
    assert_eq!(thumbnail.width().max(thumbnail.height()), 256);
    let large = http
        .get(record["PNGURLFromID"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(large.headers()["content-type"], "image/png");
    let large = image::load_from_memory(&large.bytes().await.unwrap())
        .unwrap()
        .to_rgb8();
    // A drawing: white paper at the corner, dark lines somewhere.
    assert_eq!(large.get_pixel(0, 0).0, [255, 255, 255]);
    assert!(large.pixels().any(|pixel| pixel.0[0] < 80));

    // Measured in millimetres.
    let pmi = ann
        .get(&format!("/api/PMIData?fileUID={gear}"))
        .await
        .json();
    let extracted: Vec<&str> = pmi["ExtractedAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|value| value.as_str().unwrap())
        .collect();
    assert!(
        extracted.iter().any(|a| a.starts_with("bounding_box(mm)=")),
        "{extracted:?}"
    );
    assert!(extracted.iter().any(|a| a.starts_with("volume(mm3)=")));

    // Searching with the model (one call, PUT /api/Search) finds it first.
    let reply = ann
        .put_json(
            "/api/Search?fileExtension=.stl",
            search_files_body(&[sample_model("gear")]),
        )
        .await;
    reply.expect(200);
    let result = reply.json();
    let found = service_support::result_uids(&result);
    assert_eq!(&found[0], gear, "{result}");
    assert!(result["ResultsList"][0]["Score"].as_f64().unwrap() > 0.99);

    // A file that is not a mesh is failed (422), not a crash.
    let broken = ann
        .upload_search_input(".stl", &[0x42_u8; 2000], false)
        .await;
    let reply = ann.get(&format!("/api/FileStatus?fileUID={broken}")).await;
    reply.expect(422);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dxf_drawings_are_indexed_with_their_pmi_text_attributes_and_a_picture() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let dxf = std::fs::read(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/samples/drawings/flange-drawing.dxf"),
    )
    .unwrap();
    let reply = ann
        .put_binary(
            "/api/FileBinary?file=Drawings%2Fflange.dxf&isSearchInput=false&indexAsync=true",
            dxf,
        )
        .await;
    reply.expect(200);
    let uid = reply.string();
    wait_until(Duration::from_secs(60), "the drawing is indexed", || {
        let ann = ann.clone();
        let uid = uid.clone();
        async move {
            let reply = ann.get(&format!("/api/FileStatus?fileUID={uid}")).await;
            (reply.status == reqwest::StatusCode::OK).then_some(())
        }
    })
    .await;

    let reply = ann.get(&format!("/api/PMIData?fileUID={uid}")).await;
    reply.expect(200);
    let wire: partlens_api::model::PmiDataWire = serde_json::from_value(reply.json()).unwrap();
    assert!(wire.pmi.is_string(), "PMI is a string holding JSON");
    let pmi = wire.parse().unwrap();
    assert_eq!(pmi.pages.len(), 1);
    let page = &pmi.pages[0];
    assert_eq!(page.page, 1);
    let [width, height] = page.image_size;
    let dimensions: Vec<&str> = page
        .items
        .iter()
        .filter(|item| item.type_id == 2)
        .map(|item| item.text.as_str())
        .collect();
    assert!(dimensions.contains(&"Ø160"), "{dimensions:?}");
    assert!(dimensions.contains(&"Ø60 H7 ±0.015"), "{dimensions:?}");
    for item in &page.items {
        let [left, top, right, bottom] = item.box_in_page;
        assert!(0 <= left && left < right && right <= width, "{item:?}");
        assert!(0 <= top && top < bottom && bottom <= height, "{item:?}");
    }
    assert!(pmi.unstructured_text.contains("DEBURR BOLT HOLES"));
    assert!(
        pmi.extracted_attributes
            .contains(&"part_number=PL-1002".to_owned()),
        "{:?}",
        pmi.extracted_attributes
    );

    // The rendered page is the large image, the same size as the PMI page.
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
    assert_eq!(record["HasThumbnail"], true);
    let large = partlens_api::client::plain_http_client()
        .get(record["PNGURLFromID"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let large = image::load_from_memory(&large).unwrap();
    assert_eq!(
        [i64::from(large.width()), i64::from(large.height())],
        page.image_size
    );

    // A word of the note finds the drawing by free text.
    assert_eq!(ann.search_uids("FT=deburr").await, vec![uid.clone()]);

    // Bytes that are no drawing fail indexing.
    let broken = ann
        .put_binary(
            "/api/FileBinary?file=Drawings%2Fbroken.dxf&isSearchInput=false",
            b"0\nSECTION\n2\nENTITIES\n0\nLINE\n10\nnot-a-number\n".repeat(40),
        )
        .await;
    broken.expect(200);
    let status = ann
        .get(&format!("/api/FileStatus?fileUID={}", broken.string()))
        .await;
    status.expect(422);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pdf_drawings_are_indexed_with_pmi_on_every_page_and_a_picture_of_the_first() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let pdf = std::fs::read(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/samples/drawings/l-bracket-drawing.pdf"),
    )
    .unwrap();
    let uid = ann
        .upload_database_file("Drawings/l-bracket.pdf", pdf, &[])
        .await;
    let reply = ann.get(&format!("/api/FileStatus?fileUID={uid}")).await;
    reply.expect(200);
    let reply = ann.get(&format!("/api/PMIData?fileUID={uid}")).await;
    reply.expect(200);
    let wire: partlens_api::model::PmiDataWire = serde_json::from_value(reply.json()).unwrap();
    let pmi = wire.parse().unwrap();
    let page = &pmi.pages[0];
    assert_eq!(page.page, 1);
    assert!(
        page.items
            .iter()
            .any(|item| item.type_id == 2 && item.text == "2X Ø8 H7 ±0.015"),
        "{page:?}"
    );
    for item in &page.items {
        let [left, top, right, bottom] = item.box_in_page;
        assert!(
            0 <= left && left < right && right <= page.image_size[0],
            "{item:?}"
        );
        assert!(
            0 <= top && top < bottom && bottom <= page.image_size[1],
            "{item:?}"
        );
    }
    assert!(
        pmi.extracted_attributes
            .contains(&"part_number=PL-1003".to_owned()),
        "{:?}",
        pmi.extracted_attributes
    );
    let record = ann.get(&format!("/api/File?fileUID={uid}")).await.json();
    assert_eq!(record["HasThumbnail"], true);
    assert_eq!(ann.search_uids("FT=anodise").await, vec![uid.clone()]);
    // A file named .pdf that is not one fails indexing.
    let broken = ann
        .put_binary(
            "/api/FileBinary?file=Drawings%2Fbroken.pdf&isSearchInput=false",
            b"%PDF-1.7\n".repeat(200),
        )
        .await;
    broken.expect(200);
    ann.get(&format!("/api/FileStatus?fileUID={}", broken.string()))
        .await
        .expect(422);
}
