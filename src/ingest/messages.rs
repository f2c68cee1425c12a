//! The conversation in span attributes: the GenAI conventions' `gen_ai.input.messages` and
//! `gen_ai.output.messages` (JSON, `{role, parts: [{type, content}]}`), OpenInference's
//! flattened `llm.input_messages.<i>.message.role` / `.content` / `.contents.<j>.message_content.text`,
//! and the AI SDK's own `ai.prompt.messages` (JSON, `{role, content}`) and `ai.response.text`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::span::Attributes;
use crate::domain::MessageRole;

/// A message's text, by role, at its position in the emitter's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// Its position in the input or output list.
    pub index: usize,
    /// Who said it (the user, the assistant, or the assistant's reasoning).
    pub role: MessageRole,
    /// The text parts, joined by newlines.
    pub text: String,
}

/// The user's messages among a span's inputs (tool results and system text are not).
pub fn user_inputs(attrs: &Attributes) -> Vec<Said> {
    let mut said = genai(attrs.get("gen_ai.input.messages"));
    if said.is_empty() {
        said = openinference(attrs, "llm.input_messages.");
    }
    if said.is_empty() {
        said = ai_sdk(attrs.get("ai.prompt.messages"));
    }
    said.retain(|s| s.role == MessageRole::User);
    said
}

/// The assistant's words and reasoning among a span's outputs.
pub fn assistant_outputs(attrs: &Attributes) -> Vec<Said> {
    let mut said = genai(attrs.get("gen_ai.output.messages"));
    if said.is_empty() {
        said = openinference(attrs, "llm.output_messages.");
    }
    if said.is_empty()
        && let Some(text) = attrs.get("ai.response.text").and_then(Value::as_str)
    {
        push(&mut said, 0, MessageRole::Assistant, text.to_owned());
    }
    said.retain(|s| s.role != MessageRole::User);
    said
}

/// The AI SDK's own spans (before `@ai-sdk/otel`): `ai.prompt.messages`, a JSON list of
/// `{role, content}`, the content a string or parts of which `{type: "text", text}` count.
fn ai_sdk(value: Option<&Value>) -> Vec<Said> {
    let Some(Ok(Value::Array(list))) = value
        .and_then(Value::as_str)
        .map(serde_json::from_str::<Value>)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, message) in list.iter().enumerate() {
        let Some(role) = message
            .get("role")
            .and_then(Value::as_str)
            .and_then(speaker)
        else {
            continue;
        };
        let text = match message.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => continue,
        };
        push(&mut out, index, role, text);
    }
    out
}

/// GenAI messages: a JSON string (or an array value) of `{role, parts}`; a part of type
/// `text` is the role's words, one of type `reasoning` the assistant's reasoning.
fn genai(value: Option<&Value>) -> Vec<Said> {
    let parsed;
    let list = match value {
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v) => {
                parsed = v;
                &parsed
            }
            Err(_) => return Vec::new(),
        },
        Some(v) => v,
        None => return Vec::new(),
    };
    let Some(list) = list.as_array() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, message) in list.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let parts = message.get("parts").and_then(Value::as_array);
        let texts = |kind: &str| -> String {
            let pieces: Vec<&str> = parts
                .into_iter()
                .flatten()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some(kind))
                .filter_map(|p| p.get("content").and_then(Value::as_str))
                .collect();
            pieces.join("\n")
        };
        if let Some(role) = speaker(role) {
            push(&mut out, index, role, texts("text"));
            if role == MessageRole::Assistant {
                push(&mut out, index, MessageRole::Reasoning, texts("reasoning"));
            }
        }
    }
    out
}

/// OpenInference messages, flattened under `prefix`: `<i>.message.role`,
/// `<i>.message.content`, `<i>.message.contents.<j>.message_content.text`.
fn openinference(attrs: &Attributes, prefix: &str) -> Vec<Said> {
    #[derive(Default)]
    struct Message<'a> {
        role: &'a str,
        content: Option<&'a str>,
        parts: BTreeMap<usize, &'a str>,
    }
    let mut messages: BTreeMap<usize, Message> = BTreeMap::new();
    for (key, value) in &attrs.0 {
        let (Some(rest), Some(text)) = (key.strip_prefix(prefix), value.as_str()) else {
            continue;
        };
        let Some((index, field)) = rest.split_once('.') else {
            continue;
        };
        let Ok(index) = index.parse::<usize>() else {
            continue;
        };
        let m = messages.entry(index).or_default();
        match field {
            "message.role" => m.role = text,
            "message.content" => m.content = Some(text),
            _ => {
                if let Some(part) = field
                    .strip_prefix("message.contents.")
                    .and_then(|p| p.strip_suffix(".message_content.text"))
                    .and_then(|j| j.parse::<usize>().ok())
                {
                    m.parts.insert(part, text);
                }
            }
        }
    }
    let mut out = Vec::new();
    for (index, m) in messages {
        let text = match m.content {
            Some(content) => content.to_owned(),
            None => m.parts.into_values().collect::<Vec<_>>().join("\n"),
        };
        if let Some(role) = speaker(m.role) {
            push(&mut out, index, role, text);
        }
    }
    out
}

/// The roles the conversation shows: the user's and the assistant's (`model` in some
/// emitters). System text, tool results and unknown roles are not words of either.
fn speaker(role: &str) -> Option<MessageRole> {
    match role {
        "user" | "human" => Some(MessageRole::User),
        "assistant" | "model" | "ai" => Some(MessageRole::Assistant),
        _ => None,
    }
}

fn push(out: &mut Vec<Said>, index: usize, role: MessageRole, text: String) {
    if !text.trim().is_empty() {
        out.push(Said { index, role, text });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn genai_messages() {
        let input = json!([
            {"role": "system", "parts": [{"type": "text", "content": "be brief"}]},
            {"role": "user", "parts": [{"type": "text", "content": "List and read."}]},
            {"role": "user", "parts": [{"type": "tool_call_response", "id": "c1", "response": "x"}]},
        ])
        .to_string();
        let output = json!([{"role": "assistant", "parts": [
            {"type": "reasoning", "content": "think"},
            {"type": "tool_call", "id": "c1", "name": "bash", "arguments": {}},
            {"type": "text", "content": "Done."},
        ]}]);
        let attrs = Attributes(vec![
            ("gen_ai.input.messages".into(), Value::String(input)),
            ("gen_ai.output.messages".into(), output),
        ]);
        assert_eq!(
            user_inputs(&attrs),
            vec![Said {
                index: 1,
                role: MessageRole::User,
                text: "List and read.".into()
            }]
        );
        let out = assistant_outputs(&attrs);
        assert_eq!(out.len(), 2);
        assert_eq!(
            (out[0].role, out[0].text.as_str()),
            (MessageRole::Assistant, "Done.")
        );
        assert_eq!(
            (out[1].role, out[1].text.as_str()),
            (MessageRole::Reasoning, "think")
        );
    }

    #[test]
    fn openinference_messages() {
        let attrs = Attributes(vec![
            ("llm.input_messages.0.message.role".into(), json!("user")),
            ("llm.input_messages.0.message.content".into(), json!("hi")),
            ("llm.input_messages.2.message.role".into(), json!("tool")),
            ("llm.input_messages.2.message.content".into(), json!("out")),
            (
                "llm.output_messages.0.message.role".into(),
                json!("assistant"),
            ),
            (
                "llm.output_messages.0.message.contents.1.message_content.text".into(),
                json!("b"),
            ),
            (
                "llm.output_messages.0.message.contents.0.message_content.text".into(),
                json!("a"),
            ),
            ("llm.input_messages.x.message.role".into(), json!("user")),
        ]);
        assert_eq!(
            user_inputs(&attrs),
            vec![Said {
                index: 0,
                role: MessageRole::User,
                text: "hi".into()
            }]
        );
        assert_eq!(assistant_outputs(&attrs)[0].text, "a\nb");
    }

    #[test]
    fn broken_messages_are_none() {
        let attrs = Attributes(vec![
            ("gen_ai.input.messages".into(), json!("[{")),
            (
                "gen_ai.output.messages".into(),
                json!({"role": "assistant"}),
            ),
        ]);
        assert!(user_inputs(&attrs).is_empty());
        assert!(assistant_outputs(&attrs).is_empty());
    }
}
