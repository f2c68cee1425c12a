//! Appends: a compare-and-set publish per append, chained per session.
//!
//! A cluster refuses a second checked append to a subject while one is in flight (10164), and
//! the second needs the first's stream sequence as its expectation anyway: so the appends of a
//! session form a chain. Each append waits for its predecessor's outcome (the stream sequence
//! its log now ends at, or a failure, which fails it too: its offsets followed the failed one).
//! One event is one publish; more, or several sessions, one atomic batch (ADR-50).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use async_nats::HeaderMap;
use async_nats::jetstream::message::{OutboundMessage, PublishMessage};
use bytes::Bytes;
use futures_util::FutureExt as _;
use jetstream_extra::batch_publish::BatchPublishExt as _;
use tokio::sync::{oneshot, watch};

use super::headers::{
    APPEND, CALLS, CREATED, CWD, EPOCH, OFFSET, SUMMARY, TITLE, UPDATED, bytes_header, text_header,
};
use super::index::{Index, Stored};
use super::retry::{ATTEMPT_TIMEOUT, PUBLISH_PATIENCE, RETRY_FIRST_WAIT, RETRY_MAX_WAIT};
use super::{Inner, REQUEST_TIMEOUT};
use crate::domain::{Epoch, SessionId};
use crate::store::{Durable, SessionAppend, SessionMeta, StoreError, unique_hex};

/// JetStream's "wrong last sequence" errors: the compare-and-set failed (10071), or another
/// checked append to the subject is in flight (10164).
const WRONG_LAST_SEQUENCE: [u64; 2] = [10071, 10164];

/// Where a session's log ends: its last offset, and that message's stream sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tail {
    offset: u64,
    seq: u64,
    epoch: Option<Epoch>,
}

/// The outcome of a session's latest append, once known.
pub(super) type Link = watch::Receiver<Option<Result<Tail, ()>>>;

/// Enqueues an append: it takes its place in each session's chain now, and is written by a
/// task of its own (a caller that goes away does not stop it, nor the appends after it).
pub(super) async fn enqueue(
    inner: &Arc<Inner>,
    batch: Vec<SessionAppend>,
) -> Result<Durable, StoreError> {
    let permit = inner
        .inflight
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| StoreError::Closed)?;
    let mut prevs = Vec::with_capacity(batch.len());
    let mut links = Vec::with_capacity(batch.len());
    {
        let mut chains = inner.chains.lock();
        for a in &batch {
            let (tx, rx) = watch::channel(None);
            prevs.push(chains.insert(a.session.clone(), rx));
            links.push(tx);
        }
    }
    let (done_tx, done) = oneshot::channel();
    let inner = inner.clone();
    tokio::spawn(async move {
        let result = AssertUnwindSafe(write(&inner, &batch, prevs))
            .catch_unwind()
            .await
            .unwrap_or_else(|panic| Err(StoreError::from_panic(panic, "a JetStream append")));
        let mut chains = inner.chains.lock();
        for (i, (a, link)) in batch.iter().zip(&links).enumerate() {
            let outcome = match &result {
                Ok(tails) => Ok(tails[i].clone()),
                Err(_) => Err(()),
            };
            link.send_replace(Some(outcome));
            // The last in its chain: the next append starts from the index.
            if chains
                .get(&a.session)
                .is_some_and(|rx| rx.same_channel(&link.subscribe()))
            {
                chains.remove(&a.session);
            }
        }
        drop(chains);
        drop(permit);
        let _ = done_tx.send(result.map(|_| ()));
    });
    Ok(Box::pin(async move {
        done.await.unwrap_or(Err(StoreError::Closed))
    }))
}

fn conflict(session: &SessionId, why: &str) -> StoreError {
    StoreError::Conflict(format!("session {session}: {why}"))
}

/// Writes one append after its predecessors; the tails the sessions' logs now end at. In five
/// steps: the stream sequence each session's log must end at, the session directory naming the
/// logs it makes, the messages, the publish, the record of what was stored.
async fn write(
    inner: &Inner,
    batch: &[SessionAppend],
    prevs: Vec<Option<Link>>,
) -> Result<Vec<Tail>, StoreError> {
    let expected = expected_seqs(inner, batch, prevs).await?;
    // Before the log exists, so the directory names every session with a log (an append that
    // then fails leaves a name without one, which a listing skips and takes out).
    let new_logs: Vec<&SessionId> = batch
        .iter()
        .filter(|a| a.records.first().is_some_and(|r| r.offset == 1))
        .map(|a| &a.session)
        .collect();
    if !new_logs.is_empty() {
        inner.directory.admit(inner, &new_logs).await?;
    }
    // Names this append: the dedup id of a single message, and a header by which a retry that
    // meets the compare-and-set can tell its own earlier attempt from another writer's append.
    let append_id = unique_hex();
    let (messages, stored) = messages(inner, batch, &expected, &append_id);
    let last_seq = publish(inner, batch, &messages, expected[0], &append_id).await?;
    // An atomic batch is stored as one run of stream sequences.
    let first_seq = last_seq + 1 - messages.len() as u64;
    Ok(record(inner, batch, stored, first_seq).await)
}

/// The stream sequence each session's log ends at before this append: its predecessor's tail in
/// this replica, else the index's or the leader's. A conflict when the log moved on.
async fn expected_seqs(
    inner: &Inner,
    batch: &[SessionAppend],
    prevs: Vec<Option<Link>>,
) -> Result<Vec<u64>, StoreError> {
    let mut expected = Vec::with_capacity(batch.len());
    for (a, prev) in batch.iter().zip(prevs) {
        let first = a
            .records
            .first()
            .map_or(a.meta.head_offset + 1, |r| r.offset);
        let tail = match prev {
            Some(mut prev) => match prev.wait_for(Option::is_some).await.map(|v| v.clone()) {
                Ok(Some(Ok(tail))) => tail,
                _ => return Err(conflict(&a.session, "an earlier append to it failed")),
            },
            None => inner.tail_of(&a.session, first - 1, &a.meta.epoch).await?,
        };
        let same_log = tail.offset == 0 || tail.epoch.as_ref() == Some(&a.meta.epoch);
        if tail.offset + 1 != first || !same_log {
            return Err(conflict(&a.session, "its log moved on"));
        }
        expected.push(tail.seq);
    }
    Ok(expected)
}

/// The messages of an append (each session's first carrying the compare-and-set and the
/// append's id), and what each session's index will record of them (sequences filled in once
/// published).
fn messages(
    inner: &Inner,
    batch: &[SessionAppend],
    expected: &[u64],
    append_id: &str,
) -> (Vec<OutboundMessage>, Vec<Vec<Stored>>) {
    let mut messages = Vec::new();
    let mut stored = Vec::with_capacity(batch.len());
    for (a, &expect) in batch.iter().zip(expected) {
        let subject = inner.subject(&a.session);
        let mut session_stored = Vec::with_capacity(a.records.len());
        let last = a.records.len().saturating_sub(1);
        for (i, r) in a.records.iter().enumerate() {
            let mut headers = headers(&a.meta, r.offset);
            if i == 0 {
                headers.insert("Nats-Expected-Last-Subject-Sequence", expect.to_string());
                headers.insert(APPEND, append_id);
            }
            let summary = (i == last).then(|| a.meta.summary.clone()).flatten();
            if summary.is_some() {
                headers.insert(SUMMARY, bytes_header(&inner.codec.encode_meta(&a.meta)));
            }
            let payload = inner
                .codec
                .encode_event(r, &a.meta.epoch, a.meta.updated_ms);
            messages.push(OutboundMessage {
                subject: subject.clone().into(),
                payload: Bytes::from(payload),
                headers: Some(headers),
            });
            session_stored.push(Stored {
                seq: 0,
                offset: r.offset,
                epoch: a.meta.epoch.clone(),
                created_ms: a.meta.created_ms,
                updated_ms: a.meta.updated_ms,
                calls: a.meta.calls,
                title: a.meta.title.clone(),
                cwd: a.meta.cwd.clone(),
                summary,
                event: r.event.clone(),
            });
        }
        stored.push(session_stored);
    }
    (messages, stored)
}

/// The headers every message of a session's append carries: its offset and the session's
/// metadata after the append.
fn headers(meta: &SessionMeta, offset: u64) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(OFFSET, offset.to_string());
    headers.insert(EPOCH, meta.epoch.to_string());
    headers.insert(CREATED, meta.created_ms.to_string());
    headers.insert(UPDATED, meta.updated_ms.to_string());
    headers.insert(CALLS, meta.calls.to_string());
    if !meta.title.is_empty() {
        headers.insert(TITLE, text_header(&meta.title));
    }
    if !meta.cwd.is_empty() {
        headers.insert(CWD, text_header(&meta.cwd));
    }
    headers
}

/// Publishes the messages; the stream sequence of the last.
async fn publish(
    inner: &Inner,
    batch: &[SessionAppend],
    messages: &[OutboundMessage],
    expected_first: u64,
    append_id: &str,
) -> Result<u64, StoreError> {
    let published = if let [one] = messages {
        // The dedup id names this append, not its offset: another writer's append at the same
        // offset must meet the compare-and-set (and fail), never be taken for a repeat of ours.
        let id = format!("{}/{append_id}", batch[0].records[0].offset);
        publish_one(inner, one, &id).await
    } else {
        publish_batch(inner, messages).await
    };
    match published {
        Ok(seq) => Ok(seq),
        // An attempt whose answer was lost may have been stored: then the repeat meets the
        // compare-and-set, and the append is ours, not a conflict (its events are new, not
        // duplicates).
        Err(Failure::Conflict { unsure: true }) => {
            let subject = inner.subject(&batch[0].session);
            match inner.landed(&subject, expected_first, append_id).await? {
                Some(first) => Ok(first + messages.len() as u64 - 1),
                None => Err(conflict(&batch[0].session, "another writer appended first")),
            }
        }
        Err(Failure::Conflict { unsure: false }) => {
            Err(conflict(&batch[0].session, "another writer appended first"))
        }
        Err(Failure::Other(e)) => Err(StoreError::Storage(format!("NATS: append: {e}"))),
    }
}

/// Records what was stored (from stream sequence `seq` on) in the sessions' indexes, trims the
/// logs asked to be trimmed, and gives each session's new tail.
async fn record(
    inner: &Inner,
    batch: &[SessionAppend],
    stored: Vec<Vec<Stored>>,
    mut seq: u64,
) -> Vec<Tail> {
    let mut tails = Vec::with_capacity(batch.len());
    for (a, mut session_stored) in batch.iter().zip(stored) {
        for s in &mut session_stored {
            s.seq = seq;
            seq += 1;
        }
        let last = session_stored.last().expect("appends carry records");
        tails.push(Tail {
            offset: last.offset,
            seq: last.seq,
            epoch: Some(a.meta.epoch.clone()),
        });
        inner.record(&a.session, &session_stored).await;
        // The append is stored: a failed trim is only logged (the stream's own limit bounds
        // the log anyway).
        if let Some(before) = a.trim_before
            && let Err(e) = inner.trim(&a.session, before).await
        {
            tracing::warn!(session = %a.session, error = %e, "trimming failed");
        }
    }
    tails
}

impl Inner {
    /// Where a session's log ends, for an append computed from `offset` of `epoch`: from the
    /// index when it agrees, else from the stream leader.
    async fn tail_of(
        &self,
        session: &SessionId,
        offset: u64,
        epoch: &Epoch,
    ) -> Result<Tail, StoreError> {
        if let Some(slot) = self.existing_slot(session) {
            let index = slot.lock().await;
            if let Some(ix) = index.as_ref()
                && ix.epoch() == epoch
                && ix.head() == offset
            {
                let (offset, seq) = ix.tail();
                return Ok(Tail {
                    offset,
                    seq,
                    epoch: Some(epoch.clone()),
                });
            }
        }
        Ok(match self.last(&self.subject(session)).await? {
            Some(last) => Tail {
                offset: last.offset,
                seq: last.seq,
                epoch: Some(last.epoch),
            },
            None => Tail {
                offset: 0,
                seq: 0,
                epoch: None,
            },
        })
    }

    /// The stream sequence at which append `id` was stored after stream sequence `expected`
    /// of `subject` (read from the leader), or `None` when another writer's message is there.
    async fn landed(
        &self,
        subject: &str,
        expected: u64,
        id: &str,
    ) -> Result<Option<u64>, StoreError> {
        use async_nats::jetstream::stream::LastRawMessageErrorKind;
        let next = self
            .stream
            .raw_message_builder()
            .sequence(expected + 1)
            .next_by_subject(subject.to_owned())
            .send()
            .await;
        match next {
            Ok(m) => {
                Ok((m.headers.get(APPEND).map(|v| v.as_str()) == Some(id)).then_some(m.sequence))
            }
            Err(e) if e.kind() == LastRawMessageErrorKind::NoMessageFound => Ok(None),
            Err(e) => Err(StoreError::Storage(format!(
                "NATS: checking an append to {subject}: {e}"
            ))),
        }
    }

    /// Adds what this replica appended to its index (a new log starts one).
    async fn record(&self, session: &SessionId, stored: &[Stored]) {
        let slot = self.slot(session);
        let mut index = slot.lock().await;
        let Some(first) = stored.first() else { return };
        match index.as_mut() {
            Some(ix) if ix.epoch() == &first.epoch => {
                if stored.iter().any(|s| ix.apply(s).is_err()) {
                    *index = None;
                }
            }
            _ if first.offset == 1 => {
                let mut ix = Index::new(first, self.options.max_events_per_session);
                let whole = stored[1..].iter().all(|s| ix.apply(s).is_ok());
                *index = whole.then_some(ix);
            }
            _ => *index = None,
        }
    }
}

impl Inner {
    /// Retention asked for by the session layer: events before `before` go. The stream's
    /// per-subject limit is the same, so this is normally done already and costs nothing; a
    /// purge runs only when the index still holds older events.
    async fn trim(&self, session: &SessionId, before: u64) -> Result<(), StoreError> {
        let Some(slot) = self.existing_slot(session) else {
            return Ok(());
        };
        let mut index = slot.lock().await;
        let Some(ix) = index.as_mut() else {
            return Ok(());
        };
        if ix.meta().first_offset >= before {
            return Ok(());
        }
        let Some(seq) = ix.seq_of(before) else {
            return Ok(());
        };
        self.stream
            .purge()
            .filter(self.subject(session))
            .sequence(seq)
            .await
            .map_err(|e| StoreError::Storage(format!("NATS: trimming {session}: {e}")))?;
        ix.trim_before(before);
        Ok(())
    }
}

enum Failure {
    /// The compare-and-set failed; `unsure` when an earlier attempt got no answer (it may be
    /// what the log moved on by).
    Conflict {
        unsure: bool,
    },
    Other(String),
}

/// Whether an error is JetStream's "wrong last sequence".
fn is_conflict(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = Some(e);
    while let Some(e) = source {
        if let Some(js) = e.downcast_ref::<async_nats::jetstream::Error>()
            && WRONG_LAST_SEQUENCE.contains(&js.error_code().0)
        {
            return true;
        }
        source = e.source();
    }
    false
}

/// Whether the fail point `jetstream-ack-lost` drops this answer (never without the
/// `failpoints` feature, where the macro is nothing).
fn ack_lost() -> bool {
    fail::fail_point!("jetstream-ack-lost", |_| true);
    false
}

/// Retries `attempt` while it fails with anything but a conflict, for [`PUBLISH_PATIENCE`].
async fn patiently<T, E, F, Fut>(mut attempt: F) -> Result<T, Failure>
where
    E: std::error::Error + 'static,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let deadline = tokio::time::Instant::now() + PUBLISH_PATIENCE;
    let mut wait = RETRY_FIRST_WAIT;
    let mut unsure = false;
    loop {
        // An attempt sent to a leader that died gets no answer at all: waiting out the
        // client's request timeout would add seconds to the election.
        let Ok(outcome) = tokio::time::timeout(ATTEMPT_TIMEOUT, attempt()).await else {
            if tokio::time::Instant::now() + wait > deadline {
                return Err(Failure::Other(format!(
                    "no answer within {} s",
                    PUBLISH_PATIENCE.as_secs()
                )));
            }
            unsure = true;
            tracing::debug!("append not answered; sending it again");
            continue;
        };
        // Tests: the server stored the append, but its answer is lost on the way back.
        let lost = outcome.is_ok() && ack_lost();
        match outcome {
            Ok(_) if lost => {
                unsure = true;
                tracing::debug!("append's answer lost (fail point); sending it again");
                tokio::time::sleep(wait).await;
            }
            Ok(v) => return Ok(v),
            Err(e) if is_conflict(&e) => return Err(Failure::Conflict { unsure }),
            Err(e) if tokio::time::Instant::now() + wait > deadline => {
                return Err(Failure::Other(e.to_string()));
            }
            Err(e) => {
                unsure = true;
                tracing::debug!(error = %e, "append not acknowledged; sending it again");
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(RETRY_MAX_WAIT);
            }
        }
    }
}

/// One message, one publish; its stream sequence.
async fn publish_one(inner: &Inner, message: &OutboundMessage, id: &str) -> Result<u64, Failure> {
    patiently(|| async {
        let publish = PublishMessage::build()
            .payload(message.payload.clone())
            .headers(message.headers.clone().unwrap_or_default())
            .message_id(id);
        let ack = inner
            .js
            .send_publish(message.subject.clone(), publish)
            .await?
            .await?;
        Ok::<_, async_nats::jetstream::context::PublishError>(ack.sequence)
    })
    .await
}

/// Several messages as one atomic batch; the stream sequence of the last.
async fn publish_batch(inner: &Inner, messages: &[OutboundMessage]) -> Result<u64, Failure> {
    let clone = |m: &OutboundMessage| OutboundMessage {
        subject: m.subject.clone(),
        payload: m.payload.clone(),
        headers: m.headers.clone(),
    };
    patiently(|| async {
        let (last, rest) = messages.split_last().expect("a batch has messages");
        // The server caps atomic batches in flight (50 per stream): take a turn.
        let _turn = inner.batches.acquire().await;
        // No ack for the first message: the commit's answer says whether the batch was stored,
        // and waiting for the first would cost a round trip per batch.
        let mut batch = inner
            .js
            .batch_publish()
            .ack_first(false)
            .timeout(REQUEST_TIMEOUT)
            .build();
        for m in rest {
            batch.add_message(clone(m)).await?;
        }
        let ack = batch.commit_message(clone(last)).await?;
        Ok::<_, jetstream_extra::batch_publish::BatchPublishError>(ack.sequence)
    })
    .await
}
