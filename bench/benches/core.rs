//! Benchmarks of the pure core: presenters by family, each render target, and the hunk
//! algorithm on a 10,000-line file. `cargo bench -p toolview-bench --bench core` prints the
//! figures.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolview::domain::{
    CallFinished, CallId, CallOutput, CallStarted, ContentBlock, EventBody, EventId, SessionId,
    SessionStarted, ToolEvent,
};
use toolview::present::{self, FinishedInput, hunks};
use toolview::render::{Capabilities, Target, render_all};

fn finished(content: &str, meta: Option<Value>) -> FinishedInput {
    FinishedInput {
        content: vec![ContentBlock::text(content)],
        is_error: false,
        meta,
        view: None,
    }
}

fn presenters(c: &mut Criterion) {
    let mut g = c.benchmark_group("present");
    let cases: Vec<(&str, &str, String, FinishedInput)> = vec![
        (
            "fs",
            "read",
            json!({"file_path": "src/a.ts", "offset": 2}).to_string(),
            finished(
                "<path>/w/src/a.ts</path>\n<type>file</type>\n<content>\n2: b\n</content>",
                Some(
                    json!({"path": "/w/src/a.ts", "offset": 2, "totalLines": 9, "lines": [{"number": 2, "text": "b"}]}),
                ),
            ),
        ),
        (
            "edit",
            "edit",
            json!({"file_path": "a.txt", "old_string": "two", "new_string": "TWO"}).to_string(),
            finished(
                "ok",
                Some(json!({"before": "one\ntwo\nthree\n", "after": "one\nTWO\nthree\n"})),
            ),
        ),
        (
            "bash",
            "bash",
            json!({"command": "make", "description": "Build"}).to_string(),
            finished("building\nfailed\n[exit code: 2]", None),
        ),
        (
            "search",
            "grep",
            json!({"pattern": "TODO"}).to_string(),
            finished(
                "Found 1",
                Some(
                    json!({"shape": "matches", "truncated": false, "total": 1, "files": [{"path": "a", "matches": [{"lineNumber": 1, "line": "TODO"}]}]}),
                ),
            ),
        ),
        (
            "web",
            "web_fetch",
            json!({"url": "https://a.test"}).to_string(),
            finished(
                "# A",
                Some(json!({"url": "https://a.test", "statusCode": 200, "truncated": false})),
            ),
        ),
        (
            "claude",
            "Read",
            json!({"file_path": "/w/a.rs"}).to_string(),
            finished("     1→fn main() {}\n     2→\n", None),
        ),
        (
            "fallback",
            "mcp__srv__tool",
            json!({"x": [1, 2, 3]}).to_string(),
            finished("done", None),
        ),
    ];
    for (family, tool, args, result) in &cases {
        g.bench_function(BenchmarkId::new(*family, tool), |b| {
            b.iter(|| {
                present::present(
                    black_box(tool),
                    black_box(args),
                    None,
                    Some(black_box(result)),
                )
            })
        });
    }
    g.finish();
}

fn event(n: usize, body: EventBody) -> ToolEvent {
    ToolEvent {
        session_id: SessionId::new("s").unwrap(),
        event_id: EventId::new(format!("e{n}")).unwrap(),
        body,
    }
}

/// A session of `calls` bash calls, each started, with one output chunk, and finished.
fn session(calls: usize) -> Vec<ToolEvent> {
    let mut events = vec![event(
        0,
        EventBody::SessionStarted(SessionStarted { cwd: "/w".into() }),
    )];
    for i in 0..calls {
        let call = CallId::new(format!("c{i}")).unwrap();
        events.push(event(
            events.len(),
            EventBody::CallStarted(CallStarted {
                parent: None,
                input_streaming: false,
                call_id: call.clone(),
                tool_name: "bash".into(),
                arguments_json: json!({"command": format!("make t{i}"), "description": "Build"})
                    .to_string(),
                view: None,
            }),
        ));
        events.push(event(
            events.len(),
            EventBody::CallOutput(CallOutput {
                call_id: call.clone(),
                data: "compiling\n".into(),
            }),
        ));
        events.push(event(
            events.len(),
            EventBody::CallFinished(CallFinished {
                call_id: call,
                content: vec![ContentBlock::text("compiling\ndone\n")],
                is_error: false,
                meta_json: String::new(),
                view: None,
            }),
        ));
    }
    events
}

fn targets(c: &mut Criterion) {
    let events = session(100);
    let mut g = c.benchmark_group("render");
    g.throughput(Throughput::Elements(events.len() as u64));
    for (name, target) in [
        ("view", Target::View),
        ("acp", Target::Acp),
        ("ag_ui", Target::AgUi),
        ("markdown", Target::Markdown),
        ("ansi", Target::Ansi),
    ] {
        for terminal in [false, true] {
            let caps = Capabilities::all(terminal);
            let id = BenchmarkId::new(name, if terminal { "terminal" } else { "plain" });
            g.bench_function(id, |b| {
                b.iter(|| render_all("", black_box(&events), target, &caps))
            });
        }
    }
    g.finish();
}

fn hunk_algorithm(c: &mut Criterion) {
    let before: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
    let mut g = c.benchmark_group("hunks_10k_lines");
    g.sample_size(20);
    for changed in [1usize, 1_000] {
        let step = 10_000 / changed;
        let after: String = (0..10_000)
            .map(|i| {
                if i % step == step / 2 {
                    format!("changed {i}\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect();
        g.bench_function(BenchmarkId::new("changed_lines", changed), |b| {
            b.iter(|| hunks("f.txt", black_box(&before), black_box(&after)))
        });
    }
    g.finish();
}

criterion_group!(benches, presenters, targets, hunk_algorithm);
criterion_main!(benches);
