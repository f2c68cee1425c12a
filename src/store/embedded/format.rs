//! The embedded store's tables, its record encoding (each value carries a CRC-32 of itself, so
//! a damaged byte is found on read and reported for its session only), and the migration from
//! the first format (unchecked JSON, ids and call phases rebuilt from the log on every start).

use redb::{ReadableDatabase, ReadableTable, TableDefinition, TableHandle, WriteTransaction};

use super::StoreError;
use crate::domain::{CallPhase, Lifecycle, Pending, ToolEvent};
use crate::store::{Record, SessionMeta};

/// (session id, offset) → [`encode_event`].
pub const EVENTS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events_v2");
/// session id → [`encode_meta`].
pub const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions_v2");
/// (session id, event id) → offset, for every retained event: idempotency without memory.
pub const IDS: TableDefinition<(&str, &str), u64> = TableDefinition::new("ids_v1");
/// (session id, call id) → phase bits ([`phase_bits`]), for every call a session has seen.
pub const CALLS: TableDefinition<(&str, &str), u8> = TableDefinition::new("calls_v1");
/// One key the writer rewrites to learn whether the disk takes writes again.
pub const PROBE: TableDefinition<&str, u64> = TableDefinition::new("probe_v1");

/// Sorts after every id: ids are `[A-Za-z0-9._:-]`, all below `~`, so `(sid, "")..(sid, "~")`
/// spans one session's rows of [`IDS`] and [`CALLS`].
pub const AFTER_ANY_ID: &str = "~";

/// The first format's tables (event and meta JSON, no checksums).
const EVENTS_V1: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events_v1");
const SESSIONS_V1: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions_v1");

fn checksummed(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// The body of a checksummed value, if it is intact.
fn verified(value: &[u8]) -> Option<&[u8]> {
    let (sum, body) = value.split_first_chunk::<4>()?;
    (u32::from_le_bytes(*sum) == crc32fast::hash(body)).then_some(body)
}

/// `[crc32 LE][id length: u8][event id][event JSON]`: the id up front lets retention forget
/// trimmed ids without parsing events.
pub fn encode_event(event: &ToolEvent) -> Result<Vec<u8>, StoreError> {
    let id = event.event_id.as_str().as_bytes();
    let mut body = Vec::with_capacity(id.len() + 256);
    body.push(u8::try_from(id.len()).map_err(|_| StoreError::Bug("event id too long".into()))?);
    body.extend_from_slice(id);
    serde_json::to_writer(&mut body, event).map_err(|e| StoreError::Bug(e.to_string()))?;
    Ok(checksummed(&body))
}

/// The event id and JSON of a stored event, checked.
fn event_parts<'a>(
    sid: &str,
    offset: u64,
    value: &'a [u8],
) -> Result<(&'a str, &'a [u8]), StoreError> {
    let damaged = || {
        StoreError::Corrupt(format!(
            "session {sid}: the event at offset {offset} is damaged"
        ))
    };
    let body = verified(value).ok_or_else(damaged)?;
    let (&len, rest) = body.split_first().ok_or_else(damaged)?;
    let (id, json) = rest.split_at_checked(len as usize).ok_or_else(damaged)?;
    Ok((std::str::from_utf8(id).map_err(|_| damaged())?, json))
}

/// The id of a stored event (for retention).
pub fn event_id(sid: &str, offset: u64, value: &[u8]) -> Result<String, StoreError> {
    Ok(event_parts(sid, offset, value)?.0.to_owned())
}

pub fn decode_event(sid: &str, offset: u64, value: &[u8]) -> Result<Record, StoreError> {
    let (_, json) = event_parts(sid, offset, value)?;
    let event: ToolEvent = serde_json::from_slice(json).map_err(|e| {
        StoreError::Corrupt(format!("session {sid}: the event at offset {offset}: {e}"))
    })?;
    Ok(Record {
        offset,
        event: std::sync::Arc::new(event),
    })
}

pub fn encode_meta(meta: &SessionMeta) -> Result<Vec<u8>, StoreError> {
    Ok(checksummed(
        &serde_json::to_vec(meta).map_err(|e| StoreError::Bug(e.to_string()))?,
    ))
}

pub fn decode_meta(sid: &str, value: &[u8]) -> Result<SessionMeta, StoreError> {
    let damaged = |why: String| StoreError::Corrupt(format!("session {sid}: its metadata {why}"));
    let body = verified(value).ok_or_else(|| damaged("is damaged".into()))?;
    serde_json::from_slice(body).map_err(|e| damaged(e.to_string()))
}

pub fn phase_bits(p: CallPhase) -> u8 {
    u8::from(p.started) | (u8::from(p.finished) << 1)
}

pub fn phase_of(bits: u8) -> CallPhase {
    CallPhase {
        started: bits & 1 != 0,
        finished: bits & 2 != 0,
    }
}

/// Creates the tables, and moves a first-format store into them (in the same transaction, so
/// a crash leaves one format or the other).
pub fn prepare(db: &redb::Database) -> Result<(), redb::Error> {
    let has_v1 = {
        let read = db.begin_read()?;
        read.list_tables()?.any(|t| t.name() == SESSIONS_V1.name())
    };
    let tx = db.begin_write()?;
    tx.open_table(EVENTS)?;
    tx.open_table(SESSIONS)?;
    tx.open_table(IDS)?;
    tx.open_table(CALLS)?;
    tx.open_table(PROBE)?;
    if has_v1 {
        migrate_v1(&tx)?;
    }
    tx.commit()?;
    Ok(())
}

fn migrate_v1(tx: &WriteTransaction) -> Result<(), redb::Error> {
    let bad = |e: String| redb::Error::Corrupted(format!("migrating the first store format: {e}"));
    {
        let old_sessions = tx.open_table(SESSIONS_V1)?;
        let old_events = tx.open_table(EVENTS_V1)?;
        let mut events = tx.open_table(EVENTS)?;
        let mut sessions = tx.open_table(SESSIONS)?;
        let mut ids = tx.open_table(IDS)?;
        let mut calls = tx.open_table(CALLS)?;
        for item in old_sessions.iter()? {
            let (k, v) = item?;
            let sid = k.value();
            let mut meta: SessionMeta =
                serde_json::from_slice(v.value()).map_err(|e| bad(e.to_string()))?;
            let lifecycle = Lifecycle::default();
            let mut pending = Pending::default();
            for item in old_events.range((sid, 0)..=(sid, u64::MAX))? {
                let (k, v) = item?;
                let offset = k.value().1;
                let event: ToolEvent =
                    serde_json::from_slice(v.value()).map_err(|e| bad(e.to_string()))?;
                // The log holds only admitted events; this replays the rules' state.
                let _ = lifecycle.check(&mut pending, &event.body);
                let value = encode_event(&event).map_err(|e| bad(e.to_string()))?;
                events.insert((sid, offset), value.as_slice())?;
                ids.insert((sid, event.event_id.as_str()), offset)?;
            }
            let mut seen = 0;
            for (call, phase) in pending.changes() {
                calls.insert((sid, call.as_str()), phase_bits(phase))?;
                seen += 1;
            }
            meta.calls = seen;
            let value = encode_meta(&meta).map_err(|e| bad(e.to_string()))?;
            sessions.insert(sid, value.as_slice())?;
        }
    }
    tx.delete_table(EVENTS_V1)?;
    tx.delete_table(SESSIONS_V1)?;
    tracing::info!("moved the store to the checksummed format");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{CallFinished, CallId, CallStarted, EventBody, EventId, SessionId};
    use crate::store::{EmbeddedStore, Store};

    fn event(n: u32, body: EventBody) -> ToolEvent {
        ToolEvent {
            session_id: SessionId::new("s").unwrap(),
            event_id: EventId::new(format!("e{n}")).unwrap(),
            body,
        }
    }

    /// A store in the first format (as the first releases wrote it) opens, moves to the
    /// checksummed format, and reads back the same events, ids and call phases.
    #[tokio::test]
    async fn the_first_format_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let events = vec![
            event(
                1,
                EventBody::CallStarted(CallStarted {
                    call_id: CallId::new("c1").unwrap(),
                    tool_name: "job_list".into(),
                    arguments_json: "{}".into(),
                    view: None,
                }),
            ),
            event(
                2,
                EventBody::CallFinished(CallFinished {
                    call_id: CallId::new("c1").unwrap(),
                    content: vec![],
                    is_error: false,
                    meta_json: String::new(),
                    view: None,
                }),
            ),
        ];
        {
            let db = redb::Database::create(dir.path().join("toolview.redb")).unwrap();
            let tx = db.begin_write().unwrap();
            {
                let mut t = tx.open_table(EVENTS_V1).unwrap();
                for (i, e) in events.iter().enumerate() {
                    let json = serde_json::to_vec(e).unwrap();
                    t.insert(("s", i as u64 + 1), json.as_slice()).unwrap();
                }
                let mut m = tx.open_table(SESSIONS_V1).unwrap();
                let meta = r#"{"epoch":"abc","first_offset":1,"head_offset":2,"created_ms":5,"updated_ms":6}"#;
                m.insert("s", meta.as_bytes()).unwrap();
            }
            tx.commit().unwrap();
        }
        let store = EmbeddedStore::open(dir.path(), 1 << 20).unwrap();
        let s = SessionId::new("s").unwrap();
        let meta = store.meta(&s).await.unwrap().unwrap();
        assert_eq!(
            (meta.epoch.as_str(), meta.head_offset, meta.calls),
            ("abc", 2, 1)
        );
        let read: Vec<ToolEvent> = store
            .read(&s, 0, 10)
            .await
            .unwrap()
            .iter()
            .map(|r| (*r.event).clone())
            .collect();
        assert_eq!(read, events);
        let known = store
            .known(
                &s,
                vec![EventId::new("e2").unwrap()],
                vec![CallId::new("c1").unwrap()],
            )
            .await
            .unwrap();
        assert_eq!(known.events.get(&EventId::new("e2").unwrap()), Some(&2));
        let phase = known.calls[&CallId::new("c1").unwrap()];
        assert!(phase.started && phase.finished);
        store.close().await;
    }
}
