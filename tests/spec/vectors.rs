//! The spec's producer and hunk vectors, run through the real presenter code.

use serde_json::{Value, json};
use support::{Tally, load_cases, same_json};
use toolview::domain::{ContentBlock, GenericResultView, ToolCallView, ToolResultView};
use toolview::present::{
    self, StartedCall, Tool, ToolResult, hunks, meta_diffs, parse_arguments, resolve_call,
    resolve_result,
};

/// `args` is parsed JSON, or a string standing for the raw argument text.
fn args_of(case: &Value) -> Value {
    match &case["args"] {
        Value::String(text) => parse_arguments(text),
        v => v.clone(),
    }
}

fn fallback(tool: &str, args: &Value) -> Value {
    json!({"card": "generic", "title": tool, "kind": "other", "rawInput": args})
}

fn content_of(result: &Value) -> Vec<ContentBlock> {
    serde_json::from_value(result["content"].clone()).expect("vector content is view JSON")
}

fn run_call_case(case: &Value) -> Result<(), String> {
    let tool = case["tool"].as_str().unwrap();
    let args = args_of(case);
    let got = resolve_call(tool, &args, None).to_json();
    let want = match &case["expect_call"] {
        Value::Null => fallback(tool, &args),
        v => v.clone(),
    };
    same_json(&got, &want)
}

fn run_result_case(case: &Value) -> Result<(), String> {
    let tool = case["tool"].as_str().unwrap();
    let args = args_of(case);
    let r = &case["result"];
    let content = content_of(r);
    let meta = r.get("meta").filter(|m| !m.is_null());
    let result = ToolResult {
        content: &content,
        is_error: r["isError"].as_bool().unwrap_or(false),
        meta,
    };
    let call = resolve_call(tool, &args, None);

    // The presenter itself: `null` means it declines.
    let presented = Tool::lookup(tool)
        .and_then(|t| t.result(&args, &result).ok())
        .map(|v| v.to_json());
    let want = case["expect_result"].clone();
    same_json(&presented.unwrap_or(Value::Null), &want)?;

    // And the whole resolution (step 4), which is what subscribers get.
    let started = StartedCall {
        tool_name: tool,
        args: &args,
        view: &call,
    };
    let resolved = resolve_result(Some(started), result, None).to_json();
    let want_resolved = match (&want, &call) {
        (Value::Null, ToolCallView::Diff(d)) if !result.is_error => {
            json!({"card": "diff", "diffs": serde_json::to_value(&d.diffs).unwrap()})
        }
        (Value::Null, _) => ToolResultView::Generic(GenericResultView {
            title: None,
            content: content.clone(),
        })
        .to_json(),
        (v, _) => v.clone(),
    };
    same_json(&resolved, &want_resolved).map_err(|e| format!("resolved: {e}"))
}

/// An ACP-level producer case: the presenters through the fold and the ACP renderer.
fn run_acp_case(case: &Value) -> Result<(), String> {
    let id = case["tool_use_id"].as_str().unwrap_or("call");
    let tool = case["tool"].as_str().unwrap();
    let mut events = vec![support::started(1, id, tool, &case["args"], None)];
    if let Some(result) = case.get("result") {
        events.push(support::finished(2, id, result));
    }
    let cwd = case["cwd"].as_str().unwrap_or("");
    let terminal = case["client_terminal_output"].as_bool().unwrap_or(false);
    let rendered = support::render_acp(cwd, &events, terminal)?;
    let subset = case["subset"].as_bool().unwrap_or(false);
    if let Some(want) = case.get("expect_acp_tool_call") {
        let got = rendered[0].first().cloned().unwrap_or(Value::Null);
        support::acp_matches(&got, want, subset, None).map_err(|e| format!("tool_call: {e}"))?;
    }
    if let Some(want) = case.get("expect_acp_update") {
        let got = rendered
            .get(1)
            .and_then(|m| m.first())
            .cloned()
            .ok_or("no update was emitted")?;
        support::acp_matches(&got, want, subset, None).map_err(|e| format!("update: {e}"))?;
        for key in case["absent"].as_array().into_iter().flatten() {
            let key = key.as_str().unwrap();
            if got.get(key).is_some() {
                return Err(format!("update has `{key}`, which must be absent: {got}"));
            }
        }
    }
    Ok(())
}

fn run_producer_file(file: &str) {
    let mut tally = Tally::default();
    for case in load_cases(file) {
        let name = case["name"].as_str().unwrap().to_owned();
        if case.get("expect_acp_tool_call").is_some() || case.get("expect_acp_update").is_some() {
            tally.check(&name, run_acp_case(&case));
        } else if case.get("expect_call").is_some() {
            tally.check(&name, run_call_case(&case));
        } else if case.get("expect_result").is_some() {
            tally.check(&name, run_result_case(&case));
        } else {
            tally.failed.push(format!("{name}: unknown case shape"));
        }
    }
    tally.finish(file);
}

#[test]
fn dsh_producers() {
    run_producer_file("dsh-producers.json");
}

#[test]
fn claude_producers() {
    run_producer_file("claude-producers.json");
}

/// ACP form of meta diffs: `{content: [diff items], locations}`, or `{}` for "no diffs".
fn acp_form(m: Option<present::MetaDiffs>) -> Value {
    let Some(m) = m else { return json!({}) };
    let content: Vec<Value> = m
        .diffs
        .iter()
        .map(|d| json!({"type": "diff", "path": d.path, "oldText": d.old_text, "newText": d.new_text}))
        .collect();
    json!({"content": content, "locations": serde_json::to_value(&m.locations).unwrap()})
}

#[test]
fn hunk_vectors() {
    let mut tally = Tally::default();
    for case in load_cases("hunks.json") {
        let name = case["name"].as_str().unwrap().to_owned();
        let outcome = if let Some(patch) = case.get("structured_patch") {
            // The Claude Code structuredPatch meta form, through the same meta narrowing the
            // Edit/Write presenters use.
            same_json(&acp_form(meta_diffs(Some(patch), None)), &case["expect"])
        } else {
            let got: Vec<Value> = hunks(
                case["path"].as_str().unwrap(),
                case["before"].as_str().unwrap(),
                case["after"].as_str().unwrap(),
            )
            .into_iter()
            .map(|h| serde_json::to_value(h.diff).unwrap())
            .collect();
            same_json(&Value::Array(got), &case["expect"])
        };
        tally.check(&name, outcome);
    }
    tally.finish("hunks.json");
}

#[test]
fn vectors_match_shared_spec() {
    let Some(shared) = support::shared_spec_dir() else {
        println!("../shared/spec/vectors not found; vendored copies are used as they are");
        return;
    };
    for entry in std::fs::read_dir(&shared).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().unwrap();
            let vendored = std::fs::read(support::vectors_dir().join(name))
                .unwrap_or_else(|_| panic!("{name:?} is not vendored in tests/data/vectors"));
            assert_eq!(
                vendored,
                std::fs::read(&path).unwrap(),
                "{name:?} differs from the spec's copy"
            );
        }
    }
}

/// The spec's text, vendored in `docs/spec/` (code comments cite it there), is the spec's.
#[test]
fn spec_documents_match_shared_spec() {
    let Some(vectors) = support::shared_spec_dir() else {
        println!("../shared/spec not found; the vendored docs/spec is used as it is");
        return;
    };
    let shared = vectors
        .parent()
        .expect("vectors/ sits in the spec's folder");
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/spec");
    for name in [
        "README.md",
        "producers.md",
        "rendering.md",
        "service.md",
        "union.md",
    ] {
        assert_eq!(
            std::fs::read(docs.join(name)).unwrap(),
            std::fs::read(shared.join(name)).unwrap(),
            "docs/spec/{name} differs from the spec's copy"
        );
    }
}
