//! `toolview acp` relays permission requests to the editor: a pending request the session's
//! ACP rendering shows (`_meta.toolview.permission`) becomes `session/request_permission`, the
//! editor's choice an answer through `PermissionService` (`via: acp`), and a decision made
//! elsewhere — another UI, the expiry, a withdrawal — withdraws the editor's prompt with
//! `$/cancel_request`. The editor's `cancelled` (its Stop button) abstains: in the common ACP
//! agents a `cancelled` ends the user's whole turn, so it is never taken for a reject. A token
//! without the `approve` right on the session (`GetSession`'s `rights`) is never asked: the
//! prompt shows read-only in the call's card.

use std::collections::HashMap;
use std::time::Duration;

use agent_client_protocol_schema::v1 as acp;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::remote::{Remote, bearer, channel};
use crate::domain::permission::OptionKind;
use crate::grpc::pb::{self, permission_service_client::PermissionServiceClient};
use crate::render::acp_meta::ToolviewMeta;
use crate::render::permission::{PermissionPrompt, PromptState};

/// How long an answer to the server may take before it is given up (the editor's choice is
/// then lost; the prompt shows again on the next connection).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// Prompts asked and not yet answered, at most: past it the oldest is forgotten (its answer is
/// then ignored), so an editor that never answers cannot grow this.
const MAX_ASKED: usize = 1024;

/// A prompt the editor was asked.
#[derive(Debug, Clone)]
struct Asked {
    session: String,
    request: String,
}

/// The relay's state: the prompts out with the editor, by their JSON-RPC id.
pub struct Relay {
    remote: Remote,
    out: mpsc::Sender<String>,
    asked: parking_lot::Mutex<HashMap<String, Asked>>,
    /// Per session being replayed: the requests pending so far in the replay, in order, with
    /// the notification that showed each (at most [`MAX_ASKED`] a session).
    held: parking_lot::Mutex<HashMap<String, Vec<(String, Shown)>>>,
    /// Per session: whether this token may answer its requests ([`Relay::may_answer`]).
    approve: parking_lot::Mutex<HashMap<String, bool>>,
    next: std::sync::atomic::AtomicU64,
}

/// A permission prompt the session's ACP rendering showed, and the card it is on.
#[derive(Debug, Clone)]
struct Shown {
    tool_call: String,
    prompt: Box<PermissionPrompt>,
}

/// The parts of a `session/update` notification the relay reads.
#[derive(Deserialize)]
struct Notification {
    params: Params,
}

#[derive(Deserialize)]
struct Params {
    update: Update,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Update {
    #[serde(default)]
    tool_call_id: String,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct Meta {
    toolview: Option<ToolviewMeta>,
}

/// A notification about a permission request, read; `None` for any other.
fn permission_message(notification: &str) -> Option<Shown> {
    // Only a likely one is parsed: most notifications are about calls and messages.
    if !notification.contains("\"permission\"") {
        return None;
    }
    let update = serde_json::from_str::<Notification>(notification)
        .ok()?
        .params
        .update;
    let prompt = update.meta?.toolview?.permission?;
    Some(Shown {
        tool_call: update.tool_call_id,
        prompt,
    })
}

impl Relay {
    /// A relay answering through `remote`, writing to the editor through `out`.
    pub fn new(remote: Remote, out: mpsc::Sender<String>) -> Self {
        Relay {
            remote,
            out,
            asked: parking_lot::Mutex::default(),
            held: parking_lot::Mutex::default(),
            approve: parking_lot::Mutex::default(),
            next: std::sync::atomic::AtomicU64::new(1),
        }
    }

    /// Looks at one notification forwarded to the editor: a pending request that has not
    /// expired is asked; a decided one withdraws the prompt still out for it.
    pub async fn notice(&self, session: &str, notification: &str) {
        if let Some(shown) = permission_message(notification) {
            self.act(session, &shown).await;
        }
    }

    /// Looks at one notification of a replay without asking: only the requests still pending
    /// when the replay reaches the head are asked ([`Self::caught_up`]), so a late editor is
    /// never asked about a request decided further on in the log.
    pub fn hold(&self, session: &str, notification: &str) {
        let Some(shown) = permission_message(notification) else {
            return;
        };
        let request = shown.prompt.request_id.clone();
        let mut held = self.held.lock();
        let pending = held.entry(session.to_owned()).or_default();
        pending.retain(|(r, _)| *r != request);
        if shown.prompt.state == PromptState::Pending && pending.len() < MAX_ASKED {
            pending.push((request, shown));
        }
    }

    /// The replay of `session` reached the head: asks about the requests still pending there.
    pub async fn caught_up(&self, session: &str) {
        let pending = self.held.lock().remove(session).unwrap_or_default();
        for (_, shown) in pending {
            self.act(session, &shown).await;
        }
    }

    async fn act(&self, session: &str, shown: &Shown) {
        let prompt = &shown.prompt;
        let pending = prompt.state == PromptState::Pending;
        let asked = self.out_for(session, &prompt.request_id);
        match (pending, asked) {
            (true, None) => {
                if prompt.expires_at_ms > now_ms() && self.may_answer(session).await {
                    self.ask(session, shown).await;
                }
            }
            (false, Some(id)) => {
                self.asked.lock().remove(&id);
                let cancel = acp::CancelRequestNotification::new(acp::RequestId::Str(id));
                let message =
                    json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": cancel});
                let _ = self.out.send(message.to_string()).await;
            }
            (true, Some(_)) | (false, None) => {}
        }
    }

    /// Whether this token may answer `session`'s requests (the `approve` right, as `GetSession`
    /// says). Without it the editor is never asked: the prompt shows read-only, in the call's
    /// card. Asked of the server once per session; a server that does not say (before
    /// `rights`), or cannot now, is taken to allow it (its answer then decides).
    async fn may_answer(&self, session: &str) -> bool {
        if let Some(known) = self.approve.lock().get(session) {
            return *known;
        }
        let rights = async {
            let mut client = super::remote::connect(&self.remote).await.ok()?;
            let request = pb::GetSessionRequest {
                session_id: session.to_owned(),
            };
            Some(client.get_session(request).await.ok()?.into_inner().rights)
        };
        let may = match rights.await {
            Some(rights) if !rights.is_empty() => rights.iter().any(|r| r == "approve"),
            _ => true,
        };
        if !may {
            eprintln!(
                "toolview acp: this token may not answer {session}'s permission requests (it \
                 lacks the approve right): they are shown read-only"
            );
        }
        self.approve.lock().insert(session.to_owned(), may);
        may
    }

    fn out_for(&self, session: &str, request: &str) -> Option<String> {
        self.asked
            .lock()
            .iter()
            .find(|(_, a)| a.session == session && a.request == request)
            .map(|(id, _)| id.clone())
    }

    async fn ask(&self, session: &str, shown: &Shown) {
        let request = shown.prompt.request_id.as_str();
        let options: Vec<acp::PermissionOption> = shown
            .prompt
            .options
            .iter()
            .map(|o| {
                let kind = match o.kind {
                    OptionKind::AllowOnce => acp::PermissionOptionKind::AllowOnce,
                    OptionKind::AllowAlways => acp::PermissionOptionKind::AllowAlways,
                    OptionKind::RejectOnce => acp::PermissionOptionKind::RejectOnce,
                    OptionKind::RejectAlways => acp::PermissionOptionKind::RejectAlways,
                };
                acp::PermissionOption::new(o.option_id.clone(), o.name.clone(), kind)
            })
            .collect();
        let call = acp::ToolCallUpdate::new(
            shown.tool_call.clone(),
            acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::Pending),
        );
        let toolview = ToolviewMeta {
            permission: Some(shown.prompt.clone()),
            ..ToolviewMeta::default()
        };
        let mut meta = serde_json::Map::new();
        meta.insert(
            "toolview".into(),
            serde_json::to_value(toolview).unwrap_or_default(),
        );
        let params =
            acp::RequestPermissionRequest::new(session.to_owned(), call, options).meta(meta);
        let id = format!(
            "toolview-permission-{}",
            self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        {
            let mut asked = self.asked.lock();
            if asked.len() >= MAX_ASKED
                && let Some(oldest) = asked.keys().min().cloned()
            {
                asked.remove(&oldest);
            }
            asked.insert(
                id.clone(),
                Asked {
                    session: session.to_owned(),
                    request: request.to_owned(),
                },
            );
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission", "params": params});
        let _ = self.out.send(message.to_string()).await;
    }

    /// Takes the editor's answer to a prompt (a JSON-RPC response); `false` when the response is
    /// not to one. A selected option is sent to the server; `cancelled` or an error abstains.
    pub async fn answered(&self, id: &Value, result: Option<Value>) -> bool {
        let Some(id) = id.as_str() else {
            return false;
        };
        let Some(asked) = self.asked.lock().remove(id) else {
            return id.starts_with("toolview-permission-");
        };
        let response =
            result.and_then(|r| serde_json::from_value::<acp::RequestPermissionResponse>(r).ok());
        // Cancelled, or an error: the editor abstains.
        let Some(acp::RequestPermissionOutcome::Selected(selected)) = response.map(|r| r.outcome)
        else {
            return true;
        };
        let option = selected.option_id.to_string();
        if let Err(e) = self.respond(&asked, &option).await {
            eprintln!(
                "toolview acp: the editor's answer to {} was not taken: {e}",
                asked.request
            );
        }
        true
    }

    async fn respond(&self, asked: &Asked, option: &str) -> anyhow::Result<()> {
        let mut client = PermissionServiceClient::with_interceptor(
            channel(&self.remote).await?,
            bearer(&self.remote)?,
        );
        let request = pb::RespondPermissionRequest {
            session_id: asked.session.clone(),
            request_id: asked.request.clone(),
            option_id: option.to_owned(),
            reason: String::new(),
            via: "acp".into(),
        };
        tokio::time::timeout(ANSWER_TIMEOUT, client.respond_permission(request))
            .await
            .map_err(|_| anyhow::anyhow!("no answer from the server within {ANSWER_TIMEOUT:?}"))?
            .map_err(|s| {
                anyhow::anyhow!("{}: {}", crate::grpc::code_name(s.code()), s.message())
            })?;
        Ok(())
    }
}

/// Milliseconds since the Unix epoch, by this machine's clock (a request's expiry is the
/// server's wall-clock time).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
