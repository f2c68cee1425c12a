//! What the HTTP endpoints (AG-UI's, the AI SDK's) share at the edge: the caller's
//! `Authorization` header checked like a gRPC call's, the request body within the message size,
//! the capabilities a request declares, a subscription read as a stream (`Feed`: where a stream
//! that does not follow ends, the token's expiry), and refusals as an HTTP status with
//! `{"error", "code"}` (the gRPC code name the same refusal gets over gRPC).

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
use crate::error::Error;
use crate::render::{Capabilities, Target};
use crate::session::{SessionError, Sessions, Start, SubscribeItem, Subscription};

/// A request body, or why it is refused (over `max` bytes, or broken off): answered like every
/// other refusal, as JSON, not with axum's plain-text rejection.
pub fn body(body: Result<Bytes, BytesRejection>, max: usize) -> Result<Bytes, Error> {
    body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::TooLarge(format!(
                "request body: over the limit of {max} bytes (--max-message-size)"
            ))
        } else {
            Error::invalid(format!("request body: {}", e.body_text()))
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

/// Appends one Server-Sent Events block: an optional `id:` line, then `data: <json>` and the
/// blank line that ends the event (both HTTP targets send one JSON document per event).
pub fn sse_event(out: &mut String, json: &str, id: Option<&str>) {
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(id);
        out.push('\n');
    }
    out.push_str("data: ");
    out.push_str(json);
    out.push_str("\n\n");
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

/// A refused request: an HTTP status and `{"error", "code"}` (the gRPC code name the same
/// refusal gets over gRPC).
pub fn refusal(e: Error) -> Response {
    let status = match &e {
        Error::InvalidArgument(_) => StatusCode::BAD_REQUEST,
        Error::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
        Error::PermissionDenied(_) => StatusCode::FORBIDDEN,
        Error::TooLarge(_) | Error::Lagging(_) => StatusCode::PAYLOAD_TOO_LARGE,
        Error::NotFound(_) => StatusCode::NOT_FOUND,
        Error::Lifecycle(_) | Error::Aborted(_) => StatusCode::CONFLICT,
        Error::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        Error::Unimplemented(_) => StatusCode::NOT_IMPLEMENTED,
        Error::DataLoss(_) | Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let status_code = tonic::Status::from(e);
    let body = json!({
        "error": status_code.message(),
        "code": crate::grpc::code_name(status_code.code()),
    });
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
