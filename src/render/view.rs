//! Target VIEW: card snapshots for rich UIs, degraded to the subscriber's capabilities.

use serde::Serialize;

use super::Context;
use super::card::{Capabilities, Snapshot, degrade_call, degrade_result};
use super::fold::{CallStatus, Change};
use crate::domain::{ToolCallView, ToolResultView};

/// A VIEW update body. Its JSON form (for the CLI and tests) is tagged by `"update"`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "update", rename_all = "snake_case")]
pub enum ViewUpdate {
    /// A UI replaces its card for `call_id` with this snapshot.
    Card(Box<CardSnapshot>),
    /// Session-level state.
    Session {
        /// The session's working directory, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
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
}

pub(super) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> ViewUpdate {
    let Some(snap) = Snapshot::of(change, ctx.cwd, caps.max_output_bytes) else {
        return ViewUpdate::Session {
            cwd: ctx.cwd.map(str::to_owned),
        };
    };
    let state = snap.state;
    ViewUpdate::Card(Box::new(CardSnapshot {
        call_id: state.call_id.to_string(),
        tool_name: state.tool_name.clone(),
        status: state.status,
        call: snap.call.map(|v| degrade_call(v, caps)),
        result: snap.result.map(|v| degrade_result(v, state, caps)),
        streamed: snap.streamed.into_owned(),
    }))
}
