//! Ingestion of the telemetry harnesses already emit: OpenTelemetry spans and log records,
//! read by the OTLP edge (`crate::otlp`) into the plain records here ([`Span`], [`LogRecord`]),
//! mapped to the events any harness publishes (`map.rs`, `logs.rs`). Pure: no I/O, no clock, no
//! generated types, so every rule is a unit test.
//!
//! The emitters disagree on names (GenAI semantic conventions, OpenInference, the AI SDK's
//! legacy spans, Pydantic AI's older instrumentation, Claude Code's log events), so the mapping
//! matches on attributes, in the order `docs/opentelemetry.md` tabulates, not on span names.
//!
//! Files: `span.rs` (the records and their attributes), `map.rs` (spans → events: calls,
//! messages, turns, nesting, ordering), `messages.rs` (the conversation in GenAI and
//! OpenInference attributes), `session.rs` (the session a span belongs to), `envelope.rs`
//! (framework serializations around arguments and results, taken off), `hold.rs` (spans held,
//! bounded, until the ancestors a later export brings arrive), `logs.rs` (log records → events).

mod envelope;
mod hold;
mod logs;
mod map;
mod messages;
mod session;
mod span;

pub use hold::{Batch, Caller, Hold, HoldLimits, Release, Released};
pub use logs::map_logs;
pub use map::{Mapped, map_spans};
pub use span::{Attributes, LogRecord, Span};
