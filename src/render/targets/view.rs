//! Target VIEW: card snapshots for rich UIs, degraded to the subscriber's capabilities.

use serde::Serialize;

use crate::domain::permission::{PermissionRequested, PermissionResolved};
use crate::domain::{McpApp, MessageRole, StopReason, TokenUsage, ToolCallView, ToolResultView};
use crate::render::Context;
use crate::render::card::{Capabilities, Snapshot, degrade_call, degrade_result};
use crate::render::fold::{
    CallState, CallStatus, Change, Children, InputChange, MessageChange, MessageState, Turn,
};
use crate::render::live::{LiveChunk, capped_text, live_chunk, live_text};
use crate::render::streamed::Chunk;

/// A VIEW update body. Its JSON form (for the CLI and tests) is tagged by `"update"`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "update", rename_all = "snake_case")]
pub enum ViewUpdate {
    /// A UI replaces its card for `call_id` with this snapshot.
    Card(Box<CardSnapshot>),
    /// Live output for a card shown before: a UI appends `text` to its `streamed`.
    #[serde(rename_all = "camelCase")]
    OutputAppended {
        /// The call whose card grows.
        call_id: String,
        /// The chunk, capped ([`crate::render::live::capped_chunk`]).
        text: String,
    },
    /// More input for a pending call's card shown before: a UI appends `text` to its `input`.
    #[serde(rename_all = "camelCase")]
    InputAppended {
        /// The call whose input grows.
        call_id: String,
        /// The piece, capped like an output chunk.
        text: String,
    },
    /// Nothing changed: a live chunk past the output cap.
    Unchanged,
    /// Session-level state.
    Session {
        /// The session's working directory, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// The harness closed the session.
    SessionEnded {
        /// Why, in the harness's words; empty when not said.
        reason: String,
    },
    /// A UI replaces its item for `message_id` with this one.
    #[serde(rename_all = "camelCase")]
    Message {
        /// The message the item shows.
        message_id: String,
        /// Who it is from.
        role: MessageRole,
        /// Its text so far, capped like live output.
        text: String,
        /// Where it is.
        status: MessageStatus,
        /// The call it belongs under (empty: the agent's own).
        #[serde(skip_serializing_if = "String::is_empty")]
        parent_call_id: String,
        /// How many parents it is under.
        #[serde(skip_serializing_if = "is_zero")]
        depth: u8,
    },
    /// More text for a message shown before: a UI appends `text` to its item.
    #[serde(rename_all = "camelCase")]
    MessageAppended {
        /// The message that grows.
        message_id: String,
        /// The delta, capped like an output chunk.
        text: String,
    },
    /// A permission request's state: a UI replaces its item for the request with it.
    Permission(Box<PermissionSnapshot>),
    /// A turn began or ended.
    #[serde(rename_all = "camelCase")]
    Turn {
        /// The turn.
        turn_id: String,
        /// Whether it ended.
        finished: bool,
        /// Why it ended (ended turns).
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_reason: Option<StopReason>,
        /// Its token usage, when the harness sent it.
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<TokenUsage>,
    },
}

/// A permission request as a UI shows it: the request (its display texts cut to the prompt's
/// limits) and, once decided, its resolution.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionSnapshot {
    /// The request.
    pub request: PermissionRequested,
    /// How it was decided; `None` while pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<PermissionResolved>,
}

/// Where a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// More text may come.
    Streaming,
    /// Finished.
    Complete,
}

impl MessageStatus {
    /// Where `m` is, as its item says.
    pub fn of(m: &MessageState) -> Self {
        match m.finished {
            true => MessageStatus::Complete,
            false => MessageStatus::Streaming,
        }
    }
}

/// The full state of one call's card.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardSnapshot {
    /// The call the card shows.
    pub call_id: String,
    /// The tool's name (empty for an orphan).
    pub tool_name: String,
    /// Where the call is.
    pub status: CallStatus,
    /// `None` for an orphan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<ToolCallView>,
    /// The result card, once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResultView>,
    /// The live output so far, capped.
    pub streamed: String,
    /// A pending call's input so far, capped; empty once its input is complete.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub input: String,
    /// The call it runs under (empty at the top).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub parent_call_id: String,
    /// How many parents it is under.
    #[serde(skip_serializing_if = "is_zero")]
    pub depth: u8,
    /// What its children are doing, once it has had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Children>,
    /// The MCP App its result carries, once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_app: Option<McpApp>,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

pub(crate) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> ViewUpdate {
    if let Change::Output(state, chunk) = change {
        match live_chunk(state, chunk, caps.cap(), caps.output_appends) {
            LiveChunk::Snapshot => {}
            LiveChunk::Append(text) => {
                return ViewUpdate::OutputAppended {
                    call_id: state.call_id.to_string(),
                    text: text.to_owned(),
                };
            }
            LiveChunk::Nothing => return ViewUpdate::Unchanged,
        }
    }
    if let Change::Input(state, InputChange::Delta { text, read }) = change
        && let Some(update) = input_delta(state, text, read, caps)
    {
        return update;
    }
    let (state, upto) = match change {
        Change::Session => {
            return ViewUpdate::Session {
                cwd: ctx.cwd.map(str::to_owned),
            };
        }
        Change::Ended(reason) => {
            return ViewUpdate::SessionEnded {
                reason: reason.to_owned(),
            };
        }
        Change::Turn(turn) => return turn_update(turn),
        Change::Message(m, change) => return message(m, change, caps),
        Change::Permission(p) => {
            return ViewUpdate::Permission(Box::new(PermissionSnapshot {
                request: crate::render::permission::shown(&p.request),
                resolution: p.resolution.clone(),
            }));
        }
        Change::Started(s) | Change::Input(s, _) | Change::Finished(s) | Change::Snapshot(s) => {
            (s, None)
        }
        Change::Output(s, chunk) => (s, Some(chunk.end())),
    };
    let snap = Snapshot::at(state, upto, ctx.cwd, caps.cap());
    ViewUpdate::Card(Box::new(CardSnapshot {
        call_id: state.call_id.to_string(),
        tool_name: state.tool_name.clone(),
        // What every drawing says: a command that exited unclean is failed here too, though
        // the harness did not flag an error (ACP keeps the harness's word, as its spec says).
        status: snap.shown_status(),
        call: snap.call.map(|v| degrade_call(v, caps)),
        result: snap.result.map(|v| degrade_result(v, state, caps)),
        streamed: snap.streamed.into_owned(),
        input: snap.input.into_owned(),
        parent_call_id: state
            .parent
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        depth: state.depth,
        children: state.children.clone(),
        mcp_app: state.finished.as_ref().and_then(|f| f.app.clone()),
    }))
}

/// A piece of a pending call's input: an append for a subscriber that takes them, nothing past
/// the cap; `None` (a whole card) when the fold read the input again (its heading may have
/// changed), or for a subscriber without appends — then only at those reads, so snapshots of
/// the input cost O(input) in all, not O(input) per piece.
fn input_delta(
    state: &CallState,
    text: &str,
    read: bool,
    caps: &Capabilities,
) -> Option<ViewUpdate> {
    if read {
        return None;
    }
    let start = state
        .input
        .as_ref()
        .map_or(0, |i| i.text.len() - text.len());
    let chunk = Chunk { text, start };
    Some(match crate::render::live::capped_chunk(chunk, caps.cap()) {
        piece if caps.output_appends && !piece.is_empty() => ViewUpdate::InputAppended {
            call_id: state.call_id.to_string(),
            text: piece.to_owned(),
        },
        _ => ViewUpdate::Unchanged,
    })
}

fn turn_update(turn: Turn<'_>) -> ViewUpdate {
    ViewUpdate::Turn {
        turn_id: turn.turn_id.to_string(),
        finished: turn.finished.is_some(),
        stop_reason: turn.finished.map(|f| f.stop_reason),
        usage: turn.finished.and_then(|f| f.usage),
    }
}

/// A message's item, or its delta as an append (the live rule of call output).
fn message(m: &MessageState, change: MessageChange<'_>, caps: &Capabilities) -> ViewUpdate {
    let cap = caps.cap();
    let upto = match change {
        MessageChange::Delta(chunk) => {
            match live_text(m.started, chunk, cap, caps.output_appends) {
                LiveChunk::Snapshot => Some(chunk.end()),
                LiveChunk::Append(text) => {
                    return ViewUpdate::MessageAppended {
                        message_id: m.message_id.to_string(),
                        text: text.to_owned(),
                    };
                }
                LiveChunk::Nothing => return ViewUpdate::Unchanged,
            }
        }
        MessageChange::Started | MessageChange::Finished | MessageChange::Snapshot => None,
    };
    ViewUpdate::Message {
        message_id: m.message_id.to_string(),
        role: m.role,
        text: capped_text(&m.text, upto, cap).into_owned(),
        status: MessageStatus::of(m),
        parent_call_id: m
            .parent
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        depth: m.depth,
    }
}

/// The call's VIEW card after `change` as JSON (always a whole card: no appends): what the
/// AI SDK's `data-toolview-card` parts and AG-UI's activity messages carry. `Null` for a change
/// that is not about a call.
pub(crate) fn card_json(
    change: Change<'_>,
    ctx: &Context<'_>,
    caps: &Capabilities,
) -> serde_json::Value {
    let snapshots = Capabilities {
        output_appends: false,
        ..*caps
    };
    match render(change, ctx, &snapshots) {
        ViewUpdate::Card(card) => serde_json::to_value(&*card).unwrap_or_default(),
        ViewUpdate::OutputAppended { .. }
        | ViewUpdate::InputAppended { .. }
        | ViewUpdate::Unchanged
        | ViewUpdate::Session { .. }
        | ViewUpdate::SessionEnded { .. }
        | ViewUpdate::Message { .. }
        | ViewUpdate::MessageAppended { .. }
        | ViewUpdate::Permission(_)
        | ViewUpdate::Turn { .. } => serde_json::Value::Null,
    }
}

impl ViewUpdate {
    /// Roughly the bytes the update holds: its strings as they are in memory (and in a protobuf
    /// message), the cards counted as their JSON is written. The live output is counted by its
    /// length, not scanned: a snapshot's size costs O(card), not O(output).
    pub fn approx_bytes(&self) -> usize {
        use crate::render::json_len::json_len;
        match self {
            ViewUpdate::Card(c) => {
                c.call_id.len()
                    + c.tool_name.len()
                    + c.call.as_ref().map_or(0, json_len)
                    + c.result.as_ref().map_or(0, json_len)
                    + c.streamed.len()
                    + c.input.len()
                    + c.mcp_app.as_ref().map_or(0, json_len)
            }
            ViewUpdate::OutputAppended { call_id, text }
            | ViewUpdate::InputAppended { call_id, text } => call_id.len() + text.len(),
            ViewUpdate::Unchanged => 0,
            ViewUpdate::Session { cwd } => cwd.as_ref().map_or(0, String::len),
            ViewUpdate::SessionEnded { reason } => reason.len(),
            ViewUpdate::Message {
                message_id, text, ..
            }
            | ViewUpdate::MessageAppended { message_id, text } => message_id.len() + text.len(),
            ViewUpdate::Turn { turn_id, .. } => turn_id.len() + 64,
            ViewUpdate::Permission(p) => json_len(&**p),
        }
    }
}
