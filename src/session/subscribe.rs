//! A subscription: replay from the log, then live, through shared lanes; resume by cursor,
//! resets, heartbeats, back-pressure and the lag limit. Each subscription is one task that
//! ends when the client goes away, the server shuts down, or the subscriber lags too far.

use std::collections::VecDeque;
use std::future::Future as _;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context as TaskContext, Poll};

use futures_util::FutureExt as _;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_stream::Stream;

use prometheus_client::metrics::counter::Counter;

use super::lane::{Delivered, Lane, LaneJoin, LaneMetrics, LaneRead};
use super::{Entry, Head, SessionError, Sessions};
use crate::domain::{Cursor, Epoch, SessionId};
use crate::metrics::{
    EndLabels, EndReason, ResetLabels, ResetReason, StartKind, StartLabels, TargetLabels,
};
use crate::render::{Capabilities, Target};
use crate::store::StoreError;

/// Updates read from a lane per step…
const BATCH: usize = 64;
/// …and about this many bytes of them (at least one update). With `BUFFER` batches queued and
/// one update being encoded, a subscriber that stops reading pins about
/// `BUFFER × BATCH_BYTES` plus two updates, whatever the sizes of the updates.
const BATCH_BYTES: usize = 256 * 1024;
/// Batches (each up to `BATCH` items) buffered per subscriber; beyond this the subscriber
/// waits (and falls back to the log). Handing over batches, not items, costs one wake-up of
/// the response stream per lane read instead of one per update.
const BUFFER: usize = 2;
/// Cache of a private catch-up lane, in updates and bytes.
const PRIVATE_CACHE: usize = 256;
const PRIVATE_CACHE_BYTES: usize = 4 * 1024 * 1024;
/// A store that cannot be read now (a NATS leader election, a lost connection) pauses a
/// subscription rather than ending it: it reads again after this long, doubling up to
/// [`PAUSE_MAX`]. The subscriber keeps its stream (heartbeats go on) and misses nothing.
const PAUSE_FIRST: std::time::Duration = std::time::Duration::from_millis(100);
const PAUSE_MAX: std::time::Duration = std::time::Duration::from_secs(1);

/// Where a subscription starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    FromBeginning,
    /// Resume after this cursor.
    After(Cursor),
    LiveOnly,
}

/// One stream item.
#[derive(Debug, Clone)]
pub enum SubscribeItem {
    /// An update and its position.
    Update {
        delivered: Arc<Delivered>,
        cursor: Cursor,
    },
    Heartbeat {
        head: u64,
    },
    /// The start point was unusable: updates continue from the start of what is kept.
    Reset {
        epoch: Epoch,
        head: u64,
    },
}

/// The stream of a subscription: items, then the error that ended it, if any.
pub struct Subscription {
    items: mpsc::Receiver<Vec<SubscribeItem>>,
    /// The rest of the batch being yielded.
    ready: VecDeque<SubscribeItem>,
    end: Option<oneshot::Receiver<SessionError>>,
}

impl Stream for Subscription {
    type Item = Result<SubscribeItem, SessionError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Poll::Ready(Some(Ok(item)));
            }
            match self.items.poll_recv(cx) {
                Poll::Ready(Some(batch)) => self.ready = batch.into(),
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => break,
            }
        }
        let Some(end) = self.end.as_mut() else {
            return Poll::Ready(None);
        };
        match Pin::new(end).poll(cx) {
            Poll::Ready(result) => {
                self.end = None;
                Poll::Ready(result.ok().map(Err))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// What became of one send.
enum Sent {
    Ok,
    Stop,
    Lagging(u64),
}

impl Sessions {
    /// Subscribes to a session (which need not exist yet).
    pub fn subscribe(
        self: &Arc<Self>,
        session: &SessionId,
        target: Target,
        caps: Capabilities,
        start: Start,
    ) -> Subscription {
        // Lanes are keyed by normalized capabilities: a few output cap classes, never none.
        let ceiling = self.config.max_output_bytes;
        let caps = if ceiling > 0 {
            caps.normalized(ceiling)
        } else {
            caps
        };
        let (tx, items) = mpsc::channel(BUFFER);
        let (end_tx, end) = oneshot::channel();
        let metrics = self.metrics().clone();
        let start_kind = match start {
            Start::FromBeginning => StartKind::from_beginning,
            Start::After(_) => StartKind::after_cursor,
            Start::LiveOnly => StartKind::live_only,
        };
        metrics
            .subscribe_starts
            .get_or_create(&StartLabels { start: start_kind })
            .inc();
        let by_target = TargetLabels {
            target: target.name(),
        };
        let subscribers = metrics.subscribers.get_or_create_owned(&by_target);
        subscribers.inc();
        let task = Task {
            sent: metrics.updates_sent.get_or_create_owned(&by_target),
            caught_up: false,
            sessions: self.clone(),
            entry: self.entry(session),
            target,
            caps,
            tx,
            shared: None,
            private: None,
            last_sent: Instant::now(),
        };
        let sessions = self.clone();
        tokio::spawn(async move {
            // A panic ends the client's stream with INTERNAL (and is logged), never as if the
            // stream had ended cleanly.
            let result = match AssertUnwindSafe(task.run(start)).catch_unwind().await {
                Ok(result) => result,
                Err(panic) => Err(StoreError::from_panic(panic, "a subscription").into()),
            };
            subscribers.dec();
            let reason = match &result {
                Ok(()) if *sessions.shutdown.borrow() => EndReason::shutdown,
                Ok(()) => EndReason::client_gone,
                Err(SessionError::Lagging { .. }) => EndReason::lagging,
                Err(_) => EndReason::error,
            };
            metrics
                .subscriber_ends
                .get_or_create(&EndLabels { reason })
                .inc();
            if let Err(error) = result {
                let _ = end_tx.send(error);
            }
        });
        Subscription {
            items,
            ready: VecDeque::new(),
            end: Some(end),
        }
    }

    /// The shared lane for (target, capabilities), created on first use. The session keeps
    /// only weak references: a lane lives while subscribers hold it, so a session nobody
    /// watches keeps no fold and no cache.
    fn shared_lane(
        &self,
        entry: &Entry,
        target: Target,
        caps: Capabilities,
        first: u64,
    ) -> Arc<Lane> {
        let mut lanes = entry.lanes.lock();
        if let Some(lane) = lanes.get(&(target, caps)).and_then(Weak::upgrade) {
            return lane;
        }
        let c = &self.config;
        let lane = Arc::new(Lane::new(
            entry.id.clone(),
            target,
            caps,
            first,
            (c.lane_cache, c.lane_cache_bytes),
            c.max_update_bytes,
            self.lane_metrics(),
        ));
        lanes.retain(|_, l| l.strong_count() > 0);
        lanes.insert((target, caps), Arc::downgrade(&lane));
        lane
    }

    fn lane_metrics(&self) -> LaneMetrics {
        let m = self.metrics();
        LaneMetrics {
            cache_bytes: m.lane_cache_bytes.clone(),
            render_seconds: m.render_seconds.clone(),
        }
    }

    fn count_reset(&self, reason: ResetReason) {
        self.metrics()
            .resets
            .get_or_create(&ResetLabels { reason })
            .inc();
    }
}

struct Task {
    sessions: Arc<Sessions>,
    entry: Arc<Entry>,
    target: Target,
    caps: Capabilities,
    tx: mpsc::Sender<Vec<SubscribeItem>>,
    /// The shared lane this subscriber reads (held, so it stays alive while in use).
    shared: Option<Arc<Lane>>,
    /// A catch-up lane while this subscriber is behind the shared lane's cache. Boxed: a
    /// `Lane` is nearly 900 bytes, which every idle subscription's task would carry (twice,
    /// in the spawned future's layout) for a lane it rarely has.
    private: Option<Box<Lane>>,
    /// When the last item went out: heartbeats are for streams idle this long.
    last_sent: Instant,
    /// Updates sent, for this subscriber's target.
    sent: Counter,
    /// Whether the subscriber waited at the head: its next updates are live, and their
    /// delivery lag is measured.
    caught_up: bool,
}

impl Task {
    async fn run(mut self, start: Start) -> Result<(), SessionError> {
        fail::fail_point!("subscription");
        {
            let mut state = self.entry.state.lock().await;
            self.sessions.ensure_loaded(&self.entry, &mut state).await?;
        }
        let mut head_rx = self.entry.head.subscribe();
        let mut shutdown = self.sessions.shutdown.subscribe();
        if let Start::After(c) = &start {
            self.catch_up_to(c).await?;
        }
        let h = head_rx.borrow_and_update().clone();

        // `pos` is the last offset delivered; `epoch` the log it belongs to (none yet while the
        // session has no log).
        let (mut pos, mut epoch) = match (start, &h.epoch) {
            (Start::FromBeginning, _) => (h.first.saturating_sub(1), h.epoch.clone()),
            (Start::LiveOnly, Some(current)) if h.head >= h.first => {
                match self.join_live(&h, current, &head_rx, &mut shutdown).await? {
                    Some(at) => (at, h.epoch.clone()),
                    None => return Ok(()),
                }
            }
            (Start::LiveOnly, _) => (h.head, h.epoch.clone()),
            (Start::After(c), None) => (c.offset, Some(c.epoch)),
            (Start::After(c), Some(current)) => {
                if c.epoch != *current || c.offset + 1 < h.first || c.offset > h.head {
                    let reset = SubscribeItem::Reset {
                        epoch: current.clone(),
                        head: h.head,
                    };
                    self.sessions.count_reset(ResetReason::stale_cursor);
                    if self.send(vec![reset], &head_rx, &mut shutdown, 0).await? {
                        return Ok(());
                    }
                    (h.first.saturating_sub(1), h.epoch.clone())
                } else {
                    (c.offset, Some(c.epoch))
                }
            }
        };

        // One timer for the life of the subscription (not one per wait): it is re-armed only
        // when it fires.
        let interval = self.sessions.config.heartbeat_interval;
        let heartbeat = tokio::time::sleep(interval);
        tokio::pin!(heartbeat);
        let mut pause = PAUSE_FIRST;
        loop {
            if *shutdown.borrow() {
                return Ok(());
            }
            let h = head_rx.borrow_and_update().clone();
            let Some(current) = h.epoch.clone() else {
                // No log yet: wait for the session's first events.
                if self
                    .wait(&h, pos, &mut head_rx, &mut shutdown, heartbeat.as_mut())
                    .await?
                {
                    return Ok(());
                }
                continue;
            };
            if epoch.as_ref() != Some(&current) {
                // Lost, reset or expired and recreated: the client rebuilds its cards. For the
                // session's first events there is nothing to rebuild: adopt its log.
                if epoch.is_some()
                    && self
                        .reset(ResetReason::new_log, &current, &h, &head_rx, &mut shutdown)
                        .await?
                {
                    return Ok(());
                }
                epoch = Some(current);
                pos = h.first.saturating_sub(1);
                continue;
            }
            if h.head <= pos {
                self.caught_up = true;
                if self
                    .wait(&h, pos, &mut head_rx, &mut shutdown, heartbeat.as_mut())
                    .await?
                {
                    return Ok(());
                }
                continue;
            }
            // No lag check here: a subscriber that is reading may be as far behind as it likes
            // (it catches up from the log); only one that stops reading is ended, in `send`.
            let read = match self.read(&h, pos).await {
                Ok(read) => {
                    pause = PAUSE_FIRST;
                    read
                }
                Err(SessionError::Store(StoreError::Storage(why))) => {
                    if pause == PAUSE_FIRST {
                        tracing::warn!(session = %self.entry.id, error = %why, "the store cannot be read now; the subscription pauses");
                    }
                    if self.pause(&h, pos, pause, &head_rx, &mut shutdown).await? {
                        return Ok(());
                    }
                    pause = (pause * 2).min(PAUSE_MAX);
                    continue;
                }
                Err(e) => return Err(e),
            };
            match read {
                LaneRead::Updates(updates) => {
                    let Some(last) = updates.last().map(|d| d.offset) else {
                        // Durable but not readable yet (cannot happen with ordered stores);
                        // do not spin.
                        tokio::task::yield_now().await;
                        continue;
                    };
                    let batch = updates
                        .into_iter()
                        .map(|delivered| SubscribeItem::Update {
                            cursor: Cursor {
                                offset: delivered.offset,
                                epoch: current.clone(),
                            },
                            delivered,
                        })
                        .collect::<Vec<_>>();
                    self.sent.inc_by(batch.len() as u64);
                    if std::mem::take(&mut self.caught_up) {
                        let lag = self.sessions.since_head_moved(&self.entry);
                        self.sessions
                            .metrics()
                            .delivery_lag_seconds
                            .observe(lag.as_secs_f64());
                    }
                    if self.send(batch, &head_rx, &mut shutdown, pos).await? {
                        return Ok(());
                    }
                    pos = last;
                }
                LaneRead::TooOld => {
                    // Even a refold from the log's start cannot serve `pos`: it was trimmed.
                    if self
                        .reset(ResetReason::trimmed, &current, &h, &head_rx, &mut shutdown)
                        .await?
                    {
                        return Ok(());
                    }
                    pos = h.first.saturating_sub(1);
                }
                LaneRead::Reset { first } => {
                    let h = head_rx.borrow().clone();
                    if self
                        .reset(ResetReason::trimmed, &current, &h, &head_rx, &mut shutdown)
                        .await?
                    {
                        return Ok(());
                    }
                    // Resume where the lane found the log starting: the head's `first` can lag
                    // behind a trim (another replica's appends move only its `head`), and
                    // resuming before the log's start would reset again, forever.
                    pos = first.max(h.first).saturating_sub(1);
                }
            }
        }
    }

    /// A cursor past what this process knows of the log (handed over from another replica,
    /// whose appends this one has not heard of yet) is not stale: the head is read again from
    /// the store, so the cursor is judged against the log, not a lagging head.
    async fn catch_up_to(&self, c: &Cursor) -> Result<(), SessionError> {
        let h = self.entry.head.borrow().clone();
        if h.epoch.as_ref() == Some(&c.epoch) && c.offset <= h.head {
            return Ok(());
        }
        let Some(meta) = self.sessions.store.meta(&self.entry.id).await? else {
            return Ok(());
        };
        // Forward only, as the store's feed moves it (see `Sessions::apply_change`).
        let moved = self.entry.head.send_if_modified(|h| {
            let newer = h.epoch.as_ref() == Some(&meta.epoch) && meta.head_offset > h.head;
            if newer {
                h.head = meta.head_offset;
                h.first = h.first.max(meta.first_offset);
            }
            newer
        });
        if moved {
            self.sessions.head_moved(&self.entry);
        }
        Ok(())
    }

    /// Starts a live subscription on a session with a log: the shared lane's catch-up first
    /// (the calls in flight where it starts). Returns the offset it starts after; `None` when
    /// the subscription should stop.
    async fn join_live(
        &mut self,
        h: &Head,
        epoch: &Epoch,
        head_rx: &watch::Receiver<Head>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<Option<u64>, SessionError> {
        let lane = self
            .sessions
            .shared_lane(&self.entry, self.target, self.caps, h.first);
        self.shared = Some(lane.clone());
        match lane.join_live(&*self.sessions.store, h.head).await? {
            LaneJoin::At { at, updates } => {
                if !updates.is_empty() {
                    let batch: Vec<SubscribeItem> = updates
                        .into_iter()
                        .map(|delivered| SubscribeItem::Update {
                            cursor: Cursor {
                                offset: at,
                                epoch: epoch.clone(),
                            },
                            delivered,
                        })
                        .collect();
                    self.sent.inc_by(batch.len() as u64);
                    if self.send(batch, head_rx, shutdown, at).await? {
                        return Ok(None);
                    }
                }
                Ok(Some(at))
            }
            // Trimmed under us: the main loop finds the log's start and resets.
            LaneJoin::Reset => Ok(Some(h.head)),
        }
    }

    /// Reads the next updates: from the shared lane when it still caches `pos`, else from a
    /// private lane that refolds the log (created on demand, dropped once caught up).
    async fn read(&mut self, h: &Head, pos: u64) -> Result<LaneRead, SessionError> {
        let store = &*self.sessions.store;
        let shared = match &self.shared {
            Some(lane) => lane.clone(),
            None => {
                let lane = self
                    .sessions
                    .shared_lane(&self.entry, self.target, self.caps, h.first);
                self.shared = Some(lane.clone());
                lane
            }
        };
        match shared
            .read(store, pos, h.head, (BATCH, BATCH_BYTES))
            .await?
        {
            LaneRead::TooOld => {}
            other => {
                self.private = None;
                return Ok(other);
            }
        }
        let private = self.private.get_or_insert_with(|| {
            Box::new(Lane::new(
                self.entry.id.clone(),
                self.target,
                self.caps,
                h.first,
                (PRIVATE_CACHE, PRIVATE_CACHE_BYTES),
                self.sessions.config.max_update_bytes,
                self.sessions.lane_metrics(),
            ))
        });
        let read = private
            .read(store, pos, h.head, (BATCH, BATCH_BYTES))
            .await?;
        if !matches!(read, LaneRead::Updates(_)) {
            self.private = None;
        }
        Ok(read)
    }

    /// Waits for the head to move, sending a heartbeat when the stream has been idle for the
    /// interval; `true` when the subscription should stop.
    async fn wait(
        &mut self,
        h: &Head,
        pos: u64,
        head_rx: &mut watch::Receiver<Head>,
        shutdown: &mut watch::Receiver<bool>,
        mut heartbeat: Pin<&mut tokio::time::Sleep>,
    ) -> Result<bool, SessionError> {
        let interval = self.sessions.config.heartbeat_interval;
        tokio::select! {
            changed = head_rx.changed() => return Ok(changed.is_err()),
            () = heartbeat.as_mut() => {
                let due = self.last_sent + interval;
                if Instant::now() >= due {
                    let item = SubscribeItem::Heartbeat { head: h.head };
                    if self.send(vec![item], head_rx, shutdown, pos).await? {
                        return Ok(true);
                    }
                    heartbeat.as_mut().reset(Instant::now() + interval);
                } else {
                    heartbeat.as_mut().reset(due);
                }
            }
            _ = shutdown.changed() => return Ok(true),
            _ = self.tx.closed() => return Ok(true),
        }
        Ok(false)
    }

    /// Waits `delay` before the store is read again (see [`PAUSE_FIRST`]), sending heartbeats
    /// as an idle stream gets them; `true` when the subscription should stop.
    async fn pause(
        &mut self,
        h: &Head,
        pos: u64,
        delay: std::time::Duration,
        head_rx: &watch::Receiver<Head>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<bool, SessionError> {
        let until = Instant::now() + delay;
        let interval = self.sessions.config.heartbeat_interval;
        loop {
            let due = self.last_sent + interval;
            tokio::select! {
                () = tokio::time::sleep_until(until) => return Ok(false),
                () = tokio::time::sleep_until(due), if due < until => {
                    let item = SubscribeItem::Heartbeat { head: h.head };
                    if self.send(vec![item], head_rx, shutdown, pos).await? {
                        return Ok(true);
                    }
                }
                _ = shutdown.changed() => return Ok(true),
                _ = self.tx.closed() => return Ok(true),
            }
        }
    }

    /// Sends a reset to the log of `epoch`; `true` when the subscription should stop.
    async fn reset(
        &mut self,
        reason: ResetReason,
        epoch: &Epoch,
        h: &Head,
        head_rx: &watch::Receiver<Head>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<bool, SessionError> {
        self.shared = None;
        self.private = None;
        self.sessions.count_reset(reason);
        let item = SubscribeItem::Reset {
            epoch: epoch.clone(),
            head: h.head,
        };
        self.send(vec![item], head_rx, shutdown, h.first.saturating_sub(1))
            .await
    }

    /// Sends a batch, waiting for buffer space; `true` when the subscription should stop
    /// (client gone or shutdown). While it waits, the lag limit is enforced.
    async fn send(
        &mut self,
        items: Vec<SubscribeItem>,
        head_rx: &watch::Receiver<Head>,
        shutdown: &mut watch::Receiver<bool>,
        pos: u64,
    ) -> Result<bool, SessionError> {
        self.last_sent = Instant::now();
        // The common case, with room in the buffer, needs no timer.
        let items = match self.tx.try_send(items) {
            Ok(()) => return Ok(false),
            Err(mpsc::error::TrySendError::Closed(_)) => return Ok(true),
            Err(mpsc::error::TrySendError::Full(items)) => items,
        };
        let reserve = self.tx.reserve();
        tokio::pin!(reserve);
        let limit = self.sessions.config.subscriber_lag_limit;
        let outcome = loop {
            tokio::select! {
                permit = &mut reserve => break match permit {
                    Ok(permit) => {
                        permit.send(items);
                        Sent::Ok
                    }
                    Err(_) => Sent::Stop,
                },
                _ = shutdown.changed() => break Sent::Stop,
                _ = tokio::time::sleep(self.sessions.config.lag_check_interval) => {
                    let lag = head_rx.borrow().head.saturating_sub(pos);
                    if lag > limit {
                        break Sent::Lagging(lag);
                    }
                }
            }
        };
        match outcome {
            Sent::Ok => Ok(false),
            Sent::Stop => Ok(true),
            Sent::Lagging(lag) => Err(SessionError::Lagging { lag, limit }),
        }
    }
}
