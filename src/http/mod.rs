//! The HTTP edge, beside `grpc`: the AG-UI endpoint (`ag_ui/`), the AI SDK endpoint
//! (`ai_sdk/`), the permission answers (`permissions.rs`), and what they share: the caller's `Authorization` header checked like a gRPC
//! call's, the request body within the message size, the capabilities a request declares, a
//! subscription read as a stream (`Feed`: where a stream that does not follow ends, the token's
//! expiry), the subscription as Server-Sent Events (`sse.rs`, with an AG-UI history join's
//! snapshot folded by `messages.rs`), and every refusal — the
//! endpoints', and the router's own unknown path, wrong method and bad path — as JSON
//! `{"error", "code"}` (and `"field"` when it names one) with the HTTP status and gRPC code
//! name of `Error`'s one table. `origin.rs` refuses, on every path, what a web page on another
//! origin could make a browser send.

pub mod ag_ui;
pub mod ai_sdk;
pub mod fleet;
pub mod links;
mod messages;
pub mod origin;
pub mod permissions;
mod sse;

use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use tokio_stream::StreamExt;

use crate::auth::{Access, Authenticator};
use crate::domain::{Cursor, SessionId};
use crate::error::{Code, Error, code_name};
use crate::render::{Capabilities, Target};
use crate::session::{SessionError, Sessions, Start, SubscribeItem, Subscription};

/// A request body, or why it is refused (over `max` bytes, or broken off): answered like every
/// other refusal, as JSON, not with axum's plain-text rejection.
pub fn body(body: Result<Bytes, BytesRejection>, max: usize) -> Result<Bytes, Error> {
    body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::TooLarge(
                format!("request body: over the limit of {max} bytes (--max-message-size)").into(),
            )
        } else {
            Error::bad_request(format!("request body: {}", e.body_text()))
        }
    })
}

/// The capabilities a request declares (`capabilities` in the JSON): those of the gRPC
/// `Capabilities` an HTTP client can use, all off by default.
#[derive(Debug, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapsInput {
    #[serde(default)]
    terminal: bool,
    #[serde(default)]
    diff: bool,
    #[serde(default)]
    read: bool,
    #[serde(default)]
    search: bool,
    #[serde(default)]
    web: bool,
    #[serde(default)]
    max_output_bytes: u64,
    #[serde(default)]
    reasoning: bool,
    #[serde(default)]
    output_appends: bool,
}

impl From<CapsInput> for Capabilities {
    fn from(c: CapsInput) -> Self {
        let CapsInput {
            terminal,
            diff,
            read,
            search,
            web,
            max_output_bytes,
            reasoning,
            output_appends,
        } = c;
        Capabilities {
            terminal,
            diff,
            read,
            search,
            web,
            max_output_bytes,
            tool_colors: false,
            output_appends,
            reasoning,
        }
    }
}

/// A subscription as an HTTP stream reads it.
pub struct Feed {
    items: Subscription,
    expires: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Without following: the stream ends once this offset is sent (`Some(0)`: nothing to send).
    pub until: Option<u64>,
    /// Without following, a stream resumed at the head: the cursor it already has.
    pub at_head: Option<Cursor>,
}

/// What a [`Feed`] has next.
pub enum Next {
    /// The caller's token expired: the stream ends with an error.
    Expired,
    /// The subscription's next item; `None` when it ended cleanly (the server shuts down).
    Item(Option<Result<SubscribeItem, SessionError>>),
}

/// The options a feed is opened with.
pub struct FeedOptions<'a> {
    /// The session.
    pub session: &'a SessionId,
    /// Where it starts.
    pub start: &'a Start,
    /// Stream live after the replay, or end at the head found now.
    pub follow: bool,
    /// The rendering.
    pub target: Target,
    /// What the client shows.
    pub caps: Capabilities,
    /// When the caller's token expires.
    pub valid_until: Option<SystemTime>,
}

impl Feed {
    /// Subscribes; without following, finds the head to stop at (and "live only", which has
    /// nothing to show then, replays).
    pub async fn open(sessions: &Arc<Sessions>, o: FeedOptions<'_>) -> Result<Feed, Error> {
        let (until, at_head) = if o.follow {
            (None, None)
        } else {
            match sessions.info(o.session).await {
                Ok(info) => match o.start {
                    Start::After(c)
                        if c.epoch == info.meta.epoch && c.offset >= info.meta.head_offset =>
                    {
                        (Some(0), Some(c.clone()))
                    }
                    _ => (Some(info.meta.head_offset), None),
                },
                Err(SessionError::NotFound(_)) => (Some(0), None),
                Err(e) => return Err(e.into()),
            }
        };
        let start = match (o.start, until) {
            (Start::LiveOnly, Some(_)) => Start::FromBeginning,
            (start, _) => start.clone(),
        };
        Ok(Feed {
            items: sessions.subscribe(o.session, o.target, o.caps, start),
            expires: o.valid_until.map(|t| {
                let left = t.duration_since(SystemTime::now()).unwrap_or_default();
                Box::pin(tokio::time::sleep(left))
            }),
            until,
            at_head,
        })
    }

    /// The next item, or the token's expiry.
    pub async fn next(&mut self) -> Next {
        match self.expires.as_mut() {
            Some(expires) => tokio::select! {
                item = self.items.next() => Next::Item(item),
                () = expires => Next::Expired,
            },
            None => Next::Item(self.items.next().await),
        }
    }

    /// Whether the stream ends after the update at `offset` (or, with `None`, a heartbeat:
    /// sent only to a stream with nothing left to send).
    pub fn ends_after(&self, offset: Option<u64>) -> bool {
        match (self.until, offset) {
            (Some(until), Some(offset)) => offset >= until,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

/// Checks the request's `Authorization` header (a bearer token, when the server asks for one).
pub fn authenticate(auth: &Authenticator, headers: &HeaderMap) -> Result<Access, Error> {
    let authorization = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(v) => Some(v.to_str().map_err(|_| {
            Error::Unauthenticated("the Authorization header is not ASCII text".into())
        })?),
    };
    auth.authenticate(authorization)
}

/// A refused request: the error's HTTP status and `{"error", "code"}` (the gRPC code name the
/// same refusal gets over gRPC).
pub fn refusal(e: Error) -> Response {
    let status = StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_refusal(
        status,
        e.code(),
        e.public_message(),
        e.field().map(|(f, _)| f),
    )
}

/// `{"error", "code"}`, and `"field"` when the refusal names one.
fn json_refusal(status: StatusCode, code: Code, message: &str, field: Option<&str>) -> Response {
    let mut body = json!({"error": message, "code": code_name(code)});
    if let Some(field) = field {
        body["field"] = field.into();
    }
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// The HTTP routes of the API port: the endpoints, with request bodies of at most `max_body`
/// bytes (`413` past it); answer links when webhooks make them (`links`: their key).
pub fn routes(
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    max_body: usize,
    links: Option<crate::auth::link::LinkKey>,
) -> axum::Router {
    let router = ag_ui::routes(sessions.clone(), auth.clone(), max_body)
        .merge(ai_sdk::routes(sessions.clone(), auth.clone(), max_body))
        .merge(fleet::routes(sessions.clone(), auth.clone()))
        .merge(permissions::routes(sessions.clone(), auth));
    match links {
        Some(key) => router.merge(links::routes(sessions, key)),
        None => router,
    }
}

/// What the router answers for a path it does not serve: a gRPC request (`application/grpc…`)
/// gets gRPC's `UNIMPLEMENTED`, as tonic answers an unknown method; anything else a JSON `404`.
pub async fn unrouted(request: axum::extract::Request) -> Response {
    let grpc = request
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/grpc"));
    if grpc {
        return tonic::Status::unimplemented("").into_http();
    }
    refusal(Error::NotFound(
        format!(
            "no such path: {} (the API port serves gRPC, {}, {}, {} and the viewer at /)",
            request.uri().path(),
            ag_ui::PATH,
            ai_sdk::PATH,
            permissions::PATH
        )
        .into(),
    ))
}

/// What the router answers for a method a path does not take: a JSON `405`.
pub async fn wrong_method(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    // What gRPC answers for a method a service does not have.
    let message = format!("{}: this path does not take {method}", uri.path());
    json_refusal(
        StatusCode::METHOD_NOT_ALLOWED,
        Code::Unimplemented,
        &message,
        None,
    )
}
