//! `toolview acp`: an Agent Client Protocol agent over stdio that an editor (Zed's custom agent
//! setting) launches to watch a harness's session: JSON-RPC messages, one per line.
//!
//! - `initialize`: the agent can load sessions; the terminal rendering is on when the client's
//!   `clientCapabilities._meta.terminal_output` is `true` (what Zed sends).
//! - `session/load` (the editor opens a session): the session's ACP rendering so far as
//!   `session/update` notifications, then the response, then live updates.
//! - `session/new` (a new thread): the session named by `--session`, replayed (or, with
//!   `--live-only`, the calls in flight first), then live.
//! - `session/list`: the sessions the token may read, a page at a time (`cursor`: the page
//!   token), with their titles and update times, filtered by `cwd` (an exact match; a session
//!   with no cwd is listed as `/`).
//! - `session/resume`: live from the session's head, with no replay; `session/close` stops a
//!   session's stream.
//! - `session_info_update`: the session's title as the server keeps it (the first line of its
//!   first user message, without control characters; what `session/list` shows), once: after
//!   the first user message of a replay from the beginning, at the start of a stream that begins
//!   later (a resume, a live-only thread), or at the first user message when it had none yet.
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

use std::sync::Arc;

use super::acp_relay::Relay;
use super::acp_request::{INVALID_PARAMS, Incoming, Request};
use super::throttle::InputThrottle;
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
    /// At most one `rawInput` replacement per call per this period while its input streams
    /// (`--input-throttle-ms`; zero: every one).
    pub input_throttle: std::time::Duration,
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
    let relay = Arc::new(Relay::new(options.remote.clone(), out_tx.clone()));
    let mut agent = Agent {
        options,
        out: out_tx,
        terminal: false,
        streams: Vec::new(),
        relay,
    };
    while let Some(line) = lines.next().await {
        let line = line.context("reading a message from the editor")?;
        if line.trim().is_empty() {
            continue;
        }
        agent.handle(&line).await?;
    }
    for (_, stream) in &agent.streams {
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
    /// Each watched session's stream (a session may have several: a new thread and a load).
    streams: Vec<(String, tokio::task::JoinHandle<()>)>,
    /// Permission requests asked of the editor.
    relay: Arc<Relay>,
}

/// JSON-RPC error codes.
const INVALID_REQUEST: i64 = -32600;
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
        let Ok(message) = serde_json::from_str::<Incoming>(line) else {
            let error = json!({"code": -32700, "message": "not JSON-RPC"});
            return self
                .send(json!({"jsonrpc": "2.0", "id": null, "error": error}))
                .await;
        };
        let Some(id) = message.id else {
            // Notifications (`session/cancel`): nothing to do for a viewer.
            return Ok(());
        };
        let Some(method) = message.method else {
            if self.relay.answered(&id, message.result).await {
                // The editor's answer to a permission prompt.
                return Ok(());
            }
            return self.fail(&id, INVALID_REQUEST, "no method").await;
        };
        let request = match Request::parse(&method, message.params.unwrap_or(Value::Null)) {
            Ok(request) => request,
            Err((code, why)) => return self.fail(&id, code, &why).await,
        };
        match request {
            Request::Initialize(r) => self.initialize(&id, &r).await,
            Request::Authenticate => self.reply(&id, json!({})).await,
            Request::NewSession => self.new_session(&id).await,
            Request::Load(r) => self.load(&id, r.session_id.to_string()).await,
            Request::List(r) => match self.list(&r).await {
                Ok(response) => self.reply(&id, response).await,
                Err(status) => {
                    let why = format!("{}: {}", code_name(status.code()), status.message());
                    self.fail(&id, INTERNAL_ERROR, &why).await
                }
            },
            Request::Resume(r) => self.resume(&id, r.session_id.to_string()).await,
            Request::Close(r) => self.close(&id, &r.session_id.to_string()).await,
            Request::Prompt(r) => self.prompt(&id, &r.session_id.to_string()).await,
        }
    }

    /// `initialize`: the client's terminal capability noted; toolview's session features.
    async fn initialize(
        &mut self,
        id: &Value,
        request: &acp::InitializeRequest,
    ) -> anyhow::Result<()> {
        self.terminal = request
            .client_capabilities
            .meta
            .as_ref()
            .and_then(|m| m.get("terminal_output"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let info = acp::Implementation::new("toolview", env!("CARGO_PKG_VERSION"))
            .title("toolview".to_owned());
        let sessions = acp::SessionCapabilities::new()
            .list(acp::SessionListCapabilities::new())
            .resume(acp::SessionResumeCapabilities::new())
            .close(acp::SessionCloseCapabilities::new());
        let capabilities = acp::AgentCapabilities::new()
            .load_session(true)
            .session_capabilities(sessions);
        let response =
            acp::InitializeResponse::new(agent_client_protocol_schema::ProtocolVersion::V1)
                .agent_capabilities(capabilities)
                .agent_info(info);
        self.reply(id, response).await
    }

    /// `session/new`: the session `--session` names, replayed (or live only).
    async fn new_session(&mut self, id: &Value) -> anyhow::Result<()> {
        let Some(session) = self.options.session.clone() else {
            let why = "toolview acp shows an existing session: start it with --session \
                       ID, or load one (session/load)";
            return self.fail(id, INVALID_PARAMS, why).await;
        };
        self.reply(id, acp::NewSessionResponse::new(session.clone()))
            .await?;
        // Live only: the title as it is now, said first (the stream may not see the first user
        // message); a replay says it after that message.
        let (start, title) = if self.options.live_only {
            let title = self.describe(&session).await.map(|i| i.title);
            (Start::LiveOnly(pb::StartLiveOnly {}), title)
        } else {
            (Start::FromBeginning(pb::StartFromBeginning {}), None)
        };
        self.watch(session, start, None, title);
        Ok(())
    }

    /// `session/load`: the history first, then the response, then live updates.
    async fn load(&mut self, id: &Value, session: String) -> anyhow::Result<()> {
        if let Some(only) = self.options.session.as_ref().filter(|s| **s != session) {
            let why = format!("this agent shows session {only} only");
            return self.fail(id, INVALID_PARAMS, &why).await;
        }
        let head = self.head(&session).await;
        let (loaded_tx, loaded_rx) = tokio::sync::oneshot::channel();
        let start = Start::FromBeginning(pb::StartFromBeginning {});
        self.watch(session, start, Some((head, loaded_tx)), None);
        match loaded_rx.await {
            Ok(Err(why)) => self.fail(id, INTERNAL_ERROR, &why).await,
            Ok(Ok(())) | Err(_) => self.reply(id, acp::LoadSessionResponse::new()).await,
        }
    }

    /// `session/resume`: live from the head (the editor has the history).
    async fn resume(&mut self, id: &Value, session: String) -> anyhow::Result<()> {
        // Live from the head, with the title as it was there (said first: the stream will not
        // see the first user message).
        let info = self.describe(&session).await;
        let start = match &info {
            Some(info) => Start::After(pb::Cursor {
                offset: info.head_offset,
                epoch: info.epoch.clone(),
            }),
            None => Start::FromBeginning(pb::StartFromBeginning {}),
        };
        self.reply(id, acp::ResumeSessionResponse::new()).await?;
        self.watch(session, start, None, info.map(|i| i.title));
        Ok(())
    }

    /// `session/close`: the session's streams end.
    async fn close(&mut self, id: &Value, session: &str) -> anyhow::Result<()> {
        self.streams.retain(|(s, stream)| {
            if s == session {
                stream.abort();
            }
            s != session
        });
        self.reply(id, acp::CloseSessionResponse::new()).await
    }

    /// `session/prompt`: answered, with a word that prompts go nowhere.
    async fn prompt(&mut self, id: &Value, session: &str) -> anyhow::Result<()> {
        let text = format!(
            "toolview shows what the harness of session {session} does; \
             prompts here go nowhere."
        );
        let chunk = acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(text)));
        let update = acp::SessionNotification::new(
            session.to_owned(),
            acp::SessionUpdate::AgentMessageChunk(chunk),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "session/update", "params": update}))
            .await?;
        self.reply(id, acp::PromptResponse::new(acp::StopReason::EndTurn))
            .await
    }

    /// A page of `session/list`: the server's `ListSessions` page at `cursor`, filtered by `cwd`.
    async fn list(
        &self,
        request: &acp::ListSessionsRequest,
    ) -> Result<acp::ListSessionsResponse, tonic::Status> {
        let mut client = connect(&self.options.remote)
            .await
            .map_err(|e| tonic::Status::unavailable(format!("{e:#}")))?;
        let pb_request = pb::ListSessionsRequest {
            page_size: 0,
            page_token: request.cursor.clone().unwrap_or_default(),
            ..pb::ListSessionsRequest::default()
        };
        let page = client.list_sessions(pb_request).await?.into_inner();
        let cwd = request.cwd.as_deref().and_then(|c| c.to_str());
        let sessions = page
            .sessions
            .into_iter()
            .filter(|s| cwd.is_none_or(|c| s.cwd == c))
            .map(super::acp_sessions::session_info)
            .collect();
        let next = (!page.next_page_token.is_empty()).then_some(page.next_page_token);
        Ok(acp::ListSessionsResponse::new(sessions).next_cursor(next))
    }

    /// The session as it is now (`None` when it has no log, or the server cannot say).
    async fn describe(&self, session: &str) -> Option<pb::GetSessionResponse> {
        let mut client = connect(&self.options.remote).await.ok()?;
        let request = pb::GetSessionRequest {
            session_id: session.to_owned(),
        };
        Some(client.get_session(request).await.ok()?.into_inner())
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
    /// (or why it cannot). `title`: the session's title where the stream starts, said first;
    /// `None` to say it after the first user message the stream shows.
    fn watch(
        &mut self,
        session: String,
        start: Start,
        loaded: Option<(u64, Loaded)>,
        title: Option<String>,
    ) {
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
        let titles = Titles {
            remote: self.options.remote.clone(),
            session: session.clone(),
        };
        let outlet = Outlet {
            out: self.out.clone(),
            relay: self.relay.clone(),
            titles,
            titled: false,
            replaying: loaded.is_some(),
        };
        let throttle = InputThrottle::new(self.options.input_throttle);
        let stream = tokio::spawn(forward(follower, outlet, title, throttle, loaded));
        self.streams.push((session, stream));
    }
}

/// Where the session's title comes from: the server's (what `session/list` shows: the first line
/// of the first user message), never the text a stream happened to see first.
struct Titles {
    remote: Remote,
    session: String,
}

impl Titles {
    /// The `session_info_update` with the session's title as the server has it now, if any.
    async fn update(&self) -> Option<String> {
        let mut client = connect(&self.remote).await.ok()?;
        let request = pb::GetSessionRequest {
            session_id: self.session.clone(),
        };
        let info = client.get_session(request).await.ok()?.into_inner();
        self.said(&info.title)
    }

    /// The `session_info_update` saying `title`; `None` for no title.
    fn said(&self, title: &str) -> Option<String> {
        // Titles stored before control characters were left out of them.
        let title = crate::domain::without_controls(title);
        let title = title.trim();
        if title.is_empty() {
            return None;
        }
        let info = acp::SessionInfoUpdate::new().title(title.to_owned());
        let params = acp::SessionNotification::new(
            self.session.clone(),
            acp::SessionUpdate::SessionInfoUpdate(info),
        );
        Some(json!({"jsonrpc": "2.0", "method": "session/update", "params": params}).to_string())
    }
}

/// Whether `notification` is a user message's chunk (after which the title is said).
fn is_user_chunk(notification: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Notification {
        params: acp::SessionNotification,
    }
    // Only a likely one is parsed: a session with no prompt would parse every notification.
    notification.contains("\"user_message_chunk\"")
        && serde_json::from_str::<Notification>(notification)
            .is_ok_and(|n| matches!(n.params.update, acp::SessionUpdate::UserMessageChunk(_)))
}

/// Told when a loaded session's history was sent: `Err` with why it cannot be.
type Loaded = tokio::sync::oneshot::Sender<Result<(), String>>;

/// Where the session's notifications go: the editor, the approval relay (which asks the editor
/// about permission requests), and the title said after the first user message.
struct Outlet {
    out: mpsc::Sender<String>,
    relay: Arc<Relay>,
    titles: Titles,
    /// The title was said (once: at the start, or when the first user message goes by).
    titled: bool,
    /// A loaded session's history is being sent: its permission requests are held until the
    /// head, where only those still pending are asked.
    replaying: bool,
}

impl Outlet {
    /// Sends one notification; `false` once the editor is gone.
    async fn send(&mut self, json: String) -> bool {
        let user = !self.titled && is_user_chunk(&json);
        if self.out.send(json.clone()).await.is_err() {
            return false;
        }
        match self.replaying {
            true => self.relay.hold(&self.titles.session, &json),
            false => self.relay.notice(&self.titles.session, &json).await,
        }
        if user && let Some(info) = self.titles.update().await {
            self.titled = true;
            return self.out.send(info).await.is_ok();
        }
        true
    }

    async fn send_all(&mut self, jsons: Vec<String>) -> bool {
        for json in jsons {
            if !self.send(json).await {
                return false;
            }
        }
        true
    }
}

/// Forwards the session's notifications until the editor goes or the server refuses, input
/// replacements through the throttle.
async fn forward(
    mut follower: Follower,
    mut outlet: Outlet,
    title: Option<String>,
    mut throttle: InputThrottle,
    mut loaded: Option<(u64, Loaded)>,
) {
    let session = outlet.titles.session.clone();
    let mut reached = 0;
    if let Some(info) = title.and_then(|t| outlet.titles.said(&t)) {
        outlet.titled = true;
        if outlet.out.send(info).await.is_err() {
            return;
        }
    }
    loop {
        if loaded.as_ref().is_some_and(|(head, _)| reached >= *head) {
            let _ = loaded.take().map(|(_, tx)| tx.send(Ok(())));
            outlet.replaying = false;
            outlet.relay.caught_up(&session).await;
        }
        let next = match throttle.next_due() {
            // `Follower::next` is cancel-safe (an item is taken only when it is ready), so a
            // held replacement can go out on time between items.
            Some(due) => tokio::select! {
                next = follower.next() => next,
                () = tokio::time::sleep_until(due.into()) => {
                    if !outlet.send_all(throttle.due(std::time::Instant::now())).await {
                        return;
                    }
                    continue;
                }
            },
            None => follower.next().await,
        };
        match next {
            Ok(Followed::Update(u)) => {
                if let Some(pb::rendered_update::Body::Acp(m)) = u.body {
                    for json in m.json {
                        let now = std::time::Instant::now();
                        if !outlet.send_all(throttle.offer(json, now)).await {
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
                let _ = outlet.send_all(throttle.take_held()).await;
                return refused(session, &status, loaded, &outlet.out).await;
            }
        }
    }
}

/// The server refused the stream: `session/load` answers with why; an open thread is told.
async fn refused(
    session: String,
    status: &tonic::Status,
    loaded: Option<(u64, Loaded)>,
    out: &mpsc::Sender<String>,
) {
    let why = format!(
        "toolview cannot show session {session}: {}: {}",
        code_name(status.code()),
        status.message()
    );
    eprintln!("toolview acp: {why}");
    match loaded {
        Some((_, tx)) => {
            let _ = tx.send(Err(why));
        }
        None => {
            let chunk = acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(why)));
            let update = acp::SessionNotification::new(
                session,
                acp::SessionUpdate::AgentMessageChunk(chunk),
            );
            let message = json!({"jsonrpc": "2.0", "method": "session/update", "params": update});
            let _ = out.send(message.to_string()).await;
        }
    }
}
