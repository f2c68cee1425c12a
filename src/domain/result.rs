//! `ToolResultView`: how the finished call looks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContentBlock, FileDiff, FileLocation, ReadLine, SearchFileMatches, WebSource};

/// The result-side union. The tag is `"card"`; search and web carry a second, flat tag
/// (`"shape"`, `"kind"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "card", rename_all = "snake_case")]
pub enum ToolResultView {
    /// A plain result: an optional title and content.
    Generic(GenericResultView),
    /// A finished command: output and how it ended.
    Terminal(TerminalResultView),
    /// An applied file change.
    Diff(DiffResultView),
    /// Grep or glob results.
    Search(SearchResultView),
    /// A window of a file, with line numbers.
    Read(ReadResultView),
    /// A web search or fetch.
    Web(WebResultView),
}

/// The default result card. Empty `content` means "show the raw result content".
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenericResultView {
    /// Replaces the call's title, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The blocks to show; empty shows the raw result content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentBlock>,
}

/// How a command ended: an exit code (normal exit) or a signal, never both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalExit {
    /// The process exited with this code.
    Code(i32),
    /// The process was killed by this signal (`SIGTERM`, …).
    Signal(String),
}

/// A finished command. `output: None` means "what was streamed".
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "TerminalResultJson", into = "TerminalResultJson")]
pub struct TerminalResultView {
    /// Replaces the call's title, when set.
    pub title: Option<String>,
    /// The full output; `None` keeps what was streamed.
    pub output: Option<String>,
    /// How the command ended, when known.
    pub exit: Option<TerminalExit>,
}

/// The flat JSON form of [`TerminalResultView`]: `exitCode` and `signal` are sibling keys.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TerminalResultJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    output: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    signal: Option<String>,
}

impl TryFrom<TerminalResultJson> for TerminalResultView {
    type Error = &'static str;
    fn try_from(j: TerminalResultJson) -> Result<Self, Self::Error> {
        let exit = match (j.exit_code, j.signal) {
            (Some(_), Some(_)) => {
                return Err("a terminal result has an exitCode or a signal, not both");
            }
            (Some(code), None) => Some(TerminalExit::Code(code)),
            (None, Some(signal)) => Some(TerminalExit::Signal(signal)),
            (None, None) => None,
        };
        Ok(TerminalResultView {
            title: j.title,
            output: j.output,
            exit,
        })
    }
}

impl From<TerminalResultView> for TerminalResultJson {
    fn from(v: TerminalResultView) -> Self {
        let (exit_code, signal) = match v.exit {
            Some(TerminalExit::Code(c)) => (Some(c), None),
            Some(TerminalExit::Signal(s)) => (None, Some(s)),
            None => (None, None),
        };
        TerminalResultJson {
            title: v.title,
            output: v.output,
            exit_code,
            signal,
        }
    }
}

/// The applied change.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffResultView {
    /// Replaces the call's title, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The changes applied, one per file.
    pub diffs: Vec<FileDiff>,
    /// Files changed, for follow-along.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<FileLocation>,
}

/// Grep or glob results. `total` counts before truncation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResultView {
    /// Replaces the call's title, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Matching lines, or matching paths.
    #[serde(flatten)]
    pub shape: SearchShape,
    /// Whether the tool cut the results short.
    pub truncated: bool,
    /// How many results there were before truncation.
    pub total: u64,
}

/// The inner discriminant of a search card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum SearchShape {
    /// Matching lines, grouped by file.
    Matches {
        /// The files with matches, in the tool's order.
        files: Vec<SearchFileMatches>,
    },
    /// Matching paths (a glob, or grep listing files only).
    Paths {
        /// The paths, in the tool's order.
        paths: Vec<String>,
    },
}

/// A numbered file window. `content` is a text fallback for UIs without a read card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResultView {
    /// Replaces the call's title, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The file read.
    pub path: String,
    /// The 1-based number of the window's first line.
    pub offset: u32,
    /// The lines read, numbered.
    pub lines: Vec<ReadLine>,
    /// The file's line count as the tool reported it (no line number exceeds it).
    pub total_lines: u32,
    /// The language for highlighting, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The text fallback for UIs without a read card.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentBlock>,
}

/// Web search or fetch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebResultView {
    /// Replaces the call's title, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Search results or a fetched page.
    #[serde(flatten)]
    pub kind: WebKind,
}

/// The inner discriminant of a web card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WebKind {
    /// A web search.
    #[serde(rename_all = "camelCase")]
    Search {
        /// The sources found, in rank order.
        sources: Vec<WebSource>,
        /// The provider's summary answer, when it gives one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<String>,
        /// Whether the sources were cut short.
        truncated: bool,
    },
    /// A page fetch.
    #[serde(rename_all = "camelCase")]
    Fetch {
        /// The address fetched.
        url: String,
        /// The HTTP status.
        status_code: u32,
        /// Whether the page was cut short.
        truncated: bool,
    },
}

impl ToolResultView {
    /// The card's diffs (none but a diff card's), to fill in as rendered.
    pub fn diffs_mut(&mut self) -> &mut [FileDiff] {
        match self {
            ToolResultView::Diff(d) => &mut d.diffs,
            ToolResultView::Generic(_)
            | ToolResultView::Terminal(_)
            | ToolResultView::Read(_)
            | ToolResultView::Search(_)
            | ToolResultView::Web(_) => &mut [],
        }
    }

    /// The replacement title, when the card sets one.
    pub fn title(&self) -> Option<&str> {
        match self {
            ToolResultView::Generic(v) => v.title.as_deref(),
            ToolResultView::Terminal(v) => v.title.as_deref(),
            ToolResultView::Diff(v) => v.title.as_deref(),
            ToolResultView::Search(v) => v.title.as_deref(),
            ToolResultView::Read(v) => v.title.as_deref(),
            ToolResultView::Web(v) => v.title.as_deref(),
        }
    }

    /// The card's tag, as in the view JSON.
    pub fn card_name(&self) -> &'static str {
        match self {
            ToolResultView::Generic(_) => "generic",
            ToolResultView::Terminal(_) => "terminal",
            ToolResultView::Diff(_) => "diff",
            ToolResultView::Search(_) => "search",
            ToolResultView::Read(_) => "read",
            ToolResultView::Web(_) => "web",
        }
    }

    /// The view JSON of the card.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("views serialize to JSON")
    }
}
