//! What the MCP server needs of a toolview service — sessions described, listed and subscribed
//! to, permission requests answered — as one trait, so one handler serves both transports:
//! `toolview mcp` on stdio reaches a service over gRPC with its token ([`RemoteBackend`]), and the
//! service's own `/mcp` calls its gRPC services in process with each request's bearer
//! (`app::mcp`).

use std::future::Future;
use std::pin::Pin;

use rmcp::service::{RequestContext, RoleServer};
use tokio_stream::{Stream, StreamExt as _};
use tonic::Status;

use crate::client::remote::{Bearer, Client, Remote, bearer, channel, connect};
use crate::grpc::pb::{self, permission_service_client::PermissionServiceClient};

/// A subscription's items.
pub type Updates = Pin<Box<dyn Stream<Item = Result<pb::SubscribeResponse, Status>> + Send>>;

/// A toolview service, as the MCP server uses it.
pub trait Backend: Clone + Send + Sync + 'static {
    /// The backend for one MCP request: the same one, or (in process) one with the request's
    /// credentials.
    fn for_request(&self, context: &RequestContext<RoleServer>) -> Self;
    /// `SessionService.GetSession`.
    fn get_session(
        &self,
        request: pb::GetSessionRequest,
    ) -> impl Future<Output = Result<pb::GetSessionResponse, Status>> + Send;
    /// `SessionService.ListSessions`.
    fn list_sessions(
        &self,
        request: pb::ListSessionsRequest,
    ) -> impl Future<Output = Result<pb::ListSessionsResponse, Status>> + Send;
    /// `SessionService.Subscribe`.
    fn subscribe(
        &self,
        request: pb::SubscribeRequest,
    ) -> impl Future<Output = Result<Updates, Status>> + Send;
    /// `PermissionService.RespondPermission`.
    fn respond_permission(
        &self,
        request: pb::RespondPermissionRequest,
    ) -> impl Future<Output = Result<pb::RespondPermissionResponse, Status>> + Send;
}

/// A service reached over gRPC with one token (`toolview mcp`).
#[derive(Clone)]
pub struct RemoteBackend {
    sessions: Client,
    permissions: PermissionServiceClient<
        tonic::service::interceptor::InterceptedService<tonic::transport::Channel, Bearer>,
    >,
}

impl RemoteBackend {
    /// Connects to `remote`.
    pub async fn connect(remote: &Remote) -> anyhow::Result<Self> {
        Ok(RemoteBackend {
            sessions: connect(remote).await?,
            permissions: PermissionServiceClient::with_interceptor(
                channel(remote).await?,
                bearer(remote)?,
            ),
        })
    }
}

impl Backend for RemoteBackend {
    fn for_request(&self, _context: &RequestContext<RoleServer>) -> Self {
        self.clone()
    }

    async fn get_session(
        &self,
        request: pb::GetSessionRequest,
    ) -> Result<pb::GetSessionResponse, Status> {
        let mut c = self.sessions.clone();
        Ok(c.get_session(request).await?.into_inner())
    }

    async fn list_sessions(
        &self,
        request: pb::ListSessionsRequest,
    ) -> Result<pb::ListSessionsResponse, Status> {
        let mut c = self.sessions.clone();
        Ok(c.list_sessions(request).await?.into_inner())
    }

    async fn subscribe(&self, request: pb::SubscribeRequest) -> Result<Updates, Status> {
        let mut c = self.sessions.clone();
        let stream = c.subscribe(request).await?.into_inner();
        Ok(Box::pin(stream.map(|item| item)))
    }

    async fn respond_permission(
        &self,
        request: pb::RespondPermissionRequest,
    ) -> Result<pb::RespondPermissionResponse, Status> {
        let mut c = self.permissions.clone();
        Ok(c.respond_permission(request).await?.into_inner())
    }
}
