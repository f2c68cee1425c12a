//! `SessionService`: thin handlers over the session layer.

use std::pin::Pin;
use std::sync::Arc;

use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use super::auth::{Expiring, access};
use super::convert::{CursorError, events_from_pb, millis, rendered_update, target_from_pb};
use super::listing::{describe, list_filter, page_size};
use super::pb::{self, session_service_server::SessionService};
use super::status::check_size;
use super::wire;
use crate::auth::{Authenticator, Right};
use crate::domain::{FieldViolation, SessionId, Violation};
use crate::error::Error;
use crate::session::{LIST_SCAN_PER_PAGE, ListFilter, Sessions, Start, SubscribeItem};

/// The `SessionService` implementation.
#[derive(Clone)]
pub struct SessionApi {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    max_message_size: usize,
}

impl SessionApi {
    /// Requests are checked by `auth` and stay within `max_message_size`.
    pub fn new(sessions: Arc<Sessions>, auth: Arc<Authenticator>, max_message_size: usize) -> Self {
        SessionApi {
            sessions,
            auth,
            max_message_size,
        }
    }
}

fn session_id(s: String) -> Result<SessionId, Error> {
    SessionId::new(s).map_err(|e| Error::invalid(FieldViolation::new("session_id", e)))
}

/// Names the session on the call's span (`app::observe` logs it with the call's status). For a
/// batch, the first event's session.
fn record_session(id: &SessionId) {
    tracing::Span::current().record("session_id", id.as_str());
}

type UpdateStream = Pin<Box<dyn Stream<Item = Result<pb::SubscribeResponse, Status>> + Send>>;

#[tonic::async_trait]
impl SessionService for SessionApi {
    async fn publish(
        &self,
        req: Request<pb::PublishRequest>,
    ) -> Result<Response<pb::PublishResponse>, Status> {
        let access = access(&self.auth, req.metadata())?;
        check_size(req.get_ref(), self.max_message_size)?;
        let pb::PublishRequest { events } = req.into_inner();
        let events = events_from_pb(events).map_err(Error::invalid)?;
        // Every session of the batch (Mercure's rule), before any is looked at.
        for (i, event) in events.iter().enumerate() {
            access
                .require(Right::Publish, &event.session_id)
                .map_err(|e| match e {
                    Error::PermissionDenied(m) => {
                        Error::PermissionDenied(format!("events[{i}]: {m}").into())
                    }
                    other => other,
                })?;
        }
        if let Some(first) = events.first() {
            record_session(&first.session_id);
        }
        let acks = self
            .sessions
            .publish_from_harness(events)
            .await
            .map_err(Error::from)?;
        let acks = acks
            .into_iter()
            .map(|a| pb::PublishAck {
                event_id: a.event_id.to_string(),
                cursor: Some(a.cursor.into()),
                duplicate: a.duplicate,
            })
            .collect();
        Ok(Response::new(pb::PublishResponse { acks }))
    }

    type WatchSessionsStream = super::fleet::FleetStream;

    async fn watch_sessions(
        &self,
        req: Request<pb::WatchSessionsRequest>,
    ) -> Result<Response<Self::WatchSessionsStream>, Status> {
        let access = access(&self.auth, req.metadata())?;
        Ok(Response::new(super::fleet::watch(
            &self.sessions,
            access,
            req.into_inner(),
        )?))
    }

    type SubscribeStream = UpdateStream;

    async fn subscribe(
        &self,
        req: Request<pb::SubscribeRequest>,
    ) -> Result<Response<Self::SubscribeStream>, Status> {
        use pb::subscribe_request::Start as S;
        let access = access(&self.auth, req.metadata())?;
        let pb::SubscribeRequest {
            session_id: id,
            target,
            capabilities,
            start,
        } = req.into_inner();
        let id = session_id(id)?;
        record_session(&id);
        access.require(Right::Subscribe, &id)?;
        let target = target_from_pb(target).map_err(Error::invalid)?;
        let caps = capabilities.map(Into::into).unwrap_or_default();
        let start =
            match start.ok_or_else(|| Error::invalid(FieldViolation::new("start", "not set")))? {
                S::FromBeginning(pb::StartFromBeginning {}) => Start::FromBeginning,
                S::LiveOnly(pb::StartLiveOnly {}) => Start::LiveOnly,
                S::After(cursor) => Start::After(cursor.try_into().map_err(|e: CursorError| {
                    Error::invalid(e.violation().under("start.after"))
                })?),
            };
        tracing::debug!(?target, ?start, "subscribed");
        let stream = self
            .sessions
            .subscribe(&id, target, caps, start)
            .map(|item| {
                let item = match item.map_err(|e| Status::from(Error::from(e)))? {
                    // Encoded once per lane and update, shared by its subscribers.
                    SubscribeItem::Update { delivered, cursor } => {
                        let encode = || {
                            wire::encode(pb::subscribe_response::Item::Update(rendered_update(
                                delivered.rendered.clone(),
                                Some(cursor.clone()),
                            )))
                        };
                        return Ok(match delivered.encoded(&cursor.epoch, encode) {
                            Ok(_) => pb::SubscribeResponse::shared(delivered),
                            Err(bytes) => pb::SubscribeResponse::encoded(bytes),
                        });
                    }
                    SubscribeItem::Heartbeat { head } => {
                        pb::subscribe_response::Item::Heartbeat(pb::Heartbeat { head_offset: head })
                    }
                    SubscribeItem::Reset { epoch, head } => {
                        pb::subscribe_response::Item::Reset(pb::Reset {
                            epoch: epoch.into(),
                            head_offset: head,
                        })
                    }
                };
                Ok(pb::SubscribeResponse::new(item))
            });
        Ok(Response::new(Box::pin(Expiring::new(
            stream,
            access.valid_until(),
        ))))
    }

    async fn list_sessions(
        &self,
        req: Request<pb::ListSessionsRequest>,
    ) -> Result<Response<pb::ListSessionsResponse>, Status> {
        let access = access(&self.auth, req.metadata())?;
        let pb::ListSessionsRequest {
            page_size,
            page_token,
            states,
            title_prefix,
            cwd_prefix,
            updated_since,
        } = req.into_inner();
        let filter = ListFilter {
            updated_since_ms: updated_since.as_ref().map(millis).unwrap_or(0),
            ..list_filter(states, title_prefix, cwd_prefix)?
        };
        let page = self::page_size(page_size);
        let after = if page_token.is_empty() {
            None
        } else {
            Some(
                SessionId::new(page_token)
                    .map_err(|e| Error::invalid(FieldViolation::new("page_token", e)))?,
            )
        };
        let rights = [Right::Read, Right::Subscribe];
        let (sessions, next) = self
            .sessions
            .list(after, page, page * LIST_SCAN_PER_PAGE, |id, meta| {
                filter.admits(meta) && access.require_any(&rights, id).is_ok()
            })
            .await
            .map_err(Error::from)?;
        Ok(Response::new(pb::ListSessionsResponse {
            sessions: sessions
                .into_iter()
                .map(|(id, info)| describe(&id, &info, &access))
                .collect(),
            next_page_token: next.map(|id| id.to_string()).unwrap_or_default(),
        }))
    }

    async fn get_session(
        &self,
        req: Request<pb::GetSessionRequest>,
    ) -> Result<Response<pb::GetSessionResponse>, Status> {
        let access = access(&self.auth, req.metadata())?;
        let pb::GetSessionRequest { session_id: id } = req.into_inner();
        let id = session_id(id)?;
        record_session(&id);
        access.require_any(&[Right::Read, Right::Subscribe], &id)?;
        let info = self.sessions.info(&id).await.map_err(Error::from)?;
        Ok(Response::new(describe(&id, &info, &access)))
    }
}
