//! The replica's feed: the appends of the sessions this replica holds, whoever made them, reported
//! to the session layer. The stream republishes each stored message's headers to a core NATS
//! subject of its session (`<prefix>-live.<session>`, the stream's RePublish), and the replica
//! subscribes to the subjects of the sessions it has in memory — the session layer says which
//! ([`Feed::interest`](crate::store::Feed::interest)) — so NATS routes it those appends and no
//! other: a replica's feed costs O(its own sessions' events), not O(the cluster's).
//!
//! Core NATS delivers at most once, so nothing here trusts it alone:
//! - **Joining**: the session layer reads a session's state only once its subscription is in
//!   place at the server (made, then a flush; [`Feed::following`](crate::store::Feed::following)
//!   waits for it), so an append lands before that read (and is in it) or after the subscription
//!   (and is delivered). A report is only "the head is now here", so one seen twice changes
//!   nothing.
//! - **Losing messages** (a reconnect, a slow consumer): every subscribed session's last message
//!   is read again and reported.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::stream::{AbortHandle, Abortable, SelectAll};
use tokio::sync::mpsc;
use tokio_stream::StreamExt as _;

use super::headers::{EPOCH, OFFSET};
use super::{Inner, subject};
use crate::domain::{Epoch, SessionId};
use crate::store::{Change, StoreError};

/// Last-message reads one catch-up has in flight (each is a round trip to the stream leader).
const CATCH_UP_READS: usize = 32;
/// After a failed subscribe (the servers are away), wait this long before trying again.
const RETRY_WAIT: Duration = Duration::from_secs(1);

/// How long a session's first read waits for its subscription at most: a feed that cannot
/// subscribe now (NATS away) reads every held session again once it can.
const FOLLOWING_PATIENCE: Duration = Duration::from_secs(2);

/// What the session layer holds, as it said: each session's latest wish, drained by the feed.
#[derive(Default)]
pub(super) struct Interest {
    wishes: parking_lot::Mutex<Wishes>,
    changed: tokio::sync::Notify,
    /// The last wish whose subscription is in place at the server (see `Wishes::seq`).
    done: tokio::sync::watch::Sender<u64>,
    /// Set when republished messages may have been lost (a reconnect, a slow consumer).
    lost: tokio::sync::Notify,
    /// Whether every session's appends are wanted (a fleet watch), not only the held ones'.
    everything: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
struct Wishes {
    latest: HashMap<SessionId, bool>,
    /// Counts wishes: the feed takes them all with this count, and says it is done with them.
    seq: u64,
}

impl Interest {
    /// Records that the session layer holds `session` (or no longer does).
    pub(super) fn set(&self, session: &SessionId, wanted: bool) {
        let mut wishes = self.wishes.lock();
        wishes.latest.insert(session.clone(), wanted);
        wishes.seq += 1;
        drop(wishes);
        self.changed.notify_one();
    }

    /// Returns once every wish made so far is in place (bounded by [`FOLLOWING_PATIENCE`]).
    pub(super) async fn settled(&self) {
        let upto = self.wishes.lock().seq;
        let mut done = self.done.subscribe();
        let _ = tokio::time::timeout(FOLLOWING_PATIENCE, done.wait_for(|d| *d >= upto)).await;
    }

    /// Records whether every session's appends are wanted (see `Feed::all_sessions`).
    pub(super) fn all_sessions(&self, wanted: bool) {
        self.everything
            .store(wanted, std::sync::atomic::Ordering::SeqCst);
        self.changed.notify_one();
    }

    /// Says that republished messages may have been lost: every session is read again.
    pub(super) fn lost(&self) {
        self.lost.notify_one();
    }

    fn take(&self) -> (HashMap<SessionId, bool>, u64) {
        let mut wishes = self.wishes.lock();
        (std::mem::take(&mut wishes.latest), wishes.seq)
    }
}

/// Starts the feed; the task ends when the session layer drops its end of `changes`, or when the
/// store closes (it is aborted then).
pub(super) fn follow(
    inner: Arc<Inner>,
    changes: mpsc::Sender<Change>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if let Err(panic) = AssertUnwindSafe(run(inner, changes)).catch_unwind().await {
            // Logged by from_panic; replicas stop learning of others' appends, so say so.
            let _ = StoreError::from_panic(panic, "the JetStream feed");
            tracing::error!("the JetStream feed stopped: live updates from other replicas stop");
        }
    })
}

type Live = Abortable<async_nats::Subscriber>;

/// The subscriptions of the sessions held, and the messages of all of them.
struct Feed {
    inner: Arc<Inner>,
    changes: mpsc::Sender<Change>,
    held: HashMap<SessionId, AbortHandle>,
    /// The subscription to every session's appends, while a fleet watch wants them.
    everything: Option<AbortHandle>,
    /// Polls only the subscriptions that have a message (a `FuturesUnordered` inside).
    messages: SelectAll<Live>,
}

async fn run(inner: Arc<Inner>, changes: mpsc::Sender<Change>) {
    let mut feed = Feed {
        inner: inner.clone(),
        changes,
        held: HashMap::new(),
        everything: None,
        messages: SelectAll::new(),
    };
    loop {
        tokio::select! {
            () = inner.interest.changed.notified() => {
                let (wishes, seq) = inner.interest.take();
                feed.apply(wishes).await;
                let everything = inner.interest.everything.load(std::sync::atomic::Ordering::SeqCst);
                feed.follow_everything(everything).await;
                inner.interest.done.send_replace(seq);
            }
            () = inner.interest.lost.notified() => {
                let all: Vec<SessionId> = feed.held.keys().cloned().collect();
                if !feed.catch_up(all).await {
                    return;
                }
            }
            Some(message) = feed.messages.next(), if !feed.messages.is_empty() => {
                if let Some(change) = inner.observe(&message)
                    && feed.changes.send(change).await.is_err()
                {
                    return;
                }
            }
        }
        if feed.changes.is_closed() {
            return;
        }
    }
}

impl Feed {
    /// Subscribes to the sessions newly held and drops the others; the new subscriptions are in
    /// place at the server when it returns (unless NATS is away: then a reconnect reads every
    /// held session again).
    async fn apply(&mut self, wishes: HashMap<SessionId, bool>) {
        let mut joined = false;
        for (session, wanted) in wishes {
            match (wanted, self.held.contains_key(&session)) {
                (true, false) => {
                    let subject = subject::live(&self.inner.options.subject_prefix, &session);
                    let subscriber = loop {
                        match self.inner.client.subscribe(subject.clone()).await {
                            Ok(s) => break s,
                            Err(e) => {
                                tracing::warn!(error = %e, %subject, "cannot subscribe; trying again");
                                tokio::time::sleep(RETRY_WAIT).await;
                            }
                        }
                    };
                    let (handle, registration) = AbortHandle::new_pair();
                    self.messages.push(Abortable::new(subscriber, registration));
                    self.held.insert(session, handle);
                    joined = true;
                }
                (false, true) => {
                    // The subscription ends at its next poll, and unsubscribes when dropped.
                    if let Some(handle) = self.held.remove(&session) {
                        handle.abort();
                    }
                }
                (true, true) | (false, false) => {}
            }
        }
        if joined && let Err(e) = self.inner.client.flush().await {
            tracing::warn!(error = %e, "flushing new subscriptions");
        }
    }

    /// Subscribes to every session's appends, or drops that subscription. A held session's
    /// appends then come twice (its own subscription's and this one's): a report is only "the
    /// head is now here", so the second changes nothing.
    async fn follow_everything(&mut self, wanted: bool) {
        match (wanted, self.everything.is_some()) {
            (true, false) => {
                let subject = subject::live_all(&self.inner.options.subject_prefix);
                match self.inner.client.subscribe(subject.clone()).await {
                    Ok(subscriber) => {
                        let (handle, registration) = AbortHandle::new_pair();
                        self.messages.push(Abortable::new(subscriber, registration));
                        self.everything = Some(handle);
                    }
                    Err(e) => tracing::warn!(error = %e, %subject, "cannot follow every session"),
                }
            }
            (false, true) => {
                if let Some(handle) = self.everything.take() {
                    handle.abort();
                }
            }
            (true, true) | (false, false) => {}
        }
    }

    /// Reports the last stored message of each session (read from the stream leader); false
    /// when the session layer is gone.
    async fn catch_up(&self, sessions: Vec<SessionId>) -> bool {
        let prefix = &self.inner.options.subject_prefix;
        let reads = futures_util::StreamExt::buffer_unordered(
            futures_util::stream::iter(sessions.into_iter().map(|session| async move {
                let last = self.inner.last(&subject::subject(prefix, &session)).await;
                (session, last)
            })),
            CATCH_UP_READS,
        );
        tokio::pin!(reads);
        while let Some((session, last)) = reads.next().await {
            let stored = match last {
                Ok(Some(stored)) => stored,
                // No log yet: its first append will be delivered.
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(%session, error = %e, "cannot read a session's last message");
                    continue;
                }
            };
            let change = Change {
                session,
                epoch: stored.epoch,
                head: stored.offset,
                first: None,
            };
            if self.changes.send(change).await.is_err() {
                return false;
            }
        }
        true
    }
}

impl Inner {
    /// What a republished message says changed. Every message is reported, this replica's own
    /// too: the session layer moves a head only forward, and a session's index may have read the
    /// message already (a read catches up to the stream's end) without its head knowing —
    /// skipping those left subscribers waiting for a head that had moved.
    fn observe(&self, message: &async_nats::Message) -> Option<Change> {
        let session = subject::live_session(&self.options.subject_prefix, &message.subject)?;
        let header = |name: &str| message.headers.as_ref()?.get(name).map(|v| v.as_str());
        let (Some(offset), Some(epoch)) = (
            header(OFFSET).and_then(|o| o.parse::<u64>().ok()),
            header(EPOCH).and_then(|e| Epoch::new(e).ok()),
        ) else {
            tracing::warn!(subject = %message.subject, "a message in the stream without toolview's headers");
            return None;
        };
        Some(Change {
            session,
            epoch,
            head: offset,
            first: None,
        })
    }
}
