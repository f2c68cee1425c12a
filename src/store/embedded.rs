//! The embedded store: crash-safe session logs in a redb database in the data directory.
//!
//! Appends go through one writer thread that drains every queued request into a single write
//! transaction, so concurrent publishes share one durable commit (group commit). Reads run on
//! the blocking pool against redb's MVCC snapshots and never wait for the writer.

use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::{mpsc, oneshot};

use super::{Durable, LoadedSession, Record, SessionAppend, SessionMeta, Store, StoreError};
use crate::domain::{SessionId, ToolEvent};

/// (session id, offset) → the event's JSON.
const EVENTS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events_v1");
/// session id → its metadata's JSON.
const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions_v1");

/// The most requests folded into one commit.
const MAX_GROUP: usize = 1024;

enum Work {
    Append(Vec<SessionAppend>),
    Delete(SessionId),
}

struct Request {
    work: Work,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// Session logs in a redb file.
pub struct EmbeddedStore {
    db: Arc<Database>,
    writer: Mutex<Option<mpsc::Sender<Request>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

fn storage(e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(e.to_string())
}

impl EmbeddedStore {
    /// Opens (or creates) `toolview.redb` in `dir`, with a page cache of `cache_bytes`.
    pub fn open(dir: &Path, cache_bytes: usize) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| storage(format!("{}: {e}", dir.display())))?;
        // A bounded page cache keeps the server's memory predictable.
        let path = dir.join("toolview.redb");
        let db = Database::builder()
            .set_cache_size(cache_bytes)
            .create(&path)
            .map_err(|e| match e {
                redb::DatabaseError::DatabaseAlreadyOpen => storage(format!(
                    "{}: in use by another process (is another toolview serving this data \
                     directory?)",
                    path.display()
                )),
                e => storage(format!("{}: {e}", path.display())),
            })?;
        let db = Arc::new(db);
        // Create the tables up front so readers never see them missing.
        let tx = db.begin_write().map_err(storage)?;
        tx.open_table(EVENTS).map_err(storage)?;
        tx.open_table(SESSIONS).map_err(storage)?;
        tx.commit().map_err(storage)?;

        let (tx, rx) = mpsc::channel::<Request>(4096);
        let writer_db = db.clone();
        let thread = std::thread::Builder::new()
            .name("toolview-writer".into())
            .spawn(move || writer_loop(&writer_db, rx))
            .map_err(storage)?;
        Ok(EmbeddedStore {
            db,
            writer: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Queues work for the writer (waiting for queue space); the receiver tells when it is
    /// committed.
    async fn submit(
        &self,
        work: Work,
    ) -> Result<oneshot::Receiver<Result<(), StoreError>>, StoreError> {
        let sender = self.writer.lock().clone().ok_or(StoreError::Closed)?;
        let (done, wait) = oneshot::channel();
        sender
            .send(Request { work, done })
            .await
            .map_err(|_| StoreError::Closed)?;
        Ok(wait)
    }

    /// Runs a read on the blocking pool. A panic inside the database while reading (a damaged
    /// page does that) is logged and answered as unreadable data of `what`, not sent to the
    /// client, and does not end the process.
    async fn blocking<T: Send + 'static>(
        &self,
        what: String,
        f: impl FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = self.db.clone();
        match tokio::task::spawn_blocking(move || f(&db)).await {
            Ok(result) => result,
            Err(e) if e.is_panic() => {
                StoreError::from_join(e, &format!("reading {what}"));
                Err(StoreError::Corrupt(format!("{what} could not be read")))
            }
            Err(e) => Err(StoreError::from_join(e, &what)),
        }
    }
}

/// Group commit: take one request, then everything else already queued, and commit them in
/// one transaction. After a failed commit every later request fails too, so a log never gets a
/// gap; the service reports the store unavailable.
fn writer_loop(db: &Database, mut rx: mpsc::Receiver<Request>) {
    let mut failed: Option<StoreError> = None;
    while let Some(first) = rx.blocking_recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(r) => group.push(r),
                Err(_) => break,
            }
        }
        let t0 = std::time::Instant::now();
        let result = match &failed {
            Some(e) => Err(e.clone()),
            None => commit(db, &group),
        };
        tracing::debug!(
            requests = group.len(),
            us = t0.elapsed().as_micros(),
            "commit"
        );
        if let Err(e) = &result {
            tracing::error!(error = %e, "store commit failed; refusing further writes");
            failed = Some(e.clone());
        }
        for r in group {
            let _ = r.done.send(result.clone());
        }
    }
}

fn commit(db: &Database, group: &[Request]) -> Result<(), StoreError> {
    let tx = db.begin_write().map_err(storage)?;
    {
        let mut events = tx.open_table(EVENTS).map_err(storage)?;
        let mut sessions = tx.open_table(SESSIONS).map_err(storage)?;
        for work in group.iter().map(|r| &r.work) {
            let append = match work {
                Work::Append(batch) => batch,
                Work::Delete(session) => {
                    let sid = session.as_str();
                    events
                        .retain_in((sid, 0)..=(sid, u64::MAX), |_, _| false)
                        .map_err(storage)?;
                    sessions.remove(sid).map_err(storage)?;
                    continue;
                }
            };
            for append in append {
                let sid = append.session.as_str();
                for r in &append.records {
                    let bytes = serde_json::to_vec(&*r.event).map_err(storage)?;
                    events
                        .insert((sid, r.offset), bytes.as_slice())
                        .map_err(storage)?;
                }
                if let Some(before) = append.trim_before {
                    events
                        .retain_in((sid, 0)..(sid, before), |_, _| false)
                        .map_err(storage)?;
                }
                let meta = serde_json::to_vec(&append.meta).map_err(storage)?;
                sessions.insert(sid, meta.as_slice()).map_err(storage)?;
            }
        }
    }
    tx.commit().map_err(storage)
}

fn decode_event(offset: u64, bytes: &[u8]) -> Result<Record, StoreError> {
    let event: ToolEvent = serde_json::from_slice(bytes)
        .map_err(|e| StoreError::Corrupt(format!("event at offset {offset}: {e}")))?;
    Ok(Record {
        offset,
        event: Arc::new(event),
    })
}

fn decode_meta(bytes: &[u8]) -> Result<SessionMeta, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt(format!("session metadata: {e}")))
}

fn read_range(db: &Database, sid: &str, after: u64, max: usize) -> Result<Vec<Record>, StoreError> {
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
        out.push(decode_event(k.value().1, v.value())?);
    }
    Ok(out)
}

#[tonic::async_trait]
impl Store for EmbeddedStore {
    fn name(&self) -> &'static str {
        "embedded"
    }

    async fn append(&self, batch: Vec<SessionAppend>) -> Result<Durable, StoreError> {
        let wait = self.submit(Work::Append(batch)).await?;
        Ok(Box::pin(async move {
            wait.await.unwrap_or(Err(StoreError::Closed))
        }))
    }

    async fn load(&self, session: &SessionId) -> Result<Option<LoadedSession>, StoreError> {
        let sid = session.to_string();
        self.blocking(format!("session {session}"), move |db| {
            let tx = db.begin_read().map_err(storage)?;
            let sessions = tx.open_table(SESSIONS).map_err(storage)?;
            let Some(meta) = sessions.get(sid.as_str()).map_err(storage)? else {
                return Ok(None);
            };
            let meta = decode_meta(meta.value())?;
            let records = read_range(db, &sid, 0, usize::MAX)?;
            Ok(Some(LoadedSession { meta, records }))
        })
        .await
    }

    async fn read(
        &self,
        session: &SessionId,
        after: u64,
        max: usize,
    ) -> Result<Vec<Record>, StoreError> {
        let sid = session.to_string();
        self.blocking(format!("session {session}"), move |db| {
            read_range(db, &sid, after, max)
        })
        .await
    }

    async fn sessions(&self) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        self.blocking("the session list".into(), |db| {
            let tx = db.begin_read().map_err(storage)?;
            let sessions = tx.open_table(SESSIONS).map_err(storage)?;
            let mut out = Vec::new();
            for item in sessions.iter().map_err(storage)? {
                let (k, v) = item.map_err(storage)?;
                let id =
                    SessionId::new(k.value()).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                out.push((id, decode_meta(v.value())?));
            }
            Ok(out)
        })
        .await
    }

    async fn delete(&self, session: &SessionId) -> Result<(), StoreError> {
        let wait = self.submit(Work::Delete(session.clone())).await?;
        wait.await.unwrap_or(Err(StoreError::Closed))
    }

    async fn close(&self) {
        // Dropping the sender lets the writer drain what is queued and exit.
        self.writer.lock().take();
        let thread = self.thread.lock().take();
        if let Some(t) = thread {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
    }
}
