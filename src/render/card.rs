//! Target-independent card preparation: relativized titles, resolved terminal cwds, the output
//! cap, the text forms (`CONSOLE`, `UNIFIED`) and capability degradation.

use std::borrow::Cow;

use super::fold::{CallState, CallStatus};
use super::paths::{call_title_path, relativize_title, result_title_path, terminal_cwd};
use super::streamed::Chunk;
use crate::domain::{
    ContentBlock, DiffCallView, FileDiff, GenericCallView, GenericResultView, TerminalExit,
    TerminalResultView, ToolCallView, ToolKind, ToolResultView,
};
use crate::present::{LineOp, diff_lines, text::fence};

/// What one subscriber can show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Capabilities {
    pub terminal: bool,
    pub diff: bool,
    pub read: bool,
    pub search: bool,
    pub web: bool,
    /// 0 means no cap.
    pub max_output_bytes: u64,
    /// ANSI: keep SGR colours in terminal output (and nothing else of its escapes).
    pub tool_colors: bool,
}

impl Capabilities {
    /// Every card shown, with or without terminals, no output cap: what a full-featured UI
    /// (or a human at a terminal) declares.
    pub fn all(terminal: bool) -> Self {
        Capabilities {
            terminal,
            diff: true,
            read: true,
            search: true,
            web: true,
            max_output_bytes: 0,
            tool_colors: false,
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
}

// ---- the output cap ---------------------------------------------------------------------------

/// Keeps the first and last `cap/2` bytes of a text longer than `cap` (cuts moved inward to
/// UTF-8 boundaries), joined by a note of how many bytes were left out.
pub fn cap_text(text: &str, cap: u64) -> Cow<'_, str> {
    let len = text.len() as u64;
    if cap == 0 || len <= cap {
        return Cow::Borrowed(text);
    }
    let half = (cap / 2) as usize;
    let mut head = half;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - half;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let omitted = tail - head;
    Cow::Owned(format!(
        "{}\n… {omitted} bytes omitted …\n{}",
        &text[..head],
        &text[tail..]
    ))
}

/// The marker that replaces the chunk that takes streamed output past the cap.
pub const TRUNCATED: &str = "\n… output truncated …\n";

/// A chunk as a live subscriber receives it: as is below the cap, the truncation marker for the
/// chunk that crosses it, nothing after.
pub fn capped_chunk(chunk: Chunk<'_>, cap: u64) -> &str {
    if cap == 0 || chunk.end() as u64 <= cap {
        chunk.text
    } else if chunk.start as u64 <= cap {
        TRUNCATED
    } else {
        ""
    }
}

/// Whether the live output has gone past the cap (so later output is not sent).
pub fn stream_crossed_cap(state: &CallState, cap: u64) -> bool {
    cap > 0 && state.streamed.len() as u64 > cap
}

/// The streamed text up to byte `end` (the end of a chunk; `None`: all of it) as snapshots show
/// it: everything below the cap, else the text before the chunk that crossed it followed by the
/// truncation marker.
pub fn capped_streamed(state: &CallState, end: Option<usize>, cap: u64) -> Cow<'_, str> {
    let streamed = &state.streamed;
    let end = end.unwrap_or(streamed.len());
    if cap == 0 || end as u64 <= cap {
        return Cow::Borrowed(streamed.prefix(end));
    }
    let crossing_start = streamed.last_end_within(cap as usize);
    Cow::Owned(format!("{}{TRUNCATED}", streamed.prefix(crossing_start)))
}

fn cap_blocks(blocks: &mut [ContentBlock], cap: u64) {
    for b in blocks {
        if let ContentBlock::Text { text } | ContentBlock::Reasoning { text } = b
            && let Cow::Owned(capped) = cap_text(text, cap)
        {
            *text = capped;
        }
    }
}

// ---- text forms -------------------------------------------------------------------------------

/// Whether an exit is clean: no signal, and no or a zero exit code.
pub fn exit_is_clean(exit: Option<&TerminalExit>) -> bool {
    matches!(exit, None | Some(TerminalExit::Code(0)))
}

/// The `exit code N` / `killed by signal S` note of an unclean exit.
pub fn exit_note(exit: Option<&TerminalExit>) -> Option<String> {
    match exit {
        Some(TerminalExit::Code(0)) | None => None,
        Some(TerminalExit::Code(n)) => Some(format!("exit code {n}")),
        Some(TerminalExit::Signal(s)) => Some(format!("killed by signal {s}")),
    }
}

/// `CONSOLE(output, exit)`: a console block of the output without trailing newlines, then the
/// exit note when the exit is not clean.
pub fn console(output: &str, exit: Option<&TerminalExit>) -> String {
    let mut s = format!("```console\n{}\n```", output.trim_end_matches('\n'));
    if let Some(note) = exit_note(exit) {
        s.push_str("\n\n");
        s.push_str(&note);
    }
    s
}

/// Splits a diff side into lines; an empty side has none.
fn side_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').collect()
    }
}

/// The line diff of one `FileDiff` as `(prefix, line)` pairs: ` `, `-` or `+`.
pub fn diff_line_pairs(d: &FileDiff) -> Vec<(char, &str)> {
    let old = side_lines(d.old_text.as_deref().unwrap_or(""));
    let new = side_lines(&d.new_text);
    diff_lines(&old, &new)
        .into_iter()
        .map(|(op, line)| {
            let prefix = match op {
                LineOp::Equal => ' ',
                LineOp::Remove => '-',
                LineOp::Add => '+',
            };
            (prefix, line)
        })
        .collect()
}

/// `UNIFIED(diffs)`: one fenced `diff` block per file diff, separated by blank lines.
pub fn unified(diffs: &[FileDiff]) -> String {
    diffs
        .iter()
        .map(|d| {
            let old = if d.old_text.is_some() {
                d.path.as_str()
            } else {
                "/dev/null"
            };
            let mut body = format!("--- {old}\n+++ {}", d.path);
            for (prefix, line) in diff_line_pairs(d) {
                body.push('\n');
                body.push(prefix);
                body.push_str(line);
            }
            fence("diff", &body)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// How a text form writes what came from a tool: paths, links, free text, one-line text and
/// blocks of lines. ACP uses [`PLAIN`], as the spec writes the forms; Markdown escapes; ANSI
/// uses [`TERMINAL`], with no Markdown syntax for a terminal to show literally.
pub struct TextStyle {
    pub path: fn(&str) -> String,
    pub link: fn(&str, &str) -> String,
    pub text: fn(&str) -> String,
    pub line: fn(&str) -> String,
    pub block: fn(&str) -> String,
}

fn code_path(p: &str) -> String {
    format!("`{p}`")
}

fn md_link(label: &str, url: &str) -> String {
    format!("[{label}]({url})")
}

fn as_is(t: &str) -> String {
    t.to_owned()
}

fn fenced(lines: &str) -> String {
    fence("", lines)
}

/// A link as a terminal shows it: the label, then the URL when it differs.
fn terminal_link(label: &str, url: &str) -> String {
    if label == url {
        url.to_owned()
    } else {
        format!("{label} <{url}>")
    }
}

/// Lines indented under their heading.
fn indented(lines: &str) -> String {
    lines
        .lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The forms exactly as `rendering.md` writes them.
pub const PLAIN: TextStyle = TextStyle {
    path: code_path,
    link: md_link,
    text: as_is,
    line: as_is,
    block: fenced,
};

/// The forms for a terminal: paths and links as they are, blocks indented.
pub const TERMINAL: TextStyle = TextStyle {
    path: as_is,
    link: terminal_link,
    text: as_is,
    line: as_is,
    block: indented,
};

/// The text form of a search card (ACP, ANSI and, escaped, Markdown).
pub fn search_text(s: &crate::domain::SearchResultView, style: &TextStyle) -> String {
    use crate::domain::SearchShape;
    let (mut text, retained, noun) = match &s.shape {
        SearchShape::Matches { files } => {
            let retained: usize = files.iter().map(|f| f.matches.len()).sum();
            let text = files
                .iter()
                .map(|f| {
                    let lines: Vec<String> = f
                        .matches
                        .iter()
                        .map(|m| format!("{}: {}", m.line_number, m.line))
                        .collect();
                    format!(
                        "{}\n{}",
                        (style.path)(&f.path),
                        (style.block)(&lines.join("\n"))
                    )
                })
                .collect::<Vec<_>>()
                .join("\n\n");
            let text = if retained == 0 {
                "No matches".to_owned()
            } else {
                text
            };
            (text, retained, "matches")
        }
        SearchShape::Paths { paths } => {
            let text = paths
                .iter()
                .map(|p| format!("- {}", (style.path)(p)))
                .collect::<Vec<_>>()
                .join("\n");
            let text = if paths.is_empty() {
                "No files".to_owned()
            } else {
                text
            };
            (text, paths.len(), "paths")
        }
    };
    if s.truncated {
        text.push_str(&format!("\n\nshowing {retained} of {} {noun}", s.total));
    }
    text
}

/// The text form of a web card (ACP, ANSI and, escaped, Markdown).
pub fn web_text(w: &crate::domain::WebResultView, style: &TextStyle) -> String {
    use crate::domain::WebKind;
    match &w.kind {
        WebKind::Search {
            sources,
            answer,
            truncated,
        } => {
            let mut parts: Vec<String> = answer.iter().map(|a| (style.text)(a)).collect();
            if !sources.is_empty() {
                let lines: Vec<String> = sources
                    .iter()
                    .map(|s| {
                        let label = s.title.as_deref().unwrap_or(&s.url);
                        let snippet = s
                            .snippet
                            .as_deref()
                            .map(|t| format!(" — {}", (style.line)(t)))
                            .unwrap_or_default();
                        format!("- {}{snippet}", (style.link)(label, &s.url))
                    })
                    .collect();
                parts.push(lines.join("\n"));
            }
            if *truncated {
                parts.push("(truncated)".into());
            }
            if parts.is_empty() {
                "No results".into()
            } else {
                parts.join("\n\n")
            }
        }
        WebKind::Fetch {
            url,
            status_code,
            truncated,
        } => {
            format!(
                "Fetched {} (HTTP {status_code}){}",
                (style.line)(url),
                if *truncated { " (truncated)" } else { "" }
            )
        }
    }
}

/// The text of read lines, for the fenced forms.
pub fn read_lines_text(r: &crate::domain::ReadResultView) -> String {
    r.lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Content flattened to text: text and reasoning as is, images and links as placeholders.
pub fn flatten(content: &[ContentBlock]) -> String {
    content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text } | ContentBlock::Reasoning { text } => text.clone(),
            ContentBlock::Image(_) => "[image result]".to_owned(),
            ContentBlock::ResourceLink(l) => format!("[link: {}]", l.uri),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ---- preparation ------------------------------------------------------------------------------

/// The call view as every target shows it: generic/diff titles relativized, the terminal cwd
/// resolved, text blocks capped. `None` for an orphan.
pub fn prepared_call(state: &CallState, cwd: Option<&str>, cap: u64) -> Option<ToolCallView> {
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
pub fn prepared_result(state: &CallState, cwd: Option<&str>, cap: u64) -> Option<ToolResultView> {
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

/// A call as the snapshot targets (VIEW, Markdown, ANSI) show it after one change.
pub struct Snapshot<'a> {
    pub state: &'a CallState,
    pub call: Option<ToolCallView>,
    pub result: Option<ToolResultView>,
    /// The streamed text up to this change, capped.
    pub streamed: Cow<'a, str>,
}

impl<'a> Snapshot<'a> {
    /// The snapshot after a call change; `None` for a session change.
    pub fn of(change: super::Change<'a>, cwd: Option<&str>, cap: u64) -> Option<Self> {
        let (state, upto) = match change {
            super::Change::Session => return None,
            super::Change::Started(s) | super::Change::Finished(s) | super::Change::Snapshot(s) => {
                (s, None)
            }
            super::Change::Output(s, chunk) => (s, Some(chunk.end())),
        };
        Some(Snapshot {
            state,
            call: prepared_call(state, cwd, cap),
            result: prepared_result(state, cwd, cap),
            streamed: capped_streamed(state, upto, cap),
        })
    }

    /// The status a person reads (Markdown, ANSI): a command that exited unclean reads as
    /// failed, as its red exit does, even when the harness did not flag the result an error.
    pub fn shown_status(&self) -> CallStatus {
        match (self.state.status, &self.result) {
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
            .unwrap_or(self.state.call_id.as_str())
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
        cap_blocks(&mut content, caps.max_output_bytes);
        content
    };
    let generic = |title, content| ToolResultView::Generic(GenericResultView { title, content });
    match prepared {
        ToolResultView::Terminal(t) if !caps.terminal => {
            let output = t.output.as_deref().unwrap_or("");
            let quiet =
                output.is_empty() && state.streamed.is_empty() && exit_is_clean(t.exit.as_ref());
            let content = if quiet {
                Vec::new()
            } else {
                vec![ContentBlock::text(console(output, t.exit.as_ref()))]
            };
            generic(t.title, content)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_keeps_head_and_tail_on_char_boundaries() {
        assert_eq!(cap_text("abcdef", 0), "abcdef");
        assert_eq!(cap_text("abcdef", 6), "abcdef");
        assert_eq!(cap_text("abcdefgh", 4), "ab\n… 4 bytes omitted …\ngh");
        // "é" is two bytes: cuts move inward.
        assert_eq!(cap_text("éééé", 4), "é\n… 4 bytes omitted …\né");
        assert_eq!(cap_text("aéb", 2), "a\n… 2 bytes omitted …\nb");
        assert_eq!(cap_text("aéé", 2), "a\n… 4 bytes omitted …\n");
    }

    #[test]
    fn console_and_unified() {
        assert_eq!(console("hi\n\n", None), "```console\nhi\n```");
        assert_eq!(
            console("x", Some(&TerminalExit::Code(3))),
            "```console\nx\n```\n\nexit code 3"
        );
        assert_eq!(
            console("", Some(&TerminalExit::Signal("SIGKILL".into()))),
            "```console\n\n```\n\nkilled by signal SIGKILL"
        );
        let d = FileDiff {
            path: "a".into(),
            old_text: Some("x\ny".into()),
            new_text: "x\nz".into(),
        };
        assert_eq!(unified(&[d]), "```diff\n--- a\n+++ a\n x\n-y\n+z\n```");
        let n = FileDiff {
            path: "n".into(),
            old_text: None,
            new_text: "hi".into(),
        };
        assert_eq!(
            unified(&[n.clone(), n]),
            "```diff\n--- /dev/null\n+++ n\n+hi\n```\n\n```diff\n--- /dev/null\n+++ n\n+hi\n```"
        );
    }
}
