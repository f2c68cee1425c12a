//! The in-memory store: the same semantics as the embedded one, lost on exit.

use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};

use super::{Durable, LoadedSession, Record, SessionAppend, SessionMeta, Store, StoreError};
use crate::domain::SessionId;

#[derive(Default)]
struct Log {
    meta: Option<SessionMeta>,
    events: BTreeMap<u64, Record>,
}

/// Session logs in memory.
#[derive(Default)]
pub struct MemoryStore {
    logs: Mutex<HashMap<SessionId, Log>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }
}

#[tonic::async_trait]
impl Store for MemoryStore {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn append(&self, batch: Vec<SessionAppend>) -> Result<Durable, StoreError> {
        let mut logs = self.logs.lock();
        for a in batch {
            let log = logs.entry(a.session).or_default();
            for r in a.records {
                log.events.insert(r.offset, r);
            }
            if let Some(before) = a.trim_before {
                log.events = log.events.split_off(&before);
            }
            log.meta = Some(a.meta);
        }
        Ok(Box::pin(std::future::ready(Ok(()))))
    }

    async fn load(&self, session: &SessionId) -> Result<Option<LoadedSession>, StoreError> {
        let logs = self.logs.lock();
        Ok(logs.get(session).and_then(|log| {
            log.meta.clone().map(|meta| LoadedSession {
                meta,
                records: log.events.values().cloned().collect(),
            })
        }))
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

    async fn delete(&self, session: &SessionId) -> Result<(), StoreError> {
        self.logs.lock().remove(session);
        Ok(())
    }

    async fn close(&self) {}
}
