//! The durable per-session event log: one trait, three backends (`memory`, the default
//! `embedded` store on redb, and `jetstream`, shared by replicas, behind its cargo feature).
//!
//! The session layer decides offsets, epochs and retention; a store persists what it is told,
//! in order. An append happens in two steps: awaiting [`Store::append`] enqueues it (waiting
//! for queue space: back-pressure), so appends enqueued in order are applied in order; the
//! returned [`Durable`] resolves once it is on disk. Callers enqueue under their session lock
//! and wait for durability after releasing it, so concurrent publishes share commits.
//!
//! Where things are: the log trait (`Store`: two-step append — enqueue in order, then await
//! durability —, metadata, `known` ids and call phases, read, the session list for expiry and a
//! page of it for `ListSessions`, delete, a write generation and a writability watch) and its
//! backends: `memory.rs`, `embedded/` (a journal in front of redb: `mod.rs` reads — the overlay
//! first, then redb on the blocking pool, point lookups inline — and the journal applied on open;
//! `writer.rs` group commit into the journal (by a lone publisher or the writer thread), refusal of stale appends and
//! recovery from failed writes; `journal.rs` the record format and preallocated segments;
//! `overlay.rs` journaled groups not yet in redb, for reads; `apply.rs` the applier thread moving
//! groups into redb many per commit, deletes, recovery of the database; `format.rs` tables and
//! checksummed values; `migrate.rs` the earlier formats moved in on open; see "The embedded store's
//! journal"), `jetstream/` (NATS JetStream, cargo feature `jetstream`, off by default so the
//! single-node build has no NATS client: `mod.rs` connect and stream checks, `append.rs`
//! compare-and-set appends chained per session, `load.rs` the index brought up to date and reads,
//! `index.rs` a session's offsets, ids and call phases, `feed.rs` the replica's one ordered
//! consumer, `subject.rs`, `options.rs`; see "The JetStream store"). Records become bytes through a
//! `RecordCodec` the store is given (the format is defined in `proto/`, where generated types
//! live). A store with other writers reports their appends (`Store::feed`) and refuses an append
//! that does not follow the head it was computed from (`StoreError::Conflict`).

mod embedded;
#[cfg(feature = "jetstream")]
mod jetstream;
mod memory;
pub mod outbox;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use embedded::EmbeddedStore;
#[cfg(feature = "jetstream")]
pub use jetstream::{JetStreamOptions, JetStreamStore};
pub use memory::MemoryStore;

use std::collections::HashMap;

use crate::domain::{Epoch, EventId, Phase, SessionId, SessionSummary, Subject, ToolEvent};

/// Resolves once an enqueued append is durable.
pub type Durable = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send + 'static>>;

/// A session log's metadata.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionMeta {
    /// Fixed when the log is created; changes only if the log is lost or reset.
    pub epoch: Epoch,
    /// The first retained offset (1 until retention trims).
    pub first_offset: u64,
    /// The latest offset (0 for an empty log).
    pub head_offset: u64,
    /// Milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When the session last changed, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// Distinct calls the session has seen.
    #[serde(default)]
    pub calls: u64,
    /// The session's title ([`crate::domain::title_of`] its first user message); empty until
    /// one is published.
    #[serde(default)]
    pub title: String,
    /// The session's working directory (its latest `SessionStarted`); empty when unknown.
    #[serde(default)]
    pub cwd: String,
    /// The session at a glance, folded from its log with every append (`session::summary`);
    /// `None` in a log written before summaries, until the session is next loaded.
    #[serde(default)]
    pub summary: Option<SessionSummary>,
}

impl SessionMeta {
    /// Takes what `event` says of the session: its cwd, and its title if it has none yet.
    pub fn note(&mut self, event: &ToolEvent) {
        use crate::domain::{EventBody as E, MessageRole};
        match &event.body {
            E::SessionStarted(s) => self.cwd.clone_from(&s.cwd),
            E::MessageStarted(m) if self.title.is_empty() && m.role == MessageRole::User => {
                self.title = crate::domain::title_of(&m.text).unwrap_or_default();
            }
            E::SessionEnded(_)
            | E::MessageStarted(_)
            | E::MessageDelta(_)
            | E::MessageFinished(_)
            | E::TurnStarted(_)
            | E::TurnFinished(_)
            | E::CallStarted(_)
            | E::CallInputDelta(_)
            | E::CallInputComplete(_)
            | E::CallOutput(_)
            | E::CallFinished(_)
            | E::PermissionRequested(_)
            | E::PermissionResolved(_) => {}
        }
    }
}

/// One stored event.
#[derive(Debug, Clone)]
pub struct Record {
    /// The event's offset.
    pub offset: u64,
    /// The event.
    pub event: Arc<ToolEvent>,
}

/// What one session gets from one append.
#[derive(Debug, Clone)]
pub struct SessionAppend {
    /// The session appended to.
    pub session: SessionId,
    /// The metadata after the append.
    pub meta: SessionMeta,
    /// New events, at contiguous offsets after the previous head.
    pub records: Vec<Record>,
    /// Delete the events before this offset (retention), if set; their ids are forgotten.
    pub trim_before: Option<u64>,
    /// The phases the new events move calls, messages and turns to.
    pub phases: Vec<(Subject, Phase)>,
    /// The store generation ([`Store::generation`]) the session's state was read at: an append
    /// computed from state older than the last failed write is refused.
    pub loaded_at: u64,
}

/// What a session's log already holds of some event ids and subjects (calls, messages, turns):
/// the answer to idempotency and lifecycle questions, without keeping a session's ids in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// Retained events among those asked about, with their offsets.
    pub events: HashMap<EventId, u64>,
    /// Subjects among those asked about that the session has seen, with their phases.
    pub phases: HashMap<Subject, Phase>,
}

/// An append to a session's log, as a store with other writers reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The session appended to.
    pub session: SessionId,
    /// The log it went to.
    pub epoch: Epoch,
    /// Its offset: the log's head now, or soon.
    pub head: u64,
    /// The first retained offset, when the store knows it.
    pub first: Option<u64>,
}

/// Why the store failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The backend failed (I/O, the database, NATS).
    #[error("storage error: {0}")]
    Storage(String),
    /// The store was closed (shutdown).
    #[error("the store is closed")]
    Closed,
    /// A stored value does not decode.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The log moved on since the append was computed (another writer appended first): the
    /// session's state must be read again and the append checked again.
    #[error("conflicting writers: {0}")]
    Conflict(String),
    /// A bug: a panic while reading, writing or rendering. The detail was logged.
    #[error("{0}")]
    Bug(String),
}

impl StoreError {
    /// A blocking task that did not finish: a panic is a bug (see [`StoreError::from_panic`]);
    /// a cancelled task means the runtime is going away.
    pub fn from_join(e: tokio::task::JoinError, what: &str) -> Self {
        match e.try_into_panic() {
            Ok(payload) => StoreError::from_panic(payload, what),
            Err(_) => StoreError::Closed,
        }
    }

    /// A caught panic: logged here with its message, which never goes to a client.
    pub fn from_panic(payload: Box<dyn std::any::Any + Send>, what: &str) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        tracing::error!(panic = %message, "{what} panicked");
        StoreError::Bug(format!("{what} panicked"))
    }
}

/// The bytes of stored records. A store frames and checks them; their format — the protobuf
/// package `toolview.storage.v1`, guarded by `buf breaking` like the API — is implemented where
/// generated types live (`grpc::StorageCodec`) and handed to the stores that keep bytes.
pub trait RecordCodec: Send + Sync + 'static {
    /// An event as its session's log keeps it, with the log's epoch and the append time.
    fn encode_event(&self, record: &Record, epoch: &Epoch, appended_ms: u64) -> Vec<u8>;
    /// A stored event back; the error says what is wrong with the bytes.
    fn decode_event(&self, bytes: &[u8]) -> Result<Record, String>;
    /// A session's metadata as stored.
    fn encode_meta(&self, meta: &SessionMeta) -> Vec<u8>;
    /// Stored metadata back.
    fn decode_meta(&self, bytes: &[u8]) -> Result<SessionMeta, String>;
}

/// The log backend.
#[async_trait::async_trait]
pub trait Store: Send + Sync + 'static {
    /// A short name for logs (`memory`, `embedded`).
    fn name(&self) -> &'static str;

    /// Enqueues an append of one or more sessions, applied atomically and in enqueue order.
    /// The returned future resolves once the append is durable.
    async fn append(&self, batch: Vec<SessionAppend>) -> Result<Durable, StoreError>;

    /// A session's metadata, or `None` if it has no log.
    async fn meta(&self, session: &SessionId) -> Result<Option<SessionMeta>, StoreError>;

    /// Which of `events` the session's log retains (and at which offsets) and which of
    /// `subjects` it has seen (and in which phase). Durable state only.
    async fn known(
        &self,
        session: &SessionId,
        events: Vec<EventId>,
        subjects: Vec<Subject>,
    ) -> Result<Known, StoreError>;

    /// Up to `max` events with offsets greater than `after`, in order.
    async fn read(
        &self,
        session: &SessionId,
        after: u64,
        max: usize,
    ) -> Result<Vec<Record>, StoreError>;

    /// Every session's metadata (for TTL expiry).
    async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError>;

    /// A page of the session list: at most `limit` sessions with a log, in id order, after
    /// `after` (from the first when `None`). Every store's cost is the page's (JetStream's
    /// through its session directory).
    async fn list(
        &self,
        after: Option<SessionId>,
        limit: usize,
    ) -> Result<Vec<(SessionId, SessionMeta)>, StoreError>;

    /// Deletes sessions' logs, in one commit (ordered with the appends).
    async fn delete(&self, sessions: Vec<SessionId>) -> Result<(), StoreError>;

    /// Finishes pending appends and closes the store.
    async fn close(&self);

    /// The webhooks' delivery queue beside the logs, of at most `max` deliveries, each held by
    /// one sender for at most `lease` where several processes send (made by the first call;
    /// the server makes one).
    async fn outbox(
        &self,
        max: usize,
        lease: std::time::Duration,
    ) -> Result<Arc<dyn outbox::Outbox>, StoreError>;

    /// Bumped by every failed write; see [`SessionAppend::loaded_at`].
    fn generation(&self) -> u64 {
        0
    }

    /// Whether the store takes writes now (it recovers by itself).
    fn writable(&self) -> tokio::sync::watch::Receiver<bool> {
        tokio::sync::watch::channel(true).1
    }

    /// How the store reports appends other processes make: `None` for a store only this
    /// process writes.
    fn feed(&self) -> Option<&dyn Feed> {
        None
    }
}

/// How a store that other processes write too (JetStream) reports their appends: the session
/// layer says which sessions it holds, waits until their appends are reported before it reads
/// one, and follows the reports.
#[async_trait::async_trait]
pub trait Feed: Send + Sync {
    /// Appends as they are stored, made by this process or another one, of the sessions held;
    /// the first call takes them (`None` after).
    fn changes(&self) -> Option<tokio::sync::mpsc::Receiver<Change>>;

    /// Says whether this process holds `session` in memory (`held`) or no longer does. Never
    /// blocks: it is called under the session map's lock.
    fn interest(&self, session: &SessionId, held: bool);

    /// Returns once the appends to `session` made from now on will be reported (after
    /// [`Feed::interest`] said it is held): the session layer waits for it before it reads a
    /// session's state, so no append falls between that read and the reports.
    async fn following(&self, session: &SessionId);

    /// Says whether the appends of every session are wanted too (a fleet watch: each session's
    /// summary changes), not only those of the sessions held. While on, the replica is told of
    /// every append in the cluster.
    fn all_sessions(&self, wanted: bool);
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A fresh epoch: unique per log creation.
pub fn new_epoch() -> Epoch {
    Epoch::new(unique_hex()).expect("16 hex digits are an epoch")
}

/// 16 hex digits unique to this call: time, process and a per-process counter, hashed with a
/// random key (std's `RandomState`; no crate needed for ids that only must not repeat).
pub(crate) fn unique_hex() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{:016x}", h.finish())
}
