//! The `--otlp-*` flags of `toolview serve`: the OpenTelemetry receiver's limits.

use std::time::Duration;

use clap::Args;

use crate::ingest::HoldLimits;
use crate::otlp::Limits;

/// Spans (or log records) one OTLP request may carry: four times the OpenTelemetry SDKs'
/// default export batch (512, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`), so every default exporter fits
/// while one request stays a bounded publish.
pub const DEFAULT_OTLP_MAX_RECORDS: usize = 2048;

/// Attributes kept per OTLP resource, span, event or log record (and entries per array or
/// key-value list value): twice the SDKs' default attribute count limit (128,
/// `OTEL_ATTRIBUTE_COUNT_LIMIT`), so no default export loses one, while a body of a million
/// empty attributes costs a bounded mapping.
pub const DEFAULT_OTLP_MAX_ATTRIBUTES: usize = 256;

/// Entries of repeated fields (spans and log records, attributes, events, links, array and
/// key-value list values) one OTLP request may carry: 128 per record at the records limit
/// (2,048 × 128), so full batches of SDK-default spans fit, while what a body decodes to stays
/// bounded (about 64 bytes an entry) whatever its bytes.
pub const DEFAULT_OTLP_MAX_ENTRIES: usize = 262_144;

/// How long spans wait for an ancestor a later export brings: two of the SDKs' default batch
/// intervals (5 s, `OTEL_BSP_SCHEDULE_DELAY`), so a subagent exported one batch before the tool
/// span that ran it is still placed under it, while a long run's children show at most this late.
pub const DEFAULT_OTLP_HOLD_MS: u64 = 10_000;

/// What waiting spans may weigh: at about 2 KiB a span, some 16,000 spans — several busy
/// harnesses' exports over the window.
pub const DEFAULT_OTLP_HOLD_MB: usize = 32;

/// The OpenTelemetry receiver's settings.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct OtlpConfig {
    /// Turn off the OTLP receiver (OTLP/gRPC's trace and logs services, OTLP/HTTP's
    /// `/v1/traces` and `/v1/logs`): telemetry sent to the port is then refused as unknown.
    #[arg(long = "disable-otlp", env = "TOOLVIEW_DISABLE_OTLP")]
    pub disable: bool,

    /// Spans or log records one OTLP request may carry; more is RESOURCE_EXHAUSTED (HTTP 413).
    #[arg(long = "otlp-max-records", env = "TOOLVIEW_OTLP_MAX_RECORDS", default_value_t = DEFAULT_OTLP_MAX_RECORDS)]
    pub max_records: usize,

    /// Attributes kept per OTLP resource, span, event or log record, and entries per array or
    /// key-value list value; the rest are dropped unread.
    #[arg(long = "otlp-max-attributes", env = "TOOLVIEW_OTLP_MAX_ATTRIBUTES", default_value_t = DEFAULT_OTLP_MAX_ATTRIBUTES)]
    pub max_attributes: usize,

    /// Entries of repeated fields (records, attributes, events, links, values) one OTLP request
    /// may carry, counted before it is decoded; more is RESOURCE_EXHAUSTED (HTTP 413).
    #[arg(long = "otlp-max-entries", env = "TOOLVIEW_OTLP_MAX_ENTRIES", default_value_t = DEFAULT_OTLP_MAX_ENTRIES)]
    pub max_entries: usize,

    /// How long spans whose parent has not arrived wait for a later export to bring it (then
    /// they are placed as they are); 0 places every export on its own.
    #[arg(long = "otlp-hold-ms", env = "TOOLVIEW_OTLP_HOLD_MS", default_value_t = DEFAULT_OTLP_HOLD_MS)]
    pub hold_ms: u64,

    /// MiB that waiting spans may weigh; past it, the longest wait ends early.
    #[arg(long = "otlp-hold-mb", env = "TOOLVIEW_OTLP_HOLD_MB", default_value_t = DEFAULT_OTLP_HOLD_MB)]
    pub hold_mb: usize,
}

impl OtlpConfig {
    /// The receiver's limits; a request body at most `max_body` bytes.
    pub fn limits(&self, max_body: usize) -> Limits {
        Limits {
            max_records: self.max_records.max(1),
            max_attributes: self.max_attributes.max(1),
            max_entries: self.max_entries.max(1),
            max_body,
            hold: HoldLimits {
                window: Duration::from_millis(self.hold_ms),
                max_bytes: self.hold_mb.saturating_mul(1 << 20),
            },
        }
    }
}

impl Default for OtlpConfig {
    fn default() -> Self {
        OtlpConfig {
            disable: false,
            max_records: DEFAULT_OTLP_MAX_RECORDS,
            max_attributes: DEFAULT_OTLP_MAX_ATTRIBUTES,
            max_entries: DEFAULT_OTLP_MAX_ENTRIES,
            hold_ms: DEFAULT_OTLP_HOLD_MS,
            hold_mb: DEFAULT_OTLP_HOLD_MB,
        }
    }
}
