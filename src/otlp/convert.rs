//! OTLP's generated types read into `ingest`'s plain records, once, at the edge: attributes and
//! values cut to `--otlp-max-attributes`, ids as hex, a failed span's message found.

use std::sync::Arc;

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::SpanFlags;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::Value;

use crate::ingest::{Attributes, LogRecord, Span};

/// The span flags saying the parent's remoteness is known, and that it is remote.
const REMOTE: u32 =
    SpanFlags::ContextHasIsRemoteMask as u32 | SpanFlags::ContextIsRemoteMask as u32;

/// A trace export's spans, each with its resource's attributes.
pub(super) fn spans(request: ExportTraceServiceRequest, max: usize) -> Vec<Span> {
    let mut out = Vec::new();
    for resource_spans in request.resource_spans {
        let resource = resource(resource_spans.resource, max);
        for span in resource_spans.scope_spans.into_iter().flat_map(|s| s.spans) {
            let error = span
                .status
                .as_ref()
                .filter(|s| s.code == StatusCode::Error as i32)
                .map(|s| {
                    let exception = span.events.iter().find(|e| e.name == "exception");
                    let message = exception.and_then(|e| {
                        attributes(e.attributes.clone(), max)
                            .first_str(&["exception.message"])
                            .map(str::to_owned)
                    });
                    match (s.message.is_empty(), message) {
                        (false, _) => s.message.clone(),
                        (true, Some(m)) => m,
                        (true, None) => String::new(),
                    }
                });
            out.push(Span {
                trace_id: hex(&span.trace_id),
                span_id: hex(&span.span_id),
                parent_span_id: hex(&span.parent_span_id),
                parent_remote: span.flags & REMOTE == REMOTE,
                name: span.name,
                start_ns: span.start_time_unix_nano,
                end_ns: span.end_time_unix_nano,
                attributes: attributes(span.attributes, max),
                resource: resource.clone(),
                error,
            });
        }
    }
    out
}

/// A logs export's records, each with its resource's attributes.
pub(super) fn log_records(request: ExportLogsServiceRequest, max: usize) -> Vec<LogRecord> {
    let mut out = Vec::new();
    for resource_logs in request.resource_logs {
        let resource = resource(resource_logs.resource, max);
        for record in resource_logs
            .scope_logs
            .into_iter()
            .flat_map(|s| s.log_records)
        {
            let attributes = attributes(record.attributes, max);
            let event_name = match record.event_name.is_empty() {
                false => record.event_name,
                true => attributes
                    .first_str(&["event.name"])
                    .unwrap_or_default()
                    .to_owned(),
            };
            let time_ns = match record.time_unix_nano {
                0 => record.observed_time_unix_nano,
                t => t,
            };
            out.push(LogRecord {
                time_ns,
                event_name,
                attributes,
                resource: resource.clone(),
            });
        }
    }
    out
}

fn resource(resource: Option<Resource>, max: usize) -> Arc<Attributes> {
    Arc::new(attributes(
        resource.map(|r| r.attributes).unwrap_or_default(),
        max,
    ))
}

/// The first `max` attributes (`--otlp-max-attributes`); the rest are dropped unread, as an
/// SDK drops those past its attribute count limit, so every later lookup is O(max).
fn attributes(pairs: Vec<KeyValue>, max: usize) -> Attributes {
    Attributes(
        pairs
            .into_iter()
            .take(max)
            .map(|kv| {
                (
                    kv.key,
                    kv.value.map(|v| json(v, max)).unwrap_or(Value::Null),
                )
            })
            .collect(),
    )
}

/// An `AnyValue` as JSON, arrays and key-value lists cut to their first `max` entries. Its depth
/// is bounded by the decoders' recursion limits (prost's and serde_json's), so this recursion is
/// too.
fn json(value: AnyValue, max: usize) -> Value {
    use any_value::Value as V;
    match value.value {
        None => Value::Null,
        Some(V::StringValue(s)) => Value::String(s),
        Some(V::BoolValue(b)) => Value::Bool(b),
        Some(V::IntValue(i)) => Value::from(i),
        Some(V::DoubleValue(d)) => Value::from(d),
        Some(V::BytesValue(b)) => {
            use base64::Engine as _;
            Value::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        Some(V::ArrayValue(a)) => Value::Array(
            a.values
                .into_iter()
                .take(max)
                .map(|v| json(v, max))
                .collect(),
        ),
        Some(V::KvlistValue(kv)) => {
            Value::Object(attributes(kv.values, max).0.into_iter().collect())
        }
        Some(V::StringValueStrindex(_)) => Value::Null,
    }
}

/// Bytes as lowercase hex digits (a table, not `write!` per byte: three ids per span).
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}
