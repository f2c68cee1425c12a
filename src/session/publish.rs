//! Publish: whole-batch validation, idempotency, lifecycle, offsets, retention.
//!
//! A session keeps no event ids in memory: idempotency and lifecycle questions go to the
//! store's id index and call-phase table, overlaid with what this session's appends in flight
//! (enqueued, not yet durable) add, so a retry racing its original is still recognised.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::MutexGuard;

use super::{Ack, Entry, Head, InFlight, SessionError, Sessions, State};
use crate::domain::{
    Cursor, EventId, Lifecycle, Pending, Phase, SessionId, SessionSummary, Subject, ToolEvent,
    Transition, transitions,
};
use crate::metrics::{FailureLabels, PublishResult, ResultLabels, StoreFailure};
use crate::store::{Known, Record, SessionAppend, SessionMeta, StoreError, new_epoch};

impl State {
    /// What the store knows of the events' ids and subjects, with this session's appends in flight on top.
    async fn known(
        &self,
        sessions: &Sessions,
        session: &SessionId,
        events: &[&ToolEvent],
    ) -> Result<Known, SessionError> {
        if self.meta.is_none() {
            return Ok(Known::default());
        }
        let ids: Vec<EventId> = events
            .iter()
            .map(|e| e.event_id.clone())
            .filter(|id| !self.inflight_ids.contains_key(id))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let subjects: Vec<Subject> = events
            .iter()
            .filter_map(|e| e.body.subject())
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let mut known = sessions.store.known(session, ids, subjects).await?;
        for e in events {
            if let Some(&InFlight { value: offset, .. }) = self.inflight_ids.get(&e.event_id) {
                known.events.insert(e.event_id.clone(), offset);
            }
            if let Some(subject) = e.body.subject()
                && let Some(&InFlight { value: phase, .. }) = self.inflight_phases.get(&subject)
            {
                known.phases.insert(subject, phase);
            }
        }
        Ok(known)
    }
}

/// One session's part of a batch: its entry and the positions of its events in the batch.
struct Part {
    entry: Arc<Entry>,
    events: Vec<usize>,
}

/// One session's part of a batch, validated.
struct Checked {
    known: Known,
    lifecycle: Lifecycle,
    pending: Pending,
}

/// One session's part of a batch, staged: the append for the store, and what becomes true
/// once it is durable.
struct Staged {
    append: SessionAppend,
    head: Head,
    /// Marks the ids and call phases this append put in flight.
    seq: u64,
    /// What it changed that someone is to be told of (only with a transition sink).
    transitions: Vec<Transition>,
}

/// A durable append's effects still to apply: its in-flight marks to settle, its head, and
/// (while the fleet is watched) its summary change.
struct Landed {
    entry: Arc<Entry>,
    head: Head,
    seq: u64,
    fleet: Option<SessionMeta>,
    /// The metadata after the append and its transitions, when it made any.
    told: Option<(SessionMeta, Vec<Transition>)>,
}

/// A publish that loses the race to another writer (a conflict) is checked again against the
/// log as it now is, at most this many times: each retry means another writer made progress.
const MAX_CONFLICT_RETRIES: u32 = 16;
/// The longest pause before such a retry (a random pause below it, doubling per attempt), so
/// writers that collided do not collide again in lockstep.
const MAX_CONFLICT_PAUSE: Duration = Duration::from_millis(50);

impl Sessions {
    /// Appends a validated batch. The whole batch is checked first (lifecycle rules, across
    /// every session it names); nothing is appended if any event is refused. Event ids the
    /// session already holds are acknowledged as duplicates with their original cursor.
    ///
    /// When another writer appended to one of the sessions first (a store with several
    /// writers), the sessions are read again and the batch checked again: events it stored
    /// meanwhile become duplicates, rules it now breaks refuse the batch.
    pub async fn publish(&self, mut events: Vec<ToolEvent>) -> Result<Vec<Ack>, SessionError> {
        self.stamp_permission_requests(&mut events);
        let mut attempt = 0;
        let result = loop {
            match self.publish_once(&events).await {
                Err(SessionError::Store(StoreError::Conflict(why)))
                    if attempt < MAX_CONFLICT_RETRIES =>
                {
                    attempt += 1;
                    tracing::debug!(%why, attempt, "another writer appended first; checking again");
                    tokio::time::sleep(pause(attempt)).await;
                }
                other => break other,
            }
        };
        self.count_published(&result, events.len());
        if let Ok(acks) = &result {
            self.schedule_expiries(&events, acks);
        }
        result
    }

    fn count_published(&self, result: &Result<Vec<Ack>, SessionError>, events: usize) {
        let count = |result, n: usize| {
            if n > 0 {
                self.metrics()
                    .published
                    .get_or_create(&ResultLabels { result })
                    .inc_by(n as u64);
            }
        };
        match result {
            Ok(acks) => {
                let duplicates = acks.iter().filter(|a| a.duplicate).count();
                count(PublishResult::appended, acks.len() - duplicates);
                count(PublishResult::duplicate, duplicates);
            }
            Err(_) => count(PublishResult::rejected, events),
        }
    }

    /// Counts a failed append by its kind.
    fn count_store_error(&self, e: &StoreError) {
        let kind = match e {
            StoreError::Conflict(_) => StoreFailure::conflict,
            StoreError::Storage(_) => StoreFailure::storage,
            StoreError::Closed => StoreFailure::closed,
            StoreError::Corrupt(_) => StoreFailure::corrupt,
            StoreError::Bug(_) => StoreFailure::bug,
        };
        self.metrics()
            .store_append_errors
            .get_or_create(&FailureLabels { kind })
            .inc();
    }

    /// One attempt: lock the batch's sessions, validate the whole batch, stage each session's
    /// append, commit them.
    async fn publish_once(&self, events: &[ToolEvent]) -> Result<Vec<Ack>, SessionError> {
        if *self.shutdown.borrow() {
            return Err(SessionError::ShuttingDown);
        }
        let parts = self.parts(events);
        let mut guards = self.lock(&parts).await?;
        let checked = self.validate(&parts, &guards, events).await?;
        let now = self.config.clock.now_ms();
        let mut acks: Vec<Option<Ack>> = vec![None; events.len()];
        let staged = parts
            .iter()
            .zip(guards.iter_mut())
            .zip(checked)
            .map(|((part, state), checked)| {
                self.stage(part, state, checked, events, now, &mut acks)
            })
            .collect();
        self.commit(&parts, guards, staged).await?;
        Ok(acks
            .into_iter()
            .map(|a| a.expect("every event is acknowledged"))
            .collect())
    }

    /// The batch grouped by session, in session id order (the order locks are taken in, so
    /// concurrent batches cannot deadlock).
    fn parts(&self, events: &[ToolEvent]) -> Vec<Part> {
        let mut by_session: BTreeMap<SessionId, Vec<usize>> = BTreeMap::new();
        for (i, e) in events.iter().enumerate() {
            by_session.entry(e.session_id.clone()).or_default().push(i);
        }
        by_session
            .into_iter()
            .map(|(id, events)| Part {
                entry: self.entry(&id),
                events,
            })
            .collect()
    }

    /// Locks every part's session, in order, each loaded from the store.
    async fn lock<'a>(
        &self,
        parts: &'a [Part],
    ) -> Result<Vec<MutexGuard<'a, State>>, SessionError> {
        let mut guards = Vec::with_capacity(parts.len());
        for part in parts {
            let mut state = part.entry.state.lock().await;
            self.ensure_loaded(&part.entry, &mut state).await?;
            guards.push(state);
        }
        Ok(guards)
    }

    /// Checks the whole batch before anything is staged: duplicates (stored, in flight, or
    /// earlier in this batch) skip the rules and are acknowledged with the original cursor;
    /// any other event the lifecycle refuses refuses the batch.
    async fn validate(
        &self,
        parts: &[Part],
        guards: &[MutexGuard<'_, State>],
        events: &[ToolEvent],
    ) -> Result<Vec<Checked>, SessionError> {
        let mut checked = Vec::with_capacity(parts.len());
        for (part, state) in parts.iter().zip(guards) {
            let batch: Vec<&ToolEvent> = part.events.iter().map(|&i| &events[i]).collect();
            let known = state.known(self, &part.entry.id, &batch).await?;
            let lifecycle = Lifecycle::with_phases(known.phases.clone());
            let mut pending = Pending::default();
            let mut seen = HashSet::new();
            let fresh = part
                .events
                .iter()
                .map(|&i| (i, &events[i]))
                .filter(|(_, e)| {
                    !known.events.contains_key(&e.event_id) && seen.insert(&e.event_id)
                });
            lifecycle.check_batch(&mut pending, fresh.map(|(i, e)| (i, &e.body)))?;
            checked.push(Checked {
                known,
                lifecycle,
                pending,
            });
        }
        Ok(checked)
    }

    /// Stages one session's part of a validated batch: an ack for each of its events (`acks`
    /// is indexed like the batch), offsets, ids and phases in flight, retention. `None` when
    /// every event was a duplicate: nothing to append.
    fn stage(
        &self,
        part: &Part,
        state: &mut State,
        checked: Checked,
        events: &[ToolEvent],
        now: u64,
        acks: &mut [Option<Ack>],
    ) -> Option<Staged> {
        let mut meta = state.meta.clone().unwrap_or_else(|| SessionMeta {
            epoch: new_epoch(),
            first_offset: 1,
            head_offset: 0,
            created_ms: now,
            updated_ms: now,
            calls: 0,
            title: String::new(),
            cwd: String::new(),
            summary: None,
        });
        let (records, batch_ids) = number(part, &checked.known, events, &mut meta, acks);
        if records.is_empty() {
            return None;
        }
        meta.calls += checked.lifecycle.new_calls(&checked.pending) as u64;
        for r in &records {
            meta.note(&r.event);
        }
        let before = meta.summary.as_ref().map(SessionSummary::state);
        super::summary::fold(&mut meta, &records, now);
        let transitions = match (&self.config.on_transition, &meta.summary) {
            (Some(_), Some(after)) => {
                transitions(before, after, records.iter().map(|r| &*r.event), now)
            }
            _ => Vec::new(),
        };
        let phases: Vec<(Subject, Phase)> = checked
            .pending
            .changes()
            .map(|(id, phase)| (id.clone(), phase))
            .collect();
        let seq = state.next_seq;
        state.next_seq += 1;
        for (id, &offset) in &batch_ids {
            state
                .inflight_ids
                .insert((*id).clone(), InFlight { value: offset, seq });
        }
        for (id, phase) in &phases {
            state
                .inflight_phases
                .insert(id.clone(), InFlight { value: *phase, seq });
        }
        let trim_before = self.retain(&mut meta);
        if let Some(keep_from) = trim_before {
            // Ids of trimmed events are forgotten with them.
            state.inflight_ids.retain(|_, f| f.value >= keep_from);
        }
        meta.updated_ms = now;
        let head = Head::from(&meta);
        let append = SessionAppend {
            session: part.entry.id.clone(),
            meta: meta.clone(),
            records,
            trim_before,
            phases,
            loaded_at: state.loaded_at,
        };
        state.meta = Some(meta);
        Some(Staged {
            append,
            head,
            seq,
            transitions,
        })
    }

    /// Applies the retention limit to a staged head: the first offset to keep, when events
    /// must go.
    fn retain(&self, meta: &mut SessionMeta) -> Option<u64> {
        let max = self.config.max_events_per_session;
        if max == 0 || meta.head_offset - meta.first_offset < max {
            return None;
        }
        let keep_from = meta.head_offset - max + 1;
        meta.first_offset = keep_from;
        Some(keep_from)
    }

    /// Enqueues the staged appends under the locks (so offsets reach the store in order), then
    /// waits for durability without them (so concurrent publishes share commits); settles
    /// what was in flight and moves the heads subscribers wait on.
    async fn commit(
        &self,
        parts: &[Part],
        guards: Vec<MutexGuard<'_, State>>,
        staged: Vec<Option<Staged>>,
    ) -> Result<(), SessionError> {
        let (appends, landed): (Vec<SessionAppend>, Vec<Landed>) = parts
            .iter()
            .zip(staged)
            .filter_map(|(part, staged)| {
                let Staged {
                    append,
                    head,
                    seq,
                    transitions,
                } = staged?;
                let landed = Landed {
                    entry: part.entry.clone(),
                    head,
                    seq,
                    fleet: self.fleet.watched().then(|| append.meta.clone()),
                    told: (!transitions.is_empty()).then(|| (append.meta.clone(), transitions)),
                };
                Some((append, landed))
            })
            .unzip();
        if appends.is_empty() {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let durable = self.store.append(appends).await;
        drop(guards);
        let result = match durable {
            Ok(wait) => wait.await,
            Err(e) => Err(e),
        };
        match &result {
            Ok(()) => self
                .metrics()
                .store_append_seconds
                .observe(started.elapsed().as_secs_f64()),
            Err(e) => self.count_store_error(e),
        }
        for landed in &landed {
            let mut state = landed.entry.state.lock().await;
            if result.is_err() {
                // Forget the optimistic state: the next use reloads what the store has.
                state.loaded = false;
            } else {
                // Durable now: the store answers for these ids and calls.
                state.inflight_ids.retain(|_, f| f.seq != landed.seq);
                state.inflight_phases.retain(|_, f| f.seq != landed.seq);
            }
        }
        result?;
        for landed in landed {
            self.move_head(&landed.entry, landed.head);
            if let Some(meta) = landed.fleet {
                let now = std::time::Instant::now();
                self.fleet.changed(&landed.entry.id, meta, now);
            }
            if let (Some(sink), Some((meta, transitions))) =
                (&self.config.on_transition, landed.told)
            {
                sink.transitioned(&landed.entry.id, &meta, transitions)
                    .await;
            }
        }
        Ok(())
    }

    /// Moves a session's head to a durable append's, unless the store's change feed has
    /// already moved it there.
    fn move_head(&self, entry: &Entry, head: Head) {
        let moved = entry.head.send_if_modified(|h| {
            if h.epoch != head.epoch {
                *h = head;
                return true;
            }
            // A store's change feed may have moved the head here first: the first kept offset
            // still comes from this append's retention.
            let newer = head.last > h.last || head.first > h.first;
            h.last = h.last.max(head.last);
            h.first = h.first.max(head.first);
            newer
        });
        if moved {
            self.head_moved(entry);
        }
    }
}

/// Numbers a part's events: each fresh one gets the next offset after `meta`'s head and a
/// record; a duplicate (known, or earlier in this batch) its original offset. Every event gets
/// its ack in `acks` (indexed like the batch). Returns the records and the fresh ids' offsets.
fn number<'e>(
    part: &Part,
    known: &Known,
    events: &'e [ToolEvent],
    meta: &mut SessionMeta,
    acks: &mut [Option<Ack>],
) -> (Vec<Record>, HashMap<&'e EventId, u64>) {
    let mut records = Vec::new();
    let mut batch_ids: HashMap<&EventId, u64> = HashMap::new();
    for &i in &part.events {
        let e = &events[i];
        let known = known
            .events
            .get(&e.event_id)
            .or_else(|| batch_ids.get(&e.event_id))
            .copied();
        let (offset, duplicate) = match known {
            Some(offset) => (offset, true),
            None => {
                meta.head_offset += 1;
                batch_ids.insert(&e.event_id, meta.head_offset);
                records.push(Record {
                    offset: meta.head_offset,
                    event: Arc::new(e.clone()),
                });
                (meta.head_offset, false)
            }
        };
        acks[i] = Some(Ack {
            event_id: e.event_id.clone(),
            cursor: Cursor {
                offset,
                epoch: meta.epoch.clone(),
            },
            duplicate,
        });
    }
    (records, batch_ids)
}

/// A random pause before conflict retry `attempt` (1, 2, …): below 1 ms, 2 ms, 4 ms, … up to
/// [`MAX_CONFLICT_PAUSE`].
fn pause(attempt: u32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let ceiling = Duration::from_millis(1 << attempt.min(16)).min(MAX_CONFLICT_PAUSE);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(attempt);
    let nanos = ceiling.as_nanos() as u64;
    Duration::from_nanos(h.finish() % nanos.max(1))
}
