//! Permission requests through the clients people answer them with: the official AI SDK and
//! AG-UI clients' own pipelines, `toolview approve` from a script, `toolview acp` with the
//! official ACP client as the editor, a `useChat` UI's approval response and an AG-UI
//! `HttpAgent` resuming a paused run.

use support::permissions::*;
use support::sessions::*;
use toolview::grpc::pb::permission_resolved::Outcome;

use support::permissions::ask;

/// `toolview render` of a session with permission requests, read by an official client's own
/// pipeline (`tests/js/{client}.mjs offline …`): its report.
fn rendered_through(target: &str, client: &str, extra: &[&str]) -> serde_json::Value {
    use std::io::Write;
    use std::process::Stdio;
    let input = support::cli::repo_file("tests/data/permission.jsonl");
    let mut child = support::cli::command(&["render", "--target", target, "--terminal"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let mut cmd = support::node::script(client);
    cmd.arg("offline").args(extra);
    let mut node = support::node::NodeClient::spawn(cmd);
    node.say(&String::from_utf8(out.stdout).unwrap());
    node.finish()
}

/// A server on `dir` (memory store) whose session `session` holds a `bash` call `c1` and a
/// request `perm-1` about it, open for a minute; and a client of it.
async fn one_request(
    dir: &std::path::Path,
    session: &str,
) -> (support::process::ServerProcess, Client) {
    let server = support::process::ServerProcess::spawn(dir, &["--store", "memory"]);
    let mut c = client(&server.url).await;
    let events = vec![
        bash_call(session, "e1", "c1"),
        ask(session, "perm-1", "c1", 60_000),
    ];
    publish(&mut c, events).await.unwrap();
    (server, c)
}

/// Runs a `tests/js` client to its end off the runtime's threads: its report.
async fn run_to_end(script: &str, args: &[&str]) -> serde_json::Value {
    let mut cmd = support::node::script(script);
    cmd.args(args);
    let ui = support::node::NodeClient::spawn(cmd);
    tokio::task::spawn_blocking(move || ui.finish())
        .await
        .unwrap()
}

/// The official AI SDK and AG-UI clients take a session's permission requests: the AI SDK
/// folds the approval into the call's tool part (rejected, by whom) and keeps each prompt as a
/// data part; AG-UI keeps each as an activity message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_clients_take_the_prompts_and_decisions() {
    let report = tokio::task::spawn_blocking(|| rendered_through("ai-sdk", "ai_sdk_client", &[]))
        .await
        .unwrap();
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    let parts = report["message"]["parts"].as_array().unwrap();
    let tool = parts.iter().find(|p| p["toolCallId"] == "bash-1").unwrap();
    assert_eq!(tool["state"], "output-error", "{tool}");
    assert_eq!(tool["approval"]["id"], "perm-1");
    assert_eq!(tool["approval"]["approved"], false);
    assert_eq!(tool["approval"]["reason"], "alice via viewer: not now");
    let prompts: Vec<_> = parts
        .iter()
        .filter(|p| p["type"] == "data-toolview-permission")
        .map(|p| (p["id"].clone(), p["data"]["state"].clone()))
        .collect();
    assert_eq!(
        prompts,
        vec![
            (serde_json::json!("perm-1"), serde_json::json!("selected")),
            (serde_json::json!("perm-2"), serde_json::json!("expired"))
        ]
    );

    let report =
        tokio::task::spawn_blocking(|| rendered_through("ag-ui", "agui_client", &["perm"]))
            .await
            .unwrap();
    let activities: Vec<_> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["activityType"] == "toolview.permission")
        .map(|m| {
            (
                m["content"]["requestId"].clone(),
                m["content"]["state"].clone(),
            )
        })
        .collect();
    assert_eq!(
        activities,
        vec![
            (serde_json::json!("perm-1"), serde_json::json!("selected")),
            (serde_json::json!("perm-2"), serde_json::json!("expired"))
        ]
    );
}

/// `toolview approve` answers from a script: exit 0 and the decision when it decided, 3 and
/// the winner when another decision came first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_answers_and_says_who_won() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(&mut c, vec![ask("team/x", "perm-1", "", 60_000)])
        .await
        .unwrap();
    let approve = |option: &str| {
        support::cli::command(&[
            "approve",
            "--server",
            &server.url,
            "--session",
            "team/x",
            "--request",
            "perm-1",
            "--option",
            option,
            "--reason",
            "looked at it",
        ])
        .output()
        .unwrap()
    };
    let first = approve("allow");
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let said: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(said["won"], true);
    assert_eq!(said["resolution"]["resolvedBy"]["via"], "cli");
    assert_eq!(said["resolution"]["reason"], "looked at it");
    let second = approve("reject");
    assert_eq!(second.status.code(), Some(3), "{second:?}");
    let said_then: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(said_then["won"], false);
    assert_eq!(said_then["resolution"], said["resolution"]);
    let other = support::cli::command(&[
        "approve",
        "--server",
        &server.url,
        "--session",
        "team/x",
        "--request",
        "perm-9",
        "--option",
        "allow",
    ])
    .output()
    .unwrap();
    assert_eq!(other.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&other.stderr).contains("NOT_FOUND"),
        "{other:?}"
    );
}

/// `toolview acp` with the official ACP client as the editor: the prompt reaches it as
/// `session/request_permission` with the request's options; its choice is the decision
/// (`via: acp`); and a decision made elsewhere withdraws its prompt (`$/cancel_request`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_is_asked_through_toolview_acp() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    for (session, answer) in [("acp-reject", "reject"), ("acp-wait", "wait")] {
        publish(
            &mut c,
            vec![
                bash_call(session, "e1", "c1"),
                ask(session, "perm-1", "c1", 60_000),
            ],
        )
        .await
        .unwrap();
        let mut cmd =
            crate::acp_agent::client_command(&server.url, session, "permission", false, 1);
        cmd.env("TOOLVIEW_ACP_ANSWER", answer);
        let mut editor = support::node::NodeClient::spawn(cmd);
        editor.wait_for("asked");
        let mut p = permissions(&server.url).await;
        if answer == "wait" {
            // Someone else decides: the editor's prompt is withdrawn.
            let mut other = respond(session, "perm-1", "allow");
            other.via = "viewer".into();
            assert!(p.respond_permission(other).await.unwrap().into_inner().won);
        }
        let resolution = resolution(&server.url, session, "perm-1").await;
        let report = tokio::task::spawn_blocking(move || editor.finish())
            .await
            .unwrap();
        let asked = &report["asked"][0];
        assert_eq!(asked["sessionId"], session, "{report}");
        assert_eq!(asked["toolCall"]["toolCallId"], "c1");
        let kinds: Vec<_> = asked["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["kind"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
        assert_eq!(
            asked["_meta"]["toolview"]["permission"]["title"],
            "Run rm -rf build?"
        );
        if answer == "reject" {
            assert_eq!(
                resolution.outcome,
                Some(Outcome::SelectedOptionId("reject".into()))
            );
            assert_eq!(resolution.resolved_by.unwrap().via, "acp");
            assert_eq!(report["withdrawn"], false);
        } else {
            assert_eq!(resolution.resolved_by.unwrap().via, "viewer");
            assert_eq!(report["withdrawn"], true, "{report}");
        }
        assert_eq!(report["decision"]["state"], "selected", "{report}");
    }
}

/// The editor's report once the decision made elsewhere showed: it was never asked.
async fn never_asked(editor: support::node::NodeClient) {
    let report = tokio::task::spawn_blocking(move || editor.finish())
        .await
        .unwrap();
    assert_eq!(report["decision"]["state"], "selected", "{report}");
    assert_eq!(report["asked"], serde_json::json!([]), "{report}");
    assert_eq!(report["withdrawn"], false, "{report}");
}

/// An editor that opens a session after its request was decided (within the request's timeout)
/// is never asked about it: `toolview acp` asks only about requests still pending at the head
/// of the replay (it asked, then withdrew the prompt 2 ms later, before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_editor_is_not_asked_about_a_decided_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    let session = "acp-late";
    publish(
        &mut c,
        vec![
            bash_call(session, "e1", "c1"),
            ask(session, "perm-1", "c1", 60_000),
        ],
    )
    .await
    .unwrap();
    let mut p = permissions(&server.url).await;
    let mut other = respond(session, "perm-1", "allow");
    other.via = "viewer".into();
    assert!(p.respond_permission(other).await.unwrap().into_inner().won);
    let mut cmd = crate::acp_agent::client_command(&server.url, session, "permission", false, 1);
    cmd.env("TOOLVIEW_ACP_ANSWER", "wait");
    let editor = support::node::NodeClient::spawn(cmd);
    never_asked(editor).await;
}

/// `toolview acp` with a token that may read the session but not answer it: the editor is
/// never asked (the prompt shows read-only in the call's card, as `GetSession`'s `rights` say),
/// and sees the decision made elsewhere. Before, it was asked and its answer refused unseen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_without_the_approve_right_is_not_asked() {
    use support::auth::{token, with_token};
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let session = "team-a/acp-read-only";
    let writer = token(&["publish", "approve"], &["team-a/*"]);
    let request = toolview::grpc::pb::PublishRequest {
        events: vec![
            bash_call(session, "e1", "c1"),
            ask(session, "perm-1", "c1", 60_000),
        ],
    };
    c.publish(with_token(request, &writer)).await.unwrap();
    let reader = token(&["subscribe", "read"], &["team-a/*"]);
    let info = c
        .get_session(with_token(
            toolview::grpc::pb::GetSessionRequest {
                session_id: session.into(),
            },
            &reader,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(info.rights, ["subscribe", "read"]);
    let mut cmd = crate::acp_agent::client_command(&server.url, session, "permission", false, 1);
    cmd.env("TOOLVIEW_ACP_ANSWER", "wait")
        .env("TOOLVIEW_TOKEN", &reader);
    let mut editor = support::node::NodeClient::spawn(cmd);
    // Someone who may decides, once the editor has the session (and would have been asked).
    editor.wait_for("ready");
    tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
    let mut p = permissions(&server.url).await;
    let mut other = respond(session, "perm-1", "allow");
    other.via = "viewer".into();
    let won = p
        .respond_permission(with_token(other, &writer))
        .await
        .unwrap();
    assert!(won.into_inner().won);
    never_asked(editor).await;
}

/// A `useChat` UI answers an approval its stream showed: the `ai` package's
/// `addToolApprovalResponse`, sent by `sendAutomaticallyWhen`, decides the request (`via:
/// ai-sdk`) with its first reject option.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_ui_answers_through_the_ai_sdk_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _c) = one_request(dir.path(), "chat").await;
    let report = run_to_end(
        "ai_sdk_client",
        &[
            "approve",
            &format!("{}/ai-sdk", server.url),
            "chat",
            "false",
        ],
    )
    .await;
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(report["asked"]["toolCallId"], "c1", "{report}");
    assert_eq!(report["asked"]["approval"]["id"], "perm-1");
    let resolution = resolution(&server.url, "chat", "perm-1").await;
    assert_eq!(
        resolution.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(resolution.reason, "from the chat");
    assert_eq!(resolution.resolved_by.unwrap().via, "ai-sdk");
}

/// The documented answer path sends the answer once: the POST that carries it streams until the
/// call has its result, so the tool part never sits in `approval-responded` with the chat
/// `ready` (where `sendAutomaticallyWhen` sent it again and again: 762–1,315 POSTs in 2 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_sends_its_approval_once_while_the_call_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (server, mut c) = one_request(dir.path(), "storm").await;
    let mut cmd = support::node::script("ai_sdk_client");
    cmd.args([
        "approve-counting",
        &format!("{}/ai-sdk", server.url),
        "storm",
    ]);
    let mut chat = support::node::NodeClient::spawn(cmd);
    chat.wait_for("answered");
    let decided = resolution(&server.url, "storm", "perm-1").await;
    assert_eq!(decided.resolved_by.unwrap().via, "ai-sdk");
    // The harness runs the call for a while, then finishes it.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    publish(&mut c, vec![finish("storm", "e2", "c1", "done", "")])
        .await
        .unwrap();
    let report = tokio::task::spawn_blocking(move || chat.finish())
        .await
        .unwrap();
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(report["state"], "output-available", "{report}");
    // The first message, then the answer: nothing more.
    assert_eq!(report["posts"], 2, "{report}");
}

/// AG-UI native interrupts with the official `HttpAgent`: a run pauses at a pending request
/// (`RUN_FINISHED` with `outcome: interrupt`, the client's `pendingInterrupts`), and the run
/// that resumes it (`resume` with `{optionId}`) answers it (`via: ag-ui`) and goes on after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ag_ui_run_pauses_at_the_request_and_its_resume_answers_it() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _c) = one_request(dir.path(), "ui").await;
    let report = run_to_end(
        "agui_client",
        &[
            "interrupt",
            &format!("{}/ag-ui", server.url),
            "ui",
            "reject",
        ],
    )
    .await;
    let paused = &report["paused"];
    assert_eq!(paused["outcome"]["type"], "interrupt", "{report}");
    let interrupt = &paused["outcome"]["interrupts"][0];
    assert_eq!(interrupt["id"], "perm-1");
    assert_eq!(interrupt["toolCallId"], "c1");
    assert_eq!(interrupt["reason"], "tool_call");
    assert_eq!(report["pending"][0]["id"], "perm-1", "the client holds it");
    assert_eq!(
        paused["result"]["cursor"]["offset"], "2",
        "resumes after the request"
    );
    assert_eq!(
        report["after"],
        serde_json::json!([]),
        "answered: nothing pending"
    );
    let resolution = resolution(&server.url, "ui", "perm-1").await;
    assert_eq!(
        resolution.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(resolution.resolved_by.unwrap().via, "ag-ui");
}
