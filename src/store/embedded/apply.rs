//! The applier thread: moves journaled groups into the database, many per commit.
//!
//! Groups arrive here once they are durable in the journal (and visible through the overlay).
//! The applier collects them for [`APPLY_INTERVAL`], commits them in one
//! durable redb transaction that also records the last applied sequence, and then removes them
//! from the overlay; the writer deletes journal segments once everything in them is applied.
//! A failed commit keeps its groups (they are durable in the journal and still served from the
//! overlay), reports the store unhealthy, reopens the database and retries: redb refuses every
//! operation after an I/O error until it is reopened. Deletes run here too, after every group
//! before them, so a delete and the appends around it reach the database in their order.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use redb::{Database, ReadableTable};

use super::format::{
    AFTER_ANY_ID, APPLIED, CALLS, EVENTS, IDS, JOURNAL, PROBE, SESSIONS, event_id,
};
use super::journal::Group;
use super::writer::{Shared, ToApplier, report_health, retry_until_writable};
use super::{open_database, storage};
use crate::domain::SessionId;
use crate::store::{RecordCodec, StoreError, now_ms};

/// How long journaled groups collect before one commit applies them: long enough that the
/// database's per-commit cost (tens of page writes and an fsync) is shared by many groups,
/// short enough that the overlay stays small.
const APPLY_INTERVAL: Duration = Duration::from_millis(25);
/// Applies are not synced to disk (the journal has their groups); one in this interval is,
/// after which the journal's older segments can go. Syncing every apply made the database's
/// page writes compete with the journal's `fdatasync` for the disk.
const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);
/// How long a reopen waits for reads of the failed database to finish.
const READERS_GRACE: Duration = Duration::from_secs(30);

pub fn applier_loop(shared: &Shared, rx: mpsc::Receiver<ToApplier>) {
    let mut batch: Vec<Arc<Group>> = Vec::new();
    let mut bytes = 0;
    let mut synced = Instant::now();
    // Wait for a first message, then sleep out the interval and take everything queued: a
    // channel only wakes a receiver that waits, so the groups sent meanwhile cost no wake-ups
    // (waking per group cost the writer a futex call for each).
    while let Ok(first) = rx.recv() {
        let since = Instant::now();
        let mut next = Some(first);
        let mut open = true;
        loop {
            let msg = match next.take() {
                Some(msg) => msg,
                None => match rx.try_recv() {
                    Ok(msg) => msg,
                    Err(mpsc::TryRecvError::Empty) if since.elapsed() < APPLY_INTERVAL => {
                        std::thread::sleep(APPLY_INTERVAL.saturating_sub(since.elapsed()));
                        continue;
                    }
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => {
                        open = false;
                        break;
                    }
                },
            };
            match msg {
                ToApplier::Group(group) => {
                    bytes += group.bytes();
                    batch.push(group);
                }
                // Deletes are rare (expiry); they wait for the interval like the groups.
                ToApplier::Delete(sessions, done) => {
                    apply_all(shared, &mut batch, &mut bytes, &mut synced, false);
                    // A delete's commit is durable, and with it every apply before it.
                    let result = delete(shared, &sessions);
                    if result.is_ok() {
                        shared
                            .durable
                            .store(shared.applied.load(Ordering::Acquire), Ordering::Release);
                        synced = Instant::now();
                    }
                    let _ = done.send(result);
                }
            }
        }
        apply_all(shared, &mut batch, &mut bytes, &mut synced, !open);
        if !open {
            return;
        }
    }
    apply_all(shared, &mut batch, &mut bytes, &mut synced, true);
}

/// Applies `batch`, retrying (after reopening the database) until it succeeds, or once when
/// the store is closing (what fails then is applied from the journal on the next open). The
/// commit is durable when the last durable one is [`CHECKPOINT_INTERVAL`] old, or on close.
fn apply_all(
    shared: &Shared,
    batch: &mut Vec<Arc<Group>>,
    bytes: &mut usize,
    synced: &mut Instant,
    closing: bool,
) {
    let Some(last) = batch.last().map(|g| g.seq) else {
        return;
    };
    let durable = closing || synced.elapsed() >= CHECKPOINT_INTERVAL;
    loop {
        // Tests hold the applier here (`pause`) to show that acknowledgements and reads need
        // only the journal and the overlay.
        fail::fail_point!("store-apply");
        let t0 = Instant::now();
        match with_db(shared, "a commit", |db, codec| {
            commit(db, codec, batch, durable)
        }) {
            Ok(()) => {
                tracing::debug!(
                    groups = batch.len(),
                    us = t0.elapsed().as_micros(),
                    "applied"
                );
                break;
            }
            Err(e) => {
                failed(shared, &e);
                if closing {
                    return;
                }
                recover(shared);
            }
        }
    }
    shared.applied.store(last, Ordering::Release);
    if durable {
        shared.durable.store(last, Ordering::Release);
        *synced = Instant::now();
    }
    let sessions = batch
        .iter()
        .flat_map(|g| g.entries.iter().map(|e| e.session.as_str()));
    shared.overlay.write().applied(last, sessions, *bytes);
    batch.clear();
    *bytes = 0;
}

fn delete(shared: &Shared, sessions: &[SessionId]) -> Result<(), StoreError> {
    let result = with_db(shared, "a delete", |db, _| {
        let tx = db.begin_write().map_err(storage)?;
        {
            let mut events = tx.open_table(EVENTS).map_err(storage)?;
            let mut ids = tx.open_table(IDS).map_err(storage)?;
            let mut calls = tx.open_table(CALLS).map_err(storage)?;
            let mut metas = tx.open_table(SESSIONS).map_err(storage)?;
            for session in sessions {
                let sid = session.as_str();
                events
                    .retain_in((sid, 0)..=(sid, u64::MAX), |_, _| false)
                    .map_err(storage)?;
                ids.retain_in((sid, "")..(sid, AFTER_ANY_ID), |_, _| false)
                    .map_err(storage)?;
                calls
                    .retain_in((sid, "")..(sid, AFTER_ANY_ID), |_, _| false)
                    .map_err(storage)?;
                metas.remove(sid).map_err(storage)?;
            }
        }
        tx.commit().map_err(storage)
    });
    if let Err(e) = &result {
        failed(shared, e);
        recover(shared);
    }
    result
}

/// Runs `f` on the open database, a panic inside it reported as a bug.
fn with_db(
    shared: &Shared,
    what: &str,
    f: impl FnOnce(&Database, &dyn RecordCodec) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let db = shared
        .slot
        .read()
        .clone()
        .ok_or_else(super::writer::unavailable)?;
    std::panic::catch_unwind(AssertUnwindSafe(|| f(&db, &*shared.codec)))
        .unwrap_or_else(|panic| Err(StoreError::from_panic(panic, what)))
}

/// A failed apply loses nothing acknowledged (its groups stay in the journal and the
/// overlay), so it does not bump the generation; the writer does, for what it refuses.
fn failed(shared: &Shared, e: &StoreError) {
    shared.db_ok.store(false, Ordering::Release);
    report_health(shared);
    tracing::error!(error = %e, path = %shared.path.display(), "store commit failed; recovering");
}

/// Reopens the database and waits until it takes a write. Applies that were not synced are
/// gone from the reopened file, and no longer in the overlay: they are applied again from the
/// journal, which keeps every group until a synced apply holds it.
fn recover(shared: &Shared) {
    if let Some(old) = shared.slot.write().take() {
        let since = Instant::now();
        while Arc::strong_count(&old) > 1 && since.elapsed() < READERS_GRACE {
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(old);
    }
    retry_until_writable(shared, || {
        let opened =
            open_database(&shared.path, shared.cache_bytes, &*shared.codec).and_then(|db| {
                probe(&db)?;
                catch_up(shared, &db)?;
                Ok(db)
            });
        Some(opened.map(|db| {
            *shared.slot.write() = Some(Arc::new(db));
            shared.db_ok.store(true, Ordering::Release);
        }))
    });
}

/// Applies, durably, the journal's groups that a reopened database lost.
fn catch_up(shared: &Shared, db: &Database) -> Result<(), StoreError> {
    let (have, want) = (applied(db)?, shared.applied.load(Ordering::Acquire));
    if have >= want {
        return Ok(());
    }
    let groups: Vec<Arc<Group>> = super::journal::replay(&shared.journal_dir)
        .map_err(|e| StoreError::Storage(format!("{}: {e}", shared.journal_dir.display())))?
        .into_iter()
        .filter(|g| g.seq > have && g.seq <= want)
        .map(Arc::new)
        .collect();
    commit(db, &*shared.codec, &groups, true)?;
    shared.durable.store(want, Ordering::Release);
    Ok(())
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

/// The last group the database holds.
pub fn applied(db: &Database) -> Result<u64, StoreError> {
    use redb::ReadableDatabase;
    let tx = db.begin_read().map_err(storage)?;
    let table = tx.open_table(JOURNAL).map_err(storage)?;
    Ok(table
        .get(APPLIED)
        .map_err(storage)?
        .map_or(0, |v| v.value()))
}

/// Applies groups in one transaction, with the last one's sequence; synced to disk if
/// `durable` (else it is lost in a crash, and applied again from the journal on open).
pub fn commit(
    db: &Database,
    codec: &dyn RecordCodec,
    groups: &[Arc<Group>],
    durable: bool,
) -> Result<(), StoreError> {
    let mut tx = db.begin_write().map_err(storage)?;
    if !durable {
        tx.set_durability(redb::Durability::None)
            .map_err(|e| StoreError::Storage(e.to_string()))?;
    }
    {
        let mut events = tx.open_table(EVENTS).map_err(storage)?;
        let mut sessions = tx.open_table(SESSIONS).map_err(storage)?;
        let mut ids = tx.open_table(IDS).map_err(storage)?;
        let mut calls = tx.open_table(CALLS).map_err(storage)?;
        for entry in groups.iter().flat_map(|g| &g.entries) {
            let sid = entry.session.as_str();
            for (offset, id, value) in &entry.events {
                events
                    .insert((sid, *offset), value.as_slice())
                    .map_err(storage)?;
                ids.insert((sid, id.as_str()), *offset).map_err(storage)?;
            }
            if let Some(before) = entry.trim_before {
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
            for (call, bits) in &entry.calls {
                calls.insert((sid, call.as_str()), *bits).map_err(storage)?;
            }
            sessions
                .insert(sid, entry.meta.as_slice())
                .map_err(storage)?;
        }
        if let Some(last) = groups.last() {
            tx.open_table(JOURNAL)
                .map_err(storage)?
                .insert(APPLIED, last.seq)
                .map_err(storage)?;
        }
    }
    tx.commit().map_err(storage)
}
