//! The local service tried as an attacker would (issue 10): small files that expand, attribute
//! writes that hold the store, logins in bulk,
//! filters too long for SQLite, connections that stall, search bodies and pictures too large, links
//! and answers that leak, a data directory others can read, inputs that never expire, folders and
//! descriptors that go missing or bad. Each test states the limit it checks; limits are made small
//! through `ServiceConfig::limits` so every case runs in seconds. Loopback only.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use partlens_testkit::service as service_support;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use image::{ImageFormat, RgbImage};
use partlens_api::encoding::{
    QueryString, double_encoded_strings, password_digest, search_files_body,
};
use service_support::{PASSWORD, Reply, Shape, TestService, encode, png, wait_until};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};

/// The longest any test here waits for the service to do something it should do at once or after
/// a sub-second limit: generous, so a loaded machine does not fail a test.
const DEADLINE: Duration = Duration::from_secs(30);

/// The status of a file, as `GET /api/FileStatus` gives it.
async fn status_of(session: &service_support::Session, uid: &str) -> Reply {
    session.get(&format!("/api/FileStatus?fileUID={uid}")).await
}

/// Uploads a company-database file and returns its UID (the upload succeeds even when the content
/// cannot be indexed; the status says so).
async fn upload_database(session: &service_support::Session, path: &str, bytes: Vec<u8>) -> String {
    let mut query = QueryString::new();
    query.push("file", path).push("isSearchInput", "false");
    let reply = session
        .put_binary(&format!("/api/FileBinary?{query}"), bytes)
        .await;
    reply.expect(200);
    reply.string()
}

// ---------------------------------------------------------------------------------------------
// 1. Small files that become gigabytes.

/// A PDF of `pages` pages that all show one shared, compressed content stream writing `characters`
/// letters: a few kilobytes on disk, `pages × characters` bytes of text once read.
fn expanding_pdf(pages: usize, characters: usize) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut document = Document::with_version("1.5");
    let pages_id = document.new_object_id();
    let font = document.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    // Two-point letters are greeked when drawn, so the page renders quickly.
    let content = format!("BT /F1 2 Tf 20 400 Td ({}) Tj ET", "W".repeat(characters));
    let mut stream = Stream::new(dictionary! {}, content.into_bytes());
    stream.compress().unwrap();
    let content_id = document.add_object(stream);
    let resources = document.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let kids: Vec<Object> = (0..pages)
        .map(|_| {
            document
                .add_object(dictionary! {
                    "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
                })
                .into()
        })
        .collect();
    document.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => pages as i64,
            "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    document.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).unwrap();
    bytes
}

/// A DXF whose blocks nest `levels` deep, each inserting the one below twice, over one MTEXT of
/// `characters` letters: 2^levels copies of the text from a few entities.
fn expanding_dxf(levels: usize, characters: usize) -> Vec<u8> {
    use dxf::entities::{Entity, EntityType, Insert, MText};
    use dxf::{Block, Drawing};
    let mut drawing = Drawing::new();
    let mut bottom = Block {
        name: "L0".into(),
        ..Default::default()
    };
    bottom.entities.push(Entity::new(EntityType::MText(MText {
        text: "W".repeat(characters),
        initial_text_height: 2.5,
        ..Default::default()
    })));
    drawing.add_block(bottom);
    for level in 1..=levels {
        let mut block = Block {
            name: format!("L{level}"),
            ..Default::default()
        };
        for _ in 0..2 {
            block.entities.push(Entity::new(EntityType::Insert(Insert {
                name: format!("L{}", level - 1),
                ..Default::default()
            })));
        }
        drawing.add_block(block);
    }
    drawing.add_entity(Entity::new(EntityType::Insert(Insert {
        name: format!("L{levels}"),
        ..Default::default()
    })));
    let mut bytes = Vec::new();
    drawing.save(&mut bytes).unwrap();
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_past_the_cap_fails_the_analysis_and_stores_no_text() {
    // Limit: ExtractionLimits::max_text_bytes (text of one file), counted while it is read.
    let service =
        TestService::start_with(|config| config.limits.extraction.max_text_bytes = 100_000).await;
    let ann = service.session("ann").await;
    // 100 pages × 5,000 letters = 500 KB of text from a file of a few KB.
    let pdf = expanding_pdf(100, 5_000);
    assert!(pdf.len() < 10_000, "{} bytes", pdf.len());
    // 2^8 = 256 copies of 1,000 letters = 256 KB of text from a few KB of DXF.
    let dxf = expanding_dxf(8, 1_000);
    assert!(dxf.len() < 20_000, "{} bytes", dxf.len());
    for (path, bytes) in [("Bombs/pages.pdf", pdf), ("Bombs/blocks.dxf", dxf)] {
        let uid = upload_database(&ann, path, bytes).await;
        let status = status_of(&ann, &uid).await;
        status.expect(422);
        assert_eq!(status.text(), "failed");
        let pmi = ann.get(&format!("/api/PMIData?fileUID={uid}")).await.json();
        assert_eq!(pmi["UnstructuredText"], "", "{path}");
        assert_eq!(pmi["PMI"], "[]", "{path}");
    }
    // A drawing under the cap is read as before.
    let uid = upload_database(&ann, "Fine/pages.pdf", expanding_pdf(10, 5_000)).await;
    status_of(&ann, &uid).await.expect(200);
    assert!(ann.search_uids("FT=WWWW").await.contains(&uid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pmi_items_past_the_cap_fail_the_analysis() {
    // Limit: ExtractionLimits::max_pmi_items (texts of one file, over all pages).
    let service =
        TestService::start_with(|config| config.limits.extraction.max_pmi_items = 50).await;
    let ann = service.session("ann").await;
    let over = upload_database(&ann, "Items/over.pdf", expanding_pdf(51, 10)).await;
    status_of(&ann, &over).await.expect(422);
    let under = upload_database(&ann, "Items/under.pdf", expanding_pdf(50, 10)).await;
    status_of(&ann, &under).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_text_past_the_cap_fails_the_analysis() {
    // Limit: ServiceLimits::max_search_text_bytes (text and extracted attributes one analysis adds).
    let service =
        TestService::start_with(|config| config.limits.max_search_text_bytes = 20_000).await;
    let ann = service.session("ann").await;
    // 30 pages × 1,000 letters: under the text cap (1 MiB), over the search-text cap.
    let over = upload_database(&ann, "Text/over.pdf", expanding_pdf(30, 1_000)).await;
    status_of(&ann, &over).await.expect(422);
    let under = upload_database(&ann, "Text/under.pdf", expanding_pdf(15, 1_000)).await;
    status_of(&ann, &under).await.expect(200);
    assert_eq!(ann.search_uids("FT=WWWW").await, vec![under]);
}

// ---------------------------------------------------------------------------------------------
// 2. Attribute writes that freeze every company.

/// `count` distinct attributes `prefix{i}=v{i}`.
fn numbered(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|i| format!("{prefix}{i}=v{i}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attribute_writes_past_the_caps_get_400_and_change_nothing() {
    // Limits: ServiceLimits::max_attributes_per_file and max_values_per_file.
    let service = TestService::start_with(|config| {
        config.limits.max_attributes_per_file = 100;
        config.limits.max_values_per_file = 250;
    })
    .await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file(
            "Parts/disc.png",
            png(Shape::Disc, 1),
            &[("material", "steel")],
        )
        .await;
    let put = |list: Vec<String>, delete_existing: bool| {
        let ann = ann.clone();
        let path = format!("/api/FileAttributes?fileUID={uid}&deleteExisting={delete_existing}");
        async move { ann.put_json(&path, double_encoded_strings(&list)).await }
    };
    // The 50,000 attributes in one write, and one over the cap: 400, nothing changed.
    for list in [numbered("a", 50_000), numbered("a", 101)] {
        let refused = put(list, true).await;
        refused.expect(400);
        assert!(refused.text().contains("100"), "{}", refused.text());
    }
    assert_eq!(ann.attributes_of(&uid).await, vec!["material=steel"]);
    // At the cap it is written; adding one more name is refused, replacing a value is not.
    put(numbered("a", 100), true).await.expect(200);
    put(vec!["extra=1".into()], false).await.expect(400);
    put(vec!["a7=changed".into()], false).await.expect(200);
    let saved = ann.attributes_of(&uid).await;
    assert_eq!(saved.len(), 100);
    assert_eq!(saved[7], "a7=changed");
    // Values are counted one by one, over every attribute of the file.
    let values = |count: usize| {
        let joined: Vec<String> = (0..count).map(|i| format!("v{i}")).collect();
        vec![format!("many={}", joined.join("|"))]
    };
    put(values(251), true).await.expect(400);
    put(values(250), true).await.expect(200);
    // An upload's attributes are held to the same caps.
    let pairs: Vec<(String, String)> = (0..101).map(|i| (format!("u{i}"), "v".into())).collect();
    let mut query = QueryString::new();
    query
        .push("file", "Parts/many.png")
        .push("isSearchInput", "false")
        .push(
            "attributes",
            partlens_api::encoding::nested_attributes_query(&pairs),
        );
    ann.put_binary(&format!("/api/FileBinary?{query}"), png(Shape::Disc, 2))
        .await
        .expect(400);
    ann.get("/api/File?fileName=Parts%2Fmany.png")
        .await
        .expect(404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attribute_writes_at_the_cap_leave_other_companies_and_reads_running() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let mut files = Vec::new();
    for n in 0..3 {
        files.push(
            ann.upload_database_file(&format!("Parts/{n}.png"), png(Shape::Disc, n), &[])
                .await,
        );
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let abuser = {
        let (ann, stop, written) = (ann.clone(), stop.clone(), written.clone());
        tokio::spawn(async move {
            let list = double_encoded_strings(&numbered("attribute_", 1_000));
            let mut statuses = Vec::new();
            // Bounded: the test stops it long before.
            for round in 0..10_000 {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let uid = &files[round % files.len()];
                let reply = ann
                    .put_json(&format!("/api/FileAttributes?fileUID={uid}"), list.clone())
                    .await;
                statuses.push(reply.status.as_u16());
                written.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            statuses
        })
    };
    wait_until(DEADLINE, "the abuser to be writing", || {
        let written = written.clone();
        async move { (written.load(std::sync::atomic::Ordering::Relaxed) > 0).then_some(()) }
    })
    .await;
    // Another company logs in, reads and searches meanwhile.
    let mut gus = service.session("gus").await;
    gus.upload_database_file(
        "Globex/bar.png",
        png(Shape::VerticalBar, 9),
        &[("material", "brass")],
    )
    .await;
    for _ in 0..3 {
        gus = service.session("gus").await;
        gus.get("/api/FileAttributes").await.expect(200);
        gus.get("/api/AttributeValues?attribute=material")
            .await
            .expect(200);
        assert_eq!(gus.search_uids("FT=material=[brass]").await.len(), 1);
    }
    // And so does ann's own company.
    ann.get("/api/FileAttributes").await.expect(200);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let statuses = abuser.await.unwrap();
    assert!(!statuses.is_empty());
    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
}

// ---------------------------------------------------------------------------------------------
// 3. Logins that exhaust memory.

/// A wrong-password (or any) login from `from`, returning status and `Retry-After`.
async fn login_from(
    base: &str,
    from: Option<IpAddr>,
    user: &str,
    password: &str,
) -> (u16, Option<u64>) {
    let mut builder = reqwest::Client::builder();
    if let Some(address) = from {
        builder = builder.local_address(address);
    }
    let reply = builder
        .build()
        .unwrap()
        .post(format!("{base}/api/Token"))
        .form(&[
            ("grant_type", "password"),
            ("client_id", "partlens"),
            ("username", user),
            ("password", password_digest(password).as_str()),
        ])
        .send()
        .await
        .unwrap();
    let retry_after = reply
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().parse().unwrap());
    (reply.status().as_u16(), retry_after)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_in_bulk_are_refused_with_429_and_others_still_log_in() {
    // Limits: LoginLimits::max_failures_per_user and concurrent_hashes.
    let service = TestService::start_with(|config| {
        config.limits.login.concurrent_hashes = 2;
        config.limits.login.max_failures_per_user = 3;
        config.limits.login.max_failures_per_address = 1_000;
    })
    .await;
    let attempts: Vec<_> = (0..40)
        .map(|_| {
            let base = service.base.clone();
            tokio::spawn(async move { login_from(&base, None, "ann", "wrong").await })
        })
        .collect();
    let mut checked = 0;
    for attempt in attempts {
        match attempt.await.unwrap() {
            (400, _) => checked += 1,
            (429, Some(seconds)) => assert!((1..=60).contains(&seconds), "{seconds}"),
            other => panic!("{other:?}"),
        }
    }
    // Only the failures the limit allows were checked (plus those already in a slot when the
    // last allowed one was counted); every other attempt cost no hash.
    assert!((3..=4).contains(&checked), "{checked} password checks");
    // Now even the right password is refused for ann until her window ends ...
    let (status, retry_after) = login_from(&service.base, None, "ann", PASSWORD).await;
    assert_eq!(status, 429);
    assert!(retry_after.is_some());
    // ... while bob, from the same address, logs in.
    assert_eq!(
        login_from(&service.base, None, "bob", PASSWORD).await.0,
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_from_one_address_are_limited_whatever_the_names() {
    // Limit: LoginLimits::max_failures_per_address.
    let service = TestService::start_with(|config| {
        config.limits.login.max_failures_per_user = 1_000;
        config.limits.login.max_failures_per_address = 5;
    })
    .await;
    let attacker = Some(IpAddr::V4(Ipv4Addr::LOCALHOST));
    for n in 0..5 {
        let name = format!("nobody-{n}");
        assert_eq!(login_from(&service.base, attacker, &name, "x").await.0, 400);
    }
    let (status, retry_after) = login_from(&service.base, attacker, "ann", PASSWORD).await;
    assert_eq!(status, 429);
    assert!(retry_after.is_some_and(|seconds| seconds >= 1));
    // Another address is not affected.
    let elsewhere = Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)));
    assert_eq!(
        login_from(&service.base, elsewhere, "ann", PASSWORD)
            .await
            .0,
        200
    );
}

// ---------------------------------------------------------------------------------------------
// 5. Filters deeper than SQLite allows.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_free_text_and_many_terms_are_refused_with_400_not_500() {
    // Limits: ServiceLimits::max_filter_conditions (400) and max_search_inputs (100).
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file(
            "Parts/disc.png",
            png(Shape::Disc, 1),
            &[("material", "steel")],
        )
        .await;
    let words = |count: usize| format!("FT={}", vec!["disc"; count].join(" "));
    let terms = |count: usize| vec!["FT=material=steel"; count].join("&");
    // At the limit every form still runs (and SQLite takes it).
    assert_eq!(ann.search_uids(&words(400)).await, vec![uid.clone()]);
    assert_eq!(ann.search_uids(&terms(400)).await, vec![uid.clone()]);
    assert_eq!(
        ann.search_uids(&format!("{}&{}", words(200), terms(200)))
            .await,
        vec![uid.clone()]
    );
    // Past it, 400 with a sentence, never 500.
    for filter in [
        words(401),
        words(1_000),
        terms(401),
        terms(1_000),
        format!("{}&{}", words(300), terms(101)),
    ] {
        let reply = ann.search(&filter).await;
        reply.expect(400);
        assert!(reply.text().contains("at most 400"), "{}", reply.text());
    }
    // PUT /api/Search checks the filter before it reads or stores anything.
    let mut query = QueryString::new();
    query
        .push("fileExtension", ".png")
        .push("filterStr", words(401));
    ann.put_json(
        &format!("/api/Search?{query}"),
        search_files_body(&[png(Shape::Disc, 2)]),
    )
    .await
    .expect(400);
    // Too many inputs.
    let inputs: Vec<String> = (0..101).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    let reply = ann.search(&format!("fileUID={}", inputs.join(","))).await;
    reply.expect(400);
    assert!(
        ann.search_uids(&format!("fileUID={}", inputs[..100].join(",")))
            .await
            .is_empty()
    );
    // PUT /api/Search: the body's files are inputs too. With 99 UIDs in the filter the body may
    // hold one file; a second is refused as it starts, before the first is stored.
    let mut query = QueryString::new();
    query
        .push("fileExtension", ".png")
        .push("filterStr", format!("fileUID={}", inputs[..99].join(",")));
    let path = format!("/api/Search?{query}");
    let put = |files: Vec<Vec<u8>>| ann.put_json(&path, search_files_body(&files));
    let reply = put(vec![png(Shape::Disc, 3), png(Shape::Disc, 4)]).await;
    reply.expect(400);
    assert!(
        reply.text().contains("the body may hold at most 1:"),
        "{}",
        reply.text()
    );
    put(vec![png(Shape::Disc, 3)]).await.expect(200);
}

// ---------------------------------------------------------------------------------------------
// 6. Connections that stall.

/// The service's socket address.
fn address_of(service: &TestService) -> SocketAddr {
    service
        .base
        .strip_prefix("http://")
        .unwrap()
        .parse()
        .unwrap()
}

/// A raw connection from a chosen loopback address.
async fn connect_from(service: &TestService, from: Ipv4Addr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(IpAddr::V4(from), 0)).unwrap();
    socket.connect(address_of(service)).await.unwrap()
}

/// Reads until the service closes the connection (or fails it), within the deadline; returns what
/// was read. Panics when the connection is still open at the deadline.
async fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut read = Vec::new();
    let outcome = tokio::time::timeout(DEADLINE, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(count) => read.extend_from_slice(&buffer[..count]),
            }
        }
    })
    .await;
    assert!(outcome.is_ok(), "the service kept the connection open");
    read
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_headers_are_cut_off_at_the_header_timeout() {
    // Limit: ConnectionLimits::header_read_timeout.
    let service = TestService::start_with(|config| {
        config.limits.connections.header_read_timeout = Duration::from_millis(500);
        config.limits.connections.idle_timeout = Duration::from_secs(600);
    })
    .await;
    let mut stalled = Vec::new();
    for n in 0..20 {
        let mut stream = connect_from(&service, Ipv4Addr::LOCALHOST).await;
        if n % 2 == 0 {
            stream
                .write_all(b"GET /api/Version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
                .await
                .unwrap();
        }
        stalled.push(stream);
    }
    // Others are served meanwhile.
    let ann = service.session("ann").await;
    ann.get("/api/Version").await.expect(200);
    for stream in &mut stalled {
        read_until_closed(stream).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_at_the_idle_timeout() {
    // Limit: ConnectionLimits::idle_timeout (a connection that sends nothing, with a header
    // timeout far away).
    let service = TestService::start_with(|config| {
        config.limits.connections.header_read_timeout = Duration::from_secs(600);
        config.limits.connections.idle_timeout = Duration::from_millis(500);
    })
    .await;
    let mut silent = connect_from(&service, Ipv4Addr::LOCALHOST).await;
    // A kept-alive connection after its reply is idle too.
    let mut kept = connect_from(&service, Ipv4Addr::LOCALHOST).await;
    kept.write_all(b"GET /api/Version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let reply = read_until_closed(&mut kept).await;
    assert!(
        reply.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
    read_until_closed(&mut silent).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_body_is_answered_408_and_closed() {
    // Limit: ConnectionLimits::body_read_timeout.
    let service = TestService::start_with(|config| {
        config.limits.connections.body_read_timeout = Duration::from_millis(500);
        config.limits.connections.idle_timeout = Duration::from_secs(600);
    })
    .await;
    let ann = service.session("ann").await;
    let mut stream = connect_from(&service, Ipv4Addr::LOCALHOST).await;
    let head = format!(
        "PUT /api/FileBinary?file=.png HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/octet-stream\r\nContent-Length: 50000\r\n\r\n",
        ann.token.as_deref().unwrap()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&[0u8; 1000]).await.unwrap();
    let reply = String::from_utf8_lossy(&read_until_closed(&mut stream).await).into_owned();
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(
        reply.to_lowercase().contains("connection: close"),
        "{reply}"
    );
    // Nothing of it stays behind.
    assert_eq!(
        std::fs::read_dir(service.dir.path().join("files"))
            .unwrap()
            .count(),
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_caps_get_503_and_others_are_served() {
    // Limits: ConnectionLimits::max_connections_per_address and max_connections.
    let service = TestService::start_with(|config| {
        config.limits.connections.max_connections = 6;
        config.limits.connections.max_connections_per_address = 3;
        config.limits.connections.header_read_timeout = Duration::from_secs(600);
        config.limits.connections.idle_timeout = Duration::from_secs(600);
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from(&service, Ipv4Addr::LOCALHOST).await);
    }
    // The fourth from the same address is refused at once ...
    let mut refused = connect_from(&service, Ipv4Addr::LOCALHOST).await;
    let reply = String::from_utf8_lossy(&read_until_closed(&mut refused).await).into_owned();
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    assert!(reply.contains("Retry-After: 1"), "{reply}");
    // ... while another address is served.
    let mut other = connect_from(&service, Ipv4Addr::new(127, 0, 0, 2)).await;
    other
        .write_all(b"GET /api/Version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let reply = String::from_utf8_lossy(&read_until_closed(&mut other).await).into_owned();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    // The total cap: three more held from other addresses fill it.
    for last in 3..6u8 {
        held.push(connect_from(&service, Ipv4Addr::new(127, 0, 0, last)).await);
    }
    let mut refused = connect_from(&service, Ipv4Addr::new(127, 0, 0, 9)).await;
    let reply = String::from_utf8_lossy(&read_until_closed(&mut refused).await).into_owned();
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    // Closing the held connections makes room again.
    drop(held);
    wait_until(DEADLINE, "room for a new connection", || {
        let base = service.base.clone();
        async move {
            let reply = reqwest::get(format!("{base}/api/Version")).await.ok()?;
            (reply.status() == 200).then_some(())
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------------
// 7. Search bodies and pictures too large.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_body_is_read_as_it_streams() {
    // Limit: files per PUT /api/Search (10), enforced while the body streams.
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    // Eleven files whose body never ends: refused at the eleventh file, not after the body.
    let files: Vec<Vec<u8>> = (0..11).map(|n| png(Shape::Disc, 30 + n)).collect();
    let body = search_files_body(&files);
    let cut = body.rfind("\\\"").unwrap() - 10;
    let first_part = bytes::Bytes::from(body.as_bytes()[..cut].to_vec());
    let endless = futures_util::StreamExt::chain(
        futures_util::stream::once(async move { Ok::<_, std::io::Error>(first_part) }),
        futures_util::stream::pending(),
    );
    let reply = tokio::time::timeout(
        DEADLINE,
        ann.http
            .put(format!("{}/api/Search?fileExtension=.png", ann.base))
            .bearer_auth(ann.token.as_deref().unwrap())
            .header("Content-Type", "application/json")
            .header("Content-Length", body.len().to_string())
            .body(reqwest::Body::wrap_stream(endless))
            .send(),
    )
    .await
    .expect("the service waited for the whole body")
    .unwrap();
    assert_eq!(reply.status(), 400);
    assert!(reply.text().await.unwrap().contains("at most 10"));
    // A whole body of ten still searches, and leaves no temporary file.
    let database = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 3), &[])
        .await;
    let reply = ann
        .put_json(
            "/api/Search?fileExtension=.png",
            search_files_body(&files[..10]),
        )
        .await;
    reply.expect(200);
    let body = reply.json();
    assert_eq!(
        body["InputFileUID"].as_str().unwrap().split(',').count(),
        10
    );
    assert_eq!(service_support::result_uids(&body)[0], database);
    assert_eq!(
        service_support::files_under(&service.dir.path().join("tmp")),
        Vec::<std::path::PathBuf>::new()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_picture_past_the_pixel_cap_fails_before_it_is_decoded() {
    // Limit: ExtractionLimits::max_image_pixels.
    let service =
        TestService::start_with(|config| config.limits.extraction.max_image_pixels = 100_000).await;
    let ann = service.session("ann").await;
    let picture = |width, height| {
        encode(
            &RgbImage::from_fn(width, height, |x, y| {
                image::Rgb([(x % 251) as u8, (y % 241) as u8, ((x * y) % 239) as u8])
            }),
            ImageFormat::Png,
        )
    };
    let over = ann
        .upload_search_input(".png", &picture(400, 300), false)
        .await;
    status_of(&ann, &over).await.expect(422);
    let under = ann
        .upload_search_input(".png", &picture(300, 300), false)
        .await;
    status_of(&ann, &under).await.expect(200);
}

// ---------------------------------------------------------------------------------------------
// 8. Links, answers and files that leak; inputs that never expire; folders and descriptors that go
//    missing or bad.

/// The thumbnail URL of a file's record.
async fn thumbnail_url(session: &service_support::Session, uid: &str) -> String {
    let record = session
        .get(&format!("/api/File?fileUID={uid}"))
        .await
        .json();
    record["ThumbNailURLFromID"].as_str().unwrap().to_owned()
}

async fn fetch_status(url: &str) -> u16 {
    reqwest::get(url).await.unwrap().status().as_u16()
}

/// The thumbnail URL the service gives for a new database file when asked with `Host: host`.
async fn thumbnail_url_asked_as(service: &TestService, host: &str) -> String {
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    let record = ann
        .http
        .get(service.url(&format!("/api/File?fileUID={uid}")))
        .bearer_auth(ann.token.as_deref().unwrap())
        .header("Host", host)
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap();
    record["ThumbNailURLFromID"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_links_use_the_public_address_never_the_host_header() {
    let service = TestService::start_with(|config| {
        config.public_url = Some("https://parts.example.com/pl/".into());
    })
    .await;
    let url = thumbnail_url_asked_as(&service, "evil.example").await;
    assert!(
        url.starts_with("https://parts.example.com/pl/api/Image?fid="),
        "{url}"
    );
    // Without a public address, the bound one.
    let plain = TestService::start().await;
    let url = thumbnail_url_asked_as(&plain, "evil.example:80").await;
    assert!(
        url.starts_with(&format!("{}/api/Image?", plain.base)),
        "{url}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_links_die_with_a_password_reset_an_overwrite_and_a_reused_uid() {
    let service = TestService::start().await;
    let admin_session = service.session("admin").await;
    let ann = service.session("ann").await;
    let uid = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    // A password reset ends the links made for that user.
    let link = thumbnail_url(&ann, &uid).await;
    assert_eq!(fetch_status(&link).await, 200);
    service.add_user("Acme", "ann", "new password", false).await;
    assert_eq!(fetch_status(&link).await, 401);
    // An overwrite ends the links to the old content.
    let link = thumbnail_url(&admin_session, &uid).await;
    assert_eq!(fetch_status(&link).await, 200);
    let reply = admin_session
        .put_binary(
            &format!("/api/FileBinary?file=Parts%2Fdisc.png&isSearchInput=false&uid={uid}"),
            png(Shape::Bracket, 2),
        )
        .await;
    reply.expect(200);
    assert_eq!(fetch_status(&link).await, 401);
    let fresh = thumbnail_url(&admin_session, &uid).await;
    assert_eq!(fetch_status(&fresh).await, 200);
    // After a delete, another company may take the UID: the old link does not show its picture.
    admin_session
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(200);
    let gus = service.session("gus").await;
    gus.put_binary(
        &format!("/api/FileBinary?file=Globex%2Fpart.png&isSearchInput=false&uid={uid}"),
        png(Shape::VerticalBar, 3),
    )
    .await
    .expect(200);
    assert_eq!(fetch_status(&fresh).await, 401);
    assert_eq!(fetch_status(&thumbnail_url(&gus, &uid).await).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uid_or_feedback_id_of_another_company_gets_409_without_saying_whose() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    let gus = service.session("gus").await;
    let acme = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    let feedback_id = uuid::Uuid::new_v4().to_string();
    ann.put_json(
        &format!("/api/ExtractedAttributeFeedback?fileUID={acme}&feedbackId={feedback_id}"),
        "\"width_px=128\"",
    )
    .await
    .expect(200);
    let globex = gus
        .upload_database_file("Parts/bar.png", png(Shape::VerticalBar, 2), &[])
        .await;
    let taken_uid = gus
        .put_binary(
            &format!("/api/FileBinary?file=.png&uid={acme}"),
            png(Shape::Disc, 3),
        )
        .await;
    let taken_feedback = gus
        .put_json(
            &format!("/api/ExtractedAttributeFeedback?fileUID={globex}&feedbackId={feedback_id}"),
            "\"width_px=128\"",
        )
        .await;
    for reply in [&taken_uid, &taken_feedback] {
        reply.expect(409);
        let text = reply.text().to_lowercase();
        for telling in ["another company", "already used", "acme", "exists"] {
            assert!(!text.contains(telling), "{text}");
        }
    }
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_directory_is_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    ann.upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    ann.upload_search_input(".png", &png(Shape::Disc, 2), false)
        .await;
    let mut folders = vec![service.dir.path().to_path_buf()];
    let mut seen_files = 0;
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            if path.is_dir() {
                assert_eq!(mode, 0o700, "{}", path.display());
                folders.push(path);
            } else {
                assert_eq!(mode, 0o600, "{}", path.display());
                seen_files += 1;
            }
        }
    }
    // Two uploads with their thumbnails and large images, and on SQLite the database with its
    // WAL (PostgreSQL keeps the records elsewhere).
    let expected = if service.database.is_some() { 4 } else { 7 };
    assert!(seen_files >= expected, "{seen_files} files");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_inputs_expire_and_database_files_stay() {
    // Limit: ServiceLimits::search_input_lifetime, swept every expiry_sweep_interval.
    let service = TestService::start_with(|config| {
        config.limits.search_input_lifetime = Duration::from_secs(1);
        config.limits.expiry_sweep_interval = Duration::from_millis(100);
    })
    .await;
    let ann = service.session("ann").await;
    let kept = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 2), false)
        .await;
    wait_until(DEADLINE, "the input to expire", || {
        let ann = ann.clone();
        let input = input.clone();
        async move { (status_of(&ann, &input).await.status == 404).then_some(()) }
    })
    .await;
    assert!(!service.dir.path().join("files").join(&input).exists());
    status_of(&ann, &kept).await.expect(200);
    assert!(
        ann.search_uids(&format!("fileUID={input}"))
            .await
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_work_after_the_images_and_tmp_folders_are_removed() {
    let service = TestService::start().await;
    let ann = service.session("ann").await;
    for folder in ["images", "tmp"] {
        std::fs::remove_dir_all(service.dir.path().join(folder)).unwrap();
    }
    let uid = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    status_of(&ann, &uid).await.expect(200);
    assert_eq!(fetch_status(&thumbnail_url(&ann, &uid).await).await, 200);
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 2), true)
        .await;
    wait_until(DEADLINE, "the async input to be indexed", || {
        let ann = ann.clone();
        let input = input.clone();
        async move { (status_of(&ann, &input).await.status == 200).then_some(()) }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_descriptor_is_indexed_again_instead_of_failing_every_search() {
    let mut service = TestService::start().await;
    let ann = service.session("ann").await;
    let database = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    let input = ann
        .upload_search_input(".png", &png(Shape::Disc, 2), false)
        .await;
    let found_by_input = |ann: service_support::Session, input: String, database: String| async move {
        (ann.search_uids(&format!("fileUID={input}")).await == vec![database]).then_some(())
    };
    assert!(
        found_by_input(ann.clone(), input.clone(), database.clone())
            .await
            .is_some()
    );
    // A damaged input: the search answers (no matches while it is indexed again), then finds
    // the file again.
    service.damage_descriptors(&input);
    let reply = ann.search(&format!("fileUID={input}")).await;
    reply.expect(200);
    wait_until(DEADLINE, "the input to be indexed again", || {
        found_by_input(ann.clone(), input.clone(), database.clone())
    })
    .await;
    // A damaged database file is indexed again at the next start.
    service.damage_descriptors(&database);
    service.restart_with(|_| {}).await;
    let ann = service_support::Session {
        base: service.base.clone(),
        ..ann
    };
    wait_until(DEADLINE, "the database file to be indexed again", || {
        found_by_input(ann.clone(), input.clone(), database.clone())
    })
    .await;
}
