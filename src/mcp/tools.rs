//! The MCP server's definitions, as rmcp's types: the server's description, its tools (each
//! input schema from its input type, `input.rs`), the view's resource and document, and the
//! structured contents of the tools' results.

use rmcp::model::{
    CacheScope, Implementation, ListResourcesResult, ListToolsResult, MetaObject,
    ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use serde::Serialize;
use serde_json::Value;

use super::input::{self, AnswerPermission, ListSessions, PollSession, WatchSession};
use crate::domain::MCP_APP_MIME_TYPE;
use crate::domain::permission::PermissionResolved;
use crate::grpc::pb;

/// The view: one document, the viewer's cards on the MCP Apps bridge (`web/src/mcp-app.ts`,
/// built by `npm run build` in `web/` into `web/dist/mcp-app.html`).
pub const VIEW_URI: &str = "ui://toolview/session";
const VIEW_HTML: &str = include_str!("../../web/dist/mcp-app.html");

/// How long a host may keep the tool and resource lists and the view's document (the 2026-07-28
/// revision asks for a freshness on them): they are the same for every token and change only
/// with the server's version, so a few minutes, not the upgrade's worth.
const LIST_TTL_MS: u64 = 300_000;

/// The tools, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    /// The sessions the token may read.
    ListSessions,
    /// A session: the transcript, and the view's first page.
    WatchSession,
    /// The view's next page (the app's only).
    PollSession,
    /// A person's answer from the view (the app's only).
    AnswerPermission,
}

impl Name {
    const ALL: [Name; 4] = [
        Name::ListSessions,
        Name::WatchSession,
        Name::PollSession,
        Name::AnswerPermission,
    ];

    /// The tool's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Name::ListSessions => "list_sessions",
            Name::WatchSession => "watch_session",
            Name::PollSession => "poll_session",
            Name::AnswerPermission => "answer_permission",
        }
    }

    /// The tool named `name`.
    pub fn parse(name: &str) -> Option<Name> {
        Name::ALL.into_iter().find(|n| n.as_str() == name)
    }
}

/// The view's `_meta.ui` on a tool: its resource, and who may call the tool.
#[derive(Serialize)]
struct ToolUi {
    #[serde(rename = "resourceUri")]
    resource_uri: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    visibility: Option<[&'static str; 1]>,
}

/// The view's `_meta.ui` on its resource: it reaches nothing but the host (every update comes
/// through the bridge), so its content security policy names no origin.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourceUi {
    csp: Csp,
    prefers_border: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Csp {
    connect_domains: [&'static str; 0],
    resource_domains: [&'static str; 0],
}

/// `_meta` holding `value` under `ui` (and, for a watching tool, the older `ui/resourceUri`).
fn meta(value: impl Serialize, legacy_uri: bool) -> MetaObject {
    let mut object = serde_json::Map::new();
    object.insert("ui".into(), serde_json::to_value(value).unwrap_or_default());
    if legacy_uri {
        object.insert("ui/resourceUri".into(), VIEW_URI.into());
    }
    MetaObject(object)
}

fn view_meta() -> MetaObject {
    let ui = ResourceUi {
        csp: Csp {
            connect_domains: [],
            resource_domains: [],
        },
        prefers_border: true,
    };
    meta(ui, false)
}

/// The server's description.
pub fn server_info() -> ServerConfig {
    let capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_resources()
        .build();
    let implementation =
        Implementation::new("toolview", env!("CARGO_PKG_VERSION")).with_title("toolview");
    ServerConfig::new(capabilities)
        .with_server_info(implementation)
        .with_instructions(
            "Shows AI-agent sessions published to a toolview server: list_sessions finds one, \
             watch_session shows its tool calls and conversation (live cards in a host with MCP \
             Apps, a Markdown transcript otherwise).",
        )
}

/// One tool's definition.
fn tool(name: Name) -> Tool {
    let read_only = ToolAnnotations::new().read_only(true).open_world(false);
    let app_only = || {
        let ui = ToolUi {
            resource_uri: VIEW_URI,
            visibility: Some(["app"]),
        };
        meta(ui, false)
    };
    let (title, description, schema, annotations, meta) = match name {
        Name::ListSessions => (
            "List agent sessions",
            "The agent sessions this server may read, in id order, with their titles, call counts and last update.",
            input::schema::<ListSessions>(),
            read_only,
            None,
        ),
        Name::WatchSession => (
            "Watch an agent session",
            "Shows an agent session's tool calls (commands with their output, diffs, reads, searches, fetches) and conversation, live. Without an app host: the session so far as Markdown.",
            input::schema::<WatchSession>(),
            read_only,
            Some(meta(
                ToolUi {
                    resource_uri: VIEW_URI,
                    visibility: None,
                },
                true,
            )),
        ),
        Name::PollSession => (
            "Next updates of a session",
            "For the session view: the updates after a cursor, waiting up to waitMs at the head.",
            input::schema::<PollSession>(),
            read_only,
            Some(app_only()),
        ),
        Name::AnswerPermission => (
            "Answer a permission request",
            "For the session view: a person's answer to a permission request (the option they clicked). Needs the token's approve right.",
            input::schema::<AnswerPermission>(),
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
            Some(app_only()),
        ),
    };
    let tool = Tool::new(name.as_str(), description, schema)
        .with_title(title)
        .with_annotations(annotations);
    match meta {
        Some(meta) => tool.with_meta(meta),
        None => tool,
    }
}

/// Every tool.
pub fn list() -> ListToolsResult {
    ListToolsResult::with_all_items(Name::ALL.into_iter().map(tool).collect())
        .with_ttl_ms(LIST_TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// The view's resource.
pub fn resources() -> ListResourcesResult {
    let mut resource = Resource::new(VIEW_URI, "session")
        .with_title("toolview session")
        .with_description("A session's cards, live.")
        .with_mime_type(MCP_APP_MIME_TYPE);
    resource.meta = Some(view_meta());
    ListResourcesResult::with_all_items(vec![resource])
        .with_ttl_ms(LIST_TTL_MS)
        .with_cache_scope(CacheScope::Public)
}

/// The view's document, if `uri` names it.
pub fn read(uri: &str) -> Option<ReadResourceResult> {
    (uri == VIEW_URI).then(|| {
        let contents = ResourceContents::TextResourceContents {
            uri: VIEW_URI.into(),
            mime_type: Some(MCP_APP_MIME_TYPE.into()),
            text: VIEW_HTML.into(),
            meta: Some(view_meta()),
        };
        ReadResourceResult::new(vec![contents])
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Public)
    })
}

/// `list_sessions`' structured content.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionsPage {
    /// The page's sessions.
    pub sessions: Vec<SessionRow>,
    /// The next page's token (empty at the end).
    pub next_page_token: String,
}

/// One session of a `list_sessions` page.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    /// Its id.
    pub session: String,
    /// Its title (empty before one is known).
    pub title: String,
    /// Its calls.
    pub calls: u64,
    /// Its last update, in milliseconds since the Unix epoch.
    pub updated_at_ms: Option<i64>,
    /// Where it is: `requires_action`, `running`, `failed`, `idle`, `ended` (`unknown` for a log older
    /// than summaries).
    pub state: &'static str,
    /// What it did last, on one line.
    pub activity: String,
    /// The oldest prompts waiting on a person (answer them with `answer_permission`).
    pub pending: Vec<PromptRow>,
}

/// A prompt waiting on a person, in a `list_sessions` row.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptRow {
    /// The request.
    pub request_id: String,
    /// Its question.
    pub title: String,
    /// The answers it offers: `optionId` and `name` each.
    pub options: Vec<OptionRow>,
}

/// One answer a prompt offers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionRow {
    /// What `answer_permission` takes.
    pub option_id: String,
    /// Its label.
    pub name: String,
}

fn session_row(s: &pb::GetSessionResponse) -> SessionRow {
    let summary = s.summary.clone().unwrap_or_default();
    let updated = s
        .updated_at
        .as_ref()
        .map(|t| t.seconds * 1000 + i64::from(t.nanos) / 1_000_000);
    SessionRow {
        session: s.session_id.clone(),
        title: s.title.clone(),
        calls: s.calls,
        updated_at_ms: updated,
        state: crate::grpc::convert::state_name(summary.state()),
        activity: summary.activity.clone(),
        pending: summary
            .pending
            .iter()
            .map(|p| PromptRow {
                request_id: p.request_id.clone(),
                title: p.title.clone(),
                options: p
                    .options
                    .iter()
                    .map(|o| OptionRow {
                        option_id: o.option_id.clone(),
                        name: o.name.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// `list_sessions`' text (a line per session) and structured content.
pub fn sessions_result(page: &pb::ListSessionsResponse) -> (String, SessionsPage) {
    let mut text = String::new();
    let sessions = page
        .sessions
        .iter()
        .map(|s| {
            let title = if s.title.is_empty() {
                "(no title yet)"
            } else {
                &s.title
            };
            let row = session_row(s);
            let waiting = row
                .pending
                .first()
                .map(|p| format!("; waiting: {}", p.title))
                .unwrap_or_default();
            text.push_str(&format!(
                "- {} — {} ({}, {} calls{waiting})\n",
                s.session_id, title, row.state, s.calls
            ));
            row
        })
        .collect::<Vec<_>>();
    if sessions.is_empty() {
        text.push_str("No sessions this server may read.\n");
    }
    let page = SessionsPage {
        sessions,
        next_page_token: page.next_page_token.clone(),
    };
    (text, page)
}

/// `answer_permission`'s structured content.
#[derive(Debug, Serialize)]
pub struct Decided {
    /// Whether this answer decided the request.
    pub won: bool,
    /// How the request was decided (by this answer or an earlier decision).
    pub resolution: Option<PermissionResolved>,
}

/// A value as structured content (what serde writes of our own types cannot fail).
pub fn structured(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or_default()
}
