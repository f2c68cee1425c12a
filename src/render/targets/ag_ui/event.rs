//! The AG-UI events toolview sends, as types: serde's internal tag writes `type` first, in
//! AG-UI's `SCREAMING_SNAKE_CASE`, and the fields in AG-UI's camelCase, in the order given here.
//! Renderers build them, the run framing and the history snapshot read them, and the edges
//! encode them once. `Deserialize` is for clients of the gRPC API (`toolview tail`), which
//! receive them as JSON text.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::activity::{Activity, AgUiMessage};
use crate::domain::Cursor;
use crate::render::permission::{PermissionPrompt, PromptState};

/// One AG-UI event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AgUiEvent {
    /// A run begins: a turn, or a stream's own run.
    #[serde(rename_all = "camelCase")]
    RunStarted {
        /// The session.
        thread_id: String,
        /// The turn's id, or the stream's own run's.
        run_id: String,
    },
    /// A run ends.
    #[serde(rename_all = "camelCase")]
    RunFinished {
        /// The session.
        thread_id: String,
        /// The run that ends.
        run_id: String,
        /// The stop reason and the cursor to resume after.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<RunResult>,
        /// How the run ended, when it was not a success.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<Outcome>,
        /// The turn's token usage (one entry).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Vec<Usage>>,
    },
    /// The stream failed; nothing follows.
    RunError {
        /// What went wrong.
        message: String,
        /// The gRPC status name of the failure.
        code: String,
    },
    /// A user or assistant message begins.
    #[serde(rename_all = "camelCase")]
    TextMessageStart {
        /// The message.
        message_id: String,
        /// Who speaks.
        role: TextRole,
    },
    /// Text appended to a message (never empty: AG-UI refuses an empty delta).
    #[serde(rename_all = "camelCase")]
    TextMessageContent {
        /// The message.
        message_id: String,
        /// The text.
        delta: String,
    },
    /// A message ends.
    #[serde(rename_all = "camelCase")]
    TextMessageEnd {
        /// The message.
        message_id: String,
    },
    /// A reasoning message begins.
    #[serde(rename_all = "camelCase")]
    ReasoningMessageStart {
        /// The message.
        message_id: String,
        /// Always `reasoning`.
        role: ReasoningRole,
    },
    /// Reasoning text (never empty).
    #[serde(rename_all = "camelCase")]
    ReasoningMessageContent {
        /// The message.
        message_id: String,
        /// The text.
        delta: String,
    },
    /// A reasoning message ends.
    #[serde(rename_all = "camelCase")]
    ReasoningMessageEnd {
        /// The message.
        message_id: String,
    },
    /// A tool call begins.
    #[serde(rename_all = "camelCase")]
    ToolCallStart {
        /// The call.
        tool_call_id: String,
        /// The tool's name.
        tool_call_name: String,
    },
    /// Argument text of a call.
    #[serde(rename_all = "camelCase")]
    ToolCallArgs {
        /// The call.
        tool_call_id: String,
        /// The arguments' JSON text (or a piece of it).
        delta: String,
        /// The tool's name, for a stream that has to start the call again before this piece
        /// (it started before the stream's start point). Not sent.
        #[serde(skip)]
        tool_call_name: String,
    },
    /// A call's arguments are complete.
    #[serde(rename_all = "camelCase")]
    ToolCallEnd {
        /// The call.
        tool_call_id: String,
        /// The tool's name, as on [`AgUiEvent::ToolCallArgs`]. Not sent.
        #[serde(skip)]
        tool_call_name: String,
    },
    /// A call's result, as a tool message.
    #[serde(rename_all = "camelCase")]
    ToolCallResult {
        /// The tool message's id.
        message_id: String,
        /// The call.
        tool_call_id: String,
        /// The result as text.
        content: String,
        /// Always `tool`.
        role: ToolRole,
    },
    /// One of toolview's custom events.
    Custom(Custom),
    /// An activity message (a call's VIEW card), created or replaced.
    #[serde(rename_all = "camelCase")]
    ActivitySnapshot {
        /// The activity message.
        message_id: String,
        /// [`super::CARD_ACTIVITY`].
        activity_type: String,
        /// The card, the prompt or the app.
        content: Activity,
        /// Replaces the message when it exists.
        replace: bool,
    },
    /// A change to an activity message.
    #[serde(rename_all = "camelCase")]
    ActivityDelta {
        /// The activity message.
        message_id: String,
        /// [`super::CARD_ACTIVITY`].
        activity_type: String,
        /// JSON Patch operations.
        patch: Vec<PatchOp>,
    },
    /// The messages a history join starts from.
    MessagesSnapshot {
        /// `agent.messages` as the replay would have built them.
        messages: Vec<AgUiMessage>,
    },
}

impl AgUiEvent {
    /// The run a `RUN_STARTED` opens.
    pub fn opened_run(&self) -> Option<&str> {
        match self {
            AgUiEvent::RunStarted { run_id, .. } => Some(run_id),
            _ => None,
        }
    }
}

/// A `RUN_FINISHED`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// A turn's stop reason (ACP's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Where to resume after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<WireCursor>,
}

/// A cursor as JSON: the offset as a string (the protobuf JSON mapping of a `uint64`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireCursor {
    /// The log's epoch.
    pub epoch: String,
    /// The offset, in decimal.
    pub offset: String,
}

impl From<&Cursor> for WireCursor {
    fn from(c: &Cursor) -> Self {
        WireCursor {
            epoch: c.epoch.as_str().to_owned(),
            offset: c.offset.to_string(),
        }
    }
}

/// How a run ended, when not as a success.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Outcome {
    /// The turn was cancelled.
    Cancelled,
    /// The run waits for answers: permission requests still pending (native interrupts).
    Interrupt {
        /// What the run waits for.
        interrupts: Vec<Interrupt>,
    },
}

/// A permission request as an AG-UI interrupt: a new run whose `resume` entry answers it (by
/// `id`) goes on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    /// The permission request.
    pub id: String,
    /// `tool_call` for a request about a call, else `confirmation`.
    pub reason: String,
    /// The prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The call it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// When it expires (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// The answer it takes: `{optionId}` (one of the options) or `{approved}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<Value>,
    /// `{toolview: <the request's JSON form>}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl Interrupt {
    /// The interrupt for a pending permission request.
    pub fn of(prompt: &PermissionPrompt) -> Option<Interrupt> {
        if prompt.state != PromptState::Pending {
            return None;
        }
        let options: Vec<Value> = prompt
            .options
            .iter()
            .map(|o| Value::String(o.option_id.clone()))
            .collect();
        let tool_call_id = prompt.call_id.clone();
        let reason = match tool_call_id {
            Some(_) => "tool_call",
            None => "confirmation",
        };
        Some(Interrupt {
            id: prompt.request_id.clone(),
            reason: reason.into(),
            message: Some(prompt.title.clone()),
            tool_call_id,
            expires_at: Some(prompt.expires_at.clone()),
            response_schema: Some(serde_json::json!({
                "type": "object",
                "properties": {
                    "optionId": {"type": "string", "enum": options},
                    "approved": {"type": "boolean"},
                    "reason": {"type": "string"},
                },
            })),
            metadata: Some(serde_json::json!({"toolview": prompt})),
        })
    }
}

/// A turn's token counts; a count of 0 (not known) is left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_tokens: u64,
    /// Reasoning tokens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Input tokens read from a cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Who speaks in a text message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextRole {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// The role of a reasoning message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningRole {
    /// The only one.
    Reasoning,
}

/// The role of a tool message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolRole {
    /// The only one.
    Tool,
}

/// toolview's `CUSTOM` events: `name`, then `value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", content = "value")]
pub enum Custom {
    /// Live output of a call.
    #[serde(rename = "toolview:terminal:output")]
    TerminalOutput(TerminalOutput),
    /// A call's (degraded) card: the `dsh:tool:view` envelope, version 1.
    #[serde(rename = "dsh:tool:view")]
    ToolView(ToolViewEnvelope),
    /// The log the client was shown is gone; what follows rebuilds it.
    #[serde(rename = "toolview:reset")]
    Reset(ResetValue),
    /// The harness closed the session.
    #[serde(rename = "toolview:session:ended")]
    SessionEnded(EndedValue),
}

/// `toolview:session:ended`'s value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndedValue {
    /// Why, in the harness's words; empty when not said.
    pub reason: String,
}

/// `toolview:terminal:output`'s value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalOutput {
    /// The call.
    pub call_id: String,
    /// The output.
    pub data: String,
}

/// `dsh:tool:view`'s value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolViewEnvelope {
    /// Always 1.
    pub version: u32,
    /// The call.
    pub call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// `call` or `result`.
    pub phase: EnvelopePhase,
    /// The card, `null` for none.
    pub card: Value,
}

/// Which card an envelope carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnvelopePhase {
    /// The call's card.
    Call,
    /// The result's card.
    Result,
}

/// `toolview:reset`'s value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResetValue {
    /// The log's new epoch.
    pub epoch: String,
    /// Its head, in decimal.
    pub head: String,
}

/// A JSON Patch operation toolview sends: `add` (append to an array at `…/-`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatchOp {
    /// The operation.
    pub op: PatchKind,
    /// The JSON Pointer it applies at.
    pub path: String,
    /// The value added.
    pub value: Value,
}

/// The JSON Patch operations toolview sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PatchKind {
    /// Add (with `/-`: append).
    Add,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_comes_first_and_round_trips() {
        let events = [
            AgUiEvent::RunStarted {
                thread_id: "s".into(),
                run_id: "t1".into(),
            },
            AgUiEvent::RunFinished {
                thread_id: "s".into(),
                run_id: "t1".into(),
                result: Some(RunResult {
                    stop_reason: Some("cancelled".into()),
                    cursor: None,
                }),
                outcome: Some(Outcome::Cancelled),
                usage: Some(vec![Usage {
                    input_tokens: 3,
                    ..Usage::default()
                }]),
            },
            AgUiEvent::Custom(Custom::Reset(ResetValue {
                epoch: "e".into(),
                head: "2".into(),
            })),
        ];
        let texts: Vec<String> = events
            .iter()
            .map(|e| serde_json::to_string(e).unwrap())
            .collect();
        assert_eq!(
            texts[0],
            r#"{"type":"RUN_STARTED","threadId":"s","runId":"t1"}"#
        );
        assert_eq!(
            texts[1],
            r#"{"type":"RUN_FINISHED","threadId":"s","runId":"t1","result":{"stopReason":"cancelled"},"outcome":{"type":"cancelled"},"usage":[{"inputTokens":3}]}"#
        );
        assert_eq!(
            texts[2],
            r#"{"type":"CUSTOM","name":"toolview:reset","value":{"epoch":"e","head":"2"}}"#
        );
        for (event, text) in events.iter().zip(&texts) {
            assert_eq!(&serde_json::from_str::<AgUiEvent>(text).unwrap(), event);
        }
    }
}
