//! `MESSAGES_SNAPSHOT` for a history join: the AG-UI events of a session's replay folded into
//! `agent.messages` as `@ag-ui/client`'s `defaultApplyEvents` folds them — text and reasoning
//! messages, an assistant message per tool call, each result right after its call (after the
//! results before it), activity messages replaced or patched — so a UI that joins with one
//! snapshot holds what a replay would have given it. Tail-first: past the message or byte
//! budget, the oldest messages are dropped (a result whose call was dropped then comes last,
//! as the client would place it).

use serde_json::{Value, json};

/// Messages a snapshot holds at most by default (`forwardedProps.toolview.snapshotMessages`
/// lowers or raises it, up to [`MAX_SNAPSHOT_MESSAGES`]): a long session's recent history.
pub const DEFAULT_SNAPSHOT_MESSAGES: usize = 1_000;
/// …and at most: a snapshot is one Server-Sent Event a browser parses at once.
pub const MAX_SNAPSHOT_MESSAGES: usize = 10_000;
/// Bytes of JSON a snapshot holds at most, whatever the count: the same reason.
pub const MAX_SNAPSHOT_BYTES: usize = 16 << 20;

/// The messages folded so far.
#[derive(Debug)]
pub struct Messages {
    messages: Vec<(Value, usize)>,
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

    /// Folds one update's events (JSON texts; one that does not parse is skipped).
    pub fn apply_all(&mut self, events: &[String]) {
        for e in events {
            if let Ok(event) = serde_json::from_str::<Value>(e) {
                self.apply(&event);
            }
        }
        self.trim();
    }

    /// The log was replaced: its replay follows.
    pub fn clear(&mut self) {
        self.messages.clear();
        self.bytes = 0;
    }

    /// `MESSAGES_SNAPSHOT` of what was folded.
    pub fn snapshot(&self) -> String {
        let messages: Vec<&Value> = self.messages.iter().map(|(m, _)| m).collect();
        json!({"type": "MESSAGES_SNAPSHOT", "messages": messages}).to_string()
    }

    // Both search from the newest message: deltas, outputs and results are nearly always about
    // a recent one, so folding a long replay costs about O(events), not O(events × messages).
    fn find(&self, id: &str) -> Option<usize> {
        self.messages.iter().rposition(|(m, _)| m["id"] == id)
    }

    fn holding_call(&self, call: &str) -> Option<usize> {
        self.messages.iter().rposition(|(m, _)| {
            m["toolCalls"]
                .as_array()
                .is_some_and(|calls| calls.iter().any(|c| c["id"] == call))
        })
    }

    fn push(&mut self, at: Option<usize>, message: Value) {
        let size = message.to_string().len();
        self.bytes += size;
        match at {
            Some(i) => self.messages.insert(i, (message, size)),
            None => self.messages.push((message, size)),
        }
    }

    /// Appends `delta` to a string field of message `id` (its size counted again lazily).
    fn append(&mut self, id: &str, field: &str, delta: &str) {
        if let Some(i) = self.find(id)
            && let Some(Value::String(text)) = self.messages[i].0.get_mut(field)
        {
            text.push_str(delta);
            self.messages[i].1 += delta.len();
            self.bytes += delta.len();
        }
    }

    fn apply(&mut self, e: &Value) {
        let s = |k: &str| e[k].as_str().unwrap_or_default();
        match s("type") {
            "TEXT_MESSAGE_START" | "REASONING_MESSAGE_START"
                if self.find(s("messageId")).is_none() =>
            {
                let role = if s("type").starts_with("REASONING") {
                    "reasoning"
                } else {
                    e["role"].as_str().unwrap_or("assistant")
                };
                self.push(
                    None,
                    json!({"id": s("messageId"), "role": role, "content": ""}),
                );
            }
            "TEXT_MESSAGE_CONTENT" | "REASONING_MESSAGE_CONTENT" => {
                self.append(s("messageId"), "content", s("delta"));
            }
            "TOOL_CALL_START" if self.holding_call(s("toolCallId")).is_none() => {
                let call = json!({"id": s("toolCallId"), "type": "function",
                    "function": {"name": s("toolCallName"), "arguments": ""}});
                self.push(
                    None,
                    json!({"id": s("toolCallId"), "role": "assistant", "toolCalls": [call]}),
                );
            }
            "TOOL_CALL_ARGS" => {
                if let Some(i) = self.holding_call(s("toolCallId")) {
                    let delta = s("delta");
                    for c in self.messages[i].0["toolCalls"]
                        .as_array_mut()
                        .into_iter()
                        .flatten()
                    {
                        if c["id"] == s("toolCallId")
                            && let Some(Value::String(args)) = c["function"].get_mut("arguments")
                        {
                            args.push_str(delta);
                        }
                    }
                    self.messages[i].1 += delta.len();
                    self.bytes += delta.len();
                }
            }
            "TOOL_CALL_RESULT" => {
                let result = json!({"id": s("messageId"), "role": "tool",
                    "toolCallId": s("toolCallId"), "content": s("content")});
                let at = self.holding_call(s("toolCallId")).map(|i| {
                    let mut at = i + 1;
                    while self
                        .messages
                        .get(at)
                        .is_some_and(|(m, _)| m["role"] == "tool")
                    {
                        at += 1;
                    }
                    at
                });
                self.push(at, result);
            }
            "ACTIVITY_SNAPSHOT" => {
                let message = json!({"id": s("messageId"), "role": "activity",
                    "activityType": s("activityType"), "content": e["content"]});
                match self.find(s("messageId")) {
                    None => self.push(None, message),
                    Some(i) if e["replace"] != false => {
                        let size = message.to_string().len();
                        self.bytes = self.bytes + size - self.messages[i].1.min(self.bytes);
                        self.messages[i] = (message, size);
                    }
                    Some(_) => {}
                }
            }
            "ACTIVITY_DELTA" => {
                // toolview's patches append to an array of the card (`add` at `/…/-`) or
                // replace a field: those two ops only.
                // Sizes grow by what is added (an append costs its chunk, not the card).
                if let Some(i) = self.find(s("messageId")) {
                    for op in e["patch"].as_array().into_iter().flatten() {
                        let path = op["path"].as_str().unwrap_or_default();
                        let value = &op["value"];
                        let grown = value.to_string().len();
                        let content = &mut self.messages[i].0["content"];
                        let target = match (op["op"].as_str(), path.strip_suffix("/-")) {
                            (Some("add"), Some(array)) => match content.pointer_mut(array) {
                                Some(Value::Array(items)) => {
                                    items.push(value.clone());
                                    true
                                }
                                _ => false,
                            },
                            (Some("replace"), _) => match content.pointer_mut(path) {
                                Some(target) => {
                                    *target = value.clone();
                                    true
                                }
                                None => false,
                            },
                            _ => false,
                        };
                        if target {
                            self.messages[i].1 += grown;
                            self.bytes += grown;
                        }
                    }
                }
            }
            // Run, step, custom and end events change no message.
            _ => {}
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn events(list: &[Value]) -> Vec<String> {
        list.iter().map(Value::to_string).collect()
    }

    #[test]
    fn folds_as_the_client_does_and_keeps_the_tail() {
        let mut m = Messages::new(10);
        m.apply_all(&events(&[
            json!({"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "hi"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "bash"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "t", "content": {"streamed": "", "chunks": []}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "t", "patch": [{"op": "add", "path": "/chunks/-", "value": "x"}]}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": "c", "content": "ok"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "!"}),
        ]));
        let snap: Value = serde_json::from_str(&m.snapshot()).unwrap();
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
        let mut tail = Messages {
            messages: m.messages.clone(),
            bytes: m.bytes,
            limit: 2,
        };
        tail.trim();
        assert_eq!(tail.messages.len(), 2);
        assert_eq!(tail.messages[0].0["id"], "r", "tail-first");
    }
}
