//! Accepting and serving connections within limits: how many are open (in all and per client
//! address), how long a request's headers may take, and how long a connection may sit idle.
//!
//! Why our own loop instead of `axum::serve`: that one sets no timeouts, so 500 connections that
//! sent half their headers stayed open for minutes. Here each connection is served by hyper with:
//!
//! - **a connection cap** ([`ConnectionLimits::max_connections`], and
//!   [`ConnectionLimits::max_connections_per_address`]): a connection past either is answered
//!   `503 Service Unavailable` with `Retry-After: 1` and closed at once;
//! - **a header read timeout** ([`ConnectionLimits::header_read_timeout`]): hyper's, for each HTTP/1
//!   request head from when the connection is ready for it (which also ends a kept-alive connection
//!   that sends no next request); and ours until the first request of a connection has arrived (it
//!   also covers the protocol sniffing before hyper reads a head, and HTTP/2);
//! - **an idle timeout** ([`ConnectionLimits::idle_timeout`]): a connection on which no byte moved
//!   for that long while none of its requests is being handled is closed (a reply the client does
//!   not read, an idle HTTP/2 connection);
//! - **a body read timeout** ([`ConnectionLimits::body_read_timeout`]) applied by the router's
//!   middleware (`routes`): a stalled request body is answered 408.
//!
//! Every request carries its peer address (`ConnectInfo<SocketAddr>`), which login throttling uses.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

use super::limits::ConnectionLimits;

/// The reply to a connection over the cap.
const OVER_CAPACITY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
Content-Type: text/plain\r\nContent-Length: 42\r\nConnection: close\r\n\r\n\
The service has too many open connections.";

/// Counts open connections, in all and per address.
#[derive(Debug)]
struct Gate {
    limits: ConnectionLimits,
    open: AtomicUsize,
    per_address: Mutex<HashMap<IpAddr, usize>>,
}

/// One admitted connection; dropping it gives its place back.
struct Admitted {
    gate: Arc<Gate>,
    address: IpAddr,
}

impl Gate {
    fn admit(self: &Arc<Self>, address: IpAddr) -> Option<Admitted> {
        let mut per_address = self
            .per_address
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let from_address = per_address.get(&address).copied().unwrap_or(0);
        if self.open.load(Ordering::Acquire) >= self.limits.max_connections
            || from_address >= self.limits.max_connections_per_address
        {
            return None;
        }
        self.open.fetch_add(1, Ordering::AcqRel);
        per_address.insert(address, from_address + 1);
        Some(Admitted {
            gate: self.clone(),
            address,
        })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut per_address = self
            .gate
            .per_address
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = per_address.get_mut(&self.address) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                per_address.remove(&self.address);
            }
        }
        self.gate.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What the watcher of one connection knows about it.
#[derive(Debug)]
struct Activity {
    started: Instant,
    /// Milliseconds after `started` when a byte was last read or written.
    last_io_ms: AtomicU64,
    /// Requests whose handling has not finished.
    in_flight: AtomicUsize,
    /// Requests received so far.
    received: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            last_io_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            received: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        self.last_io_ms.store(now, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_io_ms.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(last)
    }
}

/// A TCP stream that notes when bytes move.
struct WatchedStream {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for WatchedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for WatchedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Counts a request as being handled until dropped.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
        self.0.touch();
    }
}

/// Serves `app` on `listener` until `stop` is cancelled, then lets the connections finish their
/// requests (they close as soon as they are idle) and returns when all are closed.
pub async fn serve<A>(
    listener: TcpListener,
    app: A,
    limits: ConnectionLimits,
    stop: CancellationToken,
) where
    A: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    A::Future: Send + 'static,
{
    let gate = Arc::new(Gate {
        limits: limits.clone(),
        open: AtomicUsize::new(0),
        per_address: Mutex::new(HashMap::new()),
    });
    // Every connection task holds a receiver; when all are dropped the connections are closed.
    let (all_closed, connection_alive) = tokio::sync::watch::channel(());
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: wait a moment instead of spinning.
                tracing::warn!(%error, "cannot accept a connection");
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                    _ = stop.cancelled() => break,
                }
                continue;
            }
        };
        let Some(admitted) = gate.admit(peer.ip()) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let (app, limits, stop, alive) = (
            app.clone(),
            limits.clone(),
            stop.clone(),
            connection_alive.clone(),
        );
        tokio::spawn(async move {
            serve_connection(stream, peer, app, &limits, stop).await;
            drop(admitted);
            drop(alive);
        });
    }
    drop(listener);
    drop(connection_alive);
    all_closed.closed().await;
}

/// Tells a connection over the cap to come back later, and closes it.
async fn refuse(mut stream: TcpStream) {
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(OVER_CAPACITY).await?;
        stream.shutdown().await
    })
    .await;
}

async fn serve_connection<A>(
    stream: TcpStream,
    peer: SocketAddr,
    app: A,
    limits: &ConnectionLimits,
    stop: CancellationToken,
) where
    A: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    A::Future: Send + 'static,
{
    let _ = stream.set_nodelay(true);
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(WatchedStream {
        stream,
        activity: activity.clone(),
    });
    let counted = activity.clone();
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            counted.received.fetch_add(1, Ordering::AcqRel);
            counted.in_flight.fetch_add(1, Ordering::AcqRel);
            let in_flight = InFlight(counted.clone());
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            let app = app.clone();
            async move {
                let response = app.oneshot(request).await;
                drop(in_flight);
                response
            }
        });
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(64)
        .keep_alive_interval(None);
    let connection = builder.serve_connection_with_upgrades(io, service);
    tokio::pin!(connection);
    let check_every = (limits.header_read_timeout.min(limits.idle_timeout) / 4)
        .clamp(Duration::from_millis(20), Duration::from_secs(1));
    let mut ticks = tokio::time::interval(check_every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut shutting_down = false;
    loop {
        tokio::select! {
            served = connection.as_mut() => {
                if let Err(error) = served {
                    tracing::debug!(%peer, %error, "connection ended with an error");
                }
                return;
            }
            _ = stop.cancelled(), if !shutting_down => {
                connection.as_mut().graceful_shutdown();
                shutting_down = true;
            }
            _ = ticks.tick() => {
                if activity.in_flight.load(Ordering::Acquire) > 0 {
                    continue;
                }
                let no_request_yet = activity.received.load(Ordering::Acquire) == 0;
                if no_request_yet && activity.started.elapsed() > limits.header_read_timeout {
                    tracing::debug!(%peer, "no request within the header read timeout; closed");
                    return;
                }
                if activity.idle_for() > limits.idle_timeout {
                    tracing::debug!(%peer, "idle connection closed");
                    return;
                }
            }
        }
    }
}
