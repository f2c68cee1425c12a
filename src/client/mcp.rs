//! `toolview mcp`: the MCP edge's server (`crate::mcp`) on stdin and stdout, over a toolview
//! service reached with gRPC and one token (`--server`, `--token`): a client of the service like
//! `tail`, so a host can do no more than the token may.

use tokio_stream::StreamExt as _;
use tonic::Status;

use super::remote::{Bearer, Client, Remote, bearer, channel, connect};
use crate::domain::{CallId, Cursor, MessageId, Subject};
use crate::grpc::pb::{
    self, permission_service_client::PermissionServiceClient, subscribe_request::Start,
    subscribe_response::Item as PbItem,
};
use crate::mcp::{Backend, Item, Toolview, Updates, view_capabilities};
use crate::render::{Body, Rendered, Target, ViewUpdate};

/// Serves MCP on stdin and stdout until the host closes them.
pub async fn serve_stdio(remote: Remote) -> anyhow::Result<()> {
    use rmcp::ServiceExt as _;
    let backend = RemoteBackend::connect(&remote).await?;
    let server = Toolview::new(backend)
        .serve(rmcp::transport::stdio())
        .await?;
    server.waiting().await?;
    Ok(())
}

/// A service reached over gRPC with one token.
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
    fn for_request(
        &self,
        _context: &rmcp::service::RequestContext<rmcp::service::RoleServer>,
    ) -> Self {
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

    async fn view(&self, session: &str, after: Option<&Cursor>) -> Result<Updates, Status> {
        let start = match after {
            Some(a) => Start::After(a.clone().into()),
            None => Start::FromBeginning(pb::StartFromBeginning {}),
        };
        let request = pb::SubscribeRequest {
            session_id: session.into(),
            target: pb::Target::from(Target::View).into(),
            capabilities: Some(view_capabilities().into()),
            start: Some(start),
        };
        let mut c = self.sessions.clone();
        let stream = c.subscribe(request).await?.into_inner();
        Ok(Box::pin(stream.filter_map(|item| match item {
            Ok(response) => item_from_pb(response.item?).map(Ok),
            Err(status) => Some(Err(status)),
        })))
    }

    async fn respond_permission(
        &self,
        request: pb::RespondPermissionRequest,
    ) -> Result<pb::RespondPermissionResponse, Status> {
        let mut c = self.permissions.clone();
        Ok(c.respond_permission(request).await?.into_inner())
    }
}

/// A stream item as the MCP edge reads it; a VIEW update the server sent malformed is left out
/// (as `tail` leaves it out).
fn item_from_pb(item: PbItem) -> Option<Item> {
    Some(match item {
        PbItem::Update(update) => {
            let cursor = Cursor::try_from(update.cursor?).ok()?;
            let Some(pb::rendered_update::Body::View(view)) = update.body else {
                return None;
            };
            let subject = match (update.call_id.is_empty(), update.message_id.is_empty()) {
                (false, _) => CallId::new(update.call_id).ok().map(Subject::Call),
                (true, false) => MessageId::new(update.message_id).ok().map(Subject::Message),
                (true, true) => None,
            };
            let rendered = Rendered {
                subject,
                body: Body::View(ViewUpdate::try_from(view).ok()?),
            };
            Item::Update { cursor, rendered }
        }
        PbItem::Reset(reset) => Item::Reset {
            head: reset.head_offset,
        },
        PbItem::Heartbeat(_) => Item::Heartbeat,
    })
}
