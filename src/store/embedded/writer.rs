//! The writer thread: group commit, and recovery from failed writes.
//!
//! It takes one request, then everything else already queued, and commits them in one write
//! transaction, so concurrent publishes share one durable commit. A failed commit (a full
//! disk, an I/O error) fails its requests and bumps the store's generation: requests computed
//! against state from before the failure (later offsets of the same logs) are refused, so a
//! log never gets a gap; their sessions reload what the disk has. redb refuses every operation
//! after an I/O error until it is reopened, so the writer then reopens the database and probes
//! it with a small write, retrying until the disk takes writes again; meanwhile the store
//! reports itself unhealthy and requests fail fast.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::RwLock;
use redb::{Database, ReadableTable};
use tokio::sync::{mpsc, oneshot, watch};

use super::format::{
    AFTER_ANY_ID, CALLS, EVENTS, IDS, PROBE, SESSIONS, encode_event, encode_meta, event_id,
    phase_bits,
};
use super::{open_database, storage};
use crate::domain::SessionId;
use crate::store::{RecordCodec, SessionAppend, StoreError, now_ms};

/// The most requests folded into one commit.
const MAX_GROUP: usize = 1024;
/// How often a store that cannot write tries again.
const RECOVERY_RETRY: Duration = Duration::from_secs(1);
/// How long the writer waits for reads of the failed database to finish before reopening.
const READERS_GRACE: Duration = Duration::from_secs(30);

pub enum Work {
    Append(Vec<SessionAppend>),
    Delete(Vec<SessionId>),
}

pub struct Request {
    pub work: Work,
    pub done: oneshot::Sender<Result<(), StoreError>>,
}

/// What the writer shares with readers.
pub struct Shared {
    /// The open database; `None` while it is being reopened.
    pub slot: RwLock<Option<Arc<Database>>>,
    /// Bumped by every failed commit.
    pub generation: AtomicU64,
    /// Whether the store takes writes.
    pub healthy: watch::Sender<bool>,
    pub path: PathBuf,
    pub cache_bytes: usize,
    /// The records' format.
    pub codec: Arc<dyn RecordCodec>,
}

fn unavailable() -> StoreError {
    StoreError::Storage("the store cannot write now (see the server log); retry".into())
}

pub fn writer_loop(shared: &Shared, mut rx: mpsc::Receiver<Request>) {
    while let Some(first) = rx.blocking_recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(r) => group.push(r),
                Err(_) => break,
            }
        }
        // Appends computed against state from before a failed commit would leave a gap.
        let generation = shared.generation.load(Ordering::Acquire);
        let (group, stale): (Vec<_>, Vec<_>) = group.into_iter().partition(|r| match &r.work {
            Work::Append(batch) => batch.iter().all(|a| a.loaded_at >= generation),
            Work::Delete(_) => true,
        });
        for r in stale {
            let _ = r.done.send(Err(unavailable()));
        }
        if group.is_empty() {
            continue;
        }
        let t0 = std::time::Instant::now();
        let db = shared.slot.read().clone();
        let result = match db {
            Some(db) => {
                std::panic::catch_unwind(AssertUnwindSafe(|| commit(&db, &*shared.codec, &group)))
                    .unwrap_or_else(|panic| Err(StoreError::from_panic(panic, "a commit")))
            }
            None => Err(unavailable()),
        };
        tracing::debug!(
            requests = group.len(),
            us = t0.elapsed().as_micros(),
            "commit"
        );
        let failed = result.is_err();
        if let Err(e) = &result {
            shared.generation.fetch_add(1, Ordering::AcqRel);
            shared.healthy.send_replace(false);
            tracing::error!(error = %e, path = %shared.path.display(), "store commit failed; recovering");
        }
        for r in group {
            let _ = r.done.send(result.clone());
        }
        if failed {
            recover(shared, &mut rx);
        }
    }
}

/// Reopens the database and waits until it takes a write; fails requests meanwhile.
fn recover(shared: &Shared, rx: &mut mpsc::Receiver<Request>) {
    if let Some(old) = shared.slot.write().take() {
        let since = std::time::Instant::now();
        while Arc::strong_count(&old) > 1 && since.elapsed() < READERS_GRACE {
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(old);
    }
    let mut attempts = 0u64;
    loop {
        loop {
            match rx.try_recv() {
                Ok(r) => {
                    let _ = r.done.send(Err(unavailable()));
                }
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => return,
            }
        }
        match open_database(&shared.path, shared.cache_bytes, &*shared.codec).and_then(|db| {
            probe(&db)?;
            Ok(db)
        }) {
            Ok(db) => {
                *shared.slot.write() = Some(Arc::new(db));
                shared.healthy.send_replace(true);
                tracing::info!(path = %shared.path.display(), attempts, "the store takes writes again");
                return;
            }
            Err(e) => {
                if attempts == 0 {
                    tracing::warn!(error = %e, "the store cannot write yet; retrying every second");
                }
                attempts += 1;
                std::thread::sleep(RECOVERY_RETRY);
            }
        }
    }
}

/// A small durable write: whether the disk takes writes.
fn probe(db: &Database) -> Result<(), StoreError> {
    let tx = db.begin_write().map_err(storage)?;
    tx.open_table(PROBE)
        .map_err(storage)?
        .insert("probe", now_ms())
        .map_err(storage)?;
    tx.commit().map_err(storage)
}

fn commit(db: &Database, codec: &dyn RecordCodec, group: &[Request]) -> Result<(), StoreError> {
    let tx = db.begin_write().map_err(storage)?;
    {
        let mut events = tx.open_table(EVENTS).map_err(storage)?;
        let mut sessions = tx.open_table(SESSIONS).map_err(storage)?;
        let mut ids = tx.open_table(IDS).map_err(storage)?;
        let mut calls = tx.open_table(CALLS).map_err(storage)?;
        for work in group.iter().map(|r| &r.work) {
            let batch = match work {
                Work::Append(batch) => batch,
                Work::Delete(doomed) => {
                    for session in doomed {
                        let sid = session.as_str();
                        events
                            .retain_in((sid, 0)..=(sid, u64::MAX), |_, _| false)
                            .map_err(storage)?;
                        ids.retain_in((sid, "")..(sid, AFTER_ANY_ID), |_, _| false)
                            .map_err(storage)?;
                        calls
                            .retain_in((sid, "")..(sid, AFTER_ANY_ID), |_, _| false)
                            .map_err(storage)?;
                        sessions.remove(sid).map_err(storage)?;
                    }
                    continue;
                }
            };
            for append in batch {
                let sid = append.session.as_str();
                for r in &append.records {
                    let value = encode_event(codec, r, &append.meta);
                    events
                        .insert((sid, r.offset), value.as_slice())
                        .map_err(storage)?;
                    ids.insert((sid, r.event.event_id.as_str()), r.offset)
                        .map_err(storage)?;
                }
                if let Some(before) = append.trim_before {
                    // Trimmed events' ids are forgotten with them.
                    let mut trimmed = Vec::new();
                    for item in events.range((sid, 0)..(sid, before)).map_err(storage)? {
                        let (k, v) = item.map_err(storage)?;
                        trimmed.push(event_id(codec, sid, k.value().1, v.value())?);
                    }
                    for id in &trimmed {
                        ids.remove((sid, id.as_str())).map_err(storage)?;
                    }
                    events
                        .retain_in((sid, 0)..(sid, before), |_, _| false)
                        .map_err(storage)?;
                }
                for (call, phase) in &append.calls {
                    calls
                        .insert((sid, call.as_str()), phase_bits(*phase))
                        .map_err(storage)?;
                }
                let meta = encode_meta(codec, &append.meta);
                sessions.insert(sid, meta.as_slice()).map_err(storage)?;
            }
        }
    }
    tx.commit().map_err(storage)
}
