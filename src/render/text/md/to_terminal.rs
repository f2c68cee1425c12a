//! The tree for a terminal: styles as SGR codes of our own, every piece of text made visible
//! (`visible`), each line styled on its own (a terminal UI may redraw any line alone).

use super::{Block, Inline, plain};
use crate::render::visible::visible;
use unicode_width::UnicodeWidthStr;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const ITALIC: &str = "\x1b[3m";
const UNDERLINE: &str = "\x1b[4m";
const STRIKE: &str = "\x1b[9m";
const CODE: &str = "\x1b[36m";

/// The blocks as terminal lines; `base` is the SGR every piece of text starts from (dim for
/// reasoning, none for an answer).
pub fn terminal(blocks: &[Block], base: &'static str) -> Vec<String> {
    let mut out = Vec::new();
    join(blocks, false, base, &mut out);
    out
}

fn join(blocks: &[Block], tight: bool, base: &'static str, out: &mut Vec<String>) {
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 && !tight {
            out.push(String::new());
        }
        block(b, base, out);
    }
}

fn block(b: &Block, base: &'static str, out: &mut Vec<String>) {
    match b {
        Block::Paragraph(s) => out.extend(Line::spans(s, &[base])),
        Block::Heading(level, s) => {
            let mut style = vec![base, BOLD];
            if *level <= 2 {
                style.push(UNDERLINE);
            }
            out.push(Line::spans(s, &style).join(" "));
        }
        Block::Code { lang, text } => {
            if !lang.is_empty() {
                out.push(format!("{DIM}╭ {lang}{RESET}"));
            }
            let text = visible(text.strip_suffix('\n').unwrap_or(text));
            out.extend(text.split('\n').map(|l| {
                if l.is_empty() {
                    format!("{DIM}│{RESET}")
                } else {
                    format!("{DIM}│{RESET} {CODE}{l}{RESET}")
                }
            }));
        }
        Block::Quote(blocks) => {
            let mut inner = Vec::new();
            join(blocks, false, base, &mut inner);
            out.extend(prefixed(
                inner,
                &format!("{DIM}▌{RESET}"),
                &format!("{DIM}▌{RESET}"),
            ));
        }
        Block::List {
            start,
            tight,
            items,
        } => list(*start, *tight, items, base, out),
        Block::Table { head, rows } => table(head, rows, base, out),
        Block::Rule => out.push(format!("{DIM}{}{RESET}", "─".repeat(24))),
    }
}

fn list(
    start: Option<u64>,
    tight: bool,
    items: &[Vec<Block>],
    base: &'static str,
    out: &mut Vec<String>,
) {
    for (n, item) in items.iter().enumerate() {
        if n > 0 && !tight {
            out.push(String::new());
        }
        let marker = match start {
            Some(s) => format!("{}.", s.saturating_add(n as u64)),
            None => "•".to_owned(),
        };
        let pad = " ".repeat(marker.width());
        let mut inner = Vec::new();
        join(item, tight, base, &mut inner);
        out.extend(prefixed(inner, &marker, &pad));
    }
}

/// Lines with `first` before the first and `rest` before the others.
fn prefixed(lines: Vec<String>, first: &str, rest: &str) -> Vec<String> {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let p = if i == 0 { first } else { rest };
            if l.is_empty() {
                p.trim_end().to_owned()
            } else {
                format!("{p} {l}")
            }
        })
        .collect()
}

/// Cell `n` of a row; none when the row is short.
fn cell(cells: &[Vec<Inline>], n: usize) -> &[Inline] {
    cells.get(n).map(Vec::as_slice).unwrap_or(&[])
}

fn table(
    head: &[Vec<Inline>],
    rows: &[Vec<Vec<Inline>>],
    base: &'static str,
    out: &mut Vec<String>,
) {
    let columns = head.len().max(1);
    let widths: Vec<usize> = (0..columns)
        .map(|n| {
            std::iter::once(head)
                .chain(rows.iter().map(Vec::as_slice))
                .map(|r| visible(&plain(cell(r, n))).width())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let draw = |cells: &[Vec<Inline>], style: &[&'static str]| {
        (0..columns)
            .map(|n| {
                let c = cell(cells, n);
                let shown = Line::spans(c, style).join(" ");
                let pad = widths[n].saturating_sub(visible(&plain(c)).width());
                format!("{shown}{}", " ".repeat(pad))
            })
            .collect::<Vec<_>>()
            .join(&format!(" {DIM}│{RESET} "))
            .trim_end()
            .to_owned()
    };
    out.push(draw(head, &[base, BOLD]));
    let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
    out.push(format!("{DIM}{}{RESET}", rule.join("─┼─")));
    out.extend(rows.iter().map(|r| draw(r, &[base])));
}

/// Spans drawn into lines, each piece of text wrapped in the styles it is under.
struct Line {
    lines: Vec<String>,
}

impl Line {
    fn spans(spans: &[Inline], style: &[&'static str]) -> Vec<String> {
        let mut l = Line {
            lines: vec![String::new()],
        };
        let mut stack = style.to_vec();
        l.push_all(spans, &mut stack);
        l.lines
    }

    fn push_all(&mut self, spans: &[Inline], stack: &mut Vec<&'static str>) {
        for s in spans {
            match s {
                Inline::Text(t) => self.text(t, stack),
                Inline::Code(c) => self.styled(CODE, stack, |l, st| l.text(c, st)),
                Inline::Emphasis(c) => self.styled(ITALIC, stack, |l, st| l.push_all(c, st)),
                Inline::Strong(c) => self.styled(BOLD, stack, |l, st| l.push_all(c, st)),
                Inline::Strike(c) => self.styled(STRIKE, stack, |l, st| l.push_all(c, st)),
                Inline::Link { label, url } => {
                    let same = plain(label) == *url;
                    if !same {
                        self.push_all(label, stack);
                        self.text(" (", stack);
                    }
                    self.styled(UNDERLINE, stack, |l, st| l.text(url, st));
                    if !same {
                        self.text(")", stack);
                    }
                }
                Inline::SoftBreak | Inline::HardBreak => self.lines.push(String::new()),
            }
        }
    }

    fn styled(
        &mut self,
        code: &'static str,
        stack: &mut Vec<&'static str>,
        f: impl FnOnce(&mut Self, &mut Vec<&'static str>),
    ) {
        stack.push(code);
        f(self, stack);
        stack.pop();
    }

    fn text(&mut self, text: &str, stack: &[&'static str]) {
        let codes: String = stack.concat();
        for (i, piece) in visible(text).split('\n').enumerate() {
            if i > 0 {
                self.lines.push(String::new());
            }
            if piece.is_empty() {
                continue;
            }
            let line = self.lines.last_mut().expect("a line is always open");
            if codes.is_empty() {
                line.push_str(piece);
            } else {
                line.push_str(&format!("{codes}{piece}{RESET}"));
            }
        }
    }
}
