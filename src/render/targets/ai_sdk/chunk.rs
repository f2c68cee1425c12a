//! The AI SDK UI message stream chunks toolview sends, as types: serde's internal tag writes
//! `type` first, in the SDK's kebab-case, and the fields in its camelCase, in the order given
//! here. `Deserialize` is for clients of the gRPC API (`toolview tail`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::render::permission::PermissionPrompt;

/// One UI message stream chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum UiChunk {
    /// The assistant message begins (a new id: the SDK drops the parts of the one before).
    #[serde(rename_all = "camelCase")]
    Start {
        /// The message.
        message_id: String,
    },
    /// The stream's last chunk.
    Finish {},
    /// The stream failed.
    #[serde(rename_all = "camelCase")]
    Error {
        /// What went wrong.
        error_text: String,
    },
    /// A turn begins.
    StartStep {},
    /// A turn ends.
    FinishStep {},
    /// An assistant text part begins.
    TextStart {
        /// The part (the message's id).
        id: String,
    },
    /// Text appended to a text part.
    TextDelta {
        /// The part.
        id: String,
        /// The text.
        delta: String,
    },
    /// A text part ends.
    TextEnd {
        /// The part.
        id: String,
    },
    /// A reasoning part begins.
    ReasoningStart {
        /// The part.
        id: String,
    },
    /// Reasoning text.
    ReasoningDelta {
        /// The part.
        id: String,
        /// The text.
        delta: String,
    },
    /// A reasoning part ends.
    ReasoningEnd {
        /// The part.
        id: String,
    },
    /// A call's tool part begins.
    #[serde(rename_all = "camelCase")]
    ToolInputStart {
        /// The call.
        tool_call_id: String,
        /// The tool (`unknown` for an orphan).
        tool_name: String,
        /// Always true: the UI declared none of toolview's tools.
        dynamic: bool,
        /// The card's title.
        title: String,
    },
    /// More of a call's input text, while the model writes it (the reader parses the text so
    /// far as partial JSON: the part is `input-streaming`).
    #[serde(rename_all = "camelCase")]
    ToolInputDelta {
        /// The call.
        tool_call_id: String,
        /// The text appended.
        input_text_delta: String,
    },
    /// A call's input is complete.
    #[serde(rename_all = "camelCase")]
    ToolInputAvailable {
        /// The call.
        tool_call_id: String,
        /// The tool.
        tool_name: String,
        /// The parsed arguments, or their text when they are not JSON.
        input: Value,
        /// Always true.
        dynamic: bool,
        /// The card's title.
        title: String,
    },
    /// A call's result.
    #[serde(rename_all = "camelCase")]
    ToolOutputAvailable {
        /// The call.
        tool_call_id: String,
        /// The result's text.
        output: ToolOutput,
        /// Always true.
        dynamic: bool,
        /// For a result that carries an MCP App: `{clientName?, toolName, app: {resourceUri,
        /// mimeType}}`, as `@ai-sdk/mcp` describes an MCP tool with an app.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_metadata: Option<Value>,
    },
    /// A call's failure.
    #[serde(rename_all = "camelCase")]
    ToolOutputError {
        /// The call.
        tool_call_id: String,
        /// The result's text (`failed` when empty).
        error_text: String,
        /// Always true.
        dynamic: bool,
        /// As on `tool-output-available`.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_metadata: Option<Value>,
    },
    /// A call waits for a person's approval (toolview's permission request about it).
    #[serde(rename_all = "camelCase")]
    ToolApprovalRequest {
        /// The permission request.
        approval_id: String,
        /// The call.
        tool_call_id: String,
    },
    /// How the approval was decided (by anyone, through any surface).
    #[serde(rename_all = "camelCase")]
    ToolApprovalResponse {
        /// The permission request.
        approval_id: String,
        /// Whether an allow-kind option applies.
        approved: bool,
        /// Who decided, and their reason.
        reason: String,
    },
    /// A permission request: its prompt, options, state and resolution (the part's id is the
    /// request's: a later one replaces it).
    DataToolviewPermission {
        /// The request.
        id: String,
        /// The request as `docs/approvals.md` shows it.
        data: Box<PermissionPrompt>,
    },
    /// A call's VIEW card (the part's id is the call's: a later one replaces it).
    DataToolviewCard {
        /// The call.
        id: String,
        /// The card.
        data: Value,
    },
    /// Live output appended to a card (not kept in the message).
    DataToolviewOutput {
        /// The call and the text.
        data: OutputData,
        /// Always true.
        transient: bool,
    },
    /// A user message's text so far.
    DataToolviewUser {
        /// The message.
        id: String,
        /// Its text and whether it is complete.
        data: UserData,
    },
    /// The log the client was shown is gone; its replay follows.
    DataToolviewReset {
        /// The new epoch and head.
        data: ResetData,
        /// Always true.
        transient: bool,
    },
    /// The harness closed the session (kept in the message: a reloaded chat still shows it).
    DataToolviewSession {
        /// Always `session`: a later one replaces it.
        id: String,
        /// Where the session is.
        data: SessionData,
    },
    /// A word from the server about the stream (a prompt that goes nowhere).
    DataToolviewNotice {
        /// The text.
        data: NoticeData,
        /// Always true.
        transient: bool,
    },
}

/// `tool-output-available`'s output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The result's text, capped.
    pub text: String,
    /// Always false here (a failure is `tool-output-error`).
    pub is_error: bool,
    /// For a result that carries an MCP App: the rest of MCP's `CallToolResult` (`content`,
    /// `structuredContent`, `_meta`), which is what the app's view is given.
    #[serde(flatten, skip_serializing_if = "Option::is_none", default)]
    pub mcp: Option<serde_json::Map<String, Value>>,
}

/// `data-toolview-output`'s data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputData {
    /// The call.
    pub call_id: String,
    /// The output appended.
    pub text: String,
}

/// `data-toolview-user`'s data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserData {
    /// The text so far.
    pub text: String,
    /// Whether the message has ended.
    pub complete: bool,
}

/// `data-toolview-reset`'s data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResetData {
    /// The log's new epoch.
    pub epoch: String,
    /// Its head, in decimal.
    pub head: String,
}

/// `data-toolview-notice`'s data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionData {
    /// `ended`.
    pub state: String,
    /// Why, in the harness's words; empty when not said.
    pub reason: String,
}

/// `data-toolview-notice`'s data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoticeData {
    /// The notice.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_comes_first_and_round_trips() {
        let chunks = [
            UiChunk::Finish {},
            UiChunk::StartStep {},
            UiChunk::DataToolviewOutput {
                data: OutputData {
                    call_id: "c".into(),
                    text: "x".into(),
                },
                transient: true,
            },
        ];
        let texts: Vec<String> = chunks
            .iter()
            .map(|c| serde_json::to_string(c).unwrap())
            .collect();
        assert_eq!(texts[0], r#"{"type":"finish"}"#);
        assert_eq!(texts[1], r#"{"type":"start-step"}"#);
        assert_eq!(
            texts[2],
            r#"{"type":"data-toolview-output","data":{"callId":"c","text":"x"},"transient":true}"#
        );
        for (chunk, text) in chunks.iter().zip(&texts) {
            assert_eq!(&serde_json::from_str::<UiChunk>(text).unwrap(), chunk);
        }
    }
}
