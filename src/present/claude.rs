//! Vocabulary 2: Claude Code's tools (PascalCase names). Titles and kinds follow the public ACP
//! adapter for Claude Code. These presenters never decline on arguments: a missing field, one of
//! the wrong type and (except where `""` is a value) an empty string all read as absent.

use serde_json::Value;

use super::ToolResult;
use super::args::{Decline, Lenient, Presented, as_line};
use super::dsh::read_window_title;
use super::lang::lang_for_path;
use super::meta;
use super::text::fence;
use crate::domain::{
    ContentBlock, DiffCallView, DiffResultView, FileDiff, FileLocation, GenericCallView,
    GenericResultView, ReadLine, ReadResultView, TerminalCallView, TerminalExit,
    TerminalResultView, ToolCallView, ToolKind, ToolResultView,
};

fn generic(title: impl Into<String>, kind: ToolKind) -> GenericCallView {
    GenericCallView {
        title: title.into(),
        kind: Some(kind),
        ..Default::default()
    }
}

fn text_content(text: Option<&str>) -> Vec<ContentBlock> {
    text.map(ContentBlock::text).into_iter().collect()
}

fn diff_item(path: &str, old: Option<&str>, new: Option<&str>) -> FileDiff {
    FileDiff {
        path: path.into(),
        old_text: old.filter(|s| !s.is_empty()).map(Into::into),
        new_text: new.unwrap_or("").into(),
        runs: Vec::new(),
    }
}

pub fn bash_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let command = a.str("command");
    let description = a.str("description");
    if a.flag("run_in_background") {
        return ToolCallView::Generic(GenericCallView {
            raw_input: command.map(|c| Value::String(c.into())),
            content: text_content(description),
            ..generic(command.unwrap_or("Terminal"), ToolKind::Execute)
        });
    }
    ToolCallView::Terminal(TerminalCallView {
        title: command.unwrap_or("Terminal").into(),
        description: description.map(Into::into),
        cwd: None,
    })
}

pub fn read_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let Some(path) = a.str("file_path") else {
        return ToolCallView::Generic(generic("Read", ToolKind::Read));
    };
    let offset = a.line("offset");
    let limit = a.line("limit");
    ToolCallView::Generic(GenericCallView {
        locations: vec![FileLocation::line(path, offset.unwrap_or(1))],
        ..generic(
            format!("Read {path}{}", read_window_title(offset, limit)),
            ToolKind::Read,
        )
    })
}

pub fn write_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let content = a.text("content");
    match a.str("file_path") {
        Some(path) => ToolCallView::Diff(DiffCallView {
            title: format!("Write {path}"),
            diffs: vec![diff_item(path, None, content)],
            locations: vec![FileLocation::file(path)],
        }),
        None => ToolCallView::Generic(GenericCallView {
            content: text_content(content),
            ..generic("Write", ToolKind::Edit)
        }),
    }
}

pub fn edit_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let path = a.str("file_path");
    let (old, new) = (a.text("old_string"), a.text("new_string"));
    let title = path.map_or_else(|| "Edit".to_owned(), |p| format!("Edit {p}"));
    let changed = [old, new].iter().any(|s| s.is_some_and(|s| !s.is_empty()));
    let diffs = match path {
        Some(p) if changed => vec![diff_item(p, old, new)],
        _ => Vec::new(),
    };
    ToolCallView::Diff(DiffCallView {
        title,
        diffs,
        locations: path.map(FileLocation::file).into_iter().collect(),
    })
}

pub fn multi_edit_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let Some(path) = a.str("file_path") else {
        return ToolCallView::Diff(DiffCallView {
            title: "Edit".into(),
            ..Default::default()
        });
    };
    let diffs = a
        .array("edits")
        .into_iter()
        .flatten()
        .filter(|e| e.is_object())
        .map(|e| {
            let e = Lenient::of(e);
            diff_item(path, e.text("old_string"), e.text("new_string"))
        })
        .collect();
    ToolCallView::Diff(DiffCallView {
        title: format!("Edit {path}"),
        diffs,
        locations: vec![FileLocation::file(path)],
    })
}

pub fn glob_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let mut title = String::from("Find");
    let path = a.str("path");
    if let Some(p) = path {
        title.push_str(&format!(" `{p}`"));
    }
    if let Some(p) = a.str("pattern") {
        title.push_str(&format!(" `{p}`"));
    }
    ToolCallView::Generic(GenericCallView {
        locations: path.map(FileLocation::file).into_iter().collect(),
        ..generic(title, ToolKind::Search)
    })
}

pub fn grep_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let mut title = String::from("grep");
    if a.flag("-i") {
        title.push_str(" -i");
    }
    if a.flag("-n") {
        title.push_str(" -n");
    }
    for flag in ["-A", "-B", "-C"] {
        if let Some(n) = a.int(flag) {
            title.push_str(&format!(" {flag} {n}"));
        }
    }
    match a.str("output_mode") {
        Some("files_with_matches") => title.push_str(" -l"),
        Some("count") => title.push_str(" -c"),
        _ => {}
    }
    if let Some(n) = a.int("head_limit") {
        title.push_str(&format!(" | head -{n}"));
    }
    if let Some(g) = a.str("glob") {
        title.push_str(&format!(" --include=\"{g}\""));
    }
    if let Some(t) = a.str("type") {
        title.push_str(&format!(" --type={t}"));
    }
    if a.flag("multiline") {
        title.push_str(" -P");
    }
    if let Some(p) = a.str("pattern") {
        title.push_str(&format!(" \"{p}\""));
    }
    if let Some(p) = a.str("path") {
        title.push_str(&format!(" {p}"));
    }
    ToolCallView::Generic(generic(title, ToolKind::Search))
}

pub fn ls_call(args: &Value) -> ToolCallView {
    let title = match Lenient::of(args).str("path") {
        Some(p) => format!("List the `{p}` directory's contents"),
        None => "List the current directory's contents".into(),
    };
    ToolCallView::Generic(generic(title, ToolKind::Search))
}

pub fn web_fetch_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let title = a
        .str("url")
        .map_or_else(|| "Fetch".to_owned(), |u| format!("Fetch {u}"));
    ToolCallView::Generic(GenericCallView {
        content: text_content(a.str("prompt")),
        ..generic(title, ToolKind::Fetch)
    })
}

pub fn web_search_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let mut title = a
        .str("query")
        .map_or_else(|| "Web search".to_owned(), |q| format!("\"{q}\""));
    for (key, label) in [
        ("allowed_domains", "allowed"),
        ("blocked_domains", "blocked"),
    ] {
        let domains: Vec<&str> = a
            .array(key)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !domains.is_empty() {
            title.push_str(&format!(" ({label}: {})", domains.join(", ")));
        }
    }
    ToolCallView::Generic(generic(title, ToolKind::Fetch))
}

pub fn todo_write_call(args: &Value) -> ToolCallView {
    let items: Vec<&str> = Lenient::of(args)
        .array("todos")
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("content").and_then(Value::as_str))
        .collect();
    let title = if items.is_empty() {
        "Update TODOs".to_owned()
    } else {
        format!("Update TODOs: {}", items.join(", "))
    };
    ToolCallView::Generic(generic(title, ToolKind::Think))
}

pub fn task_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    ToolCallView::Generic(GenericCallView {
        content: text_content(a.str("prompt")),
        ..generic(a.str("description").unwrap_or("Task"), ToolKind::Think)
    })
}

pub fn exit_plan_mode_call(args: &Value) -> ToolCallView {
    ToolCallView::Generic(GenericCallView {
        content: text_content(Lenient::of(args).str("plan")),
        ..generic("Ready to code?", ToolKind::SwitchMode)
    })
}

pub fn notebook_edit_call(args: &Value) -> ToolCallView {
    let a = Lenient::of(args);
    let path = a.str("notebook_path");
    ToolCallView::Generic(GenericCallView {
        content: text_content(a.str("new_source")),
        locations: path.map(FileLocation::file).into_iter().collect(),
        ..generic(
            path.map_or_else(
                || "Edit Notebook".to_owned(),
                |p| format!("Edit Notebook {p}"),
            ),
            ToolKind::Edit,
        )
    })
}

pub fn bash_output_call(_args: &Value) -> ToolCallView {
    ToolCallView::Generic(generic("Tail Logs", ToolKind::Execute))
}

pub fn kill_shell_call(_args: &Value) -> ToolCallView {
    ToolCallView::Generic(generic("Kill Process", ToolKind::Execute))
}

// ---- results ----------------------------------------------------------------------------------

/// The result's text: its text blocks joined with `\n`.
fn result_text(r: &ToolResult) -> String {
    r.content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Which result rule a Claude Code tool follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultRule {
    Bash,
    Read,
    Edit,
    Write,
    ExitPlanMode,
    Decline,
}

/// The result presenter shared by every Claude Code tool: errors first, then the tool's rule.
pub fn result(rule: ResultRule, args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    if r.is_error {
        return Ok(generic_text(format!("```\n{}\n```", result_text(r))));
    }
    match rule {
        ResultRule::Bash => Ok(bash_result(r)),
        ResultRule::Read => read_result(args, r),
        ResultRule::Edit => edit_result(edit_call(args), args, r),
        ResultRule::Write => write_result(args, r),
        ResultRule::ExitPlanMode => Ok(ToolResultView::Generic(GenericResultView {
            title: Some("Exited Plan Mode".into()),
            content: Vec::new(),
        })),
        ResultRule::Decline => Err(Decline),
    }
}

fn generic_text(text: String) -> ToolResultView {
    ToolResultView::Generic(GenericResultView {
        title: None,
        content: vec![ContentBlock::text(text)],
    })
}

/// The exit comes from meta: `exit_code` (an int32) wins over `signal` (a string); none → 0.
fn bash_result(r: &ToolResult) -> ToolResultView {
    let m = r.meta.and_then(Value::as_object);
    let code = m
        .and_then(|m| m.get("exit_code"))
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok());
    let signal = m.and_then(|m| m.get("signal")).and_then(Value::as_str);
    let exit = match (code, signal) {
        (Some(c), _) => TerminalExit::Code(c),
        (None, Some(s)) => TerminalExit::Signal(s.into()),
        (None, None) => TerminalExit::Code(0),
    };
    ToolResultView::Terminal(TerminalResultView {
        title: None,
        output: Some(result_text(r)),
        exit: Some(exit),
    })
}

fn read_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let text = result_text(r);
    let path = Lenient::of(args).text("file_path");
    if let (Some(path), Some(lines)) = (path, numbered_lines(&text)) {
        let (first, last) = (lines[0].number, lines[lines.len() - 1].number);
        return Ok(ToolResultView::Read(ReadResultView {
            title: None,
            path: path.into(),
            offset: first,
            lines,
            total_lines: last,
            lang: lang_for_path(path).map(Into::into),
            content: vec![ContentBlock::text(text)],
        }));
    }
    Ok(generic_text(fence("", &text)))
}

/// Claude Code's numbered read form: every line (ignoring one trailing `\n`) is
/// `<spaces><n>→<text>` or `<spaces><n>\t<text>`, with strictly increasing numbers ≥ 1.
fn numbered_lines(text: &str) -> Option<Vec<ReadLine>> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut out: Vec<ReadLine> = Vec::new();
    for line in body.split('\n') {
        let rest = line.trim_start_matches(' ');
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (num, tail) = rest.split_at(digits);
        let text = tail.strip_prefix('→').or_else(|| tail.strip_prefix('\t'))?;
        let number = as_line(&Value::from(num.parse::<u64>().ok()?))?;
        if out.last().is_some_and(|prev| prev.number >= number) {
            return None;
        }
        out.push(ReadLine {
            number,
            text: text.into(),
        });
    }
    Some(out)
}

fn edit_result(call: ToolCallView, args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let path = Lenient::of(args).str("file_path");
    let m = meta::diffs(r.meta, path).ok_or(Decline)?;
    Ok(ToolResultView::Diff(DiffResultView {
        title: Some(call.title().to_owned()),
        diffs: m.diffs,
        locations: m.locations,
    }))
}

/// Meta diffs when usable, else the whole-file diff of the arguments (which needs a path).
fn write_result(args: &Value, r: &ToolResult) -> Presented<ToolResultView> {
    let call = write_call(args);
    if let Ok(v) = edit_result(call.clone(), args, r) {
        return Ok(v);
    }
    match call {
        ToolCallView::Diff(d) => Ok(ToolResultView::Diff(DiffResultView {
            title: Some(d.title),
            diffs: d.diffs,
            locations: Vec::new(),
        })),
        ToolCallView::Generic(_) | ToolCallView::Terminal(_) => Err(Decline),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_forms() {
        let lines = numbered_lines("     1→a\n     2\tb\n").unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].text, "b");
        assert!(numbered_lines("1→a\n1→b").is_none());
        assert!(numbered_lines("0→a").is_none());
        assert!(numbered_lines("plain").is_none());
        assert!(numbered_lines("").is_none());
        assert!(numbered_lines("1→a\n\n").is_none());
    }
}
