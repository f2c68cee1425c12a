//! Target AG-UI: tool-call lifecycle events, plus `CUSTOM` events carrying the (degraded) cards
//! and, for `agent.messages`, each call's VIEW card as an activity message (`ACTIVITY_SNAPSHOT`
//! with `activityType: "toolview.card"`; live output appended to its `chunks` by `ACTIVITY_DELTA`,
//! so a chunk costs its own size, not the output's);
//! messages as text and reasoning messages; a turn as a run.
//!
//! Every update is balanced: a message's `*_START` and `*_END` come in the same update (a delta
//! is `START`, `CONTENT`, `END` on the message's id, which the client appends to the one message),
//! so a stream cut at any update — a resume, a late join, the end of a run — is one
//! `verifyEvents` accepts. A turn's start is a `RUN_STARTED` and its end a `RUN_FINISHED` on the
//! turn's id; `RunFrame` frames the updates around them.

use serde_json::{Value, json};

use super::Context;
use super::cap::{cap_blocks, capped_chunk, capped_streamed, capped_text};
use super::card::{Capabilities, degrade_call, degrade_result, prepared_call, prepared_result};
use super::fold::{CallState, Change, MessageChange, MessageState, Turn};
use super::text_form::flatten;
use crate::domain::{ContentBlock, MessageRole, StopReason};

/// The activity type of toolview's cards in `agent.messages` (content: the VIEW card).
pub const CARD_ACTIVITY: &str = "toolview.card";

pub(super) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<String> {
    let cap = caps.max_output_bytes;
    let mut events: Vec<Value> = match change {
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
            } else if state.call_view.is_none() && chunk.start == 0 {
                // An orphan's first output: its activity message starts here.
                vec![
                    output_event(state, data),
                    activity(state, change, ctx, caps),
                ]
            } else {
                vec![
                    output_event(state, data),
                    json!({
                        "type": "ACTIVITY_DELTA",
                        "messageId": activity_id(state),
                        "activityType": CARD_ACTIVITY,
                        "patch": [{"op": "add", "path": "/chunks/-", "value": data}],
                    }),
                ]
            }
        }
        Change::Finished(state) => finished(state, ctx, caps),
        Change::Turn(turn) => return vec![run_event(turn, ctx)],
        Change::Message(m, change) => message(m, change, caps),
    };
    if let Change::Started(state) | Change::Snapshot(state) | Change::Finished(state) = change {
        events.push(activity(state, change, ctx, caps));
    }
    events.iter().map(Value::to_string).collect()
}

/// A call's activity message id: its own id space beside the text messages'.
fn activity_id(state: &CallState) -> String {
    format!("toolview:card:{}", state.call_id)
}

/// `ACTIVITY_SNAPSHOT`: the call's VIEW card as it is after `change`, replacing the one before,
/// with an empty `chunks`: live output after it is appended there (a UI shows `streamed`, then
/// `chunks`), until the next snapshot folds it into `streamed`. A finished card has no `chunks`.
fn activity(
    state: &CallState,
    change: Change<'_>,
    ctx: &Context<'_>,
    caps: &Capabilities,
) -> Value {
    let mut content = super::view::card_json(change, ctx, caps);
    if state.finished.is_none()
        && let Some(card) = content.as_object_mut()
    {
        card.insert("chunks".into(), json!([]));
    }
    json!({
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": activity_id(state),
        "activityType": CARD_ACTIVITY,
        "content": content,
        "replace": true,
    })
}

/// A message's text as one balanced start/content/end triple: its start's text, a delta
/// (capped like live output), a late joiner's text so far. Nothing for its finish (each triple
/// already ended it) or for a delta past the cap.
fn message(m: &MessageState, change: MessageChange<'_>, caps: &Capabilities) -> Vec<Value> {
    let cap = caps.max_output_bytes;
    let text = match change {
        MessageChange::Started | MessageChange::Snapshot => capped_text(&m.text, None, cap),
        MessageChange::Delta(chunk) => match capped_chunk(chunk, cap) {
            "" => return Vec::new(),
            text => text.into(),
        },
        MessageChange::Finished => return Vec::new(),
    };
    let id = m.message_id.as_str();
    let (prefix, role) = match m.role {
        MessageRole::User => ("TEXT_MESSAGE", "user"),
        MessageRole::Assistant => ("TEXT_MESSAGE", "assistant"),
        MessageRole::Reasoning => ("REASONING_MESSAGE", "reasoning"),
    };
    let mut events =
        vec![json!({"type": format!("{prefix}_START"), "messageId": id, "role": role})];
    // AG-UI refuses an empty delta.
    if !text.is_empty() {
        events.push(json!({"type": format!("{prefix}_CONTENT"), "messageId": id, "delta": text}));
    }
    events.push(json!({"type": format!("{prefix}_END"), "messageId": id}));
    events
}

/// A turn's start as `RUN_STARTED` and its end as `RUN_FINISHED` on the turn's id (the thread is
/// the session), with the stop reason as the result, a cancel as the `cancelled` outcome and the
/// token usage. `type` comes first, which is how `RunFrame` knows them ([`run::is_run_event`]).
fn run_event(turn: Turn<'_>, ctx: &Context<'_>) -> String {
    let mut fields = json!({"threadId": ctx.session_id, "runId": turn.turn_id.as_str()});
    let kind = match turn.finished {
        None => "RUN_STARTED",
        Some(f) => {
            fields["result"] = json!({"stopReason": f.stop_reason.acp_name()});
            if f.stop_reason == StopReason::Cancelled {
                fields["outcome"] = json!({"type": "cancelled"});
            }
            if let Some(u) = f.usage {
                let mut usage = serde_json::Map::new();
                for (key, n) in [
                    ("inputTokens", u.input_tokens),
                    ("outputTokens", u.output_tokens),
                    ("reasoningTokens", u.reasoning_tokens),
                    ("cachedInputTokens", u.cached_input_tokens),
                ] {
                    if n > 0 {
                        usage.insert(key.into(), n.into());
                    }
                }
                fields["usage"] = json!([usage]);
            }
            "RUN_FINISHED"
        }
    };
    run::typed(kind, &fields)
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

/// AG-UI runs around a stream of updates: what the AG-UI transports (the HTTP endpoint,
/// `toolview tail` and `render`) send before, between and after the updates' events, so AG-UI
/// clients (`verifyEvents`) accept the stream. Per-event updates carry no framing of their own
/// except a turn's `RUN_STARTED`/`RUN_FINISHED`: they stay one per event, shared by every
/// subscriber whatever its start point.
///
/// The rules: a stream opens with a run of its own (named by its start point); a turn's
/// `RUN_STARTED` first finishes the run open; events outside a turn open a run of the stream's
/// when none is open; a turn's `RUN_FINISHED` (or the end of the stream) finishes the run open,
/// handing back the cursor to resume after in its `result`.
pub mod run {
    use serde_json::{Value, json};

    use crate::domain::Cursor;

    /// `{"type":"<kind>", …fields}`: a run event with its type first, so a transport tells it
    /// from the rest by its first bytes ([`is_run_event`]) without parsing every event.
    pub fn typed(kind: &str, fields: &Value) -> String {
        let rest = fields.to_string();
        let rest = rest.strip_prefix('{').unwrap_or("}");
        let sep = if rest == "}" { "" } else { "," };
        format!("{{\"type\":\"{kind}\"{sep}{rest}")
    }

    /// Whether `event` is a `RUN_STARTED` (`started`) or `RUN_FINISHED` made by [`typed`].
    pub fn is_run_event(event: &str, started: bool) -> bool {
        let kind = if started {
            "RUN_STARTED"
        } else {
            "RUN_FINISHED"
        };
        event
            .strip_prefix("{\"type\":\"")
            .and_then(|rest| rest.strip_prefix(kind))
            .is_some_and(|rest| rest.starts_with('"'))
    }

    /// The run a stream of updates is framed in: its thread (the session), the run open (its id,
    /// or none between a turn's end and what follows), the stream's start point (its own runs'
    /// ids) and the cursor of the last update sent, which `RUN_FINISHED` hands back. One type
    /// for every transport, so a resumed or reset run is framed the same everywhere.
    #[derive(Debug, Clone)]
    pub struct RunFrame {
        thread: String,
        id: String,
        open: bool,
        /// Runs of the stream's own opened after a turn (offline run names).
        runs: u32,
        last: Option<Cursor>,
    }

    /// What a transport sends for one update: `before`, then the update's events with the last
    /// one replaced by `last` when it is set (a turn's `RUN_FINISHED` with the cursor added).
    #[derive(Debug, Default)]
    pub struct Framed {
        /// Events to send before the update's.
        pub before: Vec<String>,
        /// The update's last event as it is to be sent, when it changes.
        pub last: Option<String>,
    }

    impl RunFrame {
        /// A run on `thread`, named `id`; `last` when it resumes after a cursor it already has.
        pub fn new(thread: &str, id: String, last: Option<Cursor>) -> Self {
            RunFrame {
                thread: thread.to_owned(),
                id,
                open: false,
                runs: 0,
                last,
            }
        }

        /// `RUN_STARTED` of the stream's own run (the stream's first event).
        pub fn started(&mut self) -> String {
            self.open = true;
            json!({"type": "RUN_STARTED", "threadId": self.thread, "runId": self.id}).to_string()
        }

        /// Frames one update's events, delivered at `cursor` (`None` offline, where there is no
        /// log: the `n`th run of the stream's own is then `<thread>@<n>`).
        pub fn update(&mut self, events: &[String], cursor: Option<Cursor>) -> Framed {
            let mut framed = Framed::default();
            let opens_turn = events.first().is_some_and(|e| is_run_event(e, true));
            if opens_turn {
                if self.open {
                    framed.before.push(self.finished());
                }
                self.open = true;
            } else if !self.open && !events.is_empty() {
                // Outside a turn: a run of the stream's own, named by where it starts.
                self.runs += 1;
                self.id = match &cursor {
                    Some(c) => format!("{}@{}:{}", self.thread, c.epoch.as_str(), c.offset),
                    None => format!("{}@{}", self.thread, self.runs),
                };
                framed.before.push(self.started());
            }
            if cursor.is_some() {
                self.last = cursor;
            }
            if let Some(last) = events.last().filter(|e| is_run_event(e, false)) {
                framed.last = Some(self.with_cursor(last));
                self.open = false;
            }
            framed
        }

        /// An update was sent without framing (one with no events): `RUN_FINISHED` will hand
        /// back its cursor.
        pub fn delivered(&mut self, cursor: Cursor) {
            self.last = Some(cursor);
        }

        /// `RUN_FINISHED`, with the cursor to resume after (when the stream delivered any) as
        /// the run's `result`.
        pub fn finished(&mut self) -> String {
            self.open = false;
            let mut event =
                json!({"type": "RUN_FINISHED", "threadId": self.thread, "runId": self.id});
            self.add_cursor(&mut event);
            event.to_string()
        }

        /// What ends the stream: `RUN_FINISHED` of the run open, or nothing when a turn's end
        /// finished the last one (it carries the cursor already).
        pub fn end(&mut self) -> Option<String> {
            self.open.then(|| self.finished())
        }

        /// A turn's `RUN_FINISHED` with the cursor added to its `result`.
        fn with_cursor(&self, event: &str) -> String {
            match serde_json::from_str::<Value>(event) {
                Ok(mut event) => {
                    self.add_cursor(&mut event);
                    event.to_string()
                }
                Err(_) => event.to_owned(),
            }
        }

        fn add_cursor(&self, event: &mut Value) {
            if let Some(c) = &self.last {
                let cursor = json!({"epoch": c.epoch.as_str(), "offset": c.offset.to_string()});
                match event.get_mut("result").and_then(Value::as_object_mut) {
                    Some(result) => drop(result.insert("cursor".into(), cursor)),
                    None => event["result"] = json!({"cursor": cursor}),
                }
            }
        }

        /// The log the client was shown is gone (trimmed, expired and recreated, restored):
        /// the run open finishes, one on the log there is starts, and a `CUSTOM toolview:reset`
        /// says so (a UI drops its cards and rebuilds from what follows). The events, in order.
        pub fn reset(&mut self, epoch: &str, head: u64) -> Vec<String> {
            let mut events: Vec<String> = self.end().into_iter().collect();
            self.id = format!("{}@reset:{epoch}", self.thread);
            self.last = None;
            events.push(self.started());
            let value: Value = json!({"epoch": epoch, "head": head.to_string()});
            let reset = json!({"type": "CUSTOM", "name": "toolview:reset", "value": value});
            events.push(reset.to_string());
            events
        }

        /// `RUN_ERROR`: the stream ended with an error (`code`: the gRPC status name).
        pub fn error(message: &str, code: &str) -> String {
            json!({"type": "RUN_ERROR", "message": message, "code": code}).to_string()
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::domain::Epoch;

        fn cursor(offset: u64) -> Cursor {
            Cursor {
                epoch: Epoch::new("e").unwrap(),
                offset,
            }
        }

        #[test]
        fn typed_events_are_known_by_their_first_bytes() {
            let started = typed("RUN_STARTED", &json!({"runId": "t1"}));
            assert_eq!(started, r#"{"type":"RUN_STARTED","runId":"t1"}"#);
            assert!(is_run_event(&started, true));
            assert!(!is_run_event(&started, false));
            assert_eq!(
                typed("RUN_FINISHED", &json!({})),
                r#"{"type":"RUN_FINISHED"}"#
            );
            assert!(!is_run_event(r#"{"type":"RUN_STARTED_X"}"#, true));
            assert!(!is_run_event(
                r#"{"delta":"{\"type\":\"RUN_STARTED\""}"#,
                true
            ));
        }

        #[test]
        fn turns_are_runs_and_the_rest_gets_one() {
            let mut frame = RunFrame::new("s", "s@start".into(), None);
            let first = frame.started();
            assert!(first.contains("s@start"));
            let turn = vec![typed(
                "RUN_STARTED",
                &json!({"threadId": "s", "runId": "t1"}),
            )];
            let framed = frame.update(&turn, Some(cursor(1)));
            assert_eq!(framed.before.len(), 1, "the stream's run finishes first");
            assert!(framed.before[0].contains("RUN_FINISHED"));
            let end = vec![typed(
                "RUN_FINISHED",
                &json!({"runId": "t1", "result": {"stopReason": "end_turn"}}),
            )];
            let framed = frame.update(&end, Some(cursor(2)));
            assert!(framed.before.is_empty());
            let last: Value = serde_json::from_str(framed.last.as_ref().unwrap()).unwrap();
            assert_eq!(last["result"]["stopReason"], "end_turn");
            assert_eq!(last["result"]["cursor"]["offset"], "2");
            assert_eq!(frame.end(), None, "the turn's end finished the run");
            let call = vec![r#"{"type":"CUSTOM"}"#.to_owned()];
            let framed = frame.update(&call, Some(cursor(3)));
            assert!(framed.before[0].contains(r#""runId":"s@e:3""#));
            assert!(frame.end().unwrap().contains(r#""offset":"3""#));
        }
    }
}
