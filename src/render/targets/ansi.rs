//! Target ANSI: one coloured snapshot per call update, for terminal UIs. Every piece of text
//! from a tool or harness goes through [`visible`], so the only escape sequences in the output
//! are the SGR colours written here.

use std::collections::BTreeSet;

use crate::domain::{FileDiff, TerminalCallView, TerminalExit, ToolCallView, ToolResultView};
use crate::present::LineOp;
use crate::render::Context;
use crate::render::card::{Capabilities, Snapshot};
use crate::render::fold::{CallStatus, Change, InputChange};
use crate::render::live::{LiveChunk, live_chunk};
use crate::render::text_form::{
    TERMINAL, diff_line_pairs, flatten_view, read_lines_text, search_text, web_text,
};
use crate::render::transcript::{Form, conversation, nest_ansi};
use crate::render::visible::{visible, visible_keeping_sgr};

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";

pub(crate) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> String {
    if let Some(text) = conversation(change, caps, Form::Ansi) {
        return text;
    }
    // No append form: a chat message or a printed card is replaced whole. Past the cap, nothing;
    // a pending call's input only where the fold read it (O(input) in all).
    if let Change::Output(state, chunk) = change
        && live_chunk(state, chunk, caps.cap(), false) == LiveChunk::Nothing
    {
        return String::new();
    }
    if let Change::Input(_, InputChange::Delta { read: false, .. }) = change {
        return String::new();
    }
    match Snapshot::of(change, ctx.cwd, caps.cap()) {
        Some(snap) => card(&snap, caps),
        None => String::new(),
    }
}

/// One card in ANSI: the target's snapshot, and what `toolview tail` prints.
pub fn card(snap: &Snapshot<'_>, caps: &Capabilities) -> String {
    let (call, result, streamed) = (&snap.call, &snap.result, &snap.streamed);
    let (color, mark) = match snap.shown_status() {
        CallStatus::Pending => (DIM, '◌'),
        CallStatus::InProgress => (YELLOW, '○'),
        CallStatus::Completed => (GREEN, '●'),
        CallStatus::Failed => (RED, '●'),
    };
    let name = if snap.tool_name.is_empty() {
        snap.call_id
    } else {
        snap.tool_name
    };
    let mut header = format!("{color}{mark} Tool / {}", visible(name));
    if let Some(ToolCallView::Terminal(t)) = &call
        && let Some(d) = &t.description
    {
        header.push_str(&format!(" / {}", visible(d)));
    }
    header.push_str(RESET);
    let mut lines = vec![header];
    if let Some(children) = snap.children {
        let mut line = format!("subagent: {}", children.summary());
        if !children.latest.is_empty() {
            line.push_str(&format!(" · latest: {}", children.latest));
        }
        lines.push(format!("{DIM}{}{RESET}", visible(&line)));
    }
    if let Some(app) = snap.app {
        lines.push(format!("{DIM}app: {}{RESET}", visible(&app.resource_uri)));
    }

    let title = result
        .as_ref()
        .and_then(ToolResultView::title)
        .or(call.as_ref().map(ToolCallView::title));
    let titled = |lines: &mut Vec<String>| {
        if let Some(t) = title.filter(|t| *t != name) {
            lines.push(format!("{BOLD}{}{RESET}", visible(t)));
        }
    };
    match (&call, &result) {
        (Some(ToolCallView::Terminal(t)), None | Some(ToolResultView::Terminal(_))) => {
            terminal(&mut lines, snap, t, caps);
        }
        (_, Some(ToolResultView::Diff(d))) => diff(&mut lines, &d.diffs),
        (Some(ToolCallView::Diff(d)), None) => diff(&mut lines, &d.diffs),
        (_, Some(r)) => {
            titled(&mut lines);
            let body = match r {
                ToolResultView::Generic(g) => flatten_view(&g.content),
                ToolResultView::Read(r) => read_lines_text(r),
                ToolResultView::Search(s) => search_text(s, &TERMINAL),
                ToolResultView::Web(w) => web_text(w, &TERMINAL),
                ToolResultView::Terminal(t) => t.output.clone().unwrap_or_default(),
                ToolResultView::Diff(_) => String::new(),
            };
            push_dim(&mut lines, &body);
        }
        (Some(ToolCallView::Generic(g)), None) => {
            titled(&mut lines);
            push_dim(&mut lines, &flatten_view(&g.content));
            // A pending call's input as the model writes it.
            push_dim(&mut lines, &snap.input);
            push_streamed(&mut lines, snap.plain, streamed);
        }
        (None, None) => push_streamed(&mut lines, snap.plain, streamed),
    }
    nest_ansi(&lines.join("\n"), snap.depth)
}

/// A terminal card's lines: the command, its cwd, its output (live or final) and its exit.
fn terminal(
    lines: &mut Vec<String>,
    snap: &Snapshot<'_>,
    t: &TerminalCallView,
    caps: &Capabilities,
) {
    let (result, streamed) = (&snap.result, &snap.streamed);
    lines.push(format!("{BOLD}$ {}{RESET}", visible(&t.title)));
    if let Some(cwd) = &t.cwd {
        lines.push(format!("{DIM}{}{RESET}", visible(cwd)));
    }
    let (output, exit) = match &result {
        Some(ToolResultView::Terminal(r)) => (r.output.as_deref().unwrap_or(""), r.exit.as_ref()),
        // Still running (the arm above admits no other result).
        None
        | Some(
            ToolResultView::Generic(_)
            | ToolResultView::Diff(_)
            | ToolResultView::Read(_)
            | ToolResultView::Search(_)
            | ToolResultView::Web(_),
        ) => (streamed.as_ref(), None),
    };
    match result {
        // Plain live output: nothing to escape, and so no colours to keep either.
        None if snap.plain => push_streamed(lines, true, output),
        None | Some(_) => push_output(lines, output, caps.tool_colors),
    }
    match exit {
        Some(TerminalExit::Code(c)) => lines.push(format!("{DIM}[exit {c}]{RESET}")),
        Some(TerminalExit::Signal(s)) => {
            lines.push(format!("{DIM}[signal {}]{RESET}", visible(s)));
        }
        None => {}
    }
}

/// A terminal's output, dim; with `tool_colors` its own SGR colours stay (each line still ends
/// with a reset, so no colour outlives it).
fn push_output(lines: &mut Vec<String>, text: &str, tool_colors: bool) {
    if !tool_colors {
        return push_dim(lines, text);
    }
    if text.is_empty() {
        return;
    }
    lines.extend(
        text.trim_end_matches('\n')
            .split('\n')
            .map(|l| format!("{DIM}{}{RESET}", visible_keeping_sgr(l))),
    );
}

/// A running call's live output, dim; output known to be plain
/// ([`crate::render::Streamed::is_plain`]) is not scanned again (a snapshot is then a copy of it).
fn push_streamed(lines: &mut Vec<String>, plain: bool, text: &str) {
    dim_lines(lines, text, !plain);
}

/// Untrusted text, dim, a line at a time.
fn push_dim(lines: &mut Vec<String>, text: &str) {
    dim_lines(lines, text, true);
}

fn dim_lines(lines: &mut Vec<String>, text: &str, escape: bool) {
    if text.is_empty() {
        return;
    }
    lines.extend(text.trim_end_matches('\n').split('\n').map(|l| {
        if escape {
            format!("{DIM}{}{RESET}", visible(l))
        } else {
            format!("{DIM}{l}{RESET}")
        }
    }));
}

/// Per file: a bold path line and `+`/`-`/` ` lines; a blank line between files; a footer.
fn diff(lines: &mut Vec<String>, diffs: &[FileDiff]) {
    let (mut added, mut removed) = (0, 0);
    for (i, d) in diffs.iter().enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        lines.push(format!("{BOLD}{}{RESET}", visible(&d.path)));
        for (op, line) in diff_line_pairs(d) {
            lines.push(match op {
                LineOp::Add => {
                    added += 1;
                    format!("{GREEN}+ {}{RESET}", visible(line))
                }
                LineOp::Remove => {
                    removed += 1;
                    format!("{RED}- {}{RESET}", visible(line))
                }
                LineOp::Equal => format!("{DIM}  {}{RESET}", visible(line)),
            });
        }
    }
    let files = diffs
        .iter()
        .map(|d| d.path.as_str())
        .collect::<BTreeSet<_>>()
        .len();
    let noun = if files == 1 { "file" } else { "files" };
    lines.push(format!(
        "{DIM}└ +{added} -{removed} · {files} {noun}{RESET}"
    ));
}
