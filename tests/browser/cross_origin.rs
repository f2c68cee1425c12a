//! A hostile page on another origin, in a real browser (`tests/js/cross_origin_browser.cjs`),
//! against a server without auth (the loopback default): none of the requests a page may send
//! without a preflight answers a permission request, publishes, or opens an MCP session; the
//! preflighted JSON ones are refused by CORS. With `--cors-origin` naming the page, its JSON
//! requests go through (the viewer, CopilotKit and `useChat` pages rely on that).

use std::io::{BufRead, BufReader, Lines, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;
use support::permissions::*;
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb;

/// The hostile page's driver.
struct Page {
    browser: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    origin: String,
}

impl Page {
    fn start() -> Page {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut browser = Command::new("node")
            .arg(root.join("tests/js/cross_origin_browser.cjs"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs");
        let stdin = browser.stdin.take().unwrap();
        let mut lines = BufReader::new(browser.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let origin = first.strip_prefix("origin ").expect("the page's origin");
        Page {
            browser,
            stdin,
            lines,
            origin: origin.to_owned(),
        }
    }

    /// Every attack on `server`'s session `session`: what the page saw of each.
    async fn attack(mut self, server: &str, session: &str) -> (Value, Page) {
        writeln!(self.stdin, "{server} {session}").unwrap();
        tokio::task::spawn_blocking(move || {
            let line = self.lines.next().and_then(Result::ok).unwrap_or_default();
            let report = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            (report, self)
        })
        .await
        .unwrap()
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        let _ = self.browser.kill();
        let _ = self.browser.wait();
    }
}

/// Whether `request` was still pending: an answer now wins it.
async fn still_pending(url: &str, session: &str, request: &str) -> bool {
    let mut p = permissions(url).await;
    let answer = p
        .respond_permission(respond(session, request, "reject"))
        .await
        .unwrap()
        .into_inner();
    answer.won
}

async fn session_exists(url: &str, session: &str) -> bool {
    let mut c = client(url).await;
    let got = c
        .get_session(pb::GetSessionRequest {
            session_id: session.into(),
        })
        .await;
    match got {
        Ok(_) => true,
        Err(e) if e.code() == tonic::Code::NotFound => false,
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_another_origin_changes_nothing() {
    let page = Page::start();
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    three_requests(&server.url, "victim", None).await;

    let (report, page) = page.attack(&server.url, "victim").await;
    for (endpoint, kinds) in report.as_object().unwrap() {
        // The simple requests reach the server (the page cannot see their answers); the
        // preflighted one is stopped by CORS before it is sent.
        for (kind, seen) in kinds.as_object().unwrap() {
            let expected = if kind.starts_with("json") {
                seen.as_str().unwrap().starts_with("error")
            } else {
                seen == "sent"
            };
            assert!(expected, "{endpoint} {kind}: {seen}");
        }
    }
    for request in ["perm-1", "perm-2", "perm-3"] {
        assert!(
            still_pending(&server.url, "victim", request).await,
            "a page on another origin decided {request}: {report}"
        );
    }
    assert!(
        !session_exists(&server.url, "victim-otlp").await,
        "the page published a span"
    );

    // The same page, allowed: its preflighted JSON answer is taken, and its simple requests
    // still are not.
    let allowed = tempfile::tempdir().unwrap();
    let origin = page.origin.clone();
    let server = ServerProcess::spawn(
        allowed.path(),
        &["--store", "memory", "--cors-origin", &origin],
    );
    three_requests(&server.url, "allowed", None).await;
    let (report, _page) = page.attack(&server.url, "allowed").await;
    assert_eq!(
        report["permissions"]["json (preflighted)"], "status 200",
        "{report}"
    );
    assert_eq!(
        report["otlp"]["json (preflighted)"], "status 200",
        "{report}"
    );
    assert_eq!(report["permissions"]["text/plain"], "sent", "{report}");
    assert!(!still_pending(&server.url, "allowed", "perm-1").await);
    assert!(session_exists(&server.url, "allowed-otlp").await);
}
