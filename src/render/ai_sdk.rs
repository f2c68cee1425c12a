//! Target AI SDK: the Vercel AI SDK's UI message stream chunks (what `useChat` reads), one JSON
//! object each. A session is one assistant message: its calls are dynamic tool parts (input
//! available at the start; output available or error at the finish), each call's VIEW card is a
//! `data-toolview-card` part with the call's id (a later one replaces it), assistant text and
//! reasoning are text and reasoning parts, a user message is a `data-toolview-user` part, and a
//! turn is a step. `frame` holds what a transport sends around the updates (`start`, `finish`).
//!
//! The chunk order the SDK's `processUIMessageStream` needs holds for every start point: a call's
//! input parts come before anything else about it (with its start, in a late joiner's catch-up,
//! or with an orphan's first output or result), and a text part is started before its deltas
//! (with the message's start, or in a catch-up).

use serde_json::{Value, json};

use super::Context;
use super::cap::{LiveChunk, cap_blocks, capped_chunk, capped_text, live_chunk};
use super::card::{Capabilities, prepared_call};
use super::fold::{CallState, Change, MessageChange, MessageState, Turn};
use super::text_form::flatten;
use super::view;
use crate::domain::{MessageRole, ToolCallView};

pub(super) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<String> {
    let chunks = match change {
        Change::Session => Vec::new(),
        Change::Turn(turn) => vec![step(turn)],
        Change::Message(m, change) => message(m, change, caps),
        Change::Started(state) | Change::Snapshot(state) => {
            let mut chunks = input(state, ctx, caps);
            chunks.push(card(change, ctx, caps));
            if state.finished.is_some() {
                chunks.push(output(state, caps));
            }
            chunks
        }
        Change::Output(state, chunk) => {
            let cap = caps.max_output_bytes;
            let mut chunks = Vec::new();
            // An orphan's first output: its input parts first, so the card has a tool part.
            let shown = state.call_view.is_some() || chunk.start > 0;
            if !shown {
                chunks.extend(input(state, ctx, caps));
            }
            match live_chunk(state, chunk, cap, caps.output_appends && shown) {
                LiveChunk::Nothing => {}
                LiveChunk::Append(text) => chunks.push(json!({
                    "type": "data-toolview-output",
                    "data": {"callId": state.call_id.as_str(), "text": text},
                    "transient": true,
                })),
                LiveChunk::Snapshot => chunks.push(card(change, ctx, caps)),
            }
            chunks
        }
        Change::Finished(state) => {
            // An orphan result with no output before: its input parts first.
            let mut chunks = if state.call_view.is_none() && state.streamed.is_empty() {
                input(state, ctx, caps)
            } else {
                Vec::new()
            };
            chunks.push(output(state, caps));
            chunks.push(card(change, ctx, caps));
            chunks
        }
    };
    chunks.iter().map(Value::to_string).collect()
}

/// The tool's name as the SDK shows it (an orphan's is `unknown`).
fn tool_name(state: &CallState) -> &str {
    if state.tool_name.is_empty() {
        "unknown"
    } else {
        &state.tool_name
    }
}

/// `tool-input-start` and `tool-input-available`: a dynamic tool (the UI declared none of
/// toolview's), its input the parsed arguments (or their text when they are not JSON), its
/// title the card's.
fn input(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<Value> {
    let id = state.call_id.as_str();
    let name = tool_name(state);
    let title = prepared_call(state, ctx.cwd, caps.max_output_bytes)
        .map(|v| ToolCallView::title(&v).to_owned())
        .unwrap_or_else(|| id.to_owned());
    let input = match &state.args {
        Value::Null if !state.arguments_json.is_empty() => {
            Value::String(state.arguments_json.clone())
        }
        args => args.clone(),
    };
    vec![
        json!({"type": "tool-input-start", "toolCallId": id, "toolName": name, "dynamic": true, "title": title}),
        json!({"type": "tool-input-available", "toolCallId": id, "toolName": name, "input": input, "dynamic": true, "title": title}),
    ]
}

/// `tool-output-available` (`{text, isError: false}`: the result's text, capped) or
/// `tool-output-error` with that text.
fn output(state: &CallState, caps: &Capabilities) -> Value {
    let id = state.call_id.as_str();
    let Some(finished) = &state.finished else {
        return Value::Null;
    };
    let mut content = finished.raw_content.clone();
    cap_blocks(&mut content, caps.max_output_bytes);
    let text = flatten(&content);
    if finished.is_error {
        let error = if text.is_empty() { "failed" } else { &text };
        json!({"type": "tool-output-error", "toolCallId": id, "errorText": error, "dynamic": true})
    } else {
        json!({"type": "tool-output-available", "toolCallId": id, "output": {"text": text, "isError": false}, "dynamic": true})
    }
}

/// `data-toolview-card`: the call's VIEW card as it is after this change (a snapshot; the
/// part's id is the call's, so the UI keeps one per call).
fn card(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Value {
    let data = view::card_json(change, ctx, caps);
    let id = data["callId"].as_str().unwrap_or_default().to_owned();
    json!({"type": "data-toolview-card", "id": id, "data": data})
}

/// A turn is a step: `start-step` when it begins, `finish-step` when it ends.
fn step(turn: Turn<'_>) -> Value {
    match turn.finished {
        None => json!({"type": "start-step"}),
        Some(_) => json!({"type": "finish-step"}),
    }
}

/// Assistant text and reasoning as text and reasoning parts (started with the message or in a
/// catch-up, a delta per delta, ended with it); a user message as a `data-toolview-user` part
/// with its text so far (the SDK's stream carries one assistant message: the user's words are
/// the chat's own messages, or, for a watched session, this part).
fn message(m: &MessageState, change: MessageChange<'_>, caps: &Capabilities) -> Vec<Value> {
    let cap = caps.max_output_bytes;
    let id = m.message_id.as_str();
    let prefix = match m.role {
        MessageRole::Assistant => "text",
        MessageRole::Reasoning => "reasoning",
        MessageRole::User => {
            let upto = match change {
                MessageChange::Delta(chunk) if cap > 0 && chunk.start as u64 > cap => {
                    return Vec::new();
                }
                MessageChange::Delta(chunk) => Some(chunk.end()),
                MessageChange::Started | MessageChange::Finished | MessageChange::Snapshot => None,
            };
            let text = capped_text(&m.text, upto, cap);
            return vec![json!({
                "type": "data-toolview-user",
                "id": id,
                "data": {"text": text, "complete": m.finished},
            })];
        }
    };
    let start = || json!({"type": format!("{prefix}-start"), "id": id});
    let delta = |text: &str| json!({"type": format!("{prefix}-delta"), "id": id, "delta": text});
    match change {
        MessageChange::Started | MessageChange::Snapshot => {
            let text = capped_text(&m.text, None, cap);
            let mut chunks = vec![start()];
            if !text.is_empty() {
                chunks.push(delta(&text));
            }
            chunks
        }
        MessageChange::Delta(chunk) => {
            // An orphan's text (no start folded): its part starts here.
            let mut chunks = if !m.started && chunk.start == 0 {
                vec![start()]
            } else {
                Vec::new()
            };
            match capped_chunk(chunk, cap) {
                "" => {}
                text => chunks.push(delta(text)),
            }
            chunks
        }
        MessageChange::Finished if !m.started && m.text.is_empty() => Vec::new(),
        MessageChange::Finished => vec![json!({"type": format!("{prefix}-end"), "id": id})],
    }
}

/// What a transport sends around a stream of updates: `start` first (the assistant message's
/// id names the session, so a resumed stream replaces the message it replays), `finish` at the
/// end, `error` for a failure, and a new `start` when the log was reset.
pub mod frame {
    use serde_json::json;

    /// The assistant message's id for a session.
    pub fn message_id(session: &str) -> String {
        format!("toolview:{session}")
    }

    /// `start`: the stream's first chunk.
    pub fn start(session: &str) -> String {
        json!({"type": "start", "messageId": message_id(session)}).to_string()
    }

    /// `finish`: the stream's last chunk.
    pub fn finish() -> String {
        json!({"type": "finish"}).to_string()
    }

    /// `error`, then the stream ends.
    pub fn error(message: &str) -> String {
        json!({"type": "error", "errorText": message}).to_string()
    }

    /// The log the client was shown is gone: a `start` of a new message (the SDK drops the
    /// parts it holds for it) and a transient `data-toolview-reset` saying why; the replay of
    /// the log there is follows.
    pub fn reset(session: &str, epoch: &str, head: u64) -> [String; 2] {
        let id = format!("{}@reset:{epoch}", message_id(session));
        [
            json!({"type": "start", "messageId": id}).to_string(),
            json!({"type": "data-toolview-reset", "data": {"epoch": epoch, "head": head.to_string()}, "transient": true})
                .to_string(),
        ]
    }
}
