//! Helpers for permission tests: a request, the event that asks it, an answer, and waiting for
//! the decision as a harness does.

use tonic::transport::Channel;
use toolview::grpc::pb::{
    self, PermissionOptionKind as Kind, permission_service_client::PermissionServiceClient,
};

use crate::sessions::ev;

pub type Permissions = PermissionServiceClient<Channel>;

pub async fn permissions(url: &str) -> Permissions {
    Permissions::connect(url.to_owned()).await.unwrap()
}

pub fn option(id: &str, name: &str, kind: Kind) -> pb::PermissionOption {
    pb::PermissionOption {
        option_id: id.into(),
        name: name.into(),
        kind: kind.into(),
    }
}

/// Request `request` about `call`, titled `title`: options `allow` (Allow), `always` (Always
/// allow) and `reject` (Reject, also on expiry), open for a minute.
pub fn requested(request: &str, call: &str, title: &str) -> pb::PermissionRequested {
    pb::PermissionRequested {
        request_id: request.into(),
        call_id: call.into(),
        title: title.into(),
        description: String::new(),
        options: vec![
            option("allow", "Allow", Kind::AllowOnce),
            option("always", "Always allow", Kind::AllowAlways),
            option("reject", "Reject", Kind::RejectOnce),
        ],
        expiry_option_id: "reject".into(),
        timeout_ms: 60_000,
        expires_at_unix_ms: 0,
    }
}

/// The event asking `request` in `session` (event id `ask:<request id>`).
pub fn asking(session: &str, request: pb::PermissionRequested) -> pb::ToolEvent {
    let id = format!("ask:{}", request.request_id);
    ev(
        session,
        &id,
        pb::tool_event::Event::PermissionRequested(request),
    )
}

/// An answer choosing `option`, with no reason and the default `via`.
pub fn respond(session: &str, request: &str, option: &str) -> pb::RespondPermissionRequest {
    pb::RespondPermissionRequest {
        session_id: session.into(),
        request_id: request.into(),
        option_id: option.into(),
        reason: String::new(),
        via: String::new(),
    }
}

pub fn awaiting(session: &str, request: &str) -> pb::AwaitPermissionRequest {
    pb::AwaitPermissionRequest {
        session_id: session.into(),
        request_id: request.into(),
    }
}

/// Waits, as the harness does, for the request's resolution through the server at `url`.
pub async fn resolution(url: &str, session: &str, request: &str) -> pb::PermissionResolved {
    permissions(url)
        .await
        .await_permission(awaiting(session, request))
        .await
        .unwrap()
        .into_inner()
        .resolution
        .expect("AwaitPermission answers with the resolution")
}

/// Three pending requests, `perm-1` to `perm-3`, each about its own `bash` call (`c1` to `c3`)
/// in `session`, open for a minute; published with `token` when the server asks for one.
pub async fn three_requests(url: &str, session: &str, token: Option<&str>) {
    let mut events = Vec::new();
    for i in 1..=3 {
        events.push(crate::sessions::bash_call(
            session,
            &format!("e{i}"),
            &format!("c{i}"),
        ));
        events.push(asking(
            session,
            requested(&format!("perm-{i}"), &format!("c{i}"), "Run rm -rf / ?"),
        ));
    }
    let request = pb::PublishRequest { events };
    let mut c = crate::sessions::client(url).await;
    match token {
        Some(t) => c.publish(crate::auth::with_token(request, t)).await,
        None => c.publish(request).await,
    }
    .unwrap();
}

/// A request about `call` ([`requested`]) that expires after `timeout_ms`.
pub fn ask(session: &str, request_id: &str, call: &str, timeout_ms: u64) -> pb::ToolEvent {
    asking(
        session,
        pb::PermissionRequested {
            timeout_ms,
            ..requested(request_id, call, "Run rm -rf build?")
        },
    )
}
