//! The AI SDK endpoint (`POST /ai-sdk`, `GET /ai-sdk/{id}/stream`) against the official `ai`
//! package on a real server process: every test session read through the package's own
//! pipeline (`parseJsonEventStream` with `uiMessageChunkSchema`, then `readUIMessageStream`) from
//! the beginning and live-only mid-call — no schema error, no "No tool invocation found", every
//! tool part ending `output-available` or `output-error` — a `Chat` with `DefaultChatTransport`
//! (send, then a resumed stream, and a 204 for a chat with nothing to resume), the same chunks
//! as the offline `toolview render --target ai-sdk`, and refusals that name the field.

use serde_json::{Value, json};
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::*;

use support::http::exchange as http;

fn ai_sdk_client(args: &[&str]) -> NodeClient {
    let mut cmd = support::node::script("ai_sdk_client");
    cmd.args(args);
    NodeClient::spawn(cmd)
}

fn endpoint(server: &ServerProcess) -> String {
    format!("{}/ai-sdk", server.url)
}

/// No error, and every tool part ended with an output or an error; the tool parts' ids.
fn check(report: &Value) -> Vec<String> {
    assert_eq!(report["errors"], json!([]), "{report}");
    let parts = report["message"]["parts"].as_array().unwrap();
    let tools: Vec<&Value> = parts
        .iter()
        .filter(|p| p["type"] == "dynamic-tool")
        .collect();
    for t in &tools {
        let state = t["state"].as_str().unwrap();
        assert!(
            state == "output-available" || state == "output-error",
            "{t} in {report}"
        );
    }
    tools
        .iter()
        .map(|t| t["toolCallId"].as_str().unwrap().to_owned())
        .collect()
}

fn publish_file(server: &ServerProcess, session: &str, path: &str) {
    support::cli::publish_jsonl(&server.url, session, &support::cli::repo_file(path));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_test_session_reads_through_the_sdk_from_the_beginning() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(&mut c, sample_session("sample")).await.unwrap();
    publish_file(&server, "example", "examples/sample-session.jsonl");
    publish_file(&server, "chat", "examples/conversation.jsonl");
    let url = endpoint(&server);
    let example_calls = support::cli::repo_file("examples/sample-session.jsonl")
        .matches("\"callStarted\"")
        .count();
    for (session, calls) in [("sample", 6), ("example", example_calls), ("chat", 2)] {
        for caps in [
            json!({}),
            json!({"terminal": true, "reasoning": true, "outputAppends": true}),
        ] {
            let body = json!({"id": session, "messages": [], "trigger": "submit-message",
                "toolview": {"follow": false, "capabilities": caps}});
            let node = ai_sdk_client(&["post", &url, &body.to_string()]);
            let report = tokio::task::spawn_blocking(move || node.finish())
                .await
                .unwrap();
            assert_eq!(report["header"], "v1");
            assert_eq!(check(&report).len(), calls, "{session}: {report}");
            let types = report["types"].as_array().unwrap();
            assert_eq!(types.first().unwrap(), "start");
            assert_eq!(types.last().unwrap(), "finish");
        }
    }
}

/// A live-only stream joining mid-call is shown the call first, so its output applies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_stream_joining_mid_call_is_shown_the_call_first() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![
            bash_call("l", "e0", "before"),
            finish("l", "e0f", "before", "finished before the join", ""),
            bash_call("l", "e1", "c1"),
            output("l", "e2", "c1", "early\n"),
        ],
    )
    .await
    .unwrap();
    let body = json!({"id": "l", "messages": [], "toolview": {"liveOnly": true}});
    let mut node = ai_sdk_client(&["post", &endpoint(&server), &body.to_string(), "1"]);
    node.wait_for("ready");
    publish(
        &mut c,
        vec![
            output("l", "e3", "c1", "late\n"),
            finish("l", "e4", "c1", "all done", ""),
        ],
    )
    .await
    .unwrap();
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(check(&report), ["c1"], "only the call in flight: {report}");
    let types = report["types"].as_array().unwrap();
    assert_eq!(
        types[..2],
        [json!("start"), json!("tool-input-start")],
        "{report}"
    );
}

/// `useChat`'s own classes on every test session: a `Chat` sends a prompt (told it goes
/// nowhere) and gets the session's message; `resumeStream` replays it into the same message,
/// every tool part ending with its output or error; a chat with no session has nothing to
/// resume (204).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_with_the_default_transport_sends_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(&mut c, sample_session("sample")).await.unwrap();
    publish_file(&server, "example", "examples/sample-session.jsonl");
    for session in ["sample", "example"] {
        let node = ai_sdk_client(&["chat", &endpoint(&server), session]);
        let report = tokio::task::spawn_blocking(move || node.finish())
            .await
            .unwrap();
        assert_eq!(report["errors"], json!([]), "{session}: {report}");
        assert_eq!(report["resumed"], report["sent"], "{session}: {report}");
        let message = json!({"errors": [], "message": report["resumed"][1]});
        assert!(!check(&message).is_empty(), "{session}: {report}");
    }
    publish_file(&server, "chat", "examples/conversation.jsonl");
    let node = ai_sdk_client(&["chat", &endpoint(&server), "chat"]);
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(report["errors"], json!([]), "{report}");
    let sent = report["sent"].as_array().unwrap();
    assert_eq!(
        sent.len(),
        2,
        "the prompt and the session's message: {report}"
    );
    assert_eq!(sent[1]["role"], "assistant");
    assert_eq!(sent[1]["id"], "toolview:chat");
    assert_eq!(
        report["resumed"], report["sent"],
        "a resume replays into the same message"
    );
    assert_eq!(report["nothing"], json!([]));
    assert_eq!(report["prompts"].as_array().unwrap().len(), 1, "{report}");
    let text: String = sent[1]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "text")
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert!(
        text.contains("I'll run the tests and read the config."),
        "{text}"
    );
}

/// The endpoint sends exactly the chunks `toolview render --target ai-sdk` prints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_and_the_offline_render_give_the_same_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    publish_file(&server, "chat", "examples/conversation.jsonl");
    let input = support::cli::repo_file("examples/conversation.jsonl");
    let offline =
        support::cli::run_with_stdin(&["render", "--target", "ai-sdk", "--terminal"], &input);
    assert!(offline.ok, "{}", offline.stderr);
    let body = json!({"id": "chat", "toolview": {"follow": false,
        "capabilities": {"terminal": true, "diff": true, "read": true, "search": true, "web": true}}});
    let (head, sse) = http(
        server.addr(),
        "POST /ai-sdk HTTP/1.1\r\n",
        &body.to_string(),
    );
    assert!(head.contains("x-vercel-ai-ui-message-stream: v1"), "{head}");
    let sent: Vec<&str> = sse
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    assert_eq!(sent.last(), Some(&"[DONE]"));
    let offline: Vec<&str> = offline.stdout.lines().collect();
    assert_eq!(sent[..sent.len() - 1], offline[..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_name_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    for (head, body, status, want) in [
        ("POST /ai-sdk HTTP/1.1\r\n", "{}", "400", "id: missing"),
        (
            "POST /ai-sdk HTTP/1.1\r\n",
            r#"{"id":"a b"}"#,
            "400",
            "id: may only contain",
        ),
        (
            "GET /ai-sdk/s/stream?follow=maybe HTTP/1.1\r\n",
            "",
            "400",
            "follow: not true or false",
        ),
        (
            "GET /ai-sdk/s/other HTTP/1.1\r\n",
            "",
            "404",
            "resume is {id}/stream",
        ),
        ("GET /ai-sdk/nobody/stream HTTP/1.1\r\n", "", "204", ""),
    ] {
        let (got_head, got) = http(server.addr(), head, body);
        assert!(
            got_head.starts_with(&format!("HTTP/1.1 {status}")),
            "{head}: {got_head}"
        );
        assert!(got.contains(want), "{head}: {got}");
    }
}
