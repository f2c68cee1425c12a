//! What a framework wraps around a tool's arguments and result when its instrumentation writes
//! them into span attributes, taken off: the card shows the arguments the model wrote and the
//! text the tool returned, not the framework's serialization of them.
//!
//! Recognized by shape, each exactly (anything else is kept verbatim):
//! - a LangChain message as OpenInference writes it: `{"type": "tool", "data": {"content"}}`;
//! - a serialized LangChain object (OpenLLMetry): `{"lc": 1, "type": "constructor", "id": […,
//!   "ToolMessage"], "kwargs": {"content"}}`, alone or as the `output` of OpenLLMetry's
//!   `{"output", "kwargs"}`;
//! - OpenLLMetry's tool callback payload: `{"input_str", "inputs", …}` → `inputs` (the
//!   arguments), else `input_str`;
//! - smolagents' call: `{"args": [], "kwargs": {…}, "sanitize_inputs_outputs"?}` → `kwargs`.
//!
//! A message's content that is a list of parts gives its text parts, joined.

use serde_json::{Map, Value};

/// A tool's arguments as the model wrote them.
pub fn arguments(text: String) -> String {
    let Some(object) = object(&text) else {
        return text;
    };
    // OpenLLMetry's tool-start payload: `{"input_str", "tags", "metadata", "inputs", "kwargs"}`.
    if object.contains_key("input_str") && object.contains_key("inputs") {
        return match &object["inputs"] {
            Value::Object(inputs) if !inputs.is_empty() => {
                Value::Object(inputs.clone()).to_string()
            }
            _ => text_of(&object["input_str"]).unwrap_or(text),
        };
    }
    let smolagents = object
        .keys()
        .all(|k| matches!(k.as_str(), "args" | "kwargs" | "sanitize_inputs_outputs"));
    if smolagents
        && object
            .get("args")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        && let Some(kwargs @ Value::Object(_)) = object.get("kwargs")
    {
        return kwargs.to_string();
    }
    text
}

/// A tool's result as the tool returned it.
pub fn result(text: String) -> String {
    match object(&text) {
        Some(object) => unwrapped(&object).unwrap_or(text),
        None => text,
    }
}

/// The text inside a framework's envelope of a result, if `object` is one.
fn unwrapped(object: &Map<String, Value>) -> Option<String> {
    // OpenLLMetry's tool-end payload: `{"output": <the result>, "kwargs": {…}}`.
    if object.len() == 2 && object.contains_key("kwargs") {
        return match object.get("output")? {
            Value::Object(inner) => unwrapped(inner),
            other => text_of(other),
        };
    }
    let content = match (object.get("type").and_then(Value::as_str), object.get("lc")) {
        // LangChain's message dict (`messages_to_dict`).
        (Some("tool"), None) => object.get("data")?.get("content"),
        // LangChain's serialized constructor of a message.
        (Some("constructor"), Some(_)) if is_message(object) => {
            object.get("kwargs")?.get("content")
        }
        _ => None,
    };
    content.and_then(text_of)
}

/// `text` as a JSON object, when it is one (a cheap look first: most results are not).
fn object(text: &str) -> Option<Map<String, Value>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// Whether a serialized LangChain object is a message (`id` ends in `…Message`).
fn is_message(object: &Map<String, Value>) -> bool {
    object
        .get("id")
        .and_then(Value::as_array)
        .and_then(|id| id.last())
        .and_then(Value::as_str)
        .is_some_and(|name| name.ends_with("Message"))
}

/// A content value's text: a string, or the text parts of a list of parts.
fn text_of(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => o.get("text").and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn langchain_results_are_their_content() {
        let dict = r#"{"type": "tool", "data": {"content": "a.txt\nb.txt", "tool_call_id": "call_1", "status": "success"}}"#;
        assert_eq!(result(dict.into()), "a.txt\nb.txt");
        let constructor = r#"{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"], "kwargs": {"content": [{"type": "text", "text": "hello"}], "tool_call_id": "c"}}"#;
        assert_eq!(result(constructor.into()), "hello");
        let traceloop = format!(r#"{{"output": {constructor}, "kwargs": {{"color": "green"}}}}"#);
        assert_eq!(result(traceloop), "hello");
        assert_eq!(
            result(r#"{"output": "plain", "kwargs": {}}"#.into()),
            "plain"
        );
        // Not a message: kept.
        let other = r#"{"lc": 1, "type": "constructor", "id": ["x", "Document"], "kwargs": {"content": "d"}}"#;
        assert_eq!(result(other.into()), other);
        assert_eq!(result(r#"{"type": "tool"}"#.into()), r#"{"type": "tool"}"#);
        assert_eq!(result("plain".into()), "plain");
    }

    #[test]
    fn callback_payloads_and_calls_are_their_arguments() {
        let traceloop = r#"{"input_str": "{'city': 'Lisbon'}", "tags": null, "metadata": {}, "inputs": {"city": "Lisbon"}, "kwargs": {}}"#;
        assert_eq!(arguments(traceloop.into()), r#"{"city":"Lisbon"}"#);
        let no_inputs = r#"{"input_str": "ls", "inputs": null}"#;
        assert_eq!(arguments(no_inputs.into()), "ls");
        let smolagents =
            r#"{"args": [], "kwargs": {"city": "Lisbon"}, "sanitize_inputs_outputs": true}"#;
        assert_eq!(arguments(smolagents.into()), r#"{"city":"Lisbon"}"#);
        // A tool whose own arguments are named so, or positional ones: kept.
        let own = r#"{"args": ["x"], "kwargs": {}}"#;
        assert_eq!(arguments(own.into()), own);
        let mine = r#"{"kwargs": {"a": 1}, "path": "p"}"#;
        assert_eq!(arguments(mine.into()), mine);
    }
}
