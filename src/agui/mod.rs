//! The AG-UI endpoint: `POST /ag-ui`, which an unmodified AG-UI `HttpAgent` uses as its `url`.
//! It takes a `RunAgentInput` (`threadId` names the session) and answers with the session's
//! AG-UI rendering as Server-Sent Events, replay then live, framed as AG-UI runs
//! (`render::RunFrame`; the framing rules are in `docs/ag-ui.md`). Same port, same tokens and
//! grants as the gRPC API (`subscribe` on the session).
//!
//! Where things are: the AG-UI endpoint (`POST /ag-ui` on the API port, for `HttpAgent`):
//! `options.rs` (a `RunAgentInput`: the session is `threadId`, toolview's options in
//! `forwardedProps.toolview`, `Last-Event-ID`; errors name the field), `stream.rs` (a subscription
//! as Server-Sent Events framed as AG-UI runs by `render::RunFrame`, the framing `toolview tail`
//! uses too; a history join's snapshot first), `messages.rs` (`MESSAGES_SNAPSHOT`: the replay
//! folded as the client folds it). Same tokens and grants as the gRPC API. See `docs/ag-ui.md`

mod messages;
mod options;
mod stream;

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};

use crate::auth::{Authenticator, Right};
use crate::error::Error;
use crate::http_edge::refusal;
use crate::session::Sessions;
pub use options::RunOptions;

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
    let body = match crate::http_edge::body(body, endpoint.max_body) {
        Ok(body) => body,
        Err(e) => return refusal(e),
    };
    match start(&endpoint, &headers, &body).await {
        Ok(stream) => (
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
                // Proxies that buffer responses (nginx) would hold the live stream back.
                (header::HeaderName::from_static("x-accel-buffering"), "no"),
            ],
            Body::from_stream(stream),
        )
            .into_response(),
        Err(e) => refusal(e),
    }
}

/// Checks the request and the caller's grant, then opens the run's stream.
async fn start(
    endpoint: &Endpoint,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<stream::RunStream, Error> {
    let access = crate::http_edge::authenticate(&endpoint.auth, headers)?;
    let last_event_id = match headers.get("last-event-id") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .map_err(|_| Error::invalid("Last-Event-ID: not ASCII text"))?,
        ),
    };
    let options = RunOptions::parse(body, last_event_id)?;
    access.require(Right::Subscribe, &options.session)?;
    stream::open(endpoint.sessions.clone(), options, access.valid_until()).await
}
