//! Reading logs: the index of a session brought up to the stream's last message, and events by
//! offset. The last message is read through the stream leader (read-after-write); history by
//! batch direct get, which any server answers but a follower may answer late, so a short answer
//! is retried and finally read from the leader.

use std::sync::Arc;
use std::time::Duration;

use async_nats::HeaderMap;
use async_nats::jetstream::stream::LastRawMessageErrorKind;
use jetstream_extra::batch_fetch::BatchFetchExt as _;
use tokio_stream::StreamExt as _;

use super::headers::{CALLS, CREATED, CWD, EPOCH, OFFSET, SUMMARY, TITLE, UPDATED};
use super::index::{Index, Stored};
use super::{Inner, Slot, subject};
use crate::domain::{Epoch, EventId, SessionId, Subject};
use crate::store::{Known, Record, RecordCodec, SessionMeta, StoreError};

/// Messages per batch direct get (the server's most).
const FETCH_BATCH: usize = 1000;
/// …and about this many bytes per batch.
const FETCH_BYTES: usize = 8 << 20;
/// A follower that answers short is asked again this many times, this far apart, before the
/// leader is asked (one message per request).
const LAGGING_ROUNDS: u32 = 5;
const LAGGING_WAIT: Duration = Duration::from_millis(10);
/// A log rebuilt while retention trims it starts over at most this many times.
const REBUILD_ATTEMPTS: u32 = 5;

/// A stored message back: the record from the payload, the log's facts from the headers.
pub(super) fn parse(
    codec: &dyn RecordCodec,
    seq: u64,
    headers: Option<&HeaderMap>,
    payload: &[u8],
) -> Result<Stored, String> {
    let header = |name: &str| {
        headers
            .and_then(|h| h.get(name))
            .map(|v| v.as_str().to_owned())
            .ok_or_else(|| format!("header {name}: missing"))
    };
    let number = |name: &str| {
        header(name)?
            .parse::<u64>()
            .map_err(|e| format!("header {name}: {e}"))
    };
    let text = |name: &str| -> Result<String, String> {
        use base64::Engine as _;
        let Some(value) = headers.and_then(|h| h.get(name)) else {
            return Ok(String::new());
        };
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(value.as_str())
            .map_err(|e| format!("header {name}: {e}"))?;
        String::from_utf8(bytes).map_err(|e| format!("header {name}: {e}"))
    };
    let summary = match headers.and_then(|h| h.get(SUMMARY)) {
        None => None,
        Some(value) => {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(value.as_str())
                .map_err(|e| format!("header {SUMMARY}: {e}"))?;
            let meta = codec
                .decode_meta(&bytes)
                .map_err(|e| format!("header {SUMMARY}: {e}"))?;
            meta.summary
        }
    };
    let Record { offset, event } = codec.decode_event(payload)?;
    if number(OFFSET)? != offset {
        return Err(format!(
            "header {OFFSET}: differs from the record's offset {offset}"
        ));
    }
    Ok(Stored {
        seq,
        offset,
        epoch: Epoch::new(header(EPOCH)?).map_err(|e| format!("header {EPOCH}: {e}"))?,
        created_ms: number(CREATED)?,
        updated_ms: number(UPDATED)?,
        calls: number(CALLS)?,
        title: text(TITLE)?,
        cwd: text(CWD)?,
        summary,
        event,
    })
}

impl Inner {
    pub(super) fn subject(&self, session: &SessionId) -> String {
        subject::subject(&self.options.subject_prefix, session)
    }

    /// The index slot of a session, made on first use. Beyond the limit, slots nobody is using
    /// are dropped (they are rebuilt from the stream when used again).
    pub(super) fn slot(&self, session: &SessionId) -> Slot {
        let mut indexes = self.indexes.lock();
        if let Some(slot) = indexes.get(session) {
            return slot.clone();
        }
        let max = self.options.max_indexed_sessions.max(1);
        if indexes.len() >= max {
            let excess = indexes.len() + 1 - max + max / 10;
            let idle: Vec<SessionId> = indexes
                .iter()
                .filter(|(_, slot)| Arc::strong_count(slot) == 1)
                .map(|(id, _)| id.clone())
                .take(excess)
                .collect();
            for id in idle {
                indexes.remove(&id);
            }
        }
        indexes.entry(session.clone()).or_default().clone()
    }

    /// The slot of a session, only if it has one.
    pub(super) fn existing_slot(&self, session: &SessionId) -> Option<Slot> {
        self.indexes.lock().get(session).cloned()
    }

    pub(super) fn forget(&self, session: &SessionId) {
        self.indexes.lock().remove(session);
    }

    fn decode(
        &self,
        subject: &str,
        seq: u64,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<Stored, StoreError> {
        parse(&*self.codec, seq, headers, payload)
            .map_err(|e| StoreError::Corrupt(format!("{subject}, stream sequence {seq}: {e}")))
    }

    /// The last message of a subject, from the stream leader; `None` when it has none. Asked
    /// again while the leader does not answer (an election, NATS away), for as long as an
    /// append is (`PUBLISH_PATIENCE`): a publish that must read its session first waits as
    /// long as one that need not.
    pub(super) async fn last(&self, subject: &str) -> Result<Option<Stored>, StoreError> {
        let deadline = tokio::time::Instant::now() + super::retry::PUBLISH_PATIENCE;
        let mut wait = super::retry::RETRY_FIRST_WAIT;
        loop {
            let got = tokio::time::timeout(
                super::retry::ATTEMPT_TIMEOUT,
                self.stream.get_last_raw_message_by_subject(subject),
            )
            .await;
            let e = match got {
                Ok(Ok(m)) => {
                    return self
                        .decode(subject, m.sequence, Some(&m.headers), &m.payload)
                        .map(Some);
                }
                Ok(Err(e)) if e.kind() == LastRawMessageErrorKind::NoMessageFound => {
                    return Ok(None);
                }
                Ok(Err(e)) => e.to_string(),
                Err(_) => "no answer".to_owned(),
            };
            if tokio::time::Instant::now() + wait > deadline {
                return Err(StoreError::Storage(format!(
                    "NATS: last message of {subject}: {e}"
                )));
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(super::retry::RETRY_MAX_WAIT);
        }
    }

    /// The first message of a subject at stream sequence `from` or later, from the leader.
    async fn next_from_leader(
        &self,
        subject: &str,
        from: u64,
    ) -> Result<Option<Stored>, StoreError> {
        let got = self
            .stream
            .raw_message_builder()
            .sequence(from)
            .next_by_subject(subject.to_owned())
            .send()
            .await;
        match got {
            Ok(m) => self
                .decode(subject, m.sequence, Some(&m.headers), &m.payload)
                .map(Some),
            Err(e) if e.kind() == LastRawMessageErrorKind::NoMessageFound => Ok(None),
            Err(e) => Err(StoreError::Storage(format!(
                "NATS: message of {subject}: {e}"
            ))),
        }
    }

    /// Up to `max` messages of a subject from stream sequence `from` on, by batch direct get.
    async fn fetch(&self, subject: &str, from: u64, max: usize) -> Result<Vec<Stored>, StoreError> {
        let storage = |e: &dyn std::fmt::Display| {
            StoreError::Storage(format!("NATS: reading {subject}: {e}"))
        };
        let mut batch = self
            .js
            .get_batch(&self.options.stream, max.clamp(1, FETCH_BATCH))
            .sequence(from.max(1))
            .subject(subject)
            .max_bytes(FETCH_BYTES)
            .send()
            .await
            .map_err(|e| storage(&e))?;
        let mut out = Vec::new();
        while let Some(m) = batch.next().await {
            match m {
                Ok(m) => {
                    out.push(self.decode(subject, m.sequence, Some(&m.headers), &m.payload)?)
                }
                Err(e)
                    if e.kind()
                        == jetstream_extra::batch_fetch::BatchFetchErrorKind::NoMessages =>
                {
                    break;
                }
                Err(e) => return Err(storage(&e)),
            }
        }
        Ok(out)
    }

    /// Messages from stream sequence `from` on, at least one if the stream has one at or past
    /// `from` up to `upto`: a follower answering short is asked again, then the leader.
    async fn fetch_some(
        &self,
        subject: &str,
        from: u64,
        max: usize,
        upto: u64,
    ) -> Result<Vec<Stored>, StoreError> {
        for _ in 0..LAGGING_ROUNDS {
            let got = self.fetch(subject, from, max).await?;
            if !got.is_empty() || from > upto {
                return Ok(got);
            }
            tokio::time::sleep(LAGGING_WAIT).await;
        }
        Ok(self
            .next_from_leader(subject, from)
            .await?
            .into_iter()
            .collect())
    }

    /// Brings a session's index up to its log's last message (or empties it: no log).
    async fn refresh(
        &self,
        session: &SessionId,
        index: &mut Option<Index>,
    ) -> Result<(), StoreError> {
        let subject = self.subject(session);
        let Some(last) = self.last(&subject).await? else {
            *index = None;
            return Ok(());
        };
        if let Some(ix) = index.as_mut()
            && *ix.epoch() == last.epoch
            && ix.tail().1 <= last.seq
            && self.catch_up(&subject, ix, last.seq).await?
        {
            return Ok(());
        }
        *index = self.rebuild(&subject, last.seq).await?;
        Ok(())
    }

    /// Extends an index up to stream sequence `upto`; `false` when the log does not continue
    /// it (trimmed past it, or made again), so it must be rebuilt.
    async fn catch_up(
        &self,
        subject: &str,
        index: &mut Index,
        upto: u64,
    ) -> Result<bool, StoreError> {
        let mut next = index.tail().1 + 1;
        while next <= upto {
            let got = self.fetch_some(subject, next, FETCH_BATCH, upto).await?;
            let Some(last) = got.last() else {
                // Nothing at or past `next` any more: the log was purged meanwhile.
                return Ok(false);
            };
            next = last.seq + 1;
            for stored in &got {
                if index.apply(stored).is_err() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// A session's index read from its first retained message up to stream sequence `upto`.
    async fn rebuild(&self, subject: &str, upto: u64) -> Result<Option<Index>, StoreError> {
        let max_events = self.options.max_events_per_session;
        for _ in 0..REBUILD_ATTEMPTS {
            let got = self.fetch_some(subject, 1, FETCH_BATCH, upto).await?;
            let Some(first) = got.first() else {
                return Ok(None);
            };
            let mut index = Index::new(first, max_events);
            let mut whole = true;
            for stored in &got[1..] {
                if index.apply(stored).is_err() {
                    whole = false;
                    break;
                }
            }
            if whole && self.catch_up(subject, &mut index, upto).await? {
                return Ok(Some(index));
            }
        }
        Err(StoreError::Storage(format!(
            "{subject}: the log kept changing while it was read; try again"
        )))
    }

    pub(super) async fn meta(
        &self,
        session: &SessionId,
    ) -> Result<Option<SessionMeta>, StoreError> {
        let slot = self.slot(session);
        let mut index = slot.lock().await;
        self.refresh(session, &mut index).await?;
        Ok(index.as_ref().map(Index::meta))
    }

    pub(super) async fn known(
        &self,
        session: &SessionId,
        events: Vec<EventId>,
        subjects: Vec<Subject>,
    ) -> Result<Known, StoreError> {
        let slot = self.slot(session);
        let mut index = slot.lock().await;
        if index.is_none() {
            self.refresh(session, &mut index).await?;
        }
        Ok(index
            .as_ref()
            .map(|ix| ix.known(events, subjects))
            .unwrap_or_default())
    }

    pub(super) async fn read(
        &self,
        session: &SessionId,
        after: u64,
        max: usize,
    ) -> Result<Vec<Record>, StoreError> {
        let subject = self.subject(session);
        let (from, upto, epoch) = {
            let slot = self.slot(session);
            let mut index = slot.lock().await;
            if index.as_ref().is_none_or(|ix| ix.head() <= after) {
                self.refresh(session, &mut index).await?;
            }
            match index.as_ref() {
                Some(ix) if ix.head() > after => {
                    (ix.read_from(after), ix.tail().1, ix.epoch().clone())
                }
                _ => return Ok(Vec::new()),
            }
        };
        let got = self.fetch_some(&subject, from, max, upto).await?;
        Ok(got
            .into_iter()
            .filter(|s| s.offset > after && s.epoch == epoch)
            .take(max)
            .map(|s| Record {
                offset: s.offset,
                event: s.event,
            })
            .collect())
    }
}

/// Last-message reads one listing has in flight: a page of 1,000 costs about 1,000 / this
/// round trips to the stream leader instead of 1,000.
const LIST_READS_IN_FLIGHT: usize = 32;

impl Inner {
    /// A page of the session list: the first `limit` sessions after `after` in id order, from
    /// the session directory (`directory.rs`), then each listed session's last message (its
    /// metadata, read from the stream, so every replica lists the same). O(page): a session the
    /// directory names whose log is gone (aged out, purged) is not listed, and leaves the
    /// directory.
    pub(super) async fn list(
        &self,
        after: Option<SessionId>,
        limit: usize,
    ) -> Result<Vec<(SessionId, SessionMeta)>, StoreError> {
        let mut listed = Vec::with_capacity(limit);
        let mut after = after;
        while listed.len() < limit {
            let ids = self
                .directory
                .page(self, after.as_ref(), limit - listed.len())
                .await?;
            let Some(last_id) = ids.last().cloned() else {
                break;
            };
            let exhausted = ids.len() < limit - listed.len();
            for (id, meta) in self.metas(ids).await? {
                match meta {
                    Some(meta) => listed.push((id, meta)),
                    None => self.directory.remove(self, &id).await?,
                }
            }
            if exhausted {
                break;
            }
            after = Some(last_id);
        }
        Ok(listed)
    }

    /// The sessions' metadata from their last and first kept messages, read a few sessions at a
    /// time (each read is a round trip to the leader), in order; `None` for a session without a
    /// log.
    async fn metas(
        &self,
        ids: Vec<SessionId>,
    ) -> Result<Vec<(SessionId, Option<SessionMeta>)>, StoreError> {
        let prefix = &self.options.subject_prefix;
        let reads = futures_util::StreamExt::buffered(
            futures_util::stream::iter(ids.into_iter().map(|id| async move {
                // Its last message (the metadata) and its first kept one (where it starts).
                let subject = subject::subject(prefix, &id);
                let (last, first) =
                    tokio::try_join!(self.last(&subject), self.next_from_leader(&subject, 1))?;
                Ok::<_, StoreError>((id, last.zip(first)))
            })),
            LIST_READS_IN_FLIGHT,
        );
        tokio::pin!(reads);
        let mut out = Vec::new();
        while let Some(read) = reads.next().await {
            let (id, last) = read?;
            let meta = last.map(|(last, first)| SessionMeta {
                first_offset: first.offset,
                head_offset: last.offset,
                created_ms: last.created_ms,
                updated_ms: last.updated_ms,
                calls: last.calls,
                epoch: last.epoch,
                title: last.title,
                cwd: last.cwd,
                summary: last.summary,
            });
            out.push((id, meta));
        }
        Ok(out)
    }

    /// Every session with a log, in id order, from the stream's subjects (the server sends them
    /// in pages): O(sessions), for rebuilding the directory.
    pub(super) async fn all_sessions(&self) -> Result<Vec<String>, StoreError> {
        let prefix = &self.options.subject_prefix;
        let mut subjects = self
            .stream
            .info_with_subjects(subject::all(prefix))
            .await
            .map_err(|e| StoreError::Storage(format!("NATS: the stream's subjects: {e}")))?;
        let mut ids = Vec::new();
        while let Some(item) = subjects.next().await {
            let (subject, count) =
                item.map_err(|e| StoreError::Storage(format!("NATS: the stream's subjects: {e}")))?;
            if count > 0
                && let Some(id) = subject::session(prefix, &subject)
            {
                ids.push(id.as_str().to_owned());
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }
}
