//! Fold: session events → per-call card state, per-message text, pending permission requests
//! (`permissions.rs`) and the open turn. Pure and
//! total: any event sequence folds (the service rejects lifecycle violations before they reach a
//! log, but `Render` input and property tests may contain them: a message's text without its
//! start folds as an assistant message's).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

mod nest;
mod permissions;

pub use nest::{Children, MAX_DEPTH};
pub use permissions::PermissionState;

use serde_json::Value;

use super::input::StreamingInput;
use super::streamed::{Chunk, Streamed};
use crate::domain::permission::RequestId;
use crate::domain::{
    CallFinished, CallId, CallInputComplete, CallInputDelta, CallOutput, CallStarted, ContentBlock,
    EventBody, McpApp, MessageId, MessageRole, MessageStarted, Plan, ToolCallView, ToolEvent,
    ToolResultView, TurnFinished, TurnId,
};
use crate::present::{
    StartedCall, ToolResult, mcp_app, parse_arguments, parse_meta, plan, resolve_call,
    resolve_result,
};

/// A call's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Started with its input streaming, and neither complete nor finished since.
    Pending,
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
    /// The MCP App the result carries (`present::mcp_app`), for the targets that host apps.
    pub app: Option<McpApp>,
}

/// One call's card state.
#[derive(Debug, Clone, PartialEq)]
pub struct CallState {
    /// The call's id.
    pub call_id: CallId,
    /// Empty for an orphan (output or a result without a started call).
    pub tool_name: String,
    /// The raw argument text, verbatim (empty while the input streams).
    pub arguments_json: String,
    /// The parsed arguments (`Null` when they did not parse, or while the input streams).
    pub args: Value,
    /// The input while it streams: `Some` from a streaming start until the input completes
    /// (and still at a finish that came first).
    pub input: Option<StreamingInput>,
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
    /// The call it runs under (`parent_call_id`), if any.
    pub parent: Option<CallId>,
    /// How many parents it is under (see `nest.rs`): 0 at the top.
    pub depth: u8,
    /// What its children are doing, once it has had one.
    pub children: Option<Children>,
}

impl CallState {
    fn orphan(call_id: CallId, retain: usize, order: u64) -> Self {
        CallState {
            order,
            parent: None,
            depth: 0,
            children: None,
            call_id,
            tool_name: String::new(),
            arguments_json: String::new(),
            args: Value::Null,
            input: None,
            plan: None,
            call_view: None,
            streamed: Streamed::new(retain),
            finished: None,
            status: CallStatus::InProgress,
        }
    }

    /// Takes the complete arguments: the presenters' card (or the harness's), the plan, and
    /// the call running.
    fn complete_input(&mut self, arguments_json: &str, harness_view: Option<ToolCallView>) {
        let args = parse_arguments(arguments_json);
        self.call_view = Some(resolve_call(&self.tool_name, &args, harness_view));
        self.plan = plan(&self.tool_name, &args);
        self.arguments_json = arguments_json.to_owned();
        self.args = args;
        self.input = None;
        self.status = CallStatus::InProgress;
    }

    /// The input as the renderings carry it: while it streams, as last read (open structures
    /// closed); then the parsed arguments, or their text when they are not JSON.
    pub fn input_value(&self) -> Value {
        match (&self.input, &self.args) {
            (Some(input), _) => input.so_far.clone(),
            (None, Value::Null) if !self.arguments_json.is_empty() => {
                Value::String(self.arguments_json.clone())
            }
            (None, args) => args.clone(),
        }
    }

    /// The call's display title: the call view's, or the call id for an orphan.
    pub fn title(&self) -> &str {
        self.call_view
            .as_ref()
            .map_or(self.call_id.as_str(), ToolCallView::title)
    }
}

/// One message's state: its text so far (within the fold's retention, like a call's output).
#[derive(Debug, Clone, PartialEq)]
pub struct MessageState {
    /// The message's id.
    pub message_id: MessageId,
    /// Who it is from.
    pub role: MessageRole,
    /// Its text so far.
    pub text: Streamed,
    /// Whether it is complete.
    pub finished: bool,
    /// Whether its start was folded (not an orphan's text): its item was shown then.
    pub started: bool,
    /// When the fold first saw it (the counter calls use: in-flight items keep their order).
    pub order: u64,
    /// The call it belongs under (a subagent's words), if any.
    pub parent: Option<CallId>,
    /// How many parents it is under: 0 at the top.
    pub depth: u8,
}

/// A turn boundary.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The turn.
    pub turn_id: &'a TurnId,
    /// How it ended; `None` when it began (or, in a catch-up, is still open).
    pub finished: Option<&'a TurnFinished>,
}

/// What happened to a streaming call's input.
#[derive(Debug, Clone, Copy)]
pub enum InputChange<'a> {
    /// Text was appended: `text` is the part the state kept (empty past
    /// [`super::input::MAX_INPUT_SHOWN_BYTES`]); `read` when the pending card and the input so
    /// far were read again.
    Delta {
        /// The text kept.
        text: &'a str,
        /// Whether the input was read again.
        read: bool,
    },
    /// The input is complete: the state has the complete arguments and the presenters' card.
    /// `rest` is what they add to the streamed text when they extend it (else empty).
    Complete {
        /// The arguments past the text streamed.
        rest: &'a str,
    },
}

/// What happened to a message.
#[derive(Debug, Clone, Copy)]
pub enum MessageChange<'a> {
    /// It began (with the text of its start, possibly empty).
    Started,
    /// Text was appended (the state already includes it).
    Delta(Chunk<'a>),
    /// It is complete.
    Finished,
    /// Everything a subscriber that was not shown it needs: its text so far (a catch-up).
    Snapshot,
}

/// What an event changed, for the renderers.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    /// A `SessionStarted` event.
    Session,
    /// A call was started.
    Started(&'a CallState),
    /// More of a streaming call's input, or its completion (the state already includes it).
    Input(&'a CallState, InputChange<'a>),
    /// A chunk of the call's live output arrived (the state already includes it).
    Output(&'a CallState, Chunk<'a>),
    /// The call finished.
    Finished(&'a CallState),
    /// Everything a subscriber that was not shown the call needs to show it as it is now (a
    /// late joiner's catch-up): its start, its output so far and, if it finished, its result.
    Snapshot(&'a CallState),
    /// A turn began or ended (or, in a catch-up, is open).
    Turn(Turn<'a>),
    /// A message changed.
    Message(&'a MessageState, MessageChange<'a>),
    /// A permission request was made or resolved (or, in a catch-up, is pending).
    Permission(&'a PermissionState),
}

impl MessageState {
    /// A message whose start is missing: an empty assistant message.
    fn orphan(message_id: MessageId, retain: usize, order: u64) -> Self {
        MessageState {
            message_id,
            role: MessageRole::Assistant,
            text: Streamed::new(retain),
            finished: false,
            started: false,
            order,
            parent: None,
            depth: 0,
        }
    }
}

impl Change<'_> {
    /// Whether the change is about a reasoning message (shown only with `reasoning`).
    pub fn is_reasoning(&self) -> bool {
        matches!(self, Change::Message(m, _) if m.role == MessageRole::Reasoning)
    }
}

/// An item a late joiner is shown as it is now: a call or a message in flight.
#[derive(Debug, Clone, Copy)]
pub enum InFlight<'a> {
    /// A call started and not finished.
    Call(&'a CallState),
    /// A message started and not finished.
    Message(&'a MessageState),
    /// A permission request not yet resolved.
    Permission(&'a PermissionState),
}

/// One applied event: what changed, and the session cwd to render it with.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// What changed.
    pub change: Change<'a>,
    /// The session's working directory.
    pub cwd: Option<&'a str>,
    /// The parent in flight whose children this change moved (a child started or finished):
    /// the renderings show its progress again.
    pub parent: Option<&'a CallState>,
}

/// The folded state of one session.
///
/// Only calls still running are kept: a finished call is moved out into `last_finished` (for
/// its own update) and then forgotten, because the lifecycle rules admit no later event for it.
/// So a fold's memory is bounded by the calls in flight, not by the session's length; and each
/// call's live output is kept only within the fold's retention (see [`Streamed`]).
#[derive(Debug, Clone)]
pub struct Fold {
    cwd: Option<String>,
    /// Apart from the cwd, so a change can borrow what it is about beside the cwd.
    live: Live,
}

/// What a fold holds besides the cwd: the calls, messages and turn in flight.
#[derive(Debug, Clone)]
struct Live {
    /// Bytes of live output kept at each end of a call's output: at least the largest output
    /// cap the fold is rendered with (`usize::MAX` for none).
    retain: usize,
    calls: HashMap<CallId, CallState>,
    last_finished: Option<CallState>,
    /// Messages in flight; a finished one moves to `last_message` like a finished call.
    messages: HashMap<MessageId, MessageState>,
    last_message: Option<MessageState>,
    /// Permission requests pending; a resolved one moves to `last_permission`.
    permissions: HashMap<RequestId, PermissionState>,
    last_permission: Option<PermissionState>,
    /// The turn begun and not yet ended (turns do not nest: a new one replaces it).
    turn: Option<TurnId>,
    /// The last `order` given.
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
            cwd: (!cwd.is_empty()).then(|| cwd.to_owned()),
            live: Live {
                retain,
                calls: HashMap::new(),
                last_finished: None,
                messages: HashMap::new(),
                last_message: None,
                permissions: HashMap::new(),
                last_permission: None,
                turn: None,
                next_order: 0,
            },
        }
    }

    /// The session cwd: from the latest `SessionStarted`, else the initial one.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The calls, messages and permission requests in flight (started, not finished), in the
    /// order the fold first saw them.
    pub fn in_flight(&self) -> Vec<InFlight<'_>> {
        let live = &self.live;
        let mut items: Vec<(u64, InFlight<'_>)> = live
            .calls
            .values()
            .map(|c| (c.order, InFlight::Call(c)))
            .chain(
                live.messages
                    .values()
                    .map(|m| (m.order, InFlight::Message(m))),
            )
            .chain(
                live.permissions
                    .values()
                    .map(|p| (p.order, InFlight::Permission(p))),
            )
            .collect();
        items.sort_by_key(|(order, _)| *order);
        items.into_iter().map(|(_, item)| item).collect()
    }

    /// The turn begun and not ended, if any.
    pub fn open_turn(&self) -> Option<&TurnId> {
        self.live.turn.as_ref()
    }

    /// Applies one event; returns what changed and the session cwd after it (a
    /// `SessionStarted` sets the cwd for its own update).
    pub fn apply<'a>(&'a mut self, event: &'a ToolEvent) -> Step<'a> {
        let mut parent = None;
        let change = match &event.body {
            EventBody::SessionStarted(s) => {
                self.cwd = (!s.cwd.is_empty()).then(|| s.cwd.clone());
                Change::Session
            }
            EventBody::CallStarted(s) => {
                let (change, moved) = self.live.call_started(s);
                parent = moved;
                change
            }
            EventBody::CallInputDelta(d) => self.live.call_input_delta(d),
            EventBody::CallInputComplete(c) => self.live.call_input_complete(c),
            EventBody::CallOutput(o) => self.live.call_output(o),
            EventBody::CallFinished(f) => {
                let (change, moved) = self.live.call_finished(f);
                parent = moved;
                change
            }
            EventBody::TurnStarted(t) => {
                self.live.turn = Some(t.turn_id.clone());
                Change::Turn(Turn {
                    turn_id: &t.turn_id,
                    finished: None,
                })
            }
            EventBody::TurnFinished(t) => {
                if self.live.turn.as_ref() == Some(&t.turn_id) {
                    self.live.turn = None;
                }
                Change::Turn(Turn {
                    turn_id: &t.turn_id,
                    finished: Some(t),
                })
            }
            EventBody::MessageStarted(m) => self.live.message_started(m),
            EventBody::MessageDelta(m) => {
                let state = self.live.message(&m.message_id);
                let chunk = state.text.push(&m.text);
                Change::Message(state, MessageChange::Delta(chunk))
            }
            EventBody::MessageFinished(m) => {
                let mut state = self.live.take_message(&m.message_id);
                state.finished = true;
                let state = self.live.last_message.insert(state);
                Change::Message(state, MessageChange::Finished)
            }
            EventBody::PermissionRequested(r) => self.live.permission_requested(r),
            EventBody::PermissionResolved(r) => self.live.permission_resolved(r),
        };
        Step {
            change,
            cwd: self.cwd.as_deref(),
            parent,
        }
    }
}

impl Live {
    fn next_order(&mut self) -> u64 {
        self.next_order += 1;
        self.next_order
    }

    /// A call's start, and its parent in flight (which counts it).
    fn call_started<'a>(&'a mut self, s: &'a CallStarted) -> (Change<'a>, Option<&'a CallState>) {
        let order = self.next_order();
        let mut state = CallState {
            tool_name: s.tool_name.clone(),
            parent: s.parent.clone(),
            ..CallState::orphan(s.call_id.clone(), self.retain, order)
        };
        let parent = state.parent_id().cloned();
        state.depth = self.depth_under(parent.as_ref());
        if s.input_streaming {
            let (input, view) =
                StreamingInput::start(&s.tool_name, &s.arguments_json, s.view.clone(), self.retain);
            state.input = Some(input);
            state.call_view = Some(view);
            state.status = CallStatus::Pending;
        } else {
            state.complete_input(&s.arguments_json, s.view.clone());
        }
        if let Some(p) = &parent {
            self.child_started(p, state.title());
        }
        // A repeated start (rejected by Publish) starts the card anew.
        self.calls.insert(s.call_id.clone(), state);
        let calls = &self.calls;
        let child = calls.get(&s.call_id).expect("inserted above");
        (Change::Started(child), parent.and_then(|p| calls.get(&p)))
    }

    fn call_input_delta<'a>(&'a mut self, d: &'a CallInputDelta) -> Change<'a> {
        let retain = self.retain;
        let state = self.call(&d.call_id);
        let CallState {
            tool_name,
            input,
            call_view,
            status,
            ..
        } = &mut *state;
        // Input for a call not started, or whose input was complete (`Render` input only):
        // it streams from here.
        let input =
            input.get_or_insert_with(|| StreamingInput::start(tool_name, "", None, retain).0);
        let appended = input.append(&d.text);
        if appended.read {
            *call_view = Some(input.read(tool_name));
        }
        *status = CallStatus::Pending;
        Change::Input(
            state,
            InputChange::Delta {
                text: appended.text,
                read: appended.read,
            },
        )
    }

    fn call_input_complete<'a>(&'a mut self, c: &'a CallInputComplete) -> Change<'a> {
        let state = self.call(&c.call_id);
        let rest = state
            .input
            .take()
            .map_or("", |input| input.rest(&c.arguments_json));
        state.complete_input(&c.arguments_json, c.view.clone());
        Change::Input(state, InputChange::Complete { rest })
    }

    /// A call in flight, made as an orphan when its start is missing.
    fn call(&mut self, id: &CallId) -> &mut CallState {
        let (retain, next_order) = (self.retain, &mut self.next_order);
        self.calls.entry(id.clone()).or_insert_with(|| {
            *next_order += 1;
            CallState::orphan(id.clone(), retain, *next_order)
        })
    }

    fn call_output<'a>(&'a mut self, o: &'a CallOutput) -> Change<'a> {
        let state = self.call(&o.call_id);
        let chunk = state.streamed.push(&o.data);
        Change::Output(state, chunk)
    }

    /// A call's finish, and its parent in flight (which counts it).
    fn call_finished<'a>(&'a mut self, f: &'a CallFinished) -> (Change<'a>, Option<&'a CallState>) {
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
            app: mcp_app(meta.as_ref()),
        });
        state.status = if f.is_error {
            CallStatus::Failed
        } else {
            CallStatus::Completed
        };
        let parent = state.parent_id().cloned();
        if let Some(p) = &parent {
            self.child_finished(p, state.title(), f.is_error);
        }
        let Live {
            calls,
            last_finished,
            ..
        } = self;
        (
            Change::Finished(last_finished.insert(state)),
            parent.and_then(|p| calls.get(&p)),
        )
    }

    fn message_started<'a>(&'a mut self, m: &'a MessageStarted) -> Change<'a> {
        let order = self.next_order();
        // A repeated start (rejected by Publish) starts the message anew.
        let mut text = Streamed::new(self.retain);
        text.push(&m.text);
        let state = MessageState {
            message_id: m.message_id.clone(),
            role: m.role,
            text,
            finished: false,
            started: true,
            order,
            depth: self.depth_under(m.parent.as_ref()),
            parent: m.parent.clone(),
        };
        let state = match self.messages.entry(m.message_id.clone()) {
            Entry::Occupied(mut e) => {
                e.insert(state);
                e.into_mut()
            }
            Entry::Vacant(e) => e.insert(state),
        };
        Change::Message(state, MessageChange::Started)
    }

    /// A message in flight, made as an empty assistant message when its start is missing.
    fn message(&mut self, id: &MessageId) -> &mut MessageState {
        let (retain, next_order) = (self.retain, &mut self.next_order);
        self.messages.entry(id.clone()).or_insert_with(|| {
            *next_order += 1;
            MessageState::orphan(id.clone(), retain, *next_order)
        })
    }

    /// A message in flight taken out of the fold (an empty one when its start is missing).
    fn take_message(&mut self, id: &MessageId) -> MessageState {
        match self.messages.remove(id) {
            Some(state) => state,
            None => MessageState::orphan(id.clone(), self.retain, self.next_order()),
        }
    }
}
