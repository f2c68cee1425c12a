//! The connection layer: accepting, admitting and serving HTTP/1.1 and HTTP/2 connections with
//! every per-connection resource bounded.
//!
//! tonic's own server loop retries a failed `accept` at once (with descriptors exhausted it
//! spins a core and logs nothing), has no limit on connections, and lets a connection that
//! never speaks, or sends its HTTP/1 headers a byte at a time, stay open forever. This loop
//! backs off and logs on accept errors, caps connections (one over the cap is closed at once),
//! closes connections that send nothing within the handshake timeout, reads HTTP/1 headers
//! under the same timeout, and pings HTTP/2 peers to close half-open connections.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::tls::Tls;

/// The first wait after a failed `accept`; doubled per failure in a row, up to
/// [`MAX_ACCEPT_BACKOFF`].
const MIN_ACCEPT_BACKOFF: Duration = Duration::from_millis(5);
/// The longest wait after failed `accept`s (descriptors exhausted): long enough not to spin,
/// short enough to resume quickly once descriptors are free.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);
/// Largest HTTP/2 header list a client may send: ample for gRPC metadata and bearer tokens
/// (hyper's default, 16 MiB, would let one request pin that much).
const MAX_HEADER_LIST_BYTES: u32 = 64 << 10;

/// Limits and timers of the connection layer.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Open connections at most; one over it is closed as soon as it is accepted.
    pub max_connections: usize,
    /// Concurrent HTTP/2 streams (calls) per connection.
    pub max_streams_per_connection: u32,
    /// A new connection must send its first bytes, and an HTTP/1 request its headers, within
    /// this time.
    pub handshake_timeout: Duration,
    /// HTTP/2 pings go out after this much silence from the peer…
    pub keepalive_interval: Duration,
    /// …and a ping unanswered for this long closes the connection.
    pub keepalive_timeout: Duration,
}

/// The API port's connection metrics (the admin listener keeps none).
#[derive(Clone)]
pub struct Counted {
    /// Connections open now.
    pub open: Gauge,
    /// Connections refused for want of a slot.
    pub refused: Counter,
}

/// One open connection on the gauge, for as long as it lives (panics included).
struct Open(Gauge);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// Serves `service` on every connection `listener` accepts (over TLS if `tls` is given) until
/// `shutdown` resolves; then stops accepting, asks every connection to finish (HTTP/2 GOAWAY)
/// and waits for them. With `counted`, open and refused connections are counted.
pub async fn serve(
    listener: TcpListener,
    service: axum::Router,
    limits: ConnectionLimits,
    tls: Option<Arc<Tls>>,
    counted: Option<Counted>,
    shutdown: impl Future<Output = ()>,
) {
    let builder = Arc::new(builder(&limits));
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    // Tells connections still waiting for their first bytes to give up at shutdown (the
    // graceful drain waits for every connection it watches).
    let (stopping, stop) = tokio::sync::watch::channel(());
    let mut backoff = MIN_ACCEPT_BACKOFF;
    let mut refused: u64 = 0;
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => {
                backoff = MIN_ACCEPT_BACKOFF;
                accepted
            }
            Err(e) => {
                // EMFILE/ENFILE/ENOMEM: retrying at once would spin. Waiting lets connections
                // close (the handshake timeout closes silent ones).
                tracing::warn!(error = %e, retry_in = ?backoff, "accept failed");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_ACCEPT_BACKOFF);
                continue;
            }
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            refused += 1;
            refuse(stream, peer, refused, &limits, counted.as_ref());
            continue;
        };
        // Without TCP_NODELAY, a small write after another (a stream's first update after its
        // headers) waits for the peer's delayed ACK: tens of milliseconds.
        let _ = stream.set_nodelay(true);
        let open = counted.as_ref().map(|c| {
            c.open.inc();
            Open(c.open.clone())
        });
        let admitted = Admitted {
            peer,
            _open: open,
            _slot: permit,
            watcher: graceful.watcher(),
            stop: stop.clone(),
        };
        let served = Served {
            builder: builder.clone(),
            service: service.clone(),
        };
        let handshake = limits.handshake_timeout;
        tokio::spawn(connection(stream, admitted, handshake, tls.clone(), served));
    }
    drop(listener);
    let _ = stopping.send(());
    graceful.shutdown().await;
}

/// Closes a connection over the limit, counted, and logged once, then every 1,000th: a flood
/// must not flood the log too.
fn refuse(
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    refused: u64,
    limits: &ConnectionLimits,
    counted: Option<&Counted>,
) {
    if let Some(c) = counted {
        c.refused.inc();
    }
    if refused % 1000 == 1 {
        tracing::warn!(
            %peer,
            max = limits.max_connections,
            refused,
            "connection limit reached; closing new connections"
        );
    }
    drop(stream);
}

fn builder(limits: &ConnectionLimits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.handshake_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_streams_per_connection)
        .max_header_list_size(MAX_HEADER_LIST_BYTES)
        .keep_alive_interval(limits.keepalive_interval)
        .keep_alive_timeout(limits.keepalive_timeout);
    builder
}

/// What an accepted connection carries: its peer, its slot (freed with it), the graceful
/// drain's watcher, and the shutdown signal for while it has not spoken yet.
struct Admitted {
    peer: SocketAddr,
    _open: Option<Open>,
    _slot: OwnedSemaphorePermit,
    watcher: hyper_util::server::graceful::Watcher,
    stop: tokio::sync::watch::Receiver<()>,
}

/// What serves a connection's requests.
struct Served {
    builder: Arc<auto::Builder<TokioExecutor>>,
    service: axum::Router,
}

/// One connection: served once it speaks (and completes the TLS handshake within the same
/// timeout), until it ends.
///
/// This and `serve_io` are functions returning `async move` blocks, not `async fn`s: an
/// `async fn` keeps each argument twice in its future (as passed, and as bound), and the
/// spawned future of every open connection is as large as its largest state.
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn keeps its arguments twice"
)]
fn connection(
    stream: TcpStream,
    mut admitted: Admitted,
    handshake: Duration,
    tls: Option<Arc<Tls>>,
    served: Served,
) -> impl Future<Output = ()> + Send + 'static {
    async move {
        // hyper waits for the first bytes to tell HTTP/1 from HTTP/2, with no timeout of its
        // own; and a connection that has not spoken has nothing to drain at shutdown.
        let mut first = [0u8; 1];
        tokio::select! {
            spoke = tokio::time::timeout(handshake, stream.peek(&mut first)) => match spoke {
                Ok(Ok(n)) if n > 0 => {}
                Ok(_) => return,
                Err(_) => {
                    tracing::debug!(peer = %admitted.peer, "closing a connection that sent nothing");
                    return;
                }
            },
            _ = admitted.stop.changed() => return,
        }
        let Some(tls) = tls else {
            return serve_io(stream, admitted, served).await;
        };
        // The handshake and the serving of a TLS stream are boxed: laid out inline, their
        // state (rustls's) would make every connection's task larger, plain ones included —
        // about 3.5 KB of each idle connection's memory (docs/performance.md).
        let accept = Box::pin(tls.acceptor().accept(stream));
        let accepted = tokio::select! {
            accepted = tokio::time::timeout(handshake, accept) => accepted,
            _ = admitted.stop.changed() => return,
        };
        let peer = admitted.peer;
        match accepted {
            Ok(Ok(stream)) => Box::pin(serve_io(stream, admitted, served)).await,
            Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
            Err(_) => {
                tracing::debug!(%peer, "closing a connection whose TLS handshake timed out");
            }
        }
    }
}

/// Serves HTTP on a connection until it ends.
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn keeps its arguments twice"
)]
fn serve_io(
    io: impl AsyncRead + AsyncWrite + Unpin + Send + 'static,
    admitted: Admitted,
    served: Served,
) -> impl Future<Output = ()> + Send {
    async move {
        let conn = served.builder.serve_connection_with_upgrades(
            TokioIo::new(io),
            TowerToHyperService::new(served.service),
        );
        let peer = admitted.peer;
        if let Err(e) = admitted.watcher.watch(conn.into_owned()).await {
            tracing::debug!(%peer, error = %e, "connection ended with an error");
        }
        // The slot and the gauge are released with the connection.
        drop(admitted._open);
        drop(admitted._slot);
    }
}
