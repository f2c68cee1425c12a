//! `toolview mcp` with the official MCP SDK client (`tests/js/mcp_client.mjs`), as a host with
//! MCP Apps connects: the tools (the watch tool naming its view, the poll tool visible to the
//! app only) and the view resource valid per `@modelcontextprotocol/ext-apps`' schemas; the
//! sessions its token may read; a watch whose text is the Markdown transcript (what a host
//! without apps shows) and whose structured content is the first page of VIEW updates; a poll
//! that waits at the head and returns what is published meanwhile; and a session the token does
//! not cover refused.

use serde_json::{Value, json};
use support::node::NodeClient;
use support::sessions::*;

fn node_mcp(url: &str, token: &str, transport: &str) -> NodeClient {
    let mut cmd = support::node::script("mcp_client");
    cmd.arg(support::toolview_bin())
        .args([url, "team-a/run-1", "team-b/run-2", transport])
        .env("TOOLVIEW_TOKEN", token);
    NodeClient::spawn(cmd)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_lists_watches_and_polls_within_its_token_over_stdio() {
    host_session("stdio").await;
}

/// The same over the service's own `/mcp` (MCP's streamable HTTP, the token as the bearer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_lists_watches_and_polls_within_its_token_over_http() {
    host_session("http").await;
}

async fn host_session(transport: &str) {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let admin = support::auth::token(&["publish", "read", "subscribe"], &["**"]);
    let mut c = client(&server.url).await;
    let publish_as = |events| support::auth::with_token(pb_publish(events), &admin);
    c.publish(publish_as(sample_session("team-a/run-1")))
        .await
        .unwrap();
    c.publish(publish_as(sample_session("team-b/run-2")))
        .await
        .unwrap();
    let token = support::auth::token(&["read", "subscribe"], &["team-a/*"]);
    let mut node = node_mcp(&server.url, &token, transport);
    node.wait_for("polling");
    // While the poll waits at the head: one more call.
    let late = vec![bash_call("team-a/run-1", "late-1", "late")];
    c.publish(publish_as(late)).await.unwrap();
    let report = tokio::task::spawn_blocking(move || node.finish())
        .await
        .unwrap();

    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "list_sessions",
            "watch_session",
            "poll_session",
            "answer_permission"
        ]
    );
    assert_eq!(
        report["tools"][1]["ui"],
        json!({"resourceUri": "ui://toolview/session"})
    );
    assert_eq!(report["tools"][2]["ui"]["visibility"], json!(["app"]));
    assert_eq!(report["tools"][3]["ui"]["visibility"], json!(["app"]));
    assert_eq!(report["view"]["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        report["view"]["ui"]["csp"],
        json!({"connectDomains": [], "resourceDomains": []})
    );
    // Only what the token may read.
    let listed: Vec<&Value> = report["list"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["session"])
        .collect();
    assert_eq!(listed, [&json!("team-a/run-1")]);
    // The transcript, as a host without apps shows it, and the first page for the view.
    let text = report["watch"]["text"].as_str().unwrap();
    assert!(text.contains("**Tool Call:"), "{text}");
    let first = &report["watch"]["structured"];
    assert_eq!(first["session"], "team-a/run-1");
    assert_eq!(first["more"], false);
    let head = first["cursor"]["offset"].as_u64().unwrap();
    assert_eq!(first["updates"].as_array().unwrap().len() as u64, head);
    // The poll waited, and returned the call published meanwhile.
    let poll = &report["poll"];
    assert_eq!(poll["cursor"]["offset"], head + 1, "{poll}");
    assert_eq!(poll["updates"][0]["callId"], "late");
    assert_eq!(poll["updates"][0]["view"]["card"]["toolName"], "bash");
    // A session outside the token: the refusal named by its code, as every surface names it.
    assert_eq!(report["other"]["isError"], true);
    assert!(
        report["other"]["text"]
            .as_str()
            .unwrap()
            .starts_with("PERMISSION_DENIED: "),
        "{report}"
    );
}

pub(crate) fn pb_publish(
    events: Vec<toolview::grpc::pb::ToolEvent>,
) -> toolview::grpc::pb::PublishRequest {
    toolview::grpc::pb::PublishRequest { events }
}

/// Without a valid bearer, `/mcp` answers `401` before MCP reads the request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_without_a_token_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let (head, _) = support::http::exchange(
        server.addr(),
        "POST /mcp HTTP/1.1\r\nAccept: application/json, text/event-stream\r\n",
        &body,
    );
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
}

/// `/mcp` takes bodies up to `--max-message-size` (not the MCP library's 4 MiB), and past it
/// answers `413` with the API's JSON refusal, whether the body declares its length or is chunked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_bodies_follow_the_message_size() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let max = 6 * 1024 * 1024;
    let server = support::process::ServerProcess::spawn(
        dir.path(),
        &["--store", "memory", "--max-message-size", &max.to_string()],
    );
    // An `initialize` padded to 5 MiB: over rmcp's default, within the server's limit.
    let padded = |size: usize| {
        let mut body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"}, "zz": ""}})
        .to_string();
        let pad = size - body.len();
        body.insert_str(body.len() - 3, &"x".repeat(pad));
        body
    };
    let head = "POST /mcp HTTP/1.1\r\nAccept: application/json, text/event-stream\r\n";
    let (answer, _) = support::http::exchange(server.addr(), head, &padded(5 * 1024 * 1024));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let big = padded(max + 1);
    // Over the limit, with its length and chunked (no length to refuse it by before it is read).
    for chunked in [false, true] {
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        let framing = match chunked {
            true => "Transfer-Encoding: chunked".to_owned(),
            false => format!("Content-Length: {}", big.len()),
        };
        write!(
            stream,
            "{head}Host: {}\r\nContent-Type: application/json\r\n{framing}\r\n\
             Connection: close\r\n\r\n",
            server.addr()
        )
        .unwrap();
        // With a length, refused by it before a byte of the body is read (none is sent).
        let body = if chunked { big.as_bytes() } else { &[][..] };
        for chunk in body.chunks(64 * 1024) {
            // The server may answer and close before the last chunk.
            let sent = match chunked {
                true => write!(stream, "{:x}\r\n", chunk.len())
                    .and_then(|()| stream.write_all(chunk))
                    .and_then(|()| stream.write_all(b"\r\n")),
                false => stream.write_all(chunk),
            };
            if sent.is_err() {
                break;
            }
        }
        if chunked {
            let _ = stream.write_all(b"0\r\n\r\n");
        }
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        let response = String::from_utf8_lossy(&response);
        assert!(
            response.starts_with("HTTP/1.1 413"),
            "chunked: {chunked}: {response}"
        );
        assert!(
            response.contains("\"code\":\"RESOURCE_EXHAUSTED\""),
            "{response}"
        );
    }
}

/// A long session's text fallback (what a host without apps shows): within 64 KiB with its note,
/// the **latest** calls rather than the first, cut where no code fence is open (each call's
/// output is a fenced block), so the note before it renders as text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_sessions_transcript_is_its_latest_part_within_64_kib() {
    use toolview::client::mcp::RemoteBackend;
    use toolview::mcp::{MAX_TRANSCRIPT_BYTES, transcript};
    let server = support::server::Server::start().await;
    let mut c = client(&server.url).await;
    let output = "line of output\n".repeat(300);
    let mut events = Vec::new();
    for i in 0..60 {
        let (call, args) = (
            format!("c{i}"),
            format!(r#"{{"command":"step-{i}","description":"y"}}"#),
        );
        events.push(start_call("long", &format!("s{i}"), &call, "bash", &args));
        events.push(finish("long", &format!("f{i}"), &call, &output, ""));
    }
    publish(&mut c, events).await.unwrap();
    let remote = toolview::client::Remote {
        url: server.url.clone(),
        ..Default::default()
    };
    let backend = RemoteBackend::connect(&remote).await.unwrap();
    let text = transcript(&backend, "long").await;
    assert!(text.len() <= MAX_TRANSCRIPT_BYTES, "{} bytes", text.len());
    assert!(
        text.starts_with("*… the session's start is left out"),
        "{}",
        &text[..200]
    );
    assert!(text.contains("toolview tail --session long --from-beginning"));
    // The last call is there with its whole output; the first is not.
    assert!(text.contains("$ step-59\n"), "the latest call");
    assert!(!text.contains("$ step-0\n"), "not the first");
    assert_eq!(
        text.matches("line of output").count() % 300,
        0,
        "every kept output whole"
    );
    // Fences balance: the text after the note starts outside any.
    let fences = text
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .count();
    assert_eq!(fences % 2, 0, "{text}");
}

/// The official Python SDK (`mcp` 2.3) in its default mode discovers the 2026-07-28 revision and
/// reads every result (that revision requires `resultType` on each; they lacked it), over the
/// service's `/mcp` and over `toolview mcp` on stdio.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_speaks_the_2026_07_28_revision() {
    let server = support::server::Server::start().await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![bash_call("py", "e1", "c1")])
        .await
        .unwrap();
    let python = support::repo_dir().join("tests/.venv/bin/python");
    let script = support::repo_dir().join("tests/python/mcp_client.py");
    let bin = support::toolview_bin();
    for kind in ["http", "stdio"] {
        let out = std::process::Command::new(&python)
            .arg(&script)
            .args([kind, server.url.as_str(), "py"])
            .arg(&bin)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{kind}: {stderr}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["protocol"], "2026-07-28", "{kind}: {report}");
        assert_eq!(report["tools"].as_array().unwrap().len(), 4, "{report}");
        assert_eq!(report["view"], "text/html;profile=mcp-app");
        assert_eq!(report["sessions"]["sessions"][0]["session"], "py");
        assert_eq!(report["watch"]["isError"], false, "{report}");
    }
}

/// The TypeScript SDK's v2 client with version negotiation `auto` discovers the 2026-07-28
/// revision and reads every result over `/mcp`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_v2_typescript_client_speaks_the_2026_07_28_revision() {
    let server = support::server::Server::start().await;
    let mut c = client(&server.url).await;
    publish(&mut c, vec![bash_call("v2", "e1", "c1")])
        .await
        .unwrap();
    let mut cmd = support::node::script("mcp_v2_client");
    cmd.args([server.url.as_str(), "v2"]);
    let report = tokio::task::spawn_blocking(move || NodeClient::spawn(cmd).finish())
        .await
        .unwrap();
    assert_eq!(report["protocol"], "2026-07-28", "{report}");
    assert_eq!(report["tools"].as_array().unwrap().len(), 4, "{report}");
    assert_eq!(report["view"], "text/html;profile=mcp-app");
    assert_eq!(report["watch"]["isError"], false, "{report}");
}
