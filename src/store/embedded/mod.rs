//! The embedded store: crash-safe session logs in a redb database in the data directory.
//!
//! Appends go through one writer thread (`writer.rs`: group commit, recovery from failed
//! writes). Reads run on the blocking pool against redb's MVCC snapshots and never wait for
//! the writer. Every stored value carries a checksum (`format.rs`), and idempotency and
//! lifecycle questions are answered from an id index and a call-phase table, so a session's
//! events are never all read into memory.

mod format;
mod migrate;
mod writer;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use parking_lot::Mutex;
use redb::{Database, ReadableDatabase, ReadableTable};
use tokio::sync::{mpsc, oneshot, watch};

use super::{Durable, Known, Record, RecordCodec, SessionAppend, SessionMeta, Store, StoreError};
use crate::domain::{CallId, EventId, SessionId};
use format::{CALLS, EVENTS, IDS, SESSIONS, decode_event, decode_meta, phase_of};
use writer::{Request, Shared, Work, writer_loop};

/// Requests queued for the writer at most; publishers wait beyond (back-pressure).
const QUEUE: usize = 4096;

/// Session logs in a redb file.
pub struct EmbeddedStore {
    shared: Arc<Shared>,
    writer: Mutex<Option<mpsc::Sender<Request>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// A redb error as a store error: damaged pages are data loss, anything else a storage
/// failure.
/// A row of the sessions table as listed: a damaged one is left out (and logged), so it stops
/// neither the expiry of the others nor the session list.
fn listed(codec: &dyn RecordCodec, key: &str, value: &[u8]) -> Option<(SessionId, SessionMeta)> {
    let id = SessionId::new(key).ok()?;
    match decode_meta(codec, key, value) {
        Ok(meta) => Some((id, meta)),
        Err(e) => {
            tracing::warn!(error = %e, "skipping a session");
            None
        }
    }
}

fn storage(e: impl Into<redb::Error>) -> StoreError {
    match e.into() {
        redb::Error::Corrupted(msg) => StoreError::Corrupt(msg),
        e => StoreError::Storage(e.to_string()),
    }
}

/// Opens (or creates) the database file and brings its tables to the current format. Errors
/// name the file.
fn open_database(
    path: &Path,
    cache_bytes: usize,
    codec: &dyn RecordCodec,
) -> Result<Database, StoreError> {
    let named = |e: String| StoreError::Storage(format!("{}: {e}", path.display()));
    // A bounded page cache keeps the server's memory predictable.
    let db = Database::builder()
        .set_cache_size(cache_bytes)
        .create(path)
        .map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => named(
                "in use by another process (is another toolview serving this data directory?)"
                    .into(),
            ),
            e => named(e.to_string()),
        })?;
    format::prepare(&db, codec).map_err(|e| named(e.to_string()))?;
    Ok(db)
}

impl EmbeddedStore {
    /// Opens (or creates) `toolview.redb` in `dir`, with a page cache of `cache_bytes`, its
    /// records in `codec`'s format (an earlier format is moved into it).
    pub fn open(
        dir: &Path,
        cache_bytes: usize,
        codec: Arc<dyn RecordCodec>,
    ) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Storage(format!("{}: {e}", dir.display())))?;
        let path = dir.join("toolview.redb");
        let db = open_database(&path, cache_bytes, &*codec)?;
        let shared = Arc::new(Shared {
            slot: parking_lot::RwLock::new(Some(Arc::new(db))),
            generation: Default::default(),
            healthy: watch::Sender::new(true),
            path,
            cache_bytes,
            codec,
        });
        let (tx, rx) = mpsc::channel::<Request>(QUEUE);
        let writer_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name("toolview-writer".into())
            .spawn(move || writer_loop(&writer_shared, rx))
            .map_err(|e| StoreError::Storage(e.to_string()))?;
        Ok(EmbeddedStore {
            shared,
            writer: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Queues work for the writer (waiting for queue space); the receiver tells when it is
    /// committed.
    async fn submit(
        &self,
        work: Work,
    ) -> Result<oneshot::Receiver<Result<(), StoreError>>, StoreError> {
        let sender = self.writer.lock().clone().ok_or(StoreError::Closed)?;
        let (done, wait) = oneshot::channel();
        sender
            .send(Request { work, done })
            .await
            .map_err(|_| StoreError::Closed)?;
        Ok(wait)
    }

    /// Runs a read on the blocking pool. A panic inside the database while reading (a damaged
    /// page does that) is logged and answered as unreadable data of `what`, not sent to the
    /// client, and does not end the process.
    async fn blocking<T: Send + 'static>(
        &self,
        what: String,
        f: impl FnOnce(&Database, &dyn RecordCodec) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = self.shared.slot.read().clone().ok_or_else(|| {
            StoreError::Storage("the store is reopening after a failed write; retry".into())
        })?;
        let codec = self.shared.codec.clone();
        match tokio::task::spawn_blocking(move || f(&db, &*codec)).await {
            Ok(result) => result,
            Err(e) if e.is_panic() => {
                StoreError::from_join(e, &format!("reading {what}"));
                Err(StoreError::Corrupt(format!("{what} could not be read")))
            }
            Err(e) => Err(StoreError::from_join(e, &what)),
        }
    }
}

fn read_range(
    db: &Database,
    codec: &dyn RecordCodec,
    sid: &str,
    after: u64,
    max: usize,
) -> Result<Vec<Record>, StoreError> {
    fail::fail_point!("store-read");
    let tx = db.begin_read().map_err(storage)?;
    let events = tx.open_table(EVENTS).map_err(storage)?;
    let mut out = Vec::new();
    for item in events
        .range((sid, after.saturating_add(1))..=(sid, u64::MAX))
        .map_err(storage)?
    {
        if out.len() >= max {
            break;
        }
        let (k, v) = item.map_err(storage)?;
        match decode_event(codec, sid, k.value().1, v.value()) {
            Ok(record) => out.push(record),
            // Serve what comes before a damaged event; the next read reports it.
            Err(_) if !out.is_empty() => break,
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

#[tonic::async_trait]
impl Store for EmbeddedStore {
    fn name(&self) -> &'static str {
        "embedded"
    }

    async fn append(&self, batch: Vec<SessionAppend>) -> Result<Durable, StoreError> {
        let wait = self.submit(Work::Append(batch)).await?;
        Ok(Box::pin(async move {
            wait.await.unwrap_or(Err(StoreError::Closed))
        }))
    }

    async fn meta(&self, session: &SessionId) -> Result<Option<SessionMeta>, StoreError> {
        let sid = session.to_string();
        self.blocking(format!("session {session}"), move |db, codec| {
            let tx = db.begin_read().map_err(storage)?;
            let sessions = tx.open_table(SESSIONS).map_err(storage)?;
            let meta = sessions.get(sid.as_str()).map_err(storage)?;
            meta.map(|m| decode_meta(codec, &sid, m.value()))
                .transpose()
        })
        .await
    }

    async fn known(
        &self,
        session: &SessionId,
        events: Vec<EventId>,
        calls: Vec<CallId>,
    ) -> Result<Known, StoreError> {
        let sid = session.to_string();
        self.blocking(format!("session {session}"), move |db, _| {
            let tx = db.begin_read().map_err(storage)?;
            let ids = tx.open_table(IDS).map_err(storage)?;
            let phases = tx.open_table(CALLS).map_err(storage)?;
            let mut known = Known::default();
            for id in events {
                if let Some(offset) = ids.get((sid.as_str(), id.as_str())).map_err(storage)? {
                    known.events.insert(id, offset.value());
                }
            }
            for call in calls {
                if let Some(bits) = phases.get((sid.as_str(), call.as_str())).map_err(storage)? {
                    known.calls.insert(call, phase_of(bits.value()));
                }
            }
            Ok(known)
        })
        .await
    }

    async fn read(
        &self,
        session: &SessionId,
        after: u64,
        max: usize,
    ) -> Result<Vec<Record>, StoreError> {
        let sid = session.to_string();
        self.blocking(format!("session {session}"), move |db, codec| {
            read_range(db, codec, &sid, after, max)
        })
        .await
    }

    async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        self.blocking("the session list".into(), |db, codec| {
            let tx = db.begin_read().map_err(storage)?;
            let sessions = tx.open_table(SESSIONS).map_err(storage)?;
            let mut out = Vec::new();
            for item in sessions.iter().map_err(storage)? {
                let (k, v) = item.map_err(storage)?;
                out.extend(listed(codec, k.value(), v.value()));
            }
            Ok(out)
        })
        .await
    }

    async fn list(
        &self,
        after: Option<SessionId>,
        limit: usize,
    ) -> Result<Option<Vec<(SessionId, SessionMeta)>>, StoreError> {
        self.blocking("the session list".into(), move |db, codec| {
            use std::ops::Bound;
            let tx = db.begin_read().map_err(storage)?;
            let sessions = tx.open_table(SESSIONS).map_err(storage)?;
            let from = after
                .as_ref()
                .map_or(Bound::Unbounded, |a| Bound::Excluded(a.as_str()));
            let mut out = Vec::new();
            for item in sessions
                .range::<&str>((from, Bound::Unbounded))
                .map_err(storage)?
            {
                if out.len() >= limit {
                    break;
                }
                let (k, v) = item.map_err(storage)?;
                out.extend(listed(codec, k.value(), v.value()));
            }
            Ok(Some(out))
        })
        .await
    }

    async fn delete(&self, sessions: Vec<SessionId>) -> Result<(), StoreError> {
        let wait = self.submit(Work::Delete(sessions)).await?;
        wait.await.unwrap_or(Err(StoreError::Closed))
    }

    async fn close(&self) {
        // Dropping the sender lets the writer drain what is queued and exit.
        self.writer.lock().take();
        let thread = self.thread.lock().take();
        if let Some(t) = thread {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
    }

    fn generation(&self) -> u64 {
        self.shared.generation.load(Ordering::Acquire)
    }

    fn writable(&self) -> watch::Receiver<bool> {
        self.shared.healthy.subscribe()
    }
}
