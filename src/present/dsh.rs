//! Vocabulary 1: the reference harness's tools (lowercase names). Arguments are checked softly
//! against each tool's schema with [`Strict`]: a wrong type declines.

use serde_json::Value;

use super::ToolResult;
use super::args::{Decline, Presented, Strict};
use super::meta::{self, SearchForm};
use super::text::console_block;
use crate::domain::{
    ContentBlock, DiffCallView, DiffResultView, FileDiff, FileLocation, GenericCallView,
    GenericResultView, ReadResultView, SearchResultView, TerminalCallView, TerminalExit,
    TerminalResultView, ToolCallView, ToolKind, ToolResultView, WebResultView,
};

fn generic(title: String, kind: ToolKind) -> GenericCallView {
    GenericCallView {
        title,
        kind: Some(kind),
        ..Default::default()
    }
}

/// The read title window: `" (o - o+limit-1)"`, `" (from line o)"`, or nothing.
pub(super) fn read_window_title(offset: Option<u32>, limit: Option<u32>) -> String {
    match (offset, limit) {
        (o, Some(limit)) => {
            let o = o.unwrap_or(1);
            format!(" ({o} - {})", o.saturating_add(limit - 1))
        }
        (Some(o), None) => format!(" (from line {o})"),
        (None, None) => String::new(),
    }
}

// ---- read -------------------------------------------------------------------------------------

pub fn read_call(args: &Value) -> Presented<ToolCallView> {
    let a = Strict::of(args)?;
    let path = a.req_str("file_path")?;
    let offset = a.opt_line("offset")?;
    let limit = a.opt_line("limit")?;
    Ok(ToolCallView::Generic(GenericCallView {
        title: format!("Read {path}{}", read_window_title(offset, limit)),
        kind: Some(ToolKind::Read),
        locations: vec![FileLocation::line(path, offset.unwrap_or(1))],
        ..Default::default()
    }))
}

pub fn read_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    read_call(args)?;
    if r.is_error {
        return Err(Decline);
    }
    let window = meta::read_window(r.meta).ok_or(Decline)?;
    let body = match r.content {
        [ContentBlock::Text { text }] => read_envelope_body(text).ok_or(Decline)?,
        _ => return Err(Decline),
    };
    Ok(ToolResultView::Read(ReadResultView {
        title: None,
        path: window.path,
        offset: window.offset,
        lines: window.lines,
        total_lines: window.total_lines,
        lang: window.lang,
        content: vec![ContentBlock::text(body)],
    }))
}

/// The BODY of `<path>P</path>\n<type>file</type>\n<content>\nBODY\n</content>` (P without a
/// newline; an empty BODY is written `<content>\n</content>`).
fn read_envelope_body(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("<path>")?;
    let (path, rest) = rest.split_once("</path>\n<type>file</type>\n<content>\n")?;
    if path.contains('\n') {
        return None;
    }
    if rest == "</content>" {
        return Some("");
    }
    rest.strip_suffix("\n</content>")
}

// ---- write / edit -----------------------------------------------------------------------------

pub fn write_call(args: &Value) -> Presented<ToolCallView> {
    let a = Strict::of(args)?;
    let path = a.req_str("file_path")?;
    let content = a.req_str("content")?;
    Ok(ToolCallView::Diff(DiffCallView {
        title: format!("Write {path}"),
        diffs: vec![FileDiff {
            path: path.into(),
            old_text: None,
            new_text: content.into(),
            runs: Vec::new(),
        }],
        locations: vec![FileLocation::file(path)],
    }))
}

pub fn write_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let ToolCallView::Diff(call) = write_call(args)? else {
        return Err(Decline);
    };
    if r.is_error {
        return Err(Decline);
    }
    let path = call.diffs[0].path.clone();
    // A write never degrades to text: without usable meta, the whole-file diff of the arguments.
    let (diffs, locations) = match meta::diffs(r.meta, Some(&path)) {
        Some(m) => (m.diffs, m.locations),
        None => (call.diffs, Vec::new()),
    };
    Ok(ToolResultView::Diff(DiffResultView {
        title: Some(call.title),
        diffs,
        locations,
    }))
}

pub fn edit_call(args: &Value) -> Presented<ToolCallView> {
    let a = Strict::of(args)?;
    let path = a.req_str("file_path")?;
    let old = a.req_str("old_string")?;
    let new = a.req_str("new_string")?;
    a.opt_bool("replace_all")?;
    Ok(ToolCallView::Diff(DiffCallView {
        title: format!("Edit {path}"),
        diffs: vec![FileDiff {
            path: path.into(),
            old_text: (!old.is_empty()).then(|| old.into()),
            new_text: new.into(),
            runs: Vec::new(),
        }],
        locations: vec![FileLocation::file(path)],
    }))
}

pub fn edit_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let call = edit_call(args)?;
    if r.is_error {
        return Err(Decline);
    }
    let path = Strict::of(args)?.req_str("file_path")?;
    let m = meta::diffs(r.meta, Some(path)).ok_or(Decline)?;
    Ok(ToolResultView::Diff(DiffResultView {
        title: Some(call.title().to_owned()),
        diffs: m.diffs,
        locations: m.locations,
    }))
}

pub fn read_image_call(args: &Value) -> Presented<ToolCallView> {
    let path = Strict::of(args)?.req_str("file_path")?;
    Ok(ToolCallView::Generic(GenericCallView {
        locations: vec![FileLocation::file(path)],
        ..generic(format!("Read image {path}"), ToolKind::Read)
    }))
}

// ---- bash / pwsh ------------------------------------------------------------------------------

struct BashArgs<'a> {
    command: &'a str,
    description: &'a str,
    workdir: Option<&'a str>,
    background: bool,
}

fn bash_args(args: &Value) -> Presented<BashArgs<'_>> {
    let a = Strict::of(args)?;
    Ok(BashArgs {
        command: a.req_str("command")?,
        description: a.req_str("description")?,
        workdir: a.opt_str("workdir")?,
        background: a.opt_bool("run_in_background")?.unwrap_or(false),
    })
}

pub fn bash_call(args: &Value) -> Presented<ToolCallView> {
    let b = bash_args(args)?;
    Ok(if b.background {
        ToolCallView::Generic(GenericCallView {
            title: b.command.into(),
            kind: Some(ToolKind::Execute),
            raw_input: Some(Value::String(b.command.into())),
            content: vec![ContentBlock::text(b.description)],
            locations: Vec::new(),
        })
    } else {
        ToolCallView::Terminal(TerminalCallView {
            title: b.command.into(),
            description: Some(b.description.into()),
            cwd: b.workdir.map(Into::into),
        })
    })
}

pub fn bash_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let b = bash_args(args)?;
    let [ContentBlock::Text { text }] = r.content else {
        return Err(Decline);
    };
    if b.background || r.is_error {
        return Ok(ToolResultView::Generic(GenericResultView {
            title: None,
            content: vec![ContentBlock::text(console_block(text))],
        }));
    }
    let (output, exit) = split_exit_marker(text);
    Ok(ToolResultView::Terminal(TerminalResultView {
        title: None,
        output: Some(output.to_owned()),
        exit: Some(exit),
    }))
}

/// Splits a trailing `\n[killed by signal: S]` or `\n[exit code: N]` marker off the output; no
/// marker means exit code 0.
fn split_exit_marker(text: &str) -> (&str, TerminalExit) {
    let marker = text.strip_suffix(']').and_then(|t| t.rsplit_once("\n["));
    if let Some((output, inner)) = marker {
        if let Some(signal) = inner.strip_prefix("killed by signal: ")
            && !signal.is_empty()
            && !signal.contains([']', '\n'])
        {
            return (output, TerminalExit::Signal(signal.to_owned()));
        }
        if let Some(code) = inner.strip_prefix("exit code: ")
            && is_decimal(code)
            && let Ok(code) = code.parse::<i32>()
        {
            return (output, TerminalExit::Code(code));
        }
    }
    (text, TerminalExit::Code(0))
}

/// `-?[0-9]+` (Rust's integer parser would also take a leading `+`).
fn is_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

// ---- jobs, todos ------------------------------------------------------------------------------

pub fn job_output_call(args: &Value) -> Presented<ToolCallView> {
    let id = Strict::of(args)?.req_str("job_id")?;
    Ok(ToolCallView::Generic(GenericCallView {
        raw_input: Some(Value::String(id.into())),
        ..generic(
            format!("Read output from background job {id}"),
            ToolKind::Read,
        )
    }))
}

pub fn job_list_call(args: &Value) -> Presented<ToolCallView> {
    Strict::of(args)?;
    Ok(ToolCallView::Generic(generic(
        "List background jobs".into(),
        ToolKind::Read,
    )))
}

pub fn job_kill_call(args: &Value) -> Presented<ToolCallView> {
    let id = Strict::of(args)?.req_str("job_id")?;
    Ok(ToolCallView::Generic(GenericCallView {
        raw_input: Some(Value::String(id.into())),
        ..generic(format!("Kill background job {id}"), ToolKind::Execute)
    }))
}

pub fn todo_write_call(args: &Value) -> Presented<ToolCallView> {
    let todos = Strict::of(args)?.req_array("todos")?;
    Ok(ToolCallView::Generic(GenericCallView {
        raw_input: Some(Value::Array(todos.clone())),
        ..generic("Update todo list".into(), ToolKind::Other)
    }))
}

// ---- grep / glob ------------------------------------------------------------------------------

pub fn grep_call(args: &Value) -> Presented<ToolCallView> {
    let a = Strict::of(args)?;
    let pattern = a.req_str("pattern")?;
    let mut title = format!("Grep {pattern}");
    if let Some(path) = a.opt_str("path")? {
        title.push_str(&format!(" in {path}"));
    }
    if let Some(include) = a.opt_str("include")? {
        title.push_str(&format!(" ({include})"));
    }
    Ok(search_call(title, pattern))
}

pub fn glob_call(args: &Value) -> Presented<ToolCallView> {
    let a = Strict::of(args)?;
    let pattern = a.req_str("pattern")?;
    let mut title = format!("Glob {pattern}");
    if let Some(path) = a.opt_str("path")? {
        title.push_str(&format!(" in {path}"));
    }
    Ok(search_call(title, pattern))
}

fn search_call(title: String, pattern: &str) -> ToolCallView {
    ToolCallView::Generic(GenericCallView {
        raw_input: Some(Value::String(pattern.into())),
        ..generic(title, ToolKind::Search)
    })
}

/// The search card when the meta has the expected shape (`matches` for grep, `paths` for glob).
pub fn search_result(r: &ToolResult, shape: SearchForm) -> Presented<ToolResultView> {
    if r.is_error {
        return Err(Decline);
    }
    let (shape, truncated, total) = meta::search(r.meta, shape).ok_or(Decline)?;
    Ok(ToolResultView::Search(SearchResultView {
        title: None,
        shape,
        truncated,
        total,
    }))
}

pub fn grep_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    grep_call(args)?;
    search_result(r, SearchForm::Matches)
}

pub fn glob_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    glob_call(args)?;
    search_result(r, SearchForm::Paths)
}

// ---- web --------------------------------------------------------------------------------------

fn joined_queries(args: &Value) -> Presented<String> {
    Ok(Strict::of(args)?.req_strings("queries")?.join(", "))
}

pub fn web_search_call(args: &Value) -> Presented<ToolCallView> {
    let q = joined_queries(args)?;
    Ok(ToolCallView::Generic(GenericCallView {
        raw_input: Some(Value::String(q.clone())),
        ..generic(q, ToolKind::Search)
    }))
}

pub fn web_search_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let title = joined_queries(args)?;
    if r.is_error {
        return Err(Decline);
    }
    let kind = meta::web_search(r.meta).ok_or(Decline)?;
    Ok(ToolResultView::Web(WebResultView {
        title: Some(title),
        kind,
    }))
}

pub fn web_fetch_call(args: &Value) -> Presented<ToolCallView> {
    let url = Strict::of(args)?.req_str("url")?;
    Ok(ToolCallView::Generic(GenericCallView {
        raw_input: Some(Value::String(url.into())),
        ..generic(url.into(), ToolKind::Fetch)
    }))
}

pub fn web_fetch_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let url = Strict::of(args)?.req_str("url")?;
    if r.is_error {
        return Err(Decline);
    }
    let kind = meta::web_fetch(r.meta).ok_or(Decline)?;
    Ok(ToolResultView::Web(WebResultView {
        title: Some(url.into()),
        kind,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_markers() {
        let cases = [
            ("oops\n[exit code: 3]", "oops", TerminalExit::Code(3)),
            ("\n[exit code: -1]", "", TerminalExit::Code(-1)),
            (
                "gone\n[killed by signal: SIGKILL]",
                "gone",
                TerminalExit::Signal("SIGKILL".into()),
            ),
            ("[exit code: 3]", "[exit code: 3]", TerminalExit::Code(0)),
            (
                "x\n[exit code: +3]",
                "x\n[exit code: +3]",
                TerminalExit::Code(0),
            ),
            (
                "x\n[exit code: 99999999999]",
                "x\n[exit code: 99999999999]",
                TerminalExit::Code(0),
            ),
            (
                "x\n[exit code: 3]\n",
                "x\n[exit code: 3]\n",
                TerminalExit::Code(0),
            ),
            (
                "x\n[killed by signal: ]",
                "x\n[killed by signal: ]",
                TerminalExit::Code(0),
            ),
        ];
        for (text, output, exit) in cases {
            assert_eq!(split_exit_marker(text), (output, exit), "{text:?}");
        }
    }

    #[test]
    fn envelope() {
        let t = "<path>/a</path>\n<type>file</type>\n<content>\nBODY\n</content>";
        assert_eq!(read_envelope_body(t), Some("BODY"));
        let t = "<path>/a</path>\n<type>file</type>\n<content>\n</content>";
        assert_eq!(read_envelope_body(t), Some(""));
        let t = "<path>/a\nb</path>\n<type>file</type>\n<content>\nx\n</content>";
        assert_eq!(read_envelope_body(t), None);
        assert_eq!(read_envelope_body("plain"), None);
    }
}
