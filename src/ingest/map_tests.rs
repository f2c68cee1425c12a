use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::ingest::Attributes;

const TRACE: &str = "0123456789abcdef0123456789abcdef";

fn span(id: u8, parent: Option<u8>, name: &str, at: (u64, u64), attrs: serde_json::Value) -> Span {
    let hex = |b: u8| format!("{b:016x}");
    Span {
        trace_id: TRACE.into(),
        span_id: hex(id),
        parent_span_id: parent.map(hex).unwrap_or_default(),
        parent_remote: false,
        name: name.into(),
        start_ns: at.0,
        end_ns: at.1,
        attributes: Attributes(
            attrs
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        resource: Arc::new(Attributes(vec![("service.name".into(), json!("svc"))])),
        error: None,
    }
}

fn tool(id: u8, parent: Option<u8>, at: (u64, u64), name: &str, args: &str) -> Span {
    span(
        id,
        parent,
        &format!("execute_tool {name}"),
        at,
        json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
               "gen_ai.tool.call.arguments": args, "gen_ai.tool.call.result": "\"ok\""}),
    )
}

fn kinds(m: &Mapped) -> Vec<String> {
    m.events
        .iter()
        .map(|e| {
            let kind = serde_json::to_value(&e.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned();
            format!("{kind} {}", e.event_id)
        })
        .collect()
}

#[test]
fn a_whole_agent_run_in_one_request_children_first() {
    // Exporters send spans as they end: the tools and the model calls before the agent.
    let spans = vec![
        tool(3, Some(2), (30, 40), "bash", r#"{"command":"ls"}"#),
        span(
            2,
            Some(1),
            "chat m",
            (10, 20),
            json!({"gen_ai.operation.name": "chat",
                   "gen_ai.input.messages": r#"[{"role":"user","parts":[{"type":"text","content":"hi"}]}]"#,
                   "gen_ai.output.messages": r#"[{"role":"assistant","parts":[{"type":"text","content":"yo"}]}]"#}),
        ),
        span(4, Some(1), "HTTP GET", (11, 12), json!({})),
        span(
            1,
            None,
            "invoke_agent a",
            (0, 50),
            json!({"gen_ai.operation.name": "invoke_agent",
                   "gen_ai.input.messages": r#"[{"role":"user","parts":[{"type":"text","content":"hi"}]}]"#}),
        ),
    ];
    let m = map_spans(&spans);
    assert_eq!(
        (m.calls, m.conversation, m.ignored, m.rejected),
        (1, 2, 1, 0)
    );
    let user = format!("otel:user:0:{:08x}", crc32fast::hash(b"hi"));
    assert_eq!(
        kinds(&m),
        vec![
            "turn_started otel:0000000000000001:turn".to_owned(),
            format!("message_started {user}"),
            format!("message_finished {user}:end"),
            "message_started otel:0000000000000002:out:0".into(),
            "message_finished otel:0000000000000002:out:0:end".into(),
            "call_started otel:0000000000000003:call".into(),
            "call_finished otel:0000000000000003:call:end".into(),
            "turn_finished otel:0000000000000001:turn:end".into(),
        ]
    );
    assert!(
        m.events
            .iter()
            .all(|e| e.session_id.as_str() == format!("svc/{TRACE}"))
    );
    let EventBody::CallFinished(f) = &m.events[6].body else {
        panic!()
    };
    assert_eq!(f.content, vec![ContentBlock::Text { text: "ok".into() }]);
}

#[test]
fn nested_tools_name_their_parent_call_at_any_depth() {
    let spans = vec![
        tool(3, Some(2), (2, 3), "read", "{}"),
        span(
            2,
            Some(1),
            "invoke_agent sub",
            (1, 4),
            json!({"gen_ai.operation.name": "invoke_agent"}),
        ),
        tool(1, None, (0, 5), "task", "{}"),
    ];
    let m = map_spans(&spans);
    let parent_of = |call: &str| {
        m.events.iter().find_map(|e| match &e.body {
            EventBody::CallStarted(s) if s.call_id.as_str() == call => Some(s.parent.clone()),
            _ => None,
        })
    };
    assert_eq!(parent_of("otel:0000000000000001"), Some(None));
    assert_eq!(
        parent_of("otel:0000000000000003")
            .flatten()
            .map(|c| c.to_string())
            .as_deref(),
        Some("otel:0000000000000001")
    );
    // The subagent runs under a tool: no turn of its own.
    assert!(!kinds(&m).iter().any(|k| k.starts_with("turn")));
}

#[test]
fn the_same_spans_make_the_same_events() {
    let spans = vec![
        tool(1, None, (0, 1), "bash", "{}"),
        tool(1, None, (0, 1), "bash", "{}"),
    ];
    let once = map_spans(&spans[..1]);
    let twice = map_spans(&spans);
    assert_eq!(
        once.events, twice.events,
        "a span sent twice in one request counts once"
    );
}

#[test]
fn bad_spans_are_counted_not_fatal() {
    let mut no_id = tool(1, None, (0, 1), "bash", "{}");
    no_id.span_id = "zz".into();
    let nameless = span(
        2,
        None,
        "execute_tool ",
        (0, 1),
        json!({"gen_ai.operation.name": "execute_tool"}),
    );
    let mut cycle_a = tool(3, Some(4), (0, 1), "a", "{}");
    let cycle_b = tool(4, Some(3), (0, 1), "b", "{}");
    cycle_a.error = Some("boom".into());
    cycle_a
        .attributes
        .0
        .retain(|(k, _)| k != "gen_ai.tool.call.result");
    let m = map_spans(&[no_id, nameless, cycle_a, cycle_b]);
    assert_eq!((m.calls, m.rejected), (2, 2));
    assert!(m.reason.unwrap().contains("span_id"));
    let failed = m.events.iter().find_map(|e| match &e.body {
        EventBody::CallFinished(f) if f.is_error => Some(f.content.clone()),
        _ => None,
    });
    assert_eq!(
        failed,
        Some(vec![ContentBlock::Text {
            text: "boom".into()
        }])
    );
}

#[test]
fn openinference_and_legacy_names() {
    let spans = vec![
        span(
            1,
            None,
            "bash",
            (0, 1),
            json!({"openinference.span.kind": "TOOL", "tool.name": "bash",
            "input.value": r#"{"command":"ls"}"#, "output.value": "a\nb"}),
        ),
        span(
            2,
            None,
            "ai.toolCall",
            (2, 3),
            json!({"ai.toolCall.name": "read",
            "ai.toolCall.args": {"path": "x"}, "ai.toolCall.result": "\"text\""}),
        ),
    ];
    let m = map_spans(&spans);
    assert_eq!(m.calls, 2);
    let started: Vec<(String, String)> = m
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::CallStarted(s) => Some((s.tool_name.clone(), s.arguments_json.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        vec![
            ("bash".into(), r#"{"command":"ls"}"#.into()),
            ("read".into(), r#"{"path":"x"}"#.into())
        ]
    );
}

/// A run started inside another's tool (Pydantic AI: `await expert.run(…)` in a tool; each run
/// names its own conversation) joins the outer run's session, its calls under that tool's call,
/// with no turn of its own; a span naming its session outright keeps it.
#[test]
fn a_run_inside_a_tool_joins_the_outer_runs_session() {
    let agent = |id, parent, conversation: &str| {
        span(
            id,
            parent,
            "invoke_agent",
            (0, 100),
            json!({"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": conversation}),
        )
    };
    let mut named = tool(6, Some(4), (60, 70), "grep", "{}");
    named
        .attributes
        .0
        .push(("toolview.session.id".into(), json!("elsewhere")));
    let spans = vec![
        tool(5, Some(4), (40, 50), "read", "{}"),
        named,
        agent(4, Some(3), "inner"),
        tool(3, Some(1), (20, 80), "ask_expert", "{}"),
        agent(1, None, "outer"),
    ];
    let m = map_spans(&spans);
    let sessions: std::collections::HashSet<&str> = m
        .events
        .iter()
        .filter(|e| !e.event_id.as_str().starts_with(&format!("otel:{:016x}", 6)))
        .map(|e| e.session_id.as_str())
        .collect();
    assert_eq!(sessions, ["outer"].into(), "{:?}", kinds(&m));
    let read = m
        .events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::CallStarted(c) if c.tool_name == "read" => Some(c),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        read.parent.as_ref().map(CallId::as_str),
        Some(format!("otel:{:016x}", 3).as_str())
    );
    let turns = m
        .events
        .iter()
        .filter(|e| matches!(e.body, EventBody::TurnStarted(_)))
        .count();
    assert_eq!(turns, 1, "the inner run is no turn of its own");
    let grep = m
        .events
        .iter()
        .find(|e| e.event_id.as_str().starts_with(&format!("otel:{:016x}", 6)))
        .unwrap();
    assert_eq!(grep.session_id.as_str(), "elsewhere");
}
