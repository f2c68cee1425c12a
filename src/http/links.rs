//! Answer links (`auth::link`): `GET /links/{grant}` says what a link would answer and
//! whether the request still waits; `POST /links/{grant}` answers it, as `<hook> via webhook`.
//! The link a delivery carries opens the viewer (`/#answer=<grant>`), which shows the prompt
//! and asks for a confirmation before it posts: opening a link changes nothing, so a chat app
//! or a mail scanner fetching it to preview it answers nothing. The grant is all the
//! authority: no token is needed, and it answers one request with one option. The POST is held
//! to the cross-origin rules of every state-changing request (`http::origin`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::refusal;
use crate::auth::link::{Grant, LinkError, LinkKey};
use crate::domain::FieldViolation;
use crate::domain::permission::{PermissionOption, PermissionResolved, Responder};
use crate::error::Error;
use crate::session::{RequestState, Sessions};
use crate::store::now_ms;

/// The endpoint's path.
pub const PATH: &str = "/links";

/// Bytes of a confirmation's body at most: a reason.
const MAX_CONFIRM_BYTES: usize = 8 * 1024;

#[derive(Clone)]
struct Endpoint {
    sessions: Arc<Sessions>,
    key: LinkKey,
}

/// What a link answers, and where its request is.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Described {
    session_id: String,
    session_title: String,
    request_id: String,
    title: String,
    option: Option<PermissionOption>,
    expires_at_ms: u64,
    hook: String,
    /// `pending` or `decided`.
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    resolution: Option<PermissionResolved>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Confirm {
    #[serde(default)]
    reason: String,
}

/// `GET` and `POST /links/{grant}`.
pub fn routes(sessions: Arc<Sessions>, key: LinkKey) -> axum::Router {
    axum::Router::new()
        .route(
            &format!("{PATH}/{{grant}}"),
            axum::routing::get(describe).post(answer),
        )
        .layer(DefaultBodyLimit::max(MAX_CONFIRM_BYTES))
        .with_state(Endpoint { sessions, key })
}

fn grant(endpoint: &Endpoint, path: Result<Path<String>, PathRejection>) -> Result<Grant, Error> {
    let Path(text) =
        path.map_err(|e| Error::invalid(FieldViolation::new("link", e.body_text())))?;
    endpoint.key.verify(&text, now_ms()).map_err(|e| match e {
        LinkError::Forged | LinkError::Expired => {
            Error::PermissionDenied(format!("link: {e}").into())
        }
    })
}

fn json(status: StatusCode, body: &impl Serialize) -> Response {
    // Typed bodies of strings and numbers: serializing cannot fail.
    let text = serde_json::to_string(body).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], text).into_response()
}

async fn describe(
    State(endpoint): State<Endpoint>,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    let described = async {
        let g = grant(&endpoint, path)?;
        let state = endpoint.sessions.permission(&g.session, &g.request).await?;
        let info = endpoint.sessions.info(&g.session).await?;
        let (title, options, resolution) = match state {
            RequestState::Pending(r) => (r.title, r.options, None),
            RequestState::Resolved(r) => (String::new(), Vec::new(), Some(r)),
        };
        Ok::<_, Error>(Described {
            session_id: g.session.to_string(),
            session_title: info.meta.title,
            request_id: g.request.to_string(),
            title,
            option: options.into_iter().find(|o| o.option_id == g.option),
            expires_at_ms: g.expires_ms,
            hook: g.hook,
            state: if resolution.is_some() {
                "decided"
            } else {
                "pending"
            },
            resolution,
        })
    };
    match described.await {
        Ok(d) => json(StatusCode::OK, &d),
        Err(e) => refusal(e),
    }
}

async fn answer(
    State(endpoint): State<Endpoint>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let metrics = endpoint.sessions.metrics().clone();
    let decided = async {
        let g = grant(&endpoint, path)?;
        let body = super::body(body, MAX_CONFIRM_BYTES)?;
        let confirm: Confirm = serde_json::from_slice(&body)
            .map_err(|e| Error::bad_request(format!("request body: {e}")))?;
        let by = Responder {
            subject: g.hook.clone(),
            via: "webhook".into(),
        };
        Ok::<_, Error>(
            endpoint
                .sessions
                .respond_permission(&g.session, &g.request, &g.option, &confirm.reason, by)
                .await?,
        )
    };
    super::permissions::answered(decided.await, &metrics)
}
