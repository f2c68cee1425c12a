//! Batched exports on a real server process: a subagent's spans leave in an export before the
//! tool span that ran them, and a run's spans before the run's own. Held for their ancestors,
//! they are placed as if all had come at once; past the window (`--otlp-hold-ms`) they are placed
//! as they are, and a stop publishes what still waits. The real emitter with the SDK's batching
//! is in `otlp_emitters.rs`.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;
use serde_json::Value;
use support::cli::tail;
use support::process::{ServerProcess, sample, scrape};
use support::sessions::*;
use toolview::grpc::pb;

use crate::otlp::{post, span, tool};

const PROTOBUF: (&str, &str) = ("Content-Type", "application/x-protobuf");

/// An export from a service that names no session: each run's conversation id decides.
fn export(spans: Vec<Span>) -> ExportTraceServiceRequest {
    let service = KeyValue {
        key: "service.name".into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue("batched".into())),
        }),
        ..Default::default()
    };
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![service],
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

fn user(text: &str) -> String {
    format!(r#"[{{"role":"user","parts":[{{"type":"text","content":"{text}"}}]}}]"#)
}

/// An agent run with its own conversation id, as Pydantic AI makes one per run.
fn agent(id: u64, parent: u64, at: (u64, u64), conversation: &str, prompt: &str) -> Span {
    let input = user(prompt);
    span(
        id,
        parent,
        "invoke_agent",
        at,
        &[
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.conversation.id", conversation),
            ("gen_ai.input.messages", &input),
        ],
    )
}

fn chat(id: u64, parent: u64, at: (u64, u64), prompt: &str) -> Span {
    let input = user(prompt);
    span(
        id,
        parent,
        "chat",
        at,
        &[
            ("gen_ai.operation.name", "chat"),
            ("gen_ai.input.messages", &input),
        ],
    )
}

/// The lead run (1) calls `ask_expert` (3), which runs the expert (10): the expert's spans and
/// the lead's first model call are exported first, the rest in a second export.
fn two_exports() -> (Vec<u8>, Vec<u8>) {
    let first = export(vec![
        chat(5, 1, (1, 2), "Ask the expert."),
        chat(11, 10, (4, 5), "Which file?"),
        tool(12, 10, (5, 6), "read_file", r#"{"path":"a.txt"}"#, "hello"),
        agent(10, 3, (3, 7), "expert-run", "Which file?"),
    ]);
    let second = export(vec![
        tool(
            3,
            1,
            (2, 8),
            "ask_expert",
            r#"{"question":"Which file?"}"#,
            "a.txt",
        ),
        chat(6, 1, (8, 9), "Ask the expert."),
        agent(1, 0, (0, 10), "lead-run", "Ask the expert."),
    ]);
    (first.encode_to_vec(), second.encode_to_vec())
}

async fn session_ids(url: &str) -> Vec<String> {
    let mut c = client(url).await;
    let request = pb::ListSessionsRequest {
        page_size: 100,
        page_token: String::new(),
        ..pb::ListSessionsRequest::default()
    };
    let page = c.list_sessions(request).await.unwrap().into_inner();
    page.sessions.into_iter().map(|s| s.session_id).collect()
}

fn cards(url: &str, session: &str) -> Vec<Value> {
    tail(url, session, "view")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["view"]["card"].clone())
        .filter(Value::is_object)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_exported_before_its_call_is_placed_under_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let (first, second) = two_exports();
    let (status, head, _) = post(server.addr(), "/v1/traces", &[PROTOBUF], &first);
    assert_eq!(status, 200, "{head}");
    assert!(
        session_ids(&server.url).await.is_empty(),
        "nothing is placed before its ancestors"
    );
    let (status, head, _) = post(server.addr(), "/v1/traces", &[PROTOBUF], &second);
    assert_eq!(status, 200, "{head}");

    assert_eq!(session_ids(&server.url).await, ["lead-run"]);
    let cards = cards(&server.url, "lead-run");
    let last = |tool: &str| cards.iter().rev().find(|c| c["toolName"] == tool).unwrap();
    assert_eq!(
        last("read_file")["parentCallId"],
        last("ask_expert")["callId"]
    );
    let markdown = tail(&server.url, "lead-run", "markdown");
    let turn = markdown.find("*turn ").expect("a turn");
    let prompt = markdown.find("Ask the expert.").expect("the prompt");
    assert!(
        turn < prompt,
        "the turn starts before its prompt:\n{markdown}"
    );
    assert_eq!(markdown.matches("*turn ").count(), 2, "{markdown}");
    assert_eq!(
        markdown.matches("> Which file?").count(),
        1,
        "the expert's prompt once, nested:\n{markdown}"
    );
    assert!(
        !markdown.contains("**User:**\n\nWhich file?"),
        "not the user's:\n{markdown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_window_spans_are_placed_as_they_are_and_a_stop_publishes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServerProcess::spawn(
        dir.path(),
        &[
            "--store",
            "embedded",
            "--otlp-hold-ms",
            "200",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    );
    let admin = server.metrics.clone().expect("the admin address");
    let (first, _) = two_exports();
    post(server.addr(), "/v1/traces", &[PROTOBUF], &first);
    // The second export never comes: after the window the first is placed as it is.
    let mut ids = Vec::new();
    for _ in 0..200 {
        ids = session_ids(&server.url).await;
        if ids.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    ids.sort();
    assert_eq!(
        ids,
        ["batched/01010101010101010101010101010101", "expert-run"]
    );
    let metrics = scrape(&admin);
    assert_eq!(
        sample(
            &metrics,
            "toolview_otlp_hold_released_total{why=\"expired\"}"
        ),
        4.0,
        "{metrics}"
    );
    assert_eq!(sample(&metrics, "toolview_otlp_held_spans"), 0.0);

    // A long wait, then a stop: what waits is published before the server ends.
    server.stop();
    let mut server = ServerProcess::spawn(
        dir.path(),
        &["--store", "embedded", "--otlp-hold-ms", "600000"],
    );
    let late = export(vec![tool(
        21,
        20,
        (1, 2),
        "bash",
        r#"{"command":"ls"}"#,
        "a",
    )]);
    post(
        server.addr(),
        "/v1/traces",
        &[PROTOBUF],
        &late.encode_to_vec(),
    );
    server.stop();
    let server = ServerProcess::spawn(dir.path(), &["--store", "embedded"]);
    let markdown = tail(
        &server.url,
        "batched/01010101010101010101010101010101",
        "markdown",
    );
    assert!(markdown.contains("**Tool Call: bash**"), "{markdown}");
}

/// A waiting tree is checked when it arrives, as it would be placed alone: a token that may not
/// publish its session is refused at once, not dropped when the wait ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_spans_are_checked_when_they_arrive() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    let bearer = format!(
        "Bearer {}",
        support::auth::token(&["publish"], &["team-a/*"])
    );
    let orphan = |session: &str| {
        let call = tool(12, 10, (5, 6), "read_file", r#"{"path":"a.txt"}"#, "hello");
        crate::otlp::export(session, vec![call]).encode_to_vec()
    };
    let headers = [PROTOBUF, ("Authorization", bearer.as_str())];
    let (status, head, _) = post(server.addr(), "/v1/traces", &headers, &orphan("team-b/run"));
    assert_eq!(status, 403, "{head}");
    let (status, head, _) = post(server.addr(), "/v1/traces", &headers, &orphan("team-a/run"));
    assert_eq!(status, 200, "{head}");
}
