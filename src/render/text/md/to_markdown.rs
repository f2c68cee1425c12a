//! The tree as Markdown for a chat renderer: text escaped (`markdown_text::escape`), code in
//! fences its content cannot close, links with their target shown as the link's own text.

use super::{Block, Inline, plain};
use crate::present::text::fence;
use crate::render::markdown_text::{code_span, escape, link};

/// The blocks as Markdown, separated by blank lines.
pub fn markdown(blocks: &[Block]) -> String {
    join(blocks, false)
}

fn join(blocks: &[Block], tight: bool) -> String {
    let sep = if tight { "\n" } else { "\n\n" };
    blocks.iter().map(block).collect::<Vec<_>>().join(sep)
}

fn block(b: &Block) -> String {
    match b {
        Block::Paragraph(s) => spans(s, false),
        Block::Heading(level, s) => {
            let text = spans(s, false).replace('\n', " ");
            format!("{} {text}", "#".repeat(usize::from(*level).clamp(1, 6)))
        }
        Block::Code { lang, text } => fence(lang, text),
        Block::Quote(blocks) => prefixed(&join(blocks, false), ">", ">"),
        Block::List {
            start,
            tight,
            items,
        } => items
            .iter()
            .enumerate()
            .map(|(n, item)| {
                let marker = match start {
                    Some(s) => format!("{}.", s.saturating_add(n as u64)),
                    None => "-".to_owned(),
                };
                let pad = " ".repeat(marker.len());
                prefixed(&join(item, *tight), &marker, &pad)
            })
            .collect::<Vec<_>>()
            .join(if *tight { "\n" } else { "\n\n" }),
        Block::Table { head, rows } => table(head, rows),
        Block::Rule => "---".to_owned(),
    }
}

/// `text` with `first` before its first line and `rest` before the others, a space between
/// a marker and a non-empty line.
fn prefixed(text: &str, first: &str, rest: &str) -> String {
    text.split('\n')
        .enumerate()
        .map(|(i, line)| {
            let p = if i == 0 { first } else { rest };
            if line.is_empty() {
                p.trim_end().to_owned()
            } else {
                format!("{p} {line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn table(head: &[Vec<Inline>], rows: &[Vec<Vec<Inline>>]) -> String {
    let width = head.len().max(1);
    let row = |cells: &[Vec<Inline>]| {
        let mut out = String::from("|");
        for n in 0..width {
            let cell = cells.get(n).map(|c| spans(c, true)).unwrap_or_default();
            out.push_str(&format!(" {} |", cell.replace('\n', " ")));
        }
        out
    };
    let mut lines = vec![row(head), format!("|{}", " --- |".repeat(width))];
    lines.extend(rows.iter().map(|r| row(r)));
    lines.join("\n")
}

/// Spans as Markdown; `in_table` escapes the pipes of code spans, which GFM reads as cell
/// breaks even there.
fn spans(spans_: &[Inline], in_table: bool) -> String {
    let mut out = String::new();
    for s in spans_ {
        match s {
            Inline::Text(t) => out.push_str(&escape(t)),
            Inline::Code(c) if in_table => out.push_str(&code_span(c).replace('|', "\\|")),
            Inline::Code(c) => out.push_str(&code_span(c)),
            Inline::Emphasis(c) => out.push_str(&wrap("*", &spans(c, in_table))),
            Inline::Strong(c) => out.push_str(&wrap("**", &spans(c, in_table))),
            Inline::Strike(c) => out.push_str(&wrap("~~", &spans(c, in_table))),
            Inline::Link { label, url } => {
                // The target is the link's own text: what a reader clicks is what they see.
                let label_text = plain(label);
                if label_text != *url {
                    out.push_str(&spans(label, in_table));
                    out.push_str(" (");
                }
                // A `!` just before the link's `[` would make it an image, unless a backslash
                // escapes it (an odd run of them: an even one is escaped backslashes).
                if let Some(before) = out.strip_suffix('!') {
                    let slashes = before.len() - before.trim_end_matches('\\').len();
                    if slashes % 2 == 0 {
                        out.insert(out.len() - 1, '\\');
                    }
                }
                out.push_str(&link(url, url));
                if label_text != *url {
                    out.push(')');
                }
            }
            Inline::SoftBreak => out.push('\n'),
            Inline::HardBreak => out.push_str("\\\n"),
        }
    }
    out
}

fn wrap(mark: &str, inner: &str) -> String {
    if inner.trim().is_empty() {
        inner.to_owned()
    } else {
        format!("{mark}{inner}{mark}")
    }
}
