//! The text forms of cards (`docs/spec/rendering.md`): `CONSOLE`, `UNIFIED`, the search and web forms,
//! flattened content, each written in a [`TextStyle`] (ACP's plain forms, Markdown's escaped
//! ones, a terminal's).

use crate::domain::{ContentBlock, DiffOp, FileDiff, TerminalExit};
use crate::present::text::{console_block, console_body, fence, plain_block_body};
use crate::present::{LineOp, diff_lines, side_lines};
use crate::render::streamed::Streamed;

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
    let mut s = console_block(output);
    if let Some(note) = exit_note(exit) {
        s.push_str("\n\n");
        s.push_str(&note);
    }
    s
}

/// The text a terminal result shows where terminals are not embedded: `CONSOLE(output, exit)`,
/// or nothing for a quiet command (no output of its own, nothing streamed, a clean exit).
pub fn terminal_console(
    output: &str,
    exit: Option<&TerminalExit>,
    streamed: &Streamed,
) -> Option<String> {
    let quiet = output.is_empty() && streamed.is_empty() && exit_is_clean(exit);
    (!quiet).then(|| console(output, exit))
}

/// The line diff of one `FileDiff`, line by line: from its runs when the card carries them
/// (prepared cards do), else computed.
pub fn diff_line_pairs(d: &FileDiff) -> Vec<(LineOp, &str)> {
    let old = side_lines(d.old_text.as_deref().unwrap_or(""));
    let new = side_lines(&d.new_text);
    if d.runs.is_empty() {
        return diff_lines(&old, &new);
    }
    let (mut o, mut n) = (old.into_iter(), new.into_iter());
    let mut out = Vec::new();
    for run in &d.runs {
        for _ in 0..run.lines {
            let line = match run.op {
                DiffOp::Context => {
                    o.next();
                    n.next().map(|l| (LineOp::Equal, l))
                }
                DiffOp::Removed => o.next().map(|l| (LineOp::Remove, l)),
                DiffOp::Added => n.next().map(|l| (LineOp::Add, l)),
            };
            out.extend(line);
        }
    }
    out
}

/// A diff line's prefix in the unified form.
fn unified_prefix(op: LineOp) -> char {
    match op {
        LineOp::Equal => ' ',
        LineOp::Remove => '-',
        LineOp::Add => '+',
    }
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
            for (op, line) in diff_line_pairs(d) {
                body.push('\n');
                body.push(unified_prefix(op));
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

/// Content flattened to text: text and reasoning as is (a console block as its output), images and links as placeholders.
/// A card's content blocks as plain text (a terminal's): as [`flatten`], a presenter's plain
/// code block (Claude Code's errors) showing its body, not its fence, too.
pub fn flatten_view(content: &[ContentBlock]) -> String {
    content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text } => console_body(text)
                .or_else(|| plain_block_body(text))
                .unwrap_or(text)
                .to_owned(),
            ContentBlock::Reasoning { .. }
            | ContentBlock::Image(_)
            | ContentBlock::ResourceLink(_) => flatten(std::slice::from_ref(b)),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn flatten(content: &[ContentBlock]) -> String {
    content
        .iter()
        .map(|b| match b {
            // A console block made by a presenter shows its output, not its fence.
            ContentBlock::Text { text } => console_body(text).unwrap_or(text).to_owned(),
            ContentBlock::Reasoning { text } => text.clone(),
            ContentBlock::Image(_) => "[image result]".to_owned(),
            ContentBlock::ResourceLink(l) => format!("[link: {}]", l.uri),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

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
            runs: Vec::new(),
        };
        assert_eq!(unified(&[d]), "```diff\n--- a\n+++ a\n x\n-y\n+z\n```");
        let n = FileDiff {
            path: "n".into(),
            old_text: None,
            new_text: "hi".into(),
            runs: Vec::new(),
        };
        assert_eq!(
            unified(&[n.clone(), n]),
            "```diff\n--- /dev/null\n+++ n\n+hi\n```\n\n```diff\n--- /dev/null\n+++ n\n+hi\n```"
        );
    }

    #[test]
    fn a_diff_is_drawn_from_its_runs_as_it_is_computed() {
        use crate::domain::DiffRun;
        use crate::present::line_runs;
        let mut d = FileDiff {
            path: "a".into(),
            old_text: Some("a\nb\nc\nd".into()),
            new_text: "a\nB\nc\nd\ne".into(),
            runs: Vec::new(),
        };
        let computed: Vec<_> = diff_line_pairs(&d)
            .into_iter()
            .map(|(op, l)| (op, l.to_owned()))
            .collect();
        d.runs = line_runs(&d);
        let run = |op, lines| DiffRun { op, lines };
        assert_eq!(
            d.runs,
            [
                run(DiffOp::Context, 1),
                run(DiffOp::Removed, 1),
                run(DiffOp::Added, 1),
                run(DiffOp::Context, 2),
                run(DiffOp::Added, 1),
            ]
        );
        let drawn: Vec<_> = diff_line_pairs(&d)
            .into_iter()
            .map(|(op, l)| (op, l.to_owned()))
            .collect();
        assert_eq!(drawn, computed);
    }
}
