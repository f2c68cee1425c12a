//! A call's input while the model is still writing it: what a prefix of its argument text says,
//! read the same way every time (a replay shows the same pending card as the live stream did).
//!
//! The rule (`docs/call-shapes.md#pending-input`): the prefix is read as JSON with its open
//! structures closed. The card's *input so far* keeps the unfinished string as far as it goes
//! (a file being written shows its text growing); the card's *heading* (title, kind, files) is
//! what the tool's presenter makes of the values whose text is complete, with the value still
//! being written and every string longer than [`MAX_HEADING_STRING_BYTES`] read as empty. So a
//! path or a command is never shown half-written, and a presenter never works on kilobytes
//! while the model types.

use std::borrow::Cow;

use jiter::{JsonValue, PartialMode};
use serde_json::{Map, Number, Value};

use super::resolve_call;
use crate::domain::{GenericCallView, ToolCallView, ToolKind};

/// Bytes a string value may have and still count for a pending call's heading: paths,
/// commands, patterns and URLs are shorter; file contents, which only a diff would show, wait
/// for the complete input.
pub const MAX_HEADING_STRING_BYTES: usize = 4096;

/// What a prefix of argument text says so far.
#[derive(Debug, Clone, PartialEq)]
pub struct PartialInput {
    /// Everything so far, the unfinished string included, open structures closed; the text
    /// itself when it does not read as the start of JSON.
    pub so_far: Value,
    /// The values complete so far (the unfinished one and long strings as `""`): what the
    /// heading is made from.
    pub settled: Value,
}

/// Reads a prefix of argument text.
pub fn read_partial(text: &str) -> PartialInput {
    let parse = |mode| JsonValue::parse_with_config(text.as_bytes(), false, mode).ok();
    let Some(so_far) = parse(PartialMode::TrailingStrings).map(|v| to_serde(&v)) else {
        return PartialInput {
            so_far: if text.trim().is_empty() {
                Value::Null
            } else {
                Value::String(text.to_owned())
            },
            settled: Value::Null,
        };
    };
    let mut settled = parse(PartialMode::On).map_or(Value::Null, |v| to_serde(&v));
    // The member being written is absent from the complete read: present, as empty, so that a
    // presenter needing it still makes the card the complete input will have.
    if let (Value::Object(all), Value::Object(done)) = (&so_far, &mut settled) {
        for (key, value) in all {
            if !done.contains_key(key) && value.is_string() {
                done.insert(key.clone(), Value::String(String::new()));
            }
        }
    }
    blank_long_strings(&mut settled);
    PartialInput { so_far, settled }
}

/// The card of a call whose input is streaming: a generic card with the heading the tool's
/// presenter (or the harness's own card) gives the settled input, and no input of its own (the
/// renderings show the input so far beside it, each in its own way).
pub fn pending_call(
    tool_name: &str,
    input: &PartialInput,
    harness_view: Option<ToolCallView>,
) -> ToolCallView {
    let (title, kind, locations) = match resolve_call(tool_name, &input.settled, harness_view) {
        ToolCallView::Generic(v) => (v.title, v.kind, v.locations),
        ToolCallView::Terminal(v) => (v.title, Some(ToolKind::Execute), Vec::new()),
        ToolCallView::Diff(v) => (v.title, Some(ToolKind::Edit), v.locations),
    };
    ToolCallView::Generic(GenericCallView {
        title,
        kind,
        raw_input: None,
        content: Vec::new(),
        locations,
    })
}

fn blank_long_strings(value: &mut Value) {
    match value {
        Value::String(s) if s.len() > MAX_HEADING_STRING_BYTES => s.clear(),
        Value::Array(items) => items.iter_mut().for_each(blank_long_strings),
        Value::Object(members) => members.values_mut().for_each(blank_long_strings),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// jiter's value as serde_json's (a repeated key: the last wins, as serde_json reads it; a
/// number past `f64` or an integer past `i64` as its nearest `f64`, or its text).
fn to_serde(value: &JsonValue<'_>) -> Value {
    match value {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(*b),
        JsonValue::Int(i) => Value::Number((*i).into()),
        JsonValue::BigInt(b) => Number::from_f64(b.to_string().parse().unwrap_or(f64::NAN))
            .map_or_else(|| Value::String(b.to_string()), Value::Number),
        JsonValue::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        JsonValue::Str(s) => Value::String(Cow::clone(s).into_owned()),
        JsonValue::Array(items) => Value::Array(items.iter().map(to_serde).collect()),
        JsonValue::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.to_string(), to_serde(v)))
                .collect::<Map<_, _>>(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_unfinished_string_shows_so_far_but_not_in_the_heading() {
        let read = read_partial(r#"{"file_path": "/src/main.rs", "content": "fn ma"#);
        assert_eq!(
            read.so_far,
            json!({"file_path": "/src/main.rs", "content": "fn ma"})
        );
        assert_eq!(
            read.settled,
            json!({"file_path": "/src/main.rs", "content": ""})
        );
        let card = pending_call("Write", &read, None);
        assert_eq!(card.title(), "Write /src/main.rs");
        let read = read_partial(r#"{"file_path": "/src/ma"#);
        assert_eq!(read.settled, json!({"file_path": ""}));
        assert_eq!(pending_call("Write", &read, None).title(), "Write");
    }

    #[test]
    fn a_command_heads_the_card_once_complete() {
        let read = read_partial(r#"{"command": "cargo test", "descr"#);
        let card = pending_call("Bash", &read, None);
        assert_eq!(card.title(), "cargo test");
        assert!(matches!(
            card,
            ToolCallView::Generic(GenericCallView {
                kind: Some(ToolKind::Execute),
                ..
            })
        ));
    }

    #[test]
    fn anything_reads() {
        for text in [
            "",
            "  ",
            "not json",
            "{",
            "[1, 2",
            r#"{"a": tr"#,
            "\"abc",
            "{\"\\u00",
        ] {
            let read = read_partial(text);
            let _ = pending_call("Bash", &read, None);
        }
        assert_eq!(read_partial("not json").so_far, json!("not json"));
        assert_eq!(read_partial("").so_far, Value::Null);
        let long = format!(r#"{{"command": "{}", "x": 1"#, "a".repeat(5000));
        assert_eq!(read_partial(&long).settled, json!({"command": "", "x": 1}));
    }
}
