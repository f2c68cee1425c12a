//! `_meta` of the ACP target's updates, as types: toolview's own keys under `toolview` (ACP v1
//! has no field for them) and the terminal extension's (`terminal_info`, `terminal_output`,
//! `terminal_exit`, which Zed reads). `toolview acp` reads its permission prompts back through
//! the same types.

use serde::{Deserialize, Serialize};

use crate::render::fold::Children;
use crate::render::permission::PermissionPrompt;

/// An update's `_meta`.
#[derive(Debug, Default, Serialize)]
pub struct AcpMeta {
    /// A terminal card's terminal, on its `tool_call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_info: Option<TerminalInfo>,
    /// Output for a terminal card's terminal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_output: Option<TerminalOutput>,
    /// How a terminal card's command ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_exit: Option<TerminalExited>,
    /// toolview's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toolview: Option<ToolviewMeta>,
}

/// `_meta.toolview`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolviewMeta {
    /// A permission request on the card (its prompt, state and resolution).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<Box<PermissionPrompt>>,
    /// `streaming` while the call's input streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<InputState>,
    /// The call the card runs under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_call_id: Option<String>,
    /// What the card's children are doing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Children>,
    /// The MCP App the result carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_app: Option<McpAppRef>,
    /// On a `session_info_update`: where the session is now (`ended`), as `session/list`'s
    /// entries say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// With `state: ended`: why, in the harness's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A call's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputState {
    /// More of it is coming.
    Streaming,
}

/// An MCP App's reference, for an editor that hosts apps.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpAppRef {
    /// The view's resource.
    pub resource_uri: String,
    /// The server that serves it.
    pub server_id: String,
}

/// `_meta.terminal_info`.
#[derive(Debug, Serialize)]
pub struct TerminalInfo {
    /// The terminal (the call's id).
    pub terminal_id: String,
    /// Where the command runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// `_meta.terminal_output`.
#[derive(Debug, Serialize)]
pub struct TerminalOutput {
    /// The terminal.
    pub terminal_id: String,
    /// Output to append.
    pub data: String,
}

/// `_meta.terminal_exit`.
#[derive(Debug, Serialize)]
pub struct TerminalExited {
    /// The terminal.
    pub terminal_id: String,
    /// The exit code, when the command exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// The signal, when one ended it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
}

impl AcpMeta {
    /// `_meta` with only toolview's keys.
    pub fn toolview(meta: ToolviewMeta) -> Self {
        AcpMeta {
            toolview: Some(meta),
            ..AcpMeta::default()
        }
    }

    /// The JSON object ACP's `meta` takes.
    pub fn into_map(self) -> serde_json::Map<String, serde_json::Value> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        }
    }
}
