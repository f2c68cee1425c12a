//! One subscriber's task: where it starts (replay, resume by cursor, live), then read, send,
//! wait; resets, heartbeats, pauses while the store cannot be read, back-pressure and the lag
//! limit. Every step that may end the subscription returns a [`Flow`]: `?` carries the end out
//! of the loop, whether clean ([`Stop::Ended`]) or told to the client ([`Stop::Failed`]).

use std::convert::Infallible;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_channel::mpsc;
use futures_util::FutureExt as _;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;

use super::lane::{Bounds, Lane, LaneJoin, LaneRead};
use super::{Entry, Head, SessionError, Sessions, Start, SubscribeItem};
use crate::domain::{Cursor, Epoch};
use crate::metrics::{EndLabels, EndReason, ResetReason};
use crate::render::{Capabilities, Target};
use crate::store::StoreError;

/// Updates read from a lane per step, and about this many bytes of them (at least one update).
/// With `subscribe::BUFFER` batches queued and one update being encoded, a subscriber that stops
/// reading pins about `BUFFER × BATCH.bytes` plus two updates, whatever the sizes of the updates.
const BATCH: Bounds = Bounds {
    count: 1024,
    bytes: 256 * 1024,
};
/// Cache of a private catch-up lane, in updates and bytes.
const PRIVATE_CACHE: Bounds = Bounds {
    count: 1024,
    bytes: 4 * 1024 * 1024,
};

/// A store that cannot be read now (a NATS leader election, a lost connection) pauses a
/// subscription rather than ending it: it reads again after this long, doubling up to
/// [`PAUSE_MAX`]. The subscriber keeps its stream (heartbeats go on) and misses nothing.
const PAUSE_FIRST: Duration = Duration::from_millis(100);
const PAUSE_MAX: Duration = Duration::from_secs(1);

/// Why a subscription ends before its stream does.
pub(super) enum Stop {
    /// The client went away, or the server shuts down: the stream ends cleanly.
    Ended,
    /// The stream ends with this error.
    Failed(SessionError),
}

impl From<SessionError> for Stop {
    fn from(e: SessionError) -> Self {
        Stop::Failed(e)
    }
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Self {
        Stop::Failed(e.into())
    }
}

/// A step of a subscription: its result, or the end of the subscription.
type Flow<T = ()> = Result<T, Stop>;

pub(super) struct Task {
    pub(super) sessions: Arc<Sessions>,
    pub(super) entry: Arc<Entry>,
    pub(super) target: Target,
    pub(super) caps: Capabilities,
    pub(super) tx: mpsc::Sender<Vec<SubscribeItem>>,
    /// Where the error that ends the subscription goes; closed when the client's stream is
    /// dropped, which is how an idle subscription learns that its client went away.
    pub(super) end: oneshot::Sender<SessionError>,
    /// The live-subscriber gauge of this subscriber's target, decremented at the end.
    pub(super) subscribers: Gauge,
    /// The session's head: where its log ends, and which log it is.
    pub(super) head_rx: watch::Receiver<Head>,
    pub(super) shutdown: watch::Receiver<bool>,
    /// The shared lane this subscriber reads (held, so it stays alive while in use).
    pub(super) shared: Option<Arc<Lane>>,
    /// A catch-up lane while this subscriber is behind the shared lane's cache. Boxed: a
    /// `Lane` is nearly 900 bytes, which every idle subscription's task would carry (twice,
    /// in the spawned future's layout) for a lane it rarely has.
    pub(super) private: Option<Box<Lane>>,
    /// When the last item went out: heartbeats are for streams idle this long.
    pub(super) last_sent: Instant,
    /// Updates sent, for this subscriber's target.
    pub(super) sent: Counter,
    /// Whether the subscriber waited at the head: its next updates are live, and their
    /// delivery lag is measured.
    pub(super) caught_up: bool,
}

/// Where the subscriber is: the last offset delivered, in the log of `epoch` (none yet while
/// the session has no log).
struct Position {
    pos: u64,
    epoch: Option<Epoch>,
}

impl Task {
    /// Runs the subscription to its end, then counts how it ended and hands an error to the
    /// client's stream.
    ///
    /// The spawned future is as large as its largest state, and every idle subscriber keeps
    /// one, so: one future owns the task (an async block around it would lay the `Task` out a
    /// second time); `run` and `follow` return `async move` blocks, not `async fn`s (which keep
    /// each argument twice); and every await an idle subscription is not parked at is boxed.
    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn keeps its arguments twice"
    )]
    pub(super) fn run(mut self, start: Start) -> impl Future<Output = ()> + Send + 'static {
        async move {
            // A panic ends the client's stream with INTERNAL (and is logged), never as if the
            // stream had ended cleanly.
            let result = match AssertUnwindSafe(self.follow(start)).catch_unwind().await {
                Ok(Ok(never)) => match never {},
                Ok(Err(Stop::Ended)) => Ok(()),
                Ok(Err(Stop::Failed(e))) => Err(e),
                Err(panic) => Err(StoreError::from_panic(panic, "a subscription").into()),
            };
            self.subscribers.dec();
            let reason = match &result {
                Ok(()) if *self.shutdown.borrow() => EndReason::shutdown,
                Ok(()) => EndReason::client_gone,
                Err(SessionError::Lagging { .. }) => EndReason::lagging,
                Err(_) => EndReason::error,
            };
            self.sessions
                .metrics()
                .subscriber_ends
                .get_or_create(&EndLabels { reason })
                .inc();
            if let Err(error) = result {
                let _ = self.end.send(error);
            }
        }
    }

    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn keeps its arguments twice"
    )]
    fn follow(&mut self, start: Start) -> impl Future<Output = Flow<Infallible>> + Send + '_ {
        async move {
            fail::fail_point!("subscription");
            Box::pin(self.load()).await?;
            let mut at = Box::pin(self.start_at(start)).await?;
            // One timer for the life of the subscription (not one per wait): it is re-armed only
            // when it fires.
            let heartbeat = tokio::time::sleep(self.sessions.config.heartbeat_interval);
            tokio::pin!(heartbeat);
            let mut pause = PAUSE_FIRST;
            loop {
                if *self.shutdown.borrow() {
                    return Err(Stop::Ended);
                }
                let h = self.head_rx.borrow_and_update().clone();
                let Some(current) = h.epoch.clone() else {
                    // No log yet: wait for the session's first events.
                    self.wait(&h, at.pos, heartbeat.as_mut()).await?;
                    continue;
                };
                if at.epoch.as_ref() != Some(&current) {
                    // Lost, reset or expired and recreated: the client rebuilds its cards. For the
                    // session's first events there is nothing to rebuild: adopt its log.
                    if at.epoch.is_some() {
                        Box::pin(self.reset(ResetReason::new_log, &current, &h)).await?;
                    }
                    at = Position {
                        pos: h.first.saturating_sub(1),
                        epoch: Some(current),
                    };
                    continue;
                }
                if h.last <= at.pos {
                    self.caught_up = true;
                    self.wait(&h, at.pos, heartbeat.as_mut()).await?;
                    continue;
                }
                // No lag check here: a subscriber that is reading may be as far behind as it likes
                // (it catches up from the log); only one that stops reading is ended, in `send`.
                let read = match Box::pin(self.read(&h, at.pos)).await {
                    Ok(read) => read,
                    Err(SessionError::Store(StoreError::Storage(why))) => {
                        if pause == PAUSE_FIRST {
                            tracing::warn!(session = %self.entry.id, error = %why,
                                "the store cannot be read now; the subscription pauses");
                        }
                        Box::pin(self.pause(&h, at.pos, pause)).await?;
                        pause = (pause * 2).min(PAUSE_MAX);
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                };
                pause = PAUSE_FIRST;
                at.pos = Box::pin(self.deliver(read, &current, &h, at.pos)).await?;
            }
        }
    }

    async fn load(&self) -> Result<(), StoreError> {
        let mut state = self.entry.state.lock().await;
        self.sessions.ensure_loaded(&self.entry, &mut state).await
    }

    /// Where the subscription starts, and what it is sent first: the calls in flight for a
    /// live start, a `Reset` for a cursor the log no longer has.
    async fn start_at(&mut self, start: Start) -> Flow<Position> {
        if let Start::After(c) = &start {
            self.catch_up_to(c).await?;
        }
        let h = self.head_rx.borrow_and_update().clone();
        let from_first = || Position {
            pos: h.first.saturating_sub(1),
            epoch: h.epoch.clone(),
        };
        Ok(match (start, &h.epoch) {
            (Start::FromBeginning, _) => from_first(),
            (Start::LiveOnly, Some(current)) if h.last >= h.first => Position {
                pos: self.join_live(&h, current).await?,
                epoch: h.epoch.clone(),
            },
            (Start::LiveOnly, _) => Position {
                pos: h.last,
                epoch: h.epoch.clone(),
            },
            (Start::After(c), None) => Position {
                pos: c.offset,
                epoch: Some(c.epoch),
            },
            (Start::After(c), Some(current)) => {
                if c.epoch != *current || c.offset + 1 < h.first || c.offset > h.last {
                    let reset = SubscribeItem::Reset {
                        epoch: current.clone(),
                        head: h.last,
                    };
                    self.sessions.count_reset(ResetReason::stale_cursor);
                    self.send(vec![reset], 0).await?;
                    from_first()
                } else {
                    Position {
                        pos: c.offset,
                        epoch: Some(c.epoch),
                    }
                }
            }
        })
    }

    /// A cursor past what this process knows of the log (handed over from another replica,
    /// whose appends this one has not heard of yet) is not stale: the head is read again from
    /// the store, so the cursor is judged against the log, not a lagging head.
    async fn catch_up_to(&self, c: &Cursor) -> Result<(), SessionError> {
        let h = self.entry.head.borrow().clone();
        if h.epoch.as_ref() == Some(&c.epoch) && c.offset <= h.last {
            return Ok(());
        }
        let Some(meta) = self.sessions.store.meta(&self.entry.id).await? else {
            return Ok(());
        };
        // Forward only, as the store's feed moves it (see `Sessions::apply_change`).
        let moved = self.entry.head.send_if_modified(|h| {
            let newer = h.epoch.as_ref() == Some(&meta.epoch) && meta.head_offset > h.last;
            if newer {
                h.last = meta.head_offset;
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
    /// (the calls in flight where it starts). Returns the offset it starts after.
    async fn join_live(&mut self, h: &Head, epoch: &Epoch) -> Flow<u64> {
        let lane = self
            .sessions
            .shared_lane(&self.entry, self.target, self.caps, h.first);
        self.shared = Some(lane.clone());
        match lane.join_live(&*self.sessions.store, h.last).await? {
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
                    self.send(batch, at).await?;
                }
                Ok(at)
            }
            // Trimmed under us: the main loop finds the log's start and resets.
            LaneJoin::Reset => Ok(h.last),
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
        match shared.read(store, pos, h.last, BATCH).await? {
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
                PRIVATE_CACHE,
                self.sessions.config.max_update_bytes,
                self.sessions.lane_metrics(),
            ))
        });
        let read = private.read(store, pos, h.last, BATCH).await?;
        if !matches!(read, LaneRead::Updates(_)) {
            self.private = None;
        }
        Ok(read)
    }

    /// Sends what a read found; returns the offset the subscriber is at after it.
    async fn deliver(&mut self, read: LaneRead, current: &Epoch, h: &Head, pos: u64) -> Flow<u64> {
        match read {
            LaneRead::Updates(updates) => {
                let Some(last) = updates.last().map(|d| d.offset) else {
                    // Durable but not readable yet (cannot happen with ordered stores);
                    // do not spin.
                    tokio::task::yield_now().await;
                    return Ok(pos);
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
                self.send(batch, pos).await?;
                Ok(last)
            }
            LaneRead::TooOld => {
                // Even a refold from the log's start cannot serve `pos`: it was trimmed.
                self.reset(ResetReason::trimmed, current, h).await?;
                Ok(h.first.saturating_sub(1))
            }
            LaneRead::Reset { first } => {
                let h = self.head_rx.borrow().clone();
                self.reset(ResetReason::trimmed, current, &h).await?;
                // Resume where the lane found the log starting: the head's `first` can lag
                // behind a trim (another replica's appends move only its `head`), and resuming
                // before the log's start would reset again, forever.
                Ok(first.max(h.first).saturating_sub(1))
            }
        }
    }

    /// Waits for the head to move, sending a heartbeat when the stream has been idle for the
    /// interval.
    async fn wait(
        &mut self,
        h: &Head,
        pos: u64,
        mut heartbeat: Pin<&mut tokio::time::Sleep>,
    ) -> Flow {
        let interval = self.sessions.config.heartbeat_interval;
        tokio::select! {
            changed = self.head_rx.changed() => return changed.map_err(|_| Stop::Ended),
            () = heartbeat.as_mut() => {}
            _ = self.shutdown.changed() => return Err(Stop::Ended),
            () = self.end.closed() => return Err(Stop::Ended),
        }
        let due = self.last_sent + interval;
        if Instant::now() >= due {
            Box::pin(self.send(vec![SubscribeItem::Heartbeat { head: h.last }], pos)).await?;
            heartbeat.as_mut().reset(Instant::now() + interval);
        } else {
            heartbeat.as_mut().reset(due);
        }
        Ok(())
    }

    /// Waits `delay` before the store is read again (see [`PAUSE_FIRST`]), sending heartbeats
    /// as an idle stream gets them.
    async fn pause(&mut self, h: &Head, pos: u64, delay: Duration) -> Flow {
        let until = Instant::now() + delay;
        let interval = self.sessions.config.heartbeat_interval;
        loop {
            let due = self.last_sent + interval;
            tokio::select! {
                () = tokio::time::sleep_until(until) => return Ok(()),
                () = tokio::time::sleep_until(due), if due < until => {}
                _ = self.shutdown.changed() => return Err(Stop::Ended),
                () = self.end.closed() => return Err(Stop::Ended),
            }
            self.send(vec![SubscribeItem::Heartbeat { head: h.last }], pos)
                .await?;
        }
    }

    /// Sends a reset to the log of `epoch`.
    async fn reset(&mut self, reason: ResetReason, epoch: &Epoch, h: &Head) -> Flow {
        self.shared = None;
        self.private = None;
        self.sessions.count_reset(reason);
        let item = SubscribeItem::Reset {
            epoch: epoch.clone(),
            head: h.last,
        };
        self.send(vec![item], h.first.saturating_sub(1)).await
    }

    /// Sends a batch, waiting for buffer space. While it waits, the lag limit is enforced: a
    /// subscriber more than the limit behind `pos` is ended with `Lagging`.
    async fn send(&mut self, items: Vec<SubscribeItem>, pos: u64) -> Flow {
        self.last_sent = Instant::now();
        // The common case, with room in the buffer, needs no timer.
        let items = match self.tx.try_send(items) {
            Ok(()) => return Ok(()),
            Err(e) if e.is_disconnected() => return Err(Stop::Ended),
            Err(e) => e.into_inner(),
        };
        let limit = self.sessions.config.subscriber_lag_limit;
        loop {
            tokio::select! {
                ready = std::future::poll_fn(|cx| self.tx.poll_ready(cx)) => {
                    ready.map_err(|_| Stop::Ended)?;
                    return self.tx.start_send(items).map_err(|_| Stop::Ended);
                }
                _ = self.shutdown.changed() => return Err(Stop::Ended),
                _ = tokio::time::sleep(self.sessions.config.lag_check_interval) => {
                    let lag = self.head_rx.borrow().last.saturating_sub(pos);
                    if lag > limit {
                        return Err(SessionError::Lagging { lag, limit }.into());
                    }
                }
            }
        }
    }
}
