//! `PresentRequest` inbound: one call's arguments and, when it finished, its result, for the
//! presenters alone (no session).

use super::MetaJsonError;
use super::events::check_meta_json;
use super::results::ToolResultViewError;
use super::views::{ContentBlockError, Indexed, ToolCallViewError, each};
use crate::domain as d;
use crate::domain::{FieldViolation, Violation, violation_error};
use crate::grpc::pb;
use crate::present::{FinishedInput, parse_meta};

/// A validated `PresentRequest`.
#[derive(Debug, Clone, PartialEq)]
pub struct PresentInput {
    /// The tool's name.
    pub tool_name: String,
    /// The arguments text, verbatim.
    pub arguments_json: String,
    /// The harness's own call card, if any.
    pub call_view: Option<d::ToolCallView>,
    /// The result, when the call has finished.
    pub result: Option<FinishedInput>,
}

/// An invalid `PresentRequest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PresentRequestError {
    /// A bad `call_view`.
    CallView(ToolCallViewError),
    /// A bad block in `result.content`.
    Content(Indexed<ContentBlockError>),
    /// `result.meta_json` is not JSON.
    Meta(MetaJsonError),
    /// A bad `result.view`.
    ResultView(ToolResultViewError),
}

impl Violation for PresentRequestError {
    fn violation(&self) -> FieldViolation {
        match self {
            PresentRequestError::CallView(e) => e.violation().under("call_view"),
            PresentRequestError::Content(e) => e.violation().under("result"),
            PresentRequestError::Meta(e) => e.violation().under("result"),
            PresentRequestError::ResultView(e) => e.violation().under("result.view"),
        }
    }
}

violation_error!(PresentRequestError);

impl TryFrom<pb::PresentRequest> for PresentInput {
    type Error = PresentRequestError;
    fn try_from(r: pb::PresentRequest) -> Result<Self, Self::Error> {
        use PresentRequestError as E;
        let pb::PresentRequest {
            tool_name,
            arguments_json,
            result,
            call_view,
        } = r;
        let call_view = call_view
            .map(d::ToolCallView::try_from)
            .transpose()
            .map_err(E::CallView)?;
        let result = match result {
            None => None,
            Some(pb::PresentResult {
                content,
                is_error,
                meta_json,
                view,
            }) => {
                let content = each(content, |i, e| E::Content(Indexed("content", i, e)))?;
                check_meta_json(&meta_json).map_err(E::Meta)?;
                Some(FinishedInput {
                    content,
                    is_error,
                    meta: parse_meta(&meta_json),
                    view: view
                        .map(d::ToolResultView::try_from)
                        .transpose()
                        .map_err(E::ResultView)?,
                })
            }
        };
        Ok(PresentInput {
            tool_name,
            arguments_json,
            call_view,
            result,
        })
    }
}
