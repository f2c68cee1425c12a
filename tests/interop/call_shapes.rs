//! Calls as models make them, on a real server process, read by the official clients: a 40 KB
//! `Write` whose arguments arrive in 200 pieces — the AI SDK's `readUIMessageStream` shows the
//! part `input-streaming` as it grows, then `input-available` with the whole input; AG-UI's
//! `HttpAgent` accepts the ARGS pieces (its `verifyEvents`), also across a run that ends and one
//! that resumes inside the input, and holds the whole arguments; and a replay is byte-identical.

use serde_json::{Value, json};
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb::{self, tool_event::Event};

use crate::agui::agui_client;

/// Pieces of the `Write` call's arguments.
const PIECES: usize = 200;

/// The `Write` arguments (a 40 KB file) and their JSON text.
fn write_args() -> (Value, String) {
    let content: String = (0..900)
        .map(|i| format!("line {i:04}: the quick brown fox jumps over it\n"))
        .collect();
    let args = json!({"file_path": "/work/proj/big.txt", "content": content});
    let text = args.to_string();
    (args, text)
}

/// The call's events: a streaming start with the first piece, the other pieces, the whole
/// arguments, the result. Event `e{n}` is the `n`th.
fn streamed_write(s: &str, text: &str) -> Vec<pb::ToolEvent> {
    let size = text.len().div_ceil(PIECES);
    let pieces: Vec<&str> = text
        .as_bytes()
        .chunks(size)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    assert_eq!(pieces.len(), PIECES);
    let mut events = vec![ev(
        s,
        "e1",
        Event::CallStarted(pb::ToolCallStarted {
            parent_call_id: String::new(),
            call_id: "w1".into(),
            tool_name: "Write".into(),
            arguments_json: pieces[0].into(),
            view: None,
            input_streaming: true,
        }),
    )];
    for (i, piece) in pieces.iter().enumerate().skip(1) {
        events.push(ev(
            s,
            &format!("e{}", i + 1),
            Event::CallInputDelta(pb::ToolCallInputDelta {
                call_id: "w1".into(),
                text: (*piece).into(),
            }),
        ));
    }
    events.push(ev(
        s,
        &format!("e{}", PIECES + 1),
        Event::CallInputComplete(pb::ToolCallInputComplete {
            call_id: "w1".into(),
            arguments_json: text.into(),
            view: None,
        }),
    ));
    events.push(finish(s, &format!("e{}", PIECES + 2), "w1", "written", ""));
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_readers_follow_a_streamed_input() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    let (args, text) = write_args();
    assert!(text.len() > 40_000);
    publish(&mut c, streamed_write("big", &text)).await.unwrap();

    // The AI SDK: the part grows `input-streaming` piece by piece, then the whole input.
    let report = ai_sdk_replay(&server.url, "big").await;
    let states = &report["inputStates"]["w1"];
    let streaming = states["streaming"].as_u64().unwrap();
    assert!(streaming >= 50, "{streaming} input-streaming states");
    let lengths: Vec<u64> = states["lengths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap())
        .collect();
    assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
    let part = report["message"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "dynamic-tool")
        .unwrap();
    assert_eq!(part["state"], "output-available", "{part}");
    assert_eq!(part["input"], args);

    // AG-UI: one run to the head, and a run that ends inside the input and one that resumes.
    let url = format!("{}/ag-ui", server.url);
    let report = agui_replay(&server.url, "big").await;
    assert_eq!(arguments(&report, "w1"), text, "one run");
    assert!(
        crate::agui::calls_and_results(&report)["w1"].contains("written"),
        "{report}"
    );

    let events = streamed_write("cut", &text);
    publish(&mut c, events[..PIECES / 2].to_vec())
        .await
        .unwrap();
    let runs = json!([{"follow": false}, {"follow": false, "after": "last", "pause": true}]);
    let mut node = NodeClient::spawn(agui_client(&["http", &url, "cut", &runs.to_string()]));
    node.wait_for("paused");
    publish(&mut c, events[PIECES / 2..].to_vec())
        .await
        .unwrap();
    node.say("go");
    let both = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(arguments(&both, "w1"), text, "two runs");

    // A replay is byte-identical, in every target.
    assert_replays_agree(&server.url, "big", (PIECES + 2) as u64).await;
}

/// Two replays of a session up to offset `last` are the same, in every target.
async fn assert_replays_agree(url: &str, session: &str, last: u64) {
    for target in [
        pb::Target::View,
        pb::Target::Acp,
        pb::Target::AgUi,
        pb::Target::AiSdk,
        pb::Target::Markdown,
        pb::Target::Ansi,
    ] {
        let replay = || async {
            let mut c = client(url).await;
            let start = pb::subscribe_request::Start::FromBeginning(pb::StartFromBeginning {});
            let request = pb::SubscribeRequest {
                session_id: session.into(),
                target: target as i32,
                capabilities: None,
                start: Some(start),
            };
            let mut s = subscribe(&mut c, request).await;
            updates_until(&mut s, last).await
        };
        assert_eq!(replay().await, replay().await, "{target:?}");
    }
}

/// The AI SDK reader's report of a session replayed to its head (`POST /ai-sdk`), with no error.
async fn ai_sdk_replay(url: &str, session: &str) -> Value {
    let body = json!({"id": session, "messages": [], "toolview": {"follow": false}});
    let mut cmd = support::node::script("ai_sdk_client");
    cmd.args(["post", &format!("{url}/ai-sdk"), &body.to_string()]);
    let node = NodeClient::spawn(cmd);
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(report["errors"], json!([]), "{report}");
    report
}

/// `HttpAgent`'s report of one run over a session to its head.
async fn agui_replay(url: &str, session: &str) -> Value {
    let args = [
        "http".to_owned(),
        format!("{url}/ag-ui"),
        session.to_owned(),
        json!({"follow": false}).to_string(),
    ];
    tokio::task::spawn_blocking(move || NodeClient::spawn(agui_client(&args)).finish())
        .await
        .unwrap()
}

/// The server's ACP rendering of a session, a notification per line (`tail --no-follow`).
fn acp_rendering(url: &str, session: &str) -> Vec<String> {
    support::cli::tail(url, session, "acp")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The arguments the AG-UI client holds for a call: exactly one tool call with that id.
fn arguments(report: &Value, call: &str) -> String {
    let calls: Vec<&Value> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["toolCalls"].as_array().into_iter().flatten())
        .filter(|c| c["id"] == call)
        .collect();
    assert_eq!(calls.len(), 1, "{report}");
    calls[0]["function"]["arguments"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The ACP SDK client over `toolview acp`, live while the input streams: the call shows
/// `pending` with its input at once (before any replacement), each notification validates, and
/// the agent lets through at most one `rawInput` replacement per call per 100 ms (its default
/// throttle) — fewer than the server sent — the last input whole at completion.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_sees_the_input_grow_at_most_ten_times_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    let (args, text) = write_args();
    let events = streamed_write("acp-in", &text);
    publish(&mut c, events[..1].to_vec()).await.unwrap();
    let mut cmd = crate::acp_agent::client_command(&server.url, "acp-in", "new", false, 0);
    cmd.env("TOOLVIEW_ACP_UNTIL", "completed");
    let mut node = NodeClient::spawn(cmd);
    node.wait_for("ready");
    // The model writes: a piece every 5 ms (bounded: 200 pieces, about a second).
    for event in &events[1..] {
        publish(&mut c, vec![event.clone()]).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    let notifications = report["notifications"].as_array().unwrap();
    crate::acp_agent::check_notifications(notifications);
    let received: Vec<f64> = report["received"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect();
    let first = &notifications[0]["update"];
    assert_eq!(first["sessionUpdate"], "tool_call", "{first}");
    assert!(first["rawInput"].is_object(), "{first}");
    let replacement = |n: &Value| n["update"]["_meta"]["toolview"]["input"] == "streaming";
    let at: Vec<f64> = notifications
        .iter()
        .zip(&received)
        .filter(|(n, _)| replacement(n))
        .map(|(_, t)| *t)
        .collect();
    let sent_by_server = server_replacements(&server.url, "acp-in");
    assert!(at.len() >= 2, "{} replacements", at.len());
    assert!(
        at.len() < sent_by_server,
        "{} let through of {sent_by_server}: the throttle held none back",
        at.len()
    );
    // At most one per 100 ms over the span they cover (one more for where the span starts).
    let span = at.last().unwrap() - at.first().unwrap();
    eprintln!(
        "acp input replacements: {} let through in {span:.0} ms, of {sent_by_server} the server sent",
        at.len()
    );
    assert!(
        at.len() as f64 <= span / 100.0 + 2.0,
        "{} replacements in {span:.0} ms",
        at.len()
    );
    let completed = notifications
        .iter()
        .rev()
        .find(|n| n["update"]["status"] == "in_progress")
        .unwrap();
    assert_eq!(completed["update"]["rawInput"], args);
}

/// How many input replacements the server's ACP rendering of a session has.
fn server_replacements(server: &str, session: &str) -> usize {
    acp_rendering(server, session)
        .iter()
        .filter(|l| l.contains(r#""toolview":{"input":"streaming"}"#))
        .count()
}

/// A session with a subagent (`tests/data/subagent.jsonl`: a parent call, three children of
/// which one fails, a grandchild that outlives its parent, a subagent's message) through the
/// official clients: the ACP SDK client validates every notification (the children's
/// `parentCallId`, the parent's progress in its title), `HttpAgent` accepts the stream and holds
/// every call once with its result, and the AI SDK reader ends every tool part.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_session_reads_through_every_official_client() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let file = support::cli::repo_file("tests/data/subagent.jsonl");
    support::cli::publish_jsonl(&server.url, "sub", &file);

    // ACP: as many notifications as the server renders; all valid, the children linked.
    let want = acp_rendering(&server.url, "sub").len();
    let node = NodeClient::spawn(crate::acp_agent::client_command(
        &server.url,
        "sub",
        "load",
        false,
        want,
    ));
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    let notifications = report["notifications"].as_array().unwrap();
    assert_eq!(notifications.len(), want, "{report}");
    crate::acp_agent::check_notifications(notifications);
    let parent_of = |id: &str| {
        notifications
            .iter()
            .find(|n| {
                n["update"]["sessionUpdate"] == "tool_call" && n["update"]["toolCallId"] == id
            })
            .map(|n| n["update"]["_meta"]["toolview"]["parentCallId"].clone())
            .unwrap()
    };
    assert_eq!(parent_of("grep1"), "task1");
    assert_eq!(parent_of("nested1"), "bash1");
    assert_eq!(parent_of("task1"), Value::Null);
    let titles: Vec<&str> = notifications
        .iter()
        .filter(|n| n["update"]["toolCallId"] == "task1")
        .filter_map(|n| n["update"]["title"].as_str())
        .collect();
    assert!(
        titles.contains(&"Find the flaky test (1 running, 1 done, 1 failed)"),
        "{titles:?}"
    );

    // AG-UI: every call once, each with its result; the parent's card counts its children.
    let report = agui_replay(&server.url, "sub").await;
    let results = crate::agui::calls_and_results(&report);
    assert_eq!(results.len(), 5, "{report}");
    let card = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "activity" && m["content"]["callId"] == "task1")
        .unwrap();
    assert_eq!(
        card["content"]["children"],
        json!({"running": 0, "done": 1, "failed": 2, "latest": "cargo test net -- --test-threads 1"})
    );

    // The AI SDK: no error, every tool part ended, the children's cards linked.
    let report = ai_sdk_replay(&server.url, "sub").await;
    let parts = report["message"]["parts"].as_array().unwrap();
    let tools: Vec<&Value> = parts
        .iter()
        .filter(|p| p["type"] == "dynamic-tool")
        .collect();
    assert_eq!(tools.len(), 5);
    assert!(
        tools
            .iter()
            .all(|t| t["state"] == "output-available" || t["state"] == "output-error")
    );
    let grandchild = parts
        .iter()
        .find(|p| p["type"] == "data-toolview-card" && p["id"] == "nested1")
        .unwrap();
    assert_eq!(grandchild["data"]["parentCallId"], "bash1");
    assert_eq!(grandchild["data"]["depth"], 2);
}

/// The offline renders of both test sessions (`toolview render`) through the official clients'
/// own pipelines: AG-UI's `verifyEvents` and `defaultApplyEvents` (a call's pieces, its end at
/// completion, a call that finished while its input streamed, the children's cards) and the AI
/// SDK's `readUIMessageStream` (every tool part ends with an output or an error).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_renders_of_both_shapes_pass_the_client_pipelines() {
    for (file, calls) in [
        ("tests/data/streamed_input.jsonl", 3),
        ("tests/data/subagent.jsonl", 5),
    ] {
        let input = support::cli::repo_file(file);
        let agui = support::cli::run_with_stdin(&["render", "--target", "ag-ui"], &input);
        assert!(agui.ok, "{}", agui.stderr);
        let report = tokio::task::spawn_blocking(move || {
            let mut node = NodeClient::spawn(agui_client(&["offline", "demo"]));
            node.say(&agui.stdout);
            node.finish()
        })
        .await
        .unwrap();
        assert_eq!(
            crate::agui::calls_and_results(&report).len(),
            calls,
            "{file}: {report}"
        );

        let chunks = support::cli::run_with_stdin(&["render", "--target", "ai-sdk"], &input);
        assert!(chunks.ok, "{}", chunks.stderr);
        let report = tokio::task::spawn_blocking(move || {
            let mut cmd = support::node::script("ai_sdk_client");
            cmd.arg("offline");
            let mut node = NodeClient::spawn(cmd);
            node.say(&chunks.stdout);
            node.finish()
        })
        .await
        .unwrap();
        assert_eq!(report["errors"], json!([]), "{file}: {report}");
        let tools: Vec<&Value> = report["message"]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["type"] == "dynamic-tool")
            .collect();
        assert_eq!(tools.len(), calls, "{file}");
        assert!(
            tools
                .iter()
                .all(|t| t["state"] == "output-available" || t["state"] == "output-error"),
            "{file}: {report}"
        );
    }
}
