//! Target MARKDOWN: one "copy as Markdown" snapshot per call update. Text from tools and
//! harnesses is fenced or escaped (`markdown_text.rs`): it cannot open links, images or HTML.

use crate::domain::{
    ContentBlock, GenericCallView, TerminalCallView, TerminalExit, ToolCallView, ToolResultView,
};
use crate::present::text::{console_body, fence, plain_block_body};
use crate::render::Context;
use crate::render::card::{Capabilities, Snapshot};
use crate::render::fold::{CallStatus, Change, Children, InputChange};
use crate::render::live::{LiveChunk, live_chunk};
use crate::render::markdown_text::{MARKDOWN, escape, escape_line, link};
use crate::render::text_form::{exit_note, read_lines_text, search_text, unified, web_text};
use crate::render::transcript::{Form, conversation, nest_markdown};

pub(crate) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> String {
    if let Some(text) = conversation(change, caps, Form::Markdown) {
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
        Some(snap) => card(&snap),
        None => String::new(),
    }
}

/// One card in Markdown: the target's snapshot, and what `toolview tail --target markdown`
/// prints.
pub fn card(snap: &Snapshot<'_>) -> String {
    let (call, result, streamed) = (&snap.call, &snap.result, &snap.streamed);
    let title = snap.title();
    let status = match snap.shown_status() {
        CallStatus::Pending => "Pending",
        CallStatus::InProgress => "In Progress",
        CallStatus::Completed => "Completed",
        CallStatus::Failed => "Failed",
    };
    let body = match (result, call) {
        (Some(r), _) => result_body(r, call.as_ref()),
        // A pending call's input as the model writes it.
        (None, Some(_)) if !snap.input.is_empty() => fence("", &snap.input),
        (None, Some(c)) => call_body(c, streamed),
        // An orphan's live output.
        (None, None) => fence("console", streamed),
    };
    let mut out = format!("**Tool Call: {}**\nStatus: {status}", escape_line(title));
    if let Some(children) = snap.children {
        out.push_str(&format!("\nSubagent: {}", children_line(children)));
    }
    if let Some(app) = snap.app {
        out.push_str(&format!("\nApp: {}", escape_line(&app.resource_uri)));
    }
    if !body.is_empty() {
        out.push_str("\n\n");
        out.push_str(&body);
    }
    nest_markdown(&out, snap.depth)
}

/// `2 running, 1 done · latest: Read src/a.rs`, escaped.
fn children_line(children: &Children) -> String {
    let mut line = children.summary();
    if !children.latest.is_empty() {
        line.push_str(&format!(" · latest: {}", children.latest));
    }
    escape_line(&line)
}

fn texts(content: &[ContentBlock]) -> Vec<String> {
    content
        .iter()
        .filter_map(|b| match b {
            // A presenter's console block is a code block; any other text is untrusted.
            ContentBlock::Text { text } => {
                Some(match (console_body(text), plain_block_body(text)) {
                    (Some(output), _) => fence("console", output),
                    (None, Some(body)) => fence("", body),
                    (None, None) => escape(text),
                })
            }
            ContentBlock::Reasoning { .. } => None,
            ContentBlock::Image(i) => Some(escape_line(&format!(
                "[image{}]",
                i.uri
                    .as_deref()
                    .map(|u| format!(": {u}"))
                    .unwrap_or_default()
            ))),
            ContentBlock::ResourceLink(l) => Some(link(&l.name, &l.uri)),
        })
        .collect()
}

fn terminal(t: &TerminalCallView, output: &str, exit: Option<&TerminalExit>) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &t.description {
        parts.push(escape(d));
    }
    parts.push(fence("console", &format!("$ {}\n{output}", t.title)));
    parts.extend(exit_note(exit).map(|n| escape_line(&n)));
    parts.join("\n\n")
}

/// A generic call's input: a string as is, anything else as pretty JSON.
fn raw_input(g: &GenericCallView) -> Option<String> {
    match &g.raw_input {
        Some(serde_json::Value::String(s)) => Some(fence("", s)),
        Some(v) => Some(fence(
            "json",
            &serde_json::to_string_pretty(v).unwrap_or_default(),
        )),
        None => None,
    }
}

fn call_body(call: &ToolCallView, streamed: &str) -> String {
    match call {
        ToolCallView::Generic(g) => {
            let mut parts = texts(&g.content);
            parts.extend(raw_input(g));
            if !streamed.is_empty() {
                parts.push(fence("console", streamed));
            }
            parts.join("\n\n")
        }
        ToolCallView::Terminal(t) => terminal(t, streamed, None),
        ToolCallView::Diff(d) => unified(&d.diffs),
    }
}

fn result_body(result: &ToolResultView, call: Option<&ToolCallView>) -> String {
    match result {
        // A generic call keeps its input above what it returned: nothing else shows it.
        ToolResultView::Generic(g) => {
            let mut parts = Vec::new();
            if let Some(ToolCallView::Generic(c)) = call {
                parts.extend(raw_input(c));
            }
            parts.extend(texts(&g.content));
            parts.join("\n\n")
        }
        ToolResultView::Terminal(t) => {
            let command = match call {
                Some(ToolCallView::Terminal(c)) => c.clone(),
                Some(ToolCallView::Generic(_) | ToolCallView::Diff(_)) | None => {
                    TerminalCallView::default()
                }
            };
            terminal(&command, t.output.as_deref().unwrap_or(""), t.exit.as_ref())
        }
        ToolResultView::Diff(d) => unified(&d.diffs),
        ToolResultView::Read(r) => fence(r.lang.as_deref().unwrap_or(""), &read_lines_text(r)),
        ToolResultView::Search(s) => search_text(s, &MARKDOWN),
        ToolResultView::Web(w) => web_text(w, &MARKDOWN),
    }
}
