//! `PermissionService`: answers, awaits and withdrawals of permission requests, over the session
//! layer (docs/approvals.md).

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::auth::access;
use super::pb::{self, permission_service_server::PermissionService};
use crate::auth::{Authenticator, Right};
use crate::domain::FieldViolation;
use crate::domain::SessionId;
use crate::domain::permission::{RequestId, Responder, surface};
use crate::error::Error;
use crate::metrics::AnswerResult;
use crate::session::{Decided, Sessions};

/// The `PermissionService` implementation.
#[derive(Clone)]
pub struct PermissionApi {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
}

impl PermissionApi {
    /// Requests are checked by `auth`.
    pub fn new(sessions: Arc<Sessions>, auth: Arc<Authenticator>) -> Self {
        PermissionApi { sessions, auth }
    }
}

fn session_id(s: String) -> Result<SessionId, Error> {
    SessionId::new(s).map_err(|e| Error::invalid(FieldViolation::new("session_id", e)))
}

fn parse_request_id(s: String) -> Result<RequestId, Error> {
    RequestId::new(s).map_err(|e| Error::invalid(FieldViolation::new("request_id", e)))
}

fn decided(d: Decided) -> (bool, Option<pb::PermissionResolved>) {
    (d.won, Some(d.resolution.into()))
}

#[tonic::async_trait]
impl PermissionService for PermissionApi {
    async fn respond_permission(
        &self,
        req: Request<pb::RespondPermissionRequest>,
    ) -> Result<Response<pb::RespondPermissionResponse>, Status> {
        let metrics = self.sessions.metrics().clone();
        let access = access(&self.auth, req.metadata())?;
        let pb::RespondPermissionRequest {
            session_id: id,
            request_id,
            option_id,
            reason,
            via: via_text,
        } = req.into_inner();
        let refused = |e: Error| {
            metrics.permission_answer(AnswerResult::refused);
            e
        };
        let id = session_id(id).map_err(refused)?;
        access.require(Right::Approve, &id).map_err(refused)?;
        let request = parse_request_id(request_id).map_err(refused)?;
        let by = Responder {
            subject: access.subject().to_owned(),
            via: surface(&via_text, "grpc"),
        };
        let d = self
            .sessions
            .respond_permission(&id, &request, &option_id, &reason, by)
            .await
            .map_err(|e| refused(Error::from(e)))?;
        metrics.permission_answer(if d.won {
            AnswerResult::won
        } else {
            AnswerResult::lost
        });
        let (won, resolution) = decided(d);
        Ok(Response::new(pb::RespondPermissionResponse {
            won,
            resolution,
        }))
    }

    async fn await_permission(
        &self,
        req: Request<pb::AwaitPermissionRequest>,
    ) -> Result<Response<pb::AwaitPermissionResponse>, Status> {
        let access = access(&self.auth, req.metadata())?;
        let pb::AwaitPermissionRequest {
            session_id: id,
            request_id,
        } = req.into_inner();
        let id = session_id(id)?;
        access.require(Right::Publish, &id)?;
        let request = parse_request_id(request_id)?;
        let resolution = self
            .sessions
            .await_permission(&id, &request)
            .await
            .map_err(Error::from)?;
        Ok(Response::new(pb::AwaitPermissionResponse {
            resolution: Some(resolution.into()),
        }))
    }

    async fn withdraw_permission(
        &self,
        req: Request<pb::WithdrawPermissionRequest>,
    ) -> Result<Response<pb::WithdrawPermissionResponse>, Status> {
        let access = access(&self.auth, req.metadata())?;
        let pb::WithdrawPermissionRequest {
            session_id: id,
            request_id,
            reason,
        } = req.into_inner();
        let id = session_id(id)?;
        access.require(Right::Publish, &id)?;
        let request = parse_request_id(request_id)?;
        let by = Responder {
            subject: access.subject().to_owned(),
            via: "harness".into(),
        };
        let d = self
            .sessions
            .withdraw_permission(&id, &request, &reason, by)
            .await
            .map_err(Error::from)?;
        let (won, resolution) = decided(d);
        Ok(Response::new(pb::WithdrawPermissionResponse {
            won,
            resolution,
        }))
    }
}
