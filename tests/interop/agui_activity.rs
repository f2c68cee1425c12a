//! Cards as AG-UI activity messages: with `@ag-ui/client`'s `HttpAgent` on a real server,
//! `agent.messages` holds one `role: "activity"` message per call (`activityType:
//! "toolview.card"`) whose content is the call's VIEW card — the same JSON as the AI SDK's
//! `data-toolview-card` for the same capabilities — from the beginning, resumed across two runs,
//! and live-only mid-call (its output patched in with `ACTIVITY_DELTA`).

use std::collections::BTreeMap;

use serde_json::{Value, json};
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::*;

use crate::agui::{agui_client, endpoint};

/// Every card on, as `toolview render --terminal` renders.
fn all_caps() -> Value {
    json!({"terminal": true, "diff": true, "read": true, "search": true, "web": true})
}

/// The activity messages by call id (each call once).
fn activities(report: &Value) -> BTreeMap<String, Value> {
    let mut cards = BTreeMap::new();
    for m in report["messages"].as_array().unwrap() {
        if m["role"] != "activity" {
            continue;
        }
        assert_eq!(m["activityType"], "toolview.card", "{m}");
        let call = m["content"]["callId"].as_str().unwrap().to_owned();
        assert_eq!(m["id"], format!("toolview:card:{call}"));
        assert!(cards.insert(call, m["content"].clone()).is_none(), "{m}");
    }
    cards
}

/// The last VIEW card of each call, as `toolview render --target ai-sdk --terminal` gives them.
fn view_cards(jsonl: &str) -> BTreeMap<String, Value> {
    let ran = support::cli::run_with_stdin(&["render", "--target", "ai-sdk", "--terminal"], jsonl);
    assert!(ran.ok, "{}", ran.stderr);
    let mut cards = BTreeMap::new();
    for line in ran.stdout.lines() {
        let chunk: Value = serde_json::from_str(line).unwrap();
        if chunk["type"] == "data-toolview-card" {
            cards.insert(
                chunk["id"].as_str().unwrap().to_owned(),
                chunk["data"].clone(),
            );
        }
    }
    cards
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_card_is_one_activity_message_with_the_view_card() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let jsonl = support::cli::repo_file("examples/sample-session.jsonl");
    let lines: Vec<&str> = jsonl.lines().filter(|l| !l.trim().is_empty()).collect();
    let publish = |from: usize, to: usize| {
        support::cli::publish_jsonl(&server.url, "demo", &lines[from..to].join("\n"));
    };
    let want = view_cards(&jsonl);
    assert!(want.len() >= 5, "{want:?}");

    // Resumed: the first run ends halfway, the second resumes after its cursor.
    publish(0, lines.len() / 2);
    let runs = json!([
        {"follow": false, "capabilities": all_caps()},
        {"follow": false, "after": "last", "pause": true, "capabilities": all_caps()},
    ]);
    let mut node = NodeClient::spawn(agui_client(&[
        "http".into(),
        endpoint(&server),
        "demo".into(),
        runs.to_string(),
    ]));
    node.wait_for("paused");
    publish(lines.len() / 2, lines.len());
    node.say("go");
    let resumed = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(activities(&resumed), want, "resumed");

    // From the beginning.
    let options = json!({"follow": false, "capabilities": all_caps()});
    let node = NodeClient::spawn(agui_client(&[
        "http".into(),
        endpoint(&server),
        "demo".into(),
        options.to_string(),
    ]));
    let replayed = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(activities(&replayed), want, "from the beginning");
}

/// A live-only run joining mid-call gets the card as it is (its output so far), then its later
/// output as `ACTIVITY_DELTA`s and its result as a new snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_join_mid_call_gets_the_card_then_its_patches() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![
            bash_call("l", "e1", "c1"),
            output("l", "e2", "c1", "early\n"),
        ],
    )
    .await
    .unwrap();
    let options = json!({"liveOnly": true, "capabilities": {"terminal": true}});
    let mut node = NodeClient::spawn(agui_client(&[
        "http".into(),
        endpoint(&server),
        "l".into(),
        options.to_string(),
        "1".into(),
    ]));
    node.wait_for("ready");
    publish(
        &mut c,
        vec![
            output("l", "e3", "c1", "late\n"),
            finish("l", "e4", "c1", "early\nlate\n", ""),
        ],
    )
    .await
    .unwrap();
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    let cards = activities(&report);
    assert_eq!(cards.len(), 1, "{report}");
    assert_eq!(cards["c1"]["streamed"], "early\nlate\n", "{report}");
    let events: Vec<&str> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(events.contains(&"ACTIVITY_DELTA"), "{events:?}");
}

/// A history join (`snapshot: true`) opens with one `MESSAGES_SNAPSHOT` that folds to exactly
/// the messages the replay gives, for a session of calls and one of turns and messages; tail-
/// first with `snapshotMessages`; and live after it (a join mid-call gets the result).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_join_equals_the_replay() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    for (session, file) in [
        ("demo", "examples/sample-session.jsonl"),
        ("chat", "examples/conversation.jsonl"),
    ] {
        support::cli::publish_jsonl(&server.url, session, &support::cli::repo_file(file));
        let url = endpoint(&server);
        let get = |options: Value| {
            let node = NodeClient::spawn(agui_client(&[
                "http".into(),
                url.clone(),
                session.into(),
                options.to_string(),
            ]));
            node.finish()
        };
        let caps = all_caps();
        let replay = get(json!({"follow": false, "capabilities": caps}));
        let joined = get(json!({"follow": false, "snapshot": true, "capabilities": caps}));
        assert_eq!(joined["messages"], replay["messages"], "{session}");
        assert_eq!(
            joined["events"],
            json!(["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]),
            "{session}"
        );
        assert_eq!(joined["runs"][0]["started"], format!("{session}@snapshot"));
        let tail = get(
            json!({"follow": false, "snapshot": true, "snapshotMessages": 3, "capabilities": caps}),
        );
        let all = replay["messages"].as_array().unwrap();
        assert_eq!(
            tail["messages"],
            json!(all[all.len() - 3..]),
            "{session}: tail-first"
        );
    }

    // Live after the snapshot: a join while a call runs gets its result.
    let mut c = client(&server.url).await;
    publish(&mut c, vec![bash_call("live", "e1", "c1")])
        .await
        .unwrap();
    let options = json!({"snapshot": true, "capabilities": {"terminal": true}});
    let mut node = NodeClient::spawn(agui_client(&[
        "http".into(),
        endpoint(&server),
        "live".into(),
        options.to_string(),
        "1".into(),
    ]));
    node.wait_for("ready");
    publish(&mut c, vec![finish("live", "e2", "c1", "done", "")])
        .await
        .unwrap();
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    assert_eq!(report["events"][1], "MESSAGES_SNAPSHOT", "{report}");
    let roles: Vec<&str> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["assistant", "tool", "activity"], "{report}");
}
