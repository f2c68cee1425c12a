//! The NATS JetStream store: every session's log in one stream, one subject per session, any
//! number of toolview replicas writing and reading it. The design and its reasons are in
//! docs/design.md ("The JetStream store").
//!
//! - A message per event: the `toolview.storage.v1` record as payload, and headers for what
//!   the log needs without decoding it (`Toolview-Offset`, `-Epoch`, `-Created-Ms`,
//!   `-Updated-Ms`, `-Calls`). JetStream numbers messages per stream only, so the dense
//!   per-session offset is ours, made safe by a compare-and-set: the first message of every
//!   append carries `Nats-Expected-Last-Subject-Sequence` (the stream sequence of the head the
//!   offsets were computed from), and an append that does not follow it is refused whole.
//! - Appends of one session are chained: the next waits for the previous one's stream
//!   sequence, since a cluster refuses a second checked append to a subject in flight.
//! - A refused compare-and-set is [`StoreError::Conflict`]: the session layer reloads and
//!   re-validates (ids now stored become duplicate acks) and retries.
//! - The stream republishes every message's headers to its session's live subject; each replica
//!   subscribes to those of the sessions it holds (`feed.rs`) and reports their appends, its
//!   own and other replicas', through its [`Feed`](crate::store::Feed).

mod append;
mod directory;
mod feed;
mod headers;
mod index;
mod load;
mod options;
mod outbox;
mod ready;
mod retry;
mod subject;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use parking_lot::Mutex;
use tokio::sync::{Semaphore, mpsc, watch};

pub use options::JetStreamOptions;

use self::index::Index;
use super::{
    Change, Durable, Feed, Known, Record, RecordCodec, SessionAppend, SessionMeta, Store,
    StoreError,
};
use crate::domain::{EventId, SessionId, Subject};

/// Appends in flight at most (enqueued and not yet acknowledged by the stream): beyond, an
/// append waits (back-pressure), as it waits for the embedded store's queue.
const MAX_APPENDS_IN_FLIGHT: usize = 4096;
/// Atomic batches (appends of several events) one replica has in flight: a stream takes 50 at
/// a time from all its writers, so three replicas fit; more are answered "too many in flight"
/// and retried.
const MAX_BATCHES_IN_FLIGHT: usize = 16;
/// Changes from other replicas queued for the session layer.
const CHANGES_BUFFER: usize = 4096;
/// How long an API request to the servers may take: a leader election takes seconds.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How often a starting replica, waiting for NATS (`JetStreamOptions::startup_wait`), says it
/// still is: one line per attempt (every half second) would bury the reason.
const STARTUP_REPORT_INTERVAL: Duration = Duration::from_secs(10);
/// A starting replica asks JetStream this often whether it is ready.
const STARTUP_PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// One session's index slot: empty until loaded, and emptied when found stale.
type Slot = Arc<tokio::sync::Mutex<Option<Index>>>;

/// Session logs in a JetStream stream.
pub struct JetStreamStore {
    inner: Arc<Inner>,
    changes: Mutex<Option<mpsc::Receiver<Change>>>,
    feed: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Follows the connection and the stream's leader into `writable` (see `ready`).
    ready: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

struct Inner {
    client: async_nats::Client,
    js: jetstream::Context,
    stream: jetstream::stream::Stream,
    options: JetStreamOptions,
    codec: Arc<dyn RecordCodec>,
    indexes: Mutex<HashMap<SessionId, Slot>>,
    /// The last append enqueued per session, while it is in flight.
    chains: Mutex<HashMap<SessionId, append::Link>>,
    inflight: Arc<Semaphore>,
    /// Turns for atomic batches in flight (see [`MAX_BATCHES_IN_FLIGHT`]).
    batches: Semaphore,
    /// Whether an append would be taken now: connected, and the stream's leader answering.
    writable: watch::Sender<bool>,
    /// The sessions the session layer holds, which the feed follows.
    interest: Arc<feed::Interest>,
    /// Every session with a log, in id order (listings).
    directory: directory::Directory,
}

impl JetStreamStore {
    /// Connects, checks the server version, and creates the stream or checks the one there.
    pub async fn open(
        options: JetStreamOptions,
        codec: Arc<dyn RecordCodec>,
    ) -> Result<Self, StoreError> {
        let connected = watch::Sender::new(false);
        let interest = Arc::new(feed::Interest::default());
        let client = connect_patiently(&options, &connected, &interest).await?;
        let info = client.server_info();
        if !options::version_supported(&info.version) {
            return Err(StoreError::Storage(format!(
                "NATS server {} is {}; the JetStream store needs {}.{} or later (atomic batch \
                 publish)",
                info.server_name,
                info.version,
                options::MIN_SERVER_VERSION.0,
                options::MIN_SERVER_VERSION.1
            )));
        }
        let needed = options.max_event_bytes + options::MESSAGE_OVERHEAD;
        if (info.max_payload as usize) < needed {
            return Err(StoreError::Storage(format!(
                "NATS server {} takes messages up to {} bytes (max_payload), but an event of \
                 --max-message-size needs {needed}: set `max_payload: 8MB` in the server \
                 configuration, or lower --max-message-size",
                info.server_name, info.max_payload
            )));
        }
        // While JetStream is electing its leaders, its API does not answer at all: probe it
        // with short requests.
        let mut probe = jetstream::new(client.clone());
        probe.set_timeout(STARTUP_PROBE_TIMEOUT);
        open_stream_patiently(&probe, &options).await?;
        let mut js = jetstream::new(client.clone());
        js.set_timeout(REQUEST_TIMEOUT);
        let stream = js
            .get_stream(&options.stream)
            .await
            .map_err(|e| StoreError::Storage(format!("stream {}: {e}", options.stream)))?;
        let directory = directory::Directory::open(&js, &options.stream, options.replicas).await?;
        let inner = Arc::new(Inner {
            client,
            js,
            stream,
            options,
            codec,
            indexes: Mutex::default(),
            chains: Mutex::default(),
            inflight: Arc::new(Semaphore::new(MAX_APPENDS_IN_FLIGHT)),
            batches: Semaphore::new(MAX_BATCHES_IN_FLIGHT),
            // The stream was just opened, so its leader answered.
            writable: watch::Sender::new(true),
            interest,
            directory,
        });
        let (tx, rx) = mpsc::channel(CHANGES_BUFFER);
        let feed = feed::follow(inner.clone(), tx);
        let ready = ready::follow(inner.clone(), connected.subscribe());
        Ok(JetStreamStore {
            inner,
            changes: Mutex::new(Some(rx)),
            feed: Mutex::new(Some(feed)),
            ready: Mutex::new(Some(ready)),
        })
    }
}

/// Connects to NATS, waiting (up to `startup_wait`) while no server accepts connections
/// — NATS may start after toolview —; credentials or certificates that are refused fail at once.
/// `connected` follows the connection from then on.
async fn connect_patiently(
    options: &JetStreamOptions,
    connected: &watch::Sender<bool>,
    interest: &Arc<feed::Interest>,
) -> Result<async_nats::Client, StoreError> {
    let storage = |what: &str, e: &dyn std::fmt::Display| {
        StoreError::Storage(format!("NATS ({}): {what}: {e}", options.urls.join(",")))
    };
    let start = tokio::time::Instant::now();
    let deadline = start + options.startup_wait;
    let mut next_report = start;
    loop {
        let connect = connect_options(options, connected, interest).await?;
        match connect.connect(options.urls.as_slice()).await {
            Ok(client) => {
                connected.send_replace(true);
                return Ok(client);
            }
            Err(e) if unreachable(&e) && tokio::time::Instant::now() < deadline => {
                let now = tokio::time::Instant::now();
                if now >= next_report {
                    let left = deadline.saturating_duration_since(now).as_secs_f64().ceil();
                    tracing::warn!(
                        "waiting for NATS at {} ({e}); giving up in {left} s \
                         (--nats-startup-wait-ms)",
                        options.urls.join(",")
                    );
                    next_report = now + STARTUP_REPORT_INTERVAL;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) if unreachable(&e) => {
                let waited = options.startup_wait.as_secs_f64();
                return Err(storage(&format!("unreachable after {waited} s"), &e));
            }
            Err(e) => return Err(storage("connect", &e)),
        }
    }
}

/// The connection settings: credentials, TLS, timeouts, and the events that follow the
/// connection (`connected`) and re-read what was lost while away (`interest`).
async fn connect_options(
    options: &JetStreamOptions,
    connected: &watch::Sender<bool>,
    interest: &Arc<feed::Interest>,
) -> Result<async_nats::ConnectOptions, StoreError> {
    let events = connected.clone();
    let interest = interest.clone();
    let mut connect = async_nats::ConnectOptions::new()
        .name("toolview")
        .connection_timeout(REQUEST_TIMEOUT)
        .request_timeout(Some(REQUEST_TIMEOUT))
        .max_reconnects(None)
        .event_callback(move |event| {
            let events = events.clone();
            let interest = interest.clone();
            async move {
                match event {
                    async_nats::Event::Connected => {
                        tracing::info!("connected to NATS");
                        events.send_replace(true);
                        // Appends republished while away were lost: read them again.
                        interest.lost();
                    }
                    async_nats::Event::SlowConsumer(_) => {
                        tracing::warn!("NATS dropped messages for a slow subscription");
                        interest.lost();
                    }
                    async_nats::Event::Disconnected | async_nats::Event::Closed => {
                        tracing::warn!("lost the connection to NATS; reconnecting");
                        events.send_replace(false);
                    }
                    other => tracing::info!(event = %other, "NATS"),
                }
            }
        });
    if let Some((user, password)) = &options.user_password {
        connect = connect.user_and_password(user.clone(), password.clone());
    }
    if let Some(token) = &options.token {
        connect = connect.token(token.clone());
    }
    if let Some(file) = &options.credentials_file {
        connect = connect.credentials_file(file).await.map_err(|e| {
            StoreError::Storage(format!("NATS credentials {}: {e}", file.display()))
        })?;
    }
    if let Some(ca) = &options.tls_ca {
        connect = connect.add_root_certificates(ca.clone()).require_tls(true);
    }
    Ok(connect)
}

/// Whether a failed connect found no server (worth waiting for), rather than one that refused
/// us (credentials, certificates).
fn unreachable(e: &async_nats::ConnectError) -> bool {
    use async_nats::ConnectErrorKind;
    use std::io::ErrorKind;
    match e.kind() {
        ConnectErrorKind::TimedOut | ConnectErrorKind::Dns => true,
        ConnectErrorKind::Io => {
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                if let Some(io) = s.downcast_ref::<std::io::Error>() {
                    return matches!(
                        io.kind(),
                        ErrorKind::ConnectionRefused
                            | ErrorKind::ConnectionReset
                            | ErrorKind::ConnectionAborted
                            | ErrorKind::NotConnected
                            | ErrorKind::TimedOut
                    );
                }
                source = s.source();
            }
            // The message is all async-nats keeps of some I/O errors.
            e.to_string().contains("Connection refused")
        }
        _ => false,
    }
}

/// [`open_stream`], waiting while JetStream is not ready (a cluster electing its first leader
/// answers "JetStream not available" for a few seconds); a stream that breaks the guarantees
/// fails at once.
async fn open_stream_patiently(
    js: &jetstream::Context,
    options: &JetStreamOptions,
) -> Result<jetstream::stream::Stream, StoreError> {
    let start = tokio::time::Instant::now();
    let deadline = start + options.startup_wait;
    let mut next_report = start;
    loop {
        match open_stream(js, options).await {
            Err(Unready(e)) if tokio::time::Instant::now() < deadline => {
                if tokio::time::Instant::now() >= next_report {
                    tracing::warn!(error = %e, "waiting for JetStream to be ready");
                    next_report += STARTUP_REPORT_INTERVAL;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(Unready(e) | Refused(e)) => return Err(e),
            Ok(stream) => return Ok(stream),
        }
    }
}

/// Why the stream could not be opened: not yet (worth waiting), or never (its configuration).
enum OpenError {
    Unready(StoreError),
    Refused(StoreError),
}
use OpenError::{Refused, Unready};

/// The stream, created when missing; an existing one must keep our guarantees.
async fn open_stream(
    js: &jetstream::Context,
    options: &JetStreamOptions,
) -> Result<jetstream::stream::Stream, OpenError> {
    use jetstream::context::GetStreamErrorKind;
    let name = &options.stream;
    match js.get_stream(name).await {
        Ok(mut stream) => {
            let info = stream
                .info()
                .await
                .map_err(|e| Unready(StoreError::Storage(format!("stream {name}: {e}"))))?;
            let problems = options.problems(&info.config);
            if !problems.is_empty() {
                return Err(Refused(StoreError::Storage(format!(
                    "stream {name} exists but cannot hold toolview's logs: {}. Change it (`nats \
                     stream edit`), or name another with --nats-stream",
                    problems.join("; ")
                ))));
            }
            if info.config.republish.is_none() {
                // A stream made before replicas followed their own sessions: it learns to
                // republish (an edit NATS allows on a live stream).
                tracing::info!(stream = %name, "adding the stream's RePublish for the replicas' feeds");
                let config = jetstream::stream::Config {
                    republish: Some(options.republish()),
                    ..info.config.clone()
                };
                js.update_stream(config).await.map_err(|e| {
                    Unready(StoreError::Storage(format!(
                        "stream {name}: adding RePublish: {e}"
                    )))
                })?;
            }
            if info.config.num_replicas != options.replicas {
                tracing::warn!(
                    stream = %name,
                    replicas = info.config.num_replicas,
                    wanted = options.replicas,
                    "the stream's replica count differs from --nats-replicas; keeping it"
                );
            }
            Ok(stream)
        }
        Err(e)
            if matches!(e.kind(), GetStreamErrorKind::JetStream(ref js)
                if js.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND) =>
        {
            tracing::info!(stream = %name, replicas = options.replicas, "creating the stream");
            js.create_stream(options.stream_config())
                .await
                .map_err(|e| Unready(StoreError::Storage(format!("create stream {name}: {e}"))))
        }
        Err(e) => Err(Unready(StoreError::Storage(format!("stream {name}: {e}")))),
    }
}

#[async_trait::async_trait]
impl Store for JetStreamStore {
    fn name(&self) -> &'static str {
        "jetstream"
    }

    async fn append(&self, batch: Vec<SessionAppend>) -> Result<Durable, StoreError> {
        append::enqueue(&self.inner, batch).await
    }

    async fn meta(&self, session: &SessionId) -> Result<Option<SessionMeta>, StoreError> {
        self.inner.meta(session).await
    }

    async fn known(
        &self,
        session: &SessionId,
        events: Vec<EventId>,
        subjects: Vec<Subject>,
    ) -> Result<Known, StoreError> {
        self.inner.known(session, events, subjects).await
    }

    async fn read(
        &self,
        session: &SessionId,
        after: u64,
        max: usize,
    ) -> Result<Vec<Record>, StoreError> {
        self.inner.read(session, after, max).await
    }

    /// None: the stream ages events out itself (`max_age`), so the session layer has no idle
    /// sessions to sweep (see docs/design.md on the two TTLs).
    async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        Ok(Vec::new())
    }

    async fn list(
        &self,
        after: Option<SessionId>,
        limit: usize,
    ) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        self.inner.list(after, limit).await
    }

    async fn delete(&self, sessions: Vec<SessionId>) -> Result<(), StoreError> {
        for session in sessions {
            let subject = subject::subject(&self.inner.options.subject_prefix, &session);
            self.inner
                .stream
                .purge()
                .filter(subject)
                .await
                .map_err(|e| StoreError::Storage(format!("purge {session}: {e}")))?;
            self.inner.forget(&session);
            self.inner.directory.remove(&self.inner, &session).await?;
        }
        Ok(())
    }

    async fn outbox(
        &self,
        max: usize,
        lease: Duration,
    ) -> Result<Arc<dyn crate::store::outbox::Outbox>, StoreError> {
        Ok(Arc::new(self.open_outbox(max, lease).await?))
    }

    async fn close(&self) {
        // Appends in flight finish (each holds a permit); then the feed stops and the
        // connection drains.
        let all = u32::try_from(MAX_APPENDS_IN_FLIGHT).unwrap_or(u32::MAX);
        let _ =
            tokio::time::timeout(REQUEST_TIMEOUT * 2, self.inner.inflight.acquire_many(all)).await;
        if let Some(feed) = self.feed.lock().take() {
            feed.abort();
        }
        if let Some(ready) = self.ready.lock().take() {
            ready.abort();
        }
        let _ = self.inner.client.drain().await;
    }

    fn writable(&self) -> watch::Receiver<bool> {
        self.inner.writable.subscribe()
    }

    fn feed(&self) -> Option<&dyn Feed> {
        Some(self)
    }
}

#[async_trait::async_trait]
impl Feed for JetStreamStore {
    fn changes(&self) -> Option<mpsc::Receiver<Change>> {
        self.changes.lock().take()
    }

    fn interest(&self, session: &SessionId, held: bool) {
        self.inner.interest.set(session, held);
    }

    async fn following(&self, _session: &SessionId) {
        self.inner.interest.settled().await;
    }

    fn all_sessions(&self, wanted: bool) {
        self.inner.interest.all_sessions(wanted);
    }
}
