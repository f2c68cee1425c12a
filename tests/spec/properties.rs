//! Property tests: presenters are total, and the view conversions are lossless.

use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;
use serde_json::{Map, Value};
use toolview::domain::*;
use toolview::grpc::pb;
use toolview::present::{
    StartedCall, TOOLS, ToolResult, parse_arguments, resolve_call, resolve_result,
};

// ---- arbitrary JSON aimed at the presenters ---------------------------------------------------

/// Field names the presenters and meta forms read, so random objects reach deep code paths.
const KEYS: &[&str] = &[
    "file_path",
    "offset",
    "limit",
    "content",
    "old_string",
    "new_string",
    "replace_all",
    "command",
    "description",
    "workdir",
    "run_in_background",
    "job_id",
    "todos",
    "pattern",
    "path",
    "include",
    "queries",
    "url",
    "edits",
    "-i",
    "-n",
    "-A",
    "-C",
    "output_mode",
    "head_limit",
    "glob",
    "type",
    "multiline",
    "query",
    "allowed_domains",
    "blocked_domains",
    "prompt",
    "plan",
    "notebook_path",
    "new_source",
    "diffs",
    "structuredPatch",
    "filePath",
    "before",
    "after",
    "newStart",
    "lines",
    "oldText",
    "newText",
    "number",
    "text",
    "totalLines",
    "lang",
    "shape",
    "files",
    "matches",
    "lineNumber",
    "line",
    "paths",
    "truncated",
    "total",
    "sources",
    "answer",
    "title",
    "snippet",
    "publishedAt",
    "statusCode",
    "exit_code",
    "signal",
    "status",
];

/// Strings that mean something to some presenter.
const TEXTS: &[&str] = &[
    "",
    "\n",
    "a.ts",
    "/abs/a.ts",
    "matches",
    "paths",
    "files_with_matches",
    "<path>/a</path>\n<type>file</type>\n<content>\nx\n</content>",
    "<path>/a</path>\n<type>file</type>\n<content>\n</content>",
    "     1→a\n     2\tb\n",
    "1→x\n1→y",
    "oops\n[exit code: 3]",
    "x\n[exit code: 99999999999]",
    "gone\n[killed by signal: SIGKILL]",
    "```js\n````\n",
    "é→\u{0}\r\n",
    "-old",
    "+new",
    " ctx",
    "\\ No newline at end of file",
];

fn arb_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3i64..5).prop_map(Value::from),
        Just(Value::from(u32::MAX)),
        Just(Value::from(u32::MAX as u64 + 1)),
        Just(Value::from(i64::MIN)),
        Just(Value::from(u64::MAX)),
        Just(Value::from(2.5)),
        Just(Value::from(-0.0)),
        any::<i64>().prop_map(Value::from),
    ]
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(TEXTS).prop_map(str::to_owned),
        ".{0,16}",
        // Line-structured text feeds the hunk computation.
        vec(
            prop_oneof![Just("a\n"), Just("b\n"), Just("c"), Just("\r\n")],
            0..12
        )
        .prop_map(|parts| parts.concat()),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        arb_number(),
        arb_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Value::Array),
            btree_map(proptest::sample::select(KEYS), inner, 0..6).prop_map(|m| {
                Value::Object(
                    m.into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

fn arb_block() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        4 => arb_text().prop_map(ContentBlock::text),
        1 => arb_text().prop_map(|text| ContentBlock::Reasoning { text }),
        1 => (".{0,8}", option::of(vec(any::<u8>(), 1..8)), option::of(".{1,8}"))
            .prop_filter("image needs data or uri", |(_, d, u)| d.is_some() || u.is_some())
            .prop_map(|(mime_type, data, uri)| ContentBlock::Image(ImageContent { mime_type, data, uri })),
        1 => (".{0,8}", ".{0,8}", option::of(".{1,8}"))
            .prop_map(|(uri, name, mime_type)| ContentBlock::ResourceLink(ResourceLink { uri, name, mime_type })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// No arguments, content or meta can make any presenter panic; every call gets a card.
    #[test]
    fn presenters_are_total(
        args in arb_json(),
        raw_args in arb_text(),
        content in vec(arb_block(), 0..3),
        is_error in any::<bool>(),
        meta in option::of(arb_json()),
    ) {
        let parsed = parse_arguments(&raw_args);
        for tool in TOOLS.iter().map(|&(name, _)| name).chain(["unknown", "mcp__srv__tool"]) {
            for args in [&args, &parsed] {
                let call = resolve_call(tool, args, None);
                let _ = call.to_json();
                let result = ToolResult { content: &content, is_error, meta: meta.as_ref() };
                let started = StartedCall { tool_name: tool, args, view: &call };
                let view = resolve_result(Some(started), result, None);
                let _ = view.to_json();
                // The orphan guard holds whatever the presenter did.
                if matches!(view, ToolResultView::Terminal(_)) {
                    prop_assert!(matches!(call, ToolCallView::Terminal(_)));
                }
                let orphan = resolve_result(None, result, None);
                prop_assert!(matches!(orphan, ToolResultView::Generic(_)));
            }
        }
    }
}

// ---- arbitrary views for round trips ----------------------------------------------------------

/// JSON whose numbers survive protobuf's doubles: integers within ±2^53, and binary fractions.
fn arb_wire_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53)..(1i64 << 53)).prop_map(Value::from),
        (-1000i32..1000).prop_map(|n| Value::from(n as f64 + 0.25)),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map(".{0,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_kind() -> impl Strategy<Value = Option<ToolKind>> {
    option::of(proptest::sample::select(ToolKind::ALL.to_vec()))
}

fn arb_line() -> impl Strategy<Value = u32> {
    prop_oneof![Just(1u32), Just(u32::MAX), 1u32..1000]
}

fn arb_location() -> impl Strategy<Value = FileLocation> {
    (".{0,8}", option::of(arb_line())).prop_map(|(path, line)| FileLocation { path, line })
}

fn arb_diff() -> impl Strategy<Value = FileDiff> {
    (".{0,8}", option::of(".{0,8}"), ".{0,8}").prop_map(|(path, old_text, new_text)| FileDiff {
        path,
        old_text,
        new_text,
        runs: Vec::new(),
    })
}

fn arb_call_view() -> impl Strategy<Value = ToolCallView> {
    prop_oneof![
        (
            ".{0,8}",
            arb_kind(),
            option::of(arb_wire_json()),
            vec(arb_block(), 0..3),
            vec(arb_location(), 0..3)
        )
            .prop_map(|(title, kind, raw_input, content, locations)| {
                ToolCallView::Generic(GenericCallView {
                    title,
                    kind,
                    raw_input,
                    content,
                    locations,
                })
            }),
        (".{0,8}", option::of(".{0,8}"), option::of(".{0,8}")).prop_map(
            |(title, description, cwd)| ToolCallView::Terminal(TerminalCallView {
                title,
                description,
                cwd
            })
        ),
        (".{0,8}", vec(arb_diff(), 0..3), vec(arb_location(), 0..3)).prop_map(
            |(title, diffs, locations)| ToolCallView::Diff(DiffCallView {
                title,
                diffs,
                locations
            })
        ),
    ]
}

fn arb_result_view() -> impl Strategy<Value = ToolResultView> {
    let title = || option::of(".{0,8}");
    let exit = option::of(prop_oneof![
        any::<i32>().prop_map(TerminalExit::Code),
        ".{0,8}".prop_map(TerminalExit::Signal),
    ]);
    let shape = prop_oneof![
        vec((".{0,6}", vec((arb_line(), ".{0,6}"), 0..3)), 0..3).prop_map(|files| {
            SearchShape::Matches {
                files: files
                    .into_iter()
                    .map(|(path, ms)| SearchFileMatches {
                        path,
                        matches: ms
                            .into_iter()
                            .map(|(line_number, line)| SearchMatch { line_number, line })
                            .collect(),
                    })
                    .collect(),
            }
        }),
        vec(".{0,6}", 0..3).prop_map(|paths| SearchShape::Paths { paths }),
    ];
    let source = (
        ".{0,6}",
        option::of(".{0,6}"),
        option::of(".{0,6}"),
        option::of(".{0,6}"),
    )
        .prop_map(|(url, title, snippet, published_at)| WebSource {
            url,
            title,
            snippet,
            published_at,
        });
    let web = prop_oneof![
        (vec(source, 0..3), option::of(".{0,6}"), any::<bool>()).prop_map(
            |(sources, answer, truncated)| WebKind::Search {
                sources,
                answer,
                truncated
            }
        ),
        (".{0,6}", any::<u32>(), any::<bool>()).prop_map(|(url, status_code, truncated)| {
            WebKind::Fetch {
                url,
                status_code,
                truncated,
            }
        }),
    ];
    prop_oneof![
        (title(), vec(arb_block(), 0..3)).prop_map(|(title, content)| ToolResultView::Generic(
            GenericResultView { title, content }
        )),
        (title(), option::of(".{0,8}"), exit).prop_map(|(title, output, exit)| {
            ToolResultView::Terminal(TerminalResultView {
                title,
                output,
                exit,
            })
        }),
        (title(), vec(arb_diff(), 0..3), vec(arb_location(), 0..3)).prop_map(
            |(title, diffs, locations)| ToolResultView::Diff(DiffResultView {
                title,
                diffs,
                locations
            })
        ),
        (title(), shape, any::<bool>(), any::<u64>()).prop_map(
            |(title, shape, truncated, total)| {
                ToolResultView::Search(SearchResultView {
                    title,
                    shape,
                    truncated,
                    total,
                })
            }
        ),
        (
            title(),
            ".{0,8}",
            arb_line(),
            vec((arb_line(), ".{0,6}"), 0..3),
            arb_line(),
            option::of(".{0,4}"),
            vec(arb_block(), 0..2)
        )
            .prop_map(|(title, path, offset, lines, total_lines, lang, content)| {
                ToolResultView::Read(ReadResultView {
                    title,
                    path,
                    offset,
                    lines: lines
                        .into_iter()
                        .map(|(number, text)| ReadLine { number, text })
                        .collect(),
                    total_lines,
                    lang,
                    content,
                })
            }),
        (title(), web).prop_map(|(title, kind)| ToolResultView::Web(WebResultView { title, kind })),
    ]
}

proptest! {
    #[test]
    fn call_view_round_trips(view in arb_call_view()) {
        let back = ToolCallView::try_from(pb::ToolCallView::from(view.clone())).unwrap();
        prop_assert_eq!(&back, &view);
        let json = serde_json::to_string(&view).unwrap();
        let back: ToolCallView = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, view);
    }

    #[test]
    fn result_view_round_trips(view in arb_result_view()) {
        let back = ToolResultView::try_from(pb::ToolResultView::from(view.clone())).unwrap();
        prop_assert_eq!(&back, &view);
        let json = serde_json::to_string(&view).unwrap();
        let back: ToolResultView = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, view);
    }
}

// ---- the fold and every renderer are total and deterministic ----------------------------------

mod events {
    use super::*;
    use toolview::render::{Capabilities, Target, render_all};

    const CALLS: &[&str] = &["c1", "c2", "c3"];

    fn arb_body() -> impl Strategy<Value = EventBody> {
        let call = || proptest::sample::select(CALLS).prop_map(|c| CallId::new(c).unwrap());
        let tool = proptest::sample::select(
            TOOLS
                .iter()
                .map(|&(name, _)| name)
                .chain(["custom", ""])
                .collect::<Vec<_>>(),
        );
        prop_oneof![
            1 => proptest::sample::select(vec!["", "/w", "/w/p", "rel", "/"])
                .prop_map(|cwd| EventBody::SessionStarted(SessionStarted { cwd: cwd.into() })),
            1 => arb_text().prop_map(|reason| EventBody::SessionEnded(SessionEnded { reason })),
            // A parent among the same ids: unknown, running, finished, itself or a cycle.
            3 => (call(), tool, prop_oneof![arb_json().prop_map(|v| v.to_string()), arb_text()], option::of(arb_call_view()), any::<bool>(), option::of(call()))
                .prop_map(|(call_id, tool, arguments_json, view, input_streaming, parent)| EventBody::CallStarted(CallStarted {
                    parent,
                    input_streaming,
                    call_id,
                    tool_name: tool.into(),
                    arguments_json,
                    view,
                })),
            // Streaming input: pieces of JSON or any text, and the complete arguments.
            2 => (call(), prop_oneof![arb_json().prop_map(|v| v.to_string()), arb_text()], 0..8usize)
                .prop_map(|(call_id, text, cut)| EventBody::CallInputDelta(CallInputDelta {
                    call_id,
                    text: text.chars().skip(cut).collect(),
                })),
            1 => (call(), prop_oneof![arb_json().prop_map(|v| v.to_string()), arb_text()], option::of(arb_call_view()))
                .prop_map(|(call_id, arguments_json, view)| EventBody::CallInputComplete(CallInputComplete {
                    call_id,
                    arguments_json,
                    view,
                })),
            3 => (call(), arb_text()).prop_map(|(call_id, data)| EventBody::CallOutput(CallOutput { call_id, data })),
            3 => (call(), vec(arb_block(), 0..3), any::<bool>(), option::of(arb_json()), option::of(arb_result_view()))
                .prop_map(|(call_id, content, is_error, meta, view)| EventBody::CallFinished(CallFinished {
                    call_id,
                    content,
                    is_error,
                    meta_json: meta.map(|m| m.to_string()).unwrap_or_default(),
                    view,
                })),
            // The conversation, in the same id space as the calls (ids are apart by kind).
            1 => call().prop_map(|c| EventBody::TurnStarted(TurnStarted { turn_id: TurnId::new(c.as_str()).unwrap() })),
            1 => (call(), any::<bool>(), any::<[u8; 2]>()).prop_map(|(c, cancelled, [a, b])| EventBody::TurnFinished(TurnFinished {
                turn_id: TurnId::new(c.as_str()).unwrap(),
                stop_reason: if cancelled { StopReason::Cancelled } else { StopReason::EndTurn },
                usage: (a > 100).then_some(TokenUsage { input_tokens: a.into(), context_window: b.into(), ..TokenUsage::default() }),
            })),
            2 => (call(), proptest::sample::select(vec![MessageRole::User, MessageRole::Assistant, MessageRole::Reasoning]), arb_text(), option::of(call()))
                .prop_map(|(c, role, text, parent)| EventBody::MessageStarted(MessageStarted { parent, message_id: MessageId::new(c.as_str()).unwrap(), role, text })),
            3 => (call(), arb_text()).prop_map(|(c, text)| EventBody::MessageDelta(MessageDelta { message_id: MessageId::new(c.as_str()).unwrap(), text })),
            1 => call().prop_map(|c| EventBody::MessageFinished(MessageFinished { message_id: MessageId::new(c.as_str()).unwrap() })),
        ]
    }

    fn arb_caps() -> impl Strategy<Value = Capabilities> {
        (
            any::<[bool; 8]>(),
            proptest::sample::select(vec![0u64, 1, 5, 64]),
        )
            .prop_map(|(b, max_output_bytes)| Capabilities {
                terminal: b[0],
                diff: b[1],
                read: b[2],
                search: b[3],
                web: b[4],
                max_output_bytes,
                tool_colors: b[5],
                output_appends: b[6],
                reasoning: b[7],
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// No event sequence panics the fold or any renderer, and rendering twice gives the
        /// same bytes; every event yields exactly one update.
        #[test]
        fn fold_and_render_are_total(bodies in vec(arb_body(), 0..12), caps in arb_caps(), cwd in proptest::sample::select(vec!["", "/w"])) {
            let events: Vec<ToolEvent> = bodies
                .into_iter()
                .enumerate()
                .map(|(i, body)| ToolEvent {
                    session_id: SessionId::new("s").unwrap(),
                    event_id: EventId::new(format!("e{i}")).unwrap(),
                    body,
                })
                .collect();
            for target in [Target::View, Target::Acp, Target::AgUi, Target::Markdown, Target::Ansi, Target::AiSdk] {
                let first = render_all(cwd, &events, target, &caps);
                prop_assert_eq!(first.len(), events.len());
                // Every ACP message anywhere in the suite must validate against the schema.
                for update in &first {
                    if let toolview::render::Body::Acp(messages) = &update.body {
                        for m in messages {
                            if let Err(e) = support::acp::validate(m) {
                                prop_assert!(false, "{}", e);
                            }
                        }
                    }
                }
                prop_assert_eq!(&first, &render_all(cwd, &events, target, &caps));
            }
        }
    }
}
