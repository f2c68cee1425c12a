//! The in-memory store: the same semantics as the embedded one, lost on exit.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use parking_lot::Mutex;

use super::outbox::{LocalOutbox, Outbox};
use super::{Durable, Known, Record, SessionAppend, SessionMeta, Store, StoreError};
use crate::domain::{EventId, Phase, SessionId, Subject};

#[derive(Default)]
struct Log {
    meta: Option<SessionMeta>,
    events: BTreeMap<u64, Record>,
    ids: HashMap<EventId, u64>,
    phases: HashMap<Subject, Phase>,
}

/// Session logs in memory.
#[derive(Default)]
pub struct MemoryStore {
    /// In id order, for the session list.
    logs: Mutex<BTreeMap<SessionId, Log>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait::async_trait]
impl Store for MemoryStore {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn append(&self, batch: Vec<SessionAppend>) -> Result<Durable, StoreError> {
        let mut logs = self.logs.lock();
        for a in batch {
            let log = logs.entry(a.session).or_default();
            for r in a.records {
                log.ids.insert(r.event.event_id.clone(), r.offset);
                log.events.insert(r.offset, r);
            }
            if let Some(before) = a.trim_before {
                let kept = log.events.split_off(&before);
                for r in log.events.values() {
                    log.ids.remove(&r.event.event_id);
                }
                log.events = kept;
            }
            log.phases.extend(a.phases);
            log.meta = Some(a.meta);
        }
        Ok(Box::pin(std::future::ready(Ok(()))))
    }

    async fn meta(&self, session: &SessionId) -> Result<Option<SessionMeta>, StoreError> {
        Ok(self
            .logs
            .lock()
            .get(session)
            .and_then(|log| log.meta.clone()))
    }

    async fn known(
        &self,
        session: &SessionId,
        events: Vec<EventId>,
        subjects: Vec<Subject>,
    ) -> Result<Known, StoreError> {
        let logs = self.logs.lock();
        let Some(log) = logs.get(session) else {
            return Ok(Known::default());
        };
        Ok(Known {
            events: events
                .into_iter()
                .filter_map(|id| log.ids.get(&id).map(|&o| (id, o)))
                .collect(),
            phases: subjects
                .into_iter()
                .filter_map(|id| log.phases.get(&id).map(|&p| (id, p)))
                .collect(),
        })
    }

    async fn read(
        &self,
        session: &SessionId,
        after: u64,
        max: usize,
    ) -> Result<Vec<Record>, StoreError> {
        let logs = self.logs.lock();
        Ok(logs
            .get(session)
            .map(|log| {
                log.events
                    .range(after.saturating_add(1)..)
                    .take(max)
                    .map(|(_, r)| r.clone())
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        let logs = self.logs.lock();
        Ok(logs
            .iter()
            .filter_map(|(id, log)| log.meta.clone().map(|m| (id.clone(), m)))
            .collect())
    }

    async fn list(
        &self,
        after: Option<SessionId>,
        limit: usize,
    ) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        use std::ops::Bound;
        let logs = self.logs.lock();
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        Ok(logs
            .range((from, Bound::Unbounded))
            .filter_map(|(id, log)| log.meta.clone().map(|m| (id.clone(), m)))
            .take(limit)
            .collect())
    }

    async fn delete(&self, sessions: Vec<SessionId>) -> Result<(), StoreError> {
        let mut logs = self.logs.lock();
        for s in &sessions {
            logs.remove(s);
        }
        Ok(())
    }

    async fn close(&self) {}

    async fn outbox(
        &self,
        max: usize,
        _lease: std::time::Duration,
    ) -> Result<Arc<dyn Outbox>, StoreError> {
        Ok(Arc::new(LocalOutbox::in_memory(max)?))
    }
}
