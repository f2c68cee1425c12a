//! Group commit into the journal; recovery from failed writes.
//!
//! Requests queue in order. A publisher that awaits its append while its request is alone in
//! the queue and nobody writes commits it itself, on its own thread: one small record's write
//! and `fdatasync`, with no thread hand-off on the way to the disk and back (two wake-ups,
//! about a tenth of a lone durable publish here). Everything else is committed by the writer
//! thread, woken when requests wait: it takes everything queued and writes it as one journal
//! record with one `fdatasync`, so under load one flush makes a whole group durable. Whoever
//! releases the journal looks at the queue again, so a request is never left behind.
//!
//! Once a group is durable it goes to the overlay (so reads see it) and to the applier
//! (`apply.rs`). A failed journal write fails its requests, cuts the journal back to its last
//! acknowledged record and bumps the store's generation: requests computed against state from
//! before the failure (later offsets of the same logs) are refused, so a log never gets a gap;
//! their sessions reload what the store has. A recovery thread then probes the disk until it
//! takes writes again; meanwhile the store reports itself unhealthy and requests fail fast.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex, RwLock};
use redb::Database;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot, watch};

use super::format::{encode_event, encode_meta, phase_bits};
use super::journal::{Entry, Group, Journal};
use super::overlay::Overlay;
use crate::domain::SessionId;
use crate::store::{RecordCodec, SessionAppend, StoreError};

/// What the writer sends the applier thread: a group to apply to the database, or a deletion
/// ordered after every group sent before.
pub enum ToApplier {
    /// A group of appends, made durable in the journal.
    Group(Arc<Group>),
    /// Deletes sessions' logs after every group sent before; answers when done.
    Delete(
        Vec<SessionId>,
        std::sync::mpsc::Sender<Result<(), StoreError>>,
    ),
}

/// The most requests folded into one journal record.
const MAX_GROUP: usize = 1024;
/// Memory of journaled groups not yet applied to the database (as [`Group::bytes`] counts it)
/// beyond which the writer waits for the applier: bounds the overlay when the database falls
/// behind. About 150 ms of appends at the highest rate measured here (an apply takes a few
/// ms); `tests/memory.rs` holds the server's memory to its bound with it.
const MAX_UNAPPLIED: usize = 4 << 20;
/// How often a journal that cannot write is tried again.
const RECOVERY_RETRY: Duration = Duration::from_secs(1);

/// Requests queued at most; publishers wait beyond (back-pressure).
const QUEUE: usize = 4096;

pub enum Work {
    Append(Vec<SessionAppend>),
    Delete(Vec<SessionId>),
}

struct Request {
    work: Work,
    done: oneshot::Sender<Result<(), StoreError>>,
    /// Its place in the queue, given back once it is answered.
    _room: OwnedSemaphorePermit,
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

/// The queue of requests and the journal they are committed to.
pub struct Writer {
    shared: Arc<Shared>,
    queue: Mutex<Vec<Request>>,
    /// Permits for [`QUEUE`] requests; closed when the store closes.
    room: Arc<Semaphore>,
    /// Held by whoever commits (a lone publisher or the writer thread), or by the recovery's
    /// probe.
    journal: Arc<Mutex<Journal>>,
    /// Set to wake the writer thread (work is queued), or to end it ([`Wake::Close`]).
    wake: Mutex<Wake>,
    woken: Condvar,
    /// `None` once closed: the applier ends when this goes.
    applier: Mutex<Option<std::sync::mpsc::Sender<ToApplier>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    recovery: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// What the writer thread is told.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wake {
    Idle,
    /// Requests are queued.
    Work,
    /// The store closes: end once what is queued is committed.
    Close,
}

impl Writer {
    /// The writer, with its thread started.
    pub fn start(
        shared: Arc<Shared>,
        journal: Journal,
        applier: std::sync::mpsc::Sender<ToApplier>,
    ) -> Result<Arc<Self>, StoreError> {
        let writer = Arc::new(Writer {
            shared,
            queue: Mutex::new(Vec::new()),
            room: Arc::new(Semaphore::new(QUEUE)),
            journal: Arc::new(Mutex::new(journal)),
            wake: Mutex::new(Wake::Idle),
            woken: Condvar::new(),
            applier: Mutex::new(Some(applier)),
            thread: Mutex::new(None),
            recovery: Mutex::new(None),
        });
        let this = writer.clone();
        let thread = std::thread::Builder::new()
            .name("toolview-writer".into())
            .spawn(move || this.run())
            .map_err(|e| StoreError::Storage(format!("starting the store's writer: {e}")))?;
        *writer.thread.lock() = Some(thread);
        Ok(writer)
    }

    /// Queues work (waiting for room), in order; the receiver tells when it is committed,
    /// which happens once it is awaited ([`Writer::committed`]).
    pub async fn submit(
        &self,
        work: Work,
    ) -> Result<oneshot::Receiver<Result<(), StoreError>>, StoreError> {
        let room = self
            .room
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| StoreError::Closed)?;
        let (done, wait) = oneshot::channel();
        self.queue.lock().push(Request {
            work,
            done,
            _room: room,
        });
        Ok(wait)
    }

    /// Waits until queued work is committed, committing it on this thread if it is alone and
    /// nobody writes. If the wait is dropped first (its publisher went away), the writer thread
    /// takes over what is queued.
    pub async fn committed(
        self: Arc<Self>,
        wait: oneshot::Receiver<Result<(), StoreError>>,
    ) -> Result<(), StoreError> {
        let mut watch = WakeOnDrop(Some(self));
        if let Some(writer) = &watch.0 {
            writer.lead();
        }
        let result = wait.await.unwrap_or(Err(StoreError::Closed));
        watch.0 = None;
        result
    }

    /// If this request is alone in the queue and nobody is writing, commits it on this
    /// thread; otherwise leaves the queue to the writer thread (or to whoever writes now).
    ///
    /// Only a lone request is committed here: the runtime worker this runs on is blocked for
    /// one small record's write and flush, and at most one worker at a time (the journal's
    /// lock). Committing everything queued from whichever publisher came first (with a
    /// drainer on the blocking pool when it could not) cost a quarter of the throughput at 64
    /// publishers; `block_in_place` handed the worker's core to another thread per call, and
    /// the threads it left behind cost 22 MiB of RSS in `tests/memory.rs`.
    fn lead(&self) {
        // A delete waits for the applier's redb commit, and an append past the overlay's bound
        // waits for the applier to catch up: neither may block a runtime worker.
        let lone_append = match self.queue.lock().as_slice() {
            [only] => matches!(only.work, Work::Append(_)),
            _ => false,
        };
        if !lone_append || self.shared.overlay.read().bytes > MAX_UNAPPLIED {
            return self.wake();
        }
        let Some(mut journal) = self.journal.try_lock() else {
            // The holder looks at the queue when it lets go.
            return;
        };
        self.commit_queued(&mut journal);
        drop(journal);
        self.wake();
    }

    /// Wakes the writer thread if requests are queued.
    fn wake(&self) {
        if self.queue.lock().is_empty() {
            return;
        }
        let mut wake = self.wake.lock();
        if *wake == Wake::Idle {
            *wake = Wake::Work;
            self.woken.notify_one();
        }
    }

    /// The writer thread: commits groups while requests are queued, until the store closes.
    fn run(&self) {
        loop {
            {
                let mut wake = self.wake.lock();
                loop {
                    match *wake {
                        Wake::Idle => self.woken.wait(&mut wake),
                        Wake::Work => break *wake = Wake::Idle,
                        Wake::Close => return,
                    }
                }
            }
            loop {
                {
                    let mut journal = self.journal.lock();
                    while self.commit_queued(&mut journal) {}
                }
                // A lone publisher that found the journal held left its request to us.
                if self.queue.lock().is_empty() {
                    break;
                }
            }
        }
    }

    /// Refuses new work and tells the writer thread to end (without waiting for it): the
    /// thread holds the writer, and with it the database, until then.
    pub fn stop(&self) {
        self.room.close();
        *self.wake.lock() = Wake::Close;
        self.woken.notify_one();
    }

    /// Refuses new work, commits what is queued and ends the writer thread; the applier ends
    /// after it.
    pub fn close(&self) {
        self.stop();
        if let Some(thread) = self.thread.lock().take()
            && thread.join().is_err()
        {
            tracing::error!("the store's writer panicked");
        }
        while self.commit_queued(&mut self.journal.lock()) {}
        self.applier.lock().take();
        if let Some(thread) = self.recovery.lock().take() {
            let _ = thread.join();
        }
    }

    /// Commits one group of what is queued (up to [`MAX_GROUP`] requests); false if nothing
    /// was.
    fn commit_queued(&self, journal: &mut Journal) -> bool {
        let group: Vec<Request> = {
            let mut queue = self.queue.lock();
            if queue.is_empty() {
                return false;
            }
            let n = queue.len().min(MAX_GROUP);
            queue.drain(..n).collect()
        };
        let Some(applier) = self.applier.lock().clone() else {
            for r in group {
                let _ = r.done.send(Err(StoreError::Closed));
            }
            return true;
        };
        let shared = &*self.shared;
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
                    ok &= write(shared, journal, &applier, std::mem::take(&mut appends));
                    let (tx, answer) = std::sync::mpsc::channel();
                    let result = applier
                        .send(ToApplier::Delete(sessions, tx))
                        .map_err(|_| StoreError::Closed)
                        .and_then(|()| answer.recv().unwrap_or(Err(StoreError::Closed)));
                    let _ = r.done.send(result);
                }
            }
        }
        ok &= write(shared, journal, &applier, appends);
        if !ok {
            self.recover();
        } else if shared.journal_ok.load(Ordering::Acquire)
            && let Err(e) = journal.maintain(shared.durable.load(Ordering::Acquire))
        {
            // (A failed journal is left as it is until the recovery has cut it back.)
            tracing::warn!(error = %e, "could not rotate or delete journal segments");
        }
        true
    }

    /// Probes the journal from a thread of its own until the disk takes a write; meanwhile
    /// requests are refused as they are committed (the journal is marked failed).
    fn recover(&self) {
        let (shared, journal, room) =
            (self.shared.clone(), self.journal.clone(), self.room.clone());
        let mut running = self.recovery.lock();
        if running.as_ref().is_some_and(|t| !t.is_finished()) {
            return;
        }
        let thread = std::thread::Builder::new()
            .name("toolview-journal-recovery".into())
            .spawn(move || {
                retry_until_writable(&shared, || {
                    if room.is_closed() {
                        return None;
                    }
                    let probed = journal.lock().probe().map_err(|e| {
                        StoreError::Storage(format!("{}: {e}", shared.path.display()))
                    });
                    Some(probed.map(|()| shared.journal_ok.store(true, Ordering::Release)))
                })
            });
        match thread {
            Ok(thread) => *running = Some(thread),
            Err(e) => tracing::error!(error = %e, "could not start the journal's recovery"),
        }
    }
}

/// Wakes the writer thread if a wait for a commit is dropped before it is answered (its
/// request may be queued with nobody to lead it).
struct WakeOnDrop(Option<Arc<Writer>>);

impl Drop for WakeOnDrop {
    fn drop(&mut self) {
        if let Some(writer) = self.0.take() {
            writer.wake();
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
            .map(|(c, p)| (c.key().into_owned(), phase_bits(*p)))
            .collect(),
    }
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
