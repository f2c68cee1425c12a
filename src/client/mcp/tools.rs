//! The MCP server's definitions: its tools, the view's resource and document, and the text a
//! host without apps shows (the session's Markdown transcript, bounded).

use std::io::Write;

use rmcp::model::{
    ListResourcesResult, ListToolsResult, ProtocolVersion, ReadResourceResult, ServerConfig,
};
use serde_json::{Value, json};

use tokio_stream::StreamExt as _;

use super::backend::Backend;
use crate::client::screen::{Mode, Screen, Style};
use crate::domain::MCP_APP_MIME_TYPE;
use crate::grpc::pb;
use crate::render::{Capabilities, ViewUpdate};

/// The view: one document, the viewer's cards on the MCP Apps bridge (`web/src/mcp-app.ts`,
/// built by `npm run build` in `web/` into `web/dist/mcp-app.html`).
pub const VIEW_URI: &str = "ui://toolview/session";
const VIEW_HTML: &str = include_str!("../../../web/dist/mcp-app.html");

/// The transcript a `watch_session` result carries as text, at most this many bytes (the
/// start of the session; the view, or `toolview tail`, shows the rest).
pub const MAX_TRANSCRIPT_BYTES: usize = 64 << 10;
/// …drawn from at most this many updates (a long session's transcript is cut, not read whole).
pub const MAX_TRANSCRIPT_UPDATES: usize = 5_000;
/// …read within this long.
const TRANSCRIPT_TIME: std::time::Duration = std::time::Duration::from_secs(10);

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
    let tools = json!({"tools": [
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
                "after": {"type": "object", "properties": {"epoch": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}}, "required": ["epoch", "offset"]},
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
    let resources = json!({"resources": [{
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
        let contents = json!({"contents": [{
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

/// Keeps the first `max` bytes written, and counts the rest.
struct Bounded {
    kept: Vec<u8>,
    max: usize,
    dropped: usize,
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = self.max.saturating_sub(self.kept.len()).min(buf.len());
        self.kept.extend_from_slice(&buf[..room]);
        self.dropped += buf.len() - room;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The session so far as Markdown (what `toolview tail --no-follow --target markdown` prints),
/// at most [`MAX_TRANSCRIPT_BYTES`] from its first [`MAX_TRANSCRIPT_UPDATES`] updates; a line
/// says what was left out, or why there is none.
pub async fn transcript(backend: &impl Backend, session: &str) -> String {
    let mut out = Bounded {
        kept: Vec::new(),
        max: MAX_TRANSCRIPT_BYTES,
        dropped: 0,
    };
    let read = match markdown(backend, session, &mut out).await {
        Ok(read) => read,
        Err(status) => return format!("The session could not be read: {}", status.message()),
    };
    let mut text = String::from_utf8_lossy(&out.kept).into_owned();
    if out.dropped > 0 || read == Read::Cut {
        // A cut inside a character became U+FFFD above; the note says what is missing.
        text.push_str(&format!(
            "\n\n… more of the session: watch it in an app host, or `toolview tail --session {session}`.\n"
        ));
    }
    if text.trim().is_empty() {
        text = format!("Session {session} has no events yet.");
    }
    text
}

/// Whether a transcript holds the whole session.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    Whole,
    Cut,
}

/// The session's VIEW updates up to its head, drawn by the Markdown transcript's `Screen`.
async fn markdown(
    backend: &impl Backend,
    session: &str,
    out: &mut Bounded,
) -> Result<Read, tonic::Status> {
    let head = match backend
        .get_session(pb::GetSessionRequest {
            session_id: session.into(),
        })
        .await
    {
        Ok(info) => info.head_offset,
        Err(status) if status.code() == tonic::Code::NotFound => return Ok(Read::Whole),
        Err(status) => return Err(status),
    };
    let request = pb::SubscribeRequest {
        session_id: session.into(),
        target: pb::Target::View.into(),
        capabilities: Some(super::page::capabilities()),
        start: Some(pb::subscribe_request::Start::FromBeginning(
            pb::StartFromBeginning {},
        )),
    };
    let mut stream = backend.subscribe(request).await?;
    let caps = Capabilities {
        output_appends: true,
        ..Capabilities::all(true)
    };
    let mut screen = Screen::new(Style::Markdown, Mode::Transcript, caps);
    let deadline = tokio::time::Instant::now() + TRANSCRIPT_TIME;
    let mut read = Read::Cut;
    for _ in 0..MAX_TRANSCRIPT_UPDATES {
        let Ok(Some(item)) = tokio::time::timeout_at(deadline, stream.next()).await else {
            break;
        };
        let Some(pb::subscribe_response::Item::Update(u)) = item?.item else {
            // A heartbeat: nothing more up to the head.
            read = Read::Whole;
            break;
        };
        let offset = u.cursor.as_ref().map_or(0, |c| c.offset);
        if let Some(pb::rendered_update::Body::View(v)) = u.body
            && let Ok(update) = ViewUpdate::try_from(v)
        {
            let _ = screen.apply(update, out);
        }
        if offset >= head {
            read = Read::Whole;
            break;
        }
    }
    let _ = screen.finish(out);
    Ok(read)
}
