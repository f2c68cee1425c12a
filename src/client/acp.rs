//! `toolview acp`: an Agent Client Protocol agent over stdio that an editor (Zed's custom agent
//! setting) launches to watch a harness's session: JSON-RPC messages, one per line.
//!
//! - `initialize`: the agent can load sessions; the terminal rendering is on when the client's
//!   `clientCapabilities._meta.terminal_output` is `true` (what Zed sends).
//! - `session/load` (the editor opens a session): the session's ACP rendering so far as
//!   `session/update` notifications, then the response, then live updates.
//! - `session/new` (a new thread): the session named by `--session`, replayed (or, with
//!   `--live-only`, the calls in flight first), then live.
//! - `session/prompt`: the agent only shows what the harness does; it says so and ends the
//!   turn.
//!
//! A broken connection to the server is followed again after the last cursor (said on
//! stderr); a refusal (a session the token may not read, …) is said to the editor.

use agent_client_protocol_schema::v1 as acp;
use anyhow::Context as _;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;
use tokio::sync::mpsc;
use tokio_stream::StreamExt as _;
use tokio_util::codec::{FramedRead, LinesCodec};

use super::{Followed, Follower, Remote, connect};
use crate::grpc::code_name;
use crate::grpc::pb::{self, subscribe_request::Start};
use crate::render::{Capabilities, Target};

/// The longest message the agent reads from the editor (prompts with pasted files).
pub const MAX_LINE_BYTES: usize = 16 << 20;
/// Notifications waiting for stdout at most (the editor reads them as fast as it renders).
const OUTBOX: usize = 1024;

/// What `toolview acp` was told.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The server the sessions are read from.
    pub remote: Remote,
    /// The session `session/new` shows; `session/load` may name any (the token's grants
    /// decide).
    pub session: Option<String>,
    /// `session/new` starts live (calls in flight first) instead of replaying the session.
    pub live_only: bool,
    /// Thought chunks for the agent's reasoning (`--reasoning`).
    pub reasoning: bool,
}

/// Serves ACP on stdin and stdout until stdin closes.
pub async fn serve_stdio(options: AgentOptions) -> anyhow::Result<()> {
    let (out_tx, mut out_rx) = mpsc::channel::<String>(OUTBOX);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = out_rx.recv().await {
            stdout.write_all(line.as_bytes()).await?;
            stdout.write_all(b"\n").await?;
            stdout.flush().await?;
        }
        anyhow::Ok(())
    });
    let mut lines = FramedRead::new(
        tokio::io::stdin(),
        LinesCodec::new_with_max_length(MAX_LINE_BYTES),
    );
    let mut agent = Agent {
        options,
        out: out_tx,
        terminal: false,
        streams: Vec::new(),
    };
    while let Some(line) = lines.next().await {
        let line = line.context("reading a message from the editor")?;
        if line.trim().is_empty() {
            continue;
        }
        agent.handle(&line).await?;
    }
    for stream in &agent.streams {
        stream.abort();
    }
    drop(agent);
    writer.await??;
    Ok(())
}

struct Agent {
    options: AgentOptions,
    out: mpsc::Sender<String>,
    terminal: bool,
    streams: Vec<tokio::task::JoinHandle<()>>,
}

/// JSON-RPC error codes.
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

impl Agent {
    async fn send(&self, message: Value) -> anyhow::Result<()> {
        self.out
            .send(message.to_string())
            .await
            .context("stdout closed")
    }

    async fn reply(&self, id: &Value, result: impl serde::Serialize) -> anyhow::Result<()> {
        let result = serde_json::to_value(result)?;
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await
    }

    async fn fail(&self, id: &Value, code: i64, message: &str) -> anyhow::Result<()> {
        let error = json!({"code": code, "message": message});
        self.send(json!({"jsonrpc": "2.0", "id": id, "error": error}))
            .await
    }

    async fn handle(&mut self, line: &str) -> anyhow::Result<()> {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            let error = json!({"code": -32700, "message": "not JSON"});
            return self
                .send(json!({"jsonrpc": "2.0", "id": null, "error": error}))
                .await;
        };
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let params = &message["params"];
        let Some(id) = message.get("id").cloned() else {
            // Notifications (`session/cancel`) and responses: nothing to do for a viewer.
            return Ok(());
        };
        if method.is_empty() {
            return self.fail(&id, INVALID_REQUEST, "no method").await;
        }
        match method.as_str() {
            "initialize" => {
                self.terminal = params["clientCapabilities"]["_meta"]["terminal_output"]
                    .as_bool()
                    .unwrap_or(false);
                let info = acp::Implementation::new("toolview", env!("CARGO_PKG_VERSION"))
                    .title("toolview".to_owned());
                let response =
                    acp::InitializeResponse::new(agent_client_protocol_schema::ProtocolVersion::V1)
                        .agent_capabilities(acp::AgentCapabilities::new().load_session(true))
                        .agent_info(info);
                self.reply(&id, response).await
            }
            "authenticate" => self.reply(&id, json!({})).await,
            "session/new" => {
                let Some(session) = self.options.session.clone() else {
                    let why = "toolview acp shows an existing session: start it with --session \
                               ID, or load one (session/load)";
                    return self.fail(&id, INVALID_PARAMS, why).await;
                };
                self.reply(&id, acp::NewSessionResponse::new(session.clone()))
                    .await?;
                let start = if self.options.live_only {
                    Start::LiveOnly(pb::StartLiveOnly {})
                } else {
                    Start::FromBeginning(pb::StartFromBeginning {})
                };
                self.watch(session, start, None);
                Ok(())
            }
            "session/load" => {
                let Some(session) = params["sessionId"].as_str().map(str::to_owned) else {
                    return self.fail(&id, INVALID_PARAMS, "sessionId: not set").await;
                };
                if let Some(only) = self.options.session.as_ref().filter(|s| **s != session) {
                    let why = format!("this agent shows session {only} only");
                    return self.fail(&id, INVALID_PARAMS, &why).await;
                }
                // The history first, then the response, then live updates.
                let head = self.head(&session).await;
                let (loaded_tx, loaded_rx) = tokio::sync::oneshot::channel();
                let start = Start::FromBeginning(pb::StartFromBeginning {});
                self.watch(session, start, Some((head, loaded_tx)));
                match loaded_rx.await {
                    Ok(Err(why)) => self.fail(&id, INTERNAL_ERROR, &why).await,
                    Ok(Ok(())) | Err(_) => self.reply(&id, acp::LoadSessionResponse::new()).await,
                }
            }
            "session/prompt" => {
                let session = params["sessionId"].as_str().unwrap_or_default();
                let text = format!(
                    "toolview shows what the harness of session {session} does; \
                     prompts here go nowhere."
                );
                let chunk =
                    acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(text)));
                let update = acp::SessionNotification::new(
                    session.to_owned(),
                    acp::SessionUpdate::AgentMessageChunk(chunk),
                );
                self.send(json!({"jsonrpc": "2.0", "method": "session/update",
                    "params": update}))
                    .await?;
                self.reply(&id, acp::PromptResponse::new(acp::StopReason::EndTurn))
                    .await
            }
            _ => {
                let why = format!("{method}: not supported by toolview");
                self.fail(&id, METHOD_NOT_FOUND, &why).await
            }
        }
    }

    /// The session's head now (0 when it has none, or the server cannot say).
    async fn head(&self, session: &str) -> u64 {
        let Ok(mut client) = connect(&self.options.remote).await else {
            return 0;
        };
        let request = pb::GetSessionRequest {
            session_id: session.to_owned(),
        };
        client
            .get_session(request)
            .await
            .map_or(0, |r| r.into_inner().head_offset)
    }

    /// Streams the session's ACP rendering to the editor, following it again after the last
    /// cursor when the connection breaks. With `loaded`, says when the replay reached `head`
    /// (or why it cannot).
    fn watch(&mut self, session: String, start: Start, loaded: Option<(u64, Loaded)>) {
        let caps = Capabilities {
            reasoning: self.options.reasoning,
            ..Capabilities::all(self.terminal)
        };
        let follower = Follower::new(
            self.options.remote.clone(),
            &session,
            Target::Acp,
            caps,
            start,
            true,
        );
        let out = self.out.clone();
        self.streams
            .push(tokio::spawn(forward(follower, session, out, loaded)));
    }
}

/// Told when a loaded session's history was sent: `Err` with why it cannot be.
type Loaded = tokio::sync::oneshot::Sender<Result<(), String>>;

/// Forwards the session's notifications until the editor goes or the server refuses.
async fn forward(
    mut follower: Follower,
    session: String,
    out: mpsc::Sender<String>,
    mut loaded: Option<(u64, Loaded)>,
) {
    let mut reached = 0;
    loop {
        if loaded.as_ref().is_some_and(|(head, _)| reached >= *head) {
            let _ = loaded.take().map(|(_, tx)| tx.send(Ok(())));
        }
        match follower.next().await {
            Ok(Followed::Update(u)) => {
                if let Some(pb::rendered_update::Body::Acp(m)) = u.body {
                    for json in m.json {
                        if out.send(json).await.is_err() {
                            return;
                        }
                    }
                }
                reached = u.cursor.map_or(reached, |c| c.offset);
            }
            // Idle: everything up to the head was sent.
            Ok(Followed::Heartbeat { head }) => reached = head,
            Ok(Followed::Reset { epoch, .. }) => {
                eprintln!(
                    "toolview acp: the session's log was replaced (epoch {epoch}); showing it anew"
                );
                reached = 0;
            }
            Ok(Followed::Reconnecting { why, pause }) => {
                let at = follower.resume_point();
                eprintln!("toolview acp: {why}; reconnecting in {pause:.1?}, resuming {at}");
            }
            Err(status) => {
                let why = format!(
                    "toolview cannot show session {session}: {}: {}",
                    code_name(status.code()),
                    status.message()
                );
                eprintln!("toolview acp: {why}");
                match loaded.take() {
                    // `session/load` answers with the error.
                    Some((_, tx)) => {
                        let _ = tx.send(Err(why));
                    }
                    // A thread already open: the editor shows why it stopped.
                    None => {
                        let chunk = acp::ContentChunk::new(acp::ContentBlock::Text(
                            acp::TextContent::new(why),
                        ));
                        let update = acp::SessionNotification::new(
                            session,
                            acp::SessionUpdate::AgentMessageChunk(chunk),
                        );
                        let message =
                            json!({"jsonrpc": "2.0", "method": "session/update", "params": update});
                        let _ = out.send(message.to_string()).await;
                    }
                }
                return;
            }
        }
    }
}
