//! `/mcp` on the API port: MCP's streamable HTTP, for hosts that reach MCP servers over the
//! network (ChatGPT's developer mode, remote connectors). The same handler as `toolview mcp`,
//! over this service in process with each request's `Authorization` header: a host can do no
//! more than its bearer may, exactly as over gRPC, and a request without a valid one is `401`
//! before MCP reads it. Stateless (no MCP session is kept between requests), so a host costs
//! nothing between its calls; the `Host` and `Origin` checks and the body limit
//! (`--max-message-size`) are the API port's.

use std::sync::Arc;

use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_stream::StreamExt as _;
use tonic::Status;
use tonic::metadata::{Ascii, MetadataValue};

use super::Toolview;
use super::backend::{Backend, Item, Updates, view_capabilities};
use crate::auth::{Authenticator, Right};
use crate::domain::FieldViolation;
use crate::domain::{Cursor, SessionId};
use crate::error::Error;
use crate::grpc::pb::{
    self, permission_service_server::PermissionService, session_service_server::SessionService,
};
use crate::grpc::{PermissionApi, SessionApi};
use crate::render::Target;
use crate::session::{Sessions, Start, SubscribeItem};

/// Where the MCP server answers.
pub const PATH: &str = "/mcp";

/// This service, in process, with one request's bearer: the API's own handlers for the calls
/// that answer once (their rules are the API's), the session layer's subscription for updates
/// (the lanes' typed updates).
#[derive(Clone)]
struct InProcess {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    session_api: SessionApi,
    permissions: PermissionApi,
    authorization: Option<MetadataValue<Ascii>>,
}

impl InProcess {
    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(value) = &self.authorization {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        request
    }
}

impl Backend for InProcess {
    fn for_request(&self, context: &RequestContext<RoleServer>) -> Self {
        let authorization = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.headers.get(http::header::AUTHORIZATION))
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse().ok());
        InProcess {
            authorization,
            ..self.clone()
        }
    }

    async fn get_session(
        &self,
        request: pb::GetSessionRequest,
    ) -> Result<pb::GetSessionResponse, Status> {
        let response =
            SessionService::get_session(&self.session_api, self.request(request)).await?;
        Ok(response.into_inner())
    }

    async fn list_sessions(
        &self,
        request: pb::ListSessionsRequest,
    ) -> Result<pb::ListSessionsResponse, Status> {
        let response =
            SessionService::list_sessions(&self.session_api, self.request(request)).await?;
        Ok(response.into_inner())
    }

    async fn view(&self, session: &str, after: Option<&Cursor>) -> Result<Updates, Status> {
        let bearer = self.authorization.as_ref().and_then(|v| v.to_str().ok());
        let access = self.auth.authenticate(bearer)?;
        let id = SessionId::new(session)
            .map_err(|e| Error::invalid(FieldViolation::new("session", e)))?;
        access.require(Right::Subscribe, &id)?;
        let start = after.map_or(Start::FromBeginning, |a| Start::After(a.clone()));
        let caps = view_capabilities();
        let stream = self.sessions.subscribe(&id, Target::View, caps, start);
        Ok(Box::pin(stream.map(|item| {
            Ok(match item.map_err(|e| Status::from(Error::from(e)))? {
                SubscribeItem::Update { delivered, cursor } => Item::Update {
                    cursor,
                    rendered: delivered.rendered.clone(),
                },
                SubscribeItem::Heartbeat { .. } => Item::Heartbeat,
                SubscribeItem::Reset { head, .. } => Item::Reset { head },
            })
        })))
    }

    async fn respond_permission(
        &self,
        request: pb::RespondPermissionRequest,
    ) -> Result<pb::RespondPermissionResponse, Status> {
        let response =
            PermissionService::respond_permission(&self.permissions, self.request(request)).await?;
        Ok(response.into_inner())
    }
}

/// `/mcp`, over `sessions`, checking callers with `auth`.
pub fn routes(
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    max_message_size: usize,
) -> axum::Router {
    let backend = InProcess {
        session_api: SessionApi::new(sessions.clone(), auth.clone(), max_message_size),
        permissions: PermissionApi::new(sessions.clone(), auth.clone()),
        sessions,
        auth: auth.clone(),
        authorization: None,
    };
    // The API port checks the `Host` of every request a browser could send (`web::check_host`),
    // with the operator's --allowed-host names; rmcp's own loopback-only list would refuse them.
    // rmcp reads the body itself, up to the service's message size (its own default is 4 MiB):
    // past it, chunked or not, it answers 413, made the API's JSON refusal below.
    let config = StreamableHttpServerConfig::default()
        .with_json_response(true)
        .with_legacy_session_mode(false)
        .with_max_request_body_bytes(max_message_size)
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(
        move || Ok(Toolview::new(backend.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new()
        .route_service(PATH, service)
        .layer(axum::middleware::from_fn_with_state(
            max_message_size,
            too_large,
        ))
        .layer(axum::middleware::from_fn_with_state(auth, authenticated))
}

/// A body over the message size is `413` with the API's JSON refusal, as on every endpoint:
/// refused by its `Content-Length` before rmcp reads it, and rmcp's own plain-text 413 (a
/// chunked body that grew past it) replaced.
async fn too_large(
    axum::extract::State(max): axum::extract::State<usize>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let refusal = || {
        crate::http::refusal(crate::error::Error::TooLarge(
            format!("request body: over the limit of {max} bytes (--max-message-size)").into(),
        ))
    };
    let declared = request
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return refusal();
    }
    let response = next.run(request).await;
    match response.status() {
        http::StatusCode::PAYLOAD_TOO_LARGE => refusal(),
        _ => response,
    }
}

/// A request without a valid bearer (when the server asks for one) is refused before MCP reads
/// it: `401`, as every other HTTP endpoint answers.
async fn authenticated(
    axum::extract::State(auth): axum::extract::State<Arc<Authenticator>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    match crate::http::authenticate(&auth, request.headers()) {
        Ok(_) => next.run(request).await,
        Err(e) => crate::http::refusal(e),
    }
}
