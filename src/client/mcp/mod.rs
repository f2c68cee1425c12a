//! `toolview mcp`: toolview as an MCP server on stdio, with an MCP App (MCP Apps, 2026-01-26):
//! a host that runs apps (Claude, ChatGPT, VS Code, Goose) shows a session's cards live in its
//! conversation; one that does not gets the session as a Markdown transcript.
//!
//! Tools: `list_sessions` (the sessions the token may read, with titles), `watch_session` (its
//! result: the transcript as text, and the first page of VIEW updates as structured content for
//! the view, `ui://toolview/session`), and `poll_session`, visible to the app only (`visibility:
//! ["app"]`): the page after a cursor, waiting at the head (`page.rs`), and `answer_permission`,
//! also the app's only: a person's click on a permission prompt. The server acts with the
//! token it was started with (`--token`): a view asking for a session the token does not cover
//! gets the server's refusal. Files: `mod.rs` (the handler), `page.rs`, `tools.rs` (the tools'
//! and the resource's definitions, the view's document).

mod args;
mod backend;
mod page;
mod tools;
mod transcript;

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt as _};
use serde_json::{Map, Value, json};

pub use backend::{Backend, RemoteBackend, Updates};
pub use page::{MAX_PAGE_BYTES, MAX_PAGE_UPDATES, MAX_POLL_WAIT};
pub use tools::VIEW_URI;
pub use transcript::{MAX_TRANSCRIPT_BYTES, MAX_TRANSCRIPT_UPDATES, transcript};

use self::args::Args;
use self::page::read_page;
use crate::client::remote::Remote;

/// The MCP server over a toolview service (`backend`).
#[derive(Clone)]
pub struct Toolview<B> {
    backend: B,
}

impl<B: Backend> Toolview<B> {
    /// The server over `backend`.
    pub fn new(backend: B) -> Self {
        Toolview { backend }
    }
}

/// Serves MCP on stdin and stdout until the host closes them.
pub async fn serve_stdio(remote: Remote) -> anyhow::Result<()> {
    let backend = RemoteBackend::connect(&remote).await?;
    let server = Toolview::new(backend)
        .serve(rmcp::transport::stdio())
        .await?;
    server.waiting().await?;
    Ok(())
}

/// One MCP request's tools, over its backend.
struct Call<B> {
    backend: B,
}

/// A tool's failure: a result the model (or the view) reads, not a protocol error.
fn failed(text: impl Into<String>) -> CallToolResponse {
    let text: String = text.into();
    result(json!({"content": [{"type": "text", "text": text}], "isError": true}))
}

fn refused(status: &tonic::Status) -> CallToolResponse {
    failed(format!("{:?}: {}", status.code(), status.message()))
}

/// A result from JSON (rmcp's types are non-exhaustive; MCP's JSON is the contract), marked
/// `resultType: complete`, which the 2026-07-28 revision requires on every result (rmcp strips
/// it for a peer that negotiated an older one).
fn result(mut value: Value) -> CallToolResponse {
    if let Some(object) = value.as_object_mut() {
        object.insert("resultType".into(), json!("complete"));
    }
    match serde_json::from_value::<CallToolResult>(value) {
        Ok(r) => CallToolResponse::Complete(r),
        Err(e) => CallToolResponse::Complete(CallToolResult::error(vec![
            rmcp::model::ContentBlock::text(format!("internal: {e}")),
        ])),
    }
}

impl<B: Backend> Call<B> {
    async fn list_sessions(&self, args: &Map<String, Value>) -> CallToolResponse {
        let checked = Args::new(args, &["pageSize", "pageToken"])
            .and_then(|a| Ok((a.integer("pageSize", 1..=200)?, a.string("pageToken")?)));
        let (page_size, page_token) = match checked {
            Ok(checked) => checked,
            Err(e) => return failed(e),
        };
        let request = crate::grpc::pb::ListSessionsRequest {
            page_size: page_size.unwrap_or(50) as u32,
            page_token: page_token.unwrap_or("").into(),
        };
        match self.backend.list_sessions(request).await {
            Ok(page) => result(tools::sessions_result(&page)),
            Err(status) => refused(&status),
        }
    }

    async fn watch_session(&self, args: &Map<String, Value>) -> CallToolResponse {
        let session = match Args::new(args, &["session"]).and_then(|a| a.required("session")) {
            Ok(s) => s,
            Err(e) => return failed(e),
        };
        let page = match read_page(&self.backend, session, None, Duration::ZERO).await {
            Ok(page) => page,
            Err(status) => return refused(&status),
        };
        let transcript = transcript::transcript(&self.backend, session).await;
        result(json!({
            "content": [{"type": "text", "text": transcript}],
            "structuredContent": page.to_json(session),
        }))
    }

    async fn poll_session(&self, args: &Map<String, Value>) -> CallToolResponse {
        let most = MAX_POLL_WAIT.as_millis() as u64;
        let checked = Args::new(args, &["session", "after", "waitMs"]).and_then(|a| {
            Ok((
                a.required("session")?,
                a.after()?,
                a.integer("waitMs", 0..=most)?,
            ))
        });
        let (session, after, wait) = match checked {
            Ok(checked) => checked,
            Err(e) => return failed(e),
        };
        let wait = Duration::from_millis(wait.unwrap_or(0));
        match read_page(&self.backend, session, after, wait).await {
            Ok(page) => {
                let n = page.updates.len();
                result(json!({
                    "content": [{"type": "text", "text": format!("{n} updates")}],
                    "structuredContent": page.to_json(session),
                }))
            }
            Err(status) => refused(&status),
        }
    }
}

impl<B: Backend> Call<B> {
    /// A person's answer from the view's prompt: the first answer wins, and everyone (this
    /// view too, through its next page) sees the decision.
    async fn answer_permission(&self, args: &Map<String, Value>) -> CallToolResponse {
        let checked = Args::new(args, &["session", "requestId", "optionId"]).and_then(|a| {
            Ok((
                a.required("session")?,
                a.required("requestId")?,
                a.required("optionId")?,
            ))
        });
        let (session, request, option) = match checked {
            Ok(checked) => checked,
            Err(e) => return failed(e),
        };
        let request = crate::grpc::pb::RespondPermissionRequest {
            session_id: session.into(),
            request_id: request.into(),
            option_id: option.into(),
            reason: String::new(),
            via: "mcp-app".into(),
        };
        match self.backend.respond_permission(request).await {
            Ok(response) => {
                let resolution = response
                    .resolution
                    .and_then(|r| crate::grpc::convert::resolved_from_pb(r).ok());
                let text = if response.won {
                    "answered"
                } else {
                    "another answer came first"
                };
                let decided = json!({"won": response.won, "resolution": resolution});
                result(
                    json!({"content": [{"type": "text", "text": text}], "structuredContent": decided}),
                )
            }
            Err(status) => refused(&status),
        }
    }
}

impl<B: Backend> ServerHandler for Toolview<B> {
    fn get_info(&self) -> ServerConfig {
        tools::server_info()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(tools::list())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        let call = Call {
            backend: self.backend.for_request(&context),
        };
        Ok(match request.name.as_ref() {
            tools::LIST_SESSIONS => call.list_sessions(&args).await,
            tools::WATCH_SESSION => call.watch_session(&args).await,
            tools::POLL_SESSION => call.poll_session(&args).await,
            tools::ANSWER_PERMISSION => call.answer_permission(&args).await,
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool {other:?}"),
                    None,
                ));
            }
        })
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(tools::resources())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match tools::read(&request.uri) {
            Some(r) => Ok(ReadResourceResponse::Complete(r)),
            None => Err(ErrorData::resource_not_found(
                format!("no resource {:?} (the view is {VIEW_URI})", request.uri),
                None,
            )),
        }
    }
}
