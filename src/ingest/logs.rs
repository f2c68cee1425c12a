//! Log records → events: Claude Code's events (`CLAUDE_CODE_ENABLE_TELEMETRY=1`,
//! `OTEL_LOGS_EXPORTER=otlp`). A `tool_result` event is a whole call (Claude Code logs a call
//! once, when it ends, with its parameters but not its output); a `user_prompt` event is the
//! user's message when the prompt is logged (`OTEL_LOG_USER_PROMPTS=1`). Other records are
//! ignored. Ids derive from the record's time and content, so a retried export appends nothing.

use super::map::Mapped;
use super::session::session_of;
use super::span::LogRecord;
use crate::domain::{
    CallFinished, CallId, CallStarted, ContentBlock, EventBody, EventId, MessageFinished,
    MessageId, MessageRole, MessageStarted, SessionId, ToolEvent,
};

/// Maps a request's log records to events, in time order.
pub fn map_logs(records: &[LogRecord]) -> Mapped {
    let mut mapped = Mapped::default();
    let mut timed: Vec<(u64, ToolEvent)> = Vec::new();
    for record in records {
        let name = record.event_name.as_str();
        let name = name.strip_prefix("claude_code.").unwrap_or(name);
        let session = session_of(&record.attributes, &record.resource, "");
        let key = format!("{:x}:{:08x}", record.time_ns, fingerprint(record));
        let events = match name {
            "tool_result" => tool_result(record, &session, &key).inspect(|_| mapped.calls += 1),
            "user_prompt" => {
                user_prompt(record, &session, &key).inspect(|_| mapped.conversation += 1)
            }
            _ => None,
        };
        match events {
            Some(events) => timed.extend(events.into_iter().map(|e| (record.time_ns, e))),
            None => mapped.ignored += 1,
        }
    }
    timed.sort_by_key(|(at, _)| *at);
    let mut seen = std::collections::HashSet::new();
    mapped.events = timed
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| seen.insert((e.session_id.clone(), e.event_id.clone())))
        .collect();
    mapped
}

/// A checksum of the record's name and attributes: with its time, the record's identity.
fn fingerprint(record: &LogRecord) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(record.event_name.as_bytes());
    for (k, v) in &record.attributes.0 {
        h.update(k.as_bytes());
        h.update(v.to_string().as_bytes());
    }
    h.finalize()
}

fn event(session: &SessionId, id: String, body: EventBody) -> Option<ToolEvent> {
    Some(ToolEvent {
        session_id: session.clone(),
        event_id: EventId::new(id).ok()?,
        body,
    })
}

/// `tool_result`: `tool_name`, `success`, `error`, and the input as `tool_input` (with
/// `OTEL_LOG_TOOL_DETAILS=1`) or `tool_parameters`.
fn tool_result(record: &LogRecord, session: &SessionId, key: &str) -> Option<Vec<ToolEvent>> {
    let a = &record.attributes;
    let tool_name = a.first_str(&["tool_name"])?.to_owned();
    let call_id = CallId::new(format!("otel:log:{key}")).ok()?;
    let failed = a.first_text(&["success"]).is_some_and(|s| s == "false");
    let error = a.first_text(&["error"]).filter(|e| !e.is_empty());
    let started = EventBody::CallStarted(CallStarted {
        call_id: call_id.clone(),
        tool_name,
        arguments_json: a
            .first_text(&["tool_input", "tool_parameters"])
            .unwrap_or_default(),
        view: None,
        input_streaming: false,
        parent: None,
    });
    let finished = EventBody::CallFinished(CallFinished {
        call_id,
        content: error
            .map(|text| ContentBlock::Text { text })
            .into_iter()
            .collect(),
        is_error: failed,
        meta_json: String::new(),
        view: None,
    });
    Some(vec![
        event(session, format!("otel:log:{key}:call"), started)?,
        event(session, format!("otel:log:{key}:call:end"), finished)?,
    ])
}

/// `user_prompt`, when it carries the `prompt` text.
fn user_prompt(record: &LogRecord, session: &SessionId, key: &str) -> Option<Vec<ToolEvent>> {
    let text = record.attributes.first_str(&["prompt"])?.to_owned();
    let message_id = MessageId::new(format!("otel:log:{key}")).ok()?;
    let started = EventBody::MessageStarted(MessageStarted {
        message_id: message_id.clone(),
        role: MessageRole::User,
        text,
        parent: None,
    });
    let finished = EventBody::MessageFinished(MessageFinished { message_id });
    Some(vec![
        event(session, format!("otel:log:{key}:message"), started)?,
        event(session, format!("otel:log:{key}:message:end"), finished)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::Attributes;
    use serde_json::json;

    fn record(name: &str, pairs: &[(&str, serde_json::Value)]) -> LogRecord {
        LogRecord {
            time_ns: 1_700_000_000_000_000_000,
            event_name: name.into(),
            attributes: Attributes(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).into(), v.clone()))
                    .collect(),
            ),
            resource: Default::default(),
        }
    }

    #[test]
    fn claude_code_events() {
        let records = [
            record(
                "user_prompt",
                &[("session.id", json!("cc-1")), ("prompt", json!("fix it"))],
            ),
            record(
                "claude_code.tool_result",
                &[
                    ("session.id", json!("cc-1")),
                    ("tool_name", json!("Bash")),
                    ("success", json!("false")),
                    ("error", json!("exit 1")),
                    ("tool_input", json!(r#"{"command":"make"}"#)),
                ],
            ),
            record("api_request", &[]),
        ];
        let mapped = map_logs(&records);
        assert_eq!(
            (mapped.calls, mapped.conversation, mapped.ignored),
            (1, 1, 1)
        );
        assert_eq!(mapped.events.len(), 4);
        assert!(
            mapped
                .events
                .iter()
                .all(|e| e.session_id.as_str() == "cc-1")
        );
        let EventBody::CallFinished(f) = &mapped.events[3].body else {
            panic!("a finish last")
        };
        assert!(f.is_error);
        // The same records again make the same ids.
        let again = map_logs(&records);
        let ids = |m: &Mapped| {
            m.events
                .iter()
                .map(|e| e.event_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&mapped), ids(&again));
    }
}
