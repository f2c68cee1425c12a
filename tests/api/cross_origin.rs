//! What a web page on another origin could send, refused on every path that changes state with
//! auth on as with auth off (`src/http/origin.rs`); and session and request ids with `.` or `..`
//! segments, refused with the same error wherever an id enters.

use std::io::{Read, Write};

use serde_json::{Value, json};
use support::auth::{secret_server, token, with_token};
use support::permissions::*;
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb;

/// One HTTP/1.1 request with exactly these headers (besides Host, Content-Length and
/// Connection): the status and the body.
fn send(addr: &str, line: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let mut head = format!("{line} HTTP/1.1\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    write!(
        stream,
        "{head}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (
        head.split(' ').nth(1).unwrap().parse().unwrap(),
        body.to_owned(),
    )
}

/// Every path that changes state, with a body it would take.
fn state_changing(session: &str) -> Vec<(String, String)> {
    let answer = json!({"optionId": "allow"});
    let resume = json!({"threadId": session, "forwardedProps": {"toolview": {"follow": false}},
        "resume": [{"interruptId": "perm-2", "status": "resolved", "payload": {"optionId": "allow"}}]});
    let approve = json!({"id": session, "toolview": {"follow": false}, "messages": [{"id": "m",
        "role": "assistant", "parts": [{"type": "tool-Bash", "toolCallId": "c3",
        "approval": {"id": "perm-3", "approved": true}}]}]});
    let mcp = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}});
    vec![
        (format!("/permissions/{session}/perm-1"), answer.to_string()),
        ("/ag-ui".into(), resume.to_string()),
        ("/ai-sdk".into(), approve.to_string()),
        ("/mcp".into(), mcp.to_string()),
        ("/v1/traces".into(), r#"{"resourceSpans":[]}"#.into()),
    ]
}

/// Requests from a page on another origin, and requests of a type any page may send, are
/// refused before anything is read; the same requests from the server's own page or a program
/// are taken.
async fn check(server: &ServerProcess, bearer: Option<String>) {
    let addr = server.addr();
    let own = format!("http://{addr}");
    let auth = bearer.as_deref().map(|t| ("Authorization", t));
    let with = |extra: &[(&'static str, &'static str)]| -> Vec<(&str, &str)> {
        extra.iter().copied().chain(auth).collect()
    };
    for (path, body) in state_changing("victim") {
        let line = format!("POST {path}");
        for origin in ["https://evil.example", "http://127.0.0.1:1", "null"] {
            let mut h = with(&[("Content-Type", "application/json")]);
            h.push(("Origin", origin));
            let (status, refusal) = send(addr, &line, &h, &body);
            assert_eq!(status, 403, "{path} from {origin}: {refusal}");
            let refusal: Value = serde_json::from_str(&refusal).unwrap();
            assert_eq!(refusal["code"], "PERMISSION_DENIED", "{path}");
            assert!(refusal["error"].as_str().unwrap().contains("--cors-origin"));
        }
        let h = with(&[
            ("Content-Type", "application/json"),
            ("Sec-Fetch-Site", "cross-site"),
        ]);
        assert_eq!(send(addr, &line, &h, &body).0, 403, "{path}");
        for simple in [
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
        ] {
            let mut h = with(&[("Content-Type", simple)]);
            h.push(("Origin", own.as_str()));
            let (status, refusal) = send(addr, &line, &h, &body);
            assert_eq!(status, 415, "{path} as {simple}: {refusal}");
            let refusal: Value = serde_json::from_str(&refusal).unwrap();
            assert_eq!(refusal["field"], "Content-Type", "{path}");
        }
        assert_eq!(
            send(addr, &line, &with(&[]), &body).0,
            415,
            "{path} with no type"
        );
    }
    // gRPC-Web from a page on another origin.
    let mut h = with(&[("Content-Type", "application/grpc-web+proto")]);
    h.push(("Origin", "https://evil.example"));
    let (status, _) = send(addr, "POST /toolview.v1.SessionService/Publish", &h, "");
    assert_eq!(status, 403);
    // Nothing was decided: the server's own page answers now, and wins.
    let mut h = with(&[("Content-Type", "application/json")]);
    h.push(("Origin", own.as_str()));
    let (status, won) = send(
        addr,
        "POST /permissions/victim/perm-1",
        &h,
        r#"{"optionId":"reject"}"#,
    );
    assert_eq!(status, 200, "{won}");
    let (status, won) = send(
        addr,
        "POST /permissions/victim/perm-2",
        &with(&[("Content-Type", "application/json")]),
        r#"{"optionId":"reject"}"#,
    );
    assert_eq!(status, 200, "a program answers: {won}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_on_other_origins_change_nothing_with_auth_off() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    three_requests(&server.url, "victim", None).await;
    check(&server, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_on_other_origins_change_nothing_with_auth_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = secret_server(dir.path(), &[]);
    let all = token(&["publish", "subscribe", "read", "approve"], &["**"]);
    three_requests(&server.url, "victim", Some(&all)).await;
    // Even a page holding a valid token is refused for its origin.
    check(&server, Some(format!("Bearer {all}"))).await;
}

/// The ids the viewer and the clients build URL paths from, with dot segments.
const DOTTED: [&str; 4] = ["x/../victim", "..", "team-a/./x", "team-a/.."];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_with_dot_segments_are_refused_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut c = client(&server.url).await;
    let mut p = permissions(&server.url).await;
    let why = "a segment may not be '.' or '..'";
    for id in DOTTED {
        let e = publish(&mut c, vec![bash_call(id, "e1", "c1")])
            .await
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{id}");
        assert!(e.message().contains(why), "{id}: {}", e.message());
        let e = c
            .get_session(pb::GetSessionRequest {
                session_id: id.into(),
            })
            .await
            .unwrap_err();
        assert!(
            e.message().contains(&format!("session_id: {why}")),
            "{id}: {}",
            e.message()
        );
        let e = p
            .respond_permission(respond(id, "perm-1", "allow"))
            .await
            .unwrap_err();
        assert!(e.message().contains(why), "{id}: {}", e.message());
        let body = json!({"threadId": id}).to_string();
        let (status, refusal) = send(
            server.addr(),
            "POST /ag-ui",
            &[("Content-Type", "application/json")],
            &body,
        );
        assert_eq!(status, 400, "{id}: {refusal}");
        assert!(refusal.contains(why), "{id}: {refusal}");
        let body = json!({"id": id, "messages": []}).to_string();
        let (status, refusal) = send(
            server.addr(),
            "POST /ai-sdk",
            &[("Content-Type", "application/json")],
            &body,
        );
        assert_eq!(status, 400, "{id}: {refusal}");
        assert!(refusal.contains(why), "{id}: {refusal}");
    }
    // A request id is a path segment too.
    publish(&mut c, vec![bash_call("s", "e1", "c1")])
        .await
        .unwrap();
    let e = publish(&mut c, vec![asking("s", requested("..", "c1", "Run?"))])
        .await
        .unwrap_err();
    assert!(e.message().contains(why), "{}", e.message());
    // A grant for `team-a/**` reaches nothing outside `team-a/`: no id climbs out of it.
    let secured = tempfile::tempdir().unwrap();
    let server = secret_server(secured.path(), &[]);
    let mut c = client(&server.url).await;
    let team_a = token(&["publish"], &["team-a/**"]);
    let request = pb::PublishRequest {
        events: vec![bash_call("team-a/../victim/run", "e1", "c1")],
    };
    let e = c.publish(with_token(request, &team_a)).await.unwrap_err();
    assert!(e.message().contains(why), "{}", e.message());
}
