//! PermissionService against real servers: the first answer wins and later ones learn the
//! winner, a harness awaits its decision, expiry resolves to the reject option (also after a
//! restart), fifty concurrent answers leave exactly one resolution, a harness cannot publish a
//! resolution, and answering needs the `approve` right.

use std::time::Duration;

use support::auth::{token, with_token};
use support::server::Server;
use support::sessions::*;
use tonic::Code;
use toolview::app::ServeConfig;
use toolview::grpc::pb::{
    self, permission_resolved::Outcome,
    permission_service_client::PermissionServiceClient as Permissions,
};

type Channel = tonic::transport::Channel;

async fn permissions(url: &str) -> Permissions<Channel> {
    Permissions::connect(url.to_owned()).await.unwrap()
}

fn option(id: &str, kind: pb::PermissionOptionKind) -> pb::PermissionOption {
    pb::PermissionOption {
        option_id: id.into(),
        name: id.into(),
        kind: kind.into(),
    }
}

/// A request about `call` with an allow, an always-allow and a reject option.
pub fn ask(session: &str, request: &str, call: &str, timeout_ms: u64) -> pb::ToolEvent {
    use pb::PermissionOptionKind as K;
    ev(
        session,
        &format!("ask:{request}"),
        pb::tool_event::Event::PermissionRequested(pb::PermissionRequested {
            request_id: request.into(),
            call_id: call.into(),
            title: "Run rm -rf build?".into(),
            description: String::new(),
            options: vec![
                option("allow", K::AllowOnce),
                option("always", K::AllowAlways),
                option("reject", K::RejectOnce),
            ],
            expiry_option_id: "reject".into(),
            timeout_ms,
            expires_at_unix_ms: 0,
        }),
    )
}

fn respond(session: &str, request: &str, option: &str) -> pb::RespondPermissionRequest {
    pb::RespondPermissionRequest {
        session_id: session.into(),
        request_id: request.into(),
        option_id: option.into(),
        reason: String::new(),
        via: String::new(),
    }
}

fn awaiting(session: &str, request: &str) -> pb::AwaitPermissionRequest {
    pb::AwaitPermissionRequest {
        session_id: session.into(),
        request_id: request.into(),
    }
}

fn embedded(dir: &std::path::Path) -> ServeConfig {
    ServeConfig {
        data_dir: dir.to_owned(),
        ..ServeConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_answer_wins_and_late_ones_learn_the_winner() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    let mut p = permissions(&server.url).await;
    publish(
        &mut c,
        vec![bash_call("s", "e1", "c1"), ask("s", "perm-1", "c1", 60_000)],
    )
    .await
    .unwrap();

    // The harness waits; a person rejects; the harness gets the decision.
    let url = server.url.clone();
    let waiter = tokio::spawn(async move {
        let mut p = permissions(&url).await;
        p.await_permission(awaiting("s", "perm-1")).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "the await returns only when decided");
    let mut reject = respond("s", "perm-1", "reject");
    reject.reason = "not now".into();
    reject.via = "acp".into();
    let first = p.respond_permission(reject).await.unwrap().into_inner();
    assert!(first.won);
    let winner = first.resolution.unwrap();
    assert_eq!(
        winner.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(winner.reason, "not now");
    assert_eq!(winner.resolved_by.as_ref().unwrap().via, "acp");
    let awaited = waiter.await.unwrap().unwrap().into_inner();
    assert_eq!(awaited.resolution.as_ref(), Some(&winner));

    // A later answer, and a withdrawal, are told who won.
    let late = p
        .respond_permission(respond("s", "perm-1", "allow"))
        .await
        .unwrap()
        .into_inner();
    assert!(!late.won);
    assert_eq!(late.resolution.as_ref(), Some(&winner));
    let withdrawn = p
        .withdraw_permission(pb::WithdrawPermissionRequest {
            session_id: "s".into(),
            request_id: "perm-1".into(),
            reason: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!withdrawn.won);
    assert_eq!(withdrawn.resolution.as_ref(), Some(&winner));

    // The log holds the request and exactly one resolution, replayed as VIEW updates.
    let info = get_session(&mut c, "s").await.unwrap();
    assert_eq!(info.head_offset, 3);
    let mut stream = subscribe(
        &mut c,
        request("s", pb::Target::View, true, from_beginning()),
    )
    .await;
    let updates = updates_until(&mut stream, 3).await;
    let shown: Vec<_> = updates
        .iter()
        .filter_map(|u| match u.body.as_ref()? {
            pb::rendered_update::Body::View(pb::ViewUpdate {
                update: Some(pb::view_update::Update::Permission(p)),
            }) => Some((u.request_id.clone(), p.resolution.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            ("perm-1".to_owned(), None),
            ("perm-1".to_owned(), Some(winner))
        ]
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_answers_and_harness_resolutions_are_refused_by_field() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let mut p = permissions(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 60_000)])
        .await
        .unwrap();
    let e = p
        .respond_permission(respond("s", "perm-1", "maybe"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("option_id: "), "{}", e.message());
    let e = p
        .respond_permission(respond("s", "perm-9", "allow"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{}", e.message());

    // Only the server appends a resolution.
    let forged = ev(
        "s",
        "forged",
        pb::tool_event::Event::PermissionResolved(pb::PermissionResolved {
            request_id: "perm-1".into(),
            outcome: Some(Outcome::SelectedOptionId("allow".into())),
            ..Default::default()
        }),
    );
    let e = publish(&mut c, vec![forged]).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .starts_with("events[0].permission_resolved: only the server"),
        "{}",
        e.message()
    );
    // A timeout past the limit, an expiry option that allows, one-sided options.
    let mut long = ask("s", "perm-2", "", 25 * 3600 * 1000);
    let e = publish(&mut c, vec![long.clone()]).await.unwrap_err();
    assert!(
        e.message()
            .starts_with("events[0].permission_requested.timeout_ms: at most"),
        "{}",
        e.message()
    );
    if let Some(pb::tool_event::Event::PermissionRequested(r)) = &mut long.event {
        r.timeout_ms = 1000;
        r.expiry_option_id = "allow".into();
    }
    let e = publish(&mut c, vec![long.clone()]).await.unwrap_err();
    assert!(
        e.message().starts_with(
            "events[0].permission_requested.expiry_option_id: \"allow\" must be a reject"
        ),
        "{}",
        e.message()
    );
    if let Some(pb::tool_event::Event::PermissionRequested(r)) = &mut long.event {
        r.options.truncate(2);
        r.expiry_option_id = "always".into();
    }
    let e = publish(&mut c, vec![long]).await.unwrap_err();
    assert!(
        e.message()
            .starts_with("events[0].permission_requested.options: needs at least one allow kind"),
        "{}",
        e.message()
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nobody_answering_in_time_is_the_reject_option() {
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let mut p = permissions(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 300)])
        .await
        .unwrap();
    let awaited = p
        .await_permission(awaiting("s", "perm-1"))
        .await
        .unwrap()
        .into_inner()
        .resolution
        .unwrap();
    assert_eq!(
        awaited.outcome,
        Some(Outcome::Expired(pb::PermissionExpired {
            option_id: "reject".into()
        }))
    );
    let by = awaited.resolved_by.as_ref().unwrap();
    assert_eq!(
        (by.subject.as_str(), by.via.as_str()),
        ("toolview", "server")
    );
    // An answer after it is told it came too late.
    let late = p
        .respond_permission(respond("s", "perm-1", "allow"))
        .await
        .unwrap()
        .into_inner();
    assert!(!late.won);
    assert_eq!(late.resolution, Some(awaited));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_await_after_a_restart_gets_the_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 400)])
        .await
        .unwrap();
    // Gone before the expiry: its timer goes with it.
    server.shutdown().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let server = Server::start_with(embedded(dir.path())).await;
    let mut p = permissions(&server.url).await;
    let awaited = p
        .await_permission(awaiting("s", "perm-1"))
        .await
        .unwrap()
        .into_inner()
        .resolution
        .unwrap();
    assert!(
        matches!(awaited.outcome, Some(Outcome::Expired(_))),
        "{awaited:?}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_answers_from_ten_clients_leave_one_resolution() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(embedded(dir.path())).await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![ask("s", "perm-1", "", 60_000)])
        .await
        .unwrap();
    let mut answers = Vec::new();
    for k in 0..10 {
        let url = server.url.clone();
        answers.push(tokio::spawn(async move {
            let mut p = permissions(&url).await;
            let mut out = Vec::new();
            for n in 0..5 {
                let choice = ["allow", "always", "reject"][(k + n) % 3];
                let r = p.respond_permission(respond("s", "perm-1", choice));
                out.push(r.await.unwrap().into_inner());
            }
            out
        }));
    }
    let mut all = Vec::new();
    for a in answers {
        all.extend(a.await.unwrap());
    }
    assert_eq!(all.len(), 50);
    let won: Vec<_> = all.iter().filter(|a| a.won).collect();
    assert_eq!(won.len(), 1, "exactly one answer decides");
    let winner = won[0].resolution.clone();
    assert!(all.iter().all(|a| a.resolution == winner));
    // One request and one resolution in the log.
    assert_eq!(get_session(&mut c, "s").await.unwrap().head_offset, 2);
    server.shutdown().await;
}

#[tokio::test]
async fn answering_needs_the_approve_right() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let mut c = client(&server.url).await;
    let publisher = token(&["publish", "subscribe"], &["team-a/*"]);
    c.publish(with_token(
        pb::PublishRequest {
            events: vec![ask("team-a/x", "perm-1", "", 60_000)],
        },
        &publisher,
    ))
    .await
    .unwrap();
    let mut p = permissions(&server.url).await;
    // A subscriber sees the prompt but may not answer; nor may a token for other sessions.
    for t in [
        token(&["subscribe", "read"], &["team-a/*"]),
        token(&["approve"], &["team-b/*"]),
    ] {
        let e = p
            .respond_permission(with_token(respond("team-a/x", "perm-1", "allow"), &t))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{}", e.message());
    }
    let approver = token(&["approve"], &["team-a/*"]);
    let answer = p
        .respond_permission(with_token(
            respond("team-a/x", "perm-1", "allow"),
            &approver,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(answer.won);
    let by = answer.resolution.unwrap().resolved_by.unwrap();
    assert_eq!(by.subject, "test");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_endpoint_answers_with_200_409_and_410() {
    use crate::agui::http;
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![
            ask("team/x", "perm-1", "", 60_000),
            ask("team/x", "perm-2", "", 200),
        ],
    )
    .await
    .unwrap();
    let post = |request: &str, body: &str| {
        let (head, body) = http(
            server.addr(),
            &format!("POST /permissions/team/x/{request} HTTP/1.1\r\n"),
            body,
        );
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        (
            status,
            serde_json::from_str::<serde_json::Value>(&body).unwrap(),
        )
    };
    let (status, first) = post("perm-1", r#"{"optionId":"allow","via":"viewer"}"#);
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["won"], true);
    assert_eq!(first["resolution"]["outcome"]["type"], "selected");
    assert_eq!(first["resolution"]["resolvedBy"]["via"], "viewer");
    let (status, late) = post("perm-1", r#"{"optionId":"reject"}"#);
    assert_eq!(status, 409, "{late}");
    assert_eq!(late["resolution"], first["resolution"]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, expired) = post("perm-2", r#"{"optionId":"allow"}"#);
    assert_eq!(status, 410, "{expired}");
    assert_eq!(expired["resolution"]["outcome"]["type"], "expired");
    let (status, bad) = post("perm-1", r#"{"option":"allow"}"#);
    assert_eq!(
        (status, bad["code"].as_str()),
        (400, Some("INVALID_ARGUMENT"))
    );
    let (status, unknown) = post("perm-9", r#"{"optionId":"allow"}"#);
    assert_eq!((status, unknown["code"].as_str()), (404, Some("NOT_FOUND")));
}

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
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = std::process::Command::new("node");
    cmd.arg(root.join(format!("tests/js/{client}.mjs")))
        .arg("offline")
        .args(extra)
        .current_dir(root.join("tests/js"));
    let mut node = support::node::NodeClient::spawn(cmd);
    node.say(&String::from_utf8(out.stdout).unwrap());
    node.finish()
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
        let resolution = p
            .await_permission(awaiting(session, "perm-1"))
            .await
            .unwrap()
            .into_inner()
            .resolution
            .unwrap();
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

/// A `useChat` UI answers an approval its stream showed: the `ai` package's
/// `addToolApprovalResponse`, sent by `sendAutomaticallyWhen`, decides the request (`via:
/// ai-sdk`) with its first reject option.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_ui_answers_through_the_ai_sdk_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![
            bash_call("chat", "e1", "c1"),
            ask("chat", "perm-1", "c1", 60_000),
        ],
    )
    .await
    .unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = std::process::Command::new("node");
    cmd.arg(root.join("tests/js/ai_sdk_client.mjs"))
        .args([
            "approve",
            &format!("{}/ai-sdk", server.url),
            "chat",
            "false",
        ])
        .current_dir(root.join("tests/js"));
    let ui = support::node::NodeClient::spawn(cmd);
    let report = tokio::task::spawn_blocking(move || ui.finish())
        .await
        .unwrap();
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    assert_eq!(report["asked"]["toolCallId"], "c1", "{report}");
    assert_eq!(report["asked"]["approval"]["id"], "perm-1");
    let mut p = permissions(&server.url).await;
    let resolution = p
        .await_permission(awaiting("chat", "perm-1"))
        .await
        .unwrap()
        .into_inner()
        .resolution
        .unwrap();
    assert_eq!(
        resolution.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(resolution.reason, "from the chat");
    assert_eq!(resolution.resolved_by.unwrap().via, "ai-sdk");
}

/// AG-UI native interrupts with the official `HttpAgent`: a run pauses at a pending request
/// (`RUN_FINISHED` with `outcome: interrupt`, the client's `pendingInterrupts`), and the run
/// that resumes it (`resume` with `{optionId}`) answers it (`via: ag-ui`) and goes on after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ag_ui_run_pauses_at_the_request_and_its_resume_answers_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::process::ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    publish(
        &mut c,
        vec![
            bash_call("ui", "e1", "c1"),
            ask("ui", "perm-1", "c1", 60_000),
        ],
    )
    .await
    .unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = std::process::Command::new("node");
    cmd.arg(root.join("tests/js/agui_client.mjs"))
        .args([
            "interrupt",
            &format!("{}/ag-ui", server.url),
            "ui",
            "reject",
        ])
        .current_dir(root.join("tests/js"));
    let ui = support::node::NodeClient::spawn(cmd);
    let report = tokio::task::spawn_blocking(move || ui.finish())
        .await
        .unwrap();
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
    let mut p = permissions(&server.url).await;
    let resolution = p
        .await_permission(awaiting("ui", "perm-1"))
        .await
        .unwrap()
        .into_inner()
        .resolution
        .unwrap();
    assert_eq!(
        resolution.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(resolution.resolved_by.unwrap().via, "ag-ui");
}
