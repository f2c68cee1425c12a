//! Result views: `TryFrom<pb::ToolResultView>` inbound (typed errors that render as field paths),
//! `From` outbound, as in `views.rs`.

use super::views::{BodyError, Indexed, ZeroLine, content, each, each_ok, line, locations};
use crate::domain as d;
use crate::domain::{FieldViolation, Violation, violation_error};
use crate::grpc::pb;

/// An invalid `ToolResultView`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolResultViewError {
    /// No card set.
    CardUnset,
    /// A bad generic card body.
    Generic(BodyError),
    /// A bad diff card body.
    Diff(BodyError),
    /// A search card without a shape.
    SearchShapeUnset,
    /// A match with line 0: the file's index, then the match's.
    SearchMatch(usize, Indexed<ZeroLine>),
    /// A read window with offset or total 0.
    ReadNumber(ZeroLine),
    /// A read line numbered 0, by index.
    ReadLine(Indexed<ZeroLine>),
    /// A bad read fallback content.
    ReadContent(BodyError),
    /// A web card without a kind.
    WebKindUnset,
}

impl Violation for ToolResultViewError {
    fn violation(&self) -> FieldViolation {
        use ToolResultViewError as E;
        match self {
            E::CardUnset => FieldViolation::new("card", "not set"),
            E::Generic(e) => e.violation().under("generic"),
            E::Diff(e) => e.violation().under("diff"),
            E::SearchShapeUnset => FieldViolation::new("search.shape", "not set"),
            E::SearchMatch(i, e) => e.violation().under(format!("search.matches.files[{i}]")),
            E::ReadNumber(e) => e.violation().under("read"),
            E::ReadLine(e) => e.violation().under("read"),
            E::ReadContent(e) => e.violation().under("read"),
            E::WebKindUnset => FieldViolation::new("web.kind", "not set"),
        }
    }
}

violation_error!(ToolResultViewError);

impl TryFrom<pb::ToolResultView> for d::ToolResultView {
    type Error = ToolResultViewError;
    fn try_from(v: pb::ToolResultView) -> Result<Self, Self::Error> {
        use ToolResultViewError as E;
        use pb::tool_result_view::Card;
        let pb::ToolResultView { card } = v;
        Ok(match card.ok_or(E::CardUnset)? {
            Card::Generic(pb::GenericResultView { title, content: c }) => {
                d::ToolResultView::Generic(d::GenericResultView {
                    title,
                    content: content(c).map_err(E::Generic)?,
                })
            }
            Card::Terminal(pb::TerminalResultView {
                title,
                output,
                exit,
            }) => {
                use pb::terminal_result_view::Exit;
                d::ToolResultView::Terminal(d::TerminalResultView {
                    title,
                    output,
                    exit: exit.map(|e| match e {
                        Exit::ExitCode(c) => d::TerminalExit::Code(c),
                        Exit::Signal(s) => d::TerminalExit::Signal(s),
                    }),
                })
            }
            Card::Diff(pb::DiffResultView {
                title,
                diffs,
                locations: l,
            }) => d::ToolResultView::Diff(d::DiffResultView {
                title,
                diffs: each_ok(diffs),
                locations: locations(l).map_err(E::Diff)?,
            }),
            Card::Search(search) => d::ToolResultView::Search(search_result(search)?),
            Card::Read(pb::ReadResultView {
                title,
                path,
                offset,
                lines,
                total_lines,
                lang,
                content: c,
            }) => d::ToolResultView::Read(d::ReadResultView {
                title,
                path,
                offset: line("offset", offset).map_err(E::ReadNumber)?,
                lines: each(lines, |i, e| E::ReadLine(Indexed("lines", i, e)))?,
                total_lines: line("total_lines", total_lines).map_err(E::ReadNumber)?,
                lang,
                content: content(c).map_err(E::ReadContent)?,
            }),
            Card::Web(web) => d::ToolResultView::Web(web_result(web)?),
        })
    }
}

fn search_result(v: pb::SearchResultView) -> Result<d::SearchResultView, ToolResultViewError> {
    use ToolResultViewError as E;
    use pb::search_result_view::Shape;
    let pb::SearchResultView {
        title,
        truncated,
        total,
        shape,
    } = v;
    let shape = match shape.ok_or(E::SearchShapeUnset)? {
        Shape::Matches(pb::SearchMatches { files }) => d::SearchShape::Matches {
            files: each(files, E::SearchMatch)?,
        },
        Shape::Paths(pb::SearchPaths { paths }) => d::SearchShape::Paths { paths },
    };
    Ok(d::SearchResultView {
        title,
        shape,
        truncated,
        total,
    })
}

fn web_result(v: pb::WebResultView) -> Result<d::WebResultView, ToolResultViewError> {
    use pb::web_result_view::Kind;
    let pb::WebResultView { title, kind } = v;
    let kind = match kind.ok_or(ToolResultViewError::WebKindUnset)? {
        Kind::Search(pb::WebSearch {
            sources,
            answer,
            truncated,
        }) => d::WebKind::Search {
            sources: each_ok(sources),
            answer,
            truncated,
        },
        Kind::Fetch(pb::WebFetch {
            url,
            status_code,
            truncated,
        }) => d::WebKind::Fetch {
            url,
            status_code,
            truncated,
        },
    };
    Ok(d::WebResultView { title, kind })
}

impl From<d::ToolResultView> for pb::ToolResultView {
    fn from(v: d::ToolResultView) -> Self {
        use pb::tool_result_view::Card;
        let card = match v {
            d::ToolResultView::Generic(g) => Card::Generic(pb::GenericResultView {
                title: g.title,
                content: each_ok(g.content),
            }),
            d::ToolResultView::Terminal(t) => {
                use pb::terminal_result_view::Exit;
                Card::Terminal(pb::TerminalResultView {
                    title: t.title,
                    output: t.output,
                    exit: t.exit.map(|e| match e {
                        d::TerminalExit::Code(c) => Exit::ExitCode(c),
                        d::TerminalExit::Signal(s) => Exit::Signal(s),
                    }),
                })
            }
            d::ToolResultView::Diff(df) => Card::Diff(pb::DiffResultView {
                title: df.title,
                diffs: each_ok(df.diffs),
                locations: each_ok(df.locations),
            }),
            d::ToolResultView::Search(s) => {
                use pb::search_result_view::Shape;
                Card::Search(pb::SearchResultView {
                    title: s.title,
                    truncated: s.truncated,
                    total: s.total,
                    shape: Some(match s.shape {
                        d::SearchShape::Matches { files } => Shape::Matches(pb::SearchMatches {
                            files: each_ok(files),
                        }),
                        d::SearchShape::Paths { paths } => Shape::Paths(pb::SearchPaths { paths }),
                    }),
                })
            }
            d::ToolResultView::Read(r) => Card::Read(pb::ReadResultView {
                title: r.title,
                path: r.path,
                offset: r.offset,
                lines: each_ok(r.lines),
                total_lines: r.total_lines,
                lang: r.lang,
                content: each_ok(r.content),
            }),
            d::ToolResultView::Web(w) => {
                use pb::web_result_view::Kind;
                Card::Web(pb::WebResultView {
                    title: w.title,
                    kind: Some(match w.kind {
                        d::WebKind::Search {
                            sources,
                            answer,
                            truncated,
                        } => Kind::Search(pb::WebSearch {
                            sources: each_ok(sources),
                            answer,
                            truncated,
                        }),
                        d::WebKind::Fetch {
                            url,
                            status_code,
                            truncated,
                        } => Kind::Fetch(pb::WebFetch {
                            url,
                            status_code,
                            truncated,
                        }),
                    }),
                })
            }
        };
        pb::ToolResultView { card: Some(card) }
    }
}
