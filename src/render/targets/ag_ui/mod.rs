//! Target AG-UI: tool-call lifecycle events, plus `CUSTOM` events carrying the (degraded) cards
//! and, for `agent.messages`, each call's VIEW card as an activity message (`ACTIVITY_SNAPSHOT`
//! with `activityType: "toolview.card"`; live output appended to its `chunks` by `ACTIVITY_DELTA`,
//! so a chunk costs its own size, not the output's);
//! messages as text and reasoning messages; a turn as a run. The events are typed
//! ([`AgUiEvent`], `event.rs`); the edges encode them.
//!
//! A message is one `*_START`, a `*_CONTENT` per delta and one `*_END`, as a client expects
//! (`onNewMessage` fires once per message); a tool call's start, arguments and end come in one
//! update, except for a call whose input streams (its pieces are `TOOL_CALL_ARGS` as they come,
//! its end comes with the complete input; `docs/call-shapes.md`). A turn's start is a `RUN_STARTED` and its end a `RUN_FINISHED` on the turn's id.
//! `render::frame` frames the updates of a stream: runs around them, and the starts and ends a
//! stream cut inside a message or a streaming input lacks, so `verifyEvents` accepts a stream
//! from any start point.

mod activity;
mod event;

pub use activity::{
    Activity, AgUiFunction, AgUiMessage, AgUiToolCall, Content, McpAppActivity, Role,
};

pub use event::{
    AgUiEvent, Custom, EndedValue, EnvelopePhase, Interrupt, Outcome, PatchKind, PatchOp,
    ReasoningRole, ResetValue, RunResult, TerminalOutput, TextRole, ToolRole, ToolViewEnvelope,
    Usage, WireCursor,
};

use serde_json::Value;

use crate::domain::{ContentBlock, McpApp, MessageRole, StopReason};
use crate::present::call_tool_result;
use crate::render::Context;
use crate::render::cap::cap_blocks;
use crate::render::card::{
    Capabilities, degrade_call, degrade_result, prepared_call, prepared_result,
};
use crate::render::fold::{
    CallState, Change, Finished, InputChange, MessageChange, MessageState, PermissionState, Turn,
};
use crate::render::live::{capped_chunk, capped_streamed, capped_text};
use crate::render::permission::PermissionPrompt;
use crate::render::text_form::flatten;

/// The activity type of toolview's cards in `agent.messages` (content: the VIEW card).
pub const CARD_ACTIVITY: &str = "toolview.card";
/// The activity type of permission requests in `agent.messages` (content: the request, its
/// state and its resolution, as `docs/approvals.md` shows).
pub const PERMISSION_ACTIVITY: &str = "toolview.permission";
/// The activity type of an MCP App a call's result carries (`@ag-ui/mcp-apps-middleware`'s).
pub const MCP_APPS_ACTIVITY: &str = "mcp-apps";

pub(crate) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<AgUiEvent> {
    let cap = caps.cap();
    let mut events = match change {
        Change::Session => Vec::new(),
        Change::Ended(reason) => vec![AgUiEvent::Custom(Custom::SessionEnded(EndedValue {
            reason: reason.to_owned(),
        }))],
        Change::Started(state) => started(state, ctx, caps),
        Change::Input(state, change) => input(state, change, ctx, caps),
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
                    AgUiEvent::ActivityDelta {
                        message_id: activity_id(state),
                        activity_type: CARD_ACTIVITY.into(),
                        patch: vec![PatchOp {
                            op: PatchKind::Add,
                            path: "/chunks/-".into(),
                            value: Value::String(data.into()),
                        }],
                    },
                ]
            }
        }
        Change::Finished(state) => {
            // A call that finished while its input streamed: its arguments end first.
            let mut events: Vec<AgUiEvent> = state
                .input
                .as_ref()
                .map(|_| end(state))
                .into_iter()
                .collect();
            events.extend(finished(state, ctx, caps));
            events
        }
        Change::Turn(turn) => return vec![run_event(turn, ctx)],
        Change::Message(m, change) => message(m, change, caps),
        Change::Permission(p) => return vec![permission(p)],
    };
    if let Change::Started(state) | Change::Snapshot(state) | Change::Finished(state) = change {
        events.push(activity(state, change, ctx, caps));
        if let Some(f) = &state.finished
            && let Some(app) = &f.app
        {
            events.push(app_activity(state, f, app, caps));
        }
    }
    // A parent whose children moved: its card again, with their progress.
    if let Some(parent) = ctx.parent {
        events.push(activity(parent, Change::Snapshot(parent), ctx, caps));
    }
    events
}

/// `ACTIVITY_SNAPSHOT` of a permission request: the prompt while it waits, then what was
/// decided, by whom (a UI renders the prompt, and answers through toolview's answer endpoint).
fn permission(p: &PermissionState) -> AgUiEvent {
    AgUiEvent::ActivitySnapshot {
        message_id: format!("toolview:permission:{}", p.request.request_id),
        activity_type: PERMISSION_ACTIVITY.into(),
        content: Activity::Permission(Box::new(PermissionPrompt::of(p))),
        replace: true,
    }
}

/// `ACTIVITY_SNAPSHOT` of the MCP App a call's result carries, in the shape of
/// `@ag-ui/mcp-apps-middleware`'s activity (CopilotKit's MCP Apps renderer draws it): the MCP
/// result (its text capped like output), the view's resource, the server, the call's input.
fn app_activity(state: &CallState, f: &Finished, app: &McpApp, caps: &Capabilities) -> AgUiEvent {
    let mut content = f.raw_content.clone();
    cap_blocks(&mut content, caps.cap());
    let activity = McpAppActivity {
        result: call_tool_result(app, &content, f.is_error),
        resource_uri: app.resource_uri.clone(),
        server_hash: app.server_hash.clone(),
        tool_input: state.input_value(),
        server_id: (!app.server_id.is_empty()).then(|| app.server_id.clone()),
    };
    AgUiEvent::ActivitySnapshot {
        message_id: format!("toolview:mcp-app:{}", state.call_id),
        activity_type: MCP_APPS_ACTIVITY.into(),
        content: Activity::McpApp(Box::new(activity)),
        replace: true,
    }
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
) -> AgUiEvent {
    let mut content = crate::render::view::card_json(change, ctx, caps);
    if state.finished.is_none()
        && let Some(card) = content.as_object_mut()
    {
        card.insert("chunks".into(), Value::Array(Vec::new()));
    }
    AgUiEvent::ActivitySnapshot {
        message_id: activity_id(state),
        activity_type: CARD_ACTIVITY.into(),
        content: Activity::Card(content),
        replace: true,
    }
}

/// A message as AG-UI streams one: `*_START` (with the start's text, or a late joiner's text
/// so far, as `*_CONTENT`), a `*_CONTENT` per delta (capped like live output; AG-UI refuses an
/// empty one), `*_END` at its finish. An orphan's first delta starts it. A stream that starts or
/// ends inside a message is made whole by `render::frame`.
fn message(m: &MessageState, change: MessageChange<'_>, caps: &Capabilities) -> Vec<AgUiEvent> {
    let cap = caps.cap();
    let kind = match m.role {
        MessageRole::User => Kind::Text(TextRole::User),
        MessageRole::Assistant => Kind::Text(TextRole::Assistant),
        MessageRole::Reasoning => Kind::Reasoning,
    };
    let id = m.message_id.as_str();
    let (start, text) = match change {
        MessageChange::Started | MessageChange::Snapshot => {
            (true, capped_text(&m.text, None, cap).into_owned())
        }
        MessageChange::Delta(chunk) => (
            !m.started && chunk.start == 0,
            capped_chunk(chunk, cap).to_owned(),
        ),
        MessageChange::Finished if !m.started && m.text.is_empty() => return Vec::new(),
        MessageChange::Finished => return vec![kind.end(id)],
    };
    let mut events = Vec::with_capacity(2);
    if start {
        events.push(kind.start(id));
    }
    if !text.is_empty() {
        events.push(kind.content(id, text));
    }
    events
}

/// A text message (with its role) or a reasoning message.
#[derive(Clone, Copy)]
enum Kind {
    Text(TextRole),
    Reasoning,
}

impl Kind {
    fn start(self, id: &str) -> AgUiEvent {
        let message_id = id.to_owned();
        match self {
            Kind::Text(role) => AgUiEvent::TextMessageStart { message_id, role },
            Kind::Reasoning => AgUiEvent::ReasoningMessageStart {
                message_id,
                role: ReasoningRole::Reasoning,
            },
        }
    }

    fn content(self, id: &str, delta: String) -> AgUiEvent {
        let message_id = id.to_owned();
        match self {
            Kind::Text(_) => AgUiEvent::TextMessageContent { message_id, delta },
            Kind::Reasoning => AgUiEvent::ReasoningMessageContent { message_id, delta },
        }
    }

    fn end(self, id: &str) -> AgUiEvent {
        let message_id = id.to_owned();
        match self {
            Kind::Text(_) => AgUiEvent::TextMessageEnd { message_id },
            Kind::Reasoning => AgUiEvent::ReasoningMessageEnd { message_id },
        }
    }
}

/// A turn's start as `RUN_STARTED` and its end as `RUN_FINISHED` on the turn's id (the thread is
/// the session), with the stop reason as the result, a cancel as the `cancelled` outcome and the
/// token usage.
fn run_event(turn: Turn<'_>, ctx: &Context<'_>) -> AgUiEvent {
    let thread_id = ctx.session_id.to_owned();
    let run_id = turn.turn_id.as_str().to_owned();
    match turn.finished {
        None => AgUiEvent::RunStarted { thread_id, run_id },
        Some(f) => AgUiEvent::RunFinished {
            thread_id,
            run_id,
            result: Some(RunResult {
                stop_reason: Some(f.stop_reason.acp_name().into()),
                cursor: None,
            }),
            outcome: (f.stop_reason == StopReason::Cancelled).then_some(Outcome::Cancelled),
            usage: f.usage.map(|u| {
                vec![Usage {
                    input_tokens: u.input_tokens,
                    output_tokens: u.output_tokens,
                    reasoning_tokens: u.reasoning_tokens,
                    cached_input_tokens: u.cached_input_tokens,
                }]
            }),
        },
    }
}

/// A call's start: `TOOL_CALL_START`, its arguments, `TOOL_CALL_END`, and its card. While its
/// input streams: the start and the input so far, no end (it comes with the complete input).
fn started(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<AgUiEvent> {
    let id = || state.call_id.as_str().to_owned();
    let card = prepared_call(state, ctx.cwd, caps.cap()).map(|v| degrade_call(v, caps).to_json());
    let mut events = vec![AgUiEvent::ToolCallStart {
        tool_call_id: id(),
        tool_call_name: state.tool_name.clone(),
    }];
    match &state.input {
        Some(input) => events.extend(args(state, &input.text)),
        None => {
            events.extend(args(state, &state.arguments_json));
            events.push(end(state));
        }
    }
    events.push(envelope(state, EnvelopePhase::Call, card));
    events
}

/// `TOOL_CALL_ARGS` with a piece of the arguments; none for an empty piece (AG-UI refuses an
/// empty delta).
fn args(state: &CallState, delta: &str) -> Option<AgUiEvent> {
    (!delta.is_empty()).then(|| AgUiEvent::ToolCallArgs {
        tool_call_id: state.call_id.as_str().to_owned(),
        delta: delta.to_owned(),
        tool_call_name: state.tool_name.clone(),
    })
}

/// `TOOL_CALL_END`.
fn end(state: &CallState) -> AgUiEvent {
    AgUiEvent::ToolCallEnd {
        tool_call_id: state.call_id.as_str().to_owned(),
        tool_call_name: state.tool_name.clone(),
    }
}

/// A streaming input: each piece as `TOOL_CALL_ARGS` (the arguments are the client's to parse,
/// so they are not capped like output: the fold bounds them), the card again when the fold read
/// the input; at its completion what the complete arguments add, `TOOL_CALL_END` and the
/// presenters' card.
fn input(
    state: &CallState,
    change: InputChange<'_>,
    ctx: &Context<'_>,
    caps: &Capabilities,
) -> Vec<AgUiEvent> {
    let card =
        || prepared_call(state, ctx.cwd, caps.cap()).map(|v| degrade_call(v, caps).to_json());
    let (piece, complete) = match change {
        InputChange::Delta { text, .. } => (text, false),
        InputChange::Complete { rest } => (rest, true),
    };
    let mut events: Vec<AgUiEvent> = args(state, piece).into_iter().collect();
    if complete {
        events.push(end(state));
    }
    if complete || matches!(change, InputChange::Delta { read: true, .. }) {
        events.push(envelope(state, EnvelopePhase::Call, card()));
        events.push(activity(state, Change::Input(state, change), ctx, caps));
    }
    events
}

/// Live output: the `toolview:terminal:output` custom event.
fn output_event(state: &CallState, data: &str) -> AgUiEvent {
    AgUiEvent::Custom(Custom::TerminalOutput(TerminalOutput {
        call_id: state.call_id.as_str().to_owned(),
        data: data.to_owned(),
    }))
}

/// A call's result: `TOOL_CALL_RESULT` and its card.
fn finished(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<AgUiEvent> {
    let cap = caps.cap();
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
        AgUiEvent::ToolCallResult {
            message_id: format!("toolview:{}:{id}:result", ctx.session_id),
            tool_call_id: id.to_owned(),
            content: flatten(&raw),
            role: ToolRole::Tool,
        },
        envelope(state, EnvelopePhase::Result, card),
    ]
}

/// `ENVELOPE(phase, card)`: the `dsh:tool:view` custom event, version 1.
fn envelope(state: &CallState, phase: EnvelopePhase, card: Option<Value>) -> AgUiEvent {
    AgUiEvent::Custom(Custom::ToolView(ToolViewEnvelope {
        version: 1,
        call_id: state.call_id.as_str().to_owned(),
        tool_name: state.tool_name.clone(),
        phase,
        card: card.unwrap_or(Value::Null),
    }))
}
