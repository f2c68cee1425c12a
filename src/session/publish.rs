//! Publish: whole-batch validation, idempotency, lifecycle, offsets, retention.
//!
//! A session keeps no event ids in memory: idempotency and lifecycle questions go to the
//! store's id index and call-phase table, overlaid with what this session's appends in flight
//! (enqueued, not yet durable) add, so a retry racing its original is still recognised.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use super::{Ack, Entry, Head, SessionError, Sessions, State};
use crate::domain::{CallId, CallPhase, Cursor, EventId, Lifecycle, Pending, SessionId, ToolEvent};
use crate::metrics::{FailureLabels, PublishResult, ResultLabels, StoreFailure};
use crate::store::{Known, Record, SessionAppend, SessionMeta, StoreError, new_epoch};

impl State {
    /// What the store knows of `ids` and `calls`, with this session's appends in flight on top.
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
        let calls: Vec<CallId> = events
            .iter()
            .filter_map(|e| e.body.call_id().cloned())
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let mut known = sessions.store.known(session, ids, calls).await?;
        for e in events {
            if let Some(&(offset, _)) = self.inflight_ids.get(&e.event_id) {
                known.events.insert(e.event_id.clone(), offset);
            }
            if let Some(call) = e.body.call_id()
                && let Some(&(phase, _)) = self.inflight_calls.get(call)
            {
                known.calls.insert(call.clone(), phase);
            }
        }
        Ok(known)
    }
}

/// One session's part of a batch, validated.
struct Checked {
    known: Known,
    lifecycle: Lifecycle,
    pending: Pending,
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
    pub async fn publish(&self, events: Vec<ToolEvent>) -> Result<Vec<Ack>, SessionError> {
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

    async fn publish_once(&self, events: &[ToolEvent]) -> Result<Vec<Ack>, SessionError> {
        if *self.shutdown.borrow() {
            return Err(SessionError::ShuttingDown);
        }
        // Group by session; lock sessions in id order so concurrent batches cannot deadlock.
        let mut by_session: BTreeMap<SessionId, Vec<usize>> = BTreeMap::new();
        for (i, e) in events.iter().enumerate() {
            by_session.entry(e.session_id.clone()).or_default().push(i);
        }
        let entries: Vec<(Arc<Entry>, Vec<usize>)> = by_session
            .into_iter()
            .map(|(id, idx)| (self.entry(&id), idx))
            .collect();
        let mut guards = Vec::with_capacity(entries.len());
        for (entry, _) in &entries {
            let mut g = entry.state.lock().await;
            self.ensure_loaded(entry, &mut g).await?;
            guards.push(g);
        }

        // Pass 1, validate everything: duplicates (stored, in flight, or earlier in this
        // batch) skip the rules and are acknowledged with the original cursor.
        let mut checked = Vec::with_capacity(entries.len());
        for ((entry, idx), state) in entries.iter().zip(guards.iter()) {
            let batch: Vec<&ToolEvent> = idx.iter().map(|&i| &events[i]).collect();
            let known = state.known(self, &entry.id, &batch).await?;
            let lifecycle = Lifecycle::with_phases(known.calls.clone());
            let mut pending = Pending::default();
            let mut seen = HashSet::new();
            let fresh = idx.iter().map(|&i| (i, &events[i])).filter(|(_, e)| {
                !known.events.contains_key(&e.event_id) && seen.insert(&e.event_id)
            });
            lifecycle.check_batch(&mut pending, fresh.map(|(i, e)| (i, &e.body)))?;
            checked.push(Checked {
                known,
                lifecycle,
                pending,
            });
        }

        // Pass 2, record: offsets, ids and phases in flight, retention.
        let now = self.config.clock.now_ms();
        let mut acks: Vec<Option<Ack>> = vec![None; events.len()];
        let mut appends = Vec::new();
        let mut heads = Vec::new();
        let mut seqs = Vec::with_capacity(entries.len());
        for (((entry, idx), state), c) in entries.iter().zip(guards.iter_mut()).zip(checked) {
            let mut meta = state.meta.clone().unwrap_or_else(|| SessionMeta {
                epoch: new_epoch(),
                first_offset: 1,
                head_offset: 0,
                created_ms: now,
                updated_ms: now,
                calls: 0,
            });
            let mut records = Vec::new();
            let mut batch_ids: HashMap<&EventId, u64> = HashMap::new();
            for &i in idx {
                let e = &events[i];
                let known = c
                    .known
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
            if records.is_empty() {
                seqs.push(None);
                continue;
            }
            meta.calls += c.lifecycle.new_calls(&c.pending) as u64;
            let calls: Vec<(CallId, CallPhase)> = c
                .pending
                .changes()
                .map(|(id, phase)| (id.clone(), phase))
                .collect();
            let seq = state.next_seq;
            state.next_seq += 1;
            seqs.push(Some(seq));
            for (id, &offset) in &batch_ids {
                state.inflight_ids.insert((*id).clone(), (offset, seq));
            }
            for (id, phase) in &calls {
                state.inflight_calls.insert(id.clone(), (*phase, seq));
            }
            let mut trim_before = None;
            let max = self.config.max_events_per_session;
            if max > 0 && meta.head_offset - meta.first_offset + 1 > max {
                let keep_from = meta.head_offset - max + 1;
                trim_before = Some(keep_from);
                meta.first_offset = keep_from;
                // Ids of trimmed events are forgotten with them.
                state.inflight_ids.retain(|_, (o, _)| *o >= keep_from);
            }
            meta.updated_ms = now;
            appends.push(SessionAppend {
                session: entry.id.clone(),
                meta: meta.clone(),
                records,
                trim_before,
                calls,
                loaded_at: state.loaded_at,
            });
            heads.push((entry.clone(), Head::from(&meta)));
            state.meta = Some(meta);
        }

        // Enqueue under the locks (so offsets reach the store in order), then wait for
        // durability without them (so concurrent publishes share commits).
        let started = std::time::Instant::now();
        let durable = if appends.is_empty() {
            None
        } else {
            Some(self.store.append(appends).await)
        };
        drop(guards);
        if let Some(durable) = durable {
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
            for ((entry, _), seq) in entries.iter().zip(&seqs) {
                let Some(seq) = *seq else { continue };
                let mut state = entry.state.lock().await;
                if result.is_err() {
                    // Forget the optimistic state: the next use reloads what the store has.
                    state.loaded = false;
                } else {
                    // Durable now: the store answers for these ids and calls.
                    state.inflight_ids.retain(|_, (_, s)| *s != seq);
                    state.inflight_calls.retain(|_, (_, s)| *s != seq);
                }
            }
            result?;
            for (entry, head) in heads {
                let moved = entry.head.send_if_modified(|h| {
                    if h.epoch != head.epoch {
                        *h = head;
                        return true;
                    }
                    // A store's change feed may have moved the head here first: the first kept
                    // offset still comes from this append's retention.
                    let newer = head.head > h.head || head.first > h.first;
                    h.head = h.head.max(head.head);
                    h.first = h.first.max(head.first);
                    newer
                });
                if moved {
                    self.head_moved(&entry);
                }
            }
        }
        Ok(acks
            .into_iter()
            .map(|a| a.expect("every event is acknowledged"))
            .collect())
    }
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
