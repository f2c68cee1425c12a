//! Metrics and the request log of the real binary: `serve --metrics-listen` scraped over HTTP
//! before and after a publish, a duplicate, a refused batch, a subscription and its end, and a
//! refused token; the admin listener's gRPC health; one JSON log line per RPC.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use support::auth::{SECRET, token, with_token};
use support::process::{ServerProcess, sample, scrape, serve_command};
use support::sessions::*;
use toolview::grpc::pb;

fn metrics_server(dir: &Path, extra: &[&str]) -> ServerProcess {
    let mut flags = vec!["--store", "embedded", "--metrics-listen", "127.0.0.1:0"];
    flags.extend_from_slice(extra);
    ServerProcess::spawn(dir, &flags)
}

const PUBLISH: &str = "/toolview.v1.SessionService/Publish";
const SUBSCRIBE: &str = "/toolview.v1.SessionService/Subscribe";

#[tokio::test]
async fn counters_move_with_publishes_and_subscriptions() {
    let dir = tempfile::tempdir().unwrap();
    let server = metrics_server(dir.path(), &[]);
    let admin = server
        .metrics
        .clone()
        .expect("the admin address is printed");
    let before = scrape(&admin);
    assert_eq!(sample(&before, "toolview_subscribers{target=\"acp\"}"), 0.0);
    assert!(before.contains("toolview_build{version=\""), "{before}");
    assert!(before.contains("store=\"embedded\"} 1"), "{before}");

    let mut c = client(&server.url).await;
    let events = vec![
        bash_call("m", "e1", "c1"),
        output("m", "e2", "c1", "hello\n"),
        finish("m", "e3", "c1", "ok", ""),
    ];
    publish(&mut c, events.clone()).await.unwrap();
    // The same ids again: duplicates. Then a batch the lifecycle refuses (c1 is finished).
    publish(&mut c, events[..1].to_vec()).await.unwrap();
    let refused = publish(&mut c, vec![output("m", "e4", "c1", "late\n")]).await;
    assert_eq!(refused.unwrap_err().code(), tonic::Code::FailedPrecondition);

    let mut stream = subscribe(
        &mut c,
        request("m", pb::Target::Acp, true, from_beginning()),
    )
    .await;
    updates_until(&mut stream, 3).await;
    let during = scrape(&admin);

    let expect = [
        ("toolview_published_events_total{result=\"appended\"}", 3.0),
        ("toolview_published_events_total{result=\"duplicate\"}", 1.0),
        ("toolview_published_events_total{result=\"rejected\"}", 1.0),
        ("toolview_store_append_duration_seconds_count", 1.0),
        (
            &format!("toolview_grpc_requests_total{{method=\"{PUBLISH}\",code=\"OK\"}}"),
            2.0,
        ),
        (
            &format!(
                "toolview_grpc_requests_total{{method=\"{PUBLISH}\",code=\"FAILED_PRECONDITION\"}}"
            ),
            1.0,
        ),
        (
            &format!("toolview_grpc_request_duration_seconds_count{{method=\"{PUBLISH}\"}}"),
            3.0,
        ),
        ("toolview_subscribers{target=\"acp\"}", 1.0),
        (
            "toolview_subscribe_starts_total{start=\"from_beginning\"}",
            1.0,
        ),
        ("toolview_updates_sent_total{target=\"acp\"}", 3.0),
        ("toolview_render_duration_seconds_count", 3.0),
        ("toolview_loaded_sessions", 1.0),
    ];
    for (series, want) in expect {
        assert_eq!(sample(&during, series), want, "{series} in\n{during}");
    }
    assert!(
        sample(&during, "toolview_lane_cache_bytes") > 0.0,
        "{during}"
    );

    // A live update: the delivery lag is measured for a subscriber waiting at the head.
    publish(&mut c, vec![bash_call("m", "e5", "c2")])
        .await
        .unwrap();
    updates_until(&mut stream, 4).await;

    // The client goes away: the subscription ends, its lane and cache with it.
    drop(stream);
    drop(c);
    let mut after = String::new();
    for _ in 0..200 {
        after = scrape(&admin);
        if sample(
            &after,
            "toolview_subscriber_ends_total{reason=\"client_gone\"}",
        ) == 1.0
            && sample(
                &after,
                &format!(
                    "toolview_grpc_requests_total{{method=\"{SUBSCRIBE}\",code=\"CANCELLED\"}}"
                ),
            ) == 1.0
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        sample(
            &after,
            "toolview_subscriber_ends_total{reason=\"client_gone\"}"
        ),
        1.0,
        "{after}"
    );
    assert_eq!(
        sample(
            &after,
            &format!("toolview_grpc_requests_total{{method=\"{SUBSCRIBE}\",code=\"CANCELLED\"}}")
        ),
        1.0,
        "{after}"
    );
    assert_eq!(sample(&after, "toolview_subscribers{target=\"acp\"}"), 0.0);
    assert_eq!(
        sample(&after, "toolview_delivery_lag_seconds_count"),
        1.0,
        "{after}"
    );
    assert_eq!(sample(&after, "toolview_lane_cache_bytes"), 0.0, "{after}");
    assert!(after.ends_with("# EOF\n"));
}

/// Unknown paths share one series: a client cannot create new ones.
#[tokio::test]
async fn unknown_methods_are_one_series() {
    let dir = tempfile::tempdir().unwrap();
    let server = metrics_server(dir.path(), &[]);
    let admin = server.metrics.clone().unwrap();
    // Over gRPC-Web, as a browser would: the layer sees those calls too.
    for n in 0..3 {
        let io = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
        let path = format!("/toolview.v1.SessionService/Nope{n}");
        let empty = pb::GetSessionRequest::default();
        let status = support::auth::grpc_web_status(io, server.addr(), &path, &empty, None).await;
        assert_eq!(status, 12, "UNIMPLEMENTED");
    }
    let text = scrape(&admin);
    assert_eq!(
        sample(
            &text,
            "toolview_grpc_requests_total{method=\"unknown\",code=\"UNIMPLEMENTED\"}"
        ),
        3.0,
        "{text}"
    );
    assert!(!text.contains("Nope"), "{text}");
}

/// Refused tokens are counted by code; the admin listener answers health checks in plaintext
/// while the API requires a token.
#[tokio::test]
async fn auth_failures_are_counted_and_health_needs_no_token() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    let server = metrics_server(
        dir.path(),
        &[
            "--auth",
            "jwt",
            "--jwt-secret-file",
            secret.to_str().unwrap(),
        ],
    );
    let admin = server.metrics.clone().unwrap();
    let mut c = client(&server.url).await;
    let none = publish(&mut c, vec![bash_call("m", "e1", "c1")]).await;
    assert_eq!(none.unwrap_err().code(), tonic::Code::Unauthenticated);
    let reader = token(&["read"], &["m"]);
    let denied = c
        .publish(with_token(
            pb::PublishRequest {
                events: vec![bash_call("m", "e1", "c1")],
            },
            &reader,
        ))
        .await;
    assert_eq!(denied.unwrap_err().code(), tonic::Code::PermissionDenied);
    let text = scrape(&admin);
    assert_eq!(
        sample(
            &text,
            "toolview_auth_failures_total{code=\"UNAUTHENTICATED\"}"
        ),
        1.0,
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "toolview_auth_failures_total{code=\"PERMISSION_DENIED\"}"
        ),
        1.0,
        "{text}"
    );

    let url = format!("http://{admin}");
    let out = support::cli::command(&["health", "--server", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "SERVING");
}

/// One JSON line per RPC at `info`: method, session, status code, latency.
#[tokio::test]
async fn every_rpc_is_one_log_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = serve_command(dir.path(), &["--log-format", "json"]);
    cmd.env("TOOLVIEW_LOG", "info").stderr(Stdio::piped());
    let mut server = ServerProcess::from_command(cmd);
    let stderr = server.child.stderr.take().unwrap();
    let lines = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let mut c = client(&server.url).await;
    publish(&mut c, vec![bash_call("logged", "e1", "c1")])
        .await
        .unwrap();
    let missing = get_session(&mut c, "nobody").await.unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);
    drop(c);
    // Off the runtime, which must go on running the client's connection so it can close.
    let server = tokio::task::spawn_blocking(move || {
        server.stop();
        server
    })
    .await
    .unwrap();
    drop(server);
    let rpcs: Vec<serde_json::Value> = lines
        .join()
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter(|l| l["fields"]["message"] == "rpc")
        .collect();
    assert_eq!(rpcs.len(), 2, "{rpcs:#?}");
    let (publish, get) = (&rpcs[0], &rpcs[1]);
    assert_eq!(publish["level"], "INFO");
    assert_eq!(publish["span"]["method"], PUBLISH);
    assert_eq!(publish["span"]["session_id"], "logged");
    assert_eq!(publish["fields"]["code"], "OK");
    assert!(publish["fields"]["latency_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(
        get["span"]["method"],
        "/toolview.v1.SessionService/GetSession"
    );
    assert_eq!(get["span"]["session_id"], "nobody");
    assert_eq!(get["fields"]["code"], "NOT_FOUND");
}
