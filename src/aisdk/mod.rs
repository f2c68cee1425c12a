//! The AI SDK endpoint: what the Vercel AI SDK's `useChat` (`DefaultChatTransport({api})`)
//! reads, unmodified. `POST {api}` takes the chat request (`id` names the session) and answers
//! with the session's UI message stream — replay, then live — as Server-Sent Events with the
//! `x-vercel-ai-ui-message-stream: v1` header; a prompt in the request goes nowhere (a transient
//! `data-toolview-notice` says so). `GET {api}/{id}/stream` is the SDK's stream resumption:
//! the session replayed (the SDK's `resumeStreamIsReplay`), or `204` when the session has no
//! events. Same port, tokens, grants, Host allowlist and CORS as the other HTTP routes.
//!
//! Where things are: `options.rs` (the request: POST body, resume path and query; errors name
//! the field), `stream.rs` (a subscription as a UI message stream: `start`, the updates' chunks,
//! `finish`, `[DONE]`). See `docs/ai-sdk.md`.

mod options;
mod stream;

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::auth::{Authenticator, Right};
use crate::http_edge::{authenticate, refusal};
use crate::session::{SessionError, Sessions};
pub use options::StreamOptions;

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
    let body = match crate::http_edge::body(body, endpoint.max_body) {
        Ok(body) => body,
        Err(e) => return refusal(e),
    };
    let opened = async {
        let access = authenticate(&endpoint.auth, &headers)?;
        let options = StreamOptions::from_post(&body)?;
        access.require(Right::Subscribe, &options.session)?;
        stream::open(endpoint.sessions.clone(), options, access.valid_until()).await
    };
    match opened.await {
        Ok(stream) => sse(stream),
        Err(e) => refusal(e),
    }
}

async fn resume(
    State(endpoint): State<Endpoint>,
    Path(rest): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let opened = async {
        let access = authenticate(&endpoint.auth, &headers)?;
        let options = StreamOptions::from_resume(&rest, uri.query())?;
        access.require(Right::Subscribe, &options.session)?;
        // Nothing to resume: the SDK's "no active stream".
        match endpoint.sessions.info(&options.session).await {
            Err(SessionError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
            Ok(_) => {}
        }
        stream::open(endpoint.sessions.clone(), options, access.valid_until())
            .await
            .map(Some)
    };
    match opened.await {
        Ok(Some(stream)) => sse(stream),
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => refusal(e),
    }
}

/// A UI message stream response, with the SDK's headers.
fn sse(stream: stream::ChunkStream) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            (
                header::HeaderName::from_static("x-vercel-ai-ui-message-stream"),
                "v1",
            ),
            // Proxies that buffer responses (nginx) would hold the live stream back.
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}
