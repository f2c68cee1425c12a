//! The embedded store: crash-safe session logs in a redb database in the data directory.
//!
//! Appends go through one writer (`writer.rs`: group commit into an append-only
//! journal, `journal.rs`, one `fdatasync` per group; recovery from failed writes). Journaled
//! groups are readable at once from an in-memory overlay (`overlay.rs`) and are moved into redb
//! by an applier thread (`apply.rs`) many groups per commit; on open, the journal's unapplied
//! groups are applied first. Reads look at the overlay, then run on the blocking pool against
//! redb's MVCC snapshots and never wait for the writers. Every stored value carries a checksum
//! (`format.rs`), and idempotency and lifecycle questions are answered from an id index and a
//! call-phase table, so a session's events are never all read into memory.

mod apply;
mod format;
mod journal;
mod migrate;
mod overlay;
mod writer;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::Mutex;
use redb::{Database, ReadableDatabase, ReadableTable};
use tokio::sync::watch;

use super::outbox::{LocalOutbox, Outbox};
use super::{Durable, Known, Record, RecordCodec, SessionAppend, SessionMeta, Store, StoreError};
use crate::domain::{EventId, SessionId, Subject};
use format::{CALLS, EVENTS, IDS, SESSIONS, decode_event, decode_meta, phase_of};
use writer::{Shared, Work, Writer};

/// Session logs in a redb file.
pub struct EmbeddedStore {
    shared: Arc<Shared>,
    writer: Arc<Writer>,
    applier: Mutex<Option<std::thread::JoinHandle<()>>>,
}

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

/// The overlay's session metadata as listed.
fn overlaid(pending: Vec<(String, SessionMeta)>) -> impl Iterator<Item = (SessionId, SessionMeta)> {
    pending
        .into_iter()
        .filter_map(|(id, meta)| Some((SessionId::new(&id).ok()?, meta)))
}

/// A redb error as a store error: damaged pages are data loss, anything else a storage
/// failure.
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
    migrate::prepare(&db, codec).map_err(|e| named(e.to_string()))?;
    Ok(db)
}

/// Applies what the journal in `dir` holds beyond what `db` has applied, durably, then deletes
/// the journal; returns the sequence the next group gets.
fn replay_journal(db: &Database, dir: &Path, codec: &dyn RecordCodec) -> Result<u64, StoreError> {
    let io = |e: std::io::Error| StoreError::Storage(format!("{}: {e}", dir.display()));
    let mut last = apply::applied(db)?;
    let groups: Vec<Arc<journal::Group>> = journal::replay(dir)
        .map_err(io)?
        .into_iter()
        .filter(|g| g.seq > last)
        .map(Arc::new)
        .collect();
    // Groups follow each other; one missing means the rest cannot be applied in order.
    let contiguous = groups
        .iter()
        .zip(last + 1..)
        .take_while(|(g, want)| g.seq == *want)
        .count();
    if contiguous < groups.len() {
        tracing::error!(
            expected = last + 1 + contiguous as u64,
            found = groups[contiguous].seq,
            "the journal skips a group; the groups after the gap are not applied"
        );
    }
    if contiguous > 0 {
        tracing::info!(groups = contiguous, "applying the journal");
        for chunk in groups[..contiguous].chunks(1024) {
            apply::commit(db, codec, chunk, true)?;
        }
        last = groups[contiguous - 1].seq;
    }
    journal::clear(dir).map_err(io)?;
    Ok(last + 1)
}

impl EmbeddedStore {
    /// Opens (or creates) `toolview.redb` and its journal in `dir`, with a page cache of
    /// `cache_bytes`, its records in `codec`'s format (an earlier format is moved into it).
    pub fn open(
        dir: &Path,
        cache_bytes: usize,
        codec: Arc<dyn RecordCodec>,
    ) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Storage(format!("{}: {e}", dir.display())))?;
        let path = dir.join("toolview.redb");
        let db = open_database(&path, cache_bytes, &*codec)?;
        let journal_dir = journal::dir_of(dir);
        let next = replay_journal(&db, &journal_dir, &*codec)?;
        let journal = journal::Journal::create(&journal_dir, next)
            .map_err(|e| StoreError::Storage(format!("{}: {e}", journal_dir.display())))?;
        let shared = Arc::new(Shared {
            slot: parking_lot::RwLock::new(Some(Arc::new(db))),
            overlay: Default::default(),
            applied: AtomicU64::new(next - 1),
            durable: AtomicU64::new(next - 1),
            generation: Default::default(),
            journal_ok: AtomicBool::new(true),
            db_ok: AtomicBool::new(true),
            healthy: watch::Sender::new(true),
            path,
            journal_dir: journal_dir.clone(),
            cache_bytes,
            codec,
        });
        let (to_applier, from_writer) = std::sync::mpsc::channel();
        let applier_shared = shared.clone();
        let applier = std::thread::Builder::new()
            .name("toolview-applier".into())
            .spawn(move || apply::applier_loop(&applier_shared, from_writer))
            .map_err(|e| StoreError::Storage(e.to_string()))?;
        Ok(EmbeddedStore {
            writer: Writer::start(shared.clone(), journal, to_applier)?,
            shared,
            applier: Mutex::new(Some(applier)),
        })
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

    /// Runs a few point lookups on this thread: a handful of B-tree pages, almost always in
    /// redb's page cache, cost less than the two thread hand-offs of the blocking pool (which
    /// dominated a durable publish's CPU). Panics are handled as in [`Self::blocking`].
    fn lookup<T>(
        &self,
        what: String,
        f: impl FnOnce(&Database) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let db = self.shared.slot.read().clone().ok_or_else(|| {
            StoreError::Storage("the store is reopening after a failed write; retry".into())
        })?;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&db))).unwrap_or_else(|panic| {
            StoreError::from_panic(panic, &format!("reading {what}"));
            Err(StoreError::Corrupt(format!("{what} could not be read")))
        })
    }
}

impl Drop for EmbeddedStore {
    /// A store dropped without [`Store::close`] still lets go of its database.
    fn drop(&mut self) {
        self.writer.stop();
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

#[async_trait::async_trait]
impl Store for EmbeddedStore {
    fn name(&self) -> &'static str {
        "embedded"
    }

    async fn append(&self, batch: Vec<SessionAppend>) -> Result<Durable, StoreError> {
        let wait = self.writer.submit(Work::Append(batch)).await?;
        Ok(Box::pin(self.writer.clone().committed(wait)))
    }

    async fn meta(&self, session: &SessionId) -> Result<Option<SessionMeta>, StoreError> {
        if let Some(meta) = self.shared.overlay.read().meta(session.as_str()) {
            return Ok(Some(meta));
        }
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
        subjects: Vec<Subject>,
    ) -> Result<Known, StoreError> {
        let sid = session.to_string();
        // The overlay first (see overlay.rs), then the database for the rest.
        let mut known = Known::default();
        let (mut events_left, mut calls_left) = (Vec::new(), Vec::new());
        let floor = {
            let overlay = self.shared.overlay.read();
            for id in events {
                match overlay.event(&sid, id.as_str()) {
                    Some(offset) => drop(known.events.insert(id, offset)),
                    None => events_left.push(id),
                }
            }
            for call in subjects {
                match overlay.call(&sid, &call.key()) {
                    Some(phase) => drop(known.phases.insert(call, phase)),
                    None => calls_left.push(call),
                }
            }
            overlay.floor(&sid).unwrap_or(0)
        };
        if events_left.is_empty() && calls_left.is_empty() {
            return Ok(known);
        }
        self.lookup(format!("session {session}"), move |db| {
            let tx = db.begin_read().map_err(storage)?;
            let ids = tx.open_table(IDS).map_err(storage)?;
            let phases = tx.open_table(CALLS).map_err(storage)?;
            for id in events_left {
                if let Some(offset) = ids.get((sid.as_str(), id.as_str())).map_err(storage)? {
                    // An id trimmed by a group not yet applied is forgotten already.
                    if offset.value() >= floor {
                        known.events.insert(id, offset.value());
                    }
                }
            }
            for call in calls_left {
                if let Some(bits) = phases.get((sid.as_str(), &*call.key())).map_err(storage)? {
                    known.phases.insert(call, phase_of(bits.value()));
                }
            }
            Ok(known)
        })
    }

    async fn read(
        &self,
        session: &SessionId,
        after: u64,
        max: usize,
    ) -> Result<Vec<Record>, StoreError> {
        let sid = session.to_string();
        let plan = self.shared.overlay.read().read(&sid, after, max);
        if plan.complete {
            return Ok(plan.records);
        }
        self.blocking(format!("session {session}"), move |db, codec| {
            let from = after.max(plan.floor.saturating_sub(1));
            let mut out = read_range(db, codec, &sid, from, max)?;
            // The overlay's events continue the database's (a group applied meanwhile is in
            // both: keep one copy).
            let head = out.last().map_or(from, |r| r.offset);
            let room = max - out.len();
            out.extend(
                plan.records
                    .into_iter()
                    .filter(|r| r.offset > head)
                    .take(room),
            );
            Ok(out)
        })
        .await
    }

    async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        let pending = self.shared.overlay.read().metas();
        self.blocking("the session list".into(), move |db, codec| {
            let tx = db.begin_read().map_err(storage)?;
            let sessions = tx.open_table(SESSIONS).map_err(storage)?;
            let mut out = std::collections::BTreeMap::new();
            for item in sessions.iter().map_err(storage)? {
                let (k, v) = item.map_err(storage)?;
                out.extend(listed(codec, k.value(), v.value()));
            }
            out.extend(overlaid(pending));
            Ok(out.into_iter().collect())
        })
        .await
    }

    async fn list(
        &self,
        after: Option<SessionId>,
        limit: usize,
    ) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        let pending = self.shared.overlay.read().metas();
        self.blocking("the session list".into(), move |db, codec| {
            use std::ops::Bound;
            let tx = db.begin_read().map_err(storage)?;
            let sessions = tx.open_table(SESSIONS).map_err(storage)?;
            let from = after
                .as_ref()
                .map_or(Bound::Unbounded, |a| Bound::Excluded(a.as_str()));
            let mut out = std::collections::BTreeMap::new();
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
            // The first `limit` of the union are among the database's first `limit` and the
            // overlay's sessions.
            let after = after.as_ref().map(|a| a.as_str());
            out.extend(overlaid(pending).filter(|(id, _)| after.is_none_or(|a| id.as_str() > a)));
            Ok(out.into_iter().take(limit).collect())
        })
        .await
    }

    async fn delete(&self, sessions: Vec<SessionId>) -> Result<(), StoreError> {
        let wait = self.writer.submit(Work::Delete(sessions)).await?;
        self.writer.clone().committed(wait).await
    }

    async fn outbox(
        &self,
        max: usize,
        _lease: std::time::Duration,
    ) -> Result<Arc<dyn Outbox>, StoreError> {
        // A file of its own beside the logs: see `store::outbox::local`.
        let path = self.shared.path.with_file_name("webhooks.redb");
        let outbox = tokio::task::spawn_blocking(move || LocalOutbox::open(&path, max))
            .await
            .map_err(|e| StoreError::from_join(e, "opening webhooks.redb"))??;
        Ok(Arc::new(outbox))
    }

    async fn close(&self) {
        // What is queued is committed; then the applier, told so, applies the rest and ends,
        // and a journal that reached the database can go.
        let (writer, shared) = (self.writer.clone(), self.shared.clone());
        let applier = self.applier.lock().take();
        let _ = tokio::task::spawn_blocking(move || {
            writer.close();
            let Some(applier) = applier else { return };
            if applier.join().is_err() {
                tracing::error!(
                    "the store's applier panicked; the journal is applied on the next open"
                );
                return;
            }
            if shared.overlay.read().is_empty()
                && let Err(e) = journal::clear(&shared.journal_dir)
            {
                tracing::warn!(error = %e, "could not delete the applied journal");
            }
        })
        .await;
    }

    fn generation(&self) -> u64 {
        self.shared.generation.load(Ordering::Acquire)
    }

    fn writable(&self) -> watch::Receiver<bool> {
        self.shared.healthy.subscribe()
    }
}
