//! OTLP ingestion on a real server process: requests built as exporters build them, sent over
//! OTLP/HTTP (protobuf, JSON, gzip) and OTLP/gRPC; a retried export adds nothing; the formats
//! give identical sessions; hostile requests get OTLP's errors and leave the server serving;
//! auth is the rest of the API's. The real emitters (Pydantic AI, OpenAI Agents with
//! OpenInference, the AI SDK) are in `otlp_emitters.rs`.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;
use support::cli::tail;
use support::process::ServerProcess;
use support::sessions::*;

fn kv(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    }
}

/// A span of trace 1 with id `id` under `parent`, `at` (start, end) in seconds.
pub(crate) fn span(
    id: u64,
    parent: u64,
    name: &str,
    at: (u64, u64),
    attrs: &[(&str, &str)],
) -> Span {
    Span {
        trace_id: vec![1; 16],
        span_id: id.to_be_bytes().to_vec(),
        parent_span_id: if parent == 0 {
            vec![]
        } else {
            parent.to_be_bytes().to_vec()
        },
        name: name.into(),
        start_time_unix_nano: 1_700_000_000_000_000_000 + at.0 * 1_000_000_000,
        end_time_unix_nano: 1_700_000_000_000_000_000 + at.1 * 1_000_000_000,
        attributes: attrs.iter().map(|(k, v)| kv(k, v)).collect(),
        ..Default::default()
    }
}

/// A tool span (`execute_tool`, the GenAI conventions).
pub(crate) fn tool(
    id: u64,
    parent: u64,
    at: (u64, u64),
    name: &str,
    args: &str,
    result: &str,
) -> Span {
    span(
        id,
        parent,
        &format!("execute_tool {name}"),
        at,
        &[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", name),
            ("gen_ai.tool.call.arguments", args),
            ("gen_ai.tool.call.result", result),
        ],
    )
}

/// An export of `spans` from a resource naming the session.
pub(crate) fn export(session: &str, spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![
                    kv("service.name", "test"),
                    kv("toolview.session.id", session),
                ],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

/// An agent run, children first as exporters send them: a chat span, two tools, the agent.
fn agent_run(session: &str) -> ExportTraceServiceRequest {
    let input = r#"[{"role":"user","parts":[{"type":"text","content":"List and read."}]}]"#;
    let output = r#"[{"role":"assistant","parts":[{"type":"text","content":"Done: two files."}]}]"#;
    export(
        session,
        vec![
            tool(3, 1, (2, 3), "bash", r#"{"command":"ls"}"#, "a.txt\nb.txt"),
            tool(4, 1, (2, 3), "read_file", r#"{"path":"a.txt"}"#, "hello"),
            span(
                5,
                1,
                "chat m",
                (4, 5),
                &[
                    ("gen_ai.operation.name", "chat"),
                    ("gen_ai.input.messages", input),
                    ("gen_ai.output.messages", output),
                ],
            ),
            span(
                1,
                0,
                "invoke_agent a",
                (0, 6),
                &[
                    ("gen_ai.operation.name", "invoke_agent"),
                    ("gen_ai.input.messages", input),
                ],
            ),
        ],
    )
}

/// A raw HTTP/1.1 POST of `body`; the status code, the headers and the body.
pub(crate) fn post(
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, response[split + 4..].to_vec())
}

const PROTOBUF: (&str, &str) = ("Content-Type", "application/x-protobuf");
const JSON: (&str, &str) = ("Content-Type", "application/json");

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

async fn head_at(url: &str, session: &str) -> u64 {
    let mut c = client(url).await;
    get_session(&mut c, session).await.unwrap().head_offset
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_transport_and_format_gives_the_same_session_and_a_retry_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let addr = server.addr();
    let proto = agent_run("otlp/proto").encode_to_vec();
    for _ in 0..2 {
        let (status, head, body) = post(addr, "/v1/traces", &[PROTOBUF], &proto);
        assert_eq!(status, 200, "{head}");
        let answer = ExportTraceServiceResponse::decode(&body[..]).unwrap();
        assert_eq!(answer.partial_success, None);
    }
    let json = serde_json::to_vec(&agent_run("otlp/json")).unwrap();
    let (status, head, body) = post(addr, "/v1/traces", &[JSON], &json);
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        serde_json::json!({})
    );
    let gz = gzip(&agent_run("otlp/gzip").encode_to_vec());
    let (status, head, _) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Content-Encoding", "gzip")],
        &gz,
    );
    assert_eq!(status, 200, "{head}");
    let mut grpc = TraceServiceClient::connect(server.url.clone())
        .await
        .unwrap();
    for _ in 0..2 {
        grpc.export(agent_run("otlp/grpc")).await.unwrap();
    }

    // 4 spans: a turn (2), the user's message (2), two calls (4), the answer (2).
    assert_eq!(
        head_at(&server.url, "otlp/proto").await,
        10,
        "the retry appended nothing"
    );
    assert_eq!(
        head_at(&server.url, "otlp/grpc").await,
        10,
        "the retry appended nothing"
    );
    let markdown = tail(&server.url, "otlp/proto", "markdown");
    for shown in [
        "List and read.",
        "**Tool Call: bash**",
        r#""command": "ls""#,
        "a.txt\nb.txt",
        "hello",
        "Done: two files.",
    ] {
        assert!(markdown.contains(shown), "{shown:?} in {markdown}");
    }
    // Each session has its own epoch; everything else is the same.
    let without_epochs = |text: String| -> String {
        let mut parts = text.split(r#""epoch":""#);
        let mut out = parts.next().unwrap_or_default().to_owned();
        for part in parts {
            out.push_str(part.get(16..).unwrap_or_default());
        }
        out
    };
    for target in ["markdown", "acp", "ai-sdk", "ag-ui"] {
        let want = without_epochs(tail(&server.url, "otlp/proto", target));
        for other in ["otlp/json", "otlp/gzip", "otlp/grpc"] {
            let got = without_epochs(tail(&server.url, other, target).replace(other, "otlp/proto"));
            assert!(got == want, "{other} as {target} differs");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bodies_get_a_status_in_their_format() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let addr = server.addr();
    // Bad bodies: a google.rpc.Status in the request's format, naming what broke.
    let (status, _, body) = post(addr, "/v1/traces", &[PROTOBUF], b"\xff\xff\xff\xff");
    assert_eq!(status, 400);
    let refused = tonic_types::pb::Status::decode(&body[..]).unwrap();
    assert_eq!(refused.code, tonic::Code::InvalidArgument as i32);
    assert!(
        refused.message.contains("request body"),
        "{}",
        refused.message
    );
    let (status, _, body) = post(
        addr,
        "/v1/traces",
        &[JSON],
        br#"{"resourceSpans": [{"scopeSpans": 7}]}"#,
    );
    assert_eq!(status, 400);
    let refused: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(refused["code"], 3, "{refused}");
    let (status, _, _) = post(addr, "/v1/traces", &[("Content-Type", "text/plain")], b"x");
    assert_eq!(status, 415);
    let (status, _, _) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Content-Encoding", "br")],
        b"x",
    );
    assert_eq!(status, 415);
    let (status, _, _) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Content-Encoding", "gzip")],
        b"not gzip",
    );
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_a_limit_is_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let addr = server.addr();
    // A gzip bomb: 64 MiB of zeros in well under 1 MiB, stopped at the 4 MiB limit.
    let bomb = gzip(&vec![0u8; 64 << 20]);
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    let (status, _, body) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Content-Encoding", "gzip")],
        &bomb,
    );
    assert_eq!(status, 413);
    assert!(
        tonic_types::pb::Status::decode(&body[..])
            .unwrap()
            .message
            .contains("decompressed")
    );

    // 10,000 spans: over --otlp-max-records, refused whole.
    let many: Vec<Span> = (1..=10_000)
        .map(|i| tool(i, 0, (0, 1), "bash", "{}", ""))
        .collect();
    let (status, _, body) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF],
        &export("otlp/many", many).encode_to_vec(),
    );
    assert_eq!(status, 413);
    assert!(
        tonic_types::pb::Status::decode(&body[..])
            .unwrap()
            .message
            .contains("--otlp-max-records")
    );
    let mut c = client(&server.url).await;
    assert!(
        get_session(&mut c, "otlp/many").await.is_err(),
        "nothing stored"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_spans_are_refused_alone_and_the_server_serves_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let addr = server.addr();
    let mut c = client(&server.url).await;
    // A chain of 2,000 nested tool spans, a span naming no tool, bad ids, and a 3 MB
    // attribute: the chain is mapped, the nameless and the bad ones counted as refused.
    let mut spans: Vec<Span> = (1..=2000)
        .map(|i| tool(i, i - 1, (i, 5000 - i), "task", "{}", "ok"))
        .collect();
    spans.push(span(
        3001,
        0,
        "execute_tool ",
        (0, 1),
        &[("gen_ai.operation.name", "execute_tool")],
    ));
    let mut bad = tool(3002, 0, (0, 1), "bash", "{}", "");
    bad.span_id = vec![1, 2, 3];
    spans.push(bad);
    spans.push(tool(3003, 0, (0, 1), "write", &"x".repeat(3 << 20), ""));
    let (status, head, body) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF],
        &export("otlp/deep", spans).encode_to_vec(),
    );
    assert_eq!(status, 200, "{head}");
    let partial = ExportTraceServiceResponse::decode(&body[..])
        .unwrap()
        .partial_success
        .unwrap();
    assert_eq!(partial.rejected_spans, 2, "{partial:?}");
    assert!(
        partial.error_message.contains("names no tool"),
        "{partial:?}"
    );
    assert_eq!(head_of(&mut c, "otlp/deep").await, 2 * 2001);

    // Spans toolview does not show: accepted, counted, nothing stored.
    let other = export(
        "otlp/other",
        vec![span(1, 0, "GET /", (0, 1), &[("http.method", "GET")])],
    );
    let (status, _, body) = post(addr, "/v1/traces", &[PROTOBUF], &other.encode_to_vec());
    assert_eq!(status, 200);
    assert_eq!(
        ExportTraceServiceResponse::decode(&body[..])
            .unwrap()
            .partial_success,
        None
    );
    assert!(get_session(&mut c, "otlp/other").await.is_err());

    // The server serves on.
    let (status, _, _) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF],
        &agent_run("otlp/after").encode_to_vec(),
    );
    assert_eq!(status, 200);
    assert_eq!(head_of(&mut c, "otlp/after").await, 10);
}

async fn head_of(c: &mut Client, session: &str) -> u64 {
    get_session(c, session).await.unwrap().head_offset
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_is_the_apis_and_the_receiver_can_be_off() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let addr = server.addr();
    let body = agent_run("team-a/run-1").encode_to_vec();
    let (status, _, _) = post(addr, "/v1/traces", &[PROTOBUF], &body);
    assert_eq!(status, 401);
    let reader = format!(
        "Bearer {}",
        support::auth::token(&["subscribe"], &["team-a/*"])
    );
    let (status, _, _) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Authorization", &reader)],
        &body,
    );
    assert_eq!(status, 403);
    let other = format!(
        "Bearer {}",
        support::auth::token(&["publish"], &["team-b/*"])
    );
    let (status, _, _) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Authorization", &other)],
        &body,
    );
    assert_eq!(status, 403);
    let writer = format!(
        "Bearer {}",
        support::auth::token(&["publish"], &["team-a/*"])
    );
    let (status, head, _) = post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Authorization", &writer)],
        &body,
    );
    assert_eq!(status, 200, "{head}");
    let mut grpc = TraceServiceClient::connect(server.url.clone())
        .await
        .unwrap();
    let refused = grpc.export(agent_run("team-a/run-2")).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);

    let off = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(off.path(), &["--store", "memory", "--disable-otlp"]);
    let (status, _, _) = post(server.addr(), "/v1/traces", &[PROTOBUF], &body);
    assert_eq!(status, 404);
}

/// `n` empty attributes: two bytes each on the wire.
fn empty_attributes(n: usize) -> Vec<KeyValue> {
    vec![KeyValue::default(); n]
}

/// What a request cost the server: CPU milliseconds and peak RSS growth in KiB (VmHWM).
async fn cost<T>(server: &ServerProcess, request: impl Future<Output = T>) -> (T, u64, u64) {
    let peak = || support::process::peak_rss_kib(server.pid());
    let (cpu, before) = (server.cpu_ms(), peak());
    let out = request.await;
    (out, server.cpu_ms() - cpu, peak().saturating_sub(before))
}

/// Hostile exports (issue 55, item 4). One of 200,000 empty resource attributes before the one
/// naming the session, over 400 tool spans: only the first `--otlp-max-attributes` are read, so
/// the late session attribute is never seen (the trace's session is used). One of 2,000,000
/// (4 MB): past `--otlp-max-entries`, refused before it is decoded, over HTTP and gRPC. A token
/// that may publish nothing is refused before decoding; broken protobuf and gzip over gRPC are
/// `INVALID_ARGUMENT`. What each cost is printed beside an ordinary export (docs/limits.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_attribute_floods_cost_a_bounded_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let addr = server.addr().to_owned();
    let tools = |n: u64| -> Vec<Span> {
        (1..=n)
            .map(|i| tool(i, 0, (0, 1), "bash", r#"{"command":"make test"}"#, "ok"))
            .collect()
    };
    let flood = |attributes: usize| {
        let mut flood = export("unused", tools(400));
        let resource = flood.resource_spans[0].resource.as_mut().unwrap();
        resource.attributes = empty_attributes(attributes);
        resource
            .attributes
            .push(kv("toolview.session.id", "late/session"));
        flood
    };
    let ordinary = export("ordinary", tools(2000)).encode_to_vec();
    let ((status, _, _), cpu, rss) = cost(&server, async {
        post(&addr, "/v1/traces", &[PROTOBUF], &ordinary)
    })
    .await;
    assert_eq!(status, 200);
    println!(
        "an ordinary {} KB export of 2,000 tool spans: {cpu} ms of server CPU, peak RSS +{} MiB",
        ordinary.len() / 1000,
        rss / 1024
    );

    let body = flood(200_000).encode_to_vec();
    let ((status, head, _), cpu, rss) = cost(&server, async {
        post(&addr, "/v1/traces", &[PROTOBUF], &body)
    })
    .await;
    assert_eq!(status, 200, "{head}");
    println!(
        "a {} KB export of 200,000 empty attributes and 400 spans: {cpu} ms of server CPU, peak RSS +{} MiB",
        body.len() / 1000,
        rss / 1024
    );
    let mut c = client(&server.url).await;
    assert!(
        get_session(&mut c, "late/session").await.is_err(),
        "read past the limit"
    );
    let trace = format!("otel/{}", "01".repeat(16));
    assert_eq!(get_session(&mut c, &trace).await.unwrap().calls, 400);

    let huge = flood(2_000_000);
    let body = huge.encode_to_vec();
    let ((status, _, answer), cpu, rss) = cost(&server, async {
        post(&addr, "/v1/traces", &[PROTOBUF], &body)
    })
    .await;
    assert_eq!(status, 413);
    let refused = tonic_types::pb::Status::decode(&answer[..]).unwrap();
    assert!(
        refused.message.contains("--otlp-max-entries"),
        "{}",
        refused.message
    );
    println!(
        "a {} KB export of 2,000,000 empty attributes, refused: {cpu} ms of server CPU, peak RSS +{} MiB",
        body.len() / 1000,
        rss / 1024
    );
    let mut grpc = TraceServiceClient::connect(server.url.clone())
        .await
        .unwrap();
    let (refused, cpu, rss) = cost(&server, grpc.export(huge.clone())).await;
    assert_eq!(refused.unwrap_err().code(), tonic::Code::ResourceExhausted);
    println!(
        "the same over OTLP/gRPC: {cpu} ms of server CPU, peak RSS +{} MiB",
        rss / 1024
    );

    // gRPC: a truncated message and a body that does not gunzip are the caller's fault.
    let truncated = &agent_run("s").encode_to_vec()[..40];
    let mut framed = vec![0u8];
    framed.extend_from_slice(&(truncated.len() as u32).to_be_bytes());
    framed.extend_from_slice(truncated);
    let mut gzipped_garbage = vec![1u8];
    gzipped_garbage.extend_from_slice(&8u32.to_be_bytes());
    gzipped_garbage.extend_from_slice(b"not gzip");
    for (frame, encoding) in [(framed, None), (gzipped_garbage, Some("gzip"))] {
        let status = grpc_raw(&server.url, &frame, encoding).await;
        assert_eq!(status, tonic::Code::InvalidArgument as i32, "{encoding:?}");
    }

    // A token that may publish nothing is refused before its body is decoded.
    let secured = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(secured.path(), &[]);
    let nothing = format!(
        "Bearer {}",
        support::auth::token(&["read"], &["nothing-here"])
    );
    let body = flood(200_000).encode_to_vec();
    let (status, _, answer) = post(
        server.addr(),
        "/v1/traces",
        &[PROTOBUF, ("Authorization", &nothing)],
        &body,
    );
    assert_eq!(status, 403);
    let refused = tonic_types::pb::Status::decode(&answer[..]).unwrap();
    assert!(
        refused.message.contains("on any session"),
        "{}",
        refused.message
    );
    let mut grpc = TraceServiceClient::connect(server.url.clone())
        .await
        .unwrap();
    let mut request = tonic::Request::new(huge);
    request
        .metadata_mut()
        .insert("authorization", nothing.parse().unwrap());
    let refused = grpc.export(request).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::PermissionDenied);
}

/// One raw gRPC call of the trace service with `frame` as its body: the `grpc-status`.
async fn grpc_raw(url: &str, frame: &[u8], encoding: Option<&str>) -> i32 {
    use http_body_util::{BodyExt as _, Full};
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut request = http::Request::post(format!(
        "{url}/opentelemetry.proto.collector.trace.v1.TraceService/Export"
    ))
    .header("content-type", "application/grpc")
    .header("te", "trailers");
    if let Some(encoding) = encoding {
        request = request.header("grpc-encoding", encoding);
    }
    let request = request
        .body(tonic::body::Body::new(Full::new(
            bytes::Bytes::copy_from_slice(frame),
        )))
        .unwrap();
    let response = tower::ServiceExt::oneshot(channel, request).await.unwrap();
    let in_headers = response.headers().get("grpc-status").cloned();
    let trailers = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .trailers()
        .cloned();
    let status = in_headers.or_else(|| trailers?.get("grpc-status").cloned());
    status.unwrap().to_str().unwrap().parse().unwrap()
}

/// `POST /v1/metrics` (which SDKs exporting every signal to one endpoint send): taken and
/// dropped with OTLP's empty answer, the caller checked like a trace export's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_exports_are_taken_and_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let writer = format!(
        "Bearer {}",
        support::auth::token(&["publish"], &["team-a/*"])
    );
    let (status, _, body) = post(
        server.addr(),
        "/v1/metrics",
        &[PROTOBUF, ("Authorization", &writer)],
        b"\x0a\x00",
    );
    assert_eq!((status, body.len()), (200, 0));
    let (status, _, body) = post(
        server.addr(),
        "/v1/metrics",
        &[JSON, ("Authorization", &writer)],
        br#"{"resourceMetrics":[]}"#,
    );
    assert_eq!((status, body.as_slice()), (200, &b"{}"[..]));
    let reader = format!("Bearer {}", support::auth::token(&["read"], &["team-a/*"]));
    let (status, _, _) = post(
        server.addr(),
        "/v1/metrics",
        &[PROTOBUF, ("Authorization", &reader)],
        b"",
    );
    assert_eq!(status, 403);
    let (status, _, _) = post(server.addr(), "/v1/metrics", &[PROTOBUF], b"");
    assert_eq!(status, 401);
}
