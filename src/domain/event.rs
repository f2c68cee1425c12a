//! Execution events as a harness publishes them, after validation at the API edge.

use std::fmt;

use super::{ContentBlock, ToolCallView, ToolResultView};

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
/// tokens can grant a whole prefix (`team-a/*`). The whole id is at most 128 characters.
pub fn validate_session_id(s: &str) -> Result<(), IdError> {
    if s.len() > 128 && s.is_ascii() {
        return Err(IdError::TooLong(s.len()));
    }
    if s.contains('/') && s.split('/').any(str::is_empty) {
        return Err(IdError::EmptySegment);
    }
    s.split('/').try_for_each(validate_id)
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

/// A validated event. Its serde form is the durable storage format of the embedded store
/// (changing it needs a migration).
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
    /// A call started.
    CallStarted(CallStarted),
    /// A running call printed output.
    CallOutput(CallOutput),
    /// A call finished.
    CallFinished(CallFinished),
}

impl EventBody {
    /// The call the event is about, if any.
    pub fn call_id(&self) -> Option<&CallId> {
        match self {
            EventBody::SessionStarted(_) => None,
            EventBody::CallStarted(e) => Some(&e.call_id),
            EventBody::CallOutput(e) => Some(&e.call_id),
            EventBody::CallFinished(e) => Some(&e.call_id),
        }
    }
}

/// A session began; `cwd` is absolute or empty.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionStarted {
    /// The session's working directory, against which paths are shown relative.
    pub cwd: String,
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
