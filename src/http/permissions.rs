//! `POST /permissions/{session}/{request}`: answers a permission request for any UI that speaks
//! HTTP and JSON (the viewer's buttons use it too). `{"optionId", "reason"?, "via"?}` in;
//! `{"won", "resolution"}` out — `200` when this answer decided the request, `409` with the
//! resolution that came first, `410` when the request expired first, and the usual refusals
//! (`403` without the `approve` right, `404` for an unknown request).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::{authenticate, refusal};
use crate::auth::{Authenticator, Right};
use crate::domain::FieldViolation;
use crate::domain::SessionId;
use crate::domain::permission::{Outcome, PermissionResolved, RequestId, Responder, surface};
use crate::error::Error;
use crate::metrics::{AnswerResult, Metrics};
use crate::session::{Decided, Sessions};

/// The endpoint's path.
pub const PATH: &str = "/permissions";

/// Bytes of an answer's body at most: an option id, a reason and a surface's name.
const MAX_ANSWER_BYTES: usize = 8 * 1024;

#[derive(Clone)]
struct Endpoint {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Answer {
    option_id: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    via: String,
}

/// `POST /permissions/{session}/{request}`.
pub fn routes(sessions: Arc<Sessions>, auth: Arc<Authenticator>) -> axum::Router {
    axum::Router::new()
        .route(&format!("{PATH}/{{*rest}}"), axum::routing::post(answer))
        .layer(DefaultBodyLimit::max(MAX_ANSWER_BYTES))
        .with_state(Endpoint { sessions, auth })
}

/// `team-a/run-7/perm-1` → the session `team-a/run-7` and the request `perm-1` (the last
/// segment: session ids may have `/`, request ids may not).
fn target(rest: &str) -> Result<(SessionId, RequestId), Error> {
    let (session, request) = rest.rsplit_once('/').ok_or_else(|| {
        Error::invalid(FieldViolation::new(
            "path",
            "expected /permissions/{session}/{request}",
        ))
    })?;
    let session = SessionId::new(session)
        .map_err(|e| Error::invalid(FieldViolation::new("session_id", e)))?;
    let request = RequestId::new(request)
        .map_err(|e| Error::invalid(FieldViolation::new("request_id", e)))?;
    Ok((session, request))
}

async fn answer(
    State(endpoint): State<Endpoint>,
    rest: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let metrics = endpoint.sessions.metrics().clone();
    let decided = async {
        let Path(rest) =
            rest.map_err(|e| Error::invalid(FieldViolation::new("path", e.body_text())))?;
        let body = super::body(body, MAX_ANSWER_BYTES)?;
        let access = authenticate(&endpoint.auth, &headers)?;
        let (session, request) = target(&rest)?;
        access.require(Right::Approve, &session)?;
        let answer: Answer = serde_json::from_slice(&body)
            .map_err(|e| Error::bad_request(format!("request body: {e}")))?;
        let by = Responder {
            subject: access.subject().to_owned(),
            via: surface(&answer.via, "http"),
        };
        Ok(endpoint
            .sessions
            .respond_permission(&session, &request, &answer.option_id, &answer.reason, by)
            .await?)
    };
    answered(decided.await, &metrics)
}

/// An answer's response, whichever endpoint took it: `200` when it decided the request, `409`
/// with the decision that came first, `410` when the request expired first; counted.
pub(super) fn answered(decided: Result<Decided, Error>, metrics: &Metrics) -> Response {
    #[derive(Serialize)]
    struct Answered {
        won: bool,
        resolution: PermissionResolved,
    }
    match decided {
        Ok(d) => {
            metrics.permission_answer(if d.won {
                AnswerResult::won
            } else {
                AnswerResult::lost
            });
            let status = match (d.won, &d.resolution.outcome) {
                (true, _) => StatusCode::OK,
                (false, Outcome::Expired { .. }) => StatusCode::GONE,
                (false, Outcome::Selected { .. } | Outcome::Withdrawn) => StatusCode::CONFLICT,
            };
            let body = Answered {
                won: d.won,
                resolution: d.resolution,
            };
            // Strings, flags and numbers: serializing cannot fail.
            let body = serde_json::to_string(&body).unwrap_or_default();
            (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Err(e) => {
            metrics.permission_answer(AnswerResult::refused);
            refusal(e)
        }
    }
}
