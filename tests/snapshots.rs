//! Snapshot tests (insta): every target × card kind × capabilities on/off, including live
//! output, a capped output, failed calls and orphans. Every ACP message is validated against
//! the ACP schema, and every scenario is rendered twice to check the bytes are identical.
//!
//! Review changes with `cargo insta review` (or `INSTA_UPDATE=always` and `git diff`).

use serde_json::{Value, json};
use support::{event, finished, started};
use toolview::domain::{
    CallId, CallOutput, EventBody, SessionEnded, SessionStarted, Subject, ToolEvent,
};
use toolview::render::{Body, Capabilities, Target, json_text, render_all};

const CWD: &str = "/work/proj";

fn session() -> ToolEvent {
    event(
        0,
        EventBody::SessionStarted(SessionStarted { cwd: CWD.into() }),
    )
}

fn chunk(n: usize, call: &str, data: &str) -> ToolEvent {
    event(
        n,
        EventBody::CallOutput(CallOutput {
            call_id: CallId::new(call).unwrap(),
            data: data.into(),
        }),
    )
}

fn text_result(text: &str, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

/// The scenarios: name, events, and the output cap.
fn scenarios() -> Vec<(&'static str, Vec<ToolEvent>, u64)> {
    let bash = |cmd: &str| json!({"command": cmd, "description": format!("Run {cmd}")});
    vec![
        (
            "generic",
            vec![
                session(),
                started(1, "c1", "job_list", &json!({}), None),
                finished(2, "c1", &text_result("bash-1 running\nbash-2 done", false)),
            ],
            0,
        ),
        (
            "terminal_live",
            vec![
                session(),
                started(
                    1,
                    "c1",
                    "bash",
                    &json!({"command": "cargo build", "description": "Build", "workdir": "crates/a"}),
                    None,
                ),
                chunk(2, "c1", "Compiling a\n"),
                chunk(3, "c1", "Compiling b\n"),
                finished(
                    4,
                    "c1",
                    &text_result("Compiling a\nCompiling b\nFinished\n", false),
                ),
            ],
            0,
        ),
        (
            "terminal_exit_code",
            vec![
                session(),
                started(1, "c1", "bash", &bash("make test"), None),
                finished(2, "c1", &text_result("1 failed\n[exit code: 2]", false)),
            ],
            0,
        ),
        (
            "terminal_signal",
            vec![
                session(),
                started(1, "c1", "bash", &bash("sleep 100"), None),
                finished(
                    2,
                    "c1",
                    &text_result("\n[killed by signal: SIGKILL]", false),
                ),
            ],
            0,
        ),
        (
            "failed_call",
            vec![
                session(),
                started(
                    1,
                    "e1",
                    "edit",
                    &json!({"file_path": "src/b.ts", "old_string": "OLD", "new_string": "NEW"}),
                    None,
                ),
                finished(2, "e1", &text_result("Error: old_string not found", true)),
            ],
            0,
        ),
        (
            "diff_edit",
            vec![
                session(),
                started(
                    1,
                    "e1",
                    "edit",
                    &json!({"file_path": "/work/proj/src/b.ts", "old_string": "two", "new_string": "TWO"}),
                    None,
                ),
                finished(
                    2,
                    "e1",
                    &json!({"content": [{"type": "text", "text": "ok"}], "isError": false,
                            "meta": {"before": "one\ntwo\nthree\n", "after": "one\nTWO\nthree\n"}}),
                ),
            ],
            0,
        ),
        (
            "diff_write_new",
            vec![
                session(),
                started(
                    1,
                    "w1",
                    "write",
                    &json!({"file_path": "notes.txt", "content": "hello\nworld"}),
                    None,
                ),
                finished(2, "w1", &text_result("Created file", false)),
            ],
            0,
        ),
        (
            "search_matches",
            vec![
                session(),
                started(
                    1,
                    "g1",
                    "grep",
                    &json!({"pattern": "todo", "path": "src"}),
                    None,
                ),
                finished(
                    2,
                    "g1",
                    &json!({"content": [{"type": "text", "text": "Found 2 of 3 matches"}], "isError": false,
                            "meta": {"shape": "matches", "truncated": true, "total": 3,
                                     "files": [{"path": "src/a.ts", "matches": [{"lineNumber": 3, "line": "// todo: x"}, {"lineNumber": 9, "line": "todo()"}]}]}}),
                ),
            ],
            0,
        ),
        (
            "search_paths",
            vec![
                session(),
                started(1, "g1", "glob", &json!({"pattern": "*.md"}), None),
                finished(
                    2,
                    "g1",
                    &json!({"content": [{"type": "text", "text": "README.md\nCHANGES.md"}], "isError": false,
                            "meta": {"shape": "paths", "truncated": false, "total": 2, "paths": ["README.md", "CHANGES.md"]}}),
                ),
            ],
            0,
        ),
        (
            "read",
            vec![
                session(),
                started(
                    1,
                    "r1",
                    "read",
                    &json!({"file_path": "src/a.ts", "offset": 2, "limit": 2}),
                    None,
                ),
                finished(
                    2,
                    "r1",
                    &json!({"content": [{"type": "text", "text": "<path>/work/proj/src/a.ts</path>\n<type>file</type>\n<content>\n2: const b = 2\n3: const c = 3\n</content>"}],
                            "isError": false,
                            "meta": {"path": "/work/proj/src/a.ts", "offset": 2, "totalLines": 10, "lang": "ts",
                                     "lines": [{"number": 2, "text": "const b = 2"}, {"number": 3, "text": "const c = 3"}]}}),
                ),
            ],
            0,
        ),
        (
            "web_search",
            vec![
                session(),
                started(
                    1,
                    "w1",
                    "web_search",
                    &json!({"queries": ["rust grpc", "tonic"]}),
                    None,
                ),
                finished(
                    2,
                    "w1",
                    &json!({"content": [{"type": "text", "text": "2 results"}], "isError": false,
                            "meta": {"answer": "Use tonic.", "truncated": false,
                                     "sources": [{"url": "https://a.test", "title": "A", "snippet": "gRPC for Rust"}, {"url": "https://b.test"}]}}),
                ),
            ],
            0,
        ),
        (
            "web_fetch",
            vec![
                session(),
                started(
                    1,
                    "w1",
                    "web_fetch",
                    &json!({"url": "https://a.test/x"}),
                    None,
                ),
                finished(
                    2,
                    "w1",
                    &json!({"content": [{"type": "text", "text": "# Title"}], "isError": false,
                            "meta": {"url": "https://a.test/y", "statusCode": 200, "truncated": true}}),
                ),
            ],
            0,
        ),
        (
            "orphan",
            vec![
                session(),
                chunk(1, "ghost", "stray output\n"),
                finished(2, "ghost", &text_result("result of an unknown call", false)),
            ],
            0,
        ),
        (
            "capped_output",
            vec![
                session(),
                started(1, "c1", "bash", &bash("yes | head -40"), None),
                chunk(2, "c1", "y\ny\ny\ny\n"),
                chunk(3, "c1", "y\ny\ny\ny\ny\ny\n"),
                chunk(4, "c1", "y\ny\n"),
                finished(5, "c1", &text_result(&"y\n".repeat(40), false)),
                started(6, "c2", "job_list", &json!({}), None),
                finished(
                    7,
                    "c2",
                    &text_result("0123456789abcdefghijklmnopqrstuvwxyz", false),
                ),
            ],
            16,
        ),
        (
            "todo_plan",
            vec![
                session(),
                started(
                    1,
                    "t1",
                    "todo_write",
                    &json!({"todos": [{"content": "Write tests", "status": "completed"}, {"content": "Ship", "status": "in_progress"}, {"content": "Party", "status": "later"}, {"status": "pending"}]}),
                    None,
                ),
                finished(2, "t1", &text_result("Todos updated", false)),
            ],
            0,
        ),
        (
            // The harness closes the session with a call still running; its reason is display
            // text (markup and an escape sequence in it stay text).
            "session_ended",
            vec![
                session(),
                started(1, "c1", "bash", &bash("sleep 60"), None),
                event(
                    2,
                    EventBody::SessionEnded(SessionEnded {
                        reason: "closed by <b>the user</b> \u{1b}[31m*now*".into(),
                    }),
                ),
            ],
            0,
        ),
        (
            "custom_views",
            vec![
                session(),
                started(
                    1,
                    "x1",
                    "deploy",
                    &json!({"env": "prod"}),
                    Some(
                        &json!({"card": "generic", "title": "Deploy /work/proj/app", "kind": "execute",
                                 "rawInput": {"env": "prod"}, "locations": [{"path": "/work/proj/app"}],
                                 "content": [{"type": "text", "text": "Deploying"}, {"type": "reasoning", "text": "hidden"},
                                             {"type": "image", "mimeType": "image/png", "data": "iVBORw0K"},
                                             {"type": "image", "mimeType": "image/png", "uri": "https://a.test/i.png"},
                                             {"type": "resource_link", "uri": "file:///work/proj/app/log", "name": "log"}]}),
                    ),
                ),
                finished(
                    2,
                    "x1",
                    &json!({"content": [{"type": "text", "text": "raw"}], "isError": false,
                            "view": {"card": "generic", "title": "Deployed /work/proj/app"}}),
                ),
            ],
            0,
        ),
    ]
}

/// Events from a JSON-lines file of the repository.
fn jsonl(path: &str) -> Vec<ToolEvent> {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let events = toolview::client::read_events(text.as_bytes(), None).unwrap();
    toolview::grpc::convert::events_from_pb(events).unwrap()
}

fn target_name(t: Target) -> &'static str {
    match t {
        Target::View => "view",
        Target::Acp => "acp",
        Target::AgUi => "ag_ui",
        Target::Markdown => "markdown",
        Target::Ansi => "ansi",
        Target::AiSdk => "ai_sdk",
    }
}

/// A readable form of one update body; ACP messages are schema-validated on the way.
fn show(body: &Body) -> String {
    let pretty =
        |j: &str| serde_json::to_string_pretty(&serde_json::from_str::<Value>(j).unwrap()).unwrap();
    match body {
        Body::View(v) => serde_json::to_string_pretty(v).unwrap(),
        Body::Acp(messages) => messages
            .iter()
            .map(|m| {
                support::acp::validate(m).unwrap_or_else(|e| panic!("{e}"));
                pretty(m)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        // What goes on the wire: each event's JSON text.
        Body::AgUi(events) => events
            .iter()
            .map(|e| pretty(&json_text(e)))
            .collect::<Vec<_>>()
            .join("\n"),
        Body::AiSdk(chunks) => chunks
            .iter()
            .map(|c| pretty(&json_text(c)))
            .collect::<Vec<_>>()
            .join("\n"),
        Body::Markdown(s) => s.clone(),
        // Escape bytes made visible.
        Body::Ansi(s) => s.replace('\x1b', "␛"),
    }
}

#[test]
fn every_target_card_and_capability() {
    let targets = [
        Target::View,
        Target::Acp,
        Target::AgUi,
        Target::Markdown,
        Target::Ansi,
        Target::AiSdk,
    ];
    let mut all = scenarios();
    // Two turns around two calls, with reasoning and usage.
    all.push(("conversation", jsonl("examples/conversation.jsonl"), 0));
    // An answer in Markdown (a fence split across deltas, a list, a link, an image, raw HTML, an
    // unsafe link) and a failed command whose output has a fence of its own.
    all.push((
        "markdown_answer",
        jsonl("tests/data/markdown_answer.jsonl"),
        0,
    ));
    // A permission request on a running call, rejected by a person; a question of its own that
    // nobody answered in time.
    all.push(("permission", jsonl("tests/data/permission.jsonl"), 0));
    // Calls whose input streams: a file written in pieces (its complete arguments extend what
    // streamed), a command, and a call that finished while its input was still streaming.
    all.push((
        "streamed_input",
        jsonl("tests/data/streamed_input.jsonl"),
        0,
    ));
    // A subagent: a parent call, three children (one fails, one has a child of its own that
    // outlives it), a message of the subagent's; the parent finishes before the grandchild.
    all.push(("subagent", jsonl("tests/data/subagent.jsonl"), 0));
    // A call whose result carries an MCP App (docs/mcp-app.md#pass-through).
    all.push(("mcp_app", jsonl("tests/data/mcp_app.jsonl"), 0));
    for (name, events, cap) in all {
        for target in targets {
            let mut out = String::new();
            // Appends change VIEW only (the other targets ignore the capability).
            let mut labels = vec![
                ("capabilities off", false, false),
                ("capabilities on", true, false),
            ];
            if target == Target::View {
                labels.push(("capabilities on, output appends", true, true));
            }
            for (label, on, output_appends) in labels {
                let caps = Capabilities {
                    terminal: on,
                    diff: on,
                    read: on,
                    search: on,
                    web: on,
                    max_output_bytes: cap,
                    tool_colors: false,
                    output_appends,
                    reasoning: on,
                };
                let first = render_all("", &events, target, &caps);
                let again = render_all("", &events, target, &caps);
                assert_eq!(
                    first, again,
                    "{name}/{target:?}: rendering must be deterministic"
                );
                out.push_str(&format!("## {label}\n"));
                for (event, update) in events.iter().zip(&first) {
                    let call = match &update.subject {
                        Some(Subject::Call(id)) => id.as_str(),
                        Some(Subject::Message(id)) => id.as_str(),
                        Some(Subject::Turn(id)) => id.as_str(),
                        Some(Subject::Permission(id)) => id.as_str(),
                        None => "session",
                    };
                    out.push_str(&format!(
                        "\n### {} ({call})\n{}\n",
                        event.event_id,
                        show(&update.body)
                    ));
                }
                out.push('\n');
            }
            insta::assert_snapshot!(format!("{name}__{}", target_name(target)), out);
        }
    }
}

/// A command that exited 2, its result not flagged an error by the harness: VIEW's status and
/// every drawing agree it failed (the red exit every person reads); ACP keeps the harness's word,
/// as its spec says (`completed`, the exit code in the content).
#[test]
fn a_command_that_exited_unclean_reads_failed_in_view_and_drawings() {
    let events = vec![
        session(),
        started(
            1,
            "c1",
            "bash",
            &json!({"command": "make", "description": "Build"}),
            None,
        ),
        finished(2, "c1", &text_result("oops\n[exit code: 2]", false)),
    ];
    let caps = Capabilities::default();
    let last = |target| show(&render_all("", &events, target, &caps)[2].body);
    let view: Value = serde_json::from_str(&last(Target::View)).unwrap();
    assert_eq!(view["status"], "failed", "{view}");
    assert!(last(Target::Markdown).contains("Status: Failed"));
    // ANSI draws the status mark red (escapes made visible by `show`).
    assert!(
        last(Target::Ansi).contains("␛[31m●"),
        "{}",
        last(Target::Ansi)
    );
    assert!(last(Target::Acp).contains(r#""status": "completed""#));
}

/// Tool output, titles, commands, paths and tool names full of terminal escapes: the ANSI target
/// lets none of them through (only its own SGR colours remain), on every card. A subscriber that
/// asks for `tool_colors` gets a terminal output's own SGR colours too, and nothing more.
#[test]
fn ansi_lets_no_escape_sequence_through() {
    use toolview::domain::{
        CallFinished, CallId, CallOutput, CallStarted, ContentBlock, EventBody, EventId, SessionId,
        ToolEvent,
    };
    let hostile = "x\u{1b}]52;c;aGVsbG8=\u{7}\u{1b}]0;pwned\u{7}\u{1b}]8;;http://evil\u{1b}\\\\link\
                   \u{1b}]8;;\u{1b}\\\\\u{1b}[2J\u{1b}[10;10H\u{9b}31m\u{7}\r\u{7f}\u{202e}y\u{1b}[35mpurple";
    let ev = |n: u32, body| ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        event_id: EventId::new(format!("e{n}")).unwrap(),
        body,
    };
    let start = |n: u32, call: &str, tool: &str, args: serde_json::Value| {
        ev(
            n,
            EventBody::CallStarted(CallStarted {
                parent: None,
                input_streaming: false,
                call_id: CallId::new(call).unwrap(),
                tool_name: tool.into(),
                arguments_json: args.to_string(),
                view: None,
            }),
        )
    };
    let finish = |n: u32, call: &str, text: &str, meta: serde_json::Value| {
        ev(
            n,
            EventBody::CallFinished(CallFinished {
                call_id: CallId::new(call).unwrap(),
                content: vec![ContentBlock::text(text)],
                is_error: false,
                meta_json: meta.to_string(),
                view: None,
            }),
        )
    };
    let events = vec![
        start(
            1,
            "t",
            "bash",
            serde_json::json!({"command": hostile, "description": hostile}),
        ),
        ev(
            2,
            EventBody::CallOutput(CallOutput {
                call_id: CallId::new("t").unwrap(),
                data: hostile.into(),
            }),
        ),
        finish(
            3,
            "t",
            &format!("{hostile}\n[exit code: 1]"),
            serde_json::Value::Null,
        ),
        start(
            4,
            "d",
            "write",
            serde_json::json!({"file_path": hostile, "content": hostile}),
        ),
        finish(
            5,
            "d",
            "ok",
            serde_json::json!({"before": hostile, "after": "new"}),
        ),
        start(6, "g", hostile, serde_json::json!({"q": hostile})),
        finish(7, "g", hostile, serde_json::Value::Null),
    ];
    for (terminal, tool_colors) in [(false, false), (true, false), (false, true), (true, true)] {
        let caps = Capabilities {
            tool_colors,
            ..Capabilities::all(terminal)
        };
        let mut kept = 0;
        for r in render_all("", &events, Target::Ansi, &caps) {
            let Body::Ansi(text) = r.body else {
                panic!("an ANSI body")
            };
            let mut rest = text.clone();
            if tool_colors {
                kept += rest.matches("\u{1b}[35m").count();
                rest = rest.replace("\u{1b}[35m", "");
            }
            for sgr in [
                "\u{1b}[0m",
                "\u{1b}[1m",
                "\u{1b}[2m",
                "\u{1b}[31m",
                "\u{1b}[32m",
                "\u{1b}[33m",
            ] {
                rest = rest.replace(sgr, "");
            }
            let bad: Vec<char> = rest
                .chars()
                .filter(|&c| {
                    (c.is_control() && c != '\n' && c != '\t')
                        || ('\u{202a}'..='\u{202e}').contains(&c)
                })
                .collect();
            assert!(bad.is_empty(), "{bad:?} reached the terminal in {text:?}");
            assert!(!text.contains("pwned\u{7}"));
        }
        // The live output and the result's output of the terminal card keep the tool's colour.
        assert_eq!(kept, if tool_colors { 2 } else { 0 }, "{caps:?}");
    }
}

/// Links, images and raw HTML in titles and tool output are text in the Markdown target: a chat
/// UI shows them and opens none; only http(s) sources toolview itself links stay links.
#[test]
fn markdown_opens_no_link_image_or_html_from_tool_text() {
    use toolview::domain::{
        CallFinished, CallId, CallStarted, ContentBlock, EventBody, EventId, ResourceLink,
        SessionId, ToolEvent,
    };
    let hostile = "[click](javascript:alert(1)) ![x](https://evil.test/pixel.png) \
                   <img src=x onerror=alert(1)> <script>alert(1)</script> &lt; # h";
    let ev = |n: u32, body| ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        event_id: EventId::new(format!("e{n}")).unwrap(),
        body,
    };
    let events = vec![
        ev(
            1,
            EventBody::CallStarted(CallStarted {
                parent: None,
                input_streaming: false,
                call_id: CallId::new("g").unwrap(),
                tool_name: hostile.into(),
                arguments_json: "{}".into(),
                view: None,
            }),
        ),
        ev(
            2,
            EventBody::CallFinished(CallFinished {
                call_id: CallId::new("g").unwrap(),
                content: vec![
                    ContentBlock::text(format!("{hostile}\n{hostile}")),
                    ContentBlock::ResourceLink(ResourceLink {
                        uri: "javascript:alert(1)".into(),
                        name: "click me".into(),
                        mime_type: None,
                    }),
                ],
                is_error: false,
                meta_json: String::new(),
                view: None,
            }),
        ),
    ];
    for r in render_all("", &events, Target::Markdown, &Capabilities::all(true)) {
        let Body::Markdown(text) = r.body else {
            panic!("a Markdown body")
        };
        // Each markup character from the tool text is backslash-escaped where it appears.
        for raw in [
            "[click]",
            "[x]",
            "<img",
            "<script",
            "</script",
            "](javascript",
            "&lt;",
        ] {
            let live = text
                .match_indices(raw)
                .any(|(i, _)| i == 0 || text.as_bytes()[i - 1] != b'\\');
            assert!(!live, "{raw:?} is live in {text}");
        }
        assert!(!text.contains("\n# h"), "{text}");
        assert!(text.contains("\\<img src=x onerror=alert(1)\\>"), "{text}");
    }
}
