//! Spans held until their ancestors arrive.
//!
//! An exporter sends a span when it ends, in batches (every 5 s by the SDKs' default), so a
//! subagent's spans usually leave in an export before the tool span that ran them, and a run's
//! model and tool spans before the run's own span. Mapped alone they would be placed as if
//! top-level: their session, their nesting and their turn come from ancestors (`map.rs`). So a
//! tree of spans whose top names a parent the request lacks is held, and mapped with the request
//! that brings that parent.
//!
//! Bounded three ways: a tree waits at most `window` from its first span's arrival, then it is
//! placed as it is — and later spans waiting on the same parent go at once (that ancestor runs
//! long: its children show live rather than late and mis-placed both); held spans weigh at most
//! `max_bytes`, past which the longest wait ends early; only one caller's spans join each other.
//! Pure: the caller passes the time, and publishes what comes out.

use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::hash::BuildHasher;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::map::{check_ids, roots};
use super::span::Span;

/// Parents given up on that are remembered (their later children go at once): about 1 MiB.
const GIVEN_UP_MAX: usize = 65_536;
/// What a held span weighs beyond its text: its ids, times and vectors, roughly.
const SPAN_OVERHEAD: usize = 200;

/// How long and how much is held.
#[derive(Debug, Clone, Copy)]
pub struct HoldLimits {
    /// The longest a span waits for its ancestors; zero holds nothing.
    pub window: Duration,
    /// The most held spans weigh (their text, estimated).
    pub max_bytes: usize,
}

/// Who sent spans (a digest of the credentials): only one caller's spans join each other, so
/// nobody's spans are published under another's rights.
pub type Caller = u64;

/// Why held spans were let go without their ancestor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// Their window passed.
    Expired,
    /// Held spans weighed more than the limit: the longest wait ended early.
    Full,
    /// The server is stopping.
    Stopped,
}

/// Spans let go without their ancestor: to map and publish as they are, with `access`.
#[derive(Debug)]
pub struct Released<A> {
    /// The access of the request that sent (the last of) them.
    pub access: A,
    /// The spans.
    pub spans: Vec<Span>,
    /// Why.
    pub why: Release,
}

/// The parent a tree waits for, in one caller's trace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Wait {
    caller: Caller,
    trace: String,
    parent: String,
}

struct Group<A> {
    spans: Vec<Span>,
    bytes: usize,
    /// When its first span arrived.
    since: Instant,
    /// Its place in `order`.
    seq: u64,
    access: A,
}

/// A span and when it first arrived (`None`: with this request).
type Arrived = (Span, Option<Instant>);

/// A request's spans with those it was waited for by: what to map now, and what to hold once
/// the request is accepted ([`Hold::commit`]) — or to put back if it is not ([`Hold::abort`]).
#[derive(Debug)]
pub struct Batch<A> {
    caller: Caller,
    access: A,
    /// To map and publish now.
    pub ready: Vec<Span>,
    ready_since: Vec<Option<Instant>>,
    /// Trees whose top's parent is still missing: to check (mapped alone, as they would be
    /// placed if their wait ran out) and hold.
    pub waiting: Vec<Span>,
    waiting_since: Vec<Option<Instant>>,
}

/// The held spans (see the module doc).
pub struct Hold<A> {
    limits: HoldLimits,
    groups: HashMap<Wait, Group<A>>,
    /// Groups by when their first span arrived.
    order: BTreeMap<(Instant, u64), Wait>,
    seq: u64,
    bytes: usize,
    spans: usize,
    given_up: HashSet<u64>,
    given_up_order: VecDeque<u64>,
    hasher: RandomState,
    stopped: bool,
}

impl<A: Clone> Hold<A> {
    /// Nothing held yet.
    pub fn new(limits: HoldLimits) -> Self {
        Hold {
            limits,
            groups: HashMap::new(),
            order: BTreeMap::new(),
            seq: 0,
            bytes: 0,
            spans: 0,
            given_up: HashSet::new(),
            given_up_order: VecDeque::new(),
            hasher: RandomState::new(),
            stopped: false,
        }
    }

    /// Spans held now, and what they weigh.
    pub fn held(&self) -> (usize, usize) {
        (self.spans, self.bytes)
    }

    /// A request's spans, with every held tree waiting on one of them (transitively): split into
    /// what is ready and what still waits. Nothing is held until [`Hold::commit`].
    pub fn take(&mut self, caller: Caller, access: A, spans: Vec<Span>) -> Batch<A> {
        let mut all: Vec<Arrived> = spans.into_iter().map(|s| (s, None)).collect();
        let mut at = 0;
        while at < all.len() && !self.groups.is_empty() {
            let wait = Wait {
                caller,
                trace: all[at].0.trace_id.clone(),
                parent: all[at].0.span_id.clone(),
            };
            if let Some(group) = self.remove(&wait) {
                all.extend(group.spans.into_iter().map(|s| (s, Some(group.since))));
            }
            at += 1;
        }
        let (ready, waiting) = self.split(caller, all);
        let (ready, ready_since) = ready.into_iter().unzip();
        let (waiting, waiting_since) = waiting.into_iter().map(|(_, a)| a).unzip();
        Batch {
            caller,
            access,
            ready,
            ready_since,
            waiting,
            waiting_since,
        }
    }

    /// The request was accepted: its waiting trees are held. Returns what had to be let go.
    pub fn commit(&mut self, batch: Batch<A>, now: Instant) -> Vec<Released<A>> {
        let Batch {
            caller,
            access,
            waiting,
            waiting_since,
            ..
        } = batch;
        let arrived = waiting.into_iter().zip(waiting_since).collect();
        self.keep(caller, access, arrived, now)
    }

    /// The request was refused: the spans it was waited for by wait again, as they were (an
    /// exporter retrying it finds them).
    pub fn abort(&mut self, batch: Batch<A>, now: Instant) -> Vec<Released<A>> {
        let Batch {
            caller,
            access,
            ready,
            ready_since,
            waiting,
            waiting_since,
        } = batch;
        let held_before = ready
            .into_iter()
            .zip(ready_since)
            .chain(waiting.into_iter().zip(waiting_since))
            .filter(|(_, since)| since.is_some())
            .collect();
        self.keep(caller, access, held_before, now)
    }

    /// Every tree whose window passed by `now`.
    pub fn expire(&mut self, now: Instant) -> Vec<Released<A>> {
        let mut out = Vec::new();
        while let Some((&(since, _), _)) = self.order.first_key_value() {
            if now.saturating_duration_since(since) < self.limits.window {
                break;
            }
            out.extend(self.give_up_oldest(Release::Expired));
        }
        out
    }

    /// Everything held, and nothing held from now on (the server is stopping).
    pub fn stop(&mut self) -> Vec<Released<A>> {
        self.stopped = true;
        let mut out = Vec::new();
        while !self.order.is_empty() {
            out.extend(self.give_up_oldest(Release::Stopped));
        }
        out
    }

    fn holding(&self) -> bool {
        !self.stopped && !self.limits.window.is_zero()
    }

    /// Splits spans into those ready (each tree whose top has no parent, a remote one, or one
    /// given up on) and trees waiting, each with the parent it waits for.
    fn split(&self, caller: Caller, spans: Vec<Arrived>) -> (Vec<Arrived>, Vec<(Wait, Arrived)>) {
        let index: HashMap<(&str, &str), usize> = spans
            .iter()
            .enumerate()
            .map(|(i, (s, _))| ((s.trace_id.as_str(), s.span_id.as_str()), i))
            .collect();
        let parent: Vec<Option<usize>> = spans
            .iter()
            .map(|(s, _)| {
                let key = (s.trace_id.as_str(), s.parent_span_id.as_str());
                index.get(&key).copied()
            })
            .collect();
        let top = roots(&parent);
        let waits: Vec<Option<Wait>> = (0..spans.len())
            .map(|i| {
                let root = &spans[top[i]].0;
                let missing = parent[top[i]].is_none()
                    && !root.parent_span_id.is_empty()
                    && !root.parent_remote
                    // A span the mapping refuses is refused now, in the request's answer.
                    && check_ids(&spans[i].0).is_ok()
                    && self.holding();
                let wait = missing.then(|| Wait {
                    caller,
                    trace: root.trace_id.clone(),
                    parent: root.parent_span_id.clone(),
                });
                wait.filter(|w| !self.was_given_up(w))
            })
            .collect();
        let mut ready = Vec::new();
        let mut waiting = Vec::new();
        for (arrived, wait) in spans.into_iter().zip(waits) {
            match wait {
                Some(wait) => waiting.push((wait, arrived)),
                None => ready.push(arrived),
            }
        }
        (ready, waiting)
    }

    /// Holds `spans` (trees, each complete), merging with trees already waiting on the same
    /// parent; returns what is ready after all and what the byte limit lets go.
    fn keep(
        &mut self,
        caller: Caller,
        access: A,
        spans: Vec<Arrived>,
        now: Instant,
    ) -> Vec<Released<A>> {
        let (ready, waiting) = self.split(caller, spans);
        let mut out = Vec::new();
        if !ready.is_empty() {
            out.push(Released {
                access: access.clone(),
                spans: ready.into_iter().map(|(s, _)| s).collect(),
                why: Release::Expired,
            });
        }
        let mut trees: HashMap<Wait, Vec<Arrived>> = HashMap::new();
        for (wait, arrived) in waiting {
            trees.entry(wait).or_default().push(arrived);
        }
        for (wait, tree) in trees {
            self.insert(wait, tree, access.clone(), now);
        }
        while self.bytes > self.limits.max_bytes && !self.order.is_empty() {
            out.extend(self.give_up_oldest(Release::Full));
        }
        out
    }

    fn insert(&mut self, wait: Wait, tree: Vec<Arrived>, access: A, now: Instant) {
        let since = tree.iter().filter_map(|(_, s)| *s).min().unwrap_or(now);
        let mut group = self.remove(&wait).unwrap_or(Group {
            spans: Vec::new(),
            bytes: 0,
            since,
            seq: 0,
            access: access.clone(),
        });
        for (span, _) in tree {
            group.bytes += span_bytes(&span);
            group.spans.push(span);
        }
        group.since = group.since.min(since);
        group.access = access;
        self.seq += 1;
        group.seq = self.seq;
        self.bytes += group.bytes;
        self.spans += group.spans.len();
        self.order.insert((group.since, group.seq), wait.clone());
        self.groups.insert(wait, group);
    }

    fn remove(&mut self, wait: &Wait) -> Option<Group<A>> {
        let group = self.groups.remove(wait)?;
        self.order.remove(&(group.since, group.seq));
        self.bytes -= group.bytes;
        self.spans -= group.spans.len();
        Some(group)
    }

    fn give_up_oldest(&mut self, why: Release) -> Option<Released<A>> {
        let (&first, wait) = self.order.first_key_value()?;
        let wait = wait.clone();
        let Some(group) = self.remove(&wait) else {
            self.order.remove(&first);
            return None;
        };
        self.give_up(&wait);
        Some(Released {
            access: group.access,
            spans: group.spans,
            why,
        })
    }

    fn give_up(&mut self, wait: &Wait) {
        let digest = self.hasher.hash_one(wait);
        if self.given_up.insert(digest) {
            self.given_up_order.push_back(digest);
        }
        while self.given_up_order.len() > GIVEN_UP_MAX {
            if let Some(old) = self.given_up_order.pop_front() {
                self.given_up.remove(&old);
            }
        }
    }

    fn was_given_up(&self, wait: &Wait) -> bool {
        self.given_up.contains(&self.hasher.hash_one(wait))
    }
}

/// What a span weighs held: its text and attribute values, roughly.
fn span_bytes(span: &Span) -> usize {
    let attributes: usize = span
        .attributes
        .0
        .iter()
        .map(|(k, v)| k.len() + value_bytes(v))
        .sum();
    SPAN_OVERHEAD + span.name.len() + span.error.as_ref().map_or(0, String::len) + attributes
}

/// A JSON value's text, roughly; its depth is bounded by the decoders' (see `otlp::json`).
fn value_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(a) => 8 + a.iter().map(value_bytes).sum::<usize>(),
        Value::Object(o) => {
            8 + o
                .iter()
                .map(|(k, v)| k.len() + value_bytes(v))
                .sum::<usize>()
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
    }
}

#[cfg(test)]
#[path = "hold_tests.rs"]
mod tests;
