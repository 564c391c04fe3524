//! What an operator watches: `GET /metrics` after a session of requests (requests by route
//! template and status, latency of search and upload, the indexing queue of a company, reader kills,
//! database connections), served on loopback and not on a public address unless turned on; and the
//! log on stderr as JSON lines with `--log-format json`.

// Helpers outside #[test] functions unwrap too: a failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use partlens_service::metrics::MetricsExposure;
use partlens_testkit::service::{
    Child, Shape, TestService, first_stdout_line, png, serve_command, wait_until,
};

/// One sample of the Prometheus text format: metric name, labels, value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// The samples of a Prometheus text exposition (comments skipped); panics on a line that is not
/// one, so a malformed exposition fails the test.
fn samples(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (series, value) = line
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("not a sample: {line}"));
            let value = match value {
                "+Inf" => f64::INFINITY,
                value => value
                    .parse()
                    .unwrap_or_else(|_| panic!("not a value: {line}")),
            };
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => (name, labels_of(rest.strip_suffix('}').unwrap(), line)),
                None => (series, BTreeMap::new()),
            };
            Sample {
                name: name.to_owned(),
                labels,
                value,
            }
        })
        .collect()
}

/// The labels `key="value",…` of a sample (no escapes in the values this service writes).
fn labels_of(mut text: &str, line: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    while !text.is_empty() {
        let (key, rest) = text
            .split_once("=\"")
            .unwrap_or_else(|| panic!("bad labels: {line}"));
        let (value, rest) = rest
            .split_once('"')
            .unwrap_or_else(|| panic!("bad labels: {line}"));
        assert!(!value.contains('\\'), "escaped label value: {line}");
        labels.insert(key.to_owned(), value.to_owned());
        text = rest.strip_prefix(',').unwrap_or(rest);
    }
    labels
}

/// The value of the sample `name` whose labels include every one of `labels`; `None` when there is
/// none. Panics when several match (the labels given should pick one series).
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let found: Vec<&Sample> = samples
        .iter()
        .filter(|sample| {
            sample.name == name
                && labels
                    .iter()
                    .all(|(key, value)| sample.labels.get(*key).map(String::as_str) == Some(value))
        })
        .collect();
    assert!(found.len() <= 1, "{name} {labels:?} matches {found:?}");
    found.first().map(|sample| sample.value)
}

/// How many reader workers the service at `base` says it killed at `limit` (`time`, `cpu`,
/// `memory`), from its `GET /metrics`.
pub(crate) async fn readers_killed_at(base: &str, limit: &str) -> f64 {
    let text = metrics_text(base).await;
    value(
        &samples(&text),
        "partlens_reader_workers_killed_total",
        &[("limit", limit)],
    )
    .unwrap_or_else(|| panic!("no {limit} kills in\n{text}"))
}

/// The text of `GET /metrics` of a service at `base` (200 asserted).
pub(crate) async fn metrics_text(base: &str) -> String {
    let reply = get_metrics(base).await;
    assert_eq!(reply.status(), 200);
    reply.text().await.unwrap()
}

/// `GET /metrics` of a service at `base`, without a token.
async fn get_metrics(base: &str) -> reqwest::Response {
    partlens_api::client::plain_http_client()
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_a_session_by_route_template_and_show_the_queue_and_the_connections() {
    // No indexing workers: an asynchronous upload stays in the queue, to be counted there.
    let service = TestService::start_with(|config| config.index_workers = 0).await;
    // A token request, a database file (indexed during its upload), a search input left queued,
    // a search, and a path no route has, with a GUID in it.
    let ann = service.session("ann").await;
    let indexed = ann
        .upload_database_file("Parts/disc.png", png(Shape::Disc, 1), &[])
        .await;
    let queued = ann
        .upload_search_input(".png", &png(Shape::Disc, 2), true)
        .await;
    assert_eq!(ann.search_uids("").await, vec![indexed.clone()]);
    let made_up = uuid::Uuid::new_v4().to_string();
    ann.get(&format!("/api/Parts/{made_up}")).await.expect(404);
    let company = ann
        .get(&format!("/api/File?fileUID={indexed}"))
        .await
        .json()["VizSpaceID"]
        .as_str()
        .unwrap()
        .to_owned();

    let reply = get_metrics(&service.base).await;
    assert_eq!(reply.status(), 200);
    let content_type = reply.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let text = reply.text().await.unwrap();
    let samples = samples(&text);

    // Requests by route template and status: the token request, and the unknown path under one
    // fixed label; no path asked, file UID or made-up GUID is a label.
    let requests = "partlens_http_requests_total";
    let token = value(
        &samples,
        requests,
        &[
            ("route", "/api/token"),
            ("method", "POST"),
            ("status", "200"),
        ],
    );
    assert!(token.is_some_and(|count| count >= 1.0), "{text}");
    let unmatched = value(
        &samples,
        requests,
        &[("route", "unmatched"), ("method", "GET"), ("status", "404")],
    );
    assert!(unmatched.is_some_and(|count| count >= 1.0), "{text}");
    for uid in [&made_up, &indexed, &queued] {
        assert!(!text.contains(uid.as_str()), "{uid} in\n{text}");
    }
    for sample in samples.iter().filter(|sample| sample.name == requests) {
        let route = &sample.labels["route"];
        assert!(
            route == "unmatched" || route.starts_with("/api/"),
            "route label {route}"
        );
    }

    // Latency of the search and of both uploads, in one histogram by route.
    let count = "partlens_http_request_duration_seconds_count";
    for (route, method) in [
        ("/api/search", "GET"),
        ("/api/filebinary", "PUT"),
        ("/api/file", "PUT"),
    ] {
        let timed = value(&samples, count, &[("route", route), ("method", method)]);
        assert!(timed.is_some_and(|count| count >= 1.0), "{route}: {text}");
        let every = value(
            &samples,
            "partlens_http_request_duration_seconds_bucket",
            &[("route", route), ("method", method), ("le", "+Inf")],
        );
        assert_eq!(every, timed, "{route}");
    }

    // The company's queue holds the search input left queued; the other company's is there, empty
    // of work like it, under its id.
    let depth = "partlens_indexing_queue_depth";
    assert_eq!(
        value(
            &samples,
            depth,
            &[("company_id", &company), ("state", "queued")]
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        value(
            &samples,
            depth,
            &[("company_id", &company), ("state", "in_progress")]
        ),
        Some(0.0),
        "{text}"
    );
    let companies: Vec<&String> = samples
        .iter()
        .filter(|sample| sample.name == depth && sample.labels["state"] == "queued")
        .map(|sample| &sample.labels["company_id"])
        .collect();
    assert_eq!(companies.len(), 2, "Acme and Globex: {text}");
    assert!(
        companies.iter().all(|id| uuid::Uuid::parse_str(id).is_ok()),
        "{companies:?}"
    );

    // No reader was killed, and every limit is there from the start.
    for limit in ["time", "cpu", "memory"] {
        assert_eq!(
            value(
                &samples,
                "partlens_reader_workers_killed_total",
                &[("limit", limit)]
            ),
            Some(0.0),
            "{limit}: {text}"
        );
    }

    // The connections of whichever database the service runs on.
    let engine = if service.database.is_some() {
        "postgresql"
    } else {
        "sqlite"
    };
    for state in ["idle", "in_use"] {
        let connections = value(
            &samples,
            "partlens_database_connections",
            &[("engine", engine), ("state", state)],
        );
        assert!(
            connections.is_some_and(|count| count >= 0.0),
            "{state}: {text}"
        );
    }
    let idle = value(
        &samples,
        "partlens_database_connections",
        &[("engine", engine), ("state", "idle")],
    );
    assert!(idle.is_some_and(|count| count >= 1.0), "{text}");
    let max = value(
        &samples,
        "partlens_database_connections_max",
        &[("engine", engine)],
    );
    match engine {
        "postgresql" => assert!(max.is_some_and(|max| max >= 1.0), "{text}"),
        _ => assert_eq!(max, None, "{text}"),
    }
    // The session's token lookups were reads, its login and upload writes.
    for kind in ["read", "write"] {
        let transactions = value(
            &samples,
            "partlens_database_transactions_total",
            &[("engine", engine), ("kind", kind)],
        );
        assert!(
            transactions.is_some_and(|count| count >= 1.0),
            "{kind}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_beyond_loopback_are_served_only_when_turned_on() {
    // Bound to every interface (spoken to over 127.0.0.1): off unless turned on.
    for (exposure, served) in [(MetricsExposure::Auto, false), (MetricsExposure::On, true)] {
        let service = TestService::start_with(|config| {
            config.addr = "0.0.0.0:0".parse().unwrap();
            config.metrics = exposure;
        })
        .await;
        let port = service.base.rsplit(':').next().unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let reply = get_metrics(&base).await;
        if served {
            assert_eq!(reply.status(), 200, "{exposure:?}");
            let text = reply.text().await.unwrap();
            assert!(
                text.contains("partlens_reader_workers_killed_total"),
                "{text}"
            );
        } else {
            // A 404 like any unknown route, word for word.
            let status = reply.status();
            let body = reply.text().await.unwrap();
            let unknown = partlens_api::client::plain_http_client()
                .get(format!("{base}/nothing-here"))
                .send()
                .await
                .unwrap();
            assert_eq!(status, 404, "{exposure:?}: {body}");
            assert_eq!(unknown.status(), 404);
            assert_eq!(body, unknown.text().await.unwrap());
        }
    }
    // Turned off, not even on loopback.
    let service = TestService::start_with(|config| config.metrics = MetricsExposure::Off).await;
    assert_eq!(get_metrics(&service.base).await.status(), 404);
}

/// Reads `stream` line by line into a list shared with the test, until it ends.
fn collect_lines(stream: impl std::io::Read + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let kept = lines.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            kept.lock().unwrap().push(line);
        }
    });
    lines
}

/// Asserts that every line is a JSON object with a level and fields, and returns them.
fn json_lines(lines: &[String]) -> Vec<serde_json::Value> {
    lines
        .iter()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not JSON ({error}): {line}"));
            assert!(value["level"].is_string(), "{line}");
            assert!(value["fields"].is_object(), "{line}");
            value
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_format_json_writes_every_stderr_line_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // `--log-format json` after `serve`: stdout's first line is as scripts read it.
    let mut command = serve_command(&data, &["--log-format", "json"]);
    command.stderr(Stdio::piped());
    let mut server = Child(command.stdout(Stdio::piped()).spawn().unwrap());
    let stderr = collect_lines(server.0.stderr.take().unwrap());
    let first_line = first_stdout_line(&mut server).await;
    let base = first_line
        .strip_prefix("listening on http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix('\n'))
        .and_then(|port| port.parse::<u16>().ok())
        .map(|port| format!("http://127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("first line: {first_line:?}"));
    let version = partlens_api::client::plain_http_client()
        .get(format!("{base}/api/Version"))
        .send()
        .await
        .unwrap();
    assert_eq!(version.status(), 200);
    // The start and the request are logged, each one JSON object.
    let logged = wait_until(Duration::from_secs(30), "the request logged", || {
        let lines = stderr.lock().unwrap().clone();
        async move {
            let logged = json_lines(&lines);
            let message =
                |value: &serde_json::Value, text: &str| value["fields"]["message"] == text;
            (logged.iter().any(|value| message(value, "service started"))
                && logged.iter().any(|value| {
                    message(value, "request") && value["fields"]["path"] == "/api/Version"
                }))
            .then_some(logged)
        }
    })
    .await;
    let request = logged
        .iter()
        .find(|value| value["fields"]["message"] == "request")
        .unwrap();
    assert_eq!(request["fields"]["status"], 200);
    assert_eq!(request["level"], "INFO");

    // PARTLENS_LOG_FORMAT does the same, and a service that cannot start says why in JSON too:
    // here its address is taken by the first.
    let address = base.strip_prefix("http://").unwrap();
    let taken = Command::new(partlens_testkit::program("partlens-service"))
        .arg("--data")
        .arg(dir.path().join("second"))
        .args(["serve", "--addr", address])
        .env("PARTLENS_LOG_FORMAT", "json")
        .output()
        .unwrap();
    assert!(!taken.status.success());
    assert!(taken.stdout.is_empty(), "{:?}", taken.stdout);
    let lines: Vec<String> = String::from_utf8(taken.stderr)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let logged = json_lines(&lines);
    let stopped = logged
        .iter()
        .find(|value| value["level"] == "ERROR")
        .unwrap_or_else(|| panic!("no error logged: {lines:?}"));
    let error = stopped["fields"]["error"].as_str().unwrap();
    assert!(error.contains(address), "{error}");
    // Text stays the default: the same failure in words for people.
    let taken = Command::new(partlens_testkit::program("partlens-service"))
        .arg("--data")
        .arg(dir.path().join("second"))
        .args(["serve", "--addr", address])
        .env_remove("PARTLENS_LOG_FORMAT")
        .output()
        .unwrap();
    assert!(!taken.status.success());
    let words = String::from_utf8(taken.stderr).unwrap();
    let last = words.lines().last().unwrap_or_default();
    assert!(last.starts_with("partlens-service: "), "{words}");
    assert!(serde_json::from_str::<serde_json::Value>(last).is_err());
    drop(server);
}
