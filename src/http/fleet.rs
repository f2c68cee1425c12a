//! `GET /sessions/watch`: the fleet watch (`WatchSessions`) as Server-Sent Events, for a page or
//! a program without gRPC-Web. Each session is an `event: session` whose data is the protobuf JSON
//! of a `GetSessionResponse` (as `toolview sessions --json` prints it); `event: synced` marks the
//! end of the first page; comments keep an idle stream open. Query: `states` (comma-separated
//! names), `title_prefix`, `cwd_prefix`, `page_size`, `since`.
//!
//! **Resuming.** Live events and `synced` carry an `id`: a time in Unix milliseconds, a little
//! before the event was sent. An `EventSource` that reconnects sends the last one back
//! (`Last-Event-ID`; `since` in the query does the same): the first page is then the sessions
//! changed since, whatever their state, so a watcher also sees those that left its `states`
//! while it was away.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::StreamExt as _;
use serde::Deserialize;

use super::sse::{SseBody, response};
use super::{authenticate, refusal};
use crate::auth::Authenticator;
use crate::domain::{FieldViolation, SessionState};
use crate::error::Error;
use crate::grpc::convert::{state_to_pb, timestamp};
use crate::grpc::pb;
use crate::session::Sessions;
use crate::store::now_ms;

/// The endpoint's path.
pub const PATH: &str = "/sessions/watch";

/// A comment this often keeps proxies from closing an idle stream (gRPC's heartbeat's default).
const KEEPALIVE: Duration = Duration::from_secs(15);
/// How far before an event its id (the resume point) lies: a change held by the fleet's throttle
/// (500 ms by default) goes out after later ones, and publishes commit in an order their times
/// may not keep. A resume sends a little again; it misses nothing.
const RESUME_MARGIN_MS: u64 = 2_000;

#[derive(Clone)]
struct Endpoint {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Asked {
    #[serde(default)]
    states: String,
    #[serde(default)]
    title_prefix: String,
    #[serde(default)]
    cwd_prefix: String,
    #[serde(default)]
    page_size: u32,
    #[serde(default)]
    since: Option<u64>,
}

/// `GET /sessions/watch`.
pub fn routes(sessions: Arc<Sessions>, auth: Arc<Authenticator>) -> axum::Router {
    axum::Router::new()
        .route(PATH, axum::routing::get(watch))
        .with_state(Endpoint { sessions, auth })
}

/// `requires_action,running` → the states.
fn states(names: &str) -> Result<Vec<i32>, Error> {
    names
        .split(',')
        .filter(|n| !n.is_empty())
        .map(|name| {
            SessionState::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .map(|s| state_to_pb(s) as i32)
                .ok_or_else(|| {
                    let known: Vec<&str> = SessionState::ALL.iter().map(|s| s.name()).collect();
                    let problem = format!("one of {}, not {name:?}", known.join(", "));
                    Error::invalid(FieldViolation::new("states", problem))
                })
        })
        .collect()
}

/// Where a reconnecting `EventSource` left off.
fn last_event_id(headers: &HeaderMap) -> Result<Option<u64>, Error> {
    let Some(value) = headers.get("last-event-id") else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or_default().trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| {
        Error::invalid(FieldViolation::new(
            "Last-Event-ID",
            "a time in Unix milliseconds, as the stream's ids are",
        ))
    })
}

async fn watch(
    State(endpoint): State<Endpoint>,
    query: Result<Query<Asked>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let opened = now_ms();
    let stream = (|| {
        let access = authenticate(&endpoint.auth, &headers)?;
        let Query(asked) =
            query.map_err(|e| Error::bad_request(format!("query: {}", e.body_text())))?;
        let since = last_event_id(&headers)?.or(asked.since);
        let request = pb::WatchSessionsRequest {
            page_size: asked.page_size,
            states: states(&asked.states)?,
            title_prefix: asked.title_prefix,
            cwd_prefix: asked.cwd_prefix,
            updated_since: since.filter(|&t| t > 0).map(timestamp),
        };
        crate::grpc::watch_fleet(&endpoint.sessions, access, request)
    })();
    let items = match stream {
        Ok(items) => items,
        Err(e) => return refusal(e),
    };
    let mut live = false;
    let events = items.map(move |item| {
        let text = match item.ok().and_then(|i| i.item) {
            Some(pb::watch_sessions_response::Item::Session(s)) => {
                let json = crate::grpc::json::to_json(&s, "toolview.v1.GetSessionResponse");
                // A page's sessions come in id order, not by time: only live ones (and `synced`)
                // carry the time a watcher resumes from.
                let id = match live {
                    true => format!(
                        "id: {}\n",
                        now_ms().saturating_sub(RESUME_MARGIN_MS).max(opened)
                    ),
                    false => String::new(),
                };
                format!("{id}event: session\ndata: {json}\n\n")
            }
            Some(pb::watch_sessions_response::Item::Synced(_)) => {
                live = true;
                format!("id: {opened}\nevent: synced\ndata: {{}}\n\n")
            }
            // A watch's items always say what they are; a failed one ends the stream.
            None => return None,
        };
        Some(Bytes::from(text))
    });
    let keepalive = tokio_stream::wrappers::IntervalStream::new(tokio::time::interval_at(
        tokio::time::Instant::now() + KEEPALIVE,
        KEEPALIVE,
    ))
    .map(|_| Some(Bytes::from_static(b": keepalive\n\n")));
    // The watch's end (a `None` after its last event) ends the merge: keepalives alone go on
    // for nobody.
    let merged = futures_util::stream::select(
        events.chain(futures_util::stream::once(async { None })),
        keepalive,
    );
    let body: SseBody = Box::pin(
        merged
            .take_while(|b| std::future::ready(b.is_some()))
            .filter_map(|b| std::future::ready(b.map(Ok))),
    );
    response(body, &[])
}
