//! `ToolCallView`: how a call looks while it is pending or running.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ContentBlock, FileDiff, FileLocation, ToolKind};

/// The call-side union. The tag is `"card"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "card", rename_all = "snake_case")]
pub enum ToolCallView {
    Generic(GenericCallView),
    Terminal(TerminalCallView),
    Diff(DiffCallView),
}

/// The default card. `raw_input` is the salient input (a string renders as-is, anything else as
/// pretty JSON).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenericCallView {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_value"
    )]
    pub raw_input: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<FileLocation>,
}

/// A foreground shell command; `title` is the command. Display only.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalCallView {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// A file mutation; `diffs` is always serialized, even when empty.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffCallView {
    pub title: String,
    pub diffs: Vec<FileDiff>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<FileLocation>,
}

/// A present key is `Some`, even when its value is `null` (a tool may take `null` as input).
fn present_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl ToolCallView {
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
