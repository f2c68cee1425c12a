//! The fleet stream's source: a notice each time a session's summary changes, so a watcher's
//! cost follows summary changes, not events. A change of state or of the prompts waiting is
//! sent at once; any other change (the activity line, its time, counts) at most once per
//! session per interval (`--fleet-throttle-ms`): a session streaming output makes a few notices
//! a second, whatever its rate.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc};

use super::summary::ListFilter;
use super::{SessionInfo, Sessions};
use crate::domain::{PendingPrompt, SessionId, SessionSummary};
use crate::store::SessionMeta;

/// Notices a slow watcher may fall behind by before it is sent the sessions again.
const FLEET_BUFFER: usize = 4096;
/// Items a watch stream holds before its task waits for the client.
const WATCH_CHANNEL: usize = 64;

/// One session's summary changed: its metadata after the change.
#[derive(Debug, Clone)]
pub struct FleetNotice {
    /// The session.
    pub session: SessionId,
    /// Its metadata (with the summary) after the change.
    pub meta: Arc<SessionMeta>,
}

/// What a fleet watch yields.
#[derive(Debug, Clone)]
pub enum FleetItem {
    /// A session as it is now.
    Session(SessionId, Box<SessionInfo>),
    /// Every session that matched when the watch began (or resynced) has been sent; what
    /// follows is live.
    Synced,
}

struct Held {
    sent_at: Instant,
    notice: Option<FleetNotice>,
    /// The summary of the latest change seen (sent or held): what the next is compared with.
    last: Option<SessionSummary>,
    /// The head of the latest change seen (a feed's report of it is not read again).
    head: u64,
}

/// The notices, their throttle, and the sessions other writers changed (read on the tick).
pub(super) struct Fleet {
    tx: broadcast::Sender<FleetNotice>,
    interval: Duration,
    held: parking_lot::Mutex<HashMap<SessionId, Held>>,
    remote: parking_lot::Mutex<HashSet<SessionId>>,
    /// Watches running (a shared store's feed reports every session's appends while any is).
    watches: parking_lot::Mutex<usize>,
}

/// Whether a change is sent at once: the state, or the prompts waiting, moved.
fn urgent(before: Option<&SessionSummary>, after: Option<&SessionSummary>) -> bool {
    let state = |s: Option<&SessionSummary>| s.map(SessionSummary::state);
    let waiting = |s: Option<&SessionSummary>| s.map(|s| s.pending_count);
    fn prompts(s: Option<&SessionSummary>) -> Option<&[PendingPrompt]> {
        s.map(|s| s.pending.as_slice())
    }
    state(before) != state(after)
        || waiting(before) != waiting(after)
        || prompts(before) != prompts(after)
}

impl Fleet {
    pub(super) fn new(interval: Duration) -> Self {
        Fleet {
            tx: broadcast::channel(FLEET_BUFFER).0,
            interval,
            held: parking_lot::Mutex::default(),
            remote: parking_lot::Mutex::default(),
            watches: parking_lot::Mutex::new(0),
        }
    }

    /// Whether anyone watches (nothing is kept or sent otherwise).
    pub(super) fn watched(&self) -> bool {
        self.tx.receiver_count() > 0
    }

    /// `session`'s summary is now `meta`'s (a durable append here, or one another writer made).
    /// It is compared with the last change seen of the session, whoever made either.
    pub(super) fn changed(&self, session: &SessionId, meta: SessionMeta, now: Instant) {
        if !self.watched() {
            return;
        }
        let head = meta.head_offset;
        let summary = meta.summary.clone();
        let notice = FleetNotice {
            session: session.clone(),
            meta: Arc::new(meta),
        };
        let mut held = self.held.lock();
        // A session quiet for an interval has no entry: its change is due anyway.
        let h = held.entry(session.clone()).or_insert(Held {
            sent_at: now.checked_sub(self.interval).unwrap_or(now),
            notice: None,
            last: None,
            head,
        });
        let send_now = h.last.is_some() && urgent(h.last.as_ref(), summary.as_ref());
        h.last = summary;
        h.head = h.head.max(head);
        if send_now || now.duration_since(h.sent_at) >= self.interval {
            h.sent_at = now;
            h.notice = None;
            let _ = self.tx.send(notice);
        } else {
            h.notice = Some(notice);
        }
    }

    /// Another writer appended to `session` (a replica's append): its summary is read on the
    /// next tick, once however many appends came meanwhile.
    pub(super) fn changed_elsewhere(&self, session: &SessionId, head: u64) {
        let seen = |h: &Held| h.head >= head;
        if self.watched() && !self.held.lock().get(session).is_some_and(seen) {
            self.remote.lock().insert(session.clone());
        }
    }

    /// Sends the held notices whose interval has passed, and forgets quiet sessions; the
    /// sessions other writers changed since the last tick.
    pub(super) fn tick(&self, now: Instant) -> Vec<SessionId> {
        let mut held = self.held.lock();
        held.retain(|_, h| {
            let due = now.duration_since(h.sent_at) >= self.interval;
            if due && let Some(notice) = h.notice.take() {
                h.sent_at = now;
                let _ = self.tx.send(notice);
                return true;
            }
            !due || h.notice.is_some()
        });
        drop(held);
        self.remote.lock().drain().collect()
    }

    pub(super) fn subscribe(&self) -> broadcast::Receiver<FleetNotice> {
        self.tx.subscribe()
    }
}

impl Sessions {
    /// Sends held fleet notices on time and reads the summaries other writers changed; until
    /// shutdown. Costs nothing while nobody watches.
    pub async fn run_fleet(self: Arc<Self>) {
        let mut shutdown = self.shutdown.subscribe();
        let mut tick =
            tokio::time::interval((self.fleet.interval / 2).max(Duration::from_millis(10)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = shutdown.wait_for(|stop| *stop) => return,
            }
            for session in self.fleet.tick(Instant::now()) {
                match self.store.meta(&session).await {
                    Ok(Some(meta)) => self.fleet.changed(&session, meta, Instant::now()),
                    Ok(None) => {}
                    Err(e) => tracing::warn!(%session, error = %e, "cannot read a changed session"),
                }
            }
        }
    }

    /// Watches the fleet: the first `page` sessions `filter` and `keep` admit, then
    /// [`FleetItem::Synced`], then each change of a session `keep` admits that `filter` admits
    /// (or admitted before: a session leaving the filter is sent once more, so a watcher sees
    /// it go). A watcher too slow for the notices is sent the sessions again.
    pub fn watch(
        self: &Arc<Self>,
        filter: ListFilter,
        page: usize,
        keep: impl Fn(&SessionId) -> bool + Send + Sync + 'static,
    ) -> mpsc::Receiver<FleetItem> {
        let (tx, rx) = mpsc::channel(WATCH_CHANNEL);
        let sessions = self.clone();
        tokio::spawn(async move {
            sessions.watching(true);
            let _ = sessions.run_watch(&filter, page, &keep, &tx).await;
            sessions.watching(false);
        });
        rx
    }

    /// Counts a watch in or out; a shared store's feed follows every session while any runs
    /// (another replica's appends change summaries too).
    fn watching(&self, started: bool) {
        let mut watches = self.fleet.watches.lock();
        let before = *watches;
        *watches = if started {
            before + 1
        } else {
            before.saturating_sub(1)
        };
        if (before == 0) != (*watches == 0)
            && let Some(feed) = self.store.feed()
        {
            feed.all_sessions(*watches > 0);
        }
    }

    async fn run_watch(
        &self,
        filter: &ListFilter,
        page: usize,
        keep: &(impl Fn(&SessionId) -> bool + Send + Sync),
        tx: &mpsc::Sender<FleetItem>,
    ) -> Result<(), ()> {
        let mut shutdown = self.shutdown.subscribe();
        let mut sent = HashSet::new();
        // A resumed watch (`updated_since_ms`) starts with what changed since; so does a
        // resync after falling behind, from when the last sync began.
        let mut since = filter.updated_since_ms;
        let live = ListFilter {
            updated_since_ms: 0,
            ..filter.clone()
        };
        'sync: loop {
            // Notices first, so no change falls between the page and the live part.
            let mut notices = self.fleet.subscribe();
            let page_filter = first_page(&live, since);
            since = self.config.clock.now_ms();
            let first = self
                .list(None, page, page * super::LIST_SCAN_PER_PAGE, |id, meta| {
                    page_filter.admits(meta) && keep(id)
                })
                .await
                .map_err(|_| ())?
                .0;
            for (id, info) in first {
                sent.insert(id.clone());
                tx.send(FleetItem::Session(id, Box::new(info)))
                    .await
                    .map_err(|_| ())?;
            }
            tx.send(FleetItem::Synced).await.map_err(|_| ())?;
            loop {
                let notice = tokio::select! {
                    n = notices.recv() => n,
                    _ = shutdown.wait_for(|stop| *stop) => return Ok(()),
                    _ = tx.closed() => return Ok(()),
                };
                let notice = match notice {
                    Ok(n) => n,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue 'sync,
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                };
                let admitted = live.admits(&notice.meta);
                if !keep(&notice.session) || !(admitted || sent.contains(&notice.session)) {
                    continue;
                }
                if admitted {
                    sent.insert(notice.session.clone());
                } else {
                    sent.remove(&notice.session);
                }
                let meta = (*notice.meta).clone();
                let info = SessionInfo {
                    calls: meta.calls,
                    meta,
                };
                tx.send(FleetItem::Session(notice.session, Box::new(info)))
                    .await
                    .map_err(|_| ())?;
            }
        }
    }
}

/// What a watch's first page admits: `live`'s sessions; or, resuming from `since`, the sessions
/// changed since in any state (so a watcher sees those that left its states meanwhile).
fn first_page(live: &ListFilter, since: u64) -> ListFilter {
    match since {
        0 => live.clone(),
        since => ListFilter {
            states: Vec::new(),
            updated_since_ms: since,
            ..live.clone()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{SessionSummary, StopReason};
    use crate::store::new_epoch;

    fn meta(summary: SessionSummary) -> SessionMeta {
        SessionMeta {
            epoch: new_epoch(),
            first_offset: 1,
            head_offset: 1,
            created_ms: 0,
            updated_ms: 0,
            calls: 0,
            title: String::new(),
            cwd: String::new(),
            summary: Some(summary),
        }
    }

    #[test]
    fn activity_is_throttled_and_state_changes_are_not() {
        let fleet = Fleet::new(Duration::from_millis(500));
        let mut rx = fleet.subscribe();
        let s = SessionId::new("s").unwrap();
        let t0 = Instant::now();
        let running = SessionSummary {
            open_turns: 1,
            ..SessionSummary::default()
        };
        // 1,000 output chunks over 10 s: each only moves the activity time.
        for i in 0..1_000u64 {
            let now = t0 + Duration::from_millis(i * 10);
            let summary = SessionSummary {
                activity_ms: i,
                ..running.clone()
            };
            fleet.changed(&s, meta(summary), now);
            fleet.tick(now);
        }
        let mut sent = 0;
        while rx.try_recv().is_ok() {
            sent += 1;
        }
        assert!(
            (19..=21).contains(&sent),
            "{sent} notices for 10 s of chunks"
        );
        // The turn ends: sent at once, whatever the throttle.
        let idle = SessionSummary {
            last_stop: Some(StopReason::EndTurn),
            ..SessionSummary::default()
        };
        let now = t0 + Duration::from_millis(10_001);
        fleet.changed(&s, meta(idle.clone()), now);
        assert!(rx.try_recv().is_ok());
        // A held change goes out on the tick after its interval.
        let later = SessionSummary {
            activity_ms: 1,
            ..idle
        };
        fleet.changed(&s, meta(later), now);
        assert!(rx.try_recv().is_err());
        fleet.tick(now + Duration::from_millis(500));
        assert!(rx.try_recv().is_ok());
    }
}
