//! pulldown-cmark's events folded into the tree: a stack of open containers, each closed into
//! its parent. Sanitizing happens here, once: HTML becomes text, images and unsafe links become
//! text or safe links.

use super::{Block, Inline, MAX_NESTING, plain, safe_url};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// The Markdown a model writes: CommonMark, GFM tables, strikethrough and task lists.
const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS);

/// A container being read.
enum Open {
    /// Blocks in a quote, a list item, or a construct shown flat (footnotes, definitions).
    Blocks(Blocks, Vec<Block>),
    /// A list and its finished items.
    List {
        start: Option<u64>,
        tight: bool,
        items: Vec<Vec<Block>>,
    },
    /// Spans in a paragraph, a heading, a table cell, a styled span or a link.
    Spans(Spans, Vec<Inline>),
    /// A code block's text (also raw HTML's, shown as text).
    Verbatim { lang: Option<String>, text: String },
    /// A table: its header, its finished rows, the row being read.
    Table {
        head: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
        row: Vec<Vec<Inline>>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Blocks {
    Quote,
    Item,
    Flat,
}

#[derive(Clone, PartialEq, Eq)]
enum Spans {
    /// A paragraph; `implicit` when a tight list item's text has no paragraph of its own.
    Paragraph {
        implicit: bool,
    },
    Heading(u8),
    Cell,
    Emphasis,
    Strong,
    Strike,
    /// Superscript, subscript: their text, unstyled.
    Flat,
    Link(String),
    Image(String),
}

pub(super) fn blocks(text: &str) -> Option<Vec<Block>> {
    let mut r = Reader {
        stack: vec![Open::Blocks(Blocks::Flat, Vec::new())],
    };
    for event in Parser::new_ext(text, OPTIONS) {
        r.event(event);
        if r.stack.len() > MAX_NESTING {
            return None;
        }
    }
    while r.stack.len() > 1 {
        r.close();
    }
    match r.stack.pop() {
        Some(Open::Blocks(_, blocks)) => Some(blocks),
        _ => None,
    }
}

struct Reader {
    /// Never empty: the document's blocks at the bottom.
    stack: Vec<Open>,
}

impl Reader {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(end) => self.end(end),
            Event::Text(t) => self.text(&t),
            Event::Html(t) => self.text(&t),
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                self.span(Inline::Code(t.into_string()));
            }
            Event::InlineHtml(t) => self.span(Inline::Text(t.into_string())),
            Event::FootnoteReference(t) => self.span(Inline::Text(format!("[^{t}]"))),
            Event::SoftBreak => self.span(Inline::SoftBreak),
            Event::HardBreak => self.span(Inline::HardBreak),
            Event::Rule => self.block(Block::Rule),
            Event::TaskListMarker(done) => {
                self.span(Inline::Text(if done { "[x] " } else { "[ ] " }.into()));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        let open = match tag {
            Tag::Paragraph => Open::Spans(Spans::Paragraph { implicit: false }, Vec::new()),
            Tag::Heading { level, .. } => Open::Spans(Spans::Heading(level as u8), Vec::new()),
            Tag::BlockQuote(_) => Open::Blocks(Blocks::Quote, Vec::new()),
            Tag::CodeBlock(kind) => Open::Verbatim {
                lang: Some(match kind {
                    CodeBlockKind::Fenced(info) => language(&info),
                    CodeBlockKind::Indented => String::new(),
                }),
                text: String::new(),
            },
            Tag::HtmlBlock | Tag::MetadataBlock(_) => Open::Verbatim {
                lang: None,
                text: String::new(),
            },
            Tag::List(start) => Open::List {
                start,
                tight: true,
                items: Vec::new(),
            },
            Tag::Item => Open::Blocks(Blocks::Item, Vec::new()),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => Open::Blocks(Blocks::Flat, Vec::new()),
            Tag::Table(_) => Open::Table {
                head: Vec::new(),
                rows: Vec::new(),
                row: Vec::new(),
            },
            // A row is read into the table's `row`; the head's cells come without a row.
            Tag::TableHead | Tag::TableRow => return,
            Tag::TableCell => Open::Spans(Spans::Cell, Vec::new()),
            Tag::Emphasis => Open::Spans(Spans::Emphasis, Vec::new()),
            Tag::Strong => Open::Spans(Spans::Strong, Vec::new()),
            Tag::Strikethrough => Open::Spans(Spans::Strike, Vec::new()),
            Tag::Superscript | Tag::Subscript => Open::Spans(Spans::Flat, Vec::new()),
            Tag::Link { dest_url, .. } => Open::Spans(Spans::Link(dest_url.into_string()), vec![]),
            Tag::Image { dest_url, .. } => {
                Open::Spans(Spans::Image(dest_url.into_string()), vec![])
            }
        };
        let inline = matches!(
            &open,
            Open::Spans(
                Spans::Emphasis
                    | Spans::Strong
                    | Spans::Strike
                    | Spans::Flat
                    | Spans::Link(_)
                    | Spans::Image(_),
                _
            )
        );
        if !inline {
            // A block starts: a tight item's text before it is a paragraph of its own.
            self.close_implicit();
        } else if matches!(self.stack.last(), Some(Open::Blocks(..))) {
            // A span starts a tight item's text.
            self.stack
                .push(Open::Spans(Spans::Paragraph { implicit: true }, Vec::new()));
        }
        self.stack.push(open);
    }

    fn end(&mut self, end: TagEnd) {
        match end {
            TagEnd::TableHead => {
                if let Some(Open::Table { head, row, .. }) = self.stack.last_mut() {
                    *head = std::mem::take(row);
                }
            }
            TagEnd::TableRow => {
                if let Some(Open::Table { rows, row, .. }) = self.stack.last_mut() {
                    rows.push(std::mem::take(row));
                }
            }
            _ => {
                self.close_implicit();
                self.close();
            }
        }
    }

    fn close_implicit(&mut self) {
        if let Some(Open::Spans(Spans::Paragraph { implicit: true }, _)) = self.stack.last() {
            self.close();
        }
    }

    /// Closes the innermost container into its parent.
    fn close(&mut self) {
        if self.stack.len() < 2 {
            return;
        }
        match self.stack.pop() {
            Some(Open::Blocks(kind, blocks)) => match kind {
                Blocks::Quote => self.block(Block::Quote(blocks)),
                Blocks::Item => {
                    if let Some(Open::List { items, .. }) = self.stack.last_mut() {
                        items.push(blocks);
                    }
                }
                Blocks::Flat => blocks.into_iter().for_each(|b| self.block(b)),
            },
            Some(Open::List {
                start,
                tight,
                items,
            }) => self.block(Block::List {
                start,
                tight,
                items,
            }),
            Some(Open::Spans(kind, spans)) => self.close_spans(kind, spans),
            Some(Open::Verbatim { lang, text }) => self.block(match lang {
                Some(lang) => Block::Code { lang, text },
                None => Block::Paragraph(vec![Inline::Text(text.trim_end().to_owned())]),
            }),
            Some(Open::Table { head, rows, .. }) => self.block(Block::Table { head, rows }),
            None => {}
        }
    }

    fn close_spans(&mut self, kind: Spans, spans: Vec<Inline>) {
        match kind {
            Spans::Paragraph { implicit } => {
                if !implicit {
                    self.loosen();
                }
                self.block(Block::Paragraph(spans));
            }
            Spans::Heading(level) => self.block(Block::Heading(level, spans)),
            Spans::Cell => {
                if let Some(Open::Table { row, .. }) = self.stack.last_mut() {
                    row.push(spans);
                }
            }
            Spans::Emphasis => self.span(Inline::Emphasis(spans)),
            Spans::Strong => self.span(Inline::Strong(spans)),
            Spans::Strike => self.span(Inline::Strike(spans)),
            Spans::Flat => spans.into_iter().for_each(|s| self.span(s)),
            Spans::Link(url) => self.link(spans, url),
            Spans::Image(url) => {
                let alt = plain(&spans);
                let label = if alt.trim().is_empty() {
                    "image".to_owned()
                } else {
                    format!("image: {alt}")
                };
                self.link(vec![Inline::Text(label)], url);
            }
        }
    }

    /// A link, or its label and target as text when the target is not safe to follow.
    fn link(&mut self, label: Vec<Inline>, url: String) {
        if safe_url(&url) {
            return self.span(Inline::Link { label, url });
        }
        let same = plain(&label) == url;
        label.into_iter().for_each(|s| self.span(s));
        if !same && !url.is_empty() {
            self.span(Inline::Text(format!(" ({url})")));
        }
    }

    /// A paragraph of its own in a list item makes the list loose.
    fn loosen(&mut self) {
        let n = self.stack.len();
        if n >= 2
            && let [Open::List { tight, .. }, Open::Blocks(Blocks::Item, _)] =
                &mut self.stack[n - 2..]
        {
            *tight = false;
        }
    }

    fn block(&mut self, block: Block) {
        self.close_implicit();
        match self.stack.last_mut() {
            Some(Open::Blocks(_, blocks)) => blocks.push(block),
            // Blocks do not arrive elsewhere in CommonMark; shown as text if they ever do.
            Some(Open::Spans(_, spans)) => spans.push(Inline::Text(flat_text(&block))),
            Some(Open::Verbatim { text, .. }) => text.push_str(&flat_text(&block)),
            Some(Open::List { .. } | Open::Table { .. }) | None => {}
        }
    }

    fn span(&mut self, span: Inline) {
        match self.stack.last_mut() {
            // The parser splits text at every character that might have been markup.
            Some(Open::Spans(_, spans)) => match (spans.last_mut(), span) {
                (Some(Inline::Text(last)), Inline::Text(more)) => last.push_str(&more),
                (_, span) => spans.push(span),
            },
            Some(Open::Blocks(..)) => {
                // A tight item's text: an implicit paragraph.
                self.stack
                    .push(Open::Spans(Spans::Paragraph { implicit: true }, vec![span]));
            }
            Some(Open::Verbatim { text, .. }) => text.push_str(&plain(&[span])),
            Some(Open::List { .. } | Open::Table { .. }) | None => {}
        }
    }

    fn text(&mut self, t: &str) {
        match self.stack.last_mut() {
            Some(Open::Verbatim { text, .. }) => text.push_str(t),
            _ => self.span(Inline::Text(t.to_owned())),
        }
    }
}

/// A code block's language: the info string's first word, only the characters a language name
/// has, at most 32 of them.
fn language(info: &str) -> String {
    info.split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.' | '_' | '#'))
        .take(32)
        .collect()
}

/// A block as text, where only text may go.
fn flat_text(block: &Block) -> String {
    match block {
        Block::Paragraph(s) | Block::Heading(_, s) => plain(s),
        Block::Code { text, .. } => text.clone(),
        Block::Quote(b) => b.iter().map(flat_text).collect::<Vec<_>>().join("\n"),
        Block::List { items, .. } => items
            .iter()
            .flatten()
            .map(flat_text)
            .collect::<Vec<_>>()
            .join("\n"),
        Block::Table { head, rows } => std::iter::once(head)
            .chain(rows)
            .map(|r| r.iter().map(|c| plain(c)).collect::<Vec<_>>().join(" | "))
            .collect::<Vec<_>>()
            .join("\n"),
        Block::Rule => String::new(),
    }
}
