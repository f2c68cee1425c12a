//! `toolview acp`'s ACP v1 session features against the official client library
//! (`@agentclientprotocol/sdk`, which validates every message): `session/list` pages through
//! 250 sessions with a token that may read 120 of them (exactly those, in order; the `cwd`
//! filter), `session/resume` continues live with no replay, `session_info_update` brings the
//! title when the first user message is published, `session/close` ends the stream.

use serde_json::{Value, json};
use support::auth::{secret_server, token, with_token};
use support::node::NodeClient;
use support::sessions::*;
use toolview::grpc::pb::{self, tool_event::Event};

use crate::acp_agent::{check_notifications, client_command};

fn started(session: &str, cwd: &str) -> pb::ToolEvent {
    ev(
        session,
        "e0",
        Event::SessionStarted(pb::SessionStarted { cwd: cwd.into() }),
    )
}

/// A server with 250 sessions, 120 of them team-a's (every other one in `/work/a`), its client,
/// a writer's and a team-a reader's tokens, and the team-a sessions in order.
struct Fleet {
    server: support::process::ServerProcess,
    c: Client,
    writer: String,
    reader: String,
    want: Vec<String>,
    _dir: tempfile::TempDir,
}

async fn fleet() -> Fleet {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let writer = token(&["publish"], &["team-a/*", "team-b/*"]);
    let mut want = Vec::new();
    let mut events = Vec::new();
    for n in 0..250 {
        let (id, cwd) = if n < 120 {
            (
                format!("team-a/s{n:03}"),
                if n % 2 == 0 { "/work/a" } else { "/work/b" },
            )
        } else {
            (format!("team-b/s{n:03}"), "/work/a")
        };
        events.push(started(&id, cwd));
        if id.starts_with("team-a/") {
            want.push(id);
        }
    }
    for batch in events.chunks(100) {
        let request = pb::PublishRequest {
            events: batch.to_vec(),
        };
        c.publish(with_token(request, &writer)).await.unwrap();
    }

    let reader = token(&["read", "subscribe"], &["team-a/*"]);
    Fleet {
        server,
        c,
        writer,
        reader,
        want,
        _dir: dir,
    }
}

/// The first prompt of `team-a/s000`, whose first line is its title.
fn first_prompt() -> pb::ToolEvent {
    ev(
        "team-a/s000",
        "u1",
        Event::MessageStarted(pb::MessageStarted {
            parent_call_id: String::new(),
            message_id: "u1".into(),
            role: pb::MessageRole::User.into(),
            text: "Port the build to Bazel\nand keep the cache".into(),
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_list_and_resume_through_the_sdk() {
    let Fleet {
        server,
        mut c,
        writer,
        reader,
        want,
        ..
    } = fleet().await;
    // 3 notifications after the resume: the user message, its title, the call.
    let mut cmd = client_command(&server.url, "team-a/s000", "sessions", false, 3);
    cmd.env("TOOLVIEW_TOKEN", &reader);
    let mut node = NodeClient::spawn(cmd);
    node.wait_for("resumed");
    let request = pb::PublishRequest {
        events: vec![first_prompt(), bash_call("team-a/s000", "c-start", "c1")],
    };
    c.publish(with_token(request, &writer)).await.unwrap();
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();

    let caps = &report["init"]["agentCapabilities"]["sessionCapabilities"];
    assert_eq!(
        (
            caps["list"].clone(),
            caps["resume"].clone(),
            caps["close"].clone()
        ),
        (json!({}), json!({}), json!({})),
        "{report}"
    );
    let listed: Vec<&str> = report["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed, want,
        "exactly the sessions the token may read, in order"
    );
    assert!(
        report["pages"].as_u64().unwrap() >= 2,
        "{}",
        report["pages"]
    );
    let first = &report["listed"][0];
    assert_eq!(first["cwd"], "/work/a");
    // Where each session is, from its summary (it only started: idle, nothing waiting).
    assert_eq!(
        first["_meta"]["toolview"],
        json!({"state": "idle", "pendingCount": 0}),
        "{first}"
    );
    assert!(
        first["updatedAt"].as_str().unwrap().ends_with('Z'),
        "{first}"
    );

    let notifications = report["notifications"].as_array().unwrap();
    check_notifications(notifications);
    let kinds: Vec<&str> = notifications
        .iter()
        .map(|n| n["update"]["sessionUpdate"].as_str().unwrap())
        .collect();
    // No replay: the session's start (and any history) is not sent again.
    assert_eq!(
        kinds,
        ["user_message_chunk", "session_info_update", "tool_call"],
        "{notifications:?}"
    );
    assert_eq!(
        notifications[1]["update"]["title"],
        "Port the build to Bazel"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_list_filters_by_cwd() {
    let Fleet {
        server,
        reader,
        want,
        ..
    } = fleet().await;
    // The cwd filter.
    let mut cmd = client_command(&server.url, "team-a/s000", "sessions", false, 0);
    cmd.env("TOOLVIEW_TOKEN", &reader)
        .env("TOOLVIEW_ACP_CWD", "/work/a");
    let node = NodeClient::spawn(cmd);
    let report: Value = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();
    let listed: Vec<&str> = report["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    let even: Vec<&str> = want.iter().step_by(2).map(String::as_str).collect();
    assert_eq!(listed, even, "only the sessions in /work/a");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_thread_is_told_the_title_first() {
    let Fleet {
        server,
        mut c,
        writer,
        reader,
        ..
    } = fleet().await;
    let request = pb::PublishRequest {
        events: vec![first_prompt()],
    };
    c.publish(with_token(request, &writer)).await.unwrap();
    // A thread resumed after the first prompt is told the session's title at once — not the
    // first line of the prompt it happens to see — and a title has no control characters.
    let later = ev(
        "team-a/s000",
        "u2",
        Event::MessageStarted(pb::MessageStarted {
            parent_call_id: String::new(),
            message_id: "u2".into(),
            role: pb::MessageRole::User.into(),
            text: "Now the tests".into(),
        }),
    );
    let hostile = ev(
        "team-a/s002",
        "u1",
        Event::MessageStarted(pb::MessageStarted {
            parent_call_id: String::new(),
            message_id: "u1".into(),
            role: pb::MessageRole::User.into(),
            text: "\x1b[31mFix\x1b[0m the\tbuild\x07".into(),
        }),
    );
    let request = pb::PublishRequest {
        events: vec![hostile],
    };
    c.publish(with_token(request, &writer)).await.unwrap();
    for (session, count, title) in [
        ("team-a/s000", 2, "Port the build to Bazel"),
        ("team-a/s002", 1, "Fix the build"),
    ] {
        let mut cmd = client_command(&server.url, session, "sessions", false, count);
        cmd.env("TOOLVIEW_TOKEN", &reader);
        let mut node = NodeClient::spawn(cmd);
        node.wait_for("resumed");
        if count == 2 {
            let request = pb::PublishRequest {
                events: vec![later.clone()],
            };
            c.publish(with_token(request, &writer)).await.unwrap();
        }
        let report = tokio::task::spawn_blocking(move || node.finish())
            .await
            .unwrap();
        let notifications = report["notifications"].as_array().unwrap();
        check_notifications(notifications);
        assert_eq!(
            notifications[0]["update"]["sessionUpdate"], "session_info_update",
            "{session}: {notifications:?}"
        );
        assert_eq!(notifications[0]["update"]["title"], title, "{session}");
        assert!(
            notifications[1..]
                .iter()
                .all(|n| n["update"]["sessionUpdate"] != "session_info_update"),
            "said once: {notifications:?}"
        );
        let listed = report["listed"].as_array().unwrap();
        let entry = listed.iter().find(|s| s["sessionId"] == session).unwrap();
        assert_eq!(entry["title"], title, "session/list agrees: {entry}");
    }
}
