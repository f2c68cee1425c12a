//! Target AG-UI: tool-call lifecycle events, plus `CUSTOM` events carrying the (degraded) cards.

use serde_json::{Value, json};

use super::Context;
use super::cap::{cap_blocks, capped_chunk, capped_streamed};
use super::card::{Capabilities, degrade_call, degrade_result, prepared_call, prepared_result};
use super::fold::{CallState, Change};
use super::text_form::flatten;
use crate::domain::ContentBlock;

pub(super) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<String> {
    let cap = caps.max_output_bytes;
    let events: Vec<Value> = match change {
        Change::Session => Vec::new(),
        Change::Started(state) => started(state, ctx, caps),
        Change::Snapshot(state) => {
            // Its start, its output so far, and its result if it finished.
            let mut events = started(state, ctx, caps);
            if !state.streamed.is_empty() {
                events.push(output_event(state, &capped_streamed(state, None, cap)));
            }
            if state.finished.is_some() {
                events.extend(finished(state, ctx, caps));
            }
            events
        }
        Change::Output(state, chunk) => {
            let data = capped_chunk(chunk, cap);
            if data.is_empty() && !chunk.text.is_empty() {
                // Past the cap: nothing more is sent.
                Vec::new()
            } else {
                vec![output_event(state, data)]
            }
        }
        Change::Finished(state) => finished(state, ctx, caps),
    };
    events.iter().map(Value::to_string).collect()
}

/// A call's start: `TOOL_CALL_START`, its arguments, `TOOL_CALL_END`, and its card.
fn started(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<Value> {
    let id = state.call_id.as_str();
    let card = prepared_call(state, ctx.cwd, caps.max_output_bytes)
        .map(|v| degrade_call(v, caps).to_json());
    vec![
        json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": state.tool_name}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": state.arguments_json}),
        json!({"type": "TOOL_CALL_END", "toolCallId": id}),
        envelope(state, "call", card),
    ]
}

/// Live output: the `toolview:terminal:output` custom event.
fn output_event(state: &CallState, data: &str) -> Value {
    json!({
        "type": "CUSTOM",
        "name": "toolview:terminal:output",
        "value": {"callId": state.call_id.as_str(), "data": data},
    })
}

/// A call's result: `TOOL_CALL_RESULT` and its card.
fn finished(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<Value> {
    let cap = caps.max_output_bytes;
    let id = state.call_id.as_str();
    let mut raw: Vec<ContentBlock> = state
        .finished
        .as_ref()
        .map(|f| f.raw_content.clone())
        .unwrap_or_default();
    cap_blocks(&mut raw, cap);
    let card =
        prepared_result(state, ctx.cwd, cap).map(|v| degrade_result(v, state, caps).to_json());
    vec![
        json!({
            "type": "TOOL_CALL_RESULT",
            "messageId": format!("toolview:{}:{id}:result", ctx.session_id),
            "toolCallId": id,
            "content": flatten(&raw),
            "role": "tool",
        }),
        envelope(state, "result", card),
    ]
}

/// `ENVELOPE(phase, card)`: the `dsh:tool:view` custom event, version 1.
fn envelope(state: &CallState, phase: &str, card: Option<Value>) -> Value {
    json!({
        "type": "CUSTOM",
        "name": "dsh:tool:view",
        "value": {
            "version": 1,
            "callId": state.call_id.as_str(),
            "toolName": state.tool_name,
            "phase": phase,
            "card": card.unwrap_or(Value::Null),
        },
    })
}

/// An AG-UI run around a stream of updates: what the AG-UI transports (the HTTP endpoint,
/// `toolview tail` and `render`) send before, between and after the updates' events, so AG-UI
/// clients (`verifyEvents`) accept the stream. Per-event updates carry no run events: they stay
/// one per event, shared by every subscriber whatever its start point.
pub mod run {
    use serde_json::{Value, json};

    use crate::domain::Cursor;

    /// The run a stream of updates is framed in: its thread (the session), its id (the start
    /// point) and the cursor of the last update sent, which `RUN_FINISHED` hands back. One type
    /// for every transport, so a resumed or reset run is framed the same everywhere.
    #[derive(Debug, Clone)]
    pub struct RunFrame {
        thread: String,
        id: String,
        last: Option<Cursor>,
    }

    impl RunFrame {
        /// A run on `thread`, named `id`; `last` when it resumes after a cursor it already has.
        pub fn new(thread: &str, id: String, last: Option<Cursor>) -> Self {
            RunFrame {
                thread: thread.to_owned(),
                id,
                last,
            }
        }

        /// `RUN_STARTED`.
        pub fn started(&self) -> String {
            json!({"type": "RUN_STARTED", "threadId": self.thread, "runId": self.id}).to_string()
        }

        /// An update was sent: `RUN_FINISHED` will hand back its cursor.
        pub fn delivered(&mut self, cursor: Cursor) {
            self.last = Some(cursor);
        }

        /// `RUN_FINISHED`, with the cursor to resume after (when the stream delivered any) as
        /// the run's `result`.
        pub fn finished(&self) -> String {
            let mut event =
                json!({"type": "RUN_FINISHED", "threadId": self.thread, "runId": self.id});
            if let Some(c) = &self.last {
                event["result"] =
                    json!({"cursor": {"epoch": c.epoch.as_str(), "offset": c.offset.to_string()}});
            }
            event.to_string()
        }

        /// The log the client was shown is gone (trimmed, expired and recreated, restored):
        /// this run finishes, one on the log there is starts, and a `CUSTOM toolview:reset`
        /// says so (a UI drops its cards and rebuilds from what follows). The three events, in
        /// order.
        pub fn reset(&mut self, epoch: &str, head: u64) -> [String; 3] {
            let finished = self.finished();
            self.id = format!("{}@reset:{epoch}", self.thread);
            self.last = None;
            let value: Value = json!({"epoch": epoch, "head": head.to_string()});
            let reset = json!({"type": "CUSTOM", "name": "toolview:reset", "value": value});
            [finished, self.started(), reset.to_string()]
        }

        /// `RUN_ERROR`: the stream ended with an error (`code`: the gRPC status name).
        pub fn error(message: &str, code: &str) -> String {
            json!({"type": "RUN_ERROR", "message": message, "code": code}).to_string()
        }
    }
}
