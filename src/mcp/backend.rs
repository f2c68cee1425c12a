//! What the MCP server needs of a toolview service — sessions described, listed and followed as
//! VIEW updates, permission requests answered — as one trait, so one handler serves both
//! transports: `toolview mcp` on stdio reaches a service over gRPC with its token
//! (`client::mcp`), and the service's own `/mcp` reaches its sessions in process with each
//! request's bearer (`http.rs`). Updates come as the render layer's own [`Rendered`] values:
//! in process they are the lanes' updates themselves, never bytes read back.

use std::future::Future;
use std::pin::Pin;

use rmcp::service::{RequestContext, RoleServer};
use tokio_stream::Stream;
use tonic::Status;

use crate::domain::Cursor;
use crate::grpc::pb;
use crate::render::{Capabilities, Rendered};

/// One item of a session's VIEW updates.
#[derive(Debug)]
pub enum Item {
    /// An update and where it is.
    Update {
        /// Its cursor.
        cursor: Cursor,
        /// The update (a VIEW body).
        rendered: Rendered,
    },
    /// The cursor asked for is not usable (the log was trimmed or replaced): the updates that
    /// follow are the log from its beginning, up to `head`.
    Reset {
        /// The log's head offset.
        head: u64,
    },
    /// Idle: everything up to the head was delivered.
    Heartbeat,
}

/// A subscription's items.
pub type Updates = Pin<Box<dyn Stream<Item = Result<Item, Status>> + Send>>;

/// What a VIEW subscriber that draws every card asks for (the viewer's capabilities).
pub fn view_capabilities() -> Capabilities {
    Capabilities {
        terminal: true,
        diff: true,
        read: true,
        search: true,
        web: true,
        output_appends: true,
        reasoning: true,
        ..Capabilities::default()
    }
}

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
    /// The session's VIEW updates with [`view_capabilities`], after `after` (from its beginning
    /// without one), then live.
    fn view(
        &self,
        session: &str,
        after: Option<&Cursor>,
    ) -> impl Future<Output = Result<Updates, Status>> + Send;
    /// `PermissionService.RespondPermission`.
    fn respond_permission(
        &self,
        request: pb::RespondPermissionRequest,
    ) -> impl Future<Output = Result<pb::RespondPermissionResponse, Status>> + Send;
}
