//! `@toolview/react` in the UI kits people use: the CopilotKit page (real `@copilotkit/react-core`,
//! its AG-UI agent on `/ag-ui`) and the `useChat` page (real `@ai-sdk/react`, on `/ai-sdk`) of
//! `examples/react`, served from an origin of their own (`--cors-origin`), draw a recorded session's
//! cards with exactly the viewer's DOM, card by card, for every card kind; so does the page on
//! `useToolviewSession`, which also follows its session across a server restart. Screenshots of
//! the pages are kept in `target/test-artifacts/ui-kit-*.png`.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Lines, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;
use support::server::Server;
use support::sessions::*;

use crate::driver::artifact;

/// The recorded sessions the pages show: the README's sample (read, edit, a failed command,
/// grep, a fetch) and `tests/data/ui_kit.jsonl` (paths, a web search, a generic card with
/// hostile text and links), as one session.
fn recorded(session: &str) -> Vec<toolview::grpc::pb::ToolEvent> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut events = Vec::new();
    for path in ["examples/sample-session.jsonl", "tests/data/ui_kit.jsonl"] {
        let text = std::fs::read_to_string(root.join(path)).unwrap();
        events.extend(toolview::client::read_events(text.as_bytes(), Some(session)).unwrap());
    }
    events
}

/// `node examples/react/build.mjs`: the pages, bundled into `target/ui-kit` once for the tests
/// that drive them.
fn build_pages() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(build).clone()
}

fn build() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    assert!(
        root.join("examples/react/node_modules/@copilotkit/react-core")
            .exists(),
        "run scripts/test.sh (npm ci in examples/react)"
    );
    let out = root.join("target/ui-kit");
    let status = Command::new("node")
        .arg("build.mjs")
        .arg(&out)
        .current_dir(root.join("examples/react"))
        .status()
        .expect("node runs");
    assert!(status.success(), "the example pages build");
    out
}

/// Every `href` in a normalized DOM tree.
fn hrefs(node: &Value, out: &mut Vec<String>) {
    if let Some(h) = node["attrs"]["href"].as_str() {
        out.push(h.to_owned());
    }
    for c in node["children"].as_array().into_iter().flatten() {
        hrefs(c, out);
    }
}

/// `tests/js/ui_kit_browser.cjs` serving the example pages and driving Chromium over them.
struct Pages {
    browser: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    /// The pages' origin, for `--cors-origin`.
    origin: String,
}

impl Pages {
    async fn start(args: &[String]) -> Pages {
        let pages = tokio::task::spawn_blocking(build_pages).await.unwrap();
        let shots = artifact("ui-kit-viewer.png");
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut browser = Command::new("node")
            .arg(root.join("tests/js/ui_kit_browser.cjs"))
            .args(args.iter().take_while(|a| a.starts_with("--")))
            .arg(&pages)
            .args(args.iter().skip_while(|a| a.starts_with("--")).take(1))
            .arg(shots.parent().unwrap())
            .args(args.iter().skip_while(|a| a.starts_with("--")).skip(1))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs");
        let stdin = browser.stdin.take().unwrap();
        let mut lines = BufReader::new(browser.stdout.take().unwrap()).lines();
        let origin = lines.next().unwrap().unwrap();
        let origin = origin
            .strip_prefix("origin ")
            .expect("the pages' origin")
            .to_owned();
        Pages {
            browser,
            stdin,
            lines,
            origin,
        }
    }

    fn say(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// The next line the driver prints.
    async fn next(mut self) -> (String, Pages) {
        tokio::task::spawn_blocking(move || {
            let line = self.lines.next().and_then(Result::ok).unwrap_or_default();
            (line, self)
        })
        .await
        .unwrap()
    }

    /// The driver's report (its last line), once it ended well.
    async fn report(mut self) -> Value {
        let last = tokio::task::spawn_blocking(move || {
            let last = self
                .lines
                .by_ref()
                .map_while(Result::ok)
                .last()
                .unwrap_or_default();
            assert!(
                self.browser.wait().unwrap().success(),
                "the browser run failed"
            );
            last
        })
        .await
        .unwrap();
        serde_json::from_str(&last).expect("the pages' report")
    }
}

fn call_ids(events: &[toolview::grpc::pb::ToolEvent]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Some(toolview::grpc::pb::tool_event::Event::CallStarted(s)) => Some(s.call_id.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilotkit_and_use_chat_draw_the_viewers_cards() {
    let events = recorded("kit");
    let calls = call_ids(&events);
    let mut pages = Pages::start(&["kit".into(), calls.len().to_string()]).await;
    let config = toolview::app::ServeConfig {
        cors_origins: vec![pages.origin.clone()],
        ..toolview::app::ServeConfig::memory()
    };
    let server = Server::start_with(config).await;
    let mut c = client(&server.url).await;
    publish(&mut c, events).await.unwrap();
    pages.say(&server.url);
    let report = pages.report().await;

    let viewer = report["viewer"].as_object().unwrap();
    let shown: BTreeSet<String> = viewer.keys().cloned().collect();
    assert_eq!(shown, calls, "the viewer shows every call");
    let kinds: BTreeSet<&str> = viewer
        .values()
        .map(|c| c["attrs"]["data-card"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["diff", "generic", "read", "search", "terminal", "web"]),
        "every card kind"
    );
    for page in ["copilotkit", "useChat", "session"] {
        for (call, dom) in viewer {
            assert_eq!(
                &report[page][call], dom,
                "{page}: the card of {call} is not the viewer's"
            );
        }
        assert_eq!(
            report[page].as_object().unwrap().len(),
            calls.len(),
            "{page}"
        );
    }
    // Tool output stayed text everywhere: only http(s) links, no element from the output.
    let mut links = Vec::new();
    for dom in viewer.values() {
        hrefs(dom, &mut links);
    }
    assert!(links.iter().all(|h| h.starts_with("https://")), "{links:?}");
    assert!(links.contains(&"https://ok.example/".to_owned()));
    let text = serde_json::to_string(&report).unwrap();
    assert!(!text.contains("\"tag\":\"script\"") && !text.contains("\"tag\":\"img\""));
    assert!(text.contains("<script>alert(1)</script>"), "shown as text");
}

/// The hook's page on the client package's resuming subscription: the server is stopped
/// mid-session and started again on the same port and data; the page follows again after its
/// last cursor and shows every card once, those published while it was away too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hook_resumes_after_a_server_restart() {
    use support::process::ServerProcess;
    let calls = |from, to| crate::finished_calls("h", from, to);
    let pages = Pages::start(&["--follow".into(), "h".into(), "3".into(), "6".into()]).await;
    let dir = tempfile::tempdir().unwrap();
    let origin = pages.origin.clone();
    let cors = ["--cors-origin", origin.as_str()];
    let mut server = ServerProcess::spawn(dir.path(), &cors);
    let addr = server.addr().to_owned();
    let mut c = client(&server.url).await;
    publish(&mut c, calls(0, 3)).await.unwrap();
    let mut pages = pages;
    pages.say(&server.url);
    let (ready, mut pages) = pages.next().await;
    assert_eq!(ready, "ready");
    server.stop();
    drop(c);
    let mut server = ServerProcess::spawn(dir.path(), &[cors[0], cors[1], "--listen", &addr]);
    let mut c = client(&server.url).await;
    publish(&mut c, calls(3, 6)).await.unwrap();
    pages.say("published");
    let report = pages.report().await;
    assert_eq!(
        report["calls"],
        serde_json::json!(["c0", "c1", "c2", "c3", "c4", "c5"]),
        "{report}"
    );
    server.stop();
}

/// The `useChat` page as `docs/ai-sdk.md` shows it (`resume: true`: the chat stays `streaming`
/// while the session is live, and the AI SDK sends nothing while it streams) answers a
/// permission request with its own buttons: one click, one `POST /permissions/…`, no
/// `POST /ai-sdk`, and the harness waiting on the request gets the decision.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_use_chat_page_answers_a_request_once_while_it_streams() {
    use support::permissions::{asking, requested, resolution};
    use toolview::grpc::pb::permission_resolved::Outcome;
    let session = "chat-approve";
    let mut pages = Pages::start(&[
        "--approve".into(),
        session.into(),
        "perm-1".into(),
        "allow".into(),
    ])
    .await;
    let config = toolview::app::ServeConfig {
        cors_origins: vec![pages.origin.clone()],
        ..toolview::app::ServeConfig::memory()
    };
    let server = Server::start_with(config).await;
    let mut c = client(&server.url).await;
    let ask = requested("perm-1", "c1", "Run rm -rf build?");
    publish(
        &mut c,
        vec![bash_call(session, "e1", "c1"), asking(session, ask)],
    )
    .await
    .unwrap();
    // The harness, waiting for the decision as a client library does.
    let url = server.url.clone();
    let harness = tokio::spawn(async move { resolution(&url, session, "perm-1").await });
    pages.say(&server.url);
    let report = pages.report().await;
    let decided = tokio::time::timeout(PATIENCE, harness)
        .await
        .expect("the harness is unblocked")
        .unwrap();
    assert_eq!(
        decided.outcome,
        Some(Outcome::SelectedOptionId("allow".into()))
    );
    assert_eq!(decided.resolved_by.unwrap().via, "react");
    assert_eq!(report["state"], "allowed", "{report}");
    let posts = report["posts"].as_object().unwrap();
    assert_eq!(
        posts.get(&format!("/permissions/{session}/perm-1")),
        Some(&serde_json::json!(1)),
        "{report}"
    );
    assert_eq!(posts.len(), 1, "no other POST, none to /ai-sdk: {report}");
}

/// The inbox page (`useToolviewSessions`, `ToolviewInbox`) and the viewer's home page list the
/// same rows with the same DOM, a session waiting on a person first; Allow pressed on the inbox
/// page answers it (`via inbox`, as the harness's wait returns it) and its row moves on.
/// Screenshot: `target/test-artifacts/ui-kit-inbox.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_react_inbox_lists_the_viewers_rows_and_answers() {
    use support::permissions::{asking, requested, resolution};
    use toolview::grpc::pb::{self, permission_resolved::Outcome};
    let mut pages = Pages::start(&["--inbox".into(), "agent-z/asks".into(), "allow".into()]).await;
    let mut config = toolview::app::ServeConfig::memory();
    config.cors_origins = vec![pages.origin.clone()];
    let server = Server::start_with(config).await;
    let mut c = client(&server.url).await;
    publish(&mut c, recorded("agent-a/done")).await.unwrap();
    let turn = ev(
        "agent-b/busy",
        "t",
        pb::tool_event::Event::TurnStarted(pb::TurnStarted {
            turn_id: "t1".into(),
        }),
    );
    publish(&mut c, vec![turn, bash_call("agent-b/busy", "e1", "c1")])
        .await
        .unwrap();
    let ask = asking(
        "agent-z/asks",
        requested("p1", "c1", "Deploy to production?"),
    );
    publish(&mut c, vec![bash_call("agent-z/asks", "e1", "c1"), ask])
        .await
        .unwrap();
    pages.say(&server.url);
    let decided = resolution(&server.url, "agent-z/asks", "p1").await;
    assert_eq!(
        decided.outcome,
        Some(Outcome::SelectedOptionId("allow".into()))
    );
    assert_eq!(decided.resolved_by.unwrap().via, "inbox");
    let report = pages.report().await;
    let states: Vec<&str> = report["react"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["attrs"]["data-state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["requires_action", "running", "idle"], "{report}");
    assert_eq!(
        report["viewer"], report["react"],
        "the same rows, the same DOM"
    );
    assert_eq!(report["after"], "running");
}
