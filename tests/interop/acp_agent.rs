//! `toolview acp` (an ACP agent over stdio) against the official ACP client library
//! (`@agentclientprotocol/sdk`, which validates every message): an editor loading a session
//! (history, then the `session/load` answer), a new thread replaying a session, and a new
//! live-only thread joining mid-call — with the terminal rendering on and off. Every
//! notification the agent sends must be accepted (the client sees as many as the server
//! renders), and none may update a call the client was not shown.

use std::collections::HashSet;
use std::process::Command;

use serde_json::Value;
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::*;

pub(crate) fn client_command(
    server: &str,
    session: &str,
    mode: &str,
    terminal: bool,
    want: usize,
) -> Command {
    let mut cmd = support::node::script("acp_client");
    cmd.arg(support::toolview_bin()).args([
        server,
        session,
        mode,
        &terminal.to_string(),
        &want.to_string(),
    ]);
    cmd
}

/// What the server renders for the session as ACP: one notification per line.
fn rendered(server: &str, session: &str, terminal: bool) -> Vec<Value> {
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
    if terminal {
        args.push("--terminal");
    }
    let out = support::cli::command(&args).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["params"].clone())
        .collect()
}

/// Every notification validates, and updates only calls the client was shown.
pub(crate) fn check_notifications(notifications: &[Value]) {
    let mut shown = HashSet::new();
    for n in notifications {
        let message =
            serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": n});
        support::acp::validate(&message.to_string()).unwrap();
        let update = &n["update"];
        let Some(id) = update["toolCallId"].as_str() else {
            continue;
        };
        match update["sessionUpdate"].as_str().unwrap() {
            "tool_call" => {
                shown.insert(id.to_owned());
            }
            "tool_call_update" => assert!(shown.contains(id), "an update for {id}, never shown"),
            other => panic!("unexpected {other}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_loads_a_session_and_a_new_thread_replays_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(&mut c, sample_session("acp")).await.unwrap();
    for terminal in [false, true] {
        let want = rendered(&server.url, "acp", terminal);
        assert!(want.len() > 10, "{want:?}");
        for mode in ["load", "new"] {
            let client = NodeClient::spawn(client_command(
                &server.url,
                "acp",
                mode,
                terminal,
                want.len(),
            ));
            let report = tokio::task::spawn_blocking(move || client.finish())
                .await
                .unwrap();
            let got = report["notifications"].as_array().unwrap();
            assert_eq!(
                got, &want,
                "{mode}, terminal {terminal}: every notification accepted"
            );
            check_notifications(got);
            if mode == "load" {
                assert_eq!(
                    report["loadedAfter"],
                    want.len(),
                    "history before the answer"
                );
            }
            assert_eq!(report["init"]["agentCapabilities"]["loadSession"], true);
            assert_eq!(report["init"]["agentInfo"]["name"], "toolview");
            assert_eq!(report["stopReason"], "end_turn");
            assert_eq!(report["answer"].as_array().unwrap().len(), 1);
            let text = got.iter().map(Value::to_string).collect::<String>();
            assert_eq!(text.contains("terminal_output"), terminal, "{text}");
        }
    }
}

/// A new live-only thread that joins mid-call is shown the call first, then follows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_thread_joining_mid_call_is_shown_the_call_first() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    for terminal in [false, true] {
        let session = format!("live-{terminal}");
        let s = session.as_str();
        publish(
            &mut c,
            vec![
                bash_call(s, "e1", "old"),
                finish(s, "e2", "old", "done before", ""),
                bash_call(s, "e3", "c1"),
                output(s, "e4", "c1", "early\n"),
            ],
        )
        .await
        .unwrap();
        // The catch-up (tool_call, the output so far), then an output update and the result.
        let want = 4;
        let mut node =
            NodeClient::spawn(client_command(&server.url, s, "new-live", terminal, want));
        node.wait_for("ready");
        publish(
            &mut c,
            vec![
                output(s, "e5", "c1", "late\n"),
                finish(s, "e6", "c1", "ok", ""),
            ],
        )
        .await
        .unwrap();
        let report = tokio::task::spawn_blocking(move || node.finish())
            .await
            .unwrap();
        let got = report["notifications"].as_array().unwrap();
        assert_eq!(got.len(), want, "{report}");
        check_notifications(got);
        assert_eq!(got[0]["update"]["sessionUpdate"], "tool_call");
        assert_eq!(
            got[0]["update"]["toolCallId"], "c1",
            "the finished call is not shown"
        );
        let text = got.iter().map(Value::to_string).collect::<String>();
        assert!(text.contains("early") && text.contains("late"), "{text}");
    }
}

/// The agent resumes after its cursor when the server goes away mid-call and comes back: the
/// editor gets every notification once, and none for a call it was not shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_resumes_mid_call_when_the_server_comes_back() {
    for terminal in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen = format!("127.0.0.1:{port}");
        let mut server = ServerProcess::spawn(dir.path(), &["--listen", &listen]);
        let url = server.url.clone();
        let s = "resume";
        let mut c = client(&url).await;
        publish(
            &mut c,
            vec![bash_call(s, "e1", "c1"), output(s, "e2", "c1", "early\n")],
        )
        .await
        .unwrap();
        drop(c);
        // tool_call and its output, then (after the restart) more output and the result.
        let want = 4;
        let mut node = NodeClient::spawn(client_command(&url, s, "new", terminal, want));
        node.wait_for("ready");
        tokio::task::spawn_blocking(move || {
            server.stop();
            server
        })
        .await
        .unwrap();
        let _server = ServerProcess::spawn(dir.path(), &["--listen", &listen]);
        let mut c = client(&url).await;
        publish(
            &mut c,
            vec![
                output(s, "e3", "c1", "late\n"),
                finish(s, "e4", "c1", "ok", ""),
            ],
        )
        .await
        .unwrap();
        let report = tokio::task::spawn_blocking(move || node.finish())
            .await
            .unwrap();
        let got = report["notifications"].as_array().unwrap();
        check_notifications(got);
        assert_eq!(got, &rendered(&url, s, terminal), "every notification once");
    }
}
