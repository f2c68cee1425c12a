//! What toolview's integration tests share. A library of its own (not a `mod` in each test
//! crate) so that what one test crate leaves unused is not dead code.

use std::path::PathBuf;

use serde_json::Value;

/// The toolview checkout (this crate lives in its `tests/support`).
pub fn repo_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The `toolview` binary cargo built for the test being run: beside the test executable's
/// `deps/` directory (`CARGO_BIN_EXE_*` is only set for the package's own test crates).
pub fn toolview_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test executable lives in target/<profile>/deps");
    let bin = profile.join(format!("toolview{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.is_file(), "{} is not built", bin.display());
    bin
}

/// The vendored copy of `shared/spec/vectors` (kept identical by `vectors_match_shared_spec`).
pub fn vectors_dir() -> PathBuf {
    repo_dir().join("tests/data/vectors")
}

/// The spec folder beside the checkout, when there is one (CI and developer machines).
pub fn shared_spec_dir() -> Option<PathBuf> {
    let dir = repo_dir().join("../shared/spec/vectors");
    dir.is_dir().then_some(dir)
}

/// Loads one vector file as a list of cases.
pub fn load_cases(file: &str) -> Vec<Value> {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(cases)) => cases,
        other => panic!("{}: expected a JSON array, got {other:?}", path.display()),
    }
}

/// Tallies case outcomes and prints the plain summary line.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub failed: Vec<String>,
}

impl Tally {
    pub fn check(&mut self, name: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.passed += 1,
            Err(why) => self.failed.push(format!("{name}: {why}")),
        }
    }

    /// Prints the counts and fails the test if any case failed.
    pub fn finish(self, label: &str) {
        println!(
            "{label}: {} passed, {} failed",
            self.passed,
            self.failed.len()
        );
        assert!(
            self.failed.is_empty(),
            "{label} failures:\n{}",
            self.failed.join("\n")
        );
    }
}

/// Compares two JSON values, describing the first difference.
pub fn same_json(got: &Value, want: &Value) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("\n  got:  {got}\n  want: {want}"))
    }
}

pub mod acp;
pub mod auth;
pub mod cli;
pub mod http;
pub mod nats;
pub mod node;
pub mod permissions;
pub mod pki;
pub mod process;
pub mod server;
pub mod sessions;
pub mod webhooks;

/// ACP equality rules of the vectors: `kind: "other"` equals no kind, a `null` `oldText` in a
/// diff item equals none, and an absent key equals an empty array.
pub fn acp_normalize(v: &Value) -> Value {
    fn walk(v: &Value, top: bool) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(k, v)| {
                        let default_kind =
                            top && k.as_str() == "kind" && v.as_str() == Some("other");
                        let null_old_text = k.as_str() == "oldText" && v.is_null();
                        let empty_array = v.as_array().is_some_and(|a| a.is_empty());
                        !(default_kind || null_old_text || empty_array)
                    })
                    .map(|(k, v)| (k.clone(), walk(v, false)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(|v| walk(v, false)).collect()),
            v => v.clone(),
        }
    }
    walk(v, true)
}

/// `got` has every key of `want` with an equal value (objects recursively, arrays element-wise
/// and of equal length).
pub fn is_subset(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => w
            .iter()
            .all(|(k, wv)| g.get(k).is_some_and(|gv| is_subset(gv, wv))),
        (Value::Array(g), Value::Array(w)) => {
            g.len() == w.len() && g.iter().zip(w).all(|(g, w)| is_subset(g, w))
        }
        (g, w) => g == w,
    }
}

/// Compares an ACP update with an expectation: `subset: true` → every expected key matches;
/// otherwise the keys in `exact_keys` (or, when `None`, the expectation's own keys) must be equal
/// on both sides and the other expected keys must match.
pub fn acp_matches(
    got: &Value,
    want: &Value,
    subset: bool,
    exact_keys: Option<&[&str]>,
) -> Result<(), String> {
    let (g, w) = (acp_normalize(got), acp_normalize(want));
    let fail = || Err(format!("\n  got:  {got}\n  want: {want}"));
    if !is_subset(&g, &w) {
        return fail();
    }
    if !subset {
        let listed: Vec<&str> = match exact_keys {
            Some(keys) => keys.to_vec(),
            None => want
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect(),
        };
        for k in listed {
            if g.get(k) != w.get(k) {
                return fail();
            }
        }
    }
    Ok(())
}

use toolview::domain::{
    CallFinished, CallId, CallStarted, ContentBlock, EventBody, EventId, SessionId, ToolEvent,
};
use toolview::render::{Body, Capabilities, Target, render_all};

/// The raw argument text of a vector's `args`: a string stands for the text itself.
pub fn args_text(args: &Value) -> String {
    match args {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// An event of session `s1`.
pub fn event(n: usize, body: EventBody) -> ToolEvent {
    ToolEvent {
        session_id: SessionId::new("s1").unwrap(),
        event_id: EventId::new(format!("e{n}")).unwrap(),
        body,
    }
}

pub fn started(
    n: usize,
    call_id: &str,
    tool: &str,
    args: &Value,
    view: Option<&Value>,
) -> ToolEvent {
    event(
        n,
        EventBody::CallStarted(CallStarted {
            parent: None,
            input_streaming: false,
            call_id: CallId::new(call_id).unwrap(),
            tool_name: tool.to_owned(),
            arguments_json: args_text(args),
            view: view
                .filter(|v| !v.is_null())
                .map(|v| serde_json::from_value(v.clone()).expect("view JSON")),
        }),
    )
}

/// A finished event from a vector's `result` object.
pub fn finished(n: usize, call_id: &str, result: &Value) -> ToolEvent {
    let content: Vec<ContentBlock> =
        serde_json::from_value(result["content"].clone()).expect("content JSON");
    event(
        n,
        EventBody::CallFinished(CallFinished {
            call_id: CallId::new(call_id).unwrap(),
            content,
            is_error: result["isError"].as_bool().unwrap_or(false),
            meta_json: result
                .get("meta")
                .filter(|m| !m.is_null())
                .map(Value::to_string)
                .unwrap_or_default(),
            view: result
                .get("view")
                .filter(|v| !v.is_null())
                .map(|v| serde_json::from_value(v.clone()).expect("view JSON")),
        }),
    )
}

/// Renders events to ACP with the terminal capability on or off, validating every message
/// against the schema; returns the `update` objects per event.
pub fn render_acp(
    session_cwd: &str,
    events: &[ToolEvent],
    terminal: bool,
) -> Result<Vec<Vec<Value>>, String> {
    let caps = Capabilities {
        terminal,
        ..Capabilities::default()
    };
    render_all(session_cwd, events, Target::Acp, &caps)
        .into_iter()
        .map(|r| match r.body {
            Body::Acp(messages) => messages.iter().map(|m| acp::validate(m)).collect(),
            other => Err(format!("not an ACP body: {other:?}")),
        })
        .collect()
}
