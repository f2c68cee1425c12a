//! Moving earlier formats into the current tables, once, when the store opens:
//!
//! - v1 (the first releases): event and metadata JSON without checksums; ids and call phases
//!   were rebuilt from the log on every start, so they are rebuilt here once.
//! - v2: checksummed JSON (`[crc][id length][event id][event JSON]`, `[crc][meta JSON]`) — the
//!   view JSON of the domain types, which made the API's JSON the log's format. The id index and
//!   call phases (`ids_v1`, `calls_v1`) are the same tables today.
//!
//! `tests/api/store_fixture.rs` replays a committed v2 directory byte-identically.

use redb::{ReadableDatabase, ReadableTable, TableDefinition, TableHandle, WriteTransaction};

use super::format::{
    CALLS, EVENTS, IDS, JOURNAL, PROBE, SESSIONS, encode_event, encode_meta, phase_bits, verified,
};
use crate::domain::{Lifecycle, Pending, ToolEvent};
use crate::store::{Record, RecordCodec, SessionMeta};

const EVENTS_V1: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events_v1");
const SESSIONS_V1: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions_v1");
const EVENTS_V2: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events_v2");
const SESSIONS_V2: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions_v2");

fn bad(e: impl std::fmt::Display) -> redb::Error {
    redb::Error::Corrupted(format!("migrating an earlier store format: {e}"))
}

/// Creates the tables, and moves a store of an earlier format into them (in the same
/// transaction, so a crash leaves one format or the other).
pub fn prepare(db: &redb::Database, codec: &dyn RecordCodec) -> Result<(), redb::Error> {
    let existing: Vec<String> = {
        let read = db.begin_read()?;
        read.list_tables()?.map(|t| t.name().to_owned()).collect()
    };
    let tx = db.begin_write()?;
    tx.open_table(EVENTS)?;
    tx.open_table(SESSIONS)?;
    tx.open_table(IDS)?;
    tx.open_table(CALLS)?;
    tx.open_table(PROBE)?;
    tx.open_table(JOURNAL)?;
    earlier_formats(&tx, &existing, codec)?;
    tx.commit()?;
    Ok(())
}

/// Moves whatever earlier tables `existing` names into the current ones, then drops them.
pub fn earlier_formats(
    tx: &WriteTransaction,
    existing: &[String],
    codec: &dyn RecordCodec,
) -> Result<(), redb::Error> {
    let has = |t: &TableDefinition<'_, &str, &[u8]>| {
        existing.iter().any(|n| n == redb::TableHandle::name(t))
    };
    if has(&SESSIONS_V1) {
        from_v1(tx, codec)?;
        tx.delete_table(EVENTS_V1)?;
        tx.delete_table(SESSIONS_V1)?;
        tracing::info!("moved the store from the first format to the current one");
    }
    if has(&SESSIONS_V2) {
        from_v2(tx, codec)?;
        tx.delete_table(EVENTS_V2)?;
        tx.delete_table(SESSIONS_V2)?;
        tracing::info!("moved the store from checksummed JSON to the storage format");
    }
    Ok(())
}

fn from_v1(tx: &WriteTransaction, codec: &dyn RecordCodec) -> Result<(), redb::Error> {
    let old_sessions = tx.open_table(SESSIONS_V1)?;
    let old_events = tx.open_table(EVENTS_V1)?;
    let mut events = tx.open_table(EVENTS)?;
    let mut sessions = tx.open_table(SESSIONS)?;
    let mut ids = tx.open_table(IDS)?;
    let mut calls = tx.open_table(CALLS)?;
    for item in old_sessions.iter()? {
        let (k, v) = item?;
        let sid = k.value();
        let mut meta: SessionMeta = serde_json::from_slice(v.value()).map_err(bad)?;
        let lifecycle = Lifecycle::default();
        let mut pending = Pending::default();
        for item in old_events.range((sid, 0)..=(sid, u64::MAX))? {
            let (k, v) = item?;
            let offset = k.value().1;
            let event: ToolEvent = serde_json::from_slice(v.value()).map_err(bad)?;
            // The log holds only admitted events; this replays the rules' state.
            let _ = lifecycle.check(&mut pending, &event.body);
            ids.insert((sid, event.event_id.as_str()), offset)?;
            let record = Record {
                offset,
                event: std::sync::Arc::new(event),
            };
            events.insert(
                (sid, offset),
                encode_event(codec, &record, &meta).as_slice(),
            )?;
        }
        let mut seen = 0;
        for (call, phase) in pending.changes() {
            calls.insert((sid, &*call.key()), phase_bits(phase))?;
            seen += 1;
        }
        meta.calls = seen;
        sessions.insert(sid, encode_meta(codec, &meta).as_slice())?;
    }
    Ok(())
}

fn from_v2(tx: &WriteTransaction, codec: &dyn RecordCodec) -> Result<(), redb::Error> {
    let old_sessions = tx.open_table(SESSIONS_V2)?;
    let old_events = tx.open_table(EVENTS_V2)?;
    let mut events = tx.open_table(EVENTS)?;
    let mut sessions = tx.open_table(SESSIONS)?;
    for item in old_sessions.iter()? {
        let (k, v) = item?;
        let sid = k.value();
        let damaged = |what: String| bad(format!("session {sid}: {what}"));
        let body = verified(v.value()).ok_or_else(|| damaged("its metadata is damaged".into()))?;
        let meta: SessionMeta = serde_json::from_slice(body).map_err(|e| damaged(e.to_string()))?;
        for item in old_events.range((sid, 0)..=(sid, u64::MAX))? {
            let (k, v) = item?;
            let offset = k.value().1;
            let at = || format!("the event at offset {offset}");
            // `[crc][id length][event id][event JSON]`
            let json = verified(v.value())
                .and_then(|body| {
                    let (&len, rest) = body.split_first()?;
                    rest.get(len as usize..)
                })
                .ok_or_else(|| damaged(format!("{} is damaged", at())))?;
            let event: ToolEvent =
                serde_json::from_slice(json).map_err(|e| damaged(format!("{}: {e}", at())))?;
            let record = Record {
                offset,
                event: std::sync::Arc::new(event),
            };
            events.insert(
                (sid, offset),
                encode_event(codec, &record, &meta).as_slice(),
            )?;
        }
        sessions.insert(sid, encode_meta(codec, &meta).as_slice())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::domain::{
        CallFinished, CallId, CallStarted, EventBody, EventId, SessionId, Subject,
    };
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
                    parent: None,
                    input_streaming: false,
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
        let store =
            EmbeddedStore::open(dir.path(), 1 << 20, Arc::new(crate::grpc::StorageCodec)).unwrap();
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
                vec![Subject::call(&CallId::new("c1").unwrap())],
            )
            .await
            .unwrap();
        assert_eq!(known.events.get(&EventId::new("e2").unwrap()), Some(&2));
        let phase = known.phases[&Subject::call(&CallId::new("c1").unwrap())];
        assert!(phase.started && phase.finished);
        store.close().await;
    }
}
