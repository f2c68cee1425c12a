//! The shared vocabulary of both unions.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// An icon/treatment hint. Absent means [`ToolKind::Other`]; same value set as ACP's `ToolKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads a file or resource.
    Read,
    /// Changes a file.
    Edit,
    /// Deletes a file.
    Delete,
    /// Moves or renames a file.
    Move,
    /// Searches files or the web.
    Search,
    /// Runs a command.
    Execute,
    /// Thinks aloud (no side effect).
    Think,
    /// Fetches a URL.
    Fetch,
    /// Switches the agent's mode.
    SwitchMode,
    /// Anything else (the default).
    Other,
}

impl ToolKind {
    /// Every kind, in declaration order.
    pub const ALL: [ToolKind; 10] = [
        ToolKind::Read,
        ToolKind::Edit,
        ToolKind::Delete,
        ToolKind::Move,
        ToolKind::Search,
        ToolKind::Execute,
        ToolKind::Think,
        ToolKind::Fetch,
        ToolKind::SwitchMode,
        ToolKind::Other,
    ];

    /// The wire name (`switch_mode`, …), as in the view JSON and ACP.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Think => "think",
            ToolKind::Fetch => "fetch",
            ToolKind::SwitchMode => "switch_mode",
            ToolKind::Other => "other",
        }
    }
}

/// A follow-along target. `line` is 1-based; `path` is the path as the tool saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLocation {
    /// The path as the tool saw it.
    pub path: String,
    /// The 1-based line, when the target is one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl FileLocation {
    /// A location naming a whole file.
    pub fn file(path: impl Into<String>) -> Self {
        FileLocation {
            path: path.into(),
            line: None,
        }
    }

    /// A location naming one line of a file.
    pub fn line(path: impl Into<String>, line: u32) -> Self {
        FileLocation {
            path: path.into(),
            line: Some(line),
        }
    }
}

/// One change to one file. `old_text: None` means "no before-image" and is serialized as
/// `"oldText": null` (the one optional field that is never omitted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    /// The file changed.
    pub path: String,
    /// The before-image; `None` for a new file or an unknown before.
    #[serde(deserialize_with = "nullable")]
    pub old_text: Option<String>,
    /// The after-image.
    pub new_text: String,
    /// The line diff of the two sides, in order, as the server draws it in every target
    /// (`present::line_runs`): each side split at `\n`, an empty side having no lines. Output
    /// only: the server fills it in the cards it renders, so a UI draws the diff without
    /// diffing (and the same way as the text targets); it is never read from a harness.
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<DiffRun>,
}

/// What a run of a diff's lines does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffOp {
    /// Kept: the next lines of both sides.
    Context,
    /// Removed: the old side's next lines.
    Removed,
    /// Added: the new side's next lines.
    Added,
}

/// A run of lines one diff operation covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffRun {
    /// What the run does.
    pub op: DiffOp,
    /// How many lines it covers.
    pub lines: u32,
}

/// Requires the key to be present while allowing `null` (serde's `Option` default would also
/// accept a missing key).
fn nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

/// What a card body shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text, as written.
        text: String,
    },
    /// The model's reasoning, shown apart from the answer.
    Reasoning {
        /// The reasoning text.
        text: String,
    },
    /// An image.
    Image(ImageContent),
    /// A link to a resource the UI may open.
    ResourceLink(ResourceLink),
}

impl ContentBlock {
    /// About how many bytes the block holds (see `EventBody::text_bytes`).
    pub fn text_bytes(&self) -> usize {
        match self {
            ContentBlock::Text { text } | ContentBlock::Reasoning { text } => text.len(),
            ContentBlock::Image(i) => i.data.as_ref().map_or(0, Vec::len),
            ContentBlock::ResourceLink(l) => l.uri.len() + l.name.len(),
        }
    }

    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text } => Some(text),
            ContentBlock::Reasoning { .. }
            | ContentBlock::Image(_)
            | ContentBlock::ResourceLink(_) => None,
        }
    }
}

/// An image: inline bytes (base64 in JSON), a URI, or both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// The image's media type (`image/png`, …).
    pub mime_type: String,
    /// The image bytes, when inline.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "base64_opt")]
    pub data: Option<Vec<u8>>,
    /// Where the image lives, when linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}

/// A link to a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's address.
    pub uri: String,
    /// The name shown for the link.
    pub name: String,
    /// The resource's media type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A numbered line of a file (1-based, text without its newline).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadLine {
    /// The 1-based line number.
    pub number: u32,
    /// The line's text, without its newline.
    pub text: String,
}

/// The matches of a search within one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchFileMatches {
    /// The file searched.
    pub path: String,
    /// Its matching lines, in file order.
    pub matches: Vec<SearchMatch>,
}

/// One matching line (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchMatch {
    /// The 1-based number of the matching line.
    pub line_number: u32,
    /// The matching line's text.
    pub line: String,
}

/// A web search source. `published_at` is the provider's string, verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebSource {
    /// The source's address.
    pub url: String,
    /// The page title, when the provider gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The provider's excerpt of the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// The publication date, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
}

mod base64_opt {
    use super::*;
    use serde::{Deserializer, Serializer};

    const ENGINE: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

    pub fn serialize<S: Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(bytes) => s.serialize_str(&ENGINE.encode(bytes)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|s| ENGINE.decode(s).map_err(serde::de::Error::custom))
            .transpose()
    }
}
