//! Real emitters, offline, each exporting to a real server with only the OpenTelemetry
//! environment variables: a Pydantic AI agent (instrumentation on, OTLP/HTTP protobuf), an
//! OpenAI Agents run traced by OpenInference (OTLP/gRPC), an AI SDK 7 `generateText` with
//! telemetry on (OTLP/HTTP protobuf and JSON, and with a token) — each calling two tools; `tail`
//! shows both cards with the spans' arguments and results, and the conversation's text; the
//! official ACP and AG-UI clients accept the sessions — and Claude Code itself (its log events,
//! over each OTLP protocol, against a scripted Messages API): its prompt and its `Bash` call. Needs `tests/.venv` and `tests/js`
//! (`scripts/test.sh` installs both).

use std::process::Command;

use serde_json::{Value, json};
use support::node::NodeClient;
use support::process::ServerProcess;
use support::sessions::*;
use toolview::grpc::pb;

use crate::acp_agent::{check_notifications, client_command};
use crate::agui::agui_client;
use support::cli::tail;

fn python() -> std::path::PathBuf {
    let python = support::repo_dir().join("tests/.venv/bin/python");
    assert!(
        python.exists(),
        "tests/.venv is missing: run scripts/test.sh"
    );
    python
}

/// Runs an emitter to its end with the OpenTelemetry environment pointing at `url`; what it
/// printed.
fn emit(mut cmd: Command, url: &str, env: &[(&str, &str)]) -> String {
    cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        .env("OTEL_SERVICE_NAME", "emitter")
        .env("OPENAI_API_KEY", "offline")
        .envs(env.iter().copied());
    let out = cmd.output().expect("the emitter runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The server's sessions, with a bearer token or none.
async fn sessions(url: &str, bearer: Option<&str>) -> Vec<String> {
    let mut c = client(url).await;
    let request = pb::ListSessionsRequest {
        page_size: 100,
        page_token: String::new(),
        ..pb::ListSessionsRequest::default()
    };
    let page = match bearer {
        Some(t) => c.list_sessions(support::auth::with_token(request, t)).await,
        None => c.list_sessions(request).await,
    };
    let page = page.unwrap().into_inner();
    page.sessions.into_iter().map(|s| s.session_id).collect()
}

/// The session's Markdown shows both calls with their arguments and results, and the words.
fn check_markdown(url: &str, session: &str, answer: &str) -> String {
    let markdown = tail(url, session, "markdown");
    for shown in [
        "List and read.",
        "**Tool Call: bash**",
        "**Tool Call: read\\_file**",
        "\"command\"",
        "\"path\"",
        "a.txt\nb.txt",
        "hello",
        answer,
    ] {
        assert!(
            markdown.contains(shown),
            "{shown:?} in {session}:\n{markdown}"
        );
    }
    markdown
}

/// The official ACP client (over `toolview acp`) and AG-UI `HttpAgent` accept the session.
async fn official_clients_accept(url: &str, session: &str) {
    let want = tail(url, session, "acp").lines().count();
    let client = NodeClient::spawn(client_command(url, session, "load", false, want));
    let report = tokio::task::spawn_blocking(move || client.finish())
        .await
        .unwrap();
    let got = report["notifications"].as_array().unwrap();
    assert!(got.len() >= want, "{report}");
    check_notifications(got);
    let options = json!({"follow": false});
    let endpoint = format!("{url}/ag-ui");
    let session = session.to_owned();
    let report: Value = tokio::task::spawn_blocking(move || {
        let args = [
            "http",
            endpoint.as_str(),
            session.as_str(),
            &options.to_string(),
        ];
        NodeClient::spawn(agui_client(&args)).finish()
    })
    .await
    .unwrap();
    let tools: Vec<&Value> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["toolCalls"].as_array().into_iter().flatten())
        .collect();
    assert_eq!(tools.len(), 2, "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pydantic_ai_with_instrumentation_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut cmd = Command::new(python());
    cmd.arg(support::repo_dir().join("tests/otel/pydantic_ai_emitter.py"));
    emit(cmd, &server.url, &[]);
    // Pydantic AI names the conversation: that is the session.
    let ids = sessions(&server.url, None).await;
    assert_eq!(ids.len(), 1, "{ids:?}");
    // TestModel answers with what the tools returned, as JSON.
    check_markdown(&server.url, &ids[0], "read\\_file");
    official_clients_accept(&server.url, &ids[0]).await;
}

/// The session's cards as VIEW gives them; a lookup of the last state of a tool's card.
fn last_cards(url: &str, session: &str) -> impl Fn(&str) -> Option<Value> {
    let cards: Vec<Value> = tail(url, session, "view")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["view"]["card"].clone())
        .filter(Value::is_object)
        .collect();
    move |tool| cards.iter().rev().find(|c| c["toolName"] == tool).cloned()
}

/// A Pydantic AI tool that runs another agent: two runs, two conversation ids, one session —
/// the expert's call under the lead's `ask_expert` call, one turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pydantic_ai_with_an_agent_in_a_tool() {
    pydantic_ai_subagent(false).await;
}

/// The same with the SDK's batching at work: the expert's spans are exported before the call
/// that ran them, the lead's first model call before its run — and placed as if exported at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pydantic_ai_with_an_agent_in_a_tool_in_several_exports() {
    pydantic_ai_subagent(true).await;
}

async fn pydantic_ai_subagent(batched: bool) {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut cmd = Command::new(python());
    cmd.arg(support::repo_dir().join("tests/otel/pydantic_ai_subagent.py"));
    if batched {
        cmd.arg("batched");
    }
    let printed = emit(cmd, &server.url, &[]);
    let exports: usize = printed
        .trim()
        .strip_prefix("exports: ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the emitter's count: {printed:?}"));
    assert!(!batched || exports >= 2, "{exports} exports");
    let ids = sessions(&server.url, None).await;
    assert_eq!(
        ids.len(),
        1,
        "the expert's run is no session of its own: {ids:?}"
    );
    let last = last_cards(&server.url, &ids[0]);
    let ask = last("ask_expert").expect("the lead's call");
    let read = last("read_file").expect("the expert's call");
    assert_eq!(read["parentCallId"], ask["callId"], "{read}");
    let markdown = tail(&server.url, &ids[0], "markdown");
    assert_eq!(
        markdown.matches("*turn ").count(),
        2,
        "one turn, started and ended:\n{markdown}"
    );
    let turn = markdown.find("*turn ").unwrap_or(usize::MAX);
    let prompt = markdown.find("Ask the expert.").expect("the prompt");
    assert!(turn < prompt, "the turn starts first:\n{markdown}");
}

/// A LangGraph ReAct agent traced by `instrumentation` (`openinference`, `openllmetry`) over
/// `protocol` (`http`, `grpc`): one session, one turn for the run (the graph's `agent` node is an
/// agent span per step), each call's arguments and the tool's own text as its result — never the
/// framework's serialization of them.
async fn langgraph(instrumentation: &str, protocol: &str, arguments: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut cmd = Command::new(python());
    cmd.arg(support::repo_dir().join("tests/otel/langgraph_emitter.py"))
        .args([instrumentation, protocol]);
    // Either exporter takes the same URL: the API port serves OTLP/HTTP and OTLP/gRPC.
    emit(cmd, &server.url, &[("OTEL_EXPORTER_OTLP_INSECURE", "true")]);
    let ids = sessions(&server.url, None).await;
    assert_eq!(ids.len(), 1, "{ids:?}");
    let markdown = tail(&server.url, &ids[0], "markdown");
    let mut shown = vec![
        "**Tool Call: bash**",
        "**Tool Call: read\\_file**",
        "a.txt\nb.txt",
        "hello",
        "a.txt says hello",
    ];
    shown.extend_from_slice(arguments);
    for text in shown {
        assert!(markdown.contains(text), "{text:?} in:\n{markdown}");
    }
    for serialized in ["\"lc\"", "\"type\": \"tool\"", "input\\_str", "ToolMessage"] {
        assert!(
            !markdown.contains(serialized),
            "{serialized} in:\n{markdown}"
        );
    }
    assert_eq!(
        markdown.matches("*turn ").count(),
        2,
        "one turn, started and ended:\n{markdown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn langgraph_with_openinference_over_http_and_grpc() {
    // OpenInference writes a one-argument tool's input as its bare value.
    langgraph("openinference", "http", &["ls", "a.txt"]).await;
    langgraph("openinference", "grpc", &["ls", "a.txt"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn langgraph_with_openllmetry() {
    langgraph("openllmetry", "http", &["\"command\"", "\"path\""]).await;
}

/// smolagents with a managed agent, traced by OpenInference: the managed agent is a card of its
/// own, its call and its (long) task prompt nested under it; arguments without smolagents'
/// envelope; each `final_answer` the assistant's words, not a card; one turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smolagents_with_a_managed_agent() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut cmd = Command::new(python());
    cmd.arg(support::repo_dir().join("tests/otel/smolagents_emitter.py"));
    emit(cmd, &server.url, &[]);
    let ids = sessions(&server.url, None).await;
    assert_eq!(ids.len(), 1, "{ids:?}");
    let last = last_cards(&server.url, &ids[0]);
    let helper = last("weather_helper").expect("the managed agent's card");
    let weather = last("get_weather").expect("its call");
    assert_eq!(weather["parentCallId"], helper["callId"], "{weather}");
    assert!(last("final_answer").is_none(), "no final_answer card");
    let markdown = tail(&server.url, &ids[0], "markdown");
    for shown in [
        "\"city\": \"Lisbon\"",
        "sunny in Lisbon",
        "It is sunny in Lisbon.",
        "Lisbon is sunny.",
    ] {
        assert!(markdown.contains(shown), "{shown:?} in:\n{markdown}");
    }
    assert!(!markdown.contains("sanitize"), "{markdown}");
    assert!(
        markdown.contains("**Assistant:**\n\nIt is sunny in Lisbon."),
        "{markdown}"
    );
    // The managed agent's task prompt is quoted under its card, not a top-level prompt.
    let top_level_prompts = markdown.matches("\n**User:**").count();
    assert_eq!(top_level_prompts, 1, "{markdown}");
    assert_eq!(
        markdown.matches("*turn ").count(),
        2,
        "one turn:\n{markdown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_agents_with_openinference() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut cmd = Command::new(python());
    cmd.arg(support::repo_dir().join("tests/otel/openai_agents_emitter.py"));
    emit(cmd, &server.url, &[]);
    // No conversation id: the session is the service's trace.
    let ids = sessions(&server.url, None).await;
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert!(ids[0].starts_with("emitter/"), "{ids:?}");
    check_markdown(&server.url, &ids[0], "Done: two files.");
    official_clients_accept(&server.url, &ids[0]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_sdk_with_telemetry_on_over_protobuf_json_and_grpc() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    let mut seen = Vec::new();
    for protocol in ["http/protobuf", "http/json", "grpc"] {
        emit(
            support::node::script("otel_ai_sdk"),
            &server.url,
            &[("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)],
        );
        let ids = sessions(&server.url, None).await;
        let new: Vec<String> = ids.into_iter().filter(|s| !seen.contains(s)).collect();
        assert_eq!(new.len(), 1, "{protocol}: {new:?}");
        check_markdown(&server.url, &new[0], "Done: two files.");
        seen.extend(new);
    }
    official_clients_accept(&server.url, &seen[0]).await;
}

/// The AI SDK 6's own spans (no `@ai-sdk/otel`): the cards, and the conversation they carry —
/// the prompt (`ai.prompt.messages`), the answer (`ai.response.text`), one turn with its usage.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_sdk_6_with_its_own_telemetry() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    emit(support::node::script("otel_ai_sdk6"), &server.url, &[]);
    let ids = sessions(&server.url, None).await;
    assert_eq!(ids.len(), 1, "{ids:?}");
    let markdown = check_markdown(&server.url, &ids[0], "Done: two files.");
    assert!(
        markdown.contains("**User:**\n\nList and read."),
        "{markdown}"
    );
    assert!(
        markdown.contains("**Assistant:**\n\nDone: two files."),
        "{markdown}"
    );
    assert_eq!(
        markdown.matches("*turn ").count(),
        2,
        "one turn:\n{markdown}"
    );
    assert!(markdown.contains("tokens: 2 in, 2 out"), "{markdown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_sdk_with_a_token_and_a_session_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::auth::secret_server(dir.path(), &[]);
    // Sessions from traces are `<prefix>/<service>/<trace>`: a deep grant covers them.
    let token = support::auth::token(&["publish", "read"], &["team-a/**"]);
    let headers = format!("Authorization=Bearer {token}");
    emit(
        support::node::script("otel_ai_sdk"),
        &server.url,
        &[
            ("OTEL_EXPORTER_OTLP_HEADERS", &headers),
            ("OTEL_RESOURCE_ATTRIBUTES", "toolview.session.prefix=team-a"),
        ],
    );
    let ids = sessions(&server.url, Some(&token)).await;
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert!(ids[0].starts_with("team-a/"), "{ids:?}");
}

/// Claude Code's own binary (the one the Claude Agent SDK bundles), in `tests/.venv`.
fn claude_code() -> std::path::PathBuf {
    let lib = support::repo_dir().join("tests/.venv/lib");
    let found = std::fs::read_dir(&lib)
        .expect("tests/.venv is missing: run scripts/test.sh")
        .filter_map(Result::ok)
        .map(|d| {
            d.path()
                .join("site-packages/claude_agent_sdk/_bundled/claude")
        })
        .find(|p| p.exists());
    found.expect("claude-agent-sdk is not in tests/.venv: run scripts/test.sh")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_log_events_over_every_protocol() {
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--store", "memory"]);
    // The model: a scripted Messages API on loopback (a Bash call, then the answer).
    let mut api = Killed(
        Command::new(python())
            .arg(support::repo_dir().join("tests/otel/fake_anthropic.py"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut port = String::new();
    std::io::BufReader::new(api.0.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let api_url = format!("http://127.0.0.1:{}", port.trim());
    let mut seen = Vec::new();
    for protocol in ["http/protobuf", "http/json", "grpc"] {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(claude_code());
        cmd.args([
            "-p",
            &format!("Say hello ({protocol})"),
            "--allowedTools",
            "Bash",
        ])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("ANTHROPIC_BASE_URL", &api_url)
        .env("ANTHROPIC_API_KEY", "offline")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        emit(
            cmd,
            &server.url,
            &[
                ("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
                ("OTEL_LOGS_EXPORTER", "otlp"),
                ("OTEL_METRICS_EXPORTER", "none"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol),
                ("OTEL_LOG_TOOL_DETAILS", "1"),
                ("OTEL_LOG_USER_PROMPTS", "1"),
            ],
        );
        // Claude Code's session id names the session.
        let ids = sessions(&server.url, None).await;
        let new: Vec<String> = ids.into_iter().filter(|s| !seen.contains(s)).collect();
        assert_eq!(new.len(), 1, "{protocol}: {new:?}");
        let markdown = tail(&server.url, &new[0], "markdown");
        let prompt = format!("Say hello ({protocol})");
        for shown in [prompt.as_str(), "**Tool Call: echo hello**", "$ echo hello"] {
            assert!(markdown.contains(shown), "{shown:?} in:\n{markdown}");
        }
        seen.extend(new);
    }
}

/// A child process killed when dropped (a failing test leaves none behind).
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
