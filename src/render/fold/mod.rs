//! Fold: session events → per-call card state, per-message text, pending permission requests
//! (`permissions.rs`) and the open turn. Pure and
//! total: any event sequence folds (the service rejects lifecycle violations before they reach a
//! log, but `Render` input and property tests may contain them: a message's text without its
//! start folds as an assistant message's). The per-call and per-message state is in `state.rs`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

pub(crate) mod cap;
pub(crate) mod input;
pub(crate) mod live;
mod nest;
mod permissions;
mod state;
pub(crate) mod streamed;

pub use nest::{Children, MAX_DEPTH};
pub use permissions::PermissionState;
pub use state::{CallState, CallStatus, Finished, MessageState};

use self::input::StreamingInput;
use self::streamed::{Chunk, Streamed};
use crate::domain::permission::RequestId;
use crate::domain::{
    CallFinished, CallId, CallInputComplete, CallInputDelta, CallOutput, CallStarted, EventBody,
    MessageId, MessageRole, MessageStarted, ToolEvent, TurnFinished, TurnId,
};
use crate::present::{StartedCall, ToolResult, mcp_app, parse_meta, resolve_result};

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
    /// [`input::MAX_INPUT_SHOWN_BYTES`]); `read` when the pending card and the input so
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
    /// A `SessionEnded` event: the harness closed the session (its reason, possibly empty).
    Ended(&'a str),
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
            EventBody::SessionEnded(e) => Change::Ended(&e.reason),
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
