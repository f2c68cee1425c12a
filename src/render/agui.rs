//! Target AG-UI: tool-call lifecycle events, plus `CUSTOM` events carrying the (degraded) cards.

use serde_json::{Value, json};

use super::Context;
use super::card::{
    Capabilities, cap_text, capped_chunk, degrade_call, degrade_result, flatten, prepared_call,
    prepared_result,
};
use super::fold::{CallState, Change};
use crate::domain::ContentBlock;

pub(super) fn render(change: Change<'_>, ctx: &Context<'_>, caps: &Capabilities) -> Vec<String> {
    let cap = caps.max_output_bytes;
    let events: Vec<Value> = match change {
        Change::Session => Vec::new(),
        Change::Started(state) => {
            let id = state.call_id.as_str();
            let card = prepared_call(state, ctx.cwd, cap).map(|v| degrade_call(v, caps).to_json());
            vec![
                json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": state.tool_name}),
                json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": state.arguments_json}),
                json!({"type": "TOOL_CALL_END", "toolCallId": id}),
                envelope(state, "call", card),
            ]
        }
        Change::Output(state, chunk) => {
            let data = capped_chunk(chunk, cap);
            if data.is_empty() && !chunk.text.is_empty() {
                // Past the cap: nothing more is sent.
                Vec::new()
            } else {
                vec![json!({
                    "type": "CUSTOM",
                    "name": "toolview:terminal:output",
                    "value": {"callId": state.call_id.as_str(), "data": data},
                })]
            }
        }
        Change::Finished(state) => {
            let id = state.call_id.as_str();
            let mut raw: Vec<ContentBlock> = state
                .finished
                .as_ref()
                .map(|f| f.raw_content.clone())
                .unwrap_or_default();
            for b in &mut raw {
                if let ContentBlock::Text { text } | ContentBlock::Reasoning { text } = b {
                    *text = cap_text(text, cap).into_owned();
                }
            }
            let card = prepared_result(state, ctx.cwd, cap)
                .map(|v| degrade_result(v, state, caps).to_json());
            vec![
                json!({
                    "type": "TOOL_CALL_RESULT",
                    "messageId": format!("toolview:{}:{id}:result", ctx.session_id),
                    "toolCallId": id,
                    "content": flatten(&raw),
                    "role": "tool",
                }),
                envelope(state, "result", card),
            ]
        }
    };
    events.iter().map(Value::to_string).collect()
}

/// `ENVELOPE(phase, card)`: the `dsh:tool:view` custom event, version 1.
fn envelope(state: &CallState, phase: &str, card: Option<Value>) -> Value {
    json!({
        "type": "CUSTOM",
        "name": "dsh:tool:view",
        "value": {
            "version": 1,
            "callId": state.call_id.as_str(),
            "toolName": state.tool_name,
            "phase": phase,
            "card": card.unwrap_or(Value::Null),
        },
    })
}
