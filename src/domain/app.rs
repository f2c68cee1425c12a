//! `McpApp`: an MCP App a call's result carries (the MCP Apps extension: the tool's interactive
//! view, a `ui://` resource of its MCP server), kept on the card so UIs that host apps can show
//! it (AG-UI's `mcp-apps` activity, the AI SDK's tool metadata).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The MIME type of an MCP App's view (MCP Apps, 2026-01-26).
pub const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// An MCP App on a call's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpApp {
    /// The view's resource, `ui://…`.
    pub resource_uri: String,
    /// The MCP server's id, as the harness names it (AG-UI's `serverId`, the AI SDK's
    /// `clientName`); empty when not given.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub server_id: String,
    /// The MCP server as `@ag-ui/mcp-apps-middleware` names it: the MD5 of `{"type","url"}`;
    /// empty when the harness gave no server.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub server_hash: String,
    /// The result's `structuredContent` (what the view renders), when it had one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub structured_content: Option<Value>,
    /// The result's `_meta`, as the MCP server sent it.
    #[serde(skip_serializing_if = "Value::is_null", default)]
    pub meta: Value,
}
