//! Target-independent card preparation (relativized titles, resolved terminal cwds, output
//! capped) and capability degradation; what a subscriber can show ([`Capabilities`]).

use std::borrow::Cow;

use super::cap::{Cap, cap_blocks, cap_text, capped_input};
use super::fold::{CallState, CallStatus, Children};
use super::live::capped_streamed;
use super::paths::{call_title_path, relativize_title, result_title_path, terminal_cwd};
use super::text_form::{exit_is_clean, terminal_console, unified};
use crate::domain::{
    ContentBlock, DiffCallView, GenericCallView, GenericResultView, McpApp, TerminalResultView,
    ToolCallView, ToolKind, ToolResultView,
};
use crate::present::fill_runs;

/// What one subscriber can show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// Shows terminal cards (else: generic).
    pub terminal: bool,
    /// Shows diff cards.
    pub diff: bool,
    /// Shows read cards.
    pub read: bool,
    /// Shows search cards.
    pub search: bool,
    /// Shows web cards.
    pub web: bool,
    /// 0 means no cap.
    pub max_output_bytes: u64,
    /// ANSI: keep SGR colours in terminal output (and nothing else of its escapes).
    pub tool_colors: bool,
    /// VIEW: live output after a card was shown arrives as appends, not snapshots.
    pub output_appends: bool,
    /// Shows reasoning messages (else their updates are empty).
    pub reasoning: bool,
}

impl Capabilities {
    /// Every card shown, with or without terminals, no output cap: what a full-featured UI
    /// (or a human at a terminal) declares. Reasoning is left out: a subscriber asks for it.
    pub fn all(terminal: bool) -> Self {
        Capabilities {
            terminal,
            diff: true,
            read: true,
            search: true,
            web: true,
            max_output_bytes: 0,
            tool_colors: false,
            output_appends: false,
            reasoning: false,
        }
    }
}

/// Smallest output cap class: a smaller cap is raised to it.
const MIN_OUTPUT_CAP: u64 = 1024;

impl Capabilities {
    /// The capabilities a server renders for: `max_output_bytes` rounded down to a power of two
    /// (at least [`MIN_OUTPUT_CAP`]), and 0 (no cap) or anything above `ceiling` made
    /// `ceiling`. So a client's number picks one of a few lanes, and no update carries more
    /// than `ceiling` bytes of output.
    pub fn normalized(self, ceiling: u64) -> Self {
        let cap = match self.max_output_bytes {
            0 => ceiling,
            n if n >= ceiling => ceiling,
            n => (1u64 << n.ilog2()).max(MIN_OUTPUT_CAP).min(ceiling),
        };
        Capabilities {
            max_output_bytes: cap,
            ..self
        }
    }

    /// The output cap, as the renderers apply it.
    pub fn cap(&self) -> Cap {
        Cap::bytes(self.max_output_bytes)
    }
}

// ---- preparation ------------------------------------------------------------------------------

/// The call view as every target shows it: generic/diff titles relativized, the terminal cwd
/// resolved, text blocks capped. `None` for an orphan.
pub fn prepared_call(state: &CallState, cwd: Option<&str>, cap: Cap) -> Option<ToolCallView> {
    let view = state.call_view.as_ref()?;
    let raw = call_title_path(view);
    Some(match view.clone() {
        ToolCallView::Generic(mut g) => {
            g.title = relativize_title(&g.title, raw, cwd);
            cap_blocks(&mut g.content, cap);
            ToolCallView::Generic(g)
        }
        ToolCallView::Diff(mut d) => {
            d.title = relativize_title(&d.title, raw, cwd);
            fill_runs(&mut d.diffs);
            ToolCallView::Diff(d)
        }
        ToolCallView::Terminal(mut t) => {
            t.cwd = terminal_cwd(t.cwd.as_deref(), cwd);
            ToolCallView::Terminal(t)
        }
    })
}

/// The result view as every target shows it: generic/diff titles relativized, terminal output
/// resolved (its own, else what was streamed) and capped, text blocks capped.
pub fn prepared_result(state: &CallState, cwd: Option<&str>, cap: Cap) -> Option<ToolResultView> {
    let finished = state.finished.as_ref()?;
    let raw = result_title_path(&finished.view, state.call_view.as_ref());
    let relativize = |t: Option<String>| t.map(|t| relativize_title(&t, raw, cwd));
    Some(match finished.view.clone() {
        ToolResultView::Generic(mut g) => {
            g.title = relativize(g.title);
            cap_blocks(&mut g.content, cap);
            ToolResultView::Generic(g)
        }
        ToolResultView::Diff(mut d) => {
            d.title = relativize(d.title);
            fill_runs(&mut d.diffs);
            ToolResultView::Diff(d)
        }
        ToolResultView::Terminal(t) => ToolResultView::Terminal(TerminalResultView {
            output: Some(match t.output.as_deref() {
                Some(output) => cap_text(output, cap).into_owned(),
                None => state.streamed.capped(cap).into_owned(),
            }),
            ..t
        }),
        ToolResultView::Read(mut r) => {
            cap_blocks(&mut r.content, cap);
            ToolResultView::Read(r)
        }
        v @ (ToolResultView::Search(_) | ToolResultView::Web(_)) => v,
    })
}

/// A call as the snapshot targets (VIEW, Markdown, ANSI) show it after one change, or as a
/// client has it from VIEW updates ([`Snapshot::from_card`]).
pub struct Snapshot<'a> {
    /// The call's id.
    pub call_id: &'a str,
    /// The tool's name (empty for an orphan).
    pub tool_name: &'a str,
    /// Where the call is.
    pub status: CallStatus,
    /// The call card, prepared (titles relativized, text capped).
    pub call: Option<ToolCallView>,
    /// The result card, prepared, once finished.
    pub result: Option<ToolResultView>,
    /// The streamed text up to this change, capped.
    pub streamed: Cow<'a, str>,
    /// A pending call's input so far, capped; empty once its input is complete.
    pub input: Cow<'a, str>,
    /// How many parents it is under (indentation).
    pub depth: u8,
    /// What its children are doing, once it has had one.
    pub children: Option<&'a Children>,
    /// The MCP App its result carries (shown as a line naming it: only an app host can show it).
    pub app: Option<&'a McpApp>,
    /// Whether `streamed` is known to need no escaping for a terminal (so it is not scanned).
    pub plain: bool,
}

impl<'a> Snapshot<'a> {
    /// The snapshot after a call change; `None` for a session change.
    pub fn of(change: super::Change<'a>, cwd: Option<&str>, cap: Cap) -> Option<Self> {
        match change {
            super::Change::Session
            | super::Change::Ended(_)
            | super::Change::Turn(_)
            | super::Change::Message(..)
            | super::Change::Permission(_) => None,
            super::Change::Started(s)
            | super::Change::Input(s, _)
            | super::Change::Finished(s)
            | super::Change::Snapshot(s) => Some(Self::at(s, None, cwd, cap)),
            super::Change::Output(s, chunk) => Some(Self::at(s, Some(chunk.end()), cwd, cap)),
        }
    }

    /// The call with its output up to byte `upto` (`None`: all of it).
    pub fn at(state: &'a CallState, upto: Option<usize>, cwd: Option<&str>, cap: Cap) -> Self {
        Snapshot {
            call_id: state.call_id.as_str(),
            tool_name: &state.tool_name,
            status: state.status,
            call: prepared_call(state, cwd, cap),
            result: prepared_result(state, cwd, cap),
            streamed: capped_streamed(state, upto, cap),
            input: state
                .input
                .as_ref()
                .map_or(Cow::Borrowed(""), |i| capped_input(&i.text, cap)),
            depth: state.depth,
            children: state.children.as_ref(),
            app: state.finished.as_ref().and_then(|f| f.app.as_ref()),
            plain: state.streamed.is_plain(),
        }
    }

    /// A card as a VIEW subscriber holds it (its appends applied): what the CLI renders for a
    /// terminal or a Markdown transcript, with the same code the server's targets use.
    pub fn from_card(card: &'a super::CardSnapshot) -> Self {
        Snapshot {
            call_id: &card.call_id,
            tool_name: &card.tool_name,
            status: card.status,
            call: card.call.clone(),
            result: card.result.clone(),
            streamed: Cow::Borrowed(&card.streamed),
            input: Cow::Borrowed(&card.input),
            depth: card.depth,
            children: card.children.as_ref(),
            app: card.mcp_app.as_ref(),
            plain: !super::visible::needs_escaping(&card.streamed),
        }
    }

    /// The status a person reads (Markdown, ANSI): a command that exited unclean reads as
    /// failed, as its red exit does, even when the harness did not flag the result an error.
    pub fn shown_status(&self) -> CallStatus {
        match (self.status, &self.result) {
            (CallStatus::Completed, Some(ToolResultView::Terminal(t)))
                if !exit_is_clean(t.exit.as_ref()) =>
            {
                CallStatus::Failed
            }
            (status, _) => status,
        }
    }

    /// The title shown: the result's replacement title, else the call's, else the call id.
    pub fn title(&self) -> &str {
        self.result
            .as_ref()
            .and_then(ToolResultView::title)
            .or(self.call.as_ref().map(ToolCallView::title))
            .unwrap_or(self.call_id)
    }
}

// ---- degradation (VIEW, and the AG-UI envelopes) ----------------------------------------------

/// A call card the subscriber cannot show becomes generic.
pub fn degrade_call(view: ToolCallView, caps: &Capabilities) -> ToolCallView {
    match view {
        ToolCallView::Terminal(t) if !caps.terminal => ToolCallView::Generic(GenericCallView {
            raw_input: Some(serde_json::Value::String(t.title.clone())),
            content: t.description.map(ContentBlock::text).into_iter().collect(),
            title: t.title,
            kind: Some(ToolKind::Execute),
            locations: Vec::new(),
        }),
        ToolCallView::Diff(DiffCallView {
            title,
            diffs,
            locations,
        }) if !caps.diff => ToolCallView::Generic(GenericCallView {
            title,
            kind: Some(ToolKind::Edit),
            raw_input: None,
            content: vec![ContentBlock::text(unified(&diffs))],
            locations,
        }),
        v @ (ToolCallView::Generic(_) | ToolCallView::Terminal(_) | ToolCallView::Diff(_)) => v,
    }
}

/// A result card the subscriber cannot show becomes generic. `prepared` comes from
/// [`prepared_result`]; `state` supplies the raw content and what was streamed.
pub fn degrade_result(
    prepared: ToolResultView,
    state: &CallState,
    caps: &Capabilities,
) -> ToolResultView {
    let raw = || {
        let mut content = state
            .finished
            .as_ref()
            .map(|f| f.raw_content.clone())
            .unwrap_or_default();
        cap_blocks(&mut content, caps.cap());
        content
    };
    let generic = |title, content| ToolResultView::Generic(GenericResultView { title, content });
    match prepared {
        ToolResultView::Terminal(t) if !caps.terminal => {
            let output = t.output.as_deref().unwrap_or("");
            let console = terminal_console(output, t.exit.as_ref(), &state.streamed);
            generic(
                t.title,
                console.map(ContentBlock::text).into_iter().collect(),
            )
        }
        // A generic result has no locations: the diff's text form stands alone.
        ToolResultView::Diff(d) if !caps.diff => {
            generic(d.title, vec![ContentBlock::text(unified(&d.diffs))])
        }
        ToolResultView::Read(r) if !caps.read => {
            let content = if r.content.is_empty() {
                raw()
            } else {
                r.content
            };
            generic(r.title, content)
        }
        ToolResultView::Search(s) if !caps.search => generic(s.title, raw()),
        ToolResultView::Web(w) if !caps.web => generic(w.title, raw()),
        v @ (ToolResultView::Generic(_)
        | ToolResultView::Terminal(_)
        | ToolResultView::Diff(_)
        | ToolResultView::Read(_)
        | ToolResultView::Search(_)
        | ToolResultView::Web(_)) => v,
    }
}
