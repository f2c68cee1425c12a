//! The render-intent union and the events it is made from: pure data, no I/O, no generated
//! types. Serde derives give exactly the "view JSON" of the spec (`docs/spec/union.md`).
//!
//! Where things are: the render-intent union (`ToolCallView`, `ToolResultView`: enums of
//! per-variant structs), the shared vocabulary, validated ids and events, `Cursor`/`Epoch`
//! (`cursor.rs`: the one position type of acks, resumes, updates and resets), `Plan` (`plan.rs`: a
//! todo list, computed by the presenters). Serde derives give exactly the spec's view JSON. Pure
//! data.

mod app;
mod call;
mod common;
mod cursor;
mod event;
mod lifecycle;
pub mod permission;
mod plan;
mod result;
mod summary;
mod violation;

pub use app::{MCP_APP_MIME_TYPE, McpApp};
pub use call::{DiffCallView, GenericCallView, TerminalCallView, ToolCallView};
pub use common::{
    ContentBlock, DiffOp, DiffRun, FileDiff, FileLocation, ImageContent, ReadLine, ResourceLink,
    SearchFileMatches, SearchMatch, ToolKind, WebSource,
};
pub use cursor::{Cursor, Epoch, EpochError, MAX_EPOCH_LEN};
pub use event::{
    CallFinished, CallId, CallInputComplete, CallInputDelta, CallOutput, CallStarted, EventBody,
    EventId, IdError, MAX_END_REASON_BYTES, MAX_TITLE_CHARS, MessageDelta, MessageFinished,
    MessageId, MessageRole, MessageStarted, SessionEnded, SessionId, SessionStarted, StopReason,
    TokenUsage, ToolEvent, TurnFinished, TurnId, TurnStarted, is_dot_segment, title_of,
    validate_id, validate_session_id, without_controls,
};
pub use lifecycle::{BatchError, Lifecycle, LifecycleError, Pending, Phase, Subject};
pub use plan::{Plan, PlanEntry, PlanStatus};
pub use result::{
    DiffResultView, GenericResultView, ReadResultView, SearchResultView, SearchShape, TerminalExit,
    TerminalResultView, ToolResultView, WebKind, WebResultView,
};
pub use summary::{
    MAX_SUMMARY_PROMPTS, PendingPrompt, SessionState, SessionSummary, Transition, transitions,
};
pub(crate) use violation::violation_error;
pub use violation::{FieldViolation, Violation};
