//! Target AI SDK: the Vercel AI SDK's UI message stream chunks (what `useChat` reads), one JSON
//! object each. A session is one assistant message: its calls are dynamic tool parts (input
//! available at the start, or `input-streaming` piece by piece until it completes; output
//! available or error at the finish), each call's VIEW card is a
//! `data-toolview-card` part with the call's id (a later one replaces it), assistant text and
//! reasoning are text and reasoning parts, a user message is a `data-toolview-user` part, and a
//! turn is a step. The chunks are typed ([`UiChunk`], `chunk.rs`); the edges encode them, and
//! `render::frame` adds what a transport sends around the updates (`start`, `finish`).
//!
//! The chunk order the SDK's `processUIMessageStream` needs holds for every start point: a call's
//! input parts come before anything else about it (with its start, in a late joiner's catch-up,
//! or with an orphan's first output or result), and a text part is started before its deltas
//! (with the message's start, or in a catch-up).

mod chunk;

pub use chunk::{NoticeData, OutputData, ResetData, SessionData, ToolOutput, UiChunk, UserData};

use serde_json::Value;

use crate::domain::{MCP_APP_MIME_TYPE, McpApp, MessageRole, ToolCallView};
use crate::present::call_tool_result;
use crate::render::Context;
use crate::render::cap::cap_blocks;
use crate::render::card::{Capabilities, prepared_call};
use crate::render::fold::{
    CallState, Change, Finished, InputChange, MessageChange, MessageState, PermissionState, Turn,
};
use crate::render::live::{LiveChunk, capped_chunk, capped_text, live_chunk};
use crate::render::streamed::Chunk;
use crate::render::text_form::flatten;
use crate::render::view;

pub(crate) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<UiChunk> {
    let mut chunks = chunks(change, ctx, caps);
    // A parent whose children moved: its card again, with their progress.
    if let Some(parent) = ctx.parent {
        chunks.push(card(parent, Change::Snapshot(parent), ctx, caps));
    }
    chunks
}

fn chunks(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<UiChunk> {
    match change {
        Change::Session => Vec::new(),
        Change::Ended(reason) => vec![ended(reason)],
        Change::Turn(turn) => vec![step(turn)],
        Change::Message(m, change) => message(m, change, caps),
        Change::Permission(p) => permission(p),
        Change::Started(state) | Change::Snapshot(state) => {
            let mut chunks = input(state, ctx, caps);
            chunks.push(card(state, change, ctx, caps));
            if let Some(finished) = &state.finished {
                chunks.push(output(state, finished, caps));
            }
            chunks
        }
        Change::Input(state, input) => input_change(state, input, ctx, caps),
        Change::Output(state, chunk) => live_output(state, chunk, ctx, caps),
        Change::Finished(state) => {
            // An orphan result with no output before: its input parts first; a call that
            // finished while its input streamed: its input as it was.
            let mut chunks = if state.call_view.is_none() && state.streamed.is_empty() {
                input(state, ctx, caps)
            } else if state.input.is_some() {
                vec![input_available(state, ctx, caps)]
            } else {
                Vec::new()
            };
            if let Some(finished) = &state.finished {
                chunks.push(output(state, finished, caps));
            }
            chunks.push(card(state, change, ctx, caps));
            chunks
        }
    }
}

/// The harness closed the session: a part kept in the message (a later one replaces it).
fn ended(reason: &str) -> UiChunk {
    UiChunk::DataToolviewSession {
        id: "session".into(),
        data: SessionData {
            state: "ended".into(),
            reason: reason.to_owned(),
        },
    }
}

/// More of a streaming call's input, or its completion.
fn input_change(
    state: &CallState,
    change: InputChange<'_>,
    ctx: &Context<'_>,
    caps: &Capabilities,
) -> Vec<UiChunk> {
    let mut chunks = Vec::new();
    match change {
        InputChange::Delta { text, read } => {
            // An orphan's first input (no start folded): its part starts here.
            let first = state
                .input
                .as_ref()
                .is_some_and(|i| i.text.len() == text.len());
            if first && state.tool_name.is_empty() {
                chunks.push(input_start(state, ctx, caps));
            }
            chunks.extend(input_delta(state, text));
            if read {
                chunks.push(card(state, Change::Input(state, change), ctx, caps));
            }
        }
        InputChange::Complete { .. } => {
            chunks.push(input_available(state, ctx, caps));
            chunks.push(card(state, Change::Input(state, change), ctx, caps));
        }
    }
    chunks
}

/// A chunk of a running call's output: appended to its card, or its card again.
fn live_output(
    state: &CallState,
    chunk: Chunk<'_>,
    ctx: &Context<'_>,
    caps: &Capabilities,
) -> Vec<UiChunk> {
    let cap = caps.cap();
    let mut chunks = Vec::new();
    // An orphan's first output: its input parts first, so the card has a tool part.
    let shown = state.call_view.is_some() || chunk.start > 0;
    if !shown {
        chunks.extend(input(state, ctx, caps));
    }
    match live_chunk(state, chunk, cap, caps.output_appends && shown) {
        LiveChunk::Nothing => {}
        LiveChunk::Append(text) => chunks.push(UiChunk::DataToolviewOutput {
            data: OutputData {
                call_id: state.call_id.as_str().to_owned(),
                text: text.to_owned(),
            },
            transient: true,
        }),
        LiveChunk::Snapshot => chunks.push(card(state, Change::Output(state, chunk), ctx, caps)),
    }
    chunks
}

/// A permission request: on its call's tool part while the call runs (`tool-approval-request`,
/// then `tool-approval-response` naming who decided), and always as a
/// `data-toolview-permission` part with the prompt, the options and the decision.
fn permission(p: &PermissionState) -> Vec<UiChunk> {
    let approval_id = p.request.request_id.to_string();
    let mut chunks = Vec::new();
    if let Some(call) = p.request.call_id.as_ref().filter(|_| p.call_running) {
        chunks.push(match &p.resolution {
            None => UiChunk::ToolApprovalRequest {
                approval_id: approval_id.clone(),
                tool_call_id: call.to_string(),
            },
            Some(res) => {
                let by = res.resolved_by.describe();
                UiChunk::ToolApprovalResponse {
                    approval_id: approval_id.clone(),
                    approved: crate::render::permission::allowed(&p.request, Some(res)),
                    reason: if res.reason.is_empty() {
                        by
                    } else {
                        format!("{by}: {}", res.reason)
                    },
                }
            }
        });
    }
    chunks.push(UiChunk::DataToolviewPermission {
        id: approval_id,
        data: Box::new(crate::render::permission::PermissionPrompt::of(p)),
    });
    chunks
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
/// title the card's. While the input streams: the start and the text so far as one
/// `tool-input-delta` (the part is `input-streaming`).
fn input(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> Vec<UiChunk> {
    let mut chunks = vec![input_start(state, ctx, caps)];
    match &state.input {
        Some(input) => chunks.extend(input_delta(state, &input.text)),
        None => chunks.push(input_available(state, ctx, caps)),
    }
    chunks
}

/// The card's title, as the input parts carry it.
fn title(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> String {
    prepared_call(state, ctx.cwd, caps.cap())
        .map(|v| ToolCallView::title(&v).to_owned())
        .unwrap_or_else(|| state.call_id.as_str().to_owned())
}

fn input_start(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> UiChunk {
    UiChunk::ToolInputStart {
        tool_call_id: state.call_id.as_str().to_owned(),
        tool_name: tool_name(state).to_owned(),
        dynamic: true,
        title: title(state, ctx, caps),
    }
}

/// `tool-input-delta` with a piece of the input (its text is the client's to parse, so it is
/// not capped like output: the fold bounds it); none for an empty piece.
fn input_delta(state: &CallState, text: &str) -> Option<UiChunk> {
    (!text.is_empty()).then(|| UiChunk::ToolInputDelta {
        tool_call_id: state.call_id.as_str().to_owned(),
        input_text_delta: text.to_owned(),
    })
}

/// `tool-input-available`: the parsed arguments (their text when they are not JSON); for a
/// call that finished while its input streamed, the input so far as the fold last read it.
fn input_available(state: &CallState, ctx: &Context<'_>, caps: &Capabilities) -> UiChunk {
    UiChunk::ToolInputAvailable {
        tool_call_id: state.call_id.as_str().to_owned(),
        tool_name: tool_name(state).to_owned(),
        input: state.input_value(),
        dynamic: true,
        title: title(state, ctx, caps),
    }
}

/// `tool-output-available` (`{text, isError: false}`: the result's text, capped) or
/// `tool-output-error` with that text.
fn output(state: &CallState, finished: &Finished, caps: &Capabilities) -> UiChunk {
    let tool_call_id = state.call_id.as_str().to_owned();
    let mut content = finished.raw_content.clone();
    cap_blocks(&mut content, caps.cap());
    let text = flatten(&content);
    let app = finished.app.as_ref();
    let tool_metadata = app.map(|app| app_metadata(state, app));
    if finished.is_error {
        let error_text = if text.is_empty() {
            "failed".into()
        } else {
            text
        };
        UiChunk::ToolOutputError {
            tool_call_id,
            error_text,
            dynamic: true,
            tool_metadata,
        }
    } else {
        let mcp = app.and_then(|app| match call_tool_result(app, &content, false) {
            Value::Object(result) => Some(result),
            _ => None,
        });
        UiChunk::ToolOutputAvailable {
            tool_call_id,
            output: ToolOutput {
                text,
                is_error: false,
                mcp,
            },
            dynamic: true,
            tool_metadata,
        }
    }
}

/// The tool metadata of a call whose result carries an MCP App, in `@ai-sdk/mcp`'s shape: what
/// an AI SDK UI that hosts MCP Apps reads (`part.toolMetadata.app.resourceUri`).
fn app_metadata(state: &CallState, app: &McpApp) -> Value {
    let mut metadata = serde_json::json!({
        "toolName": state.tool_name,
        "app": {"resourceUri": app.resource_uri, "mimeType": MCP_APP_MIME_TYPE},
    });
    if !app.server_id.is_empty() {
        metadata["clientName"] = Value::String(app.server_id.clone());
    }
    metadata
}

/// `data-toolview-card`: the call's VIEW card as it is after this change (a snapshot; the
/// part's id is the call's, so the UI keeps one per call).
fn card(state: &CallState, change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> UiChunk {
    UiChunk::DataToolviewCard {
        id: state.call_id.as_str().to_owned(),
        data: view::card_json(change, ctx, caps),
    }
}

/// A turn is a step: `start-step` when it begins, `finish-step` when it ends.
fn step(turn: Turn<'_>) -> UiChunk {
    match turn.finished {
        None => UiChunk::StartStep {},
        Some(_) => UiChunk::FinishStep {},
    }
}

/// Assistant text and reasoning as text and reasoning parts (started with the message or in a
/// catch-up, a delta per delta, ended with it); a user message as a `data-toolview-user` part
/// with its text so far (the SDK's stream carries one assistant message: the user's words are
/// the chat's own messages, or, for a watched session, this part).
fn message(m: &MessageState, change: MessageChange<'_>, caps: &Capabilities) -> Vec<UiChunk> {
    let cap = caps.cap();
    let id = m.message_id.as_str();
    let part = match m.role {
        MessageRole::Assistant => Part::Text,
        MessageRole::Reasoning => Part::Reasoning,
        MessageRole::User => {
            let upto = match change {
                MessageChange::Delta(chunk) if !cap.allows(chunk.start as u64) => {
                    return Vec::new();
                }
                MessageChange::Delta(chunk) => Some(chunk.end()),
                MessageChange::Started | MessageChange::Finished | MessageChange::Snapshot => None,
            };
            return vec![UiChunk::DataToolviewUser {
                id: id.to_owned(),
                data: UserData {
                    text: capped_text(&m.text, upto, cap).into_owned(),
                    complete: m.finished,
                },
            }];
        }
    };
    match change {
        MessageChange::Started | MessageChange::Snapshot => {
            let text = capped_text(&m.text, None, cap);
            let mut chunks = vec![part.start(id)];
            if !text.is_empty() {
                chunks.push(part.delta(id, &text));
            }
            chunks
        }
        MessageChange::Delta(chunk) => {
            // An orphan's text (no start folded): its part starts here.
            let mut chunks = if !m.started && chunk.start == 0 {
                vec![part.start(id)]
            } else {
                Vec::new()
            };
            match capped_chunk(chunk, cap) {
                "" => {}
                text => chunks.push(part.delta(id, text)),
            }
            chunks
        }
        MessageChange::Finished if !m.started && m.text.is_empty() => Vec::new(),
        MessageChange::Finished => vec![part.end(id)],
    }
}

/// The two kinds of streamed part.
#[derive(Clone, Copy)]
enum Part {
    Text,
    Reasoning,
}

impl Part {
    fn start(self, id: &str) -> UiChunk {
        let id = id.to_owned();
        match self {
            Part::Text => UiChunk::TextStart { id },
            Part::Reasoning => UiChunk::ReasoningStart { id },
        }
    }

    fn delta(self, id: &str, delta: &str) -> UiChunk {
        let (id, delta) = (id.to_owned(), delta.to_owned());
        match self {
            Part::Text => UiChunk::TextDelta { id, delta },
            Part::Reasoning => UiChunk::ReasoningDelta { id, delta },
        }
    }

    fn end(self, id: &str) -> UiChunk {
        let id = id.to_owned();
        match self {
            Part::Text => UiChunk::TextEnd { id },
            Part::Reasoning => UiChunk::ReasoningEnd { id },
        }
    }
}
