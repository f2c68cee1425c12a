//! Shared rendering: a lane folds one session's log and renders each event once for one
//! (target, capabilities) pair; every subscriber with that pair reads the same `Arc`s.
//! Subscribers too far behind a shared lane's bounded cache read from a private lane that
//! refolds the log from its start, then rejoin the shared one.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::Mutex;

use crate::domain::SessionId;
use crate::render::{self, Capabilities, Context, Fold, Rendered, Target};
use crate::store::{Store, StoreError};

/// How many events a lane reads from the store at a time.
const READ_CHUNK: usize = 512;

/// One event rendered for one lane.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered {
    pub offset: u64,
    pub rendered: Rendered,
}

/// What a lane can serve.
pub enum LaneRead {
    /// The updates after the requested offset (possibly none yet).
    Updates(Vec<Arc<Delivered>>),
    /// The requested offset is older than this lane's cache.
    TooOld,
    /// The log no longer continues where this lane stopped (retention trimmed it): the lane
    /// restarted from the log's start, and readers must reset.
    Reset,
}

struct LaneState {
    fold: Fold,
    /// The last folded offset.
    upto: u64,
    cache: VecDeque<(Arc<Delivered>, usize)>,
    /// What the cache holds, roughly, in bytes.
    bytes: usize,
}

impl LaneState {
    fn new(upto: u64) -> Self {
        LaneState {
            fold: Fold::new(""),
            upto,
            cache: VecDeque::new(),
            bytes: 0,
        }
    }
}

/// A fold plus a cache of rendered updates, bounded in count and in bytes.
pub struct Lane {
    session: SessionId,
    target: Target,
    caps: Capabilities,
    capacity: usize,
    budget: usize,
    state: Mutex<LaneState>,
}

impl Lane {
    /// A lane that starts folding at `first_offset` (the log's first retained offset).
    pub fn new(
        session: SessionId,
        target: Target,
        caps: Capabilities,
        first_offset: u64,
        capacity: usize,
        budget: usize,
    ) -> Self {
        Lane {
            session,
            target,
            caps,
            capacity: capacity.max(1),
            budget,
            state: Mutex::new(LaneState::new(first_offset.saturating_sub(1))),
        }
    }

    /// Up to `max` updates after offset `after`, rendering (once) what is durable up to
    /// `head`.
    pub async fn read(
        &self,
        store: &dyn Store,
        after: u64,
        head: u64,
        max: usize,
    ) -> Result<LaneRead, StoreError> {
        let mut st = self.state.lock().await;
        let cache_first = st.cache.front().map_or(st.upto + 1, |(d, _)| d.offset);
        if after + 1 < cache_first {
            return Ok(LaneRead::TooOld);
        }
        let want = head.min(after.saturating_add(max.min(self.capacity) as u64));
        while st.upto < want {
            let records = store
                .read(
                    &self.session,
                    st.upto,
                    READ_CHUNK.min((want - st.upto) as usize),
                )
                .await?;
            if records.is_empty() || records[0].offset != st.upto + 1 {
                // Trimmed under us (or lost): start over from what the log keeps now.
                let first = records.first().map_or(st.upto + 1, |r| r.offset);
                *st = LaneState::new(first.saturating_sub(1));
                return Ok(LaneRead::Reset);
            }
            for r in records {
                let step = st.fold.apply(&r.event);
                let ctx = Context {
                    session_id: self.session.as_str(),
                    cwd: step.cwd,
                };
                let rendered = render::render(step.change, &ctx, self.target, &self.caps);
                st.upto = r.offset;
                let size = rendered.approx_bytes();
                st.bytes += size;
                st.cache.push_back((
                    Arc::new(Delivered {
                        offset: r.offset,
                        rendered,
                    }),
                    size,
                ));
                // Evict old entries, but never the ones this read is about to return.
                while st.cache.len() > self.capacity
                    || (st.bytes > self.budget
                        && st.cache.front().is_some_and(|(d, _)| d.offset <= after))
                {
                    let (_, size) = st.cache.pop_front().expect("non-empty");
                    st.bytes -= size;
                }
            }
        }
        let start = st.cache.partition_point(|(d, _)| d.offset <= after);
        Ok(LaneRead::Updates(
            st.cache
                .iter()
                .skip(start)
                .take(max)
                .map(|(d, _)| d.clone())
                .collect(),
        ))
    }
}
