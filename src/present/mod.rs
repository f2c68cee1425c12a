//! Presenters: tool calls → cards (`docs/spec/producers.md`). Pure and total: no clock, no I/O, no session
//! state, and no JSON value can make them fail — malformed input degrades to the generic card.
//!
//! Where things are: `registry.rs` (the closed `Tool` enum, name lookup), `dsh.rs` (vocabulary 1),
//! `claude.rs` (vocabulary 2), `doc.rs` (what each reads and gives: `docs/producers.md`), `meta.rs` (meta forms), `partial.rs` (a call's input while it streams), `hunks.rs` (jsdiff-exact hunks), `args.rs`
//! (strict/lenient field access), `text.rs` (fences), `lang.rs`. `mod.rs` holds the resolution
//! order (`resolve_call`, `resolve_result`).

mod args;
mod claude;
mod doc;
mod dsh;
mod hunks;
mod lang;
mod mcp_app;
mod meta;
mod partial;
mod registry;
pub mod text;

use serde_json::Value;

pub use args::{parse_arguments, parse_meta};
pub use doc::{Example, ToolDoc};
pub use hunks::{Hunk, Op as LineOp, diff_lines, fill_runs, hunks, line_runs, side_lines};
pub use lang::lang_for_path;
pub use mcp_app::{MAX_RESOURCE_URI_BYTES, call_tool_result, mcp_app, server_hash};
pub use meta::{MetaDiffs, diffs as meta_diffs};
pub use partial::{MAX_HEADING_STRING_BYTES, PartialInput, pending_call, read_partial};
pub use registry::{TOOLS, Tool};

use crate::domain::{
    ContentBlock, DiffResultView, GenericCallView, GenericResultView, Plan, ToolCallView, ToolKind,
    ToolResultView,
};

/// A finished call's result as presenters see it.
#[derive(Debug, Clone, Copy)]
pub struct ToolResult<'a> {
    /// What the tool returned.
    pub content: &'a [ContentBlock],
    /// Whether the tool failed.
    pub is_error: bool,
    /// The tool's metadata, when it parsed as JSON.
    pub meta: Option<&'a Value>,
}

/// The started call a result belongs to.
#[derive(Debug, Clone, Copy)]
pub struct StartedCall<'a> {
    /// The tool's name.
    pub tool_name: &'a str,
    /// The parsed arguments (`Null` when they did not parse).
    pub args: &'a Value,
    /// The call's card.
    pub view: &'a ToolCallView,
}

/// Step 2: the harness's own view, else the registry's presenter, else the generic fallback
/// `{card: generic, title: <tool name>, kind: other, rawInput: <args>}`.
pub fn resolve_call(
    tool_name: &str,
    args: &Value,
    harness_view: Option<ToolCallView>,
) -> ToolCallView {
    if let Some(view) = harness_view {
        return view;
    }
    Tool::lookup(tool_name)
        .and_then(|tool| tool.call(args).ok())
        .unwrap_or_else(|| {
            ToolCallView::Generic(GenericCallView {
                title: tool_name.to_owned(),
                kind: Some(ToolKind::Other),
                raw_input: Some(args.clone()),
                ..Default::default()
            })
        })
}

/// Step 4: the result card, with the unknown-call rule, diff keep, the orphan guard and fill-in.
pub fn resolve_result(
    call: Option<StartedCall<'_>>,
    result: ToolResult<'_>,
    harness_view: Option<ToolResultView>,
) -> ToolResultView {
    let raw = || {
        ToolResultView::Generic(GenericResultView {
            title: None,
            content: result.content.to_vec(),
        })
    };
    let Some(call) = call else { return raw() };
    let presented = harness_view.or_else(|| {
        Tool::lookup(call.tool_name).and_then(|tool| tool.result(call.args, &result).ok())
    });
    let view = match (presented, call.view) {
        (Some(view), _) => view,
        // Diff keep: a "file updated" message never replaces the change it describes.
        (None, ToolCallView::Diff(d)) if !result.is_error => ToolResultView::Diff(DiffResultView {
            title: None,
            diffs: d.diffs.clone(),
            locations: Vec::new(),
        }),
        (None, ToolCallView::Generic(_) | ToolCallView::Terminal(_) | ToolCallView::Diff(_)) => {
            raw()
        }
    };
    match view {
        // Orphan guard: only a terminal call can have a terminal result.
        ToolResultView::Terminal(_) if !matches!(call.view, ToolCallView::Terminal(_)) => raw(),
        // Fill-in: a card is never blanked.
        ToolResultView::Generic(GenericResultView { title, content }) if content.is_empty() => {
            ToolResultView::Generic(GenericResultView {
                title,
                content: result.content.to_vec(),
            })
        }
        view @ (ToolResultView::Generic(_)
        | ToolResultView::Terminal(_)
        | ToolResultView::Diff(_)
        | ToolResultView::Read(_)
        | ToolResultView::Search(_)
        | ToolResultView::Web(_)) => view,
    }
}

/// A finished call's result as a harness sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedInput {
    /// What the tool returned.
    pub content: Vec<ContentBlock>,
    /// Whether the tool failed.
    pub is_error: bool,
    /// The tool's metadata (parsed `meta_json`).
    pub meta: Option<Value>,
    /// A harness-computed result view.
    pub view: Option<ToolResultView>,
}

/// The plan a call states (todo tools), whatever view it is shown with.
pub fn plan(tool_name: &str, args: &Value) -> Option<Plan> {
    Tool::lookup(tool_name).and_then(|tool| tool.plan(args))
}

/// The views for one call and, optionally, its result (what `Present` returns): steps 1–4 of
/// the resolution order, with the harness's own views when given.
pub fn present(
    tool_name: &str,
    arguments_json: &str,
    call_view: Option<ToolCallView>,
    result: Option<&FinishedInput>,
) -> (ToolCallView, Option<ToolResultView>) {
    let args = parse_arguments(arguments_json);
    let call = resolve_call(tool_name, &args, call_view);
    let result = result.map(|r| {
        let started = StartedCall {
            tool_name,
            args: &args,
            view: &call,
        };
        let input = ToolResult {
            content: &r.content,
            is_error: r.is_error,
            meta: r.meta.as_ref(),
        };
        resolve_result(Some(started), input, r.view.clone())
    });
    (call, result)
}
