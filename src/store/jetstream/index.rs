//! What a replica knows of one session's log, rebuilt from the retained messages: its metadata,
//! where each offset is in the stream, and the event ids and call phases the session layer asks
//! about. The compare-and-set on every append proves it complete before an append lands.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::domain::{Epoch, EventId, Phase, SessionSummary, Subject, ToolEvent};
use crate::store::{Known, SessionMeta};

/// One stored message, read back: the event and what its headers say of the log.
#[derive(Debug, Clone)]
pub struct Stored {
    /// Its stream sequence.
    pub seq: u64,
    pub offset: u64,
    pub epoch: Epoch,
    pub created_ms: u64,
    pub updated_ms: u64,
    pub calls: u64,
    pub title: String,
    pub cwd: String,
    /// The session's summary after the append, on an append's last message.
    pub summary: Option<SessionSummary>,
    pub event: Arc<ToolEvent>,
}

/// Why a message does not extend an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// From another log of the session (it was lost and made again).
    Epoch,
    /// Offsets are missing in between: the index must catch up first.
    Gap,
}

/// A session's log as this replica knows it.
#[derive(Debug)]
pub struct Index {
    epoch: Epoch,
    created_ms: u64,
    updated_ms: u64,
    calls: u64,
    title: String,
    cwd: String,
    /// The summary the head message carries (an append's last does): `None` when it carries
    /// none, so a summary is never older than the head.
    summary: Option<SessionSummary>,
    /// The offset of `entries[0]`.
    first: u64,
    /// Per retained offset from `first`: its stream sequence and event id.
    entries: VecDeque<(u64, EventId)>,
    ids: HashMap<EventId, u64>,
    phases: HashMap<Subject, Phase>,
    /// Events kept (the stream's `max_msgs_per_subject`); 0 keeps all.
    max_events: u64,
}

impl Index {
    /// An index whose first retained message is `first`.
    pub fn new(first: &Stored, max_events: u64) -> Self {
        let mut index = Index {
            epoch: first.epoch.clone(),
            created_ms: first.created_ms,
            updated_ms: first.updated_ms,
            calls: first.calls,
            title: first.title.clone(),
            cwd: first.cwd.clone(),
            summary: None,
            first: first.offset,
            entries: VecDeque::new(),
            ids: HashMap::new(),
            phases: HashMap::new(),
            max_events,
        };
        index.push(first);
        index
    }

    /// The epoch of the log.
    pub fn epoch(&self) -> &Epoch {
        &self.epoch
    }

    /// The last offset and its stream sequence.
    pub fn tail(&self) -> (u64, u64) {
        let seq = self.entries.back().map_or(0, |(seq, _)| *seq);
        (self.head(), seq)
    }

    /// The last offset.
    pub fn head(&self) -> u64 {
        self.first + self.entries.len() as u64 - 1
    }

    /// The stream sequence to read from for the offsets after `after`: just past the message
    /// at `after` (messages are in stream order), or the first retained one.
    pub fn read_from(&self, after: u64) -> u64 {
        if after < self.first {
            return self.entries.front().map_or(1, |(seq, _)| *seq);
        }
        let i = (after - self.first) as usize;
        self.entries
            .get(i)
            .map_or_else(|| self.tail().1 + 1, |(seq, _)| seq + 1)
    }

    /// The session's metadata as the index has it.
    pub fn meta(&self) -> SessionMeta {
        SessionMeta {
            epoch: self.epoch.clone(),
            first_offset: self.first,
            head_offset: self.head(),
            created_ms: self.created_ms,
            updated_ms: self.updated_ms,
            calls: self.calls,
            title: self.title.clone(),
            cwd: self.cwd.clone(),
            summary: self.summary.clone(),
        }
    }

    /// Extends the index by the next message; one it already has is ignored.
    pub fn apply(&mut self, stored: &Stored) -> Result<(), Mismatch> {
        if stored.epoch != self.epoch {
            return Err(Mismatch::Epoch);
        }
        if stored.offset <= self.head() {
            return Ok(());
        }
        if stored.offset != self.head() + 1 {
            return Err(Mismatch::Gap);
        }
        self.push(stored);
        Ok(())
    }

    fn push(&mut self, stored: &Stored) {
        let event = &stored.event;
        self.entries.push_back((stored.seq, event.event_id.clone()));
        self.ids.insert(event.event_id.clone(), stored.offset);
        if let Some(subject) = event.body.subject() {
            let phase = self.phases.entry(subject).or_default();
            *phase = phase.after(&event.body);
        }
        self.created_ms = stored.created_ms;
        self.updated_ms = stored.updated_ms;
        self.calls = stored.calls;
        self.title.clone_from(&stored.title);
        self.cwd.clone_from(&stored.cwd);
        self.summary.clone_from(&stored.summary);
        // The server trims by the same limit; ids of trimmed events are forgotten with them.
        while self.max_events > 0 && self.entries.len() as u64 > self.max_events {
            if let Some((_, id)) = self.entries.pop_front() {
                self.ids.remove(&id);
            }
            self.first += 1;
        }
    }

    /// The stream sequence of `offset`, if the index retains it.
    pub fn seq_of(&self, offset: u64) -> Option<u64> {
        let i = offset.checked_sub(self.first)?;
        self.entries.get(i as usize).map(|(seq, _)| *seq)
    }

    /// Forgets the offsets before `offset` (never the last one).
    pub fn trim_before(&mut self, offset: u64) {
        while self.first < offset && self.entries.len() > 1 {
            if let Some((_, id)) = self.entries.pop_front() {
                self.ids.remove(&id);
            }
            self.first += 1;
        }
    }

    /// What the log retains of `events` and has seen of `subjects`.
    pub fn known(&self, events: Vec<EventId>, subjects: Vec<Subject>) -> Known {
        Known {
            events: events
                .into_iter()
                .filter_map(|id| self.ids.get(&id).map(|&o| (id, o)))
                .collect(),
            phases: subjects
                .into_iter()
                .filter_map(|id| self.phases.get(&id).map(|&p| (id, p)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{CallId, CallStarted, EventBody, SessionId};

    fn stored(seq: u64, offset: u64) -> Stored {
        Stored {
            seq,
            offset,
            epoch: Epoch::new("e1").unwrap(),
            created_ms: 1,
            updated_ms: seq,
            calls: offset,
            title: String::new(),
            cwd: String::new(),
            summary: None,
            event: Arc::new(ToolEvent {
                session_id: SessionId::new("s").unwrap(),
                event_id: EventId::new(format!("e{offset}")).unwrap(),
                body: EventBody::CallStarted(CallStarted {
                    parent: None,
                    input_streaming: false,
                    call_id: CallId::new(format!("c{offset}")).unwrap(),
                    tool_name: "bash".into(),
                    arguments_json: "{}".into(),
                    view: None,
                }),
            }),
        }
    }

    #[test]
    fn extends_in_order_trims_and_refuses_gaps() {
        let mut index = Index::new(&stored(10, 1), 2);
        assert_eq!(index.apply(&stored(12, 2)), Ok(()));
        assert_eq!(index.apply(&stored(12, 2)), Ok(()), "a repeat is ignored");
        assert_eq!(index.apply(&stored(20, 4)), Err(Mismatch::Gap));
        assert_eq!(index.apply(&stored(15, 3)), Ok(()));
        assert_eq!(index.tail(), (3, 15));
        let meta = index.meta();
        assert_eq!((meta.first_offset, meta.head_offset), (2, 3));
        let known = index.known(
            vec![EventId::new("e1").unwrap(), EventId::new("e3").unwrap()],
            vec![Subject::call(&CallId::new("c1").unwrap())],
        );
        assert_eq!(known.events.len(), 1, "e1 was trimmed");
        assert_eq!(known.phases.len(), 1, "calls are remembered");
        assert_eq!(index.read_from(0), 12);
        assert_eq!(index.read_from(2), 13);
        assert_eq!(index.read_from(3), 16);
        let mut other = stored(30, 4);
        other.epoch = Epoch::new("e2").unwrap();
        assert_eq!(index.apply(&other), Err(Mismatch::Epoch));
    }
}
