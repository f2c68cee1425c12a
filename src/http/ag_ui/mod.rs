//! The AG-UI endpoint: `POST /ag-ui`, which an unmodified AG-UI `HttpAgent` uses as its `url`.
//! It takes a `RunAgentInput` (`threadId` names the session) and answers with the session's
//! AG-UI rendering as Server-Sent Events (`http::sse`), replay then live, framed as AG-UI runs
//! (`render::StreamFrame`, the framing `toolview tail` uses too; the rules are in
//! `docs/ag-ui.md`), each update's last event with `id: <epoch>:<offset>`. Same port, same tokens
//! and grants as the gRPC API (`subscribe` on the session).
//!
//! Where things are: `options.rs` (a `RunAgentInput`: the session is `threadId`, toolview's
//! options in `forwardedProps.toolview`, `Last-Event-ID`; errors name the field); a history
//! join's `MESSAGES_SNAPSHOT` is `http/messages.rs` (the replay folded as the client folds it).

mod options;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::messages::Messages;
use super::sse::{self, CursorMark, Snapshot, SseBody, SseOptions};
use super::{Feed, FeedOptions, refusal};
use crate::auth::{Authenticator, Right};
use crate::domain::FieldViolation;
use crate::domain::permission::{RequestId, Responder};
use crate::error::{Error, Message};
use crate::render::{StreamFrame, Target};
use crate::session::{SessionError, Sessions};
pub use options::{Choice, ResumeAnswer, RunOptions};

/// The endpoint's path.
pub const PATH: &str = "/ag-ui";

#[derive(Clone)]
struct Endpoint {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    /// The body limit, named in the refusal past it.
    max_body: usize,
}

/// `POST /ag-ui`, with request bodies of at most `max_body` bytes (`413` past it: an
/// `HttpAgent` sends every message it holds, so this is the message size limit).
pub fn routes(sessions: Arc<Sessions>, auth: Arc<Authenticator>, max_body: usize) -> axum::Router {
    axum::Router::new()
        .route(PATH, axum::routing::post(run))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(Endpoint {
            sessions,
            auth,
            max_body,
        })
}

/// The body comes as a `Result`: a refused one (over the limit, or broken off) is answered
/// like every other refusal, as JSON, not with axum's plain-text rejection.
async fn run(
    State(endpoint): State<Endpoint>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match super::body(body, endpoint.max_body) {
        Ok(body) => body,
        Err(e) => return refusal(e),
    };
    match start(&endpoint, &headers, &body).await {
        Ok(stream) => sse::response(stream, &[]),
        Err(e) => refusal(e),
    }
}

/// The input's `resume` entries: each answers its permission request (`via: ag-ui`, the
/// `approve` right); `status: cancelled` abstains. An answer after the decision changes nothing.
async fn take_resume(
    sessions: &Sessions,
    access: &crate::auth::Access,
    options: &RunOptions,
) -> Result<(), Error> {
    for answer in &options.resume {
        let Some(choice) = &answer.choice else {
            continue;
        };
        access
            .require(Right::Approve, &options.session)
            .map_err(|e| match e {
                Error::PermissionDenied(m) => Error::PermissionDenied(Message::about(
                    FieldViolation::new(answer.field.as_str(), m),
                )),
                other => other,
            })?;
        let request = RequestId::new(answer.request.as_str()).map_err(|e| {
            Error::invalid(FieldViolation::new(
                format!("{}.interruptId", answer.field),
                e,
            ))
        })?;
        let by = Responder {
            subject: access.subject().to_owned(),
            via: "ag-ui".into(),
        };
        let reason = answer.reason.as_str();
        let session = &options.session;
        match choice {
            Choice::Option(option) => {
                sessions
                    .respond_permission(session, &request, option, reason, by)
                    .await?
            }
            Choice::Approved(allow) => {
                sessions
                    .respond_permission_allowing(session, &request, *allow, reason, by)
                    .await?
            }
        };
    }
    Ok(())
}

/// Checks the request and the caller's grant, then opens the run's stream.
async fn start(endpoint: &Endpoint, headers: &HeaderMap, body: &[u8]) -> Result<SseBody, Error> {
    let access = super::authenticate(&endpoint.auth, headers)?;
    let last_event_id =
        match headers.get("last-event-id") {
            None => None,
            Some(v) => Some(v.to_str().map_err(|_| {
                Error::invalid(FieldViolation::new("Last-Event-ID", "not ASCII text"))
            })?),
        };
    let options = RunOptions::parse(body, last_event_id)?;
    access.require(Right::Subscribe, &options.session)?;
    let sessions = &endpoint.sessions;
    take_resume(sessions, &access, &options).await?;
    let pause_from = if options.interrupts {
        Some(match sessions.info(&options.session).await {
            Ok(info) => info.meta.head_offset,
            Err(SessionError::NotFound(_)) => 0,
            Err(e) => return Err(e.into()),
        })
    } else {
        None
    };
    let feed = Feed::open(
        sessions,
        FeedOptions {
            session: &options.session,
            start: &options.start,
            follow: options.follow,
            target: Target::AgUi,
            caps: options.caps,
            valid_until: access.valid_until(),
        },
    )
    .await?;
    let snapshot = match options.snapshot {
        None => None,
        Some(limit) => Some(Snapshot {
            messages: Messages::new(limit),
            head: match sessions.info(&options.session).await {
                Ok(info) => info.meta.head_offset,
                Err(SessionError::NotFound(_)) => 0,
                Err(e) => return Err(e.into()),
            },
        }),
    };
    let frame = StreamFrame::new(
        Target::AgUi,
        options.session.as_str(),
        options.run_id(),
        feed.at_head.clone(),
    )
    .with_interrupts(options.interrupts);
    let options = SseOptions {
        pause_from,
        mark: CursorMark::EventId,
        after_open: Vec::new(),
        trailer: None,
        snapshot,
        settle: None,
    };
    Ok(sse::stream(feed, frame, options))
}
