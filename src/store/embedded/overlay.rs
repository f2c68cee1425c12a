//! What is durable in the journal but not yet applied to the database, for reads.
//!
//! A session's overlay holds its newest state: its metadata, and the events, ids and call phases
//! of groups the applier has not committed yet, each tagged with its group's sequence so that
//! an applied group is removed exactly. Readers look here first and then in the database
//! (never the other way round: a group applied in between is then seen twice, which merging
//! absorbs, instead of not at all).

use std::collections::{BTreeMap, HashMap};

use crate::domain::Phase;
use crate::store::{Record, SessionAppend, SessionMeta};

struct Pending {
    meta: SessionMeta,
    meta_seq: u64,
    /// Offset → (sequence, record); contiguous up to the head.
    records: BTreeMap<u64, (u64, Record)>,
    ids: HashMap<String, (u64, u64)>,
    calls: HashMap<String, (u64, Phase)>,
}

/// The unapplied groups' state, by session.
#[derive(Default)]
pub struct Overlay {
    sessions: HashMap<String, Pending>,
    /// Bytes held (as [`super::journal::Group::bytes`] counts them).
    pub bytes: usize,
}

/// What the overlay says about a read.
pub struct ReadPlan {
    /// Events before this offset are trimmed by an unapplied group: skip them in the database.
    pub floor: u64,
    /// The overlay's events after the read's start, in order.
    pub records: Vec<Record>,
    /// Whether `records` continue directly from the read's start, so the database need not
    /// be asked.
    pub complete: bool,
}

impl Overlay {
    /// Adds a journaled group.
    pub fn insert<'a>(
        &mut self,
        seq: u64,
        appends: impl Iterator<Item = &'a SessionAppend>,
        bytes: usize,
    ) {
        self.bytes += bytes;
        for a in appends {
            let p = self
                .sessions
                .entry(a.session.to_string())
                .or_insert_with(|| Pending {
                    meta: a.meta.clone(),
                    meta_seq: seq,
                    records: BTreeMap::new(),
                    ids: HashMap::new(),
                    calls: HashMap::new(),
                });
            p.meta = a.meta.clone();
            p.meta_seq = seq;
            for r in &a.records {
                p.records.insert(r.offset, (seq, r.clone()));
                p.ids.insert(r.event.event_id.to_string(), (seq, r.offset));
            }
            if let Some(before) = a.trim_before {
                p.records = p.records.split_off(&before);
                p.ids.retain(|_, (_, offset)| *offset >= before);
            }
            for (subject, phase) in &a.phases {
                p.calls.insert(subject.key().into_owned(), (seq, *phase));
            }
        }
    }

    /// Removes what groups up to `seq` added to `sessions` (they are in the database now).
    pub fn applied<'a>(&mut self, seq: u64, sessions: impl Iterator<Item = &'a str>, bytes: usize) {
        self.bytes = self.bytes.saturating_sub(bytes);
        for sid in sessions {
            let Some(p) = self.sessions.get_mut(sid) else {
                continue;
            };
            while p
                .records
                .first_key_value()
                .is_some_and(|(_, (s, _))| *s <= seq)
            {
                p.records.pop_first();
            }
            p.ids.retain(|_, (s, _)| *s > seq);
            p.calls.retain(|_, (s, _)| *s > seq);
            if p.meta_seq <= seq {
                self.sessions.remove(sid);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    pub fn meta(&self, sid: &str) -> Option<SessionMeta> {
        self.sessions.get(sid).map(|p| p.meta.clone())
    }

    /// Every session's newest metadata here.
    pub fn metas(&self) -> Vec<(String, SessionMeta)> {
        let mut out: Vec<_> = self
            .sessions
            .iter()
            .map(|(k, p)| (k.clone(), p.meta.clone()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The first retained offset, if an unapplied group set it.
    pub fn floor(&self, sid: &str) -> Option<u64> {
        self.sessions.get(sid).map(|p| p.meta.first_offset)
    }

    /// An event id's offset, if an unapplied group stored it.
    pub fn event(&self, sid: &str, id: &str) -> Option<u64> {
        self.sessions.get(sid)?.ids.get(id).map(|v| v.1)
    }

    pub fn call(&self, sid: &str, call: &str) -> Option<Phase> {
        self.sessions.get(sid)?.calls.get(call).map(|v| v.1)
    }

    /// Up to `max` events after `after`.
    pub fn read(&self, sid: &str, after: u64, max: usize) -> ReadPlan {
        let Some(p) = self.sessions.get(sid) else {
            return ReadPlan {
                floor: 0,
                records: Vec::new(),
                complete: false,
            };
        };
        let records: Vec<Record> = p
            .records
            .range(after.saturating_add(1)..)
            .take(max)
            .map(|(_, (_, r))| r.clone())
            .collect();
        let start = after.saturating_add(1).max(p.meta.first_offset);
        ReadPlan {
            floor: p.meta.first_offset,
            complete: records.first().is_some_and(|r| r.offset <= start)
                || start > p.meta.head_offset,
            records,
        }
    }
}
