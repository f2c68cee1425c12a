//! Markdown a harness writes — assistant answers and reasoning — read into a small closed tree
//! with its unsafe parts already gone: raw HTML is text, an image is a link, a link keeps only an
//! `http:`, `https:` or `mailto:` target. The writers (`to_markdown.rs` for the Markdown target,
//! `to_terminal.rs` for ANSI and `tail`) draw only this tree, so nothing of the source reaches a
//! renderer as markup except what the tree allows. The rule is `docs/conversation.md#message-text`.

mod read;
mod to_markdown;
mod to_terminal;

pub use to_markdown::markdown;
pub use to_terminal::terminal;

/// Past this nesting of quotes, lists and inline spans, a message is shown as plain text: the
/// writers recurse over the tree, and no answer a model writes comes near it.
pub const MAX_NESTING: usize = 32;

/// A block of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A paragraph (also raw HTML, as its text).
    Paragraph(Vec<Inline>),
    /// A heading, level 1 to 6.
    Heading(u8, Vec<Inline>),
    /// A code block: its language (letters, digits and `+-._#` only) and its text, verbatim.
    Code {
        /// The first word of a fence's info string, sanitized; empty when none.
        lang: String,
        /// The code.
        text: String,
    },
    /// A block quote.
    Quote(Vec<Block>),
    /// A list: numbered from `start`, or bulleted; tight when its items have no blank lines.
    List {
        /// The first number of an ordered list.
        start: Option<u64>,
        /// Whether the items are drawn without blank lines between them.
        tight: bool,
        /// The items, each a run of blocks.
        items: Vec<Vec<Block>>,
    },
    /// A table: the header's cells and each row's.
    Table {
        /// The header row.
        head: Vec<Vec<Inline>>,
        /// The body rows.
        rows: Vec<Vec<Vec<Inline>>>,
    },
    /// A thematic break.
    Rule,
}

/// A span of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    /// Literal text.
    Text(String),
    /// An inline code span, verbatim.
    Code(String),
    /// Emphasis.
    Emphasis(Vec<Inline>),
    /// Strong emphasis.
    Strong(Vec<Inline>),
    /// Strikethrough.
    Strike(Vec<Inline>),
    /// A link to an `http:`, `https:` or `mailto:` URL (no other scheme gets here).
    Link {
        /// What the link says.
        label: Vec<Inline>,
        /// Where it goes.
        url: String,
    },
    /// A line break in the source.
    SoftBreak,
    /// A forced line break.
    HardBreak,
}

/// `text` as Markdown, sanitized; `None` when it nests deeper than [`MAX_NESTING`] (the caller
/// shows it as plain text).
pub fn parse(text: &str) -> Option<Vec<Block>> {
    read::blocks(text)
}

/// Whether a link target may be followed: `http:`, `https:` and `mailto:` only.
pub fn safe_url(url: &str) -> bool {
    let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    matches!(scheme.as_deref(), Some("http" | "https" | "mailto"))
}

/// The text of spans, without their styles: a link's label, a table cell's width.
pub fn plain(inlines: &[Inline]) -> String {
    let mut out = String::new();
    for i in inlines {
        match i {
            Inline::Text(t) | Inline::Code(t) => out.push_str(t),
            Inline::Emphasis(c) | Inline::Strong(c) | Inline::Strike(c) => {
                out.push_str(&plain(c));
            }
            Inline::Link { label, .. } => out.push_str(&plain(label)),
            Inline::SoftBreak | Inline::HardBreak => out.push(' '),
        }
    }
    out
}

#[cfg(test)]
mod tests;
