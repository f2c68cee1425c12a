//! `MESSAGES_SNAPSHOT` for a history join: the AG-UI events of a session's replay folded into
//! `agent.messages` as `@ag-ui/client`'s `defaultApplyEvents` folds them — text and reasoning
//! messages, an assistant message per tool call, each result right after its call (after the
//! results before it), activity messages replaced or patched — so a UI that joins with one
//! snapshot holds what a replay would have given it. Tail-first: past the message or byte
//! budget, the oldest messages are dropped (a result whose call was dropped then comes last,
//! as the client would place it).

use serde_json::Value;

use crate::render::AgUiEvent;
use crate::render::ag_ui::{
    Activity, AgUiFunction, AgUiMessage, AgUiToolCall, Content, PatchKind, PatchOp, Role, TextRole,
};
use crate::render::json_len;

/// Messages a snapshot holds at most by default (`forwardedProps.toolview.snapshotMessages`
/// lowers or raises it, up to [`MAX_SNAPSHOT_MESSAGES`]): a long session's recent history.
pub const DEFAULT_SNAPSHOT_MESSAGES: usize = 1_000;
/// …and at most: a snapshot is one Server-Sent Event a browser parses at once.
pub const MAX_SNAPSHOT_MESSAGES: usize = 10_000;
/// Bytes of JSON a snapshot holds at most, whatever the count: the same reason.
pub const MAX_SNAPSHOT_BYTES: usize = 16 << 20;

/// The messages folded so far: each an `agent.messages` entry and the size of its JSON.
#[derive(Debug)]
pub struct Messages {
    messages: Vec<(AgUiMessage, usize)>,
    bytes: usize,
    limit: usize,
}

impl Messages {
    /// An empty fold keeping at most `limit` messages (and [`MAX_SNAPSHOT_BYTES`]).
    pub fn new(limit: usize) -> Self {
        Messages {
            messages: Vec::new(),
            bytes: 0,
            limit: limit.clamp(1, MAX_SNAPSHOT_MESSAGES),
        }
    }

    /// Folds one update's events.
    pub fn apply_all(&mut self, events: &[AgUiEvent]) {
        for event in events {
            self.apply(event);
        }
        self.trim();
    }

    /// The log was replaced: its replay follows.
    pub fn clear(&mut self) {
        self.messages.clear();
        self.bytes = 0;
    }

    /// `MESSAGES_SNAPSHOT` of what was folded.
    pub fn into_snapshot(self) -> AgUiEvent {
        AgUiEvent::MessagesSnapshot {
            messages: self.messages.into_iter().map(|(m, _)| m).collect(),
        }
    }

    // Both search from the newest message: deltas, outputs and results are nearly always about
    // a recent one, so folding a long replay costs about O(events), not O(events × messages).
    fn find(&self, id: &str) -> Option<usize> {
        self.messages.iter().rposition(|(m, _)| m.id == id)
    }

    fn holding_call(&self, call: &str) -> Option<usize> {
        self.messages
            .iter()
            .rposition(|(m, _)| m.tool_calls.iter().any(|c| c.id == call))
    }

    fn push(&mut self, at: Option<usize>, message: AgUiMessage) {
        let size = json_len(&message);
        self.bytes += size;
        match at {
            Some(i) => self.messages.insert(i, (message, size)),
            None => self.messages.push((message, size)),
        }
    }

    /// Appends `delta` to the text of message `id`.
    fn append(&mut self, id: &str, delta: &str) {
        if let Some(i) = self.find(id)
            && let Some(Content::Text(text)) = &mut self.messages[i].0.content
        {
            text.push_str(delta);
            self.grow(i, delta.len());
        }
    }

    fn grow(&mut self, i: usize, by: usize) {
        self.messages[i].1 += by;
        self.bytes += by;
    }

    fn start_message(&mut self, id: &str, role: Role) {
        if self.find(id).is_none() {
            let message = AgUiMessage {
                content: Some(Content::Text(String::new())),
                ..message(id, role)
            };
            self.push(None, message);
        }
    }

    fn apply(&mut self, event: &AgUiEvent) {
        match event {
            AgUiEvent::TextMessageStart { message_id, role } => {
                let role = match role {
                    TextRole::User => Role::User,
                    TextRole::Assistant => Role::Assistant,
                };
                self.start_message(message_id, role);
            }
            AgUiEvent::ReasoningMessageStart { message_id, .. } => {
                self.start_message(message_id, Role::Reasoning);
            }
            AgUiEvent::TextMessageContent { message_id, delta }
            | AgUiEvent::ReasoningMessageContent { message_id, delta } => {
                self.append(message_id, delta);
            }
            AgUiEvent::ToolCallStart {
                tool_call_id,
                tool_call_name,
            } if self.holding_call(tool_call_id).is_none() => {
                let call = AgUiToolCall {
                    id: tool_call_id.clone(),
                    kind: "function".into(),
                    function: AgUiFunction {
                        name: tool_call_name.clone(),
                        arguments: String::new(),
                    },
                };
                let message = AgUiMessage {
                    tool_calls: vec![call],
                    ..message(tool_call_id, Role::Assistant)
                };
                self.push(None, message);
            }
            AgUiEvent::ToolCallArgs {
                tool_call_id,
                delta,
                ..
            } => self.append_arguments(tool_call_id, delta),
            AgUiEvent::ToolCallResult {
                message_id,
                tool_call_id,
                content,
                ..
            } => self.result(message_id, tool_call_id, content),
            AgUiEvent::ActivitySnapshot {
                message_id,
                activity_type,
                content,
                replace,
            } => self.activity(message_id, activity_type, content, *replace),
            AgUiEvent::ActivityDelta {
                message_id, patch, ..
            } => self.patch(message_id, patch),
            // A second start of a call already held changes nothing; run, step, custom, end and
            // snapshot events change no message.
            AgUiEvent::ToolCallStart { .. }
            | AgUiEvent::RunStarted { .. }
            | AgUiEvent::RunFinished { .. }
            | AgUiEvent::RunError { .. }
            | AgUiEvent::TextMessageEnd { .. }
            | AgUiEvent::ReasoningMessageEnd { .. }
            | AgUiEvent::ToolCallEnd { .. }
            | AgUiEvent::Custom(_)
            | AgUiEvent::MessagesSnapshot { .. } => {}
        }
    }

    /// A tool message: right after its call, after the results before it.
    fn result(&mut self, id: &str, call: &str, content: &str) {
        let result = AgUiMessage {
            tool_call_id: Some(call.to_owned()),
            content: Some(Content::Text(content.to_owned())),
            ..message(id, Role::Tool)
        };
        let at = self.holding_call(call).map(|i| {
            let mut at = i + 1;
            while self
                .messages
                .get(at)
                .is_some_and(|(m, _)| m.role == Role::Tool)
            {
                at += 1;
            }
            at
        });
        self.push(at, result);
    }

    /// An activity message, added or (with `replace`) replacing the one with its id.
    fn activity(&mut self, id: &str, activity_type: &str, content: &Activity, replace: bool) {
        let message = AgUiMessage {
            activity_type: Some(activity_type.to_owned()),
            content: Some(Content::Activity(content.clone())),
            ..message(id, Role::Activity)
        };
        match self.find(id) {
            None => self.push(None, message),
            Some(i) if replace => {
                let size = json_len(&message);
                self.bytes = self.bytes + size - self.messages[i].1.min(self.bytes);
                self.messages[i] = (message, size);
            }
            Some(_) => {}
        }
    }

    /// toolview's patches append to an array of the card (`add` at `/…/-`): a chunk costs its
    /// own size, not the card's.
    fn patch(&mut self, id: &str, patch: &[PatchOp]) {
        let Some(i) = self.find(id) else {
            return;
        };
        let Some(Content::Activity(Activity::Card(card))) = &mut self.messages[i].0.content else {
            return;
        };
        let mut grown = 0;
        for op in patch {
            let PatchKind::Add = op.op;
            let Some(array) = op.path.strip_suffix("/-") else {
                continue;
            };
            if let Some(Value::Array(items)) = card.pointer_mut(array) {
                items.push(op.value.clone());
                grown += json_len(&op.value);
            }
        }
        self.grow(i, grown);
    }

    /// Appends argument text to the call `id`'s `function.arguments`.
    fn append_arguments(&mut self, id: &str, delta: &str) {
        let Some(i) = self.holding_call(id) else {
            return;
        };
        for call in &mut self.messages[i].0.tool_calls {
            if call.id == id {
                call.function.arguments.push_str(delta);
            }
        }
        self.grow(i, delta.len());
    }

    /// Drops the oldest messages past the count or byte budget.
    fn trim(&mut self) {
        let mut drop = 0;
        let mut bytes = self.bytes;
        while self.messages.len() - drop > self.limit
            || (bytes > MAX_SNAPSHOT_BYTES && drop < self.messages.len())
        {
            bytes -= self.messages[drop].1.min(bytes);
            drop += 1;
        }
        if drop > 0 {
            self.messages.drain(..drop);
            self.bytes = bytes;
        }
    }
}

/// A message with only its id and role.
fn message(id: &str, role: Role) -> AgUiMessage {
    AgUiMessage {
        id: id.to_owned(),
        role,
        tool_call_id: None,
        activity_type: None,
        tool_calls: Vec::new(),
        content: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn events(list: &[Value]) -> Vec<AgUiEvent> {
        list.iter()
            .map(|e| serde_json::from_value(e.clone()).unwrap())
            .collect()
    }

    #[test]
    fn folds_as_the_client_does_and_keeps_the_tail() {
        let mut m = Messages::new(10);
        m.apply_all(&events(&[
            json!({"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "hi"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "bash"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "t", "content": {"streamed": "", "chunks": []}, "replace": true}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "t", "patch": [{"op": "add", "path": "/chunks/-", "value": "x"}]}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": "c", "content": "ok", "role": "tool"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "!"}),
        ]));
        let mut tail = Messages {
            messages: m.messages.clone(),
            bytes: m.bytes,
            limit: 2,
        };
        let snap = serde_json::to_value(m.into_snapshot()).unwrap();
        let ids: Vec<&str> = snap["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["u", "c", "r", "a"], "the result right after its call");
        assert_eq!(snap["messages"][0]["content"], "hi!");
        assert_eq!(
            snap["messages"][1]["toolCalls"][0]["function"]["arguments"],
            "{}"
        );
        assert_eq!(snap["messages"][3]["content"]["chunks"], json!(["x"]));
        tail.trim();
        assert_eq!(tail.messages.len(), 2);
        assert_eq!(tail.messages[0].0.id, "r", "tail-first");
    }
}
