//! Sessions: publish (validation, idempotency, lifecycle, offsets, retention), subscribe
//! (replay then live, resume, reset, heartbeats, fan-out through shared lanes) and
//! introspection, over a [`Store`].

mod lane;
mod subscribe;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Weak};

use parking_lot::Mutex as StdMutex;
use std::time::Duration;

use tokio::sync::{Mutex, watch};

pub use lane::Delivered;
pub use subscribe::{Start, SubscribeItem, Subscription};

use crate::domain::{EventId, Lifecycle, LifecycleError, Pending, SessionId, ToolEvent};
use crate::render::{Capabilities, Target};
use crate::store::{Record, SessionAppend, SessionMeta, Store, StoreError, new_epoch, now_ms};
use lane::Lane;

/// Limits and timings of the session layer.
#[derive(Debug, Clone)]
pub struct SessionsConfig {
    /// Events kept per session (older ones are trimmed); 0 keeps everything.
    pub max_events_per_session: u64,
    /// Sessions idle for longer are deleted; `None` keeps them.
    pub session_ttl: Option<Duration>,
    /// Heartbeat period of idle subscriptions.
    pub heartbeat_interval: Duration,
    /// A subscriber more events behind than this is ended with `RESOURCE_EXHAUSTED`.
    pub subscriber_lag_limit: u64,
    /// Rendered updates each shared lane keeps, at most…
    pub lane_cache: usize,
    /// …and at most about this many bytes of them.
    pub lane_cache_bytes: usize,
    /// The largest rendered update, about (a larger one is sent as a stand-in card): the
    /// message size limit less room for the envelope.
    pub max_update_bytes: usize,
    /// The output cap ceiling: subscribers' caps are normalized to it
    /// ([`Capabilities::normalized`]); 0 leaves them as they are (no limit).
    pub max_output_bytes: u64,
}

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            max_events_per_session: 100_000,
            session_ttl: None,
            heartbeat_interval: Duration::from_secs(15),
            subscriber_lag_limit: 50_000,
            lane_cache: 4096,
            lane_cache_bytes: 16 * 1024 * 1024,
            max_update_bytes: usize::MAX,
            max_output_bytes: 0,
        }
    }
}

/// A publish acknowledgement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    pub event_id: EventId,
    pub offset: u64,
    pub epoch: String,
    pub duplicate: bool,
}

/// A session's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    pub meta: SessionMeta,
    pub calls: u64,
}

/// Why a session operation failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SessionError {
    #[error("events[{index}]: {error}")]
    Lifecycle { index: usize, error: LifecycleError },
    #[error("session {0} not found")]
    NotFound(SessionId),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the server is shutting down")]
    ShuttingDown,
    #[error("subscriber is {lag} events behind (limit {limit}); resume from the last cursor")]
    Lagging { lag: u64, limit: u64 },
}

/// The durable head of a session, as subscribers see it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Head {
    /// Empty while the session has no log.
    pub epoch: String,
    pub first: u64,
    pub head: u64,
}

/// In-memory state of a loaded session, guarded by its lock.
#[derive(Default)]
struct State {
    loaded: bool,
    meta: Option<SessionMeta>,
    lifecycle: Lifecycle,
    ids: HashMap<EventId, u64>,
}

struct Entry {
    id: SessionId,
    state: Mutex<State>,
    head: watch::Sender<Head>,
    /// Shared lanes, held by their subscribers (see `Sessions::shared_lane`).
    lanes: StdMutex<HashMap<(Target, Capabilities), Weak<Lane>>>,
}

impl Entry {
    fn new(id: SessionId) -> Self {
        Entry {
            id,
            state: Mutex::new(State::default()),
            head: watch::Sender::new(Head::default()),
            lanes: StdMutex::default(),
        }
    }
}

/// The session layer.
pub struct Sessions {
    store: Arc<dyn Store>,
    config: SessionsConfig,
    entries: StdMutex<HashMap<SessionId, Arc<Entry>>>,
    shutdown: watch::Sender<bool>,
}

impl Sessions {
    pub fn new(store: Arc<dyn Store>, config: SessionsConfig) -> Arc<Self> {
        Arc::new(Sessions {
            store,
            config,
            entries: StdMutex::default(),
            shutdown: watch::Sender::new(false),
        })
    }

    /// The store's name, for logs.
    pub fn store_name(&self) -> &'static str {
        self.store.name()
    }

    fn entry(&self, id: &SessionId) -> Arc<Entry> {
        let mut entries = self.entries.lock();
        entries
            .entry(id.clone())
            .or_insert_with(|| Arc::new(Entry::new(id.clone())))
            .clone()
    }

    /// Loads a session's state from the store on first use.
    async fn ensure_loaded(&self, entry: &Entry, state: &mut State) -> Result<(), StoreError> {
        if state.loaded {
            return Ok(());
        }
        let mut fresh = State {
            loaded: true,
            ..State::default()
        };
        if let Some(loaded) = self.store.load(&entry.id).await? {
            for r in &loaded.records {
                // The log only holds admitted events; this rebuilds the rules' state.
                let _ = fresh.lifecycle.admit(&r.event.body);
                fresh.ids.insert(r.event.event_id.clone(), r.offset);
            }
            entry.head.send_replace(Head {
                epoch: loaded.meta.epoch.clone(),
                first: loaded.meta.first_offset,
                head: loaded.meta.head_offset,
            });
            fresh.meta = Some(loaded.meta);
        }
        *state = fresh;
        Ok(())
    }

    /// Appends a validated batch. The whole batch is checked first (lifecycle rules, across
    /// every session it names); nothing is appended if any event is refused. Event ids the
    /// session already holds are acknowledged as duplicates with their original cursor.
    pub async fn publish(&self, events: Vec<ToolEvent>) -> Result<Vec<Ack>, SessionError> {
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

        // Pass 1, validate everything: duplicates (stored, or earlier in this batch) skip the
        // rules and are acknowledged with the original cursor.
        let mut pending = Vec::with_capacity(entries.len());
        for ((_, idx), state) in entries.iter().zip(guards.iter()) {
            let mut p = Pending::default();
            let mut seen = HashSet::new();
            for &i in idx {
                let e = &events[i];
                if state.ids.contains_key(&e.event_id) || !seen.insert(&e.event_id) {
                    continue;
                }
                state
                    .lifecycle
                    .check(&mut p, &e.body)
                    .map_err(|error| SessionError::Lifecycle { index: i, error })?;
            }
            pending.push(p);
        }

        // Pass 2, record: offsets, ids, lifecycle, retention.
        let now = now_ms();
        let mut acks: Vec<Option<Ack>> = vec![None; events.len()];
        let mut appends = Vec::new();
        let mut heads = Vec::new();
        for (((entry, idx), state), p) in entries.iter().zip(guards.iter_mut()).zip(pending) {
            let mut meta = state.meta.clone().unwrap_or_else(|| SessionMeta {
                epoch: new_epoch(),
                first_offset: 1,
                head_offset: 0,
                created_ms: now,
                updated_ms: now,
            });
            let mut records = Vec::new();
            let mut batch_ids: HashMap<&EventId, u64> = HashMap::new();
            for &i in idx {
                let e = &events[i];
                let known = state
                    .ids
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
                    offset,
                    epoch: meta.epoch.clone(),
                    duplicate,
                });
            }
            if records.is_empty() {
                continue;
            }
            state.lifecycle.apply(p);
            state
                .ids
                .extend(batch_ids.into_iter().map(|(id, o)| (id.clone(), o)));
            let mut trim_before = None;
            let max = self.config.max_events_per_session;
            if max > 0 && meta.head_offset - meta.first_offset + 1 > max {
                let keep_from = meta.head_offset - max + 1;
                trim_before = Some(keep_from);
                meta.first_offset = keep_from;
                // Ids of trimmed events are forgotten with them.
                state.ids.retain(|_, o| *o >= keep_from);
            }
            meta.updated_ms = now;
            appends.push(SessionAppend {
                session: entry.id.clone(),
                meta: meta.clone(),
                records,
                trim_before,
            });
            heads.push((
                entry.clone(),
                Head {
                    epoch: meta.epoch.clone(),
                    first: meta.first_offset,
                    head: meta.head_offset,
                },
            ));
            state.meta = Some(meta);
        }

        // Enqueue under the locks (so offsets reach the store in order), then wait for
        // durability without them (so concurrent publishes share commits).
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
            if let Err(e) = result {
                // Forget the optimistic state: the next use reloads what the store has.
                for (entry, _) in &entries {
                    entry.state.lock().await.loaded = false;
                }
                return Err(e.into());
            }
            for (entry, head) in heads {
                entry.head.send_if_modified(|h| {
                    let newer = h.epoch != head.epoch || head.head > h.head;
                    if newer {
                        *h = head;
                    }
                    newer
                });
            }
        }
        Ok(acks
            .into_iter()
            .map(|a| a.expect("every event is acknowledged"))
            .collect())
    }

    /// A session's description; `NotFound` when it has no log.
    pub async fn info(&self, id: &SessionId) -> Result<SessionInfo, SessionError> {
        let entry = self.entry(id);
        let mut state = entry.state.lock().await;
        self.ensure_loaded(&entry, &mut state).await?;
        let meta = state
            .meta
            .clone()
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        Ok(SessionInfo {
            meta,
            calls: state.lifecycle.calls() as u64,
        })
    }

    /// Stops subscriptions (they end cleanly) and refuses new publishes; then closes the store
    /// once in-flight work is done.
    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
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
        let cutoff = now_ms().saturating_sub(ttl.as_millis() as u64);
        let mut n = 0;
        for (id, meta) in self.store.sessions().await? {
            if meta.updated_ms >= cutoff {
                continue;
            }
            let entry = self.entry(&id);
            let mut state = entry.state.lock().await;
            // Re-check under the lock: a publish may have just refreshed it.
            if state.meta.as_ref().is_some_and(|m| m.updated_ms >= cutoff) {
                continue;
            }
            self.store.delete(&id).await?;
            *state = State {
                loaded: true,
                ..State::default()
            };
            entry.head.send_replace(Head::default());
            entry.lanes.lock().clear();
            n += 1;
        }
        Ok(n)
    }
}

impl From<SessionError> for crate::error::Error {
    fn from(e: SessionError) -> Self {
        use crate::error::Error;
        match e {
            SessionError::Lifecycle { .. } => Error::Lifecycle(e.to_string()),
            SessionError::NotFound(_) => Error::NotFound(e.to_string()),
            SessionError::Lagging { .. } => Error::Lagging(e.to_string()),
            SessionError::ShuttingDown
            | SessionError::Store(StoreError::Storage(_) | StoreError::Closed) => {
                Error::Unavailable(e.to_string())
            }
            SessionError::Store(StoreError::Corrupt(_)) => Error::DataLoss(e.to_string()),
            SessionError::Store(StoreError::Bug(_)) => Error::Internal(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    use super::*;
    use crate::domain::{CallId, CallStarted, EventBody};
    use crate::store::MemoryStore;

    fn started(n: u32) -> ToolEvent {
        ToolEvent {
            session_id: SessionId::new("s").unwrap(),
            event_id: EventId::new(format!("e{n}")).unwrap(),
            body: EventBody::CallStarted(CallStarted {
                call_id: CallId::new(format!("c{n}")).unwrap(),
                tool_name: "job_list".into(),
                arguments_json: "{}".into(),
                view: None,
            }),
        }
    }

    fn live_lanes(sessions: &Sessions) -> usize {
        let entry = sessions.entry(&SessionId::new("s").unwrap());
        let lanes = entry.lanes.lock();
        lanes.values().filter(|l| l.strong_count() > 0).count()
    }

    /// A store whose reads panic, as a damaged database might.
    struct PanickingReads(MemoryStore);

    #[tonic::async_trait]
    impl Store for PanickingReads {
        fn name(&self) -> &'static str {
            "panicking"
        }
        async fn append(
            &self,
            batch: Vec<SessionAppend>,
        ) -> Result<crate::store::Durable, StoreError> {
            self.0.append(batch).await
        }
        async fn load(
            &self,
            session: &SessionId,
        ) -> Result<Option<crate::store::LoadedSession>, StoreError> {
            self.0.load(session).await
        }
        async fn read(&self, _: &SessionId, _: u64, _: usize) -> Result<Vec<Record>, StoreError> {
            panic!("page 7 is damaged")
        }
        async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
            self.0.sessions().await
        }
        async fn delete(&self, session: &SessionId) -> Result<(), StoreError> {
            self.0.delete(session).await
        }
        async fn close(&self) {}
    }

    /// A panicking subscription ends its stream with INTERNAL, not as a clean end, and the
    /// session goes on serving others.
    #[tokio::test]
    async fn a_panicking_subscription_reports_an_error() {
        let store = Arc::new(PanickingReads(MemoryStore::new()));
        let sessions = Sessions::new(store, SessionsConfig::default());
        sessions.publish(vec![started(1)]).await.unwrap();
        let id = SessionId::new("s").unwrap();
        let mut sub = sessions.subscribe(
            &id,
            Target::Acp,
            Capabilities::default(),
            Start::FromBeginning,
        );
        let end = sub.next().await.expect("an item, not a clean end");
        let error = crate::error::Error::from(end.expect_err("an error"));
        assert!(
            matches!(error, crate::error::Error::Internal(_)),
            "{error:?}"
        );
        assert!(sub.next().await.is_none());
        sessions.publish(vec![started(2)]).await.unwrap();
        assert_eq!(sessions.info(&id).await.unwrap().meta.head_offset, 2);
    }

    /// A lane (its fold and cache) lives only while a subscriber holds it.
    #[tokio::test]
    async fn lanes_go_away_with_their_last_subscriber() {
        let sessions = Sessions::new(Arc::new(MemoryStore::new()), SessionsConfig::default());
        sessions.publish(vec![started(1)]).await.unwrap();
        let mut a = sessions.subscribe(
            &SessionId::new("s").unwrap(),
            Target::Acp,
            Capabilities::default(),
            Start::FromBeginning,
        );
        let mut b = sessions.subscribe(
            &SessionId::new("s").unwrap(),
            Target::Acp,
            Capabilities::default(),
            Start::FromBeginning,
        );
        assert!(matches!(
            a.next().await,
            Some(Ok(SubscribeItem::Update { .. }))
        ));
        assert!(matches!(
            b.next().await,
            Some(Ok(SubscribeItem::Update { .. }))
        ));
        assert_eq!(live_lanes(&sessions), 1, "both subscribers share one lane");
        drop(a);
        drop(b);
        // The subscription tasks notice the closed streams and end.
        for _ in 0..200 {
            if live_lanes(&sessions) == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("the lane outlived its subscribers");
    }
}
