//! The queue of one process: the memory store's (gone with the process), or the embedded
//! store's, in its own redb file beside the logs (`webhooks.redb`: the logs' journal and
//! applier have their own pace, and a delivery is rare next to an event). Every delivery is also
//! held in memory, indexed by when it is due: the queue is bounded, and a restart reads it back.
//! One process sends: a delivery it holds is held until it settles it (or drops the ticket),
//! with no lease to run out.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::Duration;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use super::{Claimed, Delivery, Depth, Enqueued, Outbox, Ticket, new_link_key};
use crate::store::{StoreError, now_ms};

const DELIVERIES: TableDefinition<&str, &[u8]> = TableDefinition::new("deliveries");
const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("keys");
const LINK_KEY: &str = "link";

/// A queued delivery as kept: the delivery and the attempts made.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Row {
    delivery: Delivery,
    attempts: u32,
}

#[derive(Default)]
struct Queue {
    rows: HashMap<String, Row>,
    /// Deliveries not taken, by when they are due.
    due: BTreeSet<(u64, String)>,
}

/// One process's queue.
pub struct LocalOutbox {
    inner: Arc<Inner>,
}

struct Inner {
    db: Option<Arc<Database>>,
    queue: parking_lot::Mutex<Queue>,
    changed: tokio::sync::Notify,
    max: usize,
    link_key: Vec<u8>,
}

fn storage(path: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(format!("{path}: {e}"))
}

impl LocalOutbox {
    /// A queue in memory, of at most `max` deliveries.
    pub fn in_memory(max: usize) -> Result<Self, StoreError> {
        Ok(Self::with(None, Queue::default(), max, new_link_key()?))
    }

    /// The queue in the redb file at `path` (created when missing), of at most `max`
    /// deliveries: what it holds is read back.
    pub fn open(path: &Path, max: usize) -> Result<Self, StoreError> {
        let name = path.display().to_string();
        let db = Database::create(path).map_err(|e| storage(&name, e))?;
        let write = db.begin_write().map_err(|e| storage(&name, e))?;
        let link_key = {
            write
                .open_table(DELIVERIES)
                .map_err(|e| storage(&name, e))?;
            let mut keys = write.open_table(KEYS).map_err(|e| storage(&name, e))?;
            let stored = keys
                .get(LINK_KEY)
                .map_err(|e| storage(&name, e))?
                .map(|v| v.value().to_vec());
            match stored {
                Some(key) => key,
                None => {
                    let key = new_link_key()?;
                    keys.insert(LINK_KEY, key.as_slice())
                        .map_err(|e| storage(&name, e))?;
                    key
                }
            }
        };
        write.commit().map_err(|e| storage(&name, e))?;
        let mut queue = Queue::default();
        let read = db.begin_read().map_err(|e| storage(&name, e))?;
        let table = read.open_table(DELIVERIES).map_err(|e| storage(&name, e))?;
        for item in table.iter().map_err(|e| storage(&name, e))? {
            let (id, bytes) = item.map_err(|e| storage(&name, e))?;
            match serde_json::from_slice::<Row>(bytes.value()) {
                Ok(row) => {
                    queue
                        .due
                        .insert((row.delivery.due_ms, id.value().to_owned()));
                    queue.rows.insert(id.value().to_owned(), row);
                }
                Err(e) => {
                    tracing::warn!(id = id.value(), %e, "a queued delivery does not read; skipped")
                }
            }
        }
        Ok(Self::with(Some(Arc::new(db)), queue, max, link_key))
    }

    fn with(db: Option<Arc<Database>>, queue: Queue, max: usize, link_key: Vec<u8>) -> Self {
        LocalOutbox {
            inner: Arc::new(Inner {
                db,
                queue: parking_lot::Mutex::new(queue),
                changed: tokio::sync::Notify::new(),
                max,
                link_key,
            }),
        }
    }
}

impl Inner {
    /// Writes a row (or removes it: `None`) durably, off the async threads.
    async fn persist(&self, id: &str, row: Option<&Row>) -> Result<(), StoreError> {
        let Some(db) = self.db.clone() else {
            return Ok(());
        };
        let (id, bytes) = (id.to_owned(), row.map(serde_json::to_vec).transpose());
        let bytes = bytes.map_err(|e| StoreError::Storage(e.to_string()))?;
        tokio::task::spawn_blocking(move || {
            let name = "webhooks.redb";
            let write = db.begin_write().map_err(|e| storage(name, e))?;
            {
                let mut table = write.open_table(DELIVERIES).map_err(|e| storage(name, e))?;
                match &bytes {
                    Some(b) => table.insert(id.as_str(), b.as_slice()).map(drop),
                    None => table.remove(id.as_str()).map(drop),
                }
                .map_err(|e| storage(name, e))?;
            }
            write.commit().map_err(|e| storage(name, e))
        })
        .await
        .map_err(|e| StoreError::from_join(e, "writing a delivery"))?
    }

    /// The first delivery due by `now`, taken; else when the next is due.
    fn take(&self, now: u64) -> Result<(Row, u64), Option<u64>> {
        let mut queue = self.queue.lock();
        let Some((due, id)) = queue.due.first().cloned() else {
            return Err(None);
        };
        if due > now {
            return Err(Some(due));
        }
        queue.due.remove(&(due, id.clone()));
        match queue.rows.get(&id) {
            Some(row) => Ok((row.clone(), due)),
            None => Err(Some(now)),
        }
    }
}

#[async_trait::async_trait]
impl Outbox for LocalOutbox {
    async fn enqueue(&self, delivery: Delivery) -> Result<Enqueued, StoreError> {
        let row = Row {
            delivery,
            attempts: 0,
        };
        let id = row.delivery.id.clone();
        {
            let queue = self.inner.queue.lock();
            if queue.rows.contains_key(&id) {
                return Ok(Enqueued::Duplicate);
            }
            if queue.rows.len() >= self.inner.max {
                return Ok(Enqueued::Full);
            }
        }
        self.inner.persist(&id, Some(&row)).await?;
        let mut queue = self.inner.queue.lock();
        queue.due.insert((row.delivery.due_ms, id.clone()));
        queue.rows.insert(id, row);
        drop(queue);
        self.inner.changed.notify_waiters();
        Ok(Enqueued::Added)
    }

    async fn claim(&self, wait: Duration) -> Result<Option<Claimed>, StoreError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // Registered before looking, so an enqueue in between is not missed.
            let changed = self.inner.changed.notified();
            let next = match self.inner.take(now_ms()) {
                Ok((row, _)) => {
                    let ticket = LocalTicket {
                        inner: Arc::downgrade(&self.inner),
                        row: Some(row.clone()),
                    };
                    return Ok(Some(Claimed {
                        attempts: row.attempts,
                        delivery: row.delivery,
                        ticket: Box::new(ticket),
                    }));
                }
                Err(next) => next,
            };
            let until = next.map_or(deadline, |due| {
                let wait = Duration::from_millis(due.saturating_sub(now_ms()));
                deadline.min(tokio::time::Instant::now() + wait)
            });
            if tokio::time::timeout_at(until, changed).await.is_err()
                && tokio::time::Instant::now() >= deadline
            {
                return Ok(None);
            }
        }
    }

    async fn depth(&self) -> Result<Depth, StoreError> {
        let queue = self.inner.queue.lock();
        Ok(Depth {
            queued: queue.rows.len() as u64,
            oldest_ms: queue.rows.values().map(|r| r.delivery.created_ms).min(),
        })
    }

    async fn link_key(&self) -> Result<Vec<u8>, StoreError> {
        Ok(self.inner.link_key.clone())
    }
}

/// A delivery this process took; put back when dropped unsettled.
struct LocalTicket {
    inner: Weak<Inner>,
    row: Option<Row>,
}

impl LocalTicket {
    fn put_back(inner: &Inner, row: Row) {
        let mut queue = inner.queue.lock();
        if queue.rows.contains_key(&row.delivery.id) {
            queue
                .due
                .insert((row.delivery.due_ms, row.delivery.id.clone()));
            queue.rows.insert(row.delivery.id.clone(), row);
        }
        drop(queue);
        inner.changed.notify_waiters();
    }
}

#[async_trait::async_trait]
impl Ticket for LocalTicket {
    async fn done(mut self: Box<Self>) -> Result<(), StoreError> {
        let (Some(inner), Some(row)) = (self.inner.upgrade(), self.row.take()) else {
            return Ok(());
        };
        let id = row.delivery.id.clone();
        if let Err(e) = inner.persist(&id, None).await {
            Self::put_back(&inner, row);
            return Err(e);
        }
        inner.queue.lock().rows.remove(&id);
        Ok(())
    }

    async fn again(
        mut self: Box<Self>,
        delay: Duration,
        attempted: bool,
    ) -> Result<(), StoreError> {
        let (Some(inner), Some(mut row)) = (self.inner.upgrade(), self.row.take()) else {
            return Ok(());
        };
        row.attempts += u32::from(attempted);
        row.delivery.due_ms = now_ms() + delay.as_millis() as u64;
        let written = inner.persist(&row.delivery.id, Some(&row)).await;
        Self::put_back(&inner, row);
        written
    }
}

impl Drop for LocalTicket {
    fn drop(&mut self) {
        if let (Some(inner), Some(row)) = (self.inner.upgrade(), self.row.take()) {
            Self::put_back(&inner, row);
        }
    }
}
