//! `acp-bridge.json`: calls and results through the real fold and ACP renderer; every message
//! is validated against the ACP schema.

use serde_json::Value;
use support::{Tally, acp_matches, finished, load_cases, render_acp, started};

/// The keys that carry meaning in bridge comparisons with `subset: false`.
const MEANINGFUL: &[&str] = &[
    "title",
    "kind",
    "status",
    "rawInput",
    "content",
    "locations",
    "_meta",
];

fn run_case(case: &Value) -> Result<(), String> {
    let cwd = case["session_cwd"].as_str().unwrap_or("");
    let terminal = case["client_terminal_output"].as_bool().unwrap_or(false);
    let subset = case["subset"].as_bool().unwrap_or(false);
    let mut events = Vec::new();
    let call = &case["call"];
    let call_id = if call.is_null() {
        case["result"]["call_id"].as_str().unwrap().to_owned()
    } else {
        let id = call["call_id"].as_str().unwrap();
        events.push(started(
            1,
            id,
            call["tool"].as_str().unwrap_or(""),
            &call["args"],
            call.get("view"),
        ));
        id.to_owned()
    };
    let result = &case["result"];
    if !result.is_null() {
        let id = result["call_id"].as_str().unwrap_or(&call_id);
        events.push(finished(2, id, result));
    }
    let rendered = render_acp(cwd, &events, terminal)?;

    if let Some(want) = case.get("expect_tool_call") {
        let got = rendered
            .first()
            .and_then(|msgs| msgs.first())
            .cloned()
            .unwrap_or(Value::Null);
        if want.is_null() {
            if !got.is_null() {
                return Err(format!("expected no tool_call, got {got}"));
            }
        } else {
            acp_matches(&got, want, subset, Some(MEANINGFUL))
                .map_err(|e| format!("tool_call: {e}"))?;
        }
    }
    if let Some(want) = case.get("expect_tool_call_update") {
        let got = if result.is_null() {
            None
        } else {
            rendered.last().and_then(|m| m.first()).cloned()
        };
        match (got, want.is_null()) {
            (None, true) => {}
            (Some(got), true) => return Err(format!("expected no update, got {got}")),
            (None, false) => return Err("no update was emitted".into()),
            (Some(got), false) => {
                acp_matches(&got, want, subset, Some(MEANINGFUL))
                    .map_err(|e| format!("update: {e}"))?;
                for key in case["absent"].as_array().into_iter().flatten() {
                    let key = key.as_str().unwrap();
                    if got.get(key).is_some() {
                        return Err(format!("update has `{key}`, which must be absent: {got}"));
                    }
                }
            }
        }
    }
    Ok(())
}

#[test]
fn acp_bridge_vectors() {
    let mut tally = Tally::default();
    for case in load_cases("acp-bridge.json") {
        let name = case["name"].as_str().unwrap().to_owned();
        tally.check(&name, run_case(&case));
    }
    tally.finish("acp-bridge.json");
}
