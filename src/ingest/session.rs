//! The session a span or log record belongs to.
//!
//! First match wins, each looked up on the span, then on its resource:
//! `toolview.session.id` (the whole id), then a conversation id (`gen_ai.conversation.id`,
//! `session.id`, `langfuse.session.id`), else the trace (`<service.name>/<trace id>`). A
//! `toolview.session.prefix` goes in front of the last two, so a token granting `team-a/*`
//! can publish them. Text that breaks the id rule is mended, not refused: each character
//! outside `[A-Za-z0-9._:-]` becomes `-`, empty segments go, a `.` or `..` segment becomes
//! `-` or `--` (so `team-a/../victim` stays under `team-a`), and the id is cut at 128.

use super::span::Attributes;
use crate::domain::{SessionId, is_dot_segment};

/// The attribute naming a session outright.
pub const SESSION_ID_KEY: &str = "toolview.session.id";
/// The attribute naming a prefix for derived session ids.
pub const SESSION_PREFIX_KEY: &str = "toolview.session.prefix";
/// Conversation ids, in order: the GenAI conventions', OpenInference's, Langfuse's.
pub const CONVERSATION_KEYS: &[&str] = &[
    "gen_ai.conversation.id",
    "session.id",
    "langfuse.session.id",
];

/// Ids are at most this long (the id rule).
const MAX_ID: usize = 128;

/// The session of a record with these attributes, of this resource, in this trace.
pub fn session_of(attrs: &Attributes, resource: &Attributes, trace_id: &str) -> SessionId {
    let find = |keys: &[&str]| attrs.first_str(keys).or_else(|| resource.first_str(keys));
    if let Some(id) = find(&[SESSION_ID_KEY]) {
        return mend(id, "otel");
    }
    let tail = match find(CONVERSATION_KEYS) {
        Some(conversation) => conversation.to_owned(),
        None => {
            let service = resource.first_str(&["service.name"]).unwrap_or("otel");
            let trace = if trace_id.is_empty() {
                "no-trace"
            } else {
                trace_id
            };
            format!("{service}/{trace}")
        }
    };
    match find(&[SESSION_PREFIX_KEY]) {
        Some(prefix) => mend(&format!("{prefix}/{tail}"), "otel"),
        None => mend(&tail, "otel"),
    }
}

/// `text` as a session id: kept when valid, else mended (see the module doc); `fallback` when
/// nothing is left.
fn mend(text: &str, fallback: &str) -> SessionId {
    if let Ok(id) = SessionId::new(text) {
        return id;
    }
    let mut out = String::with_capacity(text.len().min(MAX_ID));
    for segment in text.split('/').filter(|s| !s.is_empty()) {
        if out.len() >= MAX_ID {
            break;
        }
        if !out.is_empty() {
            out.push('/');
        }
        let dots = is_dot_segment(segment);
        for c in segment.chars() {
            let ok = !dots && (c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'));
            out.push(if ok { c } else { '-' });
            if out.len() >= MAX_ID {
                break;
            }
        }
    }
    out.truncate(MAX_ID);
    let out = out.trim_end_matches('/');
    SessionId::new(out).unwrap_or_else(|_| SessionId::new(fallback).expect("a valid fallback"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn attrs(pairs: &[(&str, &str)]) -> Attributes {
        Attributes(pairs.iter().map(|(k, v)| ((*k).into(), json!(v))).collect())
    }

    #[test]
    fn the_order_of_sources() {
        let resource = attrs(&[("service.name", "my agent")]);
        let none = Attributes::default();
        assert_eq!(
            session_of(&none, &resource, "ab12").as_str(),
            "my-agent/ab12"
        );
        let conv = attrs(&[("session.id", "s1"), ("gen_ai.conversation.id", "c1")]);
        assert_eq!(session_of(&conv, &resource, "ab12").as_str(), "c1");
        let prefixed = attrs(&[(SESSION_PREFIX_KEY, "team-a")]);
        assert_eq!(session_of(&conv, &prefixed, "ab12").as_str(), "team-a/c1");
        let whole = attrs(&[(SESSION_ID_KEY, "team-b/run-1")]);
        assert_eq!(
            session_of(&whole, &prefixed, "ab12").as_str(),
            "team-b/run-1"
        );
    }

    #[test]
    fn bad_text_is_mended() {
        assert_eq!(mend("a b//c\u{1b}", "x").as_str(), "a-b/c-");
        assert_eq!(mend("///", "x").as_str(), "x");
        assert_eq!(mend("team-a/../victim", "x").as_str(), "team-a/--/victim");
        assert_eq!(mend("./a/.", "x").as_str(), "-/a/-");
        let long = "é".repeat(300);
        let id = mend(&long, "x");
        assert_eq!(id.as_str().len(), MAX_ID);
    }
}
