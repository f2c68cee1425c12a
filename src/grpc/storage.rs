//! The storage format's codec: records as the protobuf messages of `toolview.storage.v1`
//! (`proto/toolview/storage/v1/storage.proto`). It lives here because this is the module that
//! names generated types; the store only sees [`RecordCodec`].

use std::sync::Arc;

use prost::Message as _;

use super::convert::summary_from_pb;
use super::pb;
use super::storage_pb::{StoredEvent, StoredSession};
use crate::domain::{Epoch, ToolEvent};
use crate::store::{Record, RecordCodec, SessionMeta};

/// Records as `toolview.storage.v1` messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct StorageCodec;

impl RecordCodec for StorageCodec {
    fn encode_event(&self, record: &Record, epoch: &Epoch, appended_ms: u64) -> Vec<u8> {
        StoredEvent {
            event: Some(pb::ToolEvent::from((*record.event).clone())),
            offset: record.offset,
            epoch: epoch.to_string(),
            appended_ms,
        }
        .encode_to_vec()
    }

    fn decode_event(&self, bytes: &[u8]) -> Result<Record, String> {
        let StoredEvent {
            event,
            offset,
            epoch: _,
            appended_ms: _,
        } = StoredEvent::decode(bytes).map_err(|e| e.to_string())?;
        let event = event.ok_or("event: not set")?;
        let event = ToolEvent::try_from(event).map_err(|e| format!("event.{e}"))?;
        Ok(Record {
            offset,
            event: Arc::new(event),
        })
    }

    fn encode_meta(&self, meta: &SessionMeta) -> Vec<u8> {
        let SessionMeta {
            epoch,
            first_offset,
            head_offset,
            created_ms,
            updated_ms,
            calls,
            title,
            cwd,
            summary,
        } = meta;
        StoredSession {
            epoch: epoch.to_string(),
            first_offset: *first_offset,
            head_offset: *head_offset,
            created_ms: *created_ms,
            updated_ms: *updated_ms,
            calls: *calls,
            title: title.clone(),
            cwd: cwd.clone(),
            summary: summary.as_ref().map(Into::into),
            summary_awaiting_message_id: summary
                .as_ref()
                .map(|s| s.awaiting_message_id.clone())
                .unwrap_or_default(),
        }
        .encode_to_vec()
    }

    fn decode_meta(&self, bytes: &[u8]) -> Result<SessionMeta, String> {
        let StoredSession {
            epoch,
            first_offset,
            head_offset,
            created_ms,
            updated_ms,
            calls,
            title,
            cwd,
            summary,
            summary_awaiting_message_id,
        } = StoredSession::decode(bytes).map_err(|e| e.to_string())?;
        let summary = summary
            .map(|s| summary_from_pb(s, summary_awaiting_message_id))
            .transpose()
            .map_err(|e| format!("summary.{e}"))?;
        Ok(SessionMeta {
            epoch: Epoch::new(epoch).map_err(|e| format!("epoch: {e}"))?,
            first_offset,
            head_offset,
            created_ms,
            updated_ms,
            calls,
            title,
            cwd,
            summary,
        })
    }
}
