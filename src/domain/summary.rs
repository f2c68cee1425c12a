//! A session at a glance, folded from its log: its state (is it running, waiting on a person,
//! idle, stopped short?) and a summary a fleet view lists — the prompts waiting, what it is doing
//! now, its turns, failed calls and token usage.
//!
//! The fold is pure and sees each event once, in log order, with the time it was appended: the
//! summary stored beside a session's log is the fold of that log, and folding a replay of an
//! untrimmed log gives the same summary. Output chunks and input or message deltas only move
//! [`SessionSummary::activity_ms`], so a busy session's summary costs nothing more per chunk.

use serde::{Deserialize, Serialize};

use super::permission::{PermissionOption, PermissionRequested};
use super::{CallStarted, EventBody, MessageRole, StopReason, TokenUsage, ToolEvent, title_of};

/// Pending prompts a summary lists in full, oldest first; [`SessionSummary::pending_count`]
/// counts them all. A fleet view shows the oldest few, and the summary is written with every
/// append, so its size stays bounded whatever a harness asks.
pub const MAX_SUMMARY_PROMPTS: usize = 8;

/// An option's name as a summary keeps it, in bytes: as every prompt shows it (the log keeps it
/// whole). With the one-line title and the id rule, a listed prompt stays small.
const OPTION_NAME_BYTES: usize = 128;

/// Where a session is, derived from its summary ([`SessionSummary::state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// A turn or a call is open, and nothing waits on a person.
    Running,
    /// A permission request is pending: the session waits on a person.
    RequiresAction,
    /// Nothing open, nothing pending, and the last turn (if any) ended normally or cancelled.
    Idle,
    /// Nothing open, nothing pending, and the last turn stopped short: the model's token limit,
    /// the harness's request limit, or a refusal.
    Failed,
    /// The harness closed the session (`SessionEnded`) and has not started anything since.
    /// It ranks above every other state: nobody answers in a closed session.
    Ended,
}

impl SessionState {
    /// Every state, in the order a fleet view lists them (waiting on a person first).
    pub const ALL: [SessionState; 5] = [
        SessionState::RequiresAction,
        SessionState::Running,
        SessionState::Failed,
        SessionState::Idle,
        SessionState::Ended,
    ];

    /// Its name (`requires_action`).
    pub fn name(self) -> &'static str {
        match self {
            SessionState::Running => "running",
            SessionState::RequiresAction => "requires_action",
            SessionState::Idle => "idle",
            SessionState::Failed => "failed",
            SessionState::Ended => "ended",
        }
    }
}

/// A permission request waiting for an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingPrompt {
    /// The request.
    pub request_id: String,
    /// The call it is about, if any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub call_id: String,
    /// Its question, on one line ([`title_of`]).
    pub title: String,
    /// The answers it offers.
    pub options: Vec<PermissionOption>,
    /// When it was asked, in Unix milliseconds.
    pub requested_ms: u64,
    /// When it expires, in Unix milliseconds.
    pub expires_at_ms: u64,
}

/// A session at a glance.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionSummary {
    /// The oldest pending prompts, at most [`MAX_SUMMARY_PROMPTS`].
    pub pending: Vec<PendingPrompt>,
    /// Every pending prompt, listed or not.
    pub pending_count: u64,
    /// Calls started and not finished (background and subagent calls too).
    pub open_calls: u64,
    /// Turns started and not finished.
    pub open_turns: u64,
    /// Turns started.
    pub turns: u64,
    /// Calls that finished with an error.
    pub failed_calls: u64,
    /// How the last finished turn ended.
    pub last_stop: Option<StopReason>,
    /// What the session did last, on one line: the title of the call it started last, or the
    /// first line of the message it started last, whichever came later.
    pub activity: String,
    /// When anything was last appended, in Unix milliseconds.
    pub activity_ms: u64,
    /// The token usage of every finished turn, added up.
    pub usage: TokenUsage,
    /// The harness closed the session, and nothing started since.
    pub ended: bool,
    /// The fold's own state: a message that started empty and set the activity, whose first
    /// delta gives the activity line.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub awaiting_message_id: String,
}

impl SessionSummary {
    /// The session's state (see [`SessionState`] for the rules, in precedence order).
    pub fn state(&self) -> SessionState {
        if self.ended {
            SessionState::Ended
        } else if self.pending_count > 0 {
            SessionState::RequiresAction
        } else if self.open_calls > 0 || self.open_turns > 0 {
            SessionState::Running
        } else if matches!(
            self.last_stop,
            Some(StopReason::MaxTokens | StopReason::MaxTurnRequests | StopReason::Refusal)
        ) {
            SessionState::Failed
        } else {
            SessionState::Idle
        }
    }

    /// Folds one event appended at `at_ms`. `call_title` gives a starting call's title (the
    /// presenters' card title: the fold itself knows no tools).
    pub fn apply(
        &mut self,
        event: &ToolEvent,
        at_ms: u64,
        call_title: &dyn Fn(&CallStarted) -> String,
    ) {
        self.activity_ms = at_ms;
        // Anything starting resumes a closed session.
        self.ended = match &event.body {
            EventBody::SessionEnded(_) => true,
            EventBody::SessionStarted(_)
            | EventBody::CallStarted(_)
            | EventBody::TurnStarted(_)
            | EventBody::MessageStarted(_)
            | EventBody::PermissionRequested(_) => false,
            EventBody::CallInputDelta(_)
            | EventBody::CallInputComplete(_)
            | EventBody::CallOutput(_)
            | EventBody::CallFinished(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageDelta(_)
            | EventBody::MessageFinished(_)
            | EventBody::PermissionResolved(_) => self.ended,
        };
        match &event.body {
            EventBody::CallStarted(c) => {
                self.open_calls += 1;
                self.set_activity(call_title(c), "");
            }
            EventBody::CallFinished(f) => {
                self.open_calls = self.open_calls.saturating_sub(1);
                self.failed_calls += u64::from(f.is_error);
            }
            EventBody::TurnStarted(_) => {
                self.turns += 1;
                self.open_turns += 1;
            }
            EventBody::TurnFinished(t) => {
                self.open_turns = self.open_turns.saturating_sub(1);
                self.last_stop = Some(t.stop_reason);
                if let Some(u) = &t.usage {
                    add_usage(&mut self.usage, u);
                }
            }
            EventBody::MessageStarted(m) if m.role != MessageRole::Reasoning => {
                let line = title_of(&m.text).unwrap_or_default();
                let waiting = if line.is_empty() {
                    m.message_id.as_str()
                } else {
                    ""
                };
                self.set_activity(line, waiting);
            }
            EventBody::MessageDelta(d) if d.message_id.as_str() == self.awaiting_message_id => {
                if let Some(line) = title_of(&d.text) {
                    self.set_activity(line, "");
                }
            }
            EventBody::PermissionRequested(r) => self.asked(r, at_ms),
            EventBody::PermissionResolved(r) => {
                self.pending_count = self.pending_count.saturating_sub(1);
                self.pending
                    .retain(|p| p.request_id != r.request_id.as_str());
            }
            EventBody::SessionStarted(_)
            | EventBody::SessionEnded(_)
            | EventBody::CallInputDelta(_)
            | EventBody::CallInputComplete(_)
            | EventBody::CallOutput(_)
            | EventBody::MessageStarted(_)
            | EventBody::MessageDelta(_)
            | EventBody::MessageFinished(_) => {}
        }
    }

    fn set_activity(&mut self, line: String, awaiting: &str) {
        self.activity = line;
        awaiting.clone_into(&mut self.awaiting_message_id);
    }

    fn asked(&mut self, r: &PermissionRequested, at_ms: u64) {
        self.pending_count += 1;
        if self.pending.len() < MAX_SUMMARY_PROMPTS {
            self.pending.push(prompt_of(r, at_ms));
        }
    }
}

/// A change of a session's summary someone may want to be told of, wherever they are
/// (`webhook`): what [`transitions`] finds between the summary before an append and after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transition {
    /// A prompt started waiting on a person (one per request).
    Waiting(PendingPrompt),
    /// The session became [`SessionState::Failed`].
    Failed,
    /// The session became [`SessionState::Idle`].
    Idle,
    /// The harness closed the session.
    Ended,
}

impl Transition {
    /// The state it is about.
    pub fn state(&self) -> SessionState {
        match self {
            Transition::Waiting(_) => SessionState::RequiresAction,
            Transition::Failed => SessionState::Failed,
            Transition::Idle => SessionState::Idle,
            Transition::Ended => SessionState::Ended,
        }
    }
}

/// What an append changed: each prompt it asked (and did not also answer), then the state
/// entered, if it is failed, idle or ended. `before` is the session's state before the append (`None`:
/// a new session), `after` its summary after; `at_ms` when the append was made.
pub fn transitions<'e>(
    before: Option<SessionState>,
    after: &SessionSummary,
    events: impl Iterator<Item = &'e ToolEvent> + Clone,
    at_ms: u64,
) -> Vec<Transition> {
    let answered: std::collections::HashSet<&str> = events
        .clone()
        .filter_map(|e| match &e.body {
            EventBody::PermissionResolved(r) => Some(r.request_id.as_str()),
            _ => None,
        })
        .collect();
    // A new session that only started (a `SessionStarted`) has not become idle: it has not
    // begun. One whose first append ran a turn or a call to its end has.
    let began = before.is_some()
        || events
            .clone()
            .any(|e| !matches!(e.body, EventBody::SessionStarted(_)));
    let mut found: Vec<Transition> = events
        .filter_map(|e| match &e.body {
            EventBody::PermissionRequested(r) if !answered.contains(r.request_id.as_str()) => {
                Some(Transition::Waiting(prompt_of(r, at_ms)))
            }
            _ => None,
        })
        .collect();
    let state = after.state();
    if before != Some(state) {
        match state {
            SessionState::Failed => found.push(Transition::Failed),
            SessionState::Ended => found.push(Transition::Ended),
            SessionState::Idle if began => found.push(Transition::Idle),
            SessionState::Idle | SessionState::Running | SessionState::RequiresAction => {}
        }
    }
    found
}

/// A request as a summary lists it.
fn prompt_of(r: &PermissionRequested, at_ms: u64) -> PendingPrompt {
    PendingPrompt {
        request_id: r.request_id.to_string(),
        call_id: r
            .call_id
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        title: title_of(&r.title).unwrap_or_default(),
        options: r.options.iter().map(shown_option).collect(),
        requested_ms: at_ms,
        expires_at_ms: r.expires_at_ms,
    }
}

fn shown_option(o: &PermissionOption) -> PermissionOption {
    let mut end = o.name.len().min(OPTION_NAME_BYTES);
    while !o.name.is_char_boundary(end) {
        end -= 1;
    }
    PermissionOption {
        name: o.name[..end].to_owned(),
        ..o.clone()
    }
}

fn add_usage(total: &mut TokenUsage, u: &TokenUsage) {
    total.input_tokens = total.input_tokens.saturating_add(u.input_tokens);
    total.output_tokens = total.output_tokens.saturating_add(u.output_tokens);
    total.cached_input_tokens = total
        .cached_input_tokens
        .saturating_add(u.cached_input_tokens);
    total.reasoning_tokens = total.reasoning_tokens.saturating_add(u.reasoning_tokens);
    // The context is a level, not a flow: the latest turn's.
    total.context_tokens = u.context_tokens;
    total.context_window = u.context_window;
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
