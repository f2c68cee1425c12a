//! The embedded store's tables and values. Every value is `[CRC-32 LE of the rest][record]`,
//! so a damaged byte is found on read and reported for its session only. Records are the
//! storage format's (`toolview.storage.v1`, through the store's [`RecordCodec`]), not the view
//! JSON: the API can change its JSON without touching logs. Earlier formats are moved into
//! these tables when the store opens (`migrate.rs`).

use redb::TableDefinition;

use super::StoreError;
use crate::domain::Phase;
use crate::store::{Record, RecordCodec, SessionMeta};

/// (session id, offset) → [`encode_event`].
pub const EVENTS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events_v3");
/// session id → [`encode_meta`].
pub const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions_v3");
/// (session id, event id) → offset, for every retained event: idempotency without memory.
pub const IDS: TableDefinition<(&str, &str), u64> = TableDefinition::new("ids_v1");
/// (session id, call id) → phase bits ([`phase_bits`]), for every call a session has seen.
pub const CALLS: TableDefinition<(&str, &str), u8> = TableDefinition::new("calls_v1");
/// [`APPLIED`] → the sequence of the last journal group applied to these tables.
pub const JOURNAL: TableDefinition<&str, u64> = TableDefinition::new("journal_v1");
pub const APPLIED: &str = "applied";
/// One key the writer rewrites to learn whether the disk takes writes again.
pub const PROBE: TableDefinition<&str, u64> = TableDefinition::new("probe_v1");

/// Sorts after every id: event and call ids are `[A-Za-z0-9._:-]`, all below `~`, so
/// `(sid, "")..(sid, "~")` spans one session's rows of [`IDS`] and [`CALLS`].
pub const AFTER_ANY_ID: &str = "~";

pub fn checksummed(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// The body of a checksummed value, if it is intact.
pub fn verified(value: &[u8]) -> Option<&[u8]> {
    let (sum, body) = value.split_first_chunk::<4>()?;
    (u32::from_le_bytes(*sum) == crc32fast::hash(body)).then_some(body)
}

/// An appended event, stamped with its log's epoch and the append time.
pub fn encode_event(codec: &dyn RecordCodec, record: &Record, meta: &SessionMeta) -> Vec<u8> {
    checksummed(&codec.encode_event(record, &meta.epoch, meta.updated_ms))
}

/// A stored event, checked: its checksum, its record, and the offset it says it is at.
pub fn decode_event(
    codec: &dyn RecordCodec,
    sid: &str,
    offset: u64,
    value: &[u8],
) -> Result<Record, StoreError> {
    let at = || format!("session {sid}: the event at offset {offset}");
    let body =
        verified(value).ok_or_else(|| StoreError::Corrupt(format!("{} is damaged", at())))?;
    let record = codec
        .decode_event(body)
        .map_err(|e| StoreError::Corrupt(format!("{}: {e}", at())))?;
    if record.offset != offset {
        return Err(StoreError::Corrupt(format!(
            "{} says it is at offset {}",
            at(),
            record.offset
        )));
    }
    Ok(record)
}

/// The id of a stored event (for retention).
pub fn event_id(
    codec: &dyn RecordCodec,
    sid: &str,
    offset: u64,
    value: &[u8],
) -> Result<String, StoreError> {
    Ok(decode_event(codec, sid, offset, value)?
        .event
        .event_id
        .to_string())
}

pub fn encode_meta(codec: &dyn RecordCodec, meta: &SessionMeta) -> Vec<u8> {
    checksummed(&codec.encode_meta(meta))
}

pub fn decode_meta(
    codec: &dyn RecordCodec,
    sid: &str,
    value: &[u8],
) -> Result<SessionMeta, StoreError> {
    let damaged = |why: String| StoreError::Corrupt(format!("session {sid}: its metadata {why}"));
    let body = verified(value).ok_or_else(|| damaged("is damaged".into()))?;
    codec.decode_meta(body).map_err(damaged)
}

/// A phase as the calls table keeps it: a bit each (the input bit is new; stores written before
/// it never set it, and no call of theirs streamed its input).
pub fn phase_bits(p: Phase) -> u8 {
    u8::from(p.started) | (u8::from(p.finished) << 1) | (u8::from(p.input_open) << 2)
}

pub fn phase_of(bits: u8) -> Phase {
    Phase {
        started: bits & 1 != 0,
        finished: bits & 2 != 0,
        input_open: bits & 4 != 0,
    }
}
