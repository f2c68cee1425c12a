//! The payloads of AG-UI's open fields, as types: what an activity message holds (a permission
//! prompt, an MCP App, a card), and `agent.messages` as a `MESSAGES_SNAPSHOT` carries them.
//! Each serializes to the JSON the clients read; `frame/` and the snapshot fold match on them
//! instead of reading their own JSON back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::render::permission::PermissionPrompt;

/// What an activity message holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Activity {
    /// A permission request (`toolview.permission`).
    Permission(Box<PermissionPrompt>),
    /// The MCP App a call's result carries (`mcp-apps`).
    McpApp(Box<McpAppActivity>),
    /// A call's VIEW card (`toolview.card`): the card's JSON, which `ACTIVITY_DELTA` patches
    /// append to.
    Card(Value),
}

/// The MCP App activity, in the shape of `@ag-ui/mcp-apps-middleware`'s (CopilotKit's MCP Apps
/// renderer draws it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpAppActivity {
    /// The MCP `CallToolResult` (its text capped like output).
    pub result: Value,
    /// The view's resource.
    pub resource_uri: String,
    /// The middleware's hash of the server.
    pub server_hash: String,
    /// The call's input.
    pub tool_input: Value,
    /// The server's id, when the harness named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_id: Option<String>,
}

/// Who a message in `agent.messages` is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user's words.
    User,
    /// The assistant's words, or its tool calls.
    Assistant,
    /// The assistant's reasoning.
    Reasoning,
    /// A tool's result.
    Tool,
    /// An activity (a card, a prompt, an app).
    Activity,
}

/// One of `agent.messages`, as `@ag-ui/client` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgUiMessage {
    /// The message.
    pub id: String,
    /// Who it is from.
    pub role: Role,
    /// A tool message's call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// An activity message's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_type: Option<String>,
    /// An assistant message's tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<AgUiToolCall>,
    /// Its text, or an activity's payload (none for a tool-call message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
}

/// A message's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Text.
    Text(String),
    /// An activity's payload.
    Activity(Activity),
}

/// A tool call in an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgUiToolCall {
    /// The call.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The tool and its arguments so far.
    pub function: AgUiFunction,
}

/// A tool call's function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgUiFunction {
    /// The tool.
    pub name: String,
    /// Its arguments' JSON text, as streamed so far.
    pub arguments: String,
}
