//! `ToolCallView`: how a call looks while it is pending or running.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContentBlock, FileDiff, FileLocation, ToolKind};

/// The call-side union. The tag is `"card"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "card", rename_all = "snake_case")]
pub enum ToolCallView {
    /// A plain card: the title, the salient input and any content.
    Generic(GenericCallView),
    /// A shell command about to run or running.
    Terminal(TerminalCallView),
    /// A file edit, shown as its diffs before they are applied.
    Diff(DiffCallView),
}

/// The default card. `raw_input` is the salient input (a string renders as-is, anything else as
/// pretty JSON).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenericCallView {
    /// The one-line heading of the card.
    pub title: String,
    /// The icon/treatment hint; `None` means [`ToolKind::Other`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    /// The salient input; `Some(Value::Null)` when the tool took `null`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_value"
    )]
    pub raw_input: Option<Value>,
    /// Extra blocks shown under the input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentBlock>,
    /// Files the call touches, for follow-along.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<FileLocation>,
}

/// A foreground shell command; `title` is the command. Display only.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalCallView {
    /// The command line, as the shell will run it.
    pub title: String,
    /// What the command is for, in the harness's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The working directory the command runs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// A file mutation; `diffs` is always serialized, even when empty.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffCallView {
    /// The one-line heading of the card.
    pub title: String,
    /// The changes the call will make, one per file (possibly none).
    pub diffs: Vec<FileDiff>,
    /// Files the call touches, for follow-along.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<FileLocation>,
}

/// A present key is `Some`, even when its value is `null` (a tool may take `null` as input).
fn present_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl ToolCallView {
    /// The card's diffs (none but a diff card's), to fill in as rendered.
    pub fn diffs_mut(&mut self) -> &mut [FileDiff] {
        match self {
            ToolCallView::Diff(d) => &mut d.diffs,
            ToolCallView::Generic(_) | ToolCallView::Terminal(_) => &mut [],
        }
    }

    /// The card's title.
    pub fn title(&self) -> &str {
        match self {
            ToolCallView::Generic(v) => &v.title,
            ToolCallView::Terminal(v) => &v.title,
            ToolCallView::Diff(v) => &v.title,
        }
    }

    /// The card's tag, as in the view JSON.
    pub fn card_name(&self) -> &'static str {
        match self {
            ToolCallView::Generic(_) => "generic",
            ToolCallView::Terminal(_) => "terminal",
            ToolCallView::Diff(_) => "diff",
        }
    }

    /// The view JSON of the card.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("views serialize to JSON")
    }
}
