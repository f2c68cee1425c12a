//! The one rendering step: fold an event, render its update for one target and capabilities,
//! and keep the update within the size limit. `Render`, the lanes and the bench all use it.

use serde_json::Value;

use super::cap::floor_boundary;
use super::fold::{CallState, Change, Finished, Fold, InFlight, InputChange, MessageChange, Turn};
use super::{Capabilities, Context, Rendered, Target, render};
use crate::domain::{
    ContentBlock, GenericCallView, GenericResultView, McpApp, ToolCallView, ToolEvent, ToolKind,
    ToolResultView,
};

/// Bytes of a title or tool name an over-limit update's stand-in keeps.
const STAND_IN_TITLE_BYTES: usize = 1024;

/// Folds one session's events in order and renders each for one subscriber.
pub struct Renderer {
    fold: Fold,
    target: Target,
    caps: Capabilities,
    max_update_bytes: usize,
}

impl Renderer {
    /// A renderer from an initial session cwd (empty: none) whose updates stay within about
    /// `max_update_bytes` (`usize::MAX`: no limit). The fold keeps each call's live output only
    /// within the output cap (all of it when there is none).
    pub fn new(
        session_cwd: &str,
        target: Target,
        caps: Capabilities,
        max_update_bytes: usize,
    ) -> Self {
        let retain = caps.cap().retention();
        Renderer {
            fold: Fold::with_retention(session_cwd, retain),
            target,
            caps,
            max_update_bytes,
        }
    }

    /// Renders one event: exactly one update, and its approximate size in bytes (see
    /// [`fitted`] for updates over the limit).
    pub fn step(&mut self, event: &ToolEvent) -> (Rendered, usize) {
        let step = self.fold.apply(event);
        let ctx = Context {
            session_id: event.session_id.as_str(),
            cwd: step.cwd,
            parent: step.parent,
        };
        fitted(
            step.change,
            &ctx,
            self.target,
            &self.caps,
            self.max_update_bytes,
        )
    }

    /// A late joiner's catch-up at the fold's position: the open turn's start, if a turn is
    /// open, then one update per call and message in flight, in the order they started, each
    /// showing everything about it so far ([`Change::Snapshot`], [`MessageChange::Snapshot`]).
    /// Empty when nothing is in flight. A function of the events folded, so the catch-up at a
    /// given start point is always the same.
    pub fn catch_up(&self, session_id: &str) -> Vec<(Rendered, usize)> {
        let ctx = Context {
            session_id,
            cwd: self.fold.cwd(),
            parent: None,
        };
        let turn = self.fold.open_turn().map(|turn_id| {
            Change::Turn(Turn {
                turn_id,
                finished: None,
            })
        });
        let items = self.fold.in_flight().into_iter().map(|item| match item {
            InFlight::Call(state) => Change::Snapshot(state),
            InFlight::Message(state) => Change::Message(state, MessageChange::Snapshot),
            InFlight::Permission(state) => Change::Permission(state),
        });
        turn.into_iter()
            .chain(items)
            .map(|change| fitted(change, &ctx, self.target, &self.caps, self.max_update_bytes))
            .collect()
    }
}

/// Renders one change within about `max_update_bytes`.
///
/// An update over the limit (a card whose arguments, diffs or content are larger than a
/// message may carry once encoded) is rendered again from a stand-in card that keeps the
/// call's identity, status, titles and capped output and says what was left out, so every
/// event a session accepted can be delivered. Deterministic, so replays stay identical.
fn fitted(
    change: Change<'_>,
    ctx: &Context<'_>,
    target: Target,
    caps: &Capabilities,
    max_update_bytes: usize,
) -> (Rendered, usize) {
    let rendered = render(change, ctx, target, caps);
    let size = rendered.approx_bytes();
    if size <= max_update_bytes {
        return (rendered, size);
    }
    let note = format!(
        "… this update is {size} bytes, over the {max_update_bytes}-byte update limit: its card is not shown …"
    );
    let state = match change {
        // A message's text is within the output cap, which leaves room in every update, and a
        // prompt's texts are cut to its limits (`permission.rs`); ids are short.
        // An end's reason is cut to its limit when published.
        Change::Turn(_) | Change::Message(..) | Change::Permission(_) | Change::Ended(_) => {
            return (rendered, size);
        }
        // Only VIEW renders a session update: its cwd is what can be too large.
        Change::Session => {
            let ctx = Context { cwd: None, ..*ctx };
            let rendered = render(change, &ctx, target, caps);
            let size = rendered.approx_bytes();
            return (rendered, size);
        }
        Change::Started(s)
        | Change::Input(s, _)
        | Change::Output(s, _)
        | Change::Finished(s)
        | Change::Snapshot(s) => s,
    };
    for keep_output in [true, false] {
        let stand_in = stand_in(state, &note, keep_output);
        let change = match change {
            Change::Session
            | Change::Ended(_)
            | Change::Turn(_)
            | Change::Message(..)
            | Change::Permission(_) => {
                unreachable!("handled above")
            }
            Change::Started(_) => Change::Started(&stand_in),
            Change::Input(_, input) if keep_output => Change::Input(&stand_in, input),
            Change::Input(_, InputChange::Delta { read, .. }) => {
                Change::Input(&stand_in, InputChange::Delta { text: "", read })
            }
            Change::Input(_, InputChange::Complete { .. }) => {
                Change::Input(&stand_in, InputChange::Complete { rest: "" })
            }
            Change::Output(_, chunk) if keep_output => Change::Output(&stand_in, chunk),
            Change::Output(_, chunk) => Change::Output(
                &stand_in,
                super::Chunk {
                    text: "",
                    start: chunk.start,
                },
            ),
            Change::Finished(_) => Change::Finished(&stand_in),
            Change::Snapshot(_) => Change::Snapshot(&stand_in),
        };
        let rendered = render(change, ctx, target, caps);
        let size = rendered.approx_bytes();
        if size <= max_update_bytes || !keep_output {
            return (rendered, size);
        }
    }
    unreachable!("the second stand-in is always returned")
}

fn short(s: &str) -> String {
    s[..floor_boundary(s, STAND_IN_TITLE_BYTES)].to_owned()
}

/// A small card in place of one too large to send: generic call and result cards with the
/// titles and a note, the live output and the input so far kept (they are within the output
/// cap) or dropped.
fn stand_in(state: &CallState, note: &str, keep_output: bool) -> CallState {
    let kind = |v: &ToolCallView| match v {
        ToolCallView::Generic(g) => g.kind,
        ToolCallView::Diff(_) => Some(ToolKind::Edit),
        ToolCallView::Terminal(_) => Some(ToolKind::Execute),
    };
    CallState {
        call_id: state.call_id.clone(),
        tool_name: short(&state.tool_name),
        arguments_json: String::new(),
        args: Value::Null,
        input: state.input.as_ref().map(|input| {
            if keep_output {
                input.clone()
            } else {
                input.emptied()
            }
        }),
        // A plan too large for an update is left out with the rest.
        plan: None,
        call_view: state.call_view.as_ref().map(|v| {
            ToolCallView::Generic(GenericCallView {
                title: short(v.title()),
                kind: kind(v),
                raw_input: None,
                content: vec![ContentBlock::text(note)],
                locations: Vec::new(),
            })
        }),
        streamed: if keep_output {
            state.streamed.clone()
        } else {
            super::Streamed::new(0)
        },
        finished: state.finished.as_ref().map(|f| Finished {
            view: ToolResultView::Generic(GenericResultView {
                title: f.view.title().map(short),
                content: vec![ContentBlock::text(note)],
            }),
            raw_content: vec![ContentBlock::text(note)],
            is_error: f.is_error,
            // The app's reference stays; what it would render (maybe the bulk) does not.
            app: f.app.as_ref().map(|a| McpApp {
                structured_content: None,
                meta: serde_json::Value::Null,
                ..a.clone()
            }),
        }),
        status: state.status,
        order: state.order,
        parent: state.parent.clone(),
        depth: state.depth,
        children: state.children.clone(),
    }
}
