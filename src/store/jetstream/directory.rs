//! The session directory: every session with a log, in id order, in a JetStream KV bucket
//! (`<stream>_DIR`), so a `ListSessions` page reads O(page), not the stream's whole subject list.
//!
//! The ids are kept in **chunks** of at most [`CHUNK_MAX`], sorted (a key `c.<hex>` each), and a
//! **root** (`root`) lists the chunks by their first id. A chunk holds the ids from its first up
//! to the next chunk's first — the first chunk also any id below its own first. Every write is a
//! compare-and-set on a key's revision, so replicas share the directory without a lock:
//!
//! - **insert** (before a log's first append): the id goes into its chunk; a full chunk splits —
//!   the upper half written to a new chunk first, then the root names it (the write that
//!   decides), then the old chunk drops what the new one holds — and the id is inserted again,
//!   where it now belongs. An id is never only in a chunk nobody reaches: a race leaves it in
//!   two chunks at worst.
//! - **list**: the root, then chunks in order from the one `after` falls in; an id is listed
//!   once every chunk that may hold smaller ids was read (ids a race left in an earlier chunk
//!   are merged in), so pages come out sorted and without repeats.
//! - **remove** (a deleted log, or one the listing finds empty: aged out by `max_age`): then the
//!   log is looked at again, and an id whose log came back is inserted again.
//! - **rebuild**: a missing root (a new bucket, a deleted one) is made from the stream's
//!   subjects, once: O(sessions), then every operation is O(page) again.

use std::collections::BTreeSet;

use async_nats::jetstream::{self, kv};
use serde::{Deserialize, Serialize};

use super::{Inner, subject};
use crate::domain::SessionId;
use crate::store::{StoreError, unique_hex};

/// Ids in a chunk at most; a full chunk splits in two. A page of 1,000 reads one to three.
const CHUNK_MAX: usize = 1024;
/// Ids per chunk when the directory is rebuilt (room to grow before the first splits).
const CHUNK_FILL: usize = CHUNK_MAX / 2;
/// Compare-and-set rounds an insert or a removal tries before it gives up (each lost round is
/// another replica's write to the same chunk or root, which succeeded).
const CAS_ROUNDS: usize = 64;
const ROOT: &str = "root";

/// The root: the chunks by their first id, in order.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Root {
    chunks: Vec<ChunkRef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ChunkRef {
    first: String,
    key: String,
}

impl Root {
    /// The chunk `id` belongs in: the last whose first is at most `id`, else the first.
    fn chunk_for(&self, id: &str) -> Option<usize> {
        if self.chunks.is_empty() {
            return None;
        }
        Some(
            self.chunks
                .partition_point(|c| c.first.as_str() <= id)
                .saturating_sub(1),
        )
    }
}

fn storage(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(format!("NATS: the session directory: {what}: {e}"))
}

/// An id waiting to be inserted, and who waits for it.
type Waiting = (
    SessionId,
    tokio::sync::oneshot::Sender<Result<(), StoreError>>,
);

/// The directory's bucket.
pub(super) struct Directory {
    kv: kv::Store,
    js: jetstream::Context,
    replicas: usize,
    /// Ids this replica's appends are about to make logs for: whoever holds `turn` inserts all
    /// of them at once (concurrent appends of new sessions would otherwise contend for the
    /// same chunk).
    waiting: parking_lot::Mutex<Vec<Waiting>>,
    turn: tokio::sync::Mutex<()>,
}

/// The bucket's name for `stream`.
pub(super) fn bucket(stream: &str) -> String {
    format!("{stream}_DIR")
}

impl Directory {
    /// The bucket, created when missing (as many copies as the stream's).
    pub(super) async fn open(
        js: &jetstream::Context,
        stream: &str,
        replicas: usize,
    ) -> Result<Self, StoreError> {
        let name = bucket(stream);
        let kv = match js.get_key_value(&name).await {
            Ok(kv) => kv,
            Err(_) => create_bucket(js, &name, replicas).await?,
        };
        Ok(Directory {
            kv,
            js: js.clone(),
            replicas,
            waiting: parking_lot::Mutex::default(),
            turn: tokio::sync::Mutex::default(),
        })
    }

    /// A key's value and revision (`None`: missing or deleted).
    async fn read<T: serde::de::DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<(T, u64)>, StoreError> {
        let entry = self.kv.entry(key).await.map_err(|e| storage(key, e))?;
        let Some(entry) = entry.filter(|e| e.operation == kv::Operation::Put) else {
            return Ok(None);
        };
        let value = serde_json::from_slice(&entry.value)
            .map_err(|e| StoreError::Corrupt(format!("the session directory's {key}: {e}")))?;
        Ok(Some((value, entry.revision)))
    }

    /// Writes `key` if its revision is still `revision` (0: if it does not exist); false when
    /// another write came first.
    async fn write<T: Serialize>(
        &self,
        key: &str,
        value: &T,
        revision: u64,
    ) -> Result<bool, StoreError> {
        let bytes = serde_json::to_vec(value)
            .expect("JSON of plain data")
            .into();
        let result = if revision == 0 {
            self.kv.create(key, bytes).await.map(|_| ()).map_err(|e| {
                (
                    e.kind() == kv::CreateErrorKind::AlreadyExists,
                    e.to_string(),
                )
            })
        } else {
            self.kv
                .update(key, bytes, revision)
                .await
                .map(|_| ())
                .map_err(|e| {
                    (
                        e.kind() == kv::UpdateErrorKind::WrongLastRevision,
                        e.to_string(),
                    )
                })
        };
        match result {
            Ok(()) => Ok(true),
            Err((true, _)) => Ok(false),
            Err((false, e)) => Err(storage(key, e)),
        }
    }

    /// The root, rebuilt from the stream when missing (the bucket made again first when it
    /// is gone: deleted by an operator, say).
    async fn root(&self, inner: &Inner) -> Result<(Root, u64), StoreError> {
        for _ in 0..CAS_ROUNDS {
            match self.read::<Root>(ROOT).await {
                Ok(Some(root)) => return Ok(root),
                Ok(None) => self.rebuild(inner).await?,
                Err(e @ StoreError::Corrupt(_)) => return Err(e),
                Err(e) => {
                    if self.js.get_key_value(self.kv.name.as_str()).await.is_ok() {
                        return Err(e);
                    }
                    create_bucket(&self.js, &self.kv.name, self.replicas).await?;
                }
            }
        }
        Err(storage(ROOT, "never made"))
    }

    /// Makes the root from the stream's subjects (another replica may make it first: then its
    /// root stands, and the chunks written here are removed).
    async fn rebuild(&self, inner: &Inner) -> Result<(), StoreError> {
        tracing::info!(bucket = %self.kv.name, "rebuilding the session directory from the stream");
        let ids = inner.all_sessions().await?;
        let mut root = Root::default();
        for chunk in ids.chunks(CHUNK_FILL) {
            let key = format!("c.{}", unique_hex());
            self.write(&key, &chunk.to_vec(), 0).await?;
            root.chunks.push(ChunkRef {
                first: chunk[0].clone(),
                key,
            });
        }
        if !self.write(ROOT, &root, 0).await? {
            for c in &root.chunks {
                let _ = self.kv.delete(&c.key).await;
            }
        }
        Ok(())
    }

    /// Adds sessions whose logs an append is about to make, together with those of the other
    /// appends waiting meanwhile (one `insert_all` per turn).
    pub(super) async fn admit(&self, inner: &Inner, ids: &[&SessionId]) -> Result<(), StoreError> {
        let mut answers = Vec::with_capacity(ids.len());
        {
            let mut waiting = self.waiting.lock();
            for id in ids {
                let (tx, rx) = tokio::sync::oneshot::channel();
                waiting.push(((*id).clone(), tx));
                answers.push(rx);
            }
        }
        let mut results = Vec::with_capacity(answers.len());
        for (id, mut answer) in ids.iter().zip(answers) {
            loop {
                use tokio::sync::oneshot::error::TryRecvError;
                match answer.try_recv() {
                    Ok(result) => {
                        results.push(result);
                        break;
                    }
                    // The turn that took it ended without answering (it panicked): alone, then.
                    Err(TryRecvError::Closed) => {
                        results.push(self.insert(inner, id).await);
                        break;
                    }
                    Err(TryRecvError::Empty) => {}
                }
                // Not answered yet: a turn inserts every id waiting (this one's too, unless the
                // turn before took it, and then answered it before ending).
                let _turn = self.turn.lock().await;
                let batch = std::mem::take(&mut *self.waiting.lock());
                if batch.is_empty() {
                    continue;
                }
                let ids: Vec<&SessionId> = batch.iter().map(|(id, _)| id).collect();
                let result = self.insert_all(inner, &ids).await;
                for (_, tx) in batch {
                    let _ = tx.send(result.clone());
                }
            }
        }
        results.into_iter().collect()
    }

    /// Adds sessions: one write per chunk they fall in, then one by one those a concurrent
    /// write or a full chunk turned away.
    async fn insert_all(&self, inner: &Inner, ids: &[&SessionId]) -> Result<(), StoreError> {
        if let [id] = ids {
            return self.insert(inner, id).await;
        }
        let (root, _) = self.root(inner).await?;
        let mut by_chunk: std::collections::BTreeMap<usize, Vec<&SessionId>> = Default::default();
        let mut left: Vec<&SessionId> = Vec::new();
        for id in ids {
            match root.chunk_for(id.as_str()) {
                Some(at) => by_chunk.entry(at).or_default().push(id),
                None => left.push(id),
            }
        }
        let mut written: Vec<(&SessionId, String)> = Vec::new();
        for (at, group) in by_chunk {
            let key = &root.chunks[at].key;
            let (mut chunk, rev) = self.read::<Vec<String>>(key).await?.unwrap_or_default();
            chunk.extend(group.iter().map(|id| id.as_str().to_owned()));
            chunk.sort_unstable();
            chunk.dedup();
            if chunk.len() <= CHUNK_MAX && self.write(key, &chunk, rev).await? {
                written.extend(group.into_iter().map(|id| (id, key.clone())));
            } else {
                left.extend(group);
            }
        }
        // As in `insert`: a split since the root was read sends an id to its new chunk.
        let (now, _) = self.root(inner).await?;
        for (id, key) in written {
            if now.chunk_for(id.as_str()).map(|i| &now.chunks[i].key) != Some(&key) {
                left.push(id);
            }
        }
        for id in left {
            self.insert(inner, id).await?;
        }
        Ok(())
    }

    /// Adds a session (its log is about to be made).
    pub(super) async fn insert(&self, inner: &Inner, id: &SessionId) -> Result<(), StoreError> {
        let id = id.as_str();
        for _ in 0..CAS_ROUNDS {
            let (mut root, root_rev) = self.root(inner).await?;
            let Some(at) = root.chunk_for(id) else {
                // No chunk yet: the first one.
                let key = format!("c.{}", unique_hex());
                self.write(&key, &vec![id.to_owned()], 0).await?;
                root.chunks.push(ChunkRef {
                    first: id.to_owned(),
                    key: key.clone(),
                });
                if self.write(ROOT, &root, root_rev).await? {
                    return Ok(());
                }
                let _ = self.kv.delete(&key).await;
                continue;
            };
            let key = root.chunks[at].key.clone();
            let (mut ids, rev) = self.read::<Vec<String>>(&key).await?.unwrap_or_default();
            let Err(pos) = ids.binary_search_by(|x| x.as_str().cmp(id)) else {
                return Ok(());
            };
            ids.insert(pos, id.to_owned());
            if ids.len() <= CHUNK_MAX {
                if !self.write(&key, &ids, rev).await? {
                    continue;
                }
                // A split may have given this range to a new chunk since the root was read:
                // then the id goes in again, there (a split moves only what it saw).
                let (now, _) = self.root(inner).await?;
                if now.chunk_for(id).map(|i| &now.chunks[i].key) == Some(&key) {
                    return Ok(());
                }
                continue;
            }
            // The split moves what the chunk holds; the new id then goes in where it now
            // belongs (the next round finds it there, or puts it there).
            self.split(inner, &mut root, root_rev, at, ids).await?;
        }
        Err(storage(id, "too many writers at once"))
    }

    /// Splits chunk `at`, whose ids (with the new one, which is not stored yet) are `ids`: the
    /// upper half to a new chunk, the root naming it, then the old chunk without what the new
    /// one holds. Nothing changes when the root changed meanwhile. Either way the caller inserts
    /// the new id again.
    async fn split(
        &self,
        inner: &Inner,
        root: &mut Root,
        root_rev: u64,
        at: usize,
        ids: Vec<String>,
    ) -> Result<(), StoreError> {
        let upper = ids[ids.len() / 2..].to_vec();
        let key = format!("c.{}", unique_hex());
        self.write(&key, &upper, 0).await?;
        root.chunks.insert(
            at + 1,
            ChunkRef {
                first: upper[0].clone(),
                key: key.clone(),
            },
        );
        if !self.write(ROOT, root, root_rev).await? {
            let _ = self.kv.delete(&key).await;
            return Ok(());
        }
        // The old chunk keeps what is below the new chunk's first. What it holds beyond that and
        // the new chunk lacks (another replica's insert, since the chunk was read) is inserted
        // there first; if the old chunk cannot be written, a repeat is only garbage, which
        // listings skip.
        let old = root.chunks[at].key.clone();
        let bound = upper[0].clone();
        let moved: BTreeSet<&String> = upper.iter().collect();
        for _ in 0..CAS_ROUNDS {
            let Some((ids, rev)) = self.read::<Vec<String>>(&old).await? else {
                break;
            };
            for stray in ids.iter().filter(|x| **x >= bound && !moved.contains(x)) {
                if let Ok(stray) = SessionId::new(stray.clone()) {
                    Box::pin(self.insert(inner, &stray)).await?;
                }
            }
            let kept: Vec<String> = ids.iter().filter(|x| **x < bound).cloned().collect();
            if kept.len() == ids.len() || self.write(&old, &kept, rev).await? {
                break;
            }
        }
        Ok(())
    }

    /// Takes a session out (its log is gone); if its log came back meanwhile, puts it back.
    pub(super) async fn remove(&self, inner: &Inner, id: &SessionId) -> Result<(), StoreError> {
        let (root, _) = self.root(inner).await?;
        let name = id.as_str();
        // Its chunk, and the one before (where a race may have left a copy).
        let at = root.chunk_for(name).unwrap_or(0);
        for c in root.chunks.iter().skip(at.saturating_sub(1)).take(2) {
            for _ in 0..CAS_ROUNDS {
                let Some((ids, rev)) = self.read::<Vec<String>>(&c.key).await? else {
                    break;
                };
                let kept: Vec<String> =
                    ids.iter().filter(|x| x.as_str() != name).cloned().collect();
                if kept.len() == ids.len() || self.write(&c.key, &kept, rev).await? {
                    break;
                }
            }
        }
        let prefix = &inner.options.subject_prefix;
        if inner.last(&subject::subject(prefix, id)).await?.is_some() {
            self.insert(inner, id).await?;
        }
        Ok(())
    }

    /// Up to `limit` ids after `after`, in order. Some may have no log any more (aged out):
    /// the caller reads each session's last message anyway, and removes those.
    pub(super) async fn page(
        &self,
        inner: &Inner,
        after: Option<&SessionId>,
        limit: usize,
    ) -> Result<Vec<SessionId>, StoreError> {
        let (root, _) = self.root(inner).await?;
        let after = after.map(SessionId::as_str);
        let start = after.and_then(|a| root.chunk_for(a)).unwrap_or(0);
        // Ids read and not yet listed, in order.
        let mut pending: BTreeSet<String> = BTreeSet::new();
        let mut out = Vec::with_capacity(limit);
        for (i, c) in root.chunks.iter().enumerate().skip(start) {
            let ids = self
                .read::<Vec<String>>(&c.key)
                .await?
                .map(|(ids, _)| ids)
                .unwrap_or_default();
            pending.extend(
                ids.into_iter()
                    .filter(|x| after.is_none_or(|a| x.as_str() > a)),
            );
            // Every id below the next chunk's first has been read.
            let bound = root.chunks.get(i + 1).map(|n| n.first.as_str());
            while let Some(first) = pending.first() {
                if bound.is_some_and(|b| first.as_str() >= b) || out.len() == limit {
                    break;
                }
                let id = pending.pop_first().expect("a first");
                if let Ok(id) = SessionId::new(id) {
                    out.push(id);
                }
            }
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }
}

async fn create_bucket(
    js: &jetstream::Context,
    name: &str,
    replicas: usize,
) -> Result<kv::Store, StoreError> {
    js.create_key_value(kv::Config {
        bucket: name.to_owned(),
        description: "toolview's session directory: session ids in order, in chunks".into(),
        history: 1,
        num_replicas: replicas.max(1),
        storage: jetstream::stream::StorageType::File,
        ..kv::Config::default()
    })
    .await
    .map_err(|e| storage("create the bucket", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_goes_to_the_last_chunk_starting_at_or_below_it() {
        let root = Root {
            chunks: ["b", "f", "m"]
                .iter()
                .map(|f| ChunkRef {
                    first: (*f).into(),
                    key: format!("c.{f}"),
                })
                .collect(),
        };
        assert_eq!(
            root.chunk_for("a"),
            Some(0),
            "below every first: the first chunk"
        );
        assert_eq!(root.chunk_for("b"), Some(0));
        assert_eq!(root.chunk_for("e"), Some(0));
        assert_eq!(root.chunk_for("f"), Some(1));
        assert_eq!(root.chunk_for("z"), Some(2));
        assert_eq!(Root::default().chunk_for("a"), None);
    }
}
