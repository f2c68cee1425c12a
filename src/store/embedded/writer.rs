//! The writer thread: group commit into the journal, and recovery from failed writes.
//!
//! It takes one request, then everything else already queued, and writes their appends as one
//! journal record with one `fdatasync`: once that returns, every request in the group is
//! durable. It then adds the group to the overlay (so reads see it), hands it to the applier
//! (`apply.rs`) and acknowledges it. A failed journal write fails its requests, cuts the
//! journal back to its last acknowledged record and bumps the store's generation: requests
//! computed against state from before the failure (later offsets of the same logs) are
//! refused, so a log never gets a gap; their sessions reload what the store has. The writer
//! then probes the disk until it takes writes again; meanwhile the store reports itself
//! unhealthy and requests fail fast.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::RwLock;
use redb::Database;
use tokio::sync::{mpsc, oneshot, watch};

use super::apply::ToApplier;
use super::format::{encode_event, encode_meta, phase_bits};
use super::journal::{Entry, Group, Journal};
use super::overlay::Overlay;
use crate::domain::SessionId;
use crate::store::{RecordCodec, SessionAppend, StoreError};

/// The most requests folded into one journal record.
const MAX_GROUP: usize = 1024;
/// Memory of journaled groups not yet applied to the database (as [`Group::bytes`] counts it)
/// beyond which the writer waits for the applier: bounds the overlay when the database falls
/// behind. About 150 ms of appends at the highest rate measured here (an apply takes a few
/// ms); `tests/memory.rs` holds the server's memory to its bound with it.
const MAX_UNAPPLIED: usize = 4 << 20;
/// How often a journal that cannot write is tried again.
const RECOVERY_RETRY: Duration = Duration::from_secs(1);

pub enum Work {
    Append(Vec<SessionAppend>),
    Delete(Vec<SessionId>),
}

pub struct Request {
    pub work: Work,
    pub done: oneshot::Sender<Result<(), StoreError>>,
}

/// What the writer, the applier and readers share.
pub struct Shared {
    /// The open database; `None` while it is being reopened.
    pub slot: RwLock<Option<Arc<Database>>>,
    /// Journaled groups not yet in the database.
    pub overlay: RwLock<Overlay>,
    /// The last group applied to the database (readable there).
    pub applied: AtomicU64,
    /// The last group applied and synced to disk: the journal before it can go.
    pub durable: AtomicU64,
    /// Bumped by every failed write.
    pub generation: AtomicU64,
    /// Whether the journal, and the database, take writes.
    pub journal_ok: AtomicBool,
    pub db_ok: AtomicBool,
    /// Whether the store takes writes (both of the above).
    pub healthy: watch::Sender<bool>,
    pub path: PathBuf,
    pub journal_dir: PathBuf,
    pub cache_bytes: usize,
    /// The records' format.
    pub codec: Arc<dyn RecordCodec>,
}

pub fn unavailable() -> StoreError {
    StoreError::Storage("the store cannot write now (see the server log); retry".into())
}

pub fn report_health(shared: &Shared) {
    let ok = shared.journal_ok.load(Ordering::Acquire) && shared.db_ok.load(Ordering::Acquire);
    shared.healthy.send_replace(ok);
}

pub fn writer_loop(
    shared: &Shared,
    mut journal: Journal,
    mut rx: mpsc::Receiver<Request>,
    applier: std::sync::mpsc::Sender<ToApplier>,
) {
    while let Some(first) = rx.blocking_recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(r) => group.push(r),
                Err(_) => break,
            }
        }
        // Appends computed against state from before a failed write would leave a gap.
        let generation = shared.generation.load(Ordering::Acquire);
        let (group, stale): (Vec<_>, Vec<_>) = group.into_iter().partition(|r| match &r.work {
            Work::Append(batch) => batch.iter().all(|a| a.loaded_at >= generation),
            Work::Delete(_) => true,
        });
        for r in stale {
            let _ = r.done.send(Err(unavailable()));
        }
        // Appends up to a delete go as one record; the delete follows them.
        let (mut appends, mut ok) = (Vec::new(), true);
        for r in group {
            match r.work {
                Work::Append(batch) => appends.push((batch, r.done)),
                Work::Delete(sessions) => {
                    ok &= write(shared, &mut journal, &applier, std::mem::take(&mut appends));
                    let (tx, answer) = std::sync::mpsc::channel();
                    let result = applier
                        .send(ToApplier::Delete(sessions, tx))
                        .map_err(|_| StoreError::Closed)
                        .and_then(|()| answer.recv().unwrap_or(Err(StoreError::Closed)));
                    let _ = r.done.send(result);
                }
            }
        }
        ok &= write(shared, &mut journal, &applier, appends);
        if !ok {
            recover(shared, &mut journal, &mut rx);
        }
        if let Err(e) = journal.maintain(shared.durable.load(Ordering::Acquire)) {
            tracing::warn!(error = %e, "could not rotate or delete journal segments");
        }
    }
}

type Pending = Vec<(Vec<SessionAppend>, oneshot::Sender<Result<(), StoreError>>)>;

/// Journals appends as one group and acknowledges them; false if the journal failed.
fn write(
    shared: &Shared,
    journal: &mut Journal,
    applier: &std::sync::mpsc::Sender<ToApplier>,
    pending: Pending,
) -> bool {
    if pending.is_empty() {
        return true;
    }
    // Back-pressure: the database must keep up with the journal, within a bound.
    while shared.overlay.read().bytes > MAX_UNAPPLIED && shared.db_ok.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(1));
    }
    if !shared.db_ok.load(Ordering::Acquire) || !shared.journal_ok.load(Ordering::Acquire) {
        // Requests queued behind these were computed assuming them: they must be refused too.
        shared.generation.fetch_add(1, Ordering::AcqRel);
        for (_, done) in pending {
            let _ = done.send(Err(unavailable()));
        }
        return true;
    }
    let t0 = std::time::Instant::now();
    let seq = journal.next_seq();
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let group = Group {
            seq,
            entries: pending
                .iter()
                .flat_map(|(batch, _)| batch)
                .map(|a| entry(&*shared.codec, a))
                .collect(),
        };
        journal
            .append(&group)
            .map(|()| group)
            .map_err(|e| StoreError::Storage(format!("{}: {e}", shared.path.display())))
    }))
    .unwrap_or_else(|panic| Err(StoreError::from_panic(panic, "a journal write")));
    tracing::debug!(
        requests = pending.len(),
        us = t0.elapsed().as_micros(),
        "commit"
    );
    match result {
        Ok(group) => {
            let appends = pending.iter().flat_map(|(b, _)| b);
            shared.overlay.write().insert(seq, appends, group.bytes());
            // The applier only ends after the writer, so this cannot fail while it matters.
            let _ = applier.send(ToApplier::Group(Arc::new(group)));
            for (_, done) in pending {
                let _ = done.send(Ok(()));
            }
            true
        }
        Err(e) => {
            shared.generation.fetch_add(1, Ordering::AcqRel);
            shared.journal_ok.store(false, Ordering::Release);
            report_health(shared);
            tracing::error!(error = %e, path = %shared.path.display(), "store commit failed; recovering");
            for (_, done) in pending {
                let _ = done.send(Err(e.clone()));
            }
            false
        }
    }
}

/// An append in stored form.
fn entry(codec: &dyn RecordCodec, a: &SessionAppend) -> Entry {
    Entry {
        session: a.session.to_string(),
        meta: encode_meta(codec, &a.meta),
        events: a
            .records
            .iter()
            .map(|r| {
                (
                    r.offset,
                    r.event.event_id.to_string(),
                    encode_event(codec, r, &a.meta),
                )
            })
            .collect(),
        trim_before: a.trim_before,
        calls: a
            .phases
            .iter()
            .map(|(c, p)| (c.as_str().to_owned(), phase_bits(*p)))
            .collect(),
    }
}

/// Cuts the journal back and waits until the disk takes a write; fails requests meanwhile.
fn recover(shared: &Shared, journal: &mut Journal, rx: &mut mpsc::Receiver<Request>) {
    retry_until_writable(shared, || {
        loop {
            match rx.try_recv() {
                Ok(r) => {
                    // As in `write`: what is queued behind a refused request is refused too.
                    shared.generation.fetch_add(1, Ordering::AcqRel);
                    let _ = r.done.send(Err(unavailable()));
                }
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => return None,
            }
        }
        let probed = journal
            .probe()
            .map_err(|e| StoreError::Storage(format!("{}: {e}", shared.path.display())));
        Some(probed.map(|()| shared.journal_ok.store(true, Ordering::Release)))
    });
}

/// Runs `attempt` every [`RECOVERY_RETRY`] until it succeeds (it marks its half of the store
/// writable), then reports the store's health; the first failure and the recovery are logged.
/// Stops when `attempt` gives up (`None`: the store is closing).
pub fn retry_until_writable(
    shared: &Shared,
    mut attempt: impl FnMut() -> Option<Result<(), StoreError>>,
) {
    let mut attempts = 0u64;
    while let Some(result) = attempt() {
        match result {
            Ok(()) => {
                report_health(shared);
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
