//! The MCP server's definitions: its tools, the view's resource and document (the text a host
//! without apps shows is `transcript.rs`'s).

use rmcp::model::{
    ListResourcesResult, ListToolsResult, ProtocolVersion, ReadResourceResult, ServerConfig,
};
use serde_json::{Value, json};

use crate::domain::MCP_APP_MIME_TYPE;
use crate::grpc::pb;

/// The view: one document, the viewer's cards on the MCP Apps bridge (`web/src/mcp-app.ts`,
/// built by `npm run build` in `web/` into `web/dist/mcp-app.html`).
pub const VIEW_URI: &str = "ui://toolview/session";
const VIEW_HTML: &str = include_str!("../../../web/dist/mcp-app.html");

/// How long a host may keep the tool and resource lists and the view's document (the 2026-07-28
/// revision asks for a freshness on them): they are the same for every token and change only
/// with the server's version, so a few minutes, not the upgrade's worth.
const LIST_TTL_MS: u64 = 300_000;

pub const LIST_SESSIONS: &str = "list_sessions";
pub const WATCH_SESSION: &str = "watch_session";
pub const POLL_SESSION: &str = "poll_session";
pub const ANSWER_PERMISSION: &str = "answer_permission";

/// The view's metadata: it reaches nothing but the host (every update comes through the
/// bridge), so its content security policy names no origin.
fn view_meta() -> Value {
    json!({"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": true}})
}

pub fn server_info() -> ServerConfig {
    let info = json!({
        "protocolVersion": ProtocolVersion::default(),
        "capabilities": {"tools": {}, "resources": {}},
        "serverInfo": {"name": "toolview", "title": "toolview", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "Shows AI-agent sessions published to a toolview server: list_sessions \
            finds one, watch_session shows its tool calls and conversation (live cards in a host \
            with MCP Apps, a Markdown transcript otherwise).",
    });
    serde_json::from_value(info).expect("a valid InitializeResult")
}

pub fn list() -> ListToolsResult {
    let session = json!({"type": "string", "description": "The session id (`team-a/run-42`)."});
    let tools = json!({"resultType": "complete", "ttlMs": LIST_TTL_MS, "cacheScope": "public", "tools": [
        {
            "name": LIST_SESSIONS,
            "title": "List agent sessions",
            "description": "The agent sessions this server may read, in id order, with their titles, call counts and last update.",
            "inputSchema": {"type": "object", "properties": {
                "pageSize": {"type": "integer", "minimum": 1, "maximum": 200},
                "pageToken": {"type": "string", "description": "A previous page's nextPageToken."},
            }, "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
        },
        {
            "name": WATCH_SESSION,
            "title": "Watch an agent session",
            "description": "Shows an agent session's tool calls (commands with their output, diffs, reads, searches, fetches) and conversation, live. Without an app host: the session so far as Markdown.",
            "inputSchema": {"type": "object", "properties": {"session": session}, "required": ["session"], "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
            "_meta": {"ui": {"resourceUri": VIEW_URI}, "ui/resourceUri": VIEW_URI},
        },
        {
            "name": POLL_SESSION,
            "title": "Next updates of a session",
            "description": "For the session view: the updates after a cursor, waiting up to waitMs at the head.",
            "inputSchema": {"type": "object", "properties": {
                "session": session,
                "after": {
                    "description": "The cursor of the last update the view has: the page's `cursor`, or an update's own (its offset as text).",
                    "type": "object",
                    "properties": {"epoch": {"type": "string"}, "offset": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+$"}]}},
                    "required": ["epoch", "offset"],
                    "additionalProperties": false,
                },
                "waitMs": {"type": "integer", "minimum": 0, "maximum": super::MAX_POLL_WAIT.as_millis() as u64},
            }, "required": ["session"], "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
            "_meta": {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}},
        },
        {
            "name": ANSWER_PERMISSION,
            "title": "Answer a permission request",
            "description": "For the session view: a person's answer to a permission request (the option they clicked). Needs the token's approve right.",
            "inputSchema": {"type": "object", "properties": {
                "session": session,
                "requestId": {"type": "string"},
                "optionId": {"type": "string"},
            }, "required": ["session", "requestId", "optionId"], "additionalProperties": false},
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
            "_meta": {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}},
        },
    ]});
    serde_json::from_value(tools).expect("valid tools")
}

pub fn resources() -> ListResourcesResult {
    let resources = json!({"resultType": "complete", "ttlMs": LIST_TTL_MS, "cacheScope": "public", "resources": [{
        "uri": VIEW_URI,
        "name": "session",
        "title": "toolview session",
        "description": "A session's cards, live.",
        "mimeType": MCP_APP_MIME_TYPE,
        "_meta": view_meta(),
    }]});
    serde_json::from_value(resources).expect("valid resources")
}

pub fn read(uri: &str) -> Option<ReadResourceResult> {
    (uri == VIEW_URI).then(|| {
        let contents = json!({"resultType": "complete", "ttlMs": LIST_TTL_MS, "cacheScope": "public", "contents": [{
            "uri": VIEW_URI,
            "mimeType": MCP_APP_MIME_TYPE,
            "text": VIEW_HTML,
            "_meta": view_meta(),
        }]});
        serde_json::from_value(contents).expect("a valid resource")
    })
}

/// `list_sessions`' result: a line per session, and the page as structured content.
pub fn sessions_result(page: &pb::ListSessionsResponse) -> Value {
    let mut text = String::new();
    let sessions: Vec<Value> = page
        .sessions
        .iter()
        .map(|s| {
            let title = if s.title.is_empty() { "(no title yet)" } else { &s.title };
            text.push_str(&format!("- {} — {} ({} calls)\n", s.session_id, title, s.calls));
            let updated = s.updated_at.as_ref().map(|t| t.seconds * 1000 + i64::from(t.nanos) / 1_000_000);
            json!({"session": s.session_id, "title": s.title, "calls": s.calls, "updatedAtMs": updated})
        })
        .collect();
    if sessions.is_empty() {
        text.push_str("No sessions this server may read.\n");
    }
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"sessions": sessions, "nextPageToken": page.next_page_token},
    })
}
