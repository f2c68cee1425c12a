//! The MCP edge: toolview as an MCP server with an MCP App (MCP Apps, 2026-01-26). A host that
//! runs apps (Claude, ChatGPT, VS Code, Goose) shows a session's cards live in its
//! conversation; one that does not gets the session as a Markdown transcript.
//!
//! Tools: `list_sessions` (the sessions the caller may read, with titles), `watch_session` (its
//! result: the transcript as text, and the first page of VIEW updates as structured content for
//! the view, `ui://toolview/session`), and, visible to the app only (`visibility: ["app"]`),
//! `poll_session` (the page after a cursor, waiting at the head) and `answer_permission` (a
//! person's click on a permission prompt). Each acts with the caller's credentials: a view
//! asking for a session they do not cover gets the service's refusal, named by its code.
//!
//! One handler over a [`Backend`], two transports: the API port's `/mcp` (`http.rs`, this
//! service in process) and `toolview mcp` on stdio (`client::mcp`, a service over gRPC).
//! Files: `mod.rs` (the handler), `input.rs` (each tool's input type: its schema and its
//! parsing), `tools.rs` (the definitions and results as rmcp's types), `page.rs` (a page of VIEW
//! updates), `transcript.rs` (the Markdown a host without apps shows), `backend.rs`, `http.rs`.

mod backend;
mod http;
mod input;
mod page;
mod tools;
mod transcript;

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value};

pub use backend::{Backend, Item, Updates, view_capabilities};
pub use http::{PATH, routes};
pub use page::{MAX_PAGE_BYTES, MAX_PAGE_UPDATES, MAX_POLL_WAIT};
pub use tools::VIEW_URI;
pub use transcript::{MAX_TRANSCRIPT_BYTES, MAX_TRANSCRIPT_UPDATES, transcript};

use self::input::{AnswerPermission, ListSessions, PollSession, WatchSession, parse};
use self::page::read_page;
use self::tools::Name;
use crate::grpc::{code_name, pb};

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

/// One MCP request's tools, over its backend.
struct Call<B> {
    backend: B,
}

/// A tool's failure: a result the model (or the view) reads, not a protocol error.
fn failed(text: impl Into<String>) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
}

/// The service's refusal, named by its code as every surface names it (`PERMISSION_DENIED: …`).
fn refused(status: &tonic::Status) -> CallToolResponse {
    failed(format!(
        "{}: {}",
        code_name(status.code()),
        status.message()
    ))
}

/// A result: `text` for the model, `structured` for the view.
fn succeeded(text: impl Into<String>, structured: Value) -> CallToolResponse {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    CallToolResponse::Complete(result)
}

impl<B: Backend> Call<B> {
    async fn list_sessions(&self, input: ListSessions) -> CallToolResponse {
        let request = pb::ListSessionsRequest {
            page_size: input.page_size.unwrap_or(50),
            page_token: input.page_token.unwrap_or_default(),
            ..pb::ListSessionsRequest::default()
        };
        match self.backend.list_sessions(request).await {
            Ok(page) => {
                let (text, page) = tools::sessions_result(&page);
                succeeded(text, tools::structured(&page))
            }
            Err(status) => refused(&status),
        }
    }

    async fn watch_session(&self, input: WatchSession) -> CallToolResponse {
        let session = input.session.as_str();
        let page = match read_page(&self.backend, session, None, Duration::ZERO).await {
            Ok(page) => page,
            Err(status) => return refused(&status),
        };
        let transcript = transcript::transcript(&self.backend, session).await;
        succeeded(transcript, tools::structured(&page))
    }

    async fn poll_session(&self, input: PollSession) -> CallToolResponse {
        let after = match input.after.as_ref().map(input::After::cursor).transpose() {
            Ok(after) => after,
            Err(e) => return failed(e),
        };
        let wait = Duration::from_millis(input.wait_ms.unwrap_or(0));
        match read_page(&self.backend, &input.session, after, wait).await {
            Ok(page) => {
                let text = format!("{} updates", page.updates.len());
                succeeded(text, tools::structured(&page))
            }
            Err(status) => refused(&status),
        }
    }

    /// A person's answer from the view's prompt: the first answer wins, and everyone (this
    /// view too, through its next page) sees the decision.
    async fn answer_permission(&self, input: AnswerPermission) -> CallToolResponse {
        let request = pb::RespondPermissionRequest {
            session_id: input.session,
            request_id: input.request_id,
            option_id: input.option_id,
            reason: String::new(),
            via: "mcp-app".into(),
        };
        match self.backend.respond_permission(request).await {
            Ok(response) => {
                let resolution = response
                    .resolution
                    .and_then(|r| crate::grpc::convert::resolved_from_pb(r).ok());
                let text = match response.won {
                    true => "answered",
                    false => "another answer came first",
                };
                let decided = tools::Decided {
                    won: response.won,
                    resolution,
                };
                succeeded(text, tools::structured(&decided))
            }
            Err(status) => refused(&status),
        }
    }

    /// Calls tool `name` with `arguments`, parsed as its input type first.
    async fn call(&self, name: Name, arguments: Map<String, Value>) -> CallToolResponse {
        match name {
            Name::ListSessions => match parse(arguments) {
                Ok(input) => self.list_sessions(input).await,
                Err(e) => failed(e),
            },
            Name::WatchSession => match parse(arguments) {
                Ok(input) => self.watch_session(input).await,
                Err(e) => failed(e),
            },
            Name::PollSession => match parse(arguments) {
                Ok(input) => self.poll_session(input).await,
                Err(e) => failed(e),
            },
            Name::AnswerPermission => match parse(arguments) {
                Ok(input) => self.answer_permission(input).await,
                Err(e) => failed(e),
            },
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
        let Some(name) = Name::parse(&request.name) else {
            let message = format!("no tool {:?}", request.name);
            return Err(ErrorData::invalid_params(message, None));
        };
        let call = Call {
            backend: self.backend.for_request(&context),
        };
        Ok(call.call(name, request.arguments.unwrap_or_default()).await)
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
