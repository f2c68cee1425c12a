//! The conversation around the calls (turns, user and assistant messages, reasoning) through
//! the official client libraries, on `examples/conversation.jsonl` (two turns: a prompt,
//! reasoning, an answer streamed in deltas, two tool calls, a final answer, usage; then a short
//! second turn) published to a real server process:
//! - `@ag-ui/client`'s `HttpAgent` folds it into `agent.messages` in order — from the beginning,
//!   resumed mid-message, and live-only mid-message — with one run per turn, nothing rejected
//!   by `verifyEvents`;
//! - `@agentclientprotocol/sdk` over `toolview acp` gets user, thought (only with `--reasoning`)
//!   and agent chunks and the tool calls in the published order, every message schema-valid.

use serde_json::{Value, json};
use support::node::NodeClient;
use support::process::ServerProcess;

use crate::acp_agent::{check_notifications, client_command};
use crate::agui::{agui_client, calls_and_results, endpoint};

fn conversation() -> Vec<String> {
    support::cli::repo_file("examples/conversation.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Publishes lines `range` (1-based, inclusive) of the conversation to `session`.
fn publish(server: &ServerProcess, session: &str, lines: std::ops::RangeInclusive<usize>) {
    let all = conversation();
    let input = all[lines.start() - 1..*lines.end()].join("\n");
    support::cli::publish_jsonl(&server.url, session, &input);
}

/// `agent.messages` as (role, id, text or tool call ids); the cards' activity messages
/// (tests/interop/agui_activity.rs) left out.
fn messages(report: &Value) -> Vec<(String, String, String)> {
    report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "activity")
        .map(|m| {
            let what = match m["toolCalls"].as_array() {
                Some(calls) => calls
                    .iter()
                    .map(|c| c["id"].as_str().unwrap())
                    .collect::<Vec<_>>()
                    .join(","),
                None => m["content"].as_str().unwrap_or_default().to_owned(),
            };
            let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            (s(&m["role"]), s(&m["id"]), what)
        })
        .collect()
}

const SAY_1: &str = "I'll run the tests and read the config.";
const SAY_2: &str =
    "The test still expects port 3000; it should read `port` from the config (8080).";

/// The whole session as `agent.messages`, with or without the reasoning message.
fn whole(reasoning: bool) -> Vec<(String, String, String)> {
    let mut want = vec![(
        "user",
        "user-1",
        "The tests fail since the port change. Can you fix them?",
    )];
    if reasoning {
        want.push((
            "reasoning",
            "think-1",
            "The port moved to 8080; the tests probably still expect 3000.",
        ));
    }
    want.extend([
        ("assistant", "say-1", SAY_1),
        ("assistant", "bash-1", "bash-1"),
        ("tool", "toolview:{s}:bash-1:result", ""),
        ("assistant", "read-1", "read-1"),
        ("tool", "toolview:{s}:read-1:result", ""),
        ("assistant", "say-2", SAY_2),
        ("user", "user-2", "Thanks!"),
        ("assistant", "say-3", "You're welcome."),
    ]);
    want.into_iter()
        .map(|(r, i, t)| (r.to_owned(), i.to_owned(), t.to_owned()))
        .collect()
}

/// `messages` with tool results' session-specific ids and contents left out.
fn comparable(
    mut got: Vec<(String, String, String)>,
    session: &str,
) -> Vec<(String, String, String)> {
    for m in got.iter_mut().filter(|m| m.0 == "tool") {
        m.1 = m.1.replace(&format!(":{session}:"), ":{s}:");
        m.2.clear();
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_agent_folds_two_turns_in_order_with_one_run_per_turn() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    publish(&server, "conv", 1..=25);
    let url = endpoint(&server);
    for reasoning in [false, true] {
        let options = json!({"follow": false, "capabilities": {"reasoning": reasoning}});
        let node = NodeClient::spawn(agui_client(&[
            "http".into(),
            url.clone(),
            "conv".into(),
            options.to_string(),
        ]));
        let report = tokio::task::spawn_blocking(move || node.finish())
            .await
            .unwrap();
        assert_eq!(
            comparable(messages(&report), "conv"),
            whole(reasoning),
            "{report}"
        );
        assert_eq!(calls_and_results(&report).len(), 2);
        let runs: Vec<&str> = report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["started"].as_str().unwrap())
            .collect();
        assert_eq!(runs, ["conv@beginning", "turn-1", "turn-2"], "{report}");
        let first_turn = &report["runs"][1]["finished"];
        assert_eq!(first_turn["stopReason"], "end_turn");
        assert_eq!(first_turn["cursor"]["offset"], "19");
        assert_eq!(report["runs"][2]["finished"]["cursor"]["offset"], "25");
    }
}

/// A UI resumes after a run that ended mid-message: the message goes on in the same
/// `agent.messages` entry, and the whole session folds as from the beginning.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_agent_resumed_mid_message_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    // Up to say-1's start: "I'll run the tests ".
    publish(&server, "resumed", 1..=8);
    let runs = json!([
        {"follow": false},
        {"follow": false, "after": "last", "pause": true},
    ]);
    let mut node = NodeClient::spawn(agui_client(&[
        "http".into(),
        endpoint(&server),
        "resumed".into(),
        runs.to_string(),
    ]));
    node.wait_for("paused");
    publish(&server, "resumed", 9..=25);
    node.say("go");
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(
        comparable(messages(&report), "resumed"),
        whole(false),
        "{report}"
    );
    assert_eq!(report["runs"][1]["started"], "turn-1");
    assert_eq!(
        report["runs"][1]["finished"]["cursor"]["offset"], "8",
        "{report}"
    );
}

/// A live-only run joining mid-message is shown the open turn and the message's text so far,
/// then its deltas; messages finished before the join are not shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_agent_joining_live_mid_message_gets_its_text_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    publish(&server, "live", 1..=8);
    let options = json!({"liveOnly": true});
    // Ends (aborted) once the first tool result arrived.
    let mut node = NodeClient::spawn(agui_client(&[
        "http".into(),
        endpoint(&server),
        "live".into(),
        options.to_string(),
        "1".into(),
    ]));
    node.wait_for("ready");
    publish(&server, "live", 9..=13);
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    let got = comparable(messages(&report), "live");
    assert_eq!(got, whole(false)[1..4].to_vec(), "{report}");
    let events: Vec<&str> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(
        events[..4],
        [
            "RUN_STARTED",
            "RUN_FINISHED",
            "RUN_STARTED",
            "TEXT_MESSAGE_START"
        ],
        "the open turn, then the message so far: {report}"
    );
    assert_eq!(report["runs"][1]["started"], "turn-1");
}

/// What `toolview tail --target acp` prints for the session: the notifications' params.
fn rendered_acp(server: &str, session: &str, reasoning: bool) -> Vec<Value> {
    let mut args = vec![
        "tail",
        "--server",
        server,
        "--session",
        session,
        "--target",
        "acp",
        "--no-follow",
    ];
    if reasoning {
        args.push("--reasoning");
    }
    let ran = support::cli::run(&args);
    assert!(ran.ok, "{}", ran.stderr);
    ran.stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["params"].clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acp_client_gets_the_conversation_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    publish(&server, "acp-conv", 1..=25);
    for reasoning in [false, true] {
        let want = rendered_acp(&server.url, "acp-conv", reasoning);
        let mut cmd = client_command(&server.url, "acp-conv", "load", false, want.len() + 1);
        cmd.env("TOOLVIEW_ACP_REASONING", if reasoning { "1" } else { "0" });
        let client = NodeClient::spawn(cmd);
        let report = tokio::task::spawn_blocking(move || client.finish())
            .await
            .unwrap();
        let all = report["notifications"].as_array().unwrap();
        check_notifications(all);
        // The agent adds the session's title after the first user message's chunk.
        let info = |n: &Value| n["update"]["sessionUpdate"] == "session_info_update";
        let at = all.iter().position(info).expect("a session_info_update");
        assert_eq!(all[at - 1]["update"]["messageId"], "user-1");
        assert_eq!(
            all[at]["update"]["title"],
            "The tests fail since the port change. Can you fix them?"
        );
        let got: Vec<Value> = all.iter().filter(|n| !info(n)).cloned().collect();
        assert_eq!(got, want, "every notification accepted");
        let got = &got;
        // Kinds in the published order, consecutive repeats folded.
        let mut kinds: Vec<String> = Vec::new();
        for n in got {
            let update = &n["update"];
            let kind = update["sessionUpdate"].as_str().unwrap();
            let label = match update["messageId"].as_str() {
                Some(id) => format!("{kind}:{id}"),
                None => kind.to_owned(),
            };
            if kinds.last() != Some(&label) {
                kinds.push(label);
            }
        }
        let mut expected = vec!["user_message_chunk:user-1"];
        if reasoning {
            expected.push("agent_thought_chunk:think-1");
        }
        expected.extend([
            "agent_message_chunk:say-1",
            "tool_call",
            "tool_call_update",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk:say-2",
            "usage_update",
            "user_message_chunk:user-2",
            "agent_message_chunk:say-3",
        ]);
        assert_eq!(kinds, expected, "{got:?}");
        let say_1: String = got
            .iter()
            .filter(|n| n["update"]["messageId"] == "say-1")
            .map(|n| n["update"]["content"]["text"].as_str().unwrap())
            .collect();
        assert_eq!(say_1, SAY_1);
        let usage = got
            .iter()
            .find(|n| n["update"]["sessionUpdate"] == "usage_update")
            .unwrap();
        assert_eq!(usage["update"]["used"], 5400);
        assert_eq!(usage["update"]["size"], 200000);
    }
}
