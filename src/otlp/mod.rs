//! The OTLP edge: OpenTelemetry's own export protocol, received on the API port, so a harness
//! that already emits GenAI, OpenInference or AI SDK telemetry needs no SDK of ours
//! (`OTEL_EXPORTER_OTLP_ENDPOINT=http://toolview:50051`).
//!
//! OTLP/gRPC's trace and logs services (`grpc.rs`) and OTLP/HTTP's `POST /v1/traces` and
//! `/v1/logs`, protobuf or JSON, plain or gzip (`http.rs`), over one core here: the request
//! read into `ingest`'s records, mapped to events, every session they name checked for the
//! caller's publish right, and the whole request published as one batch (so a retried export
//! is acknowledged as duplicates and appends nothing). Spans whose parent has not arrived wait,
//! bounded, for the export that brings it (`ingest::Hold`): they are checked with their request
//! and published with the one that completes them, or when their wait ends. The OTLP types are
//! the OpenTelemetry project's generated ones (`opentelemetry-proto`), on the same tonic and
//! prost as ours.
//!
//! Files: `mod.rs` (the core), `convert.rs` (the generated types read into records),
//! `held.rs` (what waits: its clock, its releases), `grpc.rs`, `http.rs`, `scan.rs` (a body's
//! entries counted before it is decoded, so what it decodes to is bounded).

mod convert;
mod grpc;
mod held;
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
use parking_lot::Mutex;

pub use grpc::{METHOD_PATHS, services};
pub use http::routes;

use crate::auth::{Access, Authenticator, Right};
use crate::error::Error;
use crate::ingest::{self, Hold, HoldLimits, Mapped};
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
    /// How long and how much spans wait for their ancestors.
    pub hold: HoldLimits,
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
    /// Spans waiting for their ancestors, with the access of the request that sent them.
    hold: Arc<Mutex<Hold<Access>>>,
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
            hold: Arc::new(Mutex::new(Hold::new(limits.hold))),
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
        let spans = convert::spans(request, self.limits.max_attributes);
        // Its own task: a caller that hangs up mid-publish must not drop the spans it took from
        // the hold.
        let this = self.clone();
        let access = access.clone();
        tokio::spawn(async move { this.ingest_spans(&access, spans).await })
            .await
            .map_err(|e| Error::Internal(format!("the OTLP export's task failed: {e}").into()))?
    }

    async fn ingest_spans(
        &self,
        access: &Access,
        spans: Vec<ingest::Span>,
    ) -> Result<Outcome, Error> {
        let batch = self
            .hold
            .lock()
            .take(access.caller(), access.clone(), spans);
        let now = std::time::Instant::now();
        // What waits is checked as it would be published if its wait ran out, so a request
        // refused today is refused now, not dropped later. Without auth everything may be
        // published: the waiting spans are not mapped twice for nothing.
        let checked = match access {
            Access::Open => Ok(()),
            Access::Token(_) => check(access, &ingest::map_spans(&batch.waiting).events),
        };
        let published = match checked {
            Ok(()) => {
                let mapped = ingest::map_spans(&batch.ready);
                self.publish("traces", access, mapped).await
            }
            Err(e) => Err(e),
        };
        let released = match published {
            Ok(_) => self.hold.lock().commit(batch, now),
            Err(_) => self.hold.lock().abort(batch, now),
        };
        self.publish_released(released).await;
        published
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
        let mapped = ingest::map_logs(&convert::log_records(request, self.limits.max_attributes));
        self.publish("logs", access, mapped).await
    }

    fn check_count(&self, count: usize, what: &str) -> Result<(), Error> {
        let max = self.limits.max_records;
        if count > max {
            return Err(Error::TooLarge(
                format!(
                    "{count} {what} in one request, over the limit of {max} (--otlp-max-records): \
                 lower the exporter's batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)"
                )
                .into(),
            ));
        }
        Ok(())
    }

    /// Counts a request's records, checks and publishes its events.
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
        check(access, &events)?;
        if !events.is_empty() {
            self.sessions
                .publish_from_harness(events)
                .await
                .map_err(Error::from)?;
        }
        Ok(Outcome {
            rejected: rejected as i64,
            message: reason
                .map(|r| format!("{rejected} refused; the first: {r}"))
                .unwrap_or_default(),
        })
    }
}

/// `Ok` if `access` may publish into every session of `events` (checked before anything is).
fn check(access: &Access, events: &[crate::domain::ToolEvent]) -> Result<(), Error> {
    let sessions: BTreeSet<_> = events.iter().map(|e| &e.session_id).collect();
    for session in sessions {
        access.require(Right::Publish, session)?;
    }
    Ok(())
}
