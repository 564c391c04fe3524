//! Prometheus metrics on `GET /metrics` (Prometheus text format 0.0.4): requests by route, method
//! and status with their latency, the indexing queue's depth by company, reader workers killed at a
//! limit, the database connections in use, the store's transactions by kind and the files not yet
//! paired with their candidate duplicates.
//!
//! **Who may read them.** A scraper has no token, so the metrics are served only where nobody but
//! the machine's own users reach them: on a loopback address by default ([`MetricsExposure::Auto`]),
//! on any other address only when the operator says so (`--metrics on`, `PARTLENS_METRICS=on`),
//! typically behind a firewall that lets only the Prometheus server in. When they are off,
//! `GET /metrics` is a 404 like any unknown route and no request is measured.
//!
//! **Labels stay few.** A route is labelled by its template (`/api/file`), never by the path asked
//! (an unknown path is [`UNMATCHED_ROUTE`]), a method outside the standard ones is `other`, and a
//! company by its id (a GUID), never its name: names are chosen by people, ids are fixed. The
//! queue's depth, the connections and the transactions are read when a scraper asks, not kept up to
//! date.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use partlens_sandbox::SandboxFailure;

use partlens_callbacks::AttemptCounts;
use partlens_store::model::{DeliveryCounts, QueueDepth};
use partlens_store::{PoolUse, TransactionCounts};

/// The route label of a request no route matched (a 404): one fixed value, so paths made up by
/// clients never become series.
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// Upper bounds of the request latency buckets, in seconds: from 1 ms (a health check, a token
/// from memory) to 60 s (a model read at the default reader time limit during its upload).
const LATENCY_BUCKETS: [f64; 15] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// Whether `GET /metrics` is served (`serve --metrics`, `PARTLENS_METRICS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MetricsExposure {
    /// Served when the service is bound to a loopback address only.
    #[default]
    Auto,
    /// Served on whatever address the service is bound to.
    On,
    /// Never served.
    Off,
}

impl MetricsExposure {
    /// True when a service bound to `bound` serves its metrics: always for `On`, never for `Off`,
    /// and for `Auto` only on a loopback address (`127.0.0.0/8`, `::1`; not `0.0.0.0`, which is
    /// every interface).
    pub fn served_on(self, bound: SocketAddr) -> bool {
        match self {
            Self::On => true,
            Self::Off => false,
            Self::Auto => bound.ip().to_canonical().is_loopback(),
        }
    }
}

/// The labels of a request counted.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: &'static str,
    status: u16,
}

/// The labels of a request timed.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
    method: &'static str,
}

/// The labels of a company's queue depth.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabels {
    company_id: String,
    state: &'static str,
}

/// The labels of a reader worker killed.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitLabels {
    limit: &'static str,
}

/// The labels of the database connections.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ConnectionLabels {
    engine: &'static str,
    state: &'static str,
}

/// The label of the database's most connections.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EngineLabels {
    engine: &'static str,
}

/// The label of the callbacks' deliveries by state.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeliveryLabels {
    state: &'static str,
}

/// The label of the views of graphs by where they are kept.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PlaceLabels {
    place: &'static str,
}

/// The labels of the store's transactions counted.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TransactionLabels {
    engine: &'static str,
    kind: &'static str,
}

/// A latency histogram with [`LATENCY_BUCKETS`].
fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// Reader workers killed at a limit (time, CPU, memory), counted by the indexer whether or not the
/// metrics are served. Cheap to clone; clones count together.
#[derive(Clone, Debug)]
pub struct ReaderKills(Family<LimitLabels, Counter>);

impl Default for ReaderKills {
    /// Every limit at 0, so the series exist before the first kill.
    fn default() -> Self {
        let family = Family::<LimitLabels, Counter>::default();
        for limit in ["time", "cpu", "memory"] {
            drop(family.get_or_create(&LimitLabels { limit }));
        }
        Self(family)
    }
}

impl ReaderKills {
    /// Counts `failure` when it is a worker killed at a limit; other failures (a crash, a cancel,
    /// a worker that did not start) are not kills by a limit.
    pub fn count(&self, failure: &SandboxFailure) {
        let limit = match failure {
            SandboxFailure::TimeLimit(_) => "time",
            SandboxFailure::CpuLimit(_) => "cpu",
            SandboxFailure::MemoryLimit(_) => "memory",
            SandboxFailure::Crashed { .. }
            | SandboxFailure::OtherBuild { .. }
            | SandboxFailure::Cancelled
            | SandboxFailure::CannotStart(_) => return,
        };
        self.0.get_or_create(&LimitLabels { limit }).inc();
    }

    /// How many workers were killed at `limit` (`time`, `cpu`, `memory`).
    pub fn killed_at(&self, limit: &'static str) -> u64 {
        self.0.get_or_create(&LimitLabels { limit }).get()
    }
}

/// The metrics of one running service and their registry.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Family<RouteLabels, Histogram, fn() -> Histogram>,
    queue_depth: Family<QueueLabels, Gauge>,
    connections: Family<ConnectionLabels, Gauge>,
    connections_max: Family<EngineLabels, Gauge>,
    transactions: Family<TransactionLabels, Counter>,
    callback_deliveries: Family<DeliveryLabels, Gauge>,
    graph_views: Family<PlaceLabels, Gauge>,
    unpaired_files: Gauge,
    /// One scrape at a time: a scrape sets the gauges read at scrape time, then encodes them.
    scrape: Mutex<()>,
}

impl Metrics {
    /// The metrics of a service whose indexer counts reader kills in `reader_kills` and whose
    /// callbacks' sender counts its attempts in `callback_attempts`.
    pub fn new(reader_kills: &ReaderKills, callback_attempts: &AttemptCounts) -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        let durations: Family<RouteLabels, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(latency_histogram);
        let queue_depth = Family::<QueueLabels, Gauge>::default();
        let connections = Family::<ConnectionLabels, Gauge>::default();
        let connections_max = Family::<EngineLabels, Gauge>::default();
        let transactions = Family::<TransactionLabels, Counter>::default();
        registry.register(
            "partlens_http_requests",
            "HTTP requests answered, by route template, method and status code",
            requests.clone(),
        );
        registry.register(
            "partlens_http_request_duration_seconds",
            "Time from a request's arrival to its reply's headers, by route template and method \
             (search: route /api/search; upload: /api/file PUT, /api/filebinary, \
             /api/filebinarydirect)",
            durations.clone(),
        );
        registry.register(
            "partlens_indexing_queue_depth",
            "Files in the indexing queue by company id and state (queued, in_progress); on \
             PostgreSQL the queue every node shares",
            queue_depth.clone(),
        );
        registry.register(
            "partlens_reader_workers_killed",
            "Reader worker processes stopped at a limit (time, cpu, memory) since the start",
            reader_kills.0.clone(),
        );
        registry.register(
            "partlens_database_connections",
            "Database connections by engine and state (idle, in_use)",
            connections.clone(),
        );
        registry.register(
            "partlens_database_connections_max",
            "The most connections the database pool opens (PostgreSQL only)",
            connections_max.clone(),
        );
        registry.register(
            "partlens_database_transactions",
            "Store transactions run since the service started, by engine and kind (read: one \
             snapshot; write: after every other writer; queue: the indexing queue's claims)",
            transactions.clone(),
        );
        let callback_deliveries = Family::<DeliveryLabels, Gauge>::default();
        registry.register(
            "partlens_callback_deliveries",
            "Callback deliveries in the outbox by state (pending: waiting or being sent; \
             delivered; failed: given up), every company; on PostgreSQL the outbox every node shares",
            callback_deliveries.clone(),
        );
        registry.register(
            "partlens_callback_attempts",
            "Callback attempts made by this process since the start, by outcome (delivered; \
             retry: tried again later; failed: refused or given up)",
            callback_attempts.0.clone(),
        );
        let unpaired_files = Gauge::default();
        registry.register(
            "partlens_duplicates_unpaired_files",
            "Indexed database files with views not yet paired with their candidate duplicates, \
             every company: the start-up backfill's work left (GET /api/Duplicates groups the \
             paired files only)",
            unpaired_files.clone(),
        );
        let graph_views = Family::<PlaceLabels, Gauge>::default();
        registry.register(
            "partlens_visual_graph_views",
            "Views of the companies searched through a graph, by where they are kept (graph: \
             searched and scored; beside: a model's views from the directions left out of the \
             graph by --graph-directions, scored only), every company on this node",
            graph_views.clone(),
        );
        Self {
            registry,
            callback_deliveries,
            graph_views,
            unpaired_files,
            requests,
            durations,
            queue_depth,
            connections,
            connections_max,
            transactions,
            scrape: Mutex::new(()),
        }
    }

    /// Counts and times one request.
    fn record(&self, route: String, method: &Method, status: StatusCode, took: Duration) {
        let method = method_label(method);
        self.durations
            .get_or_create(&RouteLabels {
                route: route.clone(),
                method,
            })
            .observe(took.as_secs_f64());
        self.requests
            .get_or_create(&RequestLabels {
                route,
                method,
                status: status.as_u16(),
            })
            .inc();
    }

    /// Sets the callbacks' deliveries by state, counted in the store at scrape time (`None`: the
    /// database did not answer; the series are left out).
    pub(crate) fn set_callback_deliveries(&self, counts: Option<DeliveryCounts>) {
        self.callback_deliveries.clear();
        let Some(counts) = counts else { return };
        for (state, count) in [
            ("pending", counts.pending),
            ("delivered", counts.delivered),
            ("failed", counts.failed),
        ] {
            self.callback_deliveries
                .get_or_create(&DeliveryLabels { state })
                .set(i64::try_from(count).unwrap_or(i64::MAX));
        }
    }

    /// Sets the views of the graphs by where they are kept, read from the visual index at scrape
    /// time.
    pub(crate) fn set_graph_views(&self, in_graph: usize, beside: usize) {
        for (place, views) in [("graph", in_graph), ("beside", beside)] {
            self.graph_views
                .get_or_create(&PlaceLabels { place })
                .set(i64::try_from(views).unwrap_or(i64::MAX));
        }
    }

    /// Sets the files not yet paired with their candidate duplicates, counted in the store at
    /// scrape time (`None`: the database did not answer; the last count stays).
    pub(crate) fn set_unpaired_files(&self, count: Option<u64>) {
        if let Some(count) = count {
            self.unpaired_files
                .set(i64::try_from(count).unwrap_or(i64::MAX));
        }
    }

    /// Sets the gauges read at scrape time (and brings the transaction counters up to the store's
    /// counts) and writes every metric in the Prometheus text format. `depths` is `None` when the
    /// database did not answer (the queue's series are left out).
    pub(crate) fn encode(
        &self,
        depths: Option<&[QueueDepth]>,
        pool: PoolUse,
        transactions: TransactionCounts,
    ) -> Result<String, String> {
        let _one_scrape = self
            .scrape
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.queue_depth.clear();
        for depth in depths.unwrap_or_default() {
            for (state, files) in [("queued", depth.queued), ("in_progress", depth.in_progress)] {
                self.queue_depth
                    .get_or_create(&QueueLabels {
                        company_id: depth.company_id.clone(),
                        state,
                    })
                    .set(i64::try_from(files).unwrap_or(i64::MAX));
            }
        }
        for (state, count) in [("idle", pool.idle), ("in_use", pool.in_use)] {
            self.connections
                .get_or_create(&ConnectionLabels {
                    engine: pool.engine,
                    state,
                })
                .set(i64::try_from(count).unwrap_or(i64::MAX));
        }
        if let Some(max) = pool.max {
            self.connections_max
                .get_or_create(&EngineLabels {
                    engine: pool.engine,
                })
                .set(i64::try_from(max).unwrap_or(i64::MAX));
        }
        for (kind, count) in [
            ("read", transactions.reads),
            ("write", transactions.writes),
            ("queue", transactions.queue),
        ] {
            let counter = self.transactions.get_or_create(&TransactionLabels {
                engine: pool.engine,
                kind,
            });
            counter.inc_by(count.saturating_sub(counter.get()));
        }
        let mut text = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry)
            .map_err(|error| error.to_string())?;
        Ok(text)
    }
}

/// The method label: the standard methods by name, anything else `other` (a client may send any
/// token as a method).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::PUT => "PUT",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

/// The middleware that counts and times every request the router answers (a layer of the router,
/// so the matched route template is known).
pub async fn record_request(
    State(metrics): State<Arc<Metrics>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request.extensions().get::<MatchedPath>().map_or_else(
        || UNMATCHED_ROUTE.to_owned(),
        |path| path.as_str().to_owned(),
    );
    let response = next.run(request).await;
    metrics.record(route, &method, response.status(), started.elapsed());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_served_on_loopback_by_default_and_elsewhere_only_when_turned_on() {
        let address = |text: &str| text.parse::<SocketAddr>().unwrap();
        for loopback in [
            "127.0.0.1:8480",
            "127.1.2.3:0",
            "[::1]:8480",
            "[::ffff:127.0.0.1]:1",
        ] {
            assert!(
                MetricsExposure::Auto.served_on(address(loopback)),
                "{loopback}"
            );
            assert!(
                !MetricsExposure::Off.served_on(address(loopback)),
                "{loopback}"
            );
        }
        for public in [
            "0.0.0.0:8480",
            "[::]:8480",
            "192.168.1.20:8480",
            "10.0.0.1:80",
        ] {
            assert!(
                !MetricsExposure::Auto.served_on(address(public)),
                "{public}"
            );
            assert!(MetricsExposure::On.served_on(address(public)), "{public}");
            assert!(!MetricsExposure::Off.served_on(address(public)), "{public}");
        }
        assert_eq!(MetricsExposure::default(), MetricsExposure::Auto);
    }

    #[test]
    fn only_a_limit_counts_as_a_kill_and_by_its_kind() {
        let kills = ReaderKills::default();
        kills.count(&SandboxFailure::TimeLimit(Duration::from_secs(60)));
        kills.count(&SandboxFailure::MemoryLimit(1 << 30));
        kills.count(&SandboxFailure::MemoryLimit(1 << 30));
        kills.count(&SandboxFailure::Cancelled);
        kills.count(&SandboxFailure::Crashed {
            how: "signal 11".into(),
        });
        assert_eq!(kills.killed_at("time"), 1);
        assert_eq!(kills.killed_at("memory"), 2);
        assert_eq!(kills.killed_at("cpu"), 0);
    }

    #[test]
    fn the_text_names_routes_by_template_and_every_limit_from_the_start() {
        let metrics = Metrics::new(&ReaderKills::default(), &AttemptCounts::default());
        metrics.record(
            "/api/token".into(),
            &Method::POST,
            StatusCode::OK,
            Duration::from_millis(3),
        );
        metrics.record(
            UNMATCHED_ROUTE.into(),
            &Method::from_bytes(b"BREW").unwrap(),
            StatusCode::NOT_FOUND,
            Duration::from_millis(1),
        );
        let pool = PoolUse {
            engine: "postgresql",
            idle: 3,
            in_use: 1,
            max: Some(8),
        };
        let depth = QueueDepth {
            company_id: "c0ffee00-0000-0000-0000-000000000000".into(),
            queued: 4,
            in_progress: 1,
        };
        let counts = TransactionCounts {
            reads: 7,
            writes: 2,
            queue: 0,
        };
        let text = metrics.encode(Some(&[depth]), pool, counts).unwrap();
        for line in [
            r#"partlens_http_requests_total{route="/api/token",method="POST",status="200"} 1"#,
            r#"partlens_http_requests_total{route="unmatched",method="other",status="404"} 1"#,
            r#"partlens_http_request_duration_seconds_bucket{route="/api/token",method="POST",le="0.0025"} 0"#,
            r#"partlens_http_request_duration_seconds_bucket{route="/api/token",method="POST",le="0.005"} 1"#,
            r#"partlens_http_request_duration_seconds_count{route="/api/token",method="POST"} 1"#,
            r#"partlens_indexing_queue_depth{company_id="c0ffee00-0000-0000-0000-000000000000",state="queued"} 4"#,
            r#"partlens_reader_workers_killed_total{limit="cpu"} 0"#,
            r#"partlens_database_connections{engine="postgresql",state="in_use"} 1"#,
            r#"partlens_database_connections_max{engine="postgresql"} 8"#,
            r#"partlens_database_transactions_total{engine="postgresql",kind="read"} 7"#,
            r#"partlens_database_transactions_total{engine="postgresql",kind="write"} 2"#,
        ] {
            assert!(text.lines().any(|got| got == line), "no {line} in\n{text}");
        }
        // A company gone from the store is gone from the next scrape; the counters follow the
        // store's counts.
        let later = TransactionCounts { reads: 9, ..counts };
        let text = metrics.encode(Some(&[]), pool, later).unwrap();
        assert!(!text.contains("c0ffee00"), "{text}");
        assert!(
            text.lines().any(|got| got
                == r#"partlens_database_transactions_total{engine="postgresql",kind="read"} 9"#),
            "{text}"
        );
    }
}
