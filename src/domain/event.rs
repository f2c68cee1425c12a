//! Execution events as a harness publishes them, after validation at the API edge.

use std::fmt;

use super::permission::{PermissionRequested, PermissionResolved};
use super::{ContentBlock, Subject, ToolCallView, ToolResultView};

/// Why a string is not a valid id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// The empty string.
    #[error("must not be empty")]
    Empty,
    /// Longer than 128 characters; carries the length.
    #[error("must be at most 128 characters, got {0}")]
    TooLong(usize),
    /// A character outside the id alphabet.
    #[error("may only contain [A-Za-z0-9._:-], found {0:?}")]
    BadChar(char),
    /// A `/` at the start or end, or two in a row.
    #[error("'/' separates non-empty segments; it may not start, end or repeat")]
    EmptySegment,
    /// A segment that is `.` or `..`: in a URL path (`/permissions/{session}/{request}`, a
    /// page's `?session=`) a browser's `fetch` resolves it, so the request would reach another
    /// session than the one named.
    #[error("a segment may not be '.' or '..'")]
    DotSegment,
}

/// Whether `segment` is one a URL path resolves away (`.`, `..`): ids that become path
/// segments refuse them.
pub fn is_dot_segment(segment: &str) -> bool {
    matches!(segment, "." | "..")
}

/// Checks the id rule shared by session, event and call ids: 1–128 characters of
/// `[A-Za-z0-9._:-]`.
pub fn validate_id(s: &str) -> Result<(), IdError> {
    if s.is_empty() {
        return Err(IdError::Empty);
    }
    if let Some(c) = s
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-')))
    {
        return Err(IdError::BadChar(c));
    }
    // All characters are ASCII here, so bytes == characters.
    if s.len() > 128 {
        return Err(IdError::TooLong(s.len()));
    }
    Ok(())
}

/// Checks a session id: segments of the id rule joined by `/` (`team-a/run-42`), so that
/// tokens can grant a whole prefix (`team-a/*`), none of them `.` or `..` (a grant for
/// `team-a/**` must not cover `team-a/../victim`, nor a URL built from the id reach another
/// session). The whole id is at most 128 characters.
pub fn validate_session_id(s: &str) -> Result<(), IdError> {
    if s.len() > 128 && s.is_ascii() {
        return Err(IdError::TooLong(s.len()));
    }
    if s.contains('/') && s.split('/').any(str::is_empty) {
        return Err(IdError::EmptySegment);
    }
    s.split('/').try_for_each(validate_id)?;
    match s.split('/').any(is_dot_segment) {
        true => Err(IdError::DotSegment),
        false => Ok(()),
    }
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $validate:path) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                $name::new(s)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl $name {
            /// Validates and wraps an id.
            pub fn new(s: impl Into<String>) -> Result<Self, IdError> {
                let s = s.into();
                $validate(&s)?;
                Ok($name(s))
            }

            /// The id text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

id_type!(
    /// A session id: `/`-separated segments, see [`validate_session_id`].
    SessionId,
    validate_session_id
);
id_type!(
    /// An event id: the idempotency key within a session.
    EventId,
    validate_id
);
id_type!(
    /// A call id, unique within a session.
    CallId,
    validate_id
);
id_type!(
    /// A message id, unique within a session (its own id space, apart from calls).
    MessageId,
    validate_id
);
id_type!(
    /// A turn id, unique within a session.
    TurnId,
    validate_id
);

/// A validated event. Logs keep it as a `toolview.storage.v1.StoredEvent` record (the store's
/// `RecordCodec`), not as its serde form.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolEvent {
    /// The session the event belongs to.
    pub session_id: SessionId,
    /// The harness's id for the event, unique within the session (publish is idempotent on it).
    pub event_id: EventId,
    /// What happened.
    pub body: EventBody,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    /// The session began.
    SessionStarted(SessionStarted),
    /// The harness closed the session.
    SessionEnded(SessionEnded),
    /// A call started.
    CallStarted(CallStarted),
    /// More of a streaming call's arguments.
    CallInputDelta(CallInputDelta),
    /// A streaming call's arguments are complete.
    CallInputComplete(CallInputComplete),
    /// A running call printed output.
    CallOutput(CallOutput),
    /// A call finished.
    CallFinished(CallFinished),
    /// A turn began.
    TurnStarted(TurnStarted),
    /// A turn ended.
    TurnFinished(TurnFinished),
    /// A message began.
    MessageStarted(MessageStarted),
    /// More text of a message.
    MessageDelta(MessageDelta),
    /// A message is complete.
    MessageFinished(MessageFinished),
    /// A harness asks a person to decide.
    PermissionRequested(PermissionRequested),
    /// How a request was decided (appended by the server only).
    PermissionResolved(PermissionResolved),
}

impl EventBody {
    /// About how many bytes the event's texts hold: what reading it from a log costs in
    /// memory, to size a read by. Identifiers, flags and views (made from the arguments) are
    /// left out.
    pub fn text_bytes(&self) -> usize {
        match self {
            EventBody::SessionStarted(s) => s.cwd.len(),
            EventBody::SessionEnded(s) => s.reason.len(),
            EventBody::CallStarted(c) => c.tool_name.len() + c.arguments_json.len(),
            EventBody::CallInputDelta(d) => d.text.len(),
            EventBody::CallInputComplete(c) => c.arguments_json.len(),
            EventBody::CallOutput(o) => o.data.len(),
            EventBody::CallFinished(f) => {
                f.meta_json.len()
                    + f.content
                        .iter()
                        .map(ContentBlock::text_bytes)
                        .sum::<usize>()
            }
            EventBody::MessageStarted(m) => m.text.len(),
            EventBody::MessageDelta(d) => d.text.len(),
            EventBody::PermissionRequested(p) => p.title.len() + p.description.len(),
            EventBody::TurnStarted(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageFinished(_)
            | EventBody::PermissionResolved(_) => 0,
        }
    }

    /// The call the event is about, if any.
    pub fn call_id(&self) -> Option<&CallId> {
        match self {
            EventBody::CallStarted(e) => Some(&e.call_id),
            EventBody::CallInputDelta(e) => Some(&e.call_id),
            EventBody::CallInputComplete(e) => Some(&e.call_id),
            EventBody::CallOutput(e) => Some(&e.call_id),
            EventBody::CallFinished(e) => Some(&e.call_id),
            EventBody::SessionStarted(_)
            | EventBody::SessionEnded(_)
            | EventBody::TurnStarted(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageStarted(_)
            | EventBody::MessageDelta(_)
            | EventBody::MessageFinished(_)
            | EventBody::PermissionRequested(_)
            | EventBody::PermissionResolved(_) => None,
        }
    }

    /// What the event's lifecycle rules are about: its call, message or turn.
    pub fn subject(&self) -> Option<Subject> {
        match self {
            EventBody::SessionStarted(_) | EventBody::SessionEnded(_) => None,
            EventBody::CallStarted(e) => Some(Subject::call(&e.call_id)),
            EventBody::CallInputDelta(e) => Some(Subject::call(&e.call_id)),
            EventBody::CallInputComplete(e) => Some(Subject::call(&e.call_id)),
            EventBody::CallOutput(e) => Some(Subject::call(&e.call_id)),
            EventBody::CallFinished(e) => Some(Subject::call(&e.call_id)),
            EventBody::TurnStarted(e) => Some(Subject::turn(&e.turn_id)),
            EventBody::TurnFinished(e) => Some(Subject::turn(&e.turn_id)),
            EventBody::MessageStarted(e) => Some(Subject::message(&e.message_id)),
            EventBody::MessageDelta(e) => Some(Subject::message(&e.message_id)),
            EventBody::MessageFinished(e) => Some(Subject::message(&e.message_id)),
            EventBody::PermissionRequested(e) => Some(Subject::Permission(e.request_id.clone())),
            EventBody::PermissionResolved(e) => Some(Subject::Permission(e.request_id.clone())),
        }
    }
}

/// A session began; `cwd` is absolute or empty.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionStarted {
    /// The session's working directory, against which paths are shown relative.
    pub cwd: String,
}

/// Bytes of a [`SessionEnded`] reason kept (cut at a character boundary).
pub const MAX_END_REASON_BYTES: usize = 1024;

/// The harness closed the session; a later start of anything resumes it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionEnded {
    /// Why, in the harness's words (display text); empty when not said.
    pub reason: String,
}

/// A call started. `arguments_json` is kept verbatim (any text).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CallStarted {
    /// The call this event starts.
    pub call_id: CallId,
    /// The tool's name as the harness knows it (`bash`, `str_replace_based_edit_tool`, …).
    pub tool_name: String,
    /// The arguments as the model wrote them: usually JSON, kept verbatim even when not.
    pub arguments_json: String,
    /// The harness's own card for the call; `None` lets the presenters derive one.
    pub view: Option<ToolCallView>,
    /// The arguments are still being written: `arguments_json` is their first text, deltas
    /// follow and a [`CallInputComplete`] gives them whole.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub input_streaming: bool,
    /// The call this one runs under (a subagent's call); `None` for a top-level call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<CallId>,
}

/// More argument text of a call whose input is streaming.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallInputDelta {
    /// The call whose input grows.
    pub call_id: CallId,
    /// The text appended (any text).
    pub text: String,
}

/// A streaming call's whole arguments: what the presenters read.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CallInputComplete {
    /// The call whose input is complete.
    pub call_id: CallId,
    /// The whole argument text, verbatim.
    pub arguments_json: String,
    /// The harness's own card for the call; `None` lets the presenters derive one.
    pub view: Option<ToolCallView>,
}

/// A live output chunk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallOutput {
    /// The call that printed.
    pub call_id: CallId,
    /// The chunk, as printed (any text; escape sequences are stripped when rendered).
    pub data: String,
}

/// A call finished. `meta_json` is empty or valid JSON (checked at the edge), kept verbatim.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CallFinished {
    /// The call this event finishes.
    pub call_id: CallId,
    /// What the tool returned, as content blocks.
    pub content: Vec<ContentBlock>,
    /// Whether the tool failed.
    pub is_error: bool,
    /// Tool-specific metadata as JSON text (exit code, truncation, …), or empty.
    pub meta_json: String,
    /// The harness's own card for the result; `None` lets the presenters derive one.
    pub view: Option<ToolResultView>,
}

/// Characters of a session title at most (the rest is cut, with `…`).
pub const MAX_TITLE_CHARS: usize = 100;

/// A session's title from the text of its first user message: the first non-blank line,
/// without control characters (an escape sequence whole), trimmed, at most [`MAX_TITLE_CHARS`]
/// characters (cut with `…`); `None` for a blank text. The one rule the stores, `ListSessions`
/// and ACP's `session_info_update` share.
pub fn title_of(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(|l| without_controls(l).trim().to_owned())
        .find(|l| !l.is_empty())?;
    let mut title: String = line.chars().take(MAX_TITLE_CHARS).collect();
    if line.chars().nth(MAX_TITLE_CHARS).is_some() {
        title.pop();
        title.push('…');
    }
    Some(title)
}

/// `text` without control characters: an ANSI escape sequence (`ESC [ … final`, `ESC ] … BEL`)
/// goes whole, any other control character becomes a space. A title is shown in lists and
/// window titles, where none of them means anything.
pub fn without_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => match chars.peek() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL (or the string terminator's ESC).
                Some(']') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if c == '\x07' || c == '\x1b' {
                            break;
                        }
                    }
                }
                _ => {}
            },
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A turn began.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TurnStarted {
    /// The turn this event starts.
    pub turn_id: TurnId,
}

/// Why a turn ended (ACP's stop reasons; `Unspecified` when the harness did not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Not said: shown as a plain end of turn.
    Unspecified,
    /// The agent finished its answer.
    EndTurn,
    /// The model hit its token limit.
    MaxTokens,
    /// The harness hit its limit of model requests in one turn.
    MaxTurnRequests,
    /// The model refused to go on.
    Refusal,
    /// The user cancelled the turn.
    Cancelled,
}

impl StopReason {
    /// ACP's name for it (`end_turn` when not said).
    pub fn acp_name(self) -> &'static str {
        match self {
            StopReason::Unspecified | StopReason::EndTurn => "end_turn",
            StopReason::MaxTokens => "max_tokens",
            StopReason::MaxTurnRequests => "max_turn_requests",
            StopReason::Refusal => "refusal",
            StopReason::Cancelled => "cancelled",
        }
    }
}

/// Token counts of a turn; 0 means not known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Input tokens the model read in the turn.
    pub input_tokens: u64,
    /// Output tokens it wrote.
    pub output_tokens: u64,
    /// Input tokens served from a prompt cache.
    pub cached_input_tokens: u64,
    /// Output tokens spent on reasoning.
    pub reasoning_tokens: u64,
    /// Tokens in the context window after the turn.
    pub context_tokens: u64,
    /// The context window's size.
    pub context_window: u64,
}

/// A turn ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TurnFinished {
    /// The turn this event ends.
    pub turn_id: TurnId,
    /// Why it ended.
    pub stop_reason: StopReason,
    /// Its token usage, when known.
    pub usage: Option<TokenUsage>,
}

/// Who a message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    /// The user's prompt.
    User,
    /// The agent's answer.
    Assistant,
    /// The agent's reasoning (shown only to subscribers that ask for it).
    Reasoning,
}

/// A message began, with its text so far.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MessageStarted {
    /// The message this event starts.
    pub message_id: MessageId,
    /// Who it is from.
    pub role: MessageRole,
    /// Its first text (any text; may be empty).
    pub text: String,
    /// The call it belongs under (a subagent's words); `None` for the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<CallId>,
}

/// More text of a message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MessageDelta {
    /// The message that grows.
    pub message_id: MessageId,
    /// The text appended.
    pub text: String,
}

/// A message is complete.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MessageFinished {
    /// The message this event finishes.
    pub message_id: MessageId,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_has_no_control_characters() {
        assert_eq!(
            title_of("\x1b[31mFix\x1b[0m the\tbuild\x07\nmore").as_deref(),
            Some("Fix the build")
        );
        assert_eq!(
            title_of("\x1b]0;pwned\x07\n  \n second").as_deref(),
            Some("second")
        );
        assert_eq!(title_of("\x1b[2J\x1b[H"), None);
    }

    #[test]
    fn session_ids_have_no_dot_segments() {
        for ok in ["a", "team-a/run-7", "a.b/c..d/...", ".hidden/x", "x/..."] {
            assert_eq!(validate_session_id(ok), Ok(()), "{ok}");
        }
        for bad in [".", "..", "x/../victim", "x/./y", "../victim", "team-a/.."] {
            assert_eq!(validate_session_id(bad), Err(IdError::DotSegment), "{bad}");
        }
        assert_eq!(validate_session_id("a//b"), Err(IdError::EmptySegment));
    }
}
