//! The OTLP edge: OpenTelemetry's own export protocol, received on the API port, so a harness
//! that already emits GenAI, OpenInference or AI SDK telemetry needs no SDK of ours
//! (`OTEL_EXPORTER_OTLP_ENDPOINT=http://toolview:50051`).
//!
//! OTLP/gRPC's trace and logs services (`grpc.rs`) and OTLP/HTTP's `POST /v1/traces` and
//! `/v1/logs`, protobuf or JSON, plain or gzip (`http.rs`), over one core here: the request
//! read into `ingest`'s records, mapped to events, every session they name checked for the
//! caller's publish right, and the whole request published as one batch (so a retried export
//! is acknowledged as duplicates and appends nothing). The OTLP types are the OpenTelemetry
//! project's generated ones (`opentelemetry-proto`), on the same tonic and prost as ours.
//!
//! Files: `mod.rs` (the core and the record conversion), `grpc.rs`, `http.rs`, `scan.rs` (a
//! body's entries counted before it is decoded, so what it decodes to is bounded).

mod grpc;
mod http;
mod scan;

use std::collections::BTreeSet;
use std::sync::Arc;

use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsPartialSuccess, ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::Value;

pub use grpc::{METHOD_PATHS, services};
pub use http::routes;

use crate::auth::{Access, Authenticator, Right};
use crate::error::Error;
use crate::ingest::{self, Attributes, LogRecord, Mapped, Span};
use crate::metrics::{OtlpLabels, OtlpResult};
use crate::session::Sessions;

/// The receiver's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Spans (or log records) one request may carry; more is RESOURCE_EXHAUSTED (HTTP 413).
    pub max_records: usize,
    /// The largest request body, compressed and decompressed alike.
    pub max_body: usize,
    /// Attributes kept per resource, span, event or log record, and entries per array or
    /// key-value list value; the rest are dropped unread.
    pub max_attributes: usize,
    /// Entries of repeated fields (records, attributes, events, links, values) one request may
    /// carry, counted before it is decoded; more is RESOURCE_EXHAUSTED (HTTP 413).
    pub max_entries: usize,
}

impl Limits {
    /// What a body is counted against before it is decoded.
    pub fn budget(&self) -> scan::Budget {
        scan::Budget {
            max_records: self.max_records,
            max_entries: self.max_entries,
        }
    }
}

/// The OTLP receiver: what both transports call.
#[derive(Clone)]
pub struct Otlp {
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    limits: Limits,
}

/// What became of an accepted request: OTLP's partial success.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Records refused (a tool span naming no tool, a span without valid ids).
    pub rejected: i64,
    /// Why, for the exporter's log; empty when nothing was refused.
    pub message: String,
}

/// OTLP's partial success: set only when something was refused.
fn partial<T>(outcome: Outcome, make: impl FnOnce(i64, String) -> T) -> Option<T> {
    (outcome.rejected > 0 || !outcome.message.is_empty())
        .then(|| make(outcome.rejected, outcome.message))
}

/// A trace export's answer, over either transport.
impl From<Outcome> for ExportTraceServiceResponse {
    fn from(outcome: Outcome) -> Self {
        ExportTraceServiceResponse {
            partial_success: partial(outcome, |rejected_spans, error_message| {
                ExportTracePartialSuccess {
                    rejected_spans,
                    error_message,
                }
            }),
        }
    }
}

/// A logs export's answer, over either transport.
impl From<Outcome> for ExportLogsServiceResponse {
    fn from(outcome: Outcome) -> Self {
        ExportLogsServiceResponse {
            partial_success: partial(outcome, |rejected_log_records, error_message| {
                ExportLogsPartialSuccess {
                    rejected_log_records,
                    error_message,
                }
            }),
        }
    }
}

impl Otlp {
    /// A receiver publishing into `sessions`, checking callers with `auth`.
    pub fn new(sessions: Arc<Sessions>, auth: Arc<Authenticator>, limits: Limits) -> Self {
        Otlp {
            sessions,
            auth,
            limits,
        }
    }

    /// Ingests a trace export.
    pub async fn traces(
        &self,
        access: &Access,
        request: ExportTraceServiceRequest,
    ) -> Result<Outcome, Error> {
        let count: usize = request
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .map(|s| s.spans.len())
            .sum();
        self.check_count(count, "spans")?;
        let mapped = ingest::map_spans(&spans(request, self.limits.max_attributes));
        self.publish("traces", access, mapped).await
    }

    /// Ingests a logs export.
    pub async fn logs(
        &self,
        access: &Access,
        request: ExportLogsServiceRequest,
    ) -> Result<Outcome, Error> {
        let count: usize = request
            .resource_logs
            .iter()
            .flat_map(|r| &r.scope_logs)
            .map(|s| s.log_records.len())
            .sum();
        self.check_count(count, "log records")?;
        let mapped = ingest::map_logs(&log_records(request, self.limits.max_attributes));
        self.publish("logs", access, mapped).await
    }

    fn check_count(&self, count: usize, what: &str) -> Result<(), Error> {
        let max = self.limits.max_records;
        if count > max {
            return Err(Error::TooLarge(format!(
                "{count} {what} in one request, over the limit of {max} (--otlp-max-records): \
                 lower the exporter's batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)"
            )));
        }
        Ok(())
    }

    async fn publish(
        &self,
        signal: &'static str,
        access: &Access,
        mapped: Mapped,
    ) -> Result<Outcome, Error> {
        let Mapped {
            events,
            calls,
            conversation,
            ignored,
            rejected,
            reason,
        } = mapped;
        let metrics = &self.sessions.metrics().otlp_records;
        for (result, n) in [
            (OtlpResult::call, calls),
            (OtlpResult::conversation, conversation),
            (OtlpResult::ignored, ignored),
            (OtlpResult::rejected, rejected),
        ] {
            if n > 0 {
                metrics
                    .get_or_create(&OtlpLabels { signal, result })
                    .inc_by(n as u64);
            }
        }
        // Every session of the request, before anything is published.
        let sessions: BTreeSet<_> = events.iter().map(|e| &e.session_id).collect();
        for session in sessions {
            access.require(Right::Publish, session)?;
        }
        if !events.is_empty() {
            self.sessions.publish(events).await.map_err(Error::from)?;
        }
        Ok(Outcome {
            rejected: rejected as i64,
            message: reason
                .map(|r| format!("{rejected} refused; the first: {r}"))
                .unwrap_or_default(),
        })
    }
}

/// A trace export's spans, each with its resource's attributes.
fn spans(request: ExportTraceServiceRequest, max: usize) -> Vec<Span> {
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
fn log_records(request: ExportLogsServiceRequest, max: usize) -> Vec<LogRecord> {
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
