//! Shared rendering: a lane folds one session's log and renders each event once for one
//! (target, capabilities) pair; every subscriber with that pair reads the same `Arc`s.
//! Subscribers too far behind a shared lane's bounded cache read from a private lane that
//! refolds the log from its start, then rejoin the shared one.
//!
//! When a publish wakes a thousand subscribers of one lane, the first renders under the fold's
//! lock; the others copy `Arc`s out of the cache under a short read lock, and only those that
//! come while rendering is under way queue for the fold's lock (and then find the cache full).

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use parking_lot::RwLock;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;

use tokio::sync::Mutex;

use crate::domain::{Epoch, SessionId};
use crate::render::{Capabilities, Rendered, Renderer, Target};
use crate::store::{Record, Store, StoreError};

/// How many events a lane reads from the store at a time: `FIRST_READ_CHUNK` first, then as
/// many as fit `READ_BYTES` at the size of the last read's events, at most `READ_CHUNK`. Stored
/// events can be large (a 60 KB output chunk each) while their renderings are small (a
/// subscriber's output cap), so a read is sized by what it reads, not by what it renders; a
/// render for a read stops once it has rendered more than its reader takes.
const FIRST_READ_CHUNK: usize = 64;
const READ_CHUNK: usize = 512;
/// About the bytes of stored events one read holds (their texts, see
/// `EventBody::text_bytes`).
const READ_BYTES: usize = 1024 * 1024;

/// One event rendered for one lane.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered {
    /// The event's offset in its log.
    pub offset: u64,
    /// The event's rendering.
    pub rendered: Rendered,
    /// The transport's encoding of this update with its cursor, made by the first subscriber
    /// of the lane that sends it and shared by the others (see [`Delivered::encoded`]). Not
    /// counted in the lane cache's bytes (it is made after the update is cached): a gRPC lane
    /// holds up to about twice its counted size (docs/limits.md).
    wire: OnceLock<(Epoch, Bytes)>,
}

impl Delivered {
    /// An update not yet encoded for a transport.
    pub fn new(offset: u64, rendered: Rendered) -> Self {
        Delivered {
            offset,
            rendered,
            wire: OnceLock::new(),
        }
    }

    /// This update as the transport sends it at `epoch`: made by `encode` once, then shared by
    /// every subscriber of the lane (each gets the same update at the same cursor). The session
    /// layer does not know what the bytes are. An update asked for at another epoch than the
    /// first is encoded anew (`Err`).
    pub fn encoded(&self, epoch: &Epoch, encode: impl Fn() -> Bytes) -> Result<&Bytes, Bytes> {
        let (at, bytes) = self.wire.get_or_init(|| (epoch.clone(), encode()));
        if at == epoch {
            Ok(bytes)
        } else {
            Err(encode())
        }
    }

    /// The encoding [`Delivered::encoded`] made, if any.
    pub fn encoding(&self) -> Option<&Bytes> {
        self.wire.get().map(|(_, bytes)| bytes)
    }
}

/// What a lane can serve.
pub enum LaneRead {
    /// The updates after the requested offset (possibly none yet).
    Updates(Vec<Arc<Delivered>>),
    /// The requested offset is older than this lane's cache.
    TooOld,
    /// The log no longer continues where this lane stopped (retention trimmed it): the lane
    /// restarted from the log's start, `first`, and readers must reset.
    Reset { first: u64 },
}

/// What lanes report: the bytes their caches hold and the time each event takes to render.
#[derive(Clone)]
pub struct LaneMetrics {
    pub cache_bytes: Gauge,
    pub render_seconds: Histogram,
}

/// Where a live joiner starts, and what it is shown first.
pub enum LaneJoin {
    /// Start after offset `at`, after the catch-up `updates` (one per call in flight there,
    /// each carrying offset `at`; none when no call is in flight).
    At {
        at: u64,
        updates: Vec<Arc<Delivered>>,
    },
    /// The log no longer continues where the lane stopped (see [`LaneRead::Reset`]).
    Reset,
}

/// What a lane has rendered.
struct Cache {
    /// The last rendered offset.
    upto: u64,
    entries: VecDeque<(Arc<Delivered>, usize)>,
    /// What the entries hold, roughly, in bytes (also counted in the lanes' gauge).
    bytes: usize,
    gauge: Gauge,
}

impl Cache {
    fn new(upto: u64, gauge: Gauge) -> Self {
        Cache {
            upto,
            entries: VecDeque::new(),
            bytes: 0,
            gauge,
        }
    }

    /// Starts over after `upto`, empty.
    fn restart(&mut self, upto: u64) {
        *self = Cache::new(upto, self.gauge.clone());
    }

    fn push(&mut self, delivered: Arc<Delivered>, size: usize) {
        self.upto = delivered.offset;
        self.bytes += size;
        self.gauge.inc_by(size as i64);
        self.entries.push_back((delivered, size));
    }

    fn pop(&mut self) {
        if let Some((_, size)) = self.entries.pop_front() {
            self.bytes -= size;
            self.gauge.dec_by(size as i64);
        }
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        self.gauge.dec_by(self.bytes as i64);
    }
}

/// A fold plus a cache of rendered updates, bounded in count and in bytes.
pub struct Lane {
    session: SessionId,
    target: Target,
    caps: Capabilities,
    capacity: usize,
    budget: usize,
    max_update_bytes: usize,
    /// Held by the one reader that renders; the fold is only touched under it.
    folding: Mutex<Folding>,
    cache: RwLock<Cache>,
    render_seconds: Histogram,
}

/// The fold, and what it has read of the log but not rendered yet.
struct Folding {
    renderer: Renderer,
    /// Events after the cache's `upto`, read while the events before them rendered: a reader
    /// far behind has the store read on one thread while the fold renders on another. Fewer
    /// than two reads' worth (see [`READ_BYTES`]).
    ahead: Vec<Record>,
    /// How many events the next read asks for (see [`READ_CHUNK`]).
    chunk: usize,
}

impl Folding {
    fn new(renderer: Renderer) -> Self {
        Folding {
            renderer,
            ahead: Vec::new(),
            chunk: FIRST_READ_CHUNK,
        }
    }

    /// The events read ahead that continue after `upto`, up to `want` (the rest stay ahead);
    /// `None` when they do not continue there (the cache restarted since), and they are dropped.
    fn take_ahead(&mut self, upto: u64, want: u64) -> Option<Vec<Record>> {
        if self.ahead.first().is_none_or(|r| r.offset != upto + 1) {
            self.ahead.clear();
            return None;
        }
        let n = self.ahead.partition_point(|r| r.offset <= want);
        let rest = self.ahead.split_off(n);
        Some(std::mem::replace(&mut self.ahead, rest))
    }

    /// Sizes the next read by the events just read: as many as fit [`READ_BYTES`].
    fn size_reads(&mut self, records: &[Record]) {
        let read: usize = records.iter().map(|r| r.event.body.text_bytes()).sum();
        let each = (read / records.len().max(1)).max(1);
        self.chunk = (READ_BYTES / each).clamp(1, READ_CHUNK);
    }
}

/// How many updates, and about how many bytes of them: a cache's size, or a read's.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Updates.
    pub count: usize,
    /// Bytes of them (a read returns at least one update).
    pub bytes: usize,
}

impl Lane {
    /// A lane that starts folding at `first_offset` (the log's first retained offset), caching
    /// at most `cache.count` updates and about `cache.bytes` bytes, each update within about
    /// `max_update_bytes`.
    pub fn new(
        session: SessionId,
        target: Target,
        caps: Capabilities,
        first_offset: u64,
        cache: Bounds,
        max_update_bytes: usize,
        metrics: LaneMetrics,
    ) -> Self {
        Lane {
            session,
            target,
            caps,
            capacity: cache.count.max(1),
            budget: cache.bytes,
            max_update_bytes,
            folding: Mutex::new(Folding::new(Renderer::new(
                "",
                target,
                caps,
                max_update_bytes,
            ))),
            cache: RwLock::new(Cache::new(
                first_offset.saturating_sub(1),
                metrics.cache_bytes,
            )),
            render_seconds: metrics.render_seconds,
        }
    }

    fn fresh_renderer(&self) -> Renderer {
        Renderer::new("", self.target, self.caps, self.max_update_bytes)
    }

    /// Up to `want.count` updates after offset `after` and about `want.bytes` of them (at
    /// least one), rendering (once) what is durable up to `head`.
    pub async fn read(
        &self,
        store: &dyn Store,
        after: u64,
        head: u64,
        want: Bounds,
    ) -> Result<LaneRead, StoreError> {
        let (max, max_bytes) = (want.count.min(self.capacity), want.bytes);
        if let Some(read) = self.cached(after, head, max, max_bytes) {
            return Ok(read);
        }
        let mut folding = self.folding.lock().await;
        // Whoever held the lock before may have rendered what this read wants.
        if let Some(read) = self.cached(after, head, max, max_bytes) {
            return Ok(read);
        }
        match self
            .render(
                &mut folding,
                store,
                after,
                head,
                Bounds {
                    count: max,
                    bytes: max_bytes,
                },
            )
            .await
        {
            Ok(Some(first)) => return Ok(LaneRead::Reset { first }),
            Ok(None) => {}
            Err(e) => {
                // Serve what was rendered before the failure (events before a damaged one);
                // the next read reports it.
                let upto = self.cache.read().upto;
                return match self.cached(after, upto, max, max_bytes) {
                    Some(LaneRead::Updates(u)) if upto > after && !u.is_empty() => {
                        Ok(LaneRead::Updates(u))
                    }
                    _ => Err(e),
                };
            }
        }
        // Still under the fold's lock, so nobody has reset the cache since: it holds `want`.
        Ok(self
            .cached(after, head, max, max_bytes)
            .unwrap_or(LaneRead::Updates(Vec::new())))
    }

    /// Joins a subscriber live: renders up to at least `head` (shared work, cached), then
    /// returns where the lane is and the catch-up there ([`Renderer::catch_up`]): the state of
    /// every call in flight, so the subscriber is never sent an update for a call it was not
    /// shown. The start point can be past `head` (the lane ran ahead): still live.
    pub async fn join_live(&self, store: &dyn Store, head: u64) -> Result<LaneJoin, StoreError> {
        let mut folding = self.folding.lock().await;
        let upto = self.cache.read().upto;
        if upto < head {
            let count = usize::try_from(head - upto).unwrap_or(usize::MAX);
            let all = Bounds {
                count,
                bytes: usize::MAX,
            };
            if self
                .render(&mut folding, store, upto, head, all)
                .await?
                .is_some()
            {
                return Ok(LaneJoin::Reset);
            }
        }
        let at = self.cache.read().upto;
        let updates = folding
            .renderer
            .catch_up(self.session.as_str())
            .into_iter()
            .map(|(rendered, _)| Arc::new(Delivered::new(at, rendered)))
            .collect();
        Ok(LaneJoin::At { at, updates })
    }

    /// Serves a read from what is rendered, if it can be: `None` when rendering is needed.
    fn cached(&self, after: u64, head: u64, max: usize, max_bytes: usize) -> Option<LaneRead> {
        let c = self.cache.read();
        let first = c.entries.front().map_or(c.upto + 1, |(d, _)| d.offset);
        if after + 1 < first {
            return Some(LaneRead::TooOld);
        }
        let want = head.min(after.saturating_add(max as u64));
        let start = c.entries.partition_point(|(d, _)| d.offset <= after);
        let (mut bytes, mut full) = (0, false);
        let updates: Vec<_> = c
            .entries
            .iter()
            .skip(start)
            .take(max)
            .take_while(|(_, size)| {
                let fits = bytes == 0 || bytes + size <= max_bytes;
                bytes += size;
                full |= !fits;
                fits
            })
            .map(|(d, _)| d.clone())
            .collect();
        // Short of `want`, a batch is served only when its bytes are all the reader takes (a
        // render stops once it has rendered more than that: see `render`).
        (c.upto >= want || full).then_some(LaneRead::Updates(updates))
    }

    /// Folds and renders what a read after `after` needs, rendering outside the cache lock and
    /// off the async workers (a large card's presenters and diffs take real CPU time), while
    /// the next events up to `head` are read. The log's first offset when it no longer
    /// continues where the lane stopped (the lane restarted there).
    async fn render(
        &self,
        folding: &mut Folding,
        store: &dyn Store,
        after: u64,
        head: u64,
        max: Bounds,
    ) -> Result<Option<u64>, StoreError> {
        let want = head.min(after.saturating_add(max.count as u64));
        let mut rendered_bytes = 0usize;
        loop {
            // Only the renderer moves `upto`, and this is the renderer.
            let upto = self.cache.read().upto;
            if upto >= want || rendered_bytes > max.bytes {
                return Ok(None);
            }
            let records = match folding.take_ahead(upto, want) {
                Some(records) => records,
                None => match self.read_after(folding, store, upto, want).await? {
                    Ok(records) => records,
                    Err(first) => return Ok(Some(first)),
                },
            };
            // Topped up to at least a read's worth while this chunk renders; not past `head`,
            // only what is durable is read. A read ahead that fails is dropped: reading those
            // events again reports it.
            let last = folding
                .ahead
                .last()
                .or(records.last())
                .map_or(upto, |r| r.offset);
            let ahead = (folding.ahead.len() < folding.chunk && last < head).then(|| {
                let n = folding
                    .chunk
                    .min(usize::try_from(head - last).unwrap_or(usize::MAX));
                store.read(&self.session, last, n)
            });
            let working = std::mem::replace(&mut folding.renderer, self.fresh_renderer());
            let (rendered, ahead) = tokio::join!(self.render_blocking(working, records), async {
                match ahead {
                    Some(read) => read.await.ok(),
                    None => None,
                }
            });
            let (working, rendered) = match rendered {
                Ok(done) => done,
                Err(e) => {
                    // The renderer is a fresh one now: the lane starts over from the log.
                    folding.ahead.clear();
                    self.cache.write().restart(0);
                    return Err(e);
                }
            };
            folding.renderer = working;
            if let Some(more) = ahead.filter(|a| a.first().is_some_and(|r| r.offset == last + 1)) {
                folding.size_reads(&more);
                folding.ahead.extend(more);
            }
            let mut c = self.cache.write();
            // A panic while the lock is held must not break the lane for later readers.
            fail::fail_point!("lane-cache");
            for (d, size) in rendered {
                rendered_bytes = rendered_bytes.saturating_add(size);
                c.push(d, size);
                // Evict old entries, but never the ones this read is about to return.
                while c.entries.len() > self.capacity
                    || (c.bytes > self.budget
                        && c.entries.front().is_some_and(|(d, _)| d.offset <= after))
                {
                    c.pop();
                }
            }
        }
    }

    /// Reads the events after `upto` (up to `want`) from the store; `Err(first)` when the log
    /// no longer continues there: the lane restarted at the log's first offset.
    async fn read_after(
        &self,
        folding: &mut Folding,
        store: &dyn Store,
        upto: u64,
        want: u64,
    ) -> Result<Result<Vec<Record>, u64>, StoreError> {
        let n = folding
            .chunk
            .min(usize::try_from(want - upto).unwrap_or(usize::MAX));
        let records = store.read(&self.session, upto, n).await?;
        folding.size_reads(&records);
        if records.first().is_some_and(|r| r.offset == upto + 1) {
            return Ok(Ok(records));
        }
        // A short answer is a trim only if the log says so: a replicated store may answer a
        // read from a copy that lags (a NATS follower) while the head came from its leader.
        // Then this is no reset, only "not yet": the reader retries.
        let kept = store.meta(&self.session).await?;
        if kept.is_some_and(|m| m.first_offset <= upto + 1) {
            return Err(StoreError::Storage(format!(
                "session {}: offset {} is stored but not readable yet",
                self.session,
                upto + 1
            )));
        }
        // Trimmed under us (or lost): start over from what the log keeps now.
        let first = records.first().map_or(upto + 1, |r| r.offset);
        *folding = Folding::new(self.fresh_renderer());
        self.cache.write().restart(first.saturating_sub(1));
        Ok(Err(first))
    }

    /// Renders `records` with `working` on the blocking pool; hands the renderer back.
    async fn render_blocking(
        &self,
        mut working: Renderer,
        records: Vec<Record>,
    ) -> Result<(Renderer, Vec<(Arc<Delivered>, usize)>), StoreError> {
        let timer = self.render_seconds.clone();
        tokio::task::spawn_blocking(move || {
            let rendered: Vec<_> = records
                .iter()
                .map(|r| {
                    let started = std::time::Instant::now();
                    let (rendered, size) = working.step(&r.event);
                    timer.observe(started.elapsed().as_secs_f64());
                    (Arc::new(Delivered::new(r.offset, rendered)), size)
                })
                .collect();
            (working, rendered)
        })
        .await
        .map_err(|e| StoreError::from_join(e, "rendering"))
    }
}
