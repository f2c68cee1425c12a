//! Helpers for session tests: event builders, publish, subscribe and collect.

use std::time::Duration;

use tonic::transport::Channel;
use toolview::grpc::pb::{self, session_service_client::SessionServiceClient, tool_event::Event};

pub type Client = SessionServiceClient<Channel>;

/// Generous upper bound on waiting for a stream item, so a broken server fails the test
/// instead of hanging it. Not a performance assertion.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub async fn client(url: &str) -> Client {
    SessionServiceClient::connect(url.to_owned()).await.unwrap()
}

pub fn text(t: &str) -> pb::ContentBlock {
    pb::ContentBlock {
        block: Some(pb::content_block::Block::Text(pb::TextContent {
            text: t.into(),
        })),
    }
}

pub fn ev(session: &str, id: &str, event: Event) -> pb::ToolEvent {
    pb::ToolEvent {
        session_id: session.into(),
        event_id: id.into(),
        event: Some(event),
    }
}

pub fn start_call(session: &str, id: &str, call: &str, tool: &str, args: &str) -> pb::ToolEvent {
    ev(
        session,
        id,
        Event::CallStarted(pb::ToolCallStarted {
            parent_call_id: String::new(),
            input_streaming: false,
            call_id: call.into(),
            tool_name: tool.into(),
            arguments_json: args.into(),
            view: None,
        }),
    )
}

/// A `bash` call that renders as a terminal card.
pub fn bash_call(session: &str, id: &str, call: &str) -> pb::ToolEvent {
    start_call(
        session,
        id,
        call,
        "bash",
        r#"{"command":"yes","description":"y"}"#,
    )
}

pub fn output(session: &str, id: &str, call: &str, data: &str) -> pb::ToolEvent {
    ev(
        session,
        id,
        Event::CallOutput(pb::ToolCallOutput {
            call_id: call.into(),
            data: data.into(),
        }),
    )
}

pub fn finish(session: &str, id: &str, call: &str, result: &str, meta: &str) -> pb::ToolEvent {
    ev(
        session,
        id,
        Event::CallFinished(pb::ToolCallFinished {
            call_id: call.into(),
            content: vec![text(result)],
            is_error: false,
            meta_json: meta.into(),
            view: None,
        }),
    )
}

pub async fn publish(
    c: &mut Client,
    events: Vec<pb::ToolEvent>,
) -> Result<Vec<pb::PublishAck>, tonic::Status> {
    c.publish(pb::PublishRequest { events })
        .await
        .map(|r| r.into_inner().acks)
}

/// `GetSession`.
pub async fn get_session(
    c: &mut Client,
    id: &str,
) -> Result<pb::GetSessionResponse, tonic::Status> {
    c.get_session(pb::GetSessionRequest {
        session_id: id.into(),
    })
    .await
    .map(tonic::Response::into_inner)
}

pub fn request(
    session: &str,
    target: pb::Target,
    terminal: bool,
    start: pb::subscribe_request::Start,
) -> pb::SubscribeRequest {
    pb::SubscribeRequest {
        session_id: session.into(),
        target: target as i32,
        capabilities: Some(pb::Capabilities {
            terminal,
            diff: terminal,
            read: terminal,
            search: terminal,
            web: terminal,
            max_output_bytes: 0,
            tool_colors: false,
            output_appends: false,
            reasoning: terminal,
        }),
        start: Some(start),
    }
}

pub fn from_beginning() -> pb::subscribe_request::Start {
    pb::subscribe_request::Start::FromBeginning(pb::StartFromBeginning {})
}

pub fn after(offset: u64, epoch: &str) -> pb::subscribe_request::Start {
    pb::subscribe_request::Start::After(pb::Cursor {
        offset,
        epoch: epoch.into(),
    })
}

pub async fn subscribe(
    c: &mut Client,
    req: pb::SubscribeRequest,
) -> tonic::Streaming<pb::SubscribeResponse> {
    c.subscribe(req).await.unwrap().into_inner()
}

/// The next non-heartbeat item.
pub async fn next_item(
    s: &mut tonic::Streaming<pb::SubscribeResponse>,
) -> Result<Option<pb::subscribe_response::Item>, tonic::Status> {
    loop {
        let msg = tokio::time::timeout(PATIENCE, s.message())
            .await
            .expect("the stream stalled")?;
        match msg.and_then(|m| m.item) {
            Some(pb::subscribe_response::Item::Heartbeat(_)) => continue,
            other => return Ok(other),
        }
    }
}

/// Reads updates until one has offset `last`; returns them (panics on resets or errors).
pub async fn updates_until(
    s: &mut tonic::Streaming<pb::SubscribeResponse>,
    last: u64,
) -> Vec<pb::RenderedUpdate> {
    let mut out = Vec::new();
    loop {
        match next_item(s).await.unwrap() {
            Some(pb::subscribe_response::Item::Update(u)) => {
                let offset = u.cursor.as_ref().unwrap().offset;
                out.push(u);
                if offset >= last {
                    return out;
                }
            }
            other => panic!("expected an update, got {other:?}"),
        }
    }
}

pub fn offsets(updates: &[pb::RenderedUpdate]) -> Vec<u64> {
    updates
        .iter()
        .map(|u| u.cursor.as_ref().unwrap().offset)
        .collect()
}

/// A realistic session: a read, an edit with before/after meta, a streamed failing bash
/// command, a grep, a web fetch, and a todo list.
pub fn sample_session(s: &str) -> Vec<pb::ToolEvent> {
    vec![
        ev(
            s,
            "e1",
            Event::SessionStarted(pb::SessionStarted {
                cwd: "/work/proj".into(),
            }),
        ),
        start_call(
            s,
            "e2",
            "r1",
            "read",
            r#"{"file_path":"/work/proj/src/a.ts"}"#,
        ),
        finish(
            s,
            "e3",
            "r1",
            "<path>/work/proj/src/a.ts</path>\n<type>file</type>\n<content>\n1: const a = 1\n</content>",
            r#"{"path":"/work/proj/src/a.ts","offset":1,"totalLines":1,"lang":"ts","lines":[{"number":1,"text":"const a = 1"}]}"#,
        ),
        start_call(
            s,
            "e4",
            "w1",
            "edit",
            r#"{"file_path":"src/a.ts","old_string":"1","new_string":"2"}"#,
        ),
        finish(
            s,
            "e5",
            "w1",
            "ok",
            r#"{"before":"const a = 1\n","after":"const a = 2\n"}"#,
        ),
        start_call(
            s,
            "e6",
            "b1",
            "bash",
            r#"{"command":"npm test","description":"Run tests"}"#,
        ),
        output(s, "e7", "b1", "running\n"),
        output(s, "e8", "b1", "1 failing\n"),
        finish(s, "e9", "b1", "running\n1 failing\n[exit code: 2]", ""),
        start_call(s, "e10", "g1", "grep", r#"{"pattern":"TODO"}"#),
        finish(
            s,
            "e11",
            "g1",
            "Found 1",
            r#"{"shape":"matches","truncated":false,"total":1,"files":[{"path":"src/a.ts","matches":[{"lineNumber":1,"line":"// TODO"}]}]}"#,
        ),
        start_call(
            s,
            "e12",
            "f1",
            "web_fetch",
            r#"{"url":"https://example.test"}"#,
        ),
        finish(
            s,
            "e13",
            "f1",
            "# Example",
            r#"{"url":"https://example.test/","statusCode":200,"truncated":false}"#,
        ),
        start_call(
            s,
            "e14",
            "t1",
            "todo_write",
            r#"{"todos":[{"content":"ship","status":"in_progress"}]}"#,
        ),
        finish(s, "e15", "t1", "ok", ""),
    ]
}

/// The next item of a fleet watch (`WatchSessions`), within 10 s (a watch that goes quiet fails
/// the test instead of hanging it).
pub async fn next_watched(
    stream: &mut tonic::Streaming<pb::WatchSessionsResponse>,
) -> pb::watch_sessions_response::Item {
    let item = tokio::time::timeout(std::time::Duration::from_secs(10), stream.message())
        .await
        .expect("an item within 10 s")
        .unwrap()
        .expect("the stream goes on");
    item.item.expect("an item is set")
}

/// A turn `turn` starts in `s` (event `id`).
pub fn turn(s: &str, id: &str, turn: &str) -> pb::ToolEvent {
    ev(
        s,
        id,
        Event::TurnStarted(pb::TurnStarted {
            turn_id: turn.into(),
        }),
    )
}

/// The turn `turn` of `s` ends for `reason` (event `id`), having read 120 tokens and written 30.
pub fn turn_end(s: &str, id: &str, turn: &str, reason: pb::StopReason) -> pb::ToolEvent {
    ev(
        s,
        id,
        Event::TurnFinished(pb::TurnFinished {
            turn_id: turn.into(),
            stop_reason: reason as i32,
            usage: Some(pb::TokenUsage {
                input_tokens: 120,
                output_tokens: 30,
                ..pb::TokenUsage::default()
            }),
        }),
    )
}
