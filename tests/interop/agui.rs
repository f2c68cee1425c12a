//! The AG-UI endpoint (`POST /ag-ui`) against the official client: an unmodified `HttpAgent`
//! from `@ag-ui/client` 1.0 (its `runAgent` pipeline: `verifyEvents`, `defaultApplyEvents`) on
//! a real server process — replays, a resumed run, a live-only run that joins mid-call, with
//! terminal cards on and off — and the same pipeline over `toolview render --target ag-ui`.
//! Every run must be accepted, and the folded messages must hold each call once, with its
//! result, and no result without its call. Also the endpoint's HTTP contract: SSE framing,
//! `Last-Event-ID`, refusals that name the field, and tokens.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::auth::{secret_server, token};
use support::http::exchange as http;
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn agui_client<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Command {
    let mut cmd = support::node::script("agui_client");
    cmd.args(args);
    cmd
}

/// Runs the client to its end (with `stdin` as its input); its report.
fn node_client(args: &[&str], stdin: Option<&str>) -> Value {
    let mut client = NodeClient::spawn(agui_client(args));
    if let Some(input) = stdin {
        client.say(input);
    }
    client.finish()
}

/// The client's folded messages: every tool call once, each with exactly one result, and no
/// result (or update) for a call it was not shown. Returns the results by call id.
pub(crate) fn calls_and_results(report: &Value) -> HashMap<String, String> {
    let messages = report["messages"].as_array().unwrap();
    let mut calls = HashMap::new();
    for m in messages.iter().filter(|m| m["role"] == "assistant") {
        for c in m["toolCalls"].as_array().into_iter().flatten() {
            let id = c["id"].as_str().unwrap().to_owned();
            assert!(
                calls.insert(id.clone(), c.clone()).is_none(),
                "call {id} twice"
            );
        }
    }
    let mut results = HashMap::new();
    for m in messages.iter().filter(|m| m["role"] == "tool") {
        let id = m["toolCallId"].as_str().unwrap().to_owned();
        assert!(
            calls.contains_key(&id),
            "a result for call {id}, never shown"
        );
        let content = m["content"].as_str().unwrap_or_default().to_owned();
        assert!(
            results.insert(id.clone(), content).is_none(),
            "result of {id} twice"
        );
    }
    results
}

/// The calls of `sample_session` (support/sessions.rs): 15 events.
const SAMPLE_CALLS: [&str; 6] = ["b1", "f1", "g1", "r1", "t1", "w1"];

fn sample_call_ids(report: &Value) -> Vec<String> {
    let mut ids: Vec<String> = calls_and_results(report).into_keys().collect();
    ids.sort();
    ids
}

/// The call ids of `examples/sample-session.jsonl`, sorted.
fn example_call_ids(jsonl: &str) -> Vec<String> {
    let mut ids: Vec<String> = jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let e: Value = serde_json::from_str(l).unwrap();
            e["callStarted"]["callId"].as_str().map(str::to_owned)
        })
        .collect();
    ids.sort();
    ids
}

pub(crate) fn endpoint(server: &ServerProcess) -> String {
    format!("{}/ag-ui", server.url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_agent_replays_a_session_and_finishes_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(&mut c, sample_session("agui")).await.unwrap();
    let url = endpoint(&server);
    for terminal in [false, true] {
        let options = json!({"follow": false, "capabilities": {"terminal": terminal}});
        let report = tokio::task::spawn_blocking({
            let url = url.clone();
            move || node_client(&["http", &url, "agui", &options.to_string()], None)
        })
        .await
        .unwrap();
        let mut want: Vec<String> = SAMPLE_CALLS.iter().map(|s| (*s).to_owned()).collect();
        want.sort();
        assert_eq!(sample_call_ids(&report), want, "{report}");
        let results = calls_and_results(&report);
        assert!(results["b1"].contains("1 failing"), "{report}");
        let events = report["events"].as_array().unwrap();
        assert_eq!(events.first().unwrap(), "RUN_STARTED");
        assert_eq!(events.last().unwrap(), "RUN_FINISHED");
        assert_eq!(report["runs"][0]["started"], "agui@beginning");
        assert_eq!(report["runs"][0]["finished"]["cursor"]["offset"], "15");
    }
}

/// A UI resumes: a second run on the same agent after the first run's cursor, with a call
/// in flight across the two; and an empty session finishes at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_agent_resumes_after_its_cursor_mid_call() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let url = endpoint(&server);
    for terminal in [false, true] {
        let s = format!("r-{terminal}");
        let mut c = client(&server.url).await;
        publish(
            &mut c,
            vec![bash_call(&s, "e1", "c1"), output(&s, "e2", "c1", "one\n")],
        )
        .await
        .unwrap();
        // Run 1 shows the call and its first output and finishes at the head; the harness
        // goes on; run 2 (same agent) resumes after run 1's cursor.
        let caps = json!({"terminal": terminal});
        let runs = json!([
            {"follow": false, "capabilities": caps},
            {"follow": false, "after": "last", "pause": true, "capabilities": caps},
        ]);
        let mut node = NodeClient::spawn(agui_client(&["http", &url, &s, &runs.to_string()]));
        node.wait_for("paused");
        publish(
            &mut c,
            vec![
                output(&s, "e3", "c1", "two\n"),
                finish(&s, "e4", "c1", "done", ""),
                bash_call(&s, "e5", "c2"),
                finish(&s, "e6", "c2", "ok", ""),
            ],
        )
        .await
        .unwrap();
        node.say("go");
        let both = tokio::task::spawn_blocking(move || node.finish())
            .await
            .unwrap();
        let results = calls_and_results(&both);
        assert_eq!(results.len(), 2, "{both}");
        assert!(results["c1"].contains("done"), "{both}");
        assert_eq!(both["runs"][0]["started"], format!("{s}@beginning"));
        assert_eq!(both["runs"][0]["finished"]["cursor"]["offset"], "2");
        let second = both["runs"][1]["started"].as_str().unwrap();
        assert!(
            second.starts_with(&format!("{s}@")) && second.ends_with(":2"),
            "{second}"
        );
        assert_eq!(both["runs"][1]["finished"]["cursor"]["offset"], "6");
    }

    let empty = tokio::task::spawn_blocking(move || {
        node_client(&["http", &url, "nobody-yet", r#"{"follow":false}"#], None)
    })
    .await
    .unwrap();
    assert_eq!(empty["events"], json!(["RUN_STARTED", "RUN_FINISHED"]));
}

/// A live-only run that joins while a call runs is shown the call first (its start, its
/// arguments, its output so far), so its later output and result are for a call it knows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_agent_joining_live_mid_call_is_shown_the_call_first() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![
            bash_call("l", "e0", "before"),
            finish("l", "e0f", "before", "finished before the join", ""),
        ],
    )
    .await
    .unwrap();
    for terminal in [false, true] {
        let call = format!("c-{terminal}");
        publish(
            &mut c,
            vec![
                bash_call("l", &format!("{call}-1"), &call),
                output("l", &format!("{call}-2"), &call, "early output\n"),
            ],
        )
        .await
        .unwrap();
        let options = json!({"liveOnly": true, "capabilities": {"terminal": terminal}});
        let url = endpoint(&server);
        let mut node =
            NodeClient::spawn(agui_client(&["http", &url, "l", &options.to_string(), "1"]));
        // Once the run has started and its catch-up arrived, the call goes on.
        node.wait_for("ready");
        publish(
            &mut c,
            vec![
                output("l", &format!("{call}-3"), &call, "late output\n"),
                finish("l", &format!("{call}-4"), &call, "all done", ""),
            ],
        )
        .await
        .unwrap();
        let report = tokio::task::spawn_blocking(move || node.finish())
            .await
            .unwrap();
        // Only the call in flight: finished calls are not shown to a live-only run.
        let results = calls_and_results(&report);
        assert_eq!(results.keys().collect::<Vec<_>>(), [&call], "{report}");
        assert!(results[&call].contains("all done"), "{report}");
        let events = report["events"].as_array().unwrap();
        assert_eq!(events[0], "RUN_STARTED");
        assert_eq!(
            events[1], "TOOL_CALL_START",
            "the catch-up comes first: {report}"
        );
        assert_eq!(report["runs"][0]["started"], "l@live");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_renders_pass_the_client_pipeline() {
    let sample = std::fs::read_to_string(root().join("examples/sample-session.jsonl")).unwrap();
    for terminal in [false, true] {
        let mut args = vec!["render", "--target", "ag-ui"];
        if terminal {
            args.push("--terminal");
        }
        let mut child = support::cli::command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(sample.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let events = String::from_utf8(out.stdout).unwrap();
        let report =
            tokio::task::spawn_blocking(move || node_client(&["offline", "demo"], Some(&events)))
                .await
                .unwrap();
        assert_eq!(
            sample_call_ids(&report),
            example_call_ids(&sample),
            "{report}"
        );
        assert_eq!(report["runs"][0]["started"], "demo@render");
    }
}

/// The `data:` payloads of an SSE body (chunked transfer framing tolerated: payload lines are
/// whole JSON objects).
fn data_lines(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_speaks_sse_resumes_by_last_event_id_and_names_bad_fields() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    let acks = publish(&mut c, sample_session("sse")).await.unwrap();
    let epoch = acks[0].cursor.as_ref().unwrap().epoch.clone();
    let body = json!({"threadId": "sse", "forwardedProps": {"toolview": {"follow": false}}});
    let (head, sse) = http(server.addr(), "POST /ag-ui HTTP/1.1\r\n", &body.to_string());
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/event-stream")
    );
    assert!(sse.contains(&format!("id: {epoch}:15\n")), "{sse}");
    let resumed_head = format!("POST /ag-ui HTTP/1.1\r\nLast-Event-ID: {epoch}:14\r\n");
    let (_, resumed) = http(server.addr(), &resumed_head, &body.to_string());
    let events = data_lines(&resumed);
    assert_eq!(events[0]["runId"], format!("sse@{epoch}:14"));
    // Only the last event's update (offset 15: the todo call's result) after the cursor.
    assert_eq!(events[1]["type"], "TOOL_CALL_RESULT", "{resumed}");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    // Resumed at the head without following: the run finishes at once, with that cursor.
    let at_head = format!("POST /ag-ui HTTP/1.1\r\nLast-Event-ID: {epoch}:15\r\n");
    let (_, done) = http(server.addr(), &at_head, &body.to_string());
    let events = data_lines(&done);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["RUN_STARTED", "RUN_FINISHED"], "{done}");
    assert_eq!(events[1]["result"]["cursor"]["offset"], "15");

    for (body, field) in [
        ("{}".to_owned(), "threadId"),
        (json!({"threadId": "a b"}).to_string(), "threadId"),
        (
            json!({"threadId": "s", "forwardedProps": {"toolview": {"liveOnly": true,
                "after": {"epoch": "e", "offset": "1"}}}})
            .to_string(),
            "liveOnly",
        ),
    ] {
        let (head, answer) = http(server.addr(), "POST /ag-ui HTTP/1.1\r\n", &body);
        assert!(head.starts_with("HTTP/1.1 400"), "{head}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["code"], "INVALID_ARGUMENT");
        assert!(
            answer["error"].as_str().unwrap().contains(field),
            "{answer}"
        );
    }

    // A body over the limit is refused like the rest: 413 with `{"error", "code"}`.
    let small_dir = tempfile::tempdir().unwrap();
    let small = ServerProcess::spawn(
        small_dir.path(),
        &["--store", "memory", "--max-message-size", "65536"],
    );
    let big = json!({"threadId": "sse", "state": "x".repeat(100_000)}).to_string();
    let (head, answer) = http(small.addr(), "POST /ag-ui HTTP/1.1\r\n", &big);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["code"], "RESOURCE_EXHAUSTED", "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("65536"),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_takes_the_same_tokens_and_grants() {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path(), &[]);
    let body = json!({"threadId": "team-a/s", "forwardedProps": {"toolview": {"follow": false}}})
        .to_string();
    let (head, answer) = http(server.addr(), "POST /ag-ui HTTP/1.1\r\n", &body);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    assert!(answer.contains("UNAUTHENTICATED"), "{answer}");
    let other = token(&["subscribe"], &["team-b/*"]);
    let with_other = format!("POST /ag-ui HTTP/1.1\r\nAuthorization: Bearer {other}\r\n");
    let (head, _) = http(server.addr(), &with_other, &body);
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
    let good = token(&["subscribe"], &["team-a/*"]);
    let url = endpoint(&server);
    let report = tokio::task::spawn_blocking(move || {
        let mut cmd = agui_client(&["http", &url, "team-a/s", r#"{"follow":false}"#]);
        cmd.env("TOOLVIEW_TOKEN", good);
        NodeClient::spawn(cmd).finish()
    })
    .await
    .unwrap();
    assert_eq!(report["events"], json!(["RUN_STARTED", "RUN_FINISHED"]));
}
