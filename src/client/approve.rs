//! `toolview approve`: answers a permission request from a script or a terminal, and prints the
//! decision as one JSON line (`{"won", "resolution"}`).

use std::io::Write;

use anyhow::Context as _;

use super::remote::{Remote, bearer, channel};
use crate::grpc::convert::resolved_from_pb;
use crate::grpc::pb::{self, permission_service_client::PermissionServiceClient};

/// What to answer.
#[derive(Debug, Clone)]
pub struct Answer<'a> {
    /// The session.
    pub session: &'a str,
    /// The request.
    pub request: &'a str,
    /// The option chosen.
    pub option: &'a str,
    /// Why (kept with the decision).
    pub reason: &'a str,
    /// Through which surface (`cli`, `tail`).
    pub via: &'a str,
}

/// Answers the request; prints `{"won", "resolution"}`; `true` when this answer decided it.
pub async fn approve(
    remote: &Remote,
    answer: Answer<'_>,
    out: &mut impl Write,
) -> anyhow::Result<bool> {
    let mut client =
        PermissionServiceClient::with_interceptor(channel(remote).await?, bearer(remote)?);
    let response = client
        .respond_permission(pb::RespondPermissionRequest {
            session_id: answer.session.to_owned(),
            request_id: answer.request.to_owned(),
            option_id: answer.option.to_owned(),
            reason: answer.reason.to_owned(),
            via: answer.via.to_owned(),
        })
        .await
        .map_err(|s| super::failure::call_failed(&s, remote))?
        .into_inner();
    let resolution = response
        .resolution
        .context("the server sent no resolution")
        .and_then(|r| resolved_from_pb(r).map_err(|e| anyhow::anyhow!("resolution.{e}")))?;
    let line = serde_json::json!({"won": response.won, "resolution": resolution});
    writeln!(out, "{line}")?;
    Ok(response.won)
}
