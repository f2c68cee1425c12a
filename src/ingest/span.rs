//! The records ingestion reads: a span, a log record, and their attributes as JSON values.

use std::sync::Arc;

use serde_json::Value;

/// Attributes in the order they came, values as JSON: OTLP's `AnyValue` strings, booleans,
/// numbers, arrays, key-value lists (objects) and bytes (base64 text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes(pub Vec<(String, Value)>);

impl Attributes {
    /// The first value under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The first of `keys` whose value is non-empty text.
    pub fn first_str(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|k| match self.get(k) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.as_str()),
            _ => None,
        })
    }

    /// The first of `keys` present, as text: a string as it is, any other value as JSON (an
    /// emitter that sends arguments as a key-value list rather than JSON text).
    pub fn first_text(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| match self.get(k)? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
    }

    /// Whether `key` holds the text `value`.
    pub fn is(&self, key: &str, value: &str) -> bool {
        matches!(self.get(key), Some(Value::String(s)) if s == value)
    }
}

/// A finished span, as an OTLP request carries it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Span {
    /// The trace, 32 hex digits (empty when the request had none).
    pub trace_id: String,
    /// The span, 16 hex digits.
    pub span_id: String,
    /// The parent span, 16 hex digits, or empty for a root.
    pub parent_span_id: String,
    /// The exporter says the parent is another process's (a propagated context): it is not
    /// waited for.
    pub parent_remote: bool,
    /// The span's name.
    pub name: String,
    /// Start, nanoseconds since the Unix epoch.
    pub start_ns: u64,
    /// End, nanoseconds since the Unix epoch.
    pub end_ns: u64,
    /// The span's own attributes.
    pub attributes: Attributes,
    /// The attributes of the resource that emitted it (`service.name`, …).
    pub resource: Arc<Attributes>,
    /// `Some` when the span failed (status ERROR): the status message, else the first
    /// exception event's message, else empty.
    pub error: Option<String>,
}

/// A log record, as an OTLP request carries it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogRecord {
    /// When it happened (else when it was observed), nanoseconds since the Unix epoch.
    pub time_ns: u64,
    /// The event's name: the record's `event_name`, else its `event.name` attribute.
    pub event_name: String,
    /// The record's attributes.
    pub attributes: Attributes,
    /// The attributes of the resource that emitted it.
    pub resource: Arc<Attributes>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lookups_take_the_first_usable_key() {
        let a = Attributes(vec![
            ("a".into(), json!("")),
            ("b".into(), json!({"x": 1})),
            ("c".into(), json!("text")),
        ]);
        assert_eq!(a.first_str(&["a", "b", "c"]), Some("text"));
        assert_eq!(
            a.first_text(&["z", "b", "c"]).as_deref(),
            Some(r#"{"x":1}"#)
        );
        assert!(a.is("c", "text"));
        assert!(!a.is("b", "text"));
    }
}
