//! The AI SDK endpoint: what the Vercel AI SDK's `useChat` (`DefaultChatTransport({api})`)
//! reads, unmodified. `POST {api}` takes the chat request (`id` names the session) and answers
//! with the session's UI message stream — replay, then live — as Server-Sent Events with the
//! `x-vercel-ai-ui-message-stream: v1` header; a prompt in the request goes nowhere (a transient
//! `data-toolview-notice` says so). `GET {api}/{id}/stream` is the SDK's stream resumption:
//! the session replayed (the SDK's `resumeStreamIsReplay`), or `204` when the session has no
//! events. Same port, tokens, grants, Host allowlist and CORS as the other HTTP routes.
//!
//! The stream (`http::sse`, framed by `render::StreamFrame`: `start`, the updates' chunks each
//! followed by a comment with its cursor, `finish`, `[DONE]`). Where things are: `options.rs`
//! (the request: POST body, resume path and query; errors name the field). A POST that answers
//! approvals streams until their calls have a result (`sse::Settle`). See `docs/ai-sdk.md`.

mod options;

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::header::HeaderName;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::sse::{self, CursorMark, Settle, SseBody, SseOptions};
use super::{Feed, FeedOptions, authenticate, refusal};
use crate::auth::{Authenticator, Right};
use crate::domain::FieldViolation;
use crate::domain::permission::{RequestId, Responder};
use crate::error::{Error, Message};
use crate::render::ai_sdk::{NoticeData, UiChunk};
use crate::render::{StreamEvent, StreamFrame, Target};
use crate::session::{SessionError, Sessions};
pub use options::StreamOptions;

/// What a prompt sent to a watched session is told: it goes nowhere.
const PROMPT_NOTICE: &str = "toolview shows what the harness does: this prompt was not sent to it";

/// The endpoint's path (`useChat`'s `api`).
pub const PATH: &str = "/ai-sdk";

#[derive(Clone)]
struct Endpoint {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    max_body: usize,
}

/// `POST /ai-sdk` and `GET /ai-sdk/{id}/stream`, with request bodies of at most `max_body`
/// bytes (`413` past it: a chat request carries every message the UI holds).
pub fn routes(sessions: Arc<Sessions>, auth: Arc<Authenticator>, max_body: usize) -> axum::Router {
    axum::Router::new()
        .route(PATH, axum::routing::post(post))
        .route(&format!("{PATH}/{{*rest}}"), axum::routing::get(resume))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(Endpoint {
            sessions,
            auth,
            max_body,
        })
}

async fn post(
    State(endpoint): State<Endpoint>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match super::body(body, endpoint.max_body) {
        Ok(body) => body,
        Err(e) => return refusal(e),
    };
    let opened = async {
        let access = authenticate(&endpoint.auth, &headers)?;
        let mut options = StreamOptions::from_post(&body)?;
        access.require(Right::Subscribe, &options.session)?;
        take_approvals(&endpoint.sessions, &access, &options).await?;
        let settle = settle(&endpoint.sessions, &mut options).await?;
        open(&endpoint.sessions, options, access.valid_until(), settle).await
    };
    match opened.await {
        Ok(stream) => response(stream),
        Err(e) => refusal(e),
    }
}

/// The UI's answers to approvals (`addToolApprovalResponse`): each the request's first allow or
/// reject option, `via: ai-sdk`; answering needs the `approve` right. An answer that comes after
/// the decision (another UI's, or this UI's own, sent again with its messages) changes nothing.
async fn take_approvals(
    sessions: &Sessions,
    access: &crate::auth::Access,
    options: &StreamOptions,
) -> Result<(), Error> {
    for a in &options.approvals {
        access
            .require(Right::Approve, &options.session)
            .map_err(|e| match e {
                Error::PermissionDenied(m) => Error::PermissionDenied(Message::about(
                    FieldViolation::new(a.field.as_str(), m),
                )),
                other => other,
            })?;
        let request = RequestId::new(a.request.as_str())
            .map_err(|e| Error::invalid(FieldViolation::new(format!("{}.id", a.field), e)))?;
        let by = Responder {
            subject: access.subject().to_owned(),
            via: "ai-sdk".into(),
        };
        sessions
            .respond_permission_allowing(&options.session, &request, a.approved, &a.reason, by)
            .await?;
    }
    Ok(())
}

/// A POST that answered approvals follows until their calls have a result (`sse::Settle`),
/// whatever its `follow`: the chat stays `streaming` meanwhile, so `sendAutomaticallyWhen` does
/// not send the answer again at every end of the stream (a storm of POSTs, before).
async fn settle(sessions: &Sessions, options: &mut StreamOptions) -> Result<Option<Settle>, Error> {
    let calls: BTreeSet<String> = options
        .approvals
        .iter()
        .filter_map(|a| a.tool_call.clone())
        .collect();
    if calls.is_empty() {
        return Ok(None);
    }
    let head = sessions.info(&options.session).await?.meta.head_offset;
    options.follow = true;
    Ok(Some(Settle { calls, head }))
}

async fn resume(
    State(endpoint): State<Endpoint>,
    rest: Result<Path<String>, PathRejection>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let opened = async {
        let Path(rest) =
            rest.map_err(|e| Error::invalid(FieldViolation::new("path", e.body_text())))?;
        let access = authenticate(&endpoint.auth, &headers)?;
        let options = StreamOptions::from_resume(&rest, uri.query())?;
        access.require(Right::Subscribe, &options.session)?;
        // Nothing to resume: the SDK's "no active stream".
        match endpoint.sessions.info(&options.session).await {
            Err(SessionError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
            Ok(_) => {}
        }
        open(&endpoint.sessions, options, access.valid_until(), None)
            .await
            .map(Some)
    };
    match opened.await {
        Ok(Some(stream)) => response(stream),
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => refusal(e),
    }
}

/// Subscribes as `options` ask and frames the subscription as one UI message stream.
async fn open(
    sessions: &Arc<Sessions>,
    options: StreamOptions,
    valid_until: Option<std::time::SystemTime>,
    settle: Option<Settle>,
) -> Result<SseBody, Error> {
    let feed = Feed::open(
        sessions,
        FeedOptions {
            session: &options.session,
            start: &options.start,
            follow: options.follow,
            target: Target::AiSdk,
            caps: options.caps,
            valid_until,
        },
    )
    .await?;
    let frame = StreamFrame::new(Target::AiSdk, options.session.as_str(), String::new(), None);
    let notice = UiChunk::DataToolviewNotice {
        data: NoticeData {
            text: PROMPT_NOTICE.into(),
        },
        transient: true,
    };
    let options = SseOptions {
        pause_from: None,
        mark: CursorMark::Comment,
        after_open: options
            .prompted
            .then(|| StreamEvent::AiSdk(std::borrow::Cow::Owned(notice)))
            .into_iter()
            .collect(),
        trailer: Some("[DONE]"),
        snapshot: None,
        settle,
    };
    Ok(sse::stream(feed, frame, options))
}

/// A UI message stream response, with the SDK's header.
fn response(stream: SseBody) -> Response {
    sse::response(
        stream,
        &[(
            HeaderName::from_static("x-vercel-ai-ui-message-stream"),
            "v1",
        )],
    )
}
