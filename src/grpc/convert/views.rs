//! Views: `TryFrom<pb::…>` inbound (typed errors that render as field paths), `From` outbound.
//!
//! Every inbound conversion destructures its message exhaustively, so a new proto field breaks
//! the build here until it is handled. Error `Display`s compose into paths such as
//! `generic.content[2].block: not set`; the callers prefix their own field names.

use std::fmt::Display;

use super::value::{json_from_pb, pb_from_json};
use crate::domain as d;
use crate::domain::{FieldViolation, Violation, violation_error};
use crate::grpc::pb;

/// Converts every item, naming the failing index.
pub(crate) fn each<T, U, E, W>(items: Vec<T>, wrap: impl Fn(usize, E) -> W) -> Result<Vec<U>, W>
where
    U: TryFrom<T, Error = E>,
{
    items
        .into_iter()
        .enumerate()
        .map(|(i, t)| U::try_from(t).map_err(|e| wrap(i, e)))
        .collect()
}

pub(super) fn each_ok<T, U: From<T>>(items: Vec<T>) -> Vec<U> {
    items.into_iter().map(U::from).collect()
}

fn none_if_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// An indexed path segment, e.g. `content[3].block: not set`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indexed<E>(pub &'static str, pub usize, pub E);

impl<E: Violation> Violation for Indexed<E> {
    fn violation(&self) -> FieldViolation {
        self.2.violation().under(format!("{}[{}]", self.0, self.1))
    }
}

impl<E: Violation> Display for Indexed<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.violation().fmt(f)
    }
}

impl<E: Violation + std::fmt::Debug> std::error::Error for Indexed<E> {}

// ---- shared vocabulary ------------------------------------------------------------------------

/// An invalid `ContentBlock`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentBlockError {
    /// No block kind set.
    BlockUnset,
    /// An image with neither `data` nor `uri`.
    ImageEmpty,
}

impl Violation for ContentBlockError {
    fn violation(&self) -> FieldViolation {
        match self {
            ContentBlockError::BlockUnset => FieldViolation::new("block", "not set"),
            ContentBlockError::ImageEmpty => FieldViolation::new("image", "needs data or uri"),
        }
    }
}

violation_error!(ContentBlockError);

impl TryFrom<pb::ContentBlock> for d::ContentBlock {
    type Error = ContentBlockError;
    fn try_from(b: pb::ContentBlock) -> Result<Self, Self::Error> {
        use pb::content_block::Block;
        let pb::ContentBlock { block } = b;
        Ok(match block.ok_or(ContentBlockError::BlockUnset)? {
            Block::Text(pb::TextContent { text }) => d::ContentBlock::Text { text },
            Block::Reasoning(pb::ReasoningContent { text }) => d::ContentBlock::Reasoning { text },
            Block::Image(pb::ImageContent {
                mime_type,
                data,
                uri,
            }) => {
                if data.is_empty() && uri.is_empty() {
                    return Err(ContentBlockError::ImageEmpty);
                }
                d::ContentBlock::Image(d::ImageContent {
                    mime_type,
                    data: (!data.is_empty()).then_some(data),
                    uri: none_if_empty(uri),
                })
            }
            Block::ResourceLink(pb::ResourceLinkContent {
                uri,
                name,
                mime_type,
            }) => d::ContentBlock::ResourceLink(d::ResourceLink {
                uri,
                name,
                mime_type: none_if_empty(mime_type),
            }),
        })
    }
}

impl From<d::ContentBlock> for pb::ContentBlock {
    fn from(b: d::ContentBlock) -> Self {
        use pb::content_block::Block;
        let block = match b {
            d::ContentBlock::Text { text } => Block::Text(pb::TextContent { text }),
            d::ContentBlock::Reasoning { text } => Block::Reasoning(pb::ReasoningContent { text }),
            d::ContentBlock::Image(d::ImageContent {
                mime_type,
                data,
                uri,
            }) => Block::Image(pb::ImageContent {
                mime_type,
                data: data.unwrap_or_default(),
                uri: uri.unwrap_or_default(),
            }),
            d::ContentBlock::ResourceLink(d::ResourceLink {
                uri,
                name,
                mime_type,
            }) => Block::ResourceLink(pb::ResourceLinkContent {
                uri,
                name,
                mime_type: mime_type.unwrap_or_default(),
            }),
        };
        pb::ContentBlock { block: Some(block) }
    }
}

/// A 1-based number that is 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZeroLine(pub &'static str);

impl Violation for ZeroLine {
    fn violation(&self) -> FieldViolation {
        FieldViolation::new(self.0, "must be at least 1")
    }
}

violation_error!(ZeroLine);

pub(super) fn line(field: &'static str, n: u32) -> Result<u32, ZeroLine> {
    if n == 0 { Err(ZeroLine(field)) } else { Ok(n) }
}

impl TryFrom<pb::FileLocation> for d::FileLocation {
    type Error = ZeroLine;
    fn try_from(l: pb::FileLocation) -> Result<Self, Self::Error> {
        let pb::FileLocation { path, line: n } = l;
        Ok(d::FileLocation {
            path,
            line: n.map(|n| line("line", n)).transpose()?,
        })
    }
}

impl From<d::FileLocation> for pb::FileLocation {
    fn from(l: d::FileLocation) -> Self {
        pb::FileLocation {
            path: l.path,
            line: l.line,
        }
    }
}

impl From<pb::FileDiff> for d::FileDiff {
    fn from(f: pb::FileDiff) -> Self {
        // `runs` is output only: the server draws every diff itself.
        let pb::FileDiff {
            path,
            old_text,
            new_text,
            runs: _,
        } = f;
        d::FileDiff {
            path,
            old_text,
            new_text,
            runs: Vec::new(),
        }
    }
}

impl From<d::FileDiff> for pb::FileDiff {
    fn from(f: d::FileDiff) -> Self {
        pb::FileDiff {
            path: f.path,
            old_text: f.old_text,
            new_text: f.new_text,
            runs: f.runs.into_iter().map(run_to_pb).collect(),
        }
    }
}

fn run_to_pb(r: d::DiffRun) -> pb::DiffRun {
    let op = match r.op {
        d::DiffOp::Context => pb::DiffOp::Context,
        d::DiffOp::Removed => pb::DiffOp::Removed,
        d::DiffOp::Added => pb::DiffOp::Added,
    };
    pb::DiffRun {
        op: op as i32,
        lines: r.lines,
    }
}

impl TryFrom<pb::ReadLine> for d::ReadLine {
    type Error = ZeroLine;
    fn try_from(l: pb::ReadLine) -> Result<Self, Self::Error> {
        let pb::ReadLine { number, text } = l;
        Ok(d::ReadLine {
            number: line("number", number)?,
            text,
        })
    }
}

impl From<d::ReadLine> for pb::ReadLine {
    fn from(l: d::ReadLine) -> Self {
        pb::ReadLine {
            number: l.number,
            text: l.text,
        }
    }
}

impl TryFrom<pb::SearchMatch> for d::SearchMatch {
    type Error = ZeroLine;
    fn try_from(m: pb::SearchMatch) -> Result<Self, Self::Error> {
        let pb::SearchMatch {
            line_number,
            line: text,
        } = m;
        Ok(d::SearchMatch {
            line_number: line("line_number", line_number)?,
            line: text,
        })
    }
}

impl From<d::SearchMatch> for pb::SearchMatch {
    fn from(m: d::SearchMatch) -> Self {
        pb::SearchMatch {
            line_number: m.line_number,
            line: m.line,
        }
    }
}

impl TryFrom<pb::SearchFileMatches> for d::SearchFileMatches {
    type Error = Indexed<ZeroLine>;
    fn try_from(f: pb::SearchFileMatches) -> Result<Self, Self::Error> {
        let pb::SearchFileMatches { path, matches } = f;
        Ok(d::SearchFileMatches {
            path,
            matches: each(matches, |i, e| Indexed("matches", i, e))?,
        })
    }
}

impl From<d::SearchFileMatches> for pb::SearchFileMatches {
    fn from(f: d::SearchFileMatches) -> Self {
        pb::SearchFileMatches {
            path: f.path,
            matches: each_ok(f.matches),
        }
    }
}

impl From<pb::WebSource> for d::WebSource {
    fn from(s: pb::WebSource) -> Self {
        let pb::WebSource {
            url,
            title,
            snippet,
            published_at,
        } = s;
        d::WebSource {
            url,
            title,
            snippet,
            published_at,
        }
    }
}

impl From<d::WebSource> for pb::WebSource {
    fn from(s: d::WebSource) -> Self {
        pb::WebSource {
            url: s.url,
            title: s.title,
            snippet: s.snippet,
            published_at: s.published_at,
        }
    }
}

/// Unknown enum values (from a newer client) degrade to "no kind".
fn kind_from_pb(k: i32) -> Option<d::ToolKind> {
    use pb::ToolKind as K;
    Some(match K::try_from(k).ok()? {
        K::Unspecified => return None,
        K::Read => d::ToolKind::Read,
        K::Edit => d::ToolKind::Edit,
        K::Delete => d::ToolKind::Delete,
        K::Move => d::ToolKind::Move,
        K::Search => d::ToolKind::Search,
        K::Execute => d::ToolKind::Execute,
        K::Think => d::ToolKind::Think,
        K::Fetch => d::ToolKind::Fetch,
        K::SwitchMode => d::ToolKind::SwitchMode,
        K::Other => d::ToolKind::Other,
    })
}

fn kind_to_pb(k: Option<d::ToolKind>) -> i32 {
    use pb::ToolKind as K;
    (match k {
        None => K::Unspecified,
        Some(d::ToolKind::Read) => K::Read,
        Some(d::ToolKind::Edit) => K::Edit,
        Some(d::ToolKind::Delete) => K::Delete,
        Some(d::ToolKind::Move) => K::Move,
        Some(d::ToolKind::Search) => K::Search,
        Some(d::ToolKind::Execute) => K::Execute,
        Some(d::ToolKind::Think) => K::Think,
        Some(d::ToolKind::Fetch) => K::Fetch,
        Some(d::ToolKind::SwitchMode) => K::SwitchMode,
        Some(d::ToolKind::Other) => K::Other,
    }) as i32
}

// ---- call views -------------------------------------------------------------------------------

/// An invalid card body: a content block or a location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// A bad content block, by index.
    Content(Indexed<ContentBlockError>),
    /// A location with line 0, by index.
    Location(Indexed<ZeroLine>),
}

impl Violation for BodyError {
    fn violation(&self) -> FieldViolation {
        match self {
            BodyError::Content(e) => e.violation(),
            BodyError::Location(e) => e.violation(),
        }
    }
}

violation_error!(BodyError);

pub(super) fn content(items: Vec<pb::ContentBlock>) -> Result<Vec<d::ContentBlock>, BodyError> {
    each(items, |i, e| BodyError::Content(Indexed("content", i, e)))
}

pub(super) fn locations(items: Vec<pb::FileLocation>) -> Result<Vec<d::FileLocation>, BodyError> {
    each(items, |i, e| {
        BodyError::Location(Indexed("locations", i, e))
    })
}

/// An invalid `ToolCallView`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCallViewError {
    /// No card set.
    CardUnset,
    /// A bad generic card body.
    Generic(BodyError),
    /// A bad diff card body.
    Diff(BodyError),
}

impl Violation for ToolCallViewError {
    fn violation(&self) -> FieldViolation {
        match self {
            ToolCallViewError::CardUnset => FieldViolation::new("card", "not set"),
            ToolCallViewError::Generic(e) => e.violation().under("generic"),
            ToolCallViewError::Diff(e) => e.violation().under("diff"),
        }
    }
}

violation_error!(ToolCallViewError);

impl TryFrom<pb::ToolCallView> for d::ToolCallView {
    type Error = ToolCallViewError;
    fn try_from(v: pb::ToolCallView) -> Result<Self, Self::Error> {
        use ToolCallViewError as E;
        use pb::tool_call_view::Card;
        let pb::ToolCallView { card } = v;
        Ok(match card.ok_or(E::CardUnset)? {
            Card::Generic(pb::GenericCallView {
                title,
                kind,
                raw_input,
                content: c,
                locations: l,
            }) => d::ToolCallView::Generic(d::GenericCallView {
                title,
                kind: kind_from_pb(kind),
                raw_input: raw_input.map(json_from_pb),
                content: content(c).map_err(E::Generic)?,
                locations: locations(l).map_err(E::Generic)?,
            }),
            Card::Terminal(pb::TerminalCallView {
                title,
                description,
                cwd,
            }) => d::ToolCallView::Terminal(d::TerminalCallView {
                title,
                description,
                cwd,
            }),
            Card::Diff(pb::DiffCallView {
                title,
                diffs,
                locations: l,
            }) => d::ToolCallView::Diff(d::DiffCallView {
                title,
                diffs: each_ok(diffs),
                locations: locations(l).map_err(E::Diff)?,
            }),
        })
    }
}

impl From<d::ToolCallView> for pb::ToolCallView {
    fn from(v: d::ToolCallView) -> Self {
        use pb::tool_call_view::Card;
        let card = match v {
            d::ToolCallView::Generic(g) => Card::Generic(pb::GenericCallView {
                title: g.title,
                kind: kind_to_pb(g.kind),
                raw_input: g.raw_input.as_ref().map(pb_from_json),
                content: each_ok(g.content),
                locations: each_ok(g.locations),
            }),
            d::ToolCallView::Terminal(t) => Card::Terminal(pb::TerminalCallView {
                title: t.title,
                description: t.description,
                cwd: t.cwd,
            }),
            d::ToolCallView::Diff(df) => Card::Diff(pb::DiffCallView {
                title: df.title,
                diffs: each_ok(df.diffs),
                locations: each_ok(df.locations),
            }),
        };
        pb::ToolCallView { card: Some(card) }
    }
}
