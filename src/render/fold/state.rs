//! The fold's per-call and per-message state: a call's card, input, output and result, and a
//! message's text, with the transitions the fold applies to each.

use serde_json::Value;

use super::Children;
use crate::domain::{
    CallId, ContentBlock, McpApp, MessageId, MessageRole, Plan, ToolCallView, ToolResultView,
};
use crate::present::{parse_arguments, plan, resolve_call};
use crate::render::input::StreamingInput;
use crate::render::streamed::Streamed;

/// A call's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Started with its input streaming, and neither complete nor finished since.
    Pending,
    /// Started (or seen) and not finished.
    InProgress,
    /// Finished without error.
    Completed,
    /// Finished with an error.
    Failed,
}

/// What a finished event left.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The result card (the harness's or a presenter's).
    pub view: ToolResultView,
    /// The result content as the tool returned it.
    pub raw_content: Vec<ContentBlock>,
    /// Whether the tool failed.
    pub is_error: bool,
    /// The MCP App the result carries (`present::mcp_app`), for the targets that host apps.
    pub app: Option<McpApp>,
}

/// One call's card state.
#[derive(Debug, Clone, PartialEq)]
pub struct CallState {
    /// The call's id.
    pub call_id: CallId,
    /// Empty for an orphan (output or a result without a started call).
    pub tool_name: String,
    /// The raw argument text, verbatim (empty while the input streams).
    pub arguments_json: String,
    /// The parsed arguments (`Null` when they did not parse, or while the input streams).
    pub args: Value,
    /// The input while it streams: `Some` from a streaming start until the input completes
    /// (and still at a finish that came first).
    pub input: Option<StreamingInput>,
    /// What a todo call's arguments plan (from the presenters).
    pub plan: Option<Plan>,
    /// `None` for an orphan.
    pub call_view: Option<ToolCallView>,
    /// The live output so far (its head and tail, within the fold's retention).
    pub streamed: Streamed,
    /// The result, once finished.
    pub finished: Option<Finished>,
    /// Where the call is.
    pub status: CallStatus,
    /// When the fold first saw the call (a counter): calls in flight are listed in this order.
    pub order: u64,
    /// The call it runs under (`parent_call_id`), if any.
    pub parent: Option<CallId>,
    /// How many parents it is under (see `nest.rs`): 0 at the top.
    pub depth: u8,
    /// What its children are doing, once it has had one.
    pub children: Option<Children>,
}

impl CallState {
    pub(super) fn orphan(call_id: CallId, retain: usize, order: u64) -> Self {
        CallState {
            order,
            parent: None,
            depth: 0,
            children: None,
            call_id,
            tool_name: String::new(),
            arguments_json: String::new(),
            args: Value::Null,
            input: None,
            plan: None,
            call_view: None,
            streamed: Streamed::new(retain),
            finished: None,
            status: CallStatus::InProgress,
        }
    }

    /// Takes the complete arguments: the presenters' card (or the harness's), the plan, and
    /// the call running.
    pub(super) fn complete_input(
        &mut self,
        arguments_json: &str,
        harness_view: Option<ToolCallView>,
    ) {
        let args = parse_arguments(arguments_json);
        self.call_view = Some(resolve_call(&self.tool_name, &args, harness_view));
        self.plan = plan(&self.tool_name, &args);
        self.arguments_json = arguments_json.to_owned();
        self.args = args;
        self.input = None;
        self.status = CallStatus::InProgress;
    }

    /// The input as the renderings carry it: while it streams, as last read (open structures
    /// closed); then the parsed arguments, or their text when they are not JSON.
    pub fn input_value(&self) -> Value {
        match (&self.input, &self.args) {
            (Some(input), _) => input.so_far.clone(),
            (None, Value::Null) if !self.arguments_json.is_empty() => {
                Value::String(self.arguments_json.clone())
            }
            (None, args) => args.clone(),
        }
    }

    /// The call's display title: the call view's, or the call id for an orphan.
    pub fn title(&self) -> &str {
        self.call_view
            .as_ref()
            .map_or(self.call_id.as_str(), ToolCallView::title)
    }
}

/// One message's state: its text so far (within the fold's retention, like a call's output).
#[derive(Debug, Clone, PartialEq)]
pub struct MessageState {
    /// The message's id.
    pub message_id: MessageId,
    /// Who it is from.
    pub role: MessageRole,
    /// Its text so far.
    pub text: Streamed,
    /// Whether it is complete.
    pub finished: bool,
    /// Whether its start was folded (not an orphan's text): its item was shown then.
    pub started: bool,
    /// When the fold first saw it (the counter calls use: in-flight items keep their order).
    pub order: u64,
    /// The call it belongs under (a subagent's words), if any.
    pub parent: Option<CallId>,
    /// How many parents it is under: 0 at the top.
    pub depth: u8,
}

impl MessageState {
    /// A message whose start is missing: an empty assistant message.
    pub(super) fn orphan(message_id: MessageId, retain: usize, order: u64) -> Self {
        MessageState {
            message_id,
            role: MessageRole::Assistant,
            text: Streamed::new(retain),
            finished: false,
            started: false,
            order,
            parent: None,
            depth: 0,
        }
    }
}
