//! Fold: session events → per-call card state. Pure and total: any event sequence folds (the
//! service rejects lifecycle violations before they reach a log, but `Render` input and property
//! tests may contain them).

use std::collections::HashMap;

use serde_json::Value;

use super::streamed::{Chunk, Streamed};
use crate::domain::{
    CallId, ContentBlock, EventBody, Plan, ToolCallView, ToolEvent, ToolResultView,
};
use crate::present::{
    StartedCall, ToolResult, parse_arguments, parse_meta, plan, resolve_call, resolve_result,
};

/// A call's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Started (or seen) and not finished.
    InProgress,
    /// Finished without error.
    Completed,
    /// Finished with an error.
    Failed,
}

/// What a finished event left.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The result card (the harness's or a presenter's).
    pub view: ToolResultView,
    /// The result content as the tool returned it.
    pub raw_content: Vec<ContentBlock>,
    /// Whether the tool failed.
    pub is_error: bool,
}

/// One call's card state.
#[derive(Debug, Clone, PartialEq)]
pub struct CallState {
    /// The call's id.
    pub call_id: CallId,
    /// Empty for an orphan (output or a result without a started call).
    pub tool_name: String,
    /// The raw argument text, verbatim.
    pub arguments_json: String,
    /// The parsed arguments (`Null` when they did not parse).
    pub args: Value,
    /// What a todo call's arguments plan (from the presenters).
    pub plan: Option<Plan>,
    /// `None` for an orphan.
    pub call_view: Option<ToolCallView>,
    /// The live output so far (its head and tail, within the fold's retention).
    pub streamed: Streamed,
    /// The result, once finished.
    pub finished: Option<Finished>,
    /// Where the call is.
    pub status: CallStatus,
    /// When the fold first saw the call (a counter): calls in flight are listed in this order.
    pub order: u64,
}

impl CallState {
    fn orphan(call_id: CallId, retain: usize, order: u64) -> Self {
        CallState {
            order,
            call_id,
            tool_name: String::new(),
            arguments_json: String::new(),
            args: Value::Null,
            plan: None,
            call_view: None,
            streamed: Streamed::new(retain),
            finished: None,
            status: CallStatus::InProgress,
        }
    }

    /// The call's display title: the call view's, or the call id for an orphan.
    pub fn title(&self) -> &str {
        self.call_view
            .as_ref()
            .map_or(self.call_id.as_str(), ToolCallView::title)
    }
}

/// What an event changed, for the renderers.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    /// A `SessionStarted` event.
    Session,
    /// A call was started.
    Started(&'a CallState),
    /// A chunk of the call's live output arrived (the state already includes it).
    Output(&'a CallState, Chunk<'a>),
    /// The call finished.
    Finished(&'a CallState),
    /// Everything a subscriber that was not shown the call needs to show it as it is now (a
    /// late joiner's catch-up): its start, its output so far and, if it finished, its result.
    Snapshot(&'a CallState),
}

/// One applied event: what changed, and the session cwd to render it with.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// What changed.
    pub change: Change<'a>,
    /// The session's working directory.
    pub cwd: Option<&'a str>,
}

/// The folded state of one session.
///
/// Only calls still running are kept: a finished call is moved out into `last_finished` (for
/// its own update) and then forgotten, because the lifecycle rules admit no later event for it.
/// So a fold's memory is bounded by the calls in flight, not by the session's length; and each
/// call's live output is kept only within the fold's retention (see [`Streamed`]).
#[derive(Debug, Clone)]
pub struct Fold {
    /// Bytes of live output kept at each end of a call's output: at least the largest output
    /// cap the fold is rendered with (`usize::MAX` for none).
    retain: usize,
    cwd: Option<String>,
    calls: HashMap<CallId, CallState>,
    last_finished: Option<CallState>,
    /// The next call's `order`.
    next_order: u64,
}

impl Fold {
    /// A fold with an initial session cwd (empty means none) that keeps all live output.
    pub fn new(cwd: &str) -> Self {
        Fold::with_retention(cwd, usize::MAX)
    }

    /// A fold that keeps the first and last `retain` bytes of each call's live output: enough
    /// for any output cap up to `retain`.
    pub fn with_retention(cwd: &str, retain: usize) -> Self {
        Fold {
            retain,
            cwd: (!cwd.is_empty()).then(|| cwd.to_owned()),
            calls: HashMap::new(),
            last_finished: None,
            next_order: 0,
        }
    }

    /// The session cwd: from the latest `SessionStarted`, else the initial one.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The calls in flight (started, not finished), in the order the fold first saw them.
    pub fn in_flight(&self) -> Vec<&CallState> {
        let mut calls: Vec<&CallState> = self.calls.values().collect();
        calls.sort_by_key(|c| c.order);
        calls
    }

    fn next_order(&mut self) -> u64 {
        self.next_order += 1;
        self.next_order
    }

    /// Applies one event; returns what changed and the session cwd after it (a
    /// `SessionStarted` sets the cwd for its own update).
    pub fn apply<'a>(&'a mut self, event: &'a ToolEvent) -> Step<'a> {
        let chunk = self.mutate(event);
        let this = &*self;
        let call = |id: &CallId| {
            this.calls
                .get(id)
                .expect("the event's call was just folded")
        };
        let change = match &event.body {
            EventBody::SessionStarted(_) => Change::Session,
            EventBody::CallStarted(s) => Change::Started(call(&s.call_id)),
            EventBody::CallOutput(o) => Change::Output(
                call(&o.call_id),
                chunk.expect("an output event yields its chunk"),
            ),
            EventBody::CallFinished(_) => {
                Change::Finished(this.last_finished.as_ref().expect("just finished"))
            }
        };
        Step {
            change,
            cwd: this.cwd(),
        }
    }

    /// Folds the event in; returns the chunk of an output event.
    fn mutate<'a>(&mut self, event: &'a ToolEvent) -> Option<Chunk<'a>> {
        match &event.body {
            EventBody::SessionStarted(s) => {
                self.cwd = (!s.cwd.is_empty()).then(|| s.cwd.clone());
                None
            }
            EventBody::CallStarted(s) => {
                let order = self.next_order();
                let args = parse_arguments(&s.arguments_json);
                let view = resolve_call(&s.tool_name, &args, s.view.clone());
                // A repeated start (rejected by Publish) starts the card anew.
                let state = CallState {
                    call_id: s.call_id.clone(),
                    tool_name: s.tool_name.clone(),
                    arguments_json: s.arguments_json.clone(),
                    plan: plan(&s.tool_name, &args),
                    args,
                    call_view: Some(view),
                    streamed: Streamed::new(self.retain),
                    finished: None,
                    status: CallStatus::InProgress,
                    order,
                };
                self.calls.insert(s.call_id.clone(), state);
                None
            }
            EventBody::CallOutput(o) => {
                if !self.calls.contains_key(&o.call_id) {
                    let orphan =
                        CallState::orphan(o.call_id.clone(), self.retain, self.next_order());
                    self.calls.insert(o.call_id.clone(), orphan);
                }
                let state = self.calls.get_mut(&o.call_id).expect("inserted above");
                Some(state.streamed.push(&o.data))
            }
            EventBody::CallFinished(f) => {
                let mut state = match self.calls.remove(&f.call_id) {
                    Some(state) => state,
                    None => CallState::orphan(f.call_id.clone(), self.retain, self.next_order()),
                };
                let meta = parse_meta(&f.meta_json);
                let result = ToolResult {
                    content: &f.content,
                    is_error: f.is_error,
                    meta: meta.as_ref(),
                };
                let started = state.call_view.as_ref().map(|view| StartedCall {
                    tool_name: &state.tool_name,
                    args: &state.args,
                    view,
                });
                let view = resolve_result(started, result, f.view.clone());
                state.finished = Some(Finished {
                    view,
                    raw_content: f.content.clone(),
                    is_error: f.is_error,
                });
                state.status = if f.is_error {
                    CallStatus::Failed
                } else {
                    CallStatus::Completed
                };
                self.last_finished = Some(state);
                None
            }
        }
    }
}
