//! The bridge (`docs/spec/rendering.md`): fold events into card state, then render each change for one
//! subscriber's target and capabilities. Pure: the same events, target and capabilities always
//! give the same bytes, live or replayed.
//!
//! Where things are: `renderer.rs` (`Renderer::step`: fold, render, a stand-in card for an
//! update over the size limit), `fold/` (events → `CallState`, `MessageState`, turns, total over
//! any sequence; live output and input within the output cap: `streamed.rs`, `input.rs`,
//! `cap.rs`, `live.rs`), `card.rs` (`Capabilities`, target-independent preparation and
//! degradation), `targets/` (a module per target), `text/` (the text they share, and `screen/`:
//! VIEW updates drawn as text), `frame/` (`StreamFrame`: the AG-UI and AI SDK streams' framing).
//! `render_all` renders with no limit (offline and tests).

pub mod card;
pub mod fold;
mod frame;
mod json_len;
mod renderer;
pub mod targets;
pub mod text;

// Each module by its short name, wherever it lives (`render::view`, `render::cap`, …).
pub(crate) use fold::{cap, input, live, streamed};
pub(crate) use targets::{acp, ansi, markdown, view};
pub use targets::{acp_meta, ag_ui, ai_sdk};
pub(crate) use text::{markdown_text, md, text_form, transcript, visible};
pub use text::{paths, permission, screen};

pub use ag_ui::AgUiEvent;
pub use ai_sdk::UiChunk;
pub use ansi::card as ansi_card;
pub use card::Capabilities;
pub use fold::{
    CallState, CallStatus, Change, Children, Fold, InFlight, InputChange, MAX_DEPTH, MessageChange,
    MessageState, PermissionState, Step, Turn,
};
pub use frame::{StreamEvent, StreamFrame};
pub use input::{MAX_INPUT_SHOWN_BYTES, StreamingInput};
pub use json_len::{json_len, json_text};
pub use markdown::card as markdown_card;
pub use permission::{ansi as permission_ansi, markdown as permission_markdown};
pub use renderer::Renderer;
pub use streamed::{Chunk, Streamed};
pub use transcript::{
    TurnLine, message_ansi, message_markdown, nest_ansi, nest_markdown, turn_ansi, turn_markdown,
};
pub use view::{CardSnapshot, MessageStatus, PermissionSnapshot, ViewUpdate};
pub use visible::{visible, visible_keeping_sgr};

use crate::domain::{Subject, ToolEvent};

/// A rendering target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Structured card updates (JSON).
    View,
    /// ACP `session/update` notifications.
    Acp,
    /// AG-UI events.
    AgUi,
    /// Markdown for chat renderers.
    Markdown,
    /// ANSI text for terminals.
    Ansi,
    /// The AI SDK's UI message stream chunks.
    AiSdk,
}

impl Target {
    /// The target's name in logs and metrics (the proto enum's, lower case).
    pub fn name(self) -> &'static str {
        match self {
            Target::View => "view",
            Target::Acp => "acp",
            Target::AgUi => "ag_ui",
            Target::Markdown => "markdown",
            Target::Ansi => "ansi",
            Target::AiSdk => "ai_sdk",
        }
    }
}

/// The body of one rendered update.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// A card or session update.
    View(ViewUpdate),
    /// Complete JSON-RPC notifications, one JSON text each.
    Acp(Vec<String>),
    /// AG-UI events.
    AgUi(Vec<AgUiEvent>),
    /// A Markdown fragment.
    Markdown(String),
    /// ANSI text.
    Ansi(String),
    /// AI SDK UI message stream chunks.
    AiSdk(Vec<UiChunk>),
}

/// One event's rendering: every event yields exactly one.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The call, message or turn the update is about; `None` for a session update.
    pub subject: Option<Subject>,
    /// What the update shows.
    pub body: Body,
}

impl Rendered {
    /// Roughly how many bytes the update holds (for memory budgets); the JSON targets' events
    /// count as their JSON text, counted without writing it.
    pub fn approx_bytes(&self) -> usize {
        let body = match &self.body {
            Body::View(v) => v.approx_bytes(),
            Body::Acp(m) => m.iter().map(String::len).sum(),
            Body::AgUi(events) => events.iter().map(json_len::json_len).sum(),
            Body::AiSdk(chunks) => chunks.iter().map(json_len::json_len).sum(),
            Body::Markdown(s) | Body::Ansi(s) => s.len(),
        };
        let subject = match &self.subject {
            None => 0,
            Some(Subject::Call(id)) => id.as_str().len(),
            Some(Subject::Message(id)) => id.as_str().len(),
            Some(Subject::Turn(id)) => id.as_str().len(),
            Some(Subject::Permission(id)) => id.as_str().len(),
        };
        body + subject + 64
    }
}

/// What renderers know about the session.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The session rendered.
    pub session_id: &'a str,
    /// Its working directory, for relative paths.
    pub cwd: Option<&'a str>,
    /// The parent in flight whose children the change moved: renderings that can update
    /// another card in the same update show its progress too.
    pub parent: Option<&'a CallState>,
}

/// Renders one change for one target.
pub fn render(
    change: Change<'_>,
    ctx: &Context<'_>,
    target: Target,
    caps: &Capabilities,
) -> Rendered {
    let subject = match change {
        Change::Session | Change::Ended(_) => None,
        Change::Turn(t) => Some(Subject::turn(t.turn_id)),
        Change::Started(s)
        | Change::Input(s, _)
        | Change::Output(s, _)
        | Change::Finished(s)
        | Change::Snapshot(s) => Some(Subject::call(&s.call_id)),
        Change::Message(m, _) => Some(Subject::message(&m.message_id)),
        Change::Permission(p) => Some(Subject::Permission(p.request.request_id.clone())),
    };
    if change.is_reasoning() && !caps.reasoning {
        // Reasoning is shown only to subscribers that ask for it: the others get an empty
        // update (it still moves their cursor).
        let body = match target {
            Target::View => Body::View(ViewUpdate::Unchanged),
            Target::Acp => Body::Acp(Vec::new()),
            Target::AgUi => Body::AgUi(Vec::new()),
            Target::Markdown => Body::Markdown(String::new()),
            Target::Ansi => Body::Ansi(String::new()),
            Target::AiSdk => Body::AiSdk(Vec::new()),
        };
        return Rendered { subject, body };
    }
    let body = match target {
        Target::View => Body::View(view::render(change, ctx, caps)),
        Target::Acp => Body::Acp(acp::render(change, ctx, caps)),
        Target::AgUi => Body::AgUi(ag_ui::render(change, ctx, caps)),
        Target::Markdown => Body::Markdown(markdown::render(change, ctx, caps)),
        Target::Ansi => Body::Ansi(ansi::render(change, ctx, caps)),
        Target::AiSdk => Body::AiSdk(ai_sdk::render(change, ctx, caps)),
    };
    Rendered { subject, body }
}

/// Folds `events` from an initial session cwd and renders every update, with no size limit (the
/// offline `toolview render` and tests; the `Render` RPC bounds its response).
pub fn render_all(
    session_cwd: &str,
    events: &[ToolEvent],
    target: Target,
    caps: &Capabilities,
) -> Vec<Rendered> {
    let mut renderer = Renderer::new(session_cwd, target, *caps, usize::MAX);
    events.iter().map(|e| renderer.step(e).0).collect()
}
