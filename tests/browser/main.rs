//! The web viewer in a real browser: headless Chromium (Debian's, driven by playwright-core)
//! opens `/` on a real server, subscribes over gRPC-Web, and renders the cards live while the
//! test publishes. The screenshot is kept as a test artifact in `target/test-artifacts/`.

use std::path::PathBuf;

use serde_json::Value;
use support::server::Server;
use support::sessions::*;

mod answer_link;
mod cross_origin;
mod driver;
mod inbox;
mod mcp_app;
mod shapes;
mod ui_kit;

use driver::{Viewer, artifact};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_renders_a_live_session() {
    let shot = artifact("viewer.png");

    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let mut events = sample_session_for_viewer("web");
    // A command still running when the page is read: its output arrives as appends (the viewer
    // asks for them), one of them markup that must stay text.
    let last = events.len() - 1;
    events.splice(
        last..last,
        [
            bash_call("web", "s-start", "s1"),
            output("web", "s-out1", "s1", "watching\n"),
            output("web", "s-out2", "s1", "<b>not bold</b>\n"),
        ],
    );
    // The conversation beside the cards: a turn, a prompt with markup (text, never HTML),
    // reasoning, and an answer still streaming whose delta arrives as an append.
    {
        use toolview::grpc::pb::{self, tool_event::Event};
        let message = |id: &str, role: pb::MessageRole, text: &str| {
            Event::MessageStarted(pb::MessageStarted {
                parent_call_id: String::new(),
                message_id: id.into(),
                role: role.into(),
                text: text.into(),
            })
        };
        let done = |id: &str| {
            Event::MessageFinished(pb::MessageFinished {
                message_id: id.into(),
            })
        };
        let conversation = [
            ev(
                "web",
                "t-start",
                Event::TurnStarted(pb::TurnStarted {
                    turn_id: "t1".into(),
                }),
            ),
            ev(
                "web",
                "u-start",
                message("u1", pb::MessageRole::User, "Please <b>fix</b> it"),
            ),
            ev("web", "u-done", done("u1")),
            ev(
                "web",
                "r-start",
                message("r1", pb::MessageRole::Reasoning, "thinking"),
            ),
            ev("web", "r-done", done("r1")),
            ev(
                "web",
                "a-start",
                message("a1", pb::MessageRole::Assistant, "Looking"),
            ),
            ev(
                "web",
                "a-delta",
                Event::MessageDelta(pb::MessageDelta {
                    message_id: "a1".into(),
                    text: " <i>now</i>.".into(),
                }),
            ),
        ];
        events.splice(last..last, conversation);
    }
    let (first, rest) = events.split_at(3);
    publish(&mut c, first.to_vec()).await.unwrap();

    let viewer = Viewer::open(&server.url, "web", &shot, "f1", None, "").await;
    // The rest arrives while the page is open: live updates, streamed output included.
    for e in rest {
        publish(&mut c, vec![e.clone()]).await.unwrap();
    }
    let summary = viewer.finish().await;
    let cards = summary["cards"].as_array().unwrap();
    let card = |call: &str| {
        cards
            .iter()
            .find(|c| c["call"] == call)
            .unwrap_or_else(|| panic!("no card {call}: {summary}"))
    };

    assert_eq!(summary["header"], "Session web — /work/proj");
    assert_eq!(cards.len(), 7);
    let messages = summary["messages"].as_array().unwrap();
    let got: Vec<(&str, &str, &str)> = messages
        .iter()
        .map(|m| {
            let s = |k: &str| m[k].as_str().unwrap();
            (s("id"), s("role"), s("text"))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("u1", "user", "Please <b>fix</b> it"),
            ("r1", "reasoning", "thinking"),
            ("a1", "assistant", "Looking <i>now</i>."),
        ],
        "{summary}"
    );
    // The prompt is text as typed; the reasoning and the answer are Markdown, whose raw HTML
    // is text too.
    assert_eq!(messages[0]["markup"], 0, "{summary}");
    for m in &messages[1..] {
        assert_eq!(m["tags"], serde_json::json!(["p"]), "{summary}");
    }
    assert_eq!(messages[2]["status"], "streaming");
    assert_eq!(summary["turns"], serde_json::json!(["turn t1"]));
    let running = card("s1");
    assert_eq!(
        (running["card"].as_str(), running["status"].as_str()),
        (Some("terminal"), Some("running"))
    );
    assert_eq!(running["output"], "watching\n<b>not bold</b>\n");
    // Applied as two appends, not re-rendered from a snapshot per chunk.
    assert_eq!(running["outputNodes"], 2, "{running}");
    assert!(!running["text"].as_str().unwrap().is_empty());
    // Untrusted URLs: only http(s) and mailto become links; the page has a strict CSP.
    let links = card("x1")["links"].clone();
    assert_eq!(
        links,
        serde_json::json!(["https://ok.example/"]),
        "{summary}"
    );
    assert!(
        card("x1")["text"]
            .as_str()
            .unwrap()
            .contains("javascript:alert")
    );
    let csp = summary["csp"].as_str().unwrap_or_default();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    let read = card("r1");
    assert_eq!(
        (read["card"].as_str(), read["status"].as_str()),
        (Some("read"), Some("completed"))
    );
    assert_eq!(read["lines"][0], "1 const a = 1");
    let edit = card("w1");
    assert_eq!(edit["card"], "diff");
    assert_eq!(edit["title"], "Edit src/a.ts");
    assert_eq!(edit["removed"][0], "- const a = 1");
    assert_eq!(edit["added"][0], "+ const a = 2");
    let bash = card("b1");
    // Exit 2: the card reads failed, as its exit pill does.
    assert_eq!(
        (bash["card"].as_str(), bash["status"].as_str()),
        (Some("terminal"), Some("failed"))
    );
    assert_eq!(bash["command"], "$ npm test");
    assert_eq!(bash["cwd"], "/work/proj");
    assert_eq!(bash["exit"], "2");
    assert_eq!(bash["output"], "running\n1 failing");
    let grep = card("g1");
    assert_eq!(grep["card"], "search");
    assert!(grep["text"].as_str().unwrap().contains("// TODO"));
    let fetch = card("f1");
    assert_eq!(fetch["card"], "web");
    assert!(fetch["text"].as_str().unwrap().contains("HTTP 200"));
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 10_000,
        "the screenshot is saved"
    );
    println!("viewer screenshot: {}", shot.display());
    server.shutdown().await;
}

/// An answer in Markdown (`tests/data/markdown_answer.jsonl`: a fence split across deltas, a
/// list, a link, an image, raw HTML, a `javascript:` link) is drawn as sanitized elements — the
/// page's HTML is kept as a snapshot — and a failed command's console fallback as output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_renders_an_answer_as_sanitized_markdown() {
    let shot = artifact("viewer-markdown.png");
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/markdown_answer.jsonl");
    let mut events =
        toolview::client::read_events(std::fs::read(path).unwrap().as_slice(), None).unwrap();
    // A last call the page waits for.
    events.push(start_call("md", "z-start", "z1", "job_list", "{}"));
    events.push(finish("md", "z-finish", "z1", "done", ""));
    // The answer starts (an open fence) before the page does; its deltas arrive live.
    let rest = events.split_off(9);
    publish(&mut c, events).await.unwrap();
    let viewer = Viewer::open(&server.url, "md", &shot, "z1", None, "").await;
    for e in rest {
        publish(&mut c, vec![e]).await.unwrap();
    }
    let summary = viewer.finish().await;
    let messages = summary["messages"].as_array().unwrap();
    let message = |id: &str| {
        messages
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no message {id}: {summary}"))
    };
    let user = message("u1");
    assert_eq!(user["text"], "Why does `npm test` fail? <b>help</b>");
    assert_eq!(user["markup"], 0);
    let answer = message("a1");
    assert_eq!(answer["status"], "complete");
    assert_eq!(
        answer["tags"],
        serde_json::json!(["a", "code", "li", "ol", "p", "pre", "strong"]),
        "{answer}"
    );
    assert_eq!(
        answer["links"],
        serde_json::json!(["https://docs.example/port", "https://e.example/c.png"])
    );
    insta::assert_snapshot!("viewer_markdown_answer", answer["html"].as_str().unwrap());
    assert_eq!(
        message("r1")["tags"],
        serde_json::json!(["code", "p", "strong"])
    );
    let cards = summary["cards"].as_array().unwrap();
    let bash = cards.iter().find(|c| c["call"] == "bash-1").unwrap();
    assert_eq!(bash["status"], "failed");
    assert_eq!(
        bash["console"],
        "FAIL src/app.test.ts\n```\n# not a heading <img src=x onerror=alert(1)>"
    );
    println!("viewer screenshot: {}", shot.display());
    server.shutdown().await;
}

/// A permission request in the viewer: its buttons answer it (as the page's token), the harness
/// gets the viewer's decision, and the page shows who decided.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_answers_a_permission_request() {
    use support::permissions::{asking, requested, resolution};
    use toolview::grpc::pb::{self, permission_resolved::Outcome};
    let shot = artifact("viewer-permission.png");
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    let ask = asking(
        "p",
        pb::PermissionRequested {
            description: "<b>everything</b> in build/".into(),
            ..requested("perm-1", "c1", "Run rm -rf build?")
        },
    );
    publish(&mut c, vec![bash_call("p", "start", "c1"), ask])
        .await
        .unwrap();
    let click = r#"section.permission button[data-option="reject"]"#;
    let viewer = Viewer::open_clicking(&server.url, "p", &shot, "c1", None, "", click).await;
    let resolution = resolution(&server.url, "p", "perm-1").await;
    assert_eq!(
        resolution.outcome,
        Some(Outcome::SelectedOptionId("reject".into()))
    );
    assert_eq!(resolution.resolved_by.unwrap().via, "viewer");
    publish(
        &mut c,
        vec![finish("p", "end", "c1", "Rejected by a person", "")],
    )
    .await
    .unwrap();
    let summary = viewer.finish().await;
    let shown = &summary["permissions"][0];
    assert_eq!(shown["request"], "perm-1", "{summary}");
    assert_eq!(shown["state"], "rejected", "{summary}");
    assert_eq!(shown["buttons"], 0, "decided: no buttons");
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .contains("<b>everything</b>"),
        "markup stays text: {summary}"
    );
    println!("viewer screenshot: {}", shot.display());
    server.shutdown().await;
}

/// Without a session the viewer lists sessions (its inbox, live) as links; the link opens
/// the session, where a command that exited 2 reads "Failed" beside its red exit pill; a
/// session with no events yet says the page waits for it. Screenshots:
/// `target/test-artifacts/viewer-sessions.png` and `viewer-failed-card.png`.
#[tokio::test]
async fn the_viewer_lists_sessions_and_says_failed_and_waiting() {
    let (list_shot, card_shot) = (
        artifact("viewer-sessions.png"),
        artifact("viewer-failed-card.png"),
    );
    let server = Server::start().await;
    let mut c = client(&server.url).await;
    for s in ["agent-a/run-1", "agent-a/run-2", "agent-b/build"] {
        publish(&mut c, sample_session_for_viewer(s)).await.unwrap();
    }
    // A title (the first line of the first user message), shown as text in the list.
    let prompt = ev(
        "agent-a/run-1",
        "u1",
        toolview::grpc::pb::tool_event::Event::MessageStarted(toolview::grpc::pb::MessageStarted {
            parent_call_id: String::new(),
            message_id: "u1".into(),
            role: toolview::grpc::pb::MessageRole::User.into(),
            text: "Fix the <b>flaky</b> test\nit fails on CI".into(),
        }),
    );
    publish(&mut c, vec![prompt]).await.unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let url = server.url.clone();
    let (l, k) = (list_shot.clone(), card_shot.clone());
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node")
            .arg(root.join("tests/js/viewer_sessions.cjs"))
            .args([url.as_str(), "agent-a/run-2", "b1"])
            .arg(&l)
            .arg(&k)
            .current_dir(root.join("tests/js"))
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let ids: Vec<&str> = summary["listed"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    // All idle: the most recently changed first (run-1's prompt came last, build after run-2).
    assert_eq!(
        ids,
        ["agent-a/run-1", "agent-b/build", "agent-a/run-2"],
        "{summary}"
    );
    let first = summary["listed"]["sessions"][0]["text"].as_str().unwrap();
    assert!(first.contains("Fix the <b>flaky</b> test"), "{first}");
    assert!(
        !first.contains("fails on CI"),
        "the first line only: {first}"
    );
    assert_eq!(summary["listed"]["header"], "Sessions");
    assert_eq!(
        summary["listed"]["sessions"][2]["href"],
        "?session=agent-a%2Frun-2"
    );
    assert_eq!(summary["failed"]["status"], "failed");
    assert_eq!(summary["failed"]["label"], "Failed");
    assert_eq!(summary["failed"]["exit"], "exit 2");
    assert_eq!(summary["waiting"], "waiting for its first event");
    for shot in [&list_shot, &card_shot] {
        assert!(std::fs::metadata(shot).unwrap().len() > 5_000, "{shot:?}");
        println!("viewer screenshot: {}", shot.display());
    }
    server.shutdown().await;
}

/// The viewer over TLS (HTTPS, a certificate from a test CA pinned in Chromium) on a server
/// with `--auth jwt`: it takes its token from `#token=…` and sends it with its gRPC-Web calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_sends_its_token_over_tls() {
    use support::auth::{token, with_token};
    let secure = support::pki::SecureServer::start();
    let mut c = secure.client().await;
    let events = sample_session_for_viewer("team-a/web");
    c.publish(with_token(
        toolview::grpc::pb::PublishRequest { events },
        &token(&["publish"], &["**"]),
    ))
    .await
    .unwrap();

    let viewer_token = token(&["subscribe"], &["team-a/*"]);
    let viewer = Viewer::open(
        &format!("https://{}", secure.host_port()),
        "team-a/web",
        &artifact("viewer-tls.png"),
        "f1",
        Some(&viewer_token),
        &format!(
            "--ignore-certificate-errors-spki-list={}",
            secure.leaf.spki_sha256
        ),
    )
    .await;
    let summary = viewer.finish().await;
    assert_eq!(summary["cards"].as_array().unwrap().len(), 6, "{summary}");
    assert_eq!(summary["header"], "Session team-a/web — /work/proj");
    let csp = summary["csp"].as_str().unwrap_or_default();
    assert!(csp.contains("script-src 'self'"), "{csp}");
}

/// The sample session without the todo call (five cards), with a sixth card, published before
/// the last one, whose result links to a `javascript:` URL and an https one.
pub(crate) fn sample_session_for_viewer(s: &str) -> Vec<toolview::grpc::pb::ToolEvent> {
    use toolview::grpc::pb;
    let mut events = sample_session(s);
    events.truncate(13);
    let link = |uri: &str, name: &str| pb::ContentBlock {
        block: Some(pb::content_block::Block::ResourceLink(
            pb::ResourceLinkContent {
                uri: uri.into(),
                name: name.into(),
                mime_type: String::new(),
            },
        )),
    };
    let hostile = vec![
        start_call(s, "x-start", "x1", "mcp__links__list", "{}"),
        ev(
            s,
            "x-finish",
            pb::tool_event::Event::CallFinished(pb::ToolCallFinished {
                call_id: "x1".into(),
                content: vec![
                    link("javascript:alert(document.domain)", "click me"),
                    link("https://ok.example/", "ok"),
                ],
                is_error: false,
                meta_json: String::new(),
                view: None,
            }),
        ),
    ];
    let last = events.len() - 2;
    events.splice(last..last, hostile);
    events
}

/// Commands `c<from>`…`c<to - 1>` of `session`, each started and finished (`done <i>`): what the
/// restart tests publish before and after the server goes away.
pub(crate) fn finished_calls(
    session: &str,
    from: usize,
    to: usize,
) -> Vec<toolview::grpc::pb::ToolEvent> {
    (from..to)
        .flat_map(|i| {
            let call = format!("c{i}");
            vec![
                bash_call(session, &format!("s{i}"), &call),
                finish(session, &format!("f{i}"), &call, &format!("done {i}"), ""),
            ]
        })
        .collect()
}

/// A CORS preflight from a configured origin is allowed; from another origin it is not.
#[tokio::test]
async fn grpc_web_cors_for_configured_origins() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let config = toolview::app::ServeConfig {
        cors_origins: vec!["http://allowed.test".into()],
        ..toolview::app::ServeConfig::memory()
    };
    let server = Server::start_with(config).await;
    let addr = server.url.trim_start_matches("http://").to_owned();
    let preflight = |origin: &'static str| {
        let addr = addr.clone();
        async move {
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let req = format!(
                "OPTIONS /toolview.v1.SessionService/GetSession HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\n\
                 Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type,x-grpc-web\r\n\
                 Connection: close\r\n\r\n"
            );
            s.write_all(req.as_bytes()).await.unwrap();
            let mut resp = String::new();
            s.read_to_string(&mut resp).await.unwrap();
            resp.to_ascii_lowercase()
        }
    };
    let allowed = preflight("http://allowed.test").await;
    assert!(
        allowed.contains("access-control-allow-origin: http://allowed.test"),
        "{allowed}"
    );
    assert!(allowed.contains("x-grpc-web"), "{allowed}");
    let other = preflight("http://elsewhere.test").await;
    assert!(!other.contains("access-control-allow-origin"), "{other}");
    server.shutdown().await;
}

/// DNS rebinding: a browser request naming a host that is not allowed is refused (403); loopback
/// names, the listen address and `--allowed-host` names are served, with the page's headers.
#[tokio::test]
async fn only_allowed_host_names_reach_the_viewer() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let config = toolview::app::ServeConfig {
        allowed_hosts: vec!["viewer.example".into()],
        ..toolview::app::ServeConfig::memory()
    };
    let server = Server::start_with(config).await;
    let addr = server.url.trim_start_matches("http://").to_owned();
    let get = |host: String| {
        let addr = addr.clone();
        async move {
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let req = format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
            s.write_all(req.as_bytes()).await.unwrap();
            let mut resp = String::new();
            s.read_to_string(&mut resp).await.unwrap();
            resp.to_ascii_lowercase()
        }
    };
    for host in [
        "evil.example",
        "evil.example:50051",
        "127.0.0.1.evil.example",
    ] {
        let resp = get(host.to_owned()).await;
        assert!(resp.starts_with("http/1.1 403"), "{host}: {resp}");
        // Refused like every other HTTP refusal: JSON with the gRPC code name.
        assert!(
            resp.contains("content-type: application/json")
                && resp.contains(r#""code":"permission_denied""#),
            "{host}: {resp}"
        );
    }
    let port = addr.rsplit(':').next().unwrap();
    for host in [
        addr.clone(),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "viewer.example".to_owned(),
    ] {
        let resp = get(host.clone()).await;
        assert!(resp.starts_with("http/1.1 200"), "{host}: {resp}");
        assert!(
            resp.contains("content-security-policy: default-src 'none'"),
            "{resp}"
        );
        assert!(resp.contains("x-content-type-options: nosniff"), "{resp}");
        assert!(resp.contains("x-frame-options: deny"), "{resp}");
    }
    server.shutdown().await;
}
