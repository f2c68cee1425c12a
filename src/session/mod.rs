//! Sessions: publish (validation, idempotency, lifecycle, offsets, retention), subscribe
//! (replay then live, resume, reset, heartbeats, fan-out through shared lanes) and
//! introspection, over a [`Store`].
//!
//! Where things are: `config.rs` (`SessionsConfig`, its defaults, the `Clock`), `mod.rs`
//! (`Sessions`: loaded sessions and their eviction, info, TTL expiry),
//! `publish.rs` (in phases: parts → lock → validate → stage → commit; whole-batch validation,
//! idempotency and lifecycle from the store's index plus appends in flight, offsets, epochs,
//! retention; a conflict with another writer re-reads and re-checks), `mod.rs` also follows the
//! store's changes (`follow_appends`), `lane.rs` (shared rendering per session × target ×
//! capabilities: one fold under an async lock, held by whoever renders; a cache bounded in count
//! and bytes, read under a short `RwLock`), `subscribe.rs` (a subscription opened: the start point
//! checked, the task spawned, the lane chosen), `task.rs` (one task per subscriber in phases —
//! start, catch up, join live, wait, pause, reset —, each a function returning `Flow`, whose `Stop`
//! `?` carries: replay then live, resume/reset, heartbeats, back-pressure, lag limit, private
//! catch-up lanes)

mod config;
mod fleet;
mod harness;
mod lane;
mod permission;
mod publish;
mod subscribe;
mod summary;
mod task;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use std::time::Duration;

use tokio::sync::{Mutex, watch};

pub use config::{
    Clock, DEFAULT_FLEET_THROTTLE, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_LAG_CHECK_INTERVAL,
    DEFAULT_LANE_CACHE_BYTES, DEFAULT_LANE_CACHE_ENTRIES, DEFAULT_MAX_EVENTS_PER_SESSION,
    DEFAULT_MAX_LOADED_SESSIONS, DEFAULT_MAX_PERMISSION_TIMEOUT, DEFAULT_PERMISSION_TIMEOUT,
    DEFAULT_SUBSCRIBER_LAG_LIMIT, SessionsConfig, TransitionSink,
};
pub use fleet::{FleetItem, FleetNotice};
pub use harness::HarnessRefusal;
pub use lane::Delivered;
pub use permission::{Decided, MAX_SCHEDULED_EXPIRIES, RequestState};
pub use subscribe::{Start, SubscribeItem, Subscription};
pub use summary::ListFilter;

use crate::domain::permission::RequestId;
use crate::domain::{BatchError, Cursor, Epoch, EventId, Phase, SessionId, Subject};
use crate::metrics::Metrics;
use crate::render::{Capabilities, Target};
use crate::store::{Change, SessionMeta, Store, StoreError};
use lane::Lane;

/// Sessions deleted by the TTL per commit.
const EXPIRY_BATCH: usize = 1000;

/// A publish acknowledgement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    /// The event acknowledged.
    pub event_id: EventId,
    /// Where the event is (for a duplicate: where it was first appended).
    pub cursor: Cursor,
    /// Whether the event was already in the log (nothing appended).
    pub duplicate: bool,
}

/// A session's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// The stored metadata.
    pub meta: SessionMeta,
    /// Distinct calls seen.
    pub calls: u64,
}

/// Why a session operation failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SessionError {
    /// A batch breaks a lifecycle rule.
    #[error(transparent)]
    Lifecycle(#[from] BatchError),
    /// No such session.
    #[error("session {0} not found")]
    NotFound(SessionId),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// No such permission request in the session.
    #[error("session {session} has no permission request {request}")]
    UnknownRequest {
        /// The session.
        session: SessionId,
        /// The request.
        request: RequestId,
    },
    /// An answer names an option the request does not have.
    #[error("option_id: permission request {request} has no option {option:?}")]
    UnknownOption {
        /// The request.
        request: RequestId,
        /// The option named.
        option: String,
    },
    /// A harness's batch breaks a harness rule.
    #[error(transparent)]
    Harness(#[from] HarnessRefusal),
    /// The subscriber fell more than `limit` events behind (`lag`).
    #[error("subscriber is {lag} events behind (limit {limit}); resume from the last cursor")]
    Lagging {
        /// How many events behind it was.
        lag: u64,
        /// The limit (`--subscriber-lag-limit`).
        limit: u64,
    },
}

/// The durable head of a session, as subscribers see it: derived from its metadata.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Head {
    /// `None` while the session has no log.
    pub epoch: Option<Epoch>,
    /// The first retained offset.
    pub first: u64,
    /// The last durable offset (the head).
    pub last: u64,
}

impl From<&SessionMeta> for Head {
    fn from(meta: &SessionMeta) -> Self {
        Head {
            epoch: Some(meta.epoch.clone()),
            first: meta.first_offset,
            last: meta.head_offset,
        }
    }
}

/// What an append in flight adds to the store's index (an event id's offset, a subject's
/// phase), with the sequence number of the publish that made it: dropped when that publish
/// lands.
#[derive(Debug, Clone, Copy)]
struct InFlight<T> {
    value: T,
    seq: u64,
}

/// In-memory state of a loaded session, guarded by its lock: its metadata, and what its
/// appends in flight (enqueued, not yet durable) add to the store's id index and call phases,
/// each entry tagged with the sequence number of its publish.
#[derive(Default)]
struct State {
    loaded: bool,
    /// The store generation the state was read at.
    loaded_at: u64,
    meta: Option<SessionMeta>,
    inflight_ids: HashMap<EventId, InFlight<u64>>,
    inflight_phases: HashMap<Subject, InFlight<Phase>>,
    next_seq: u64,
}

struct Entry {
    id: SessionId,
    state: Mutex<State>,
    head: watch::Sender<Head>,
    /// Shared lanes, held by their subscribers (see `Sessions::shared_lane`).
    lanes: parking_lot::Mutex<HashMap<(Target, Capabilities), Weak<Lane>>>,
    /// When it was last used (a tick of `Sessions::ticks`), for eviction.
    used: AtomicU64,
    /// When its head last moved, in nanoseconds after `Sessions::started` (for the delivery
    /// lag metric).
    moved: AtomicU64,
    /// Its permission requests, read from its log on first use.
    permissions: Mutex<permission::Book>,
}

impl Entry {
    fn new(id: SessionId) -> Self {
        Entry {
            id,
            state: Mutex::new(State::default()),
            head: watch::Sender::new(Head::default()),
            lanes: parking_lot::Mutex::default(),
            used: AtomicU64::new(0),
            moved: AtomicU64::new(0),
            permissions: Mutex::default(),
        }
    }
}

/// The session layer.
pub struct Sessions {
    store: Arc<dyn Store>,
    config: SessionsConfig,
    entries: parking_lot::Mutex<HashMap<SessionId, Arc<Entry>>>,
    /// Counts uses of entries (a logical clock for eviction; `config.clock` tells the time).
    ticks: AtomicU64,
    /// Entries added since the last eviction pass.
    added: AtomicU64,
    shutdown: watch::Sender<bool>,
    /// The origin of `Entry::moved`.
    started: std::time::Instant,
    /// Permission requests' expiry timers.
    expiries: permission::Expiries,
    /// Summary changes, for the fleet's watchers.
    fleet: fleet::Fleet,
}

/// A page of the session list looks at no more than this many sessions per session it may
/// return, so a token that covers few sessions (or a filter few match) cannot make one request
/// scan the whole store.
pub const LIST_SCAN_PER_PAGE: usize = 10;

impl Sessions {
    /// The session layer over `store`, with `config`'s limits.
    pub fn new(store: Arc<dyn Store>, config: SessionsConfig) -> Arc<Self> {
        Arc::new(Sessions {
            store,
            entries: parking_lot::Mutex::default(),
            ticks: AtomicU64::new(0),
            added: AtomicU64::new(0),
            shutdown: watch::Sender::new(false),
            started: std::time::Instant::now(),
            expiries: permission::Expiries::default(),
            fleet: fleet::Fleet::new(config.fleet_throttle),
            config,
        })
    }

    /// Where this session layer counts.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.config.metrics
    }

    /// Notes that `entry`'s head moved now.
    fn head_moved(&self, entry: &Entry) {
        let nanos = self.started.elapsed().as_nanos() as u64;
        entry.moved.store(nanos, Ordering::Relaxed);
    }

    /// How long ago `entry`'s head last moved.
    fn since_head_moved(&self, entry: &Entry) -> Duration {
        let moved = Duration::from_nanos(entry.moved.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(moved)
    }

    /// The store's name, for logs.
    pub fn store_name(&self) -> &'static str {
        self.store.name()
    }

    /// Whether the store takes writes now (it recovers by itself).
    pub fn store_writable(&self) -> watch::Receiver<bool> {
        self.store.writable()
    }

    /// The loaded session `id`, created on first use. Whoever holds it keeps it from eviction.
    /// The store hears of every session loaded and dropped (a shared store then reports the
    /// appends of the sessions held, and only those), under the map's lock, so it hears them in
    /// the order they happen.
    fn entry(&self, id: &SessionId) -> Arc<Entry> {
        let mut entries = self.entries.lock();
        let entry = entries
            .entry(id.clone())
            .or_insert_with(|| {
                self.added.fetch_add(1, Ordering::Relaxed);
                if let Some(feed) = self.store.feed() {
                    feed.interest(id, true);
                }
                Arc::new(Entry::new(id.clone()))
            })
            .clone();
        entry.used.store(
            self.ticks.fetch_add(1, Ordering::Relaxed),
            Ordering::Relaxed,
        );
        let max = self.config.max_loaded_sessions.max(1);
        // A pass costs O(loaded sessions): run one only after a tenth of the limit was added.
        if entries.len() > max && self.added.load(Ordering::Relaxed) as usize > max / 10 {
            self.added.store(0, Ordering::Relaxed);
            for gone in evict(&mut entries, max - max / 10) {
                if let Some(feed) = self.store.feed() {
                    feed.interest(&gone, false);
                }
            }
        }
        entry
    }

    /// The loaded session `id`, if it is loaded.
    fn loaded(&self, id: &SessionId) -> Option<Arc<Entry>> {
        self.entries.lock().get(id).cloned()
    }

    /// Drops a session from memory if nobody uses it.
    fn forget(&self, id: &SessionId) {
        let mut entries = self.entries.lock();
        if entries.get(id).is_some_and(|e| Arc::strong_count(e) == 1) {
            entries.remove(id);
            if let Some(feed) = self.store.feed() {
                feed.interest(id, false);
            }
        }
    }

    /// The longest timeout a permission request may name.
    pub fn max_permission_timeout(&self) -> Duration {
        self.config.max_permission_timeout
    }

    /// Sessions in memory (for tests and metrics).
    pub fn loaded_sessions(&self) -> usize {
        self.entries.lock().len()
    }

    /// Brings the gauges read at scrape time up to date.
    pub fn update_gauges(&self) {
        self.config
            .metrics
            .loaded_sessions
            .set(self.loaded_sessions() as i64);
    }

    /// Loads a session's state from the store on first use.
    async fn ensure_loaded(&self, entry: &Entry, state: &mut State) -> Result<(), StoreError> {
        if state.loaded {
            return Ok(());
        }
        // A shared store reports this session's appends from here on: none falls between the
        // read below and the reports.
        if let Some(feed) = self.store.feed() {
            feed.following(&entry.id).await;
        }
        // The generation first: a write failing meanwhile makes this state stale, never the
        // other way round.
        let loaded_at = self.store.generation();
        let mut meta = self.store.meta(&entry.id).await?;
        if let Some(meta) = &mut meta {
            summary::backfill(&*self.store, &entry.id, meta).await?;
            entry.head.send_replace(Head::from(&*meta));
        }
        *state = State {
            loaded: true,
            loaded_at,
            meta,
            ..State::default()
        };
        Ok(())
    }

    /// A session's description; `NotFound` when it has no log.
    /// A lookup creates no state: a session not in memory is answered from the store.
    pub async fn info(&self, id: &SessionId) -> Result<SessionInfo, SessionError> {
        let meta = match self.loaded(id) {
            Some(entry) => {
                let mut state = entry.state.lock().await;
                // Another replica's append moved the head past what was loaded, and the feed
                // could not mark the state stale (it was busy with a publish here): read again.
                let behind = |state: &State| {
                    let head = entry.head.borrow().last;
                    state.meta.as_ref().is_some_and(|m| m.head_offset < head)
                };
                if state.loaded && behind(&state) && state.inflight_ids.is_empty() {
                    state.loaded = false;
                }
                self.ensure_loaded(&entry, &mut state).await?;
                state.meta.clone()
            }
            None => self.store.meta(id).await?,
        };
        let meta = meta.ok_or_else(|| SessionError::NotFound(id.clone()))?;
        Ok(SessionInfo {
            calls: meta.calls,
            meta,
        })
    }

    /// A page of the session list: the sessions after `after` that `keep` admits, at most
    /// `page` of them, looking at no more than `scan` (so a caller who may see few sessions
    /// costs no more than one who may see all); and where the next page starts, if there is
    /// one. Reads only the store (a lookup creates no state).
    pub async fn list(
        &self,
        after: Option<SessionId>,
        page: usize,
        scan: usize,
        keep: impl Fn(&SessionId, &SessionMeta) -> bool,
    ) -> Result<(Vec<(SessionId, SessionInfo)>, Option<SessionId>), SessionError> {
        let scan = scan.max(page).max(1);
        let batch = self.store.list(after, scan).await?;
        let more = batch.len() == scan;
        let mut out = Vec::new();
        let mut last = None;
        for (id, meta) in batch {
            last = Some(id.clone());
            if keep(&id, &meta) {
                out.push((
                    id,
                    SessionInfo {
                        calls: meta.calls,
                        meta,
                    },
                ));
                if out.len() == page {
                    return Ok((out, last));
                }
            }
        }
        Ok((out, if more { last } else { None }))
    }

    /// Stops subscriptions (they end cleanly) and refuses new publishes; then closes the store
    /// once in-flight work is done.
    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    /// Follows the appends the store reports (other replicas' too, with a shared store): a
    /// loaded session's head moves, so its subscribers read them, and its publish state is read
    /// again before its next publish. Ends at shutdown, or when the store's feed ends; returns
    /// at once for a store only this process writes.
    pub async fn follow_appends(self: Arc<Self>) {
        let Some(mut changes) = self.store.feed().and_then(|feed| feed.changes()) else {
            return;
        };
        let mut shutdown = self.shutdown.subscribe();
        loop {
            let change = tokio::select! {
                change = changes.recv() => match change {
                    Some(change) => change,
                    None => return,
                },
                _ = shutdown.wait_for(|stop| *stop) => return,
            };
            self.config.metrics.store_changes.inc();
            self.apply_change(change).await;
        }
    }

    async fn apply_change(&self, change: Change) {
        self.fleet.changed_elsewhere(&change.session, change.head);
        let Some(entry) = self.loaded(&change.session) else {
            return;
        };
        let same_log = entry.head.borrow().epoch.as_ref() == Some(&change.epoch);
        if same_log {
            // Retention keeps the last `max_events_per_session` events, so the first kept offset
            // follows from the head when the store does not say.
            let max = self.config.max_events_per_session;
            let kept_from = match change.first {
                Some(first) => first,
                None if max > 0 => change.head.saturating_sub(max - 1).max(1),
                None => 1,
            };
            let moved = entry.head.send_if_modified(|h| {
                let newer = change.head > h.last;
                if newer {
                    h.last = change.head;
                    h.first = h.first.max(kept_from);
                }
                newer
            });
            if moved {
                self.head_moved(&entry);
            }
            // Offsets computed from this state would conflict: read it again first (unless this
            // process has appends in flight, which are then read back with it).
            if let Ok(mut state) = entry.state.try_lock()
                && state.inflight_ids.is_empty()
                && state
                    .meta
                    .as_ref()
                    .is_none_or(|m| m.head_offset < change.head)
            {
                state.loaded = false;
            }
            return;
        }
        // A log this process has not seen (the session's first, or one made again).
        let mut state = entry.state.lock().await;
        state.loaded = false;
        if let Err(e) = self.ensure_loaded(&entry, &mut state).await {
            tracing::warn!(session = %change.session, error = %e, "cannot read a changed session");
        }
    }

    /// Closes the store (after the server has drained).
    pub async fn close(&self) {
        self.store.close().await;
    }

    /// Deletes sessions idle for longer than the TTL; returns how many.
    pub async fn expire(&self) -> Result<usize, SessionError> {
        let Some(ttl) = self.config.session_ttl else {
            return Ok(0);
        };
        let cutoff = self
            .config
            .clock
            .now_ms()
            .saturating_sub(ttl.as_millis() as u64);
        let mut expired: Vec<SessionId> = self
            .store
            .sessions()
            .await?
            .into_iter()
            .filter(|(_, meta)| meta.updated_ms < cutoff)
            .map(|(id, _)| id)
            .collect();
        // Locked in id order, like publishes, so the two cannot deadlock.
        expired.sort();
        let mut n = 0;
        for chunk in expired.chunks(EXPIRY_BATCH) {
            let entries: Vec<Arc<Entry>> = chunk.iter().map(|id| self.entry(id)).collect();
            let mut doomed = Vec::new();
            for entry in &entries {
                let mut state = entry.state.lock().await;
                self.ensure_loaded(entry, &mut state).await?;
                // Re-check under the lock: a publish may have just refreshed it.
                if state.meta.as_ref().is_some_and(|m| m.updated_ms < cutoff) {
                    doomed.push((entry, state));
                }
            }
            // One commit for the whole chunk.
            let ids = doomed.iter().map(|(e, _)| e.id.clone()).collect();
            self.store.delete(ids).await?;
            for (entry, state) in &mut doomed {
                **state = State {
                    loaded: true,
                    loaded_at: state.loaded_at,
                    ..State::default()
                };
                entry.head.send_replace(Head::default());
                entry.lanes.lock().clear();
            }
            n += doomed.len();
            drop(doomed);
            drop(entries);
            for id in chunk {
                self.forget(id);
            }
        }
        Ok(n)
    }
}

/// Evicts idle sessions (held by nobody but the map), least recently used first, until at
/// most `keep` remain or none is idle; returns those evicted.
fn evict(entries: &mut HashMap<SessionId, Arc<Entry>>, keep: usize) -> Vec<SessionId> {
    let excess = entries.len().saturating_sub(keep);
    let mut idle: Vec<(u64, SessionId)> = entries
        .iter()
        .filter(|(_, e)| Arc::strong_count(e) == 1)
        .map(|(id, e)| (e.used.load(Ordering::Relaxed), id.clone()))
        .collect();
    if idle.len() > excess && excess > 0 {
        idle.select_nth_unstable(excess - 1);
    }
    let gone: Vec<SessionId> = idle.into_iter().take(excess).map(|(_, id)| id).collect();
    for id in &gone {
        entries.remove(id);
    }
    gone
}

impl From<SessionError> for crate::error::Error {
    fn from(e: SessionError) -> Self {
        use crate::domain::FieldViolation;
        use crate::error::{Error, Message};
        match e {
            SessionError::Lifecycle(b) => Error::Lifecycle(Message::about(b)),
            SessionError::NotFound(_) | SessionError::UnknownRequest { .. } => {
                Error::NotFound(e.to_string().into())
            }
            SessionError::UnknownOption { request, option } => {
                Error::InvalidArgument(Message::about(FieldViolation::new(
                    "option_id",
                    format!("permission request {request} has no option {option:?}"),
                )))
            }
            SessionError::Harness(h) => Error::invalid(h),
            SessionError::Lagging { .. } => Error::Lagging(e.to_string().into()),
            SessionError::ShuttingDown
            | SessionError::Store(StoreError::Storage(_) | StoreError::Closed) => {
                Error::Unavailable(e.to_string().into())
            }
            SessionError::Store(StoreError::Corrupt(_)) => Error::DataLoss(e.to_string().into()),
            SessionError::Store(StoreError::Conflict(_)) => Error::Aborted(e.to_string().into()),
            SessionError::Store(StoreError::Bug(_)) => Error::Internal(e.to_string().into()),
        }
    }
}

#[cfg(test)]
mod tests;
