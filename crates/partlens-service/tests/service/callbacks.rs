//! Callbacks as an integrator meets them: a receiver on loopback (a small axum server in the
//! test) gets signed deliveries (the signature checked here independently, as a Standard
//! Webhooks library computes it) carrying the file and its `callbackParam`; a 500 is retried
//! with the same `webhook-id`; a private URL is refused without `--allow-private-callbacks`; a
//! company whose endpoint hangs does not hold another's deliveries; and nothing is lost when the
//! service is killed during 100 deliveries to a receiver that fails one call in five.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use base64::Engine as _;
use hmac::{KeyInit as _, Mac as _};

use partlens_callbacks::SenderSettings;
use partlens_callbacks::admin::{SetRequest, callback_log_in, set_callback_in};
use partlens_service::ServiceConfig;
use partlens_testkit::service as service_support;
use service_support::{Shape, TestService, png, wait_until};

/// One call the receiver got.
#[derive(Clone, Debug)]
struct Call {
    path: String,
    id: String,
    timestamp: String,
    signature: String,
    body: String,
    /// What the receiver answered (0 while the call is held open).
    status: u16,
}

/// How the receiver answers a call: its number (from 0), path and `webhook-id` in, a status out
/// (after the future the answer returns, which may hold the call open).
type Answer = Arc<
    dyn Fn(usize, &str, &str) -> futures_util::future::BoxFuture<'static, u16>
        + Send
        + Sync
        + 'static,
>;

#[derive(Clone)]
struct Receiver {
    base: String,
    calls: Arc<Mutex<Vec<Call>>>,
}

#[derive(Clone)]
struct ReceiverState {
    calls: Arc<Mutex<Vec<Call>>>,
    answer: Answer,
}

async fn receive(
    State(state): State<ReceiverState>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let id = header("webhook-id");
    let number = {
        let mut calls = state.calls.lock().unwrap();
        calls.push(Call {
            path: uri.path().to_owned(),
            id: id.clone(),
            timestamp: header("webhook-timestamp"),
            signature: header("webhook-signature"),
            body,
            status: 0,
        });
        calls.len() - 1
    };
    let status = (state.answer)(number, uri.path(), &id).await;
    state.calls.lock().unwrap()[number].status = status;
    StatusCode::from_u16(status).unwrap()
}

impl Receiver {
    /// A receiver on 127.0.0.1 answering as `answer` says.
    async fn start(answer: Answer) -> Self {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let app = axum::Router::new()
            .fallback(receive)
            .with_state(ReceiverState {
                calls: calls.clone(),
                answer,
            });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base, calls }
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// Waits until a call matching `wanted` was answered with a 2xx, and returns it.
    async fn delivered(&self, what: &str, wanted: impl Fn(&Call) -> bool) -> Call {
        wait_until(Duration::from_secs(30), what, || {
            let found = self
                .calls()
                .into_iter()
                .find(|call| (200..300).contains(&call.status) && wanted(call));
            async move { found }
        })
        .await
    }
}

/// Always `status`, at once.
fn always(status: u16) -> Answer {
    Arc::new(move |_, _, _| Box::pin(async move { status }))
}

/// The body's JSON.
fn body_of(call: &Call) -> serde_json::Value {
    serde_json::from_str(&call.body).unwrap()
}

/// True when the call's signature is the one `secret` makes, computed as a Standard Webhooks
/// library does: HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed by the base64-decoded bytes
/// after `whsec_`, compared with each `v1,` signature of the header.
fn signature_verifies(secret: &str, call: &Call) -> bool {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{}.{}.{}", call.id, call.timestamp, call.body).as_bytes());
    let expected = format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    );
    call.signature.split(' ').any(|given| given == expected)
}

/// Quick retries and short calls, private addresses allowed: what the tests run with.
fn quick(config: &mut ServiceConfig) {
    config.callbacks = SenderSettings::quick(Duration::from_millis(20), Duration::from_secs(2));
    config.callbacks.allow_private = true;
}

/// Sets `company`'s callback to `url` (the events given, or all) in the store of `config`;
/// returns the secret.
async fn set_callback(
    config: &ServiceConfig,
    company: &str,
    url: &str,
    events: Option<&[&str]>,
) -> String {
    let config = config.clone();
    let company = company.to_owned();
    let request = SetRequest {
        url: url.to_owned(),
        secret: None,
        events: events.map(|list| list.iter().map(|event| (*event).to_owned()).collect()),
        enabled: true,
        allow_private: true,
        ..SetRequest::default()
    };
    tokio::task::spawn_blocking(move || {
        set_callback_in(
            &config.data_dir,
            config.database.as_ref(),
            &company,
            &request,
        )
    })
    .await
    .unwrap()
    .unwrap()
    .settings
    .secret
}

/// `callback log` of `company`: its deliveries as JSON, newest first.
async fn log_of(config: &ServiceConfig, company: &str) -> Vec<serde_json::Value> {
    let config = config.clone();
    let company = company.to_owned();
    tokio::task::spawn_blocking(move || {
        callback_log_in(&config.data_dir, config.database.as_ref(), &company, 1000)
    })
    .await
    .unwrap()
    .unwrap()
    .iter()
    .map(|line| serde_json::from_str(line).unwrap())
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_are_signed_carry_the_file_and_its_callback_param_and_a_500_is_retried() {
    // The first call of each message is answered 500, the next one 204.
    let seen: Arc<Mutex<HashSet<String>>> = Arc::default();
    let answer: Answer = Arc::new(move |_, _, id| {
        let first = seen.lock().unwrap().insert(id.to_owned());
        Box::pin(async move { if first { 500 } else { 204 } })
    });
    let receiver = Receiver::start(answer).await;
    let service = TestService::start_with(quick).await;
    let secret = set_callback(
        &service.config,
        "Acme",
        &format!("{}/hook", receiver.base),
        None,
    )
    .await;
    let ann = service.session("ann").await;
    let admin = service.session("admin").await;

    let reply = ann
        .put_binary(
            "/api/FileBinary?file=Cb%2Fa.png&isSearchInput=false&callbackParam=job-7",
            png(Shape::Disc, 1),
        )
        .await;
    reply.expect(200);
    let uid = reply.string();
    let completed = receiver
        .delivered("the completion delivered", |call| {
            body_of(call)["type"] == "indexing.completed"
        })
        .await;
    let tries: Vec<Call> = receiver
        .calls()
        .into_iter()
        .filter(|call| call.id == completed.id)
        .collect();
    assert_eq!(
        tries.iter().map(|call| call.status).collect::<Vec<_>>(),
        [500, 204],
        "a 500, then the same webhook-id again"
    );
    assert!(completed.id.starts_with("msg_"));
    assert_eq!(completed.path, "/hook");
    for call in &tries {
        assert!(signature_verifies(&secret, call), "{call:?}");
        assert!(!signature_verifies(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            call
        ));
    }
    let data = &body_of(&completed)["data"];
    assert_eq!(data["UID"], uid.as_str());
    assert_eq!(data["StoredPath"], "Cb/a.png");
    assert_eq!(data["Event"], "indexing.completed");
    assert_eq!(data["Status"], "completed");
    assert!(data["IndexTimestamp"].is_string(), "{data}");
    assert_eq!(data["FailureReason"], serde_json::Value::Null);
    assert_eq!(data["CallbackParam"], "job-7");

    // A file that cannot be indexed: indexing.failed with the reason.
    let reply = ann
        .put_binary(
            "/api/FileBinary?file=Cb%2Fbroken.png&isSearchInput=false&callbackParam=job-8",
            vec![7; 4096],
        )
        .await;
    assert!(matches!(reply.status.as_u16(), 200 | 422), "{reply:?}");
    let failed = receiver
        .delivered("the failure delivered", |call| {
            body_of(call)["type"] == "indexing.failed"
        })
        .await;
    let data = &body_of(&failed)["data"];
    assert_eq!(data["Status"], "failed");
    assert_eq!(data["CallbackParam"], "job-8");
    assert!(
        !data["FailureReason"].as_str().unwrap().is_empty(),
        "{data}"
    );

    // A delete: file.deleted, with the callbackParam of the upload.
    admin
        .delete(&format!("/api/File?fileUID={uid}"))
        .await
        .expect(200);
    let deleted = receiver
        .delivered("the delete delivered", |call| {
            body_of(call)["type"] == "file.deleted"
        })
        .await;
    let data = &body_of(&deleted)["data"];
    assert_eq!(data["UID"], uid.as_str());
    assert_eq!(data["Status"], "deleted");
    assert_eq!(data["CallbackParam"], "job-7");

    // The log shows each delivery with its attempts: a retry, then delivered.
    let log = log_of(&service.config, "Acme").await;
    let entry = log
        .iter()
        .find(|entry| entry["id"] == completed.id.as_str())
        .unwrap();
    assert_eq!(entry["state"], "delivered");
    let outcomes: Vec<&str> = entry["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attempt| attempt["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["retry", "delivered"]);

    // The metrics count the attempts by outcome and the deliveries by state.
    let metrics = crate::metrics::metrics_text(&service.base).await;
    assert!(
        metrics.contains("partlens_callback_attempts_total{outcome=\"retry\"} 3"),
        "{metrics}"
    );
    assert!(
        metrics.contains("partlens_callback_deliveries{state=\"delivered\"} 3"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_url_is_refused_without_the_flag_when_set_and_when_sent() {
    let receiver = Receiver::start(always(204)).await;
    let url = format!("{}/hook", receiver.base);
    // Without the flag, the service sends to no loopback address.
    let service = TestService::start_with(|config| {
        quick(config);
        config.callbacks.allow_private = false;
    })
    .await;
    let config = service.config.clone();
    let refused = {
        let (config, url) = (config.clone(), url.clone());
        tokio::task::spawn_blocking(move || {
            let request = SetRequest {
                url,
                enabled: true,
                ..SetRequest::default()
            };
            set_callback_in(&config.data_dir, config.database.as_ref(), "Acme", &request)
        })
        .await
        .unwrap()
    };
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("--allow-private-callbacks"), "{message}");

    // Set by an operator who allowed it, then served by a service that does not allow it: the
    // send is refused at the address check, and retried (DNS may change), never sent.
    set_callback(&config, "Acme", &url, None).await;
    let ann = service.session("ann").await;
    ann.upload_database_file("Cb/private.png", png(Shape::Disc, 2), &[])
        .await;
    let error = wait_until(Duration::from_secs(30), "an attempt refused", || {
        let config = config.clone();
        async move {
            let log = log_of(&config, "Acme").await;
            log.first()
                .and_then(|entry| entry["last_error"].as_str().map(str::to_owned))
        }
    })
    .await;
    assert!(error.contains("--allow-private-callbacks"), "{error}");
    assert!(receiver.calls().is_empty(), "nothing reached the receiver");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_company_whose_endpoint_hangs_does_not_delay_another_company() {
    // Acme's endpoint holds its calls open until the test opens it; Globex's answers at once.
    let release = Arc::new(tokio::sync::Notify::new());
    let open = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (held, opened) = (release.clone(), open.clone());
    let answer: Answer = Arc::new(move |_, path, _| {
        let held = held.clone();
        let hangs = path == "/acme" && !opened.load(std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move {
            if hangs {
                held.notified().await;
            }
            204
        })
    });
    let receiver = Receiver::start(answer).await;
    let service = TestService::start_with(|config| {
        quick(config);
        config.callbacks.call_timeout = Duration::from_secs(60);
    })
    .await;
    set_callback(
        &service.config,
        "Acme",
        &format!("{}/acme", receiver.base),
        None,
    )
    .await;
    set_callback(
        &service.config,
        "Globex",
        &format!("{}/globex", receiver.base),
        None,
    )
    .await;
    let ann = service.session("ann").await;
    let gus = service.session("gus").await;
    for n in 0..3 {
        ann.upload_database_file(&format!("Cb/acme{n}.png"), png(Shape::Disc, 10 + n), &[])
            .await;
    }
    wait_until(Duration::from_secs(30), "Acme's first call", || {
        let calls = receiver.calls();
        async move { calls.iter().any(|call| call.path == "/acme").then_some(()) }
    })
    .await;
    gus.upload_database_file("Cb/globex.png", png(Shape::Bracket, 20), &[])
        .await;
    receiver
        .delivered("Globex's delivery", |call| call.path == "/globex")
        .await;
    // Meanwhile Acme's one call in flight is still held, and no other of its deliveries was
    // started beside it.
    let acme: Vec<Call> = receiver
        .calls()
        .into_iter()
        .filter(|call| call.path == "/acme")
        .collect();
    assert_eq!(acme.len(), 1, "one call of a company at a time: {acme:?}");
    assert_eq!(acme[0].status, 0, "still held");
    open.store(true, std::sync::atomic::Ordering::SeqCst);
    release.notify_one();
    for n in 0..3 {
        let stored = format!("Cb/acme{n}.png");
        receiver
            .delivered("Acme's deliveries after the release", |call| {
                body_of(call)["data"]["StoredPath"] == stored.as_str()
            })
            .await;
    }
}

/// `partlens-service serve` on the data (and database) of `service`, with quick retries, private
/// callbacks allowed and no indexing workers.
async fn serve_child(service: &TestService) -> service_support::Child {
    let mut command = service_support::serve_command(
        service.dir.path(),
        &["--allow-private-callbacks", "--index-workers", "0"],
    );
    command
        .env("PARTLENS_CALLBACK_RETRY_BASE_MS", "20")
        .env("PARTLENS_CALLBACK_TIMEOUT_MS", "2000");
    if let Some(database) = &service.database {
        command.env("PARTLENS_DATABASE_URL", &database.url);
    }
    service_support::serve_child(command).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_event_is_lost_when_the_service_is_killed_during_a_hundred_deliveries() {
    const EVENTS: usize = 100;
    // Every fifth call fails (500); each call takes a few milliseconds, so the kill comes in
    // the middle of the deliveries.
    let answer: Answer = Arc::new(|number, _, _| {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            if number % 5 == 4 { 500 } else { 204 }
        })
    });
    let receiver = Receiver::start(answer).await;
    // The events are recorded by a service whose sender does not send (it looks once, at
    // start): 100 deletes, each an event in the outbox.
    let mut service = TestService::start_with(|config| {
        quick(config);
        config.callbacks.poll = Duration::from_secs(3600);
    })
    .await;
    set_callback(
        &service.config,
        "Acme",
        &format!("{}/hook", receiver.base),
        Some(&["file.deleted"]),
    )
    .await;
    let admin = service.session("admin").await;
    let mut uids = Vec::new();
    for n in 0..EVENTS {
        let reply = admin
            .put_binary(
                &format!("/api/FileBinary?file=Kill%2F{n}.png&isSearchInput=false&textOnly=true"),
                png(Shape::Disc, 100 + n as u32),
            )
            .await;
        reply.expect(200);
        uids.push(reply.string());
    }
    for uid in &uids {
        admin
            .delete(&format!("/api/File?fileUID={uid}"))
            .await
            .expect(200);
    }
    service.stop().await;
    let pending = log_of(&service.config, "Acme").await;
    assert_eq!(pending.len(), EVENTS);
    assert!(receiver.calls().is_empty());

    // The sending service is killed (SIGKILL) once 40 calls were made.
    let mut child = serve_child(&service).await;
    wait_until(Duration::from_secs(60), "40 calls", || {
        let made = receiver.calls().len();
        async move { (made >= 40).then_some(()) }
    })
    .await;
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let calls_before_kill = receiver.calls().len();
    let recorded: HashSet<String> = log_of(&service.config, "Acme")
        .await
        .iter()
        .filter(|entry| entry["state"] == "delivered")
        .map(|entry| entry["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        recorded.len() < EVENTS,
        "the kill came before every delivery was recorded"
    );
    drop(child);

    // Restarted on the same data: every event is delivered.
    let _child = serve_child(&service).await;
    let ids: HashSet<String> = pending
        .iter()
        .map(|entry| entry["id"].as_str().unwrap().to_owned())
        .collect();
    wait_until(Duration::from_secs(120), "every event delivered", || {
        let delivered: HashSet<String> = receiver
            .calls()
            .into_iter()
            .filter(|call| (200..300).contains(&call.status))
            .map(|call| call.id)
            .collect();
        let done = ids.is_subset(&delivered);
        async move { done.then_some(()) }
    })
    .await;
    let calls = receiver.calls();
    // A delivery whose 2xx was recorded before the kill is never sent again; a repeat is only
    // of one whose 2xx was not recorded (the kill came between the answer and the record).
    let mut delivered_times: HashMap<&str, usize> = HashMap::new();
    for call in calls
        .iter()
        .filter(|call| (200..300).contains(&call.status))
    {
        *delivered_times.entry(call.id.as_str()).or_default() += 1;
    }
    for call in &calls[calls_before_kill..] {
        assert!(
            !recorded.contains(&call.id),
            "{} was delivered and recorded before the kill, and sent again",
            call.id
        );
    }
    let repeats: Vec<&&str> = delivered_times
        .iter()
        .filter(|(_, times)| **times > 1)
        .map(|(id, _)| id)
        .collect();
    for id in &repeats {
        assert!(!recorded.contains(**id));
    }
    assert!(
        repeats.len() <= 1,
        "one call in flight at the kill: {repeats:?}"
    );
    println!(
        "{} calls before the kill, {} recorded delivered; {} delivered twice (2xx not recorded \
         before the kill)",
        calls_before_kill,
        recorded.len(),
        repeats.len()
    );
    assert!(calls.iter().all(|call| ids.contains(&call.id)));
    let log = wait_until(Duration::from_secs(30), "every delivery recorded", || {
        let config = service.config.clone();
        async move {
            let log = log_of(&config, "Acme").await;
            log.iter()
                .all(|entry| entry["state"] == "delivered")
                .then_some(log)
        }
    })
    .await;
    assert_eq!(log.len(), EVENTS);
}

/// `partlens-service … callback ARGS` on the store of `service`, with private callbacks allowed;
/// its exit status and stdout.
fn callback_command(service: &TestService, args: &[&str]) -> (bool, String) {
    let mut command = std::process::Command::new(partlens_testkit::program("partlens-service"));
    command
        .arg("--data")
        .arg(service.dir.path())
        .arg("--allow-private-callbacks")
        .arg("callback")
        .args(args);
    if let Some(database) = &service.database {
        command.env("PARTLENS_DATABASE_URL", &database.url);
    }
    let output = command.output().unwrap();
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callback_commands_set_show_test_and_log() {
    let receiver = Receiver::start(always(204)).await;
    let service = TestService::start_with(quick).await;
    let url = format!("{}/hook", receiver.base);
    let service = Arc::new(service);
    let run = |args: Vec<String>| {
        let service = service.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                callback_command(&service, &args)
            })
            .await
            .unwrap()
        }
    };
    let strings = |list: &[&str]| list.iter().map(|item| (*item).to_owned()).collect();
    let (ok, set) = run(strings(&[
        "set",
        "--company",
        "Acme",
        "--url",
        &url,
        "--events",
        "indexing.completed,file.deleted",
    ]))
    .await;
    assert!(ok, "{set}");
    let secret = set
        .lines()
        .find_map(|line| line.strip_prefix("secret in full (give it to the receiver)\t"))
        .unwrap()
        .to_owned();
    assert!(secret.starts_with("whsec_"));
    let (ok, show) = run(strings(&["show", "--company", "Acme"])).await;
    assert!(ok);
    assert!(
        show.contains("events\tindexing.completed,file.deleted"),
        "{show}"
    );
    assert!(show.contains("secret\twhsec_…"), "{show}");
    assert!(!show.contains(&secret), "the secret is masked: {show}");
    let (ok, test) = run(strings(&["test", "--company", "Acme"])).await;
    assert!(ok, "{test}");
    assert_eq!(test.trim(), "the receiver answered 204");
    let call = receiver.calls().pop().unwrap();
    assert_eq!(body_of(&call)["type"], "callback.test");
    assert!(signature_verifies(&secret, &call));
    let (ok, log) = run(strings(&["log", "--company", "Acme"])).await;
    assert!(ok);
    let entry: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(entry["id"], call.id.as_str());
    assert_eq!(entry["state"], "delivered");
    // An event that is not one is refused, naming the events.
    let (ok, _) = run(strings(&[
        "set",
        "--company",
        "Acme",
        "--url",
        &url,
        "--events",
        "file.renamed",
    ]))
    .await;
    assert!(!ok);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_sets_reads_and_tests_the_callback_over_http_and_others_may_not() {
    let receiver = Receiver::start(always(204)).await;
    let url = format!("{}/hook", receiver.base);
    let body = |url: &str| {
        serde_json::json!({"Url": url, "Events": ["indexing.completed", "file.deleted"],
                           "Enabled": true})
        .to_string()
    };
    // Without --allow-private-callbacks: an empty callback to begin with, a loopback URL refused
    // saying what to do, and only admins (with a token) may call.
    let mut service = TestService::start_with(|config| {
        quick(config);
        config.callbacks.allow_private = false;
    })
    .await;
    let admin = service.session("admin").await;
    let shown = admin.get("/api/Callback").await;
    shown.expect(200);
    let shown = shown.json();
    assert_eq!(shown["Settings"]["Url"], "");
    assert_eq!(shown["Settings"]["Enabled"], false);
    assert_eq!(shown["Deliveries"], serde_json::json!([]));
    let refused = admin.put_json("/api/Callback", body(&url)).await;
    refused.expect(400);
    assert!(
        refused.text().contains("--allow-private-callbacks"),
        "{}",
        refused.text()
    );
    let ann = service.session("ann").await;
    for reply in [
        ann.get("/api/Callback").await,
        ann.put_json("/api/Callback", body(&url)).await,
        ann.send(reqwest::Method::POST, "/api/Callback/Test", None, None)
            .await,
    ] {
        reply.expect(403);
        assert!(
            reply.text().contains("only an admin may"),
            "{}",
            reply.text()
        );
    }
    service
        .anonymous(None)
        .get("/api/Callback")
        .await
        .expect(401);

    // With it: set (the secret made is answered once), read (never the secret), test.
    service.restart_with(quick).await;
    let admin = service.session("admin").await;
    let saved = admin.put_json("/api/Callback", body(&url)).await;
    saved.expect(200);
    let saved = saved.json();
    let secret = saved["Secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{saved}");
    assert_eq!(saved["SecretSet"], true);
    let bad = admin
        .put_json(
            "/api/Callback",
            serde_json::json!({"Url": url, "Events": ["file.renamed"], "Enabled": true})
                .to_string(),
        )
        .await;
    bad.expect(400);
    assert!(bad.text().contains("indexing.completed"), "{}", bad.text());
    let tested = admin
        .send(reqwest::Method::POST, "/api/Callback/Test", None, None)
        .await;
    tested.expect(200);
    let tested = tested.json();
    assert_eq!(tested["Delivered"], true, "{tested}");
    assert_eq!(tested["Status"], 204);
    let call = receiver.calls().pop().unwrap();
    assert_eq!(body_of(&call)["type"], "callback.test");
    assert!(signature_verifies(&secret, &call));
    // The events set are the ones recorded: a completion is delivered.
    admin
        .upload_database_file("Cb/http.png", png(Shape::Disc, 30), &[])
        .await;
    receiver
        .delivered("the completion", |call| {
            body_of(call)["type"] == "indexing.completed"
        })
        .await;
    let shown = wait_until(Duration::from_secs(30), "both deliveries listed", || {
        let admin = &admin;
        async move {
            let shown = admin.get("/api/Callback").await.json();
            (shown["Deliveries"].as_array().map_or(0, Vec::len) == 2
                && shown["Deliveries"][0]["State"] == "delivered")
                .then_some(shown)
        }
    })
    .await;
    let text = shown.to_string();
    assert!(
        !text.contains(&secret),
        "the secret is never shown again: {text}"
    );
    assert_eq!(shown["Settings"]["Url"], url.as_str());
    assert_eq!(
        shown["Settings"]["Events"],
        serde_json::json!(["indexing.completed", "file.deleted"])
    );
    assert_eq!(shown["Settings"]["SecretSet"], true);
    let newest = &shown["Deliveries"][0];
    assert_eq!(newest["Event"], "indexing.completed");
    assert_eq!(newest["StoredPath"], "Cb/http.png");
    assert_eq!(newest["Attempts"], 1);
    assert_eq!(shown["Deliveries"][1]["Event"], "callback.test");
    // Saved again without a secret: the secret is kept and not answered; an empty URL is off.
    let kept = admin.put_json("/api/Callback", body("")).await;
    kept.expect(200);
    let kept = kept.json();
    assert!(kept.get("Secret").is_none(), "{kept}");
    assert_eq!(kept["Enabled"], false);
    assert_eq!(kept["Url"], "");
}
