//! A subscription: replay from the log, then live, through shared lanes; resume by cursor,
//! resets, heartbeats, back-pressure and the lag limit. Each subscription is one task
//! (`task.rs`) that ends when the client goes away, the server shuts down, or the subscriber
//! lags too far; here, how it starts and how its end reaches the client.

use std::collections::VecDeque;
use std::future::Future as _;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context as TaskContext, Poll};

use futures_channel::mpsc;
use futures_util::StreamExt as _;
use tokio::sync::oneshot;
use tokio::time::Instant;
use tokio_stream::Stream;

use super::lane::{Bounds, Delivered, Lane, LaneMetrics};
use super::task::Task;
use super::{Entry, SessionError, Sessions};
use crate::domain::{Cursor, Epoch, SessionId};
use crate::metrics::{ResetLabels, ResetReason, StartKind, StartLabels, TargetLabels};
use crate::render::{Capabilities, Target};

/// Batches (each up to `task::BATCH` items) buffered per subscriber; beyond this the subscriber
/// waits (and falls back to the log). Handing over batches, not items, costs one wake-up of
/// the response stream per lane read instead of one per update.
const BUFFER: usize = 2;
/// Where a subscription starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// From the first retained event.
    FromBeginning,
    /// Resume after this cursor.
    After(Cursor),
    /// Only events appended from now on.
    LiveOnly,
}

/// One stream item.
#[derive(Debug, Clone)]
pub enum SubscribeItem {
    /// An update and its position.
    Update {
        /// The update, shared by every subscriber of its lane.
        delivered: Arc<Delivered>,
        /// Its position.
        cursor: Cursor,
    },
    /// The stream is idle; everything up to `head` was delivered.
    Heartbeat {
        /// The log's head offset.
        head: u64,
    },
    /// The start point was unusable: updates continue from the start of what is kept.
    Reset {
        /// The log the updates now come from.
        epoch: Epoch,
        /// Its head offset at the reset.
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
            match self.items.poll_next_unpin(cx) {
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
        // The channel holds its buffer plus one batch per sender (futures' `mpsc`: a few
        // hundred bytes while empty, where tokio's preallocates 32 slots).
        let (tx, items) = mpsc::channel(BUFFER - 1);
        let (end_tx, end) = oneshot::channel();
        let metrics = self.metrics();
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
        let entry = self.entry(session);
        let task = Task {
            sent: metrics.updates_sent.get_or_create_owned(&by_target),
            caught_up: false,
            sessions: self.clone(),
            head_rx: entry.head.subscribe(),
            shutdown: self.shutdown.subscribe(),
            entry,
            target,
            caps,
            tx,
            end: end_tx,
            subscribers,
            shared: None,
            private: None,
            last_sent: Instant::now(),
        };
        tokio::spawn(task.run(start));
        Subscription {
            items,
            ready: VecDeque::new(),
            end: Some(end),
        }
    }

    /// The shared lane for (target, capabilities), created on first use. The session keeps
    /// only weak references: a lane lives while subscribers hold it, so a session nobody
    /// watches keeps no fold and no cache.
    pub(super) fn shared_lane(
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
            Bounds {
                count: c.lane_cache,
                bytes: c.lane_cache_bytes,
            },
            c.max_update_bytes,
            self.lane_metrics(),
        ));
        lanes.retain(|_, l| l.strong_count() > 0);
        lanes.insert((target, caps), Arc::downgrade(&lane));
        lane
    }

    pub(super) fn lane_metrics(&self) -> LaneMetrics {
        let m = self.metrics();
        LaneMetrics {
            cache_bytes: m.lane_cache_bytes.clone(),
            render_seconds: m.render_seconds.clone(),
        }
    }

    pub(super) fn count_reset(&self, reason: ResetReason) {
        self.metrics()
            .resets
            .get_or_create(&ResetLabels { reason })
            .inc();
    }
}
