//! What the service counts, for Prometheus: one [`Metrics`] per server (not a process-global
//! recorder, so a test process can run many servers), encoded in the OpenMetrics text format
//! for `/metrics` on the admin listener. A leaf module: the layers record into it, `app` serves
//! it. Label values come from closed sets (method names the server knows, enums), so no client
//! can grow the number of series.

mod webhook;

use std::fmt;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

pub use webhook::{DeliveryOutcome, WebhookMetrics};

/// The content type of [`Metrics::encode`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A gRPC method and how it ended.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RpcLabels {
    /// `/package.Service/Method`, or `unknown` for a path the server does not serve.
    pub method: String,
    /// The gRPC status code's name (`OK`, `INVALID_ARGUMENT`, …).
    pub code: &'static str,
}

/// A gRPC method.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct MethodLabels {
    /// The full gRPC path (`/toolview.v1.SessionService/Publish`).
    pub method: String,
}

/// What became of a published event.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum PublishResult {
    /// Appended to its session's log.
    appended,
    /// An id the session already had: acknowledged with its first cursor.
    duplicate,
    /// Part of a batch that was refused (lifecycle rules, store failure, shutdown).
    rejected,
}

/// What became of a span or log record sent over OTLP.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum OtlpResult {
    /// A tool call.
    call,
    /// Part of the conversation (an agent or a model span, a prompt).
    conversation,
    /// Describes nothing toolview shows (an HTTP request, a step, …).
    ignored,
    /// Refused: a tool span naming no tool, a span without valid ids.
    rejected,
}

/// The labels of OTLP records.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OtlpLabels {
    /// `traces` or `logs`.
    pub signal: &'static str,
    /// What became of it.
    pub result: OtlpResult,
}

/// Why spans stopped waiting for their ancestors without them.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum HoldRelease {
    /// Their window (`--otlp-hold-ms`) passed.
    expired,
    /// Waiting spans weighed more than `--otlp-hold-mb`.
    full,
    /// The server stopped.
    stopped,
}

/// The labels of spans let go.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HoldLabels {
    /// Why.
    pub why: HoldRelease,
}

/// Why a store append failed.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum StoreFailure {
    /// Another writer appended first (shared stores; the publish is retried).
    conflict,
    /// The store could not write (disk, NATS).
    storage,
    /// The store is closed.
    closed,
    /// A stored record did not check.
    corrupt,
    /// A bug (a panic in the store).
    bug,
}

/// How a subscription started.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum StartKind {
    /// From the session's first event.
    from_beginning,
    /// After a client's cursor.
    after_cursor,
    /// From now on.
    live_only,
}

/// Why a subscriber was sent a `Reset`.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum ResetReason {
    /// Its cursor names another log or an offset the log does not keep.
    stale_cursor,
    /// Retention trimmed the events it was about to read.
    trimmed,
    /// The session's log was replaced (expired and recreated, or lost).
    new_log,
}

/// Why a subscription ended.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum EndReason {
    /// The client went away, or the server ended the stream (its token expired: then the
    /// `Subscribe` RPC ends `UNAUTHENTICATED`).
    client_gone,
    /// The server shut down.
    shutdown,
    /// It stopped reading and fell past the lag limit.
    lagging,
    /// A store error (or a bug).
    error,
}

/// How a permission request was resolved.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum PermissionOutcome {
    /// Someone chose an option.
    selected,
    /// Nobody answered in time.
    expired,
    /// The harness withdrew it.
    withdrawn,
}

/// What became of an answer to a permission request.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum AnswerResult {
    /// It decided the request.
    won,
    /// Another resolution came first (an answer, the expiry or a withdrawal).
    lost,
    /// Refused: no `approve` right, an unknown request or option.
    refused,
}

/// The `outcome` label of permission resolutions.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    /// How the request was resolved.
    pub outcome: PermissionOutcome,
}

/// The `result` label of permission answers.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AnswerLabels {
    /// What became of the answer.
    pub result: AnswerResult,
}

/// The `result` label of publishes.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabels {
    /// How the publish ended.
    pub result: PublishResult,
}

/// The `kind` label of store failures.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FailureLabels {
    /// What failed.
    pub kind: StoreFailure,
}

/// The `target` label of renderings.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TargetLabels {
    /// The rendering target (`view`, `acp`, `ag_ui`, `markdown`, `ansi`).
    pub target: &'static str,
}

/// The `start` label of subscriptions.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StartLabels {
    /// How it started.
    pub start: StartKind,
}

/// The `reason` label of resets.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResetLabels {
    /// Why the subscriber was reset.
    pub reason: ResetReason,
}

/// The `reason` label of ended subscriptions.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct EndLabels {
    /// Why it ended.
    pub reason: EndReason,
}

/// The `code` label of refused requests.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AuthLabels {
    /// `UNAUTHENTICATED` (no, bad or expired token) or `PERMISSION_DENIED` (no grant).
    pub code: &'static str,
}

/// The labels of SIGHUP reloads.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReloadLabels {
    /// What was read again: `token_keys` or `tls_certificate`.
    pub file: &'static str,
    /// `loaded`, or `kept_old` when the file did not load and the old configuration stays.
    pub result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    version: &'static str,
    store: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// Unary calls: 100 µs to about 13 s.
fn rpc_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0001, 2.0, 18))
}

/// Every metric of one server.
pub struct Metrics {
    registry: Registry,
    /// Finished RPCs by method and status code (streams when they end).
    pub rpcs: Family<RpcLabels, Counter>,
    /// Time of unary RPCs, by method (a stream's lifetime is not a latency).
    pub rpc_seconds: HistogramFamily<MethodLabels>,
    /// Published events by result.
    pub published: Family<ResultLabels, Counter>,
    /// Time from enqueueing an append to its durability (the commit, or the NATS ack).
    pub store_append_seconds: Histogram,
    /// Failed store appends, by kind.
    pub store_append_errors: Family<FailureLabels, Counter>,
    /// Appends a shared store's feed reported (this replica's and others', of the sessions it
    /// holds): what a replica reads of the cluster's writes.
    pub store_changes: Counter,
    /// Open subscriptions, by target.
    pub subscribers: Family<TargetLabels, Gauge>,
    /// Subscriptions started, by start point.
    pub subscribe_starts: Family<StartLabels, Counter>,
    /// Resets sent, by reason.
    pub resets: Family<ResetLabels, Counter>,
    /// Subscriptions ended, by reason.
    pub subscriber_ends: Family<EndLabels, Counter>,
    /// Updates handed to subscribers' streams, by target.
    pub updates_sent: Family<TargetLabels, Counter>,
    /// For a subscriber waiting at the head: from the publish that moved the head becoming
    /// durable to its update entering the subscriber's stream.
    pub delivery_lag_seconds: Histogram,
    /// Sessions in memory (set when scraped).
    pub loaded_sessions: Gauge,
    /// Bytes of rendered updates the lanes cache.
    pub lane_cache_bytes: Gauge,
    /// Time to fold and render one event for one lane.
    pub render_seconds: Histogram,
    /// Requests refused by authentication or authorization, by code.
    pub auth_failures: Family<AuthLabels, Counter>,
    /// Reloads on SIGHUP, by file and result (a `kept_old` means a rotation did not happen).
    pub reloads: Family<ReloadLabels, Counter>,
    /// Connections open on the API port (each holds one of `--max-connections` slots).
    pub connections: Gauge,
    /// Connections closed at once because every slot was taken.
    pub connections_refused: Counter,
    /// Permission requests resolved, by outcome.
    pub permission_resolutions: Family<OutcomeLabels, Counter>,
    /// From a permission request to its resolution.
    pub permission_wait_seconds: Histogram,
    /// Answers to permission requests, by result.
    pub permission_answers: Family<AnswerLabels, Counter>,
    /// Spans and log records received over OTLP, by signal and result.
    pub otlp_records: Family<OtlpLabels, Counter>,
    /// Spans waiting for their ancestors (set after each export).
    pub otlp_held_spans: Gauge,
    /// What they weigh, estimated.
    pub otlp_held_bytes: Gauge,
    /// Spans placed without their ancestors, by why.
    pub otlp_hold_released: Family<HoldLabels, Counter>,
    /// Webhook deliveries and their queue.
    pub webhooks: WebhookMetrics,
}

impl Metrics {
    /// Every metric, registered under `toolview_`, with a build-info series naming the version
    /// and the store.
    pub fn new(store: &'static str) -> Self {
        let mut registry = Registry::with_prefix("toolview");
        let build = Family::<BuildLabels, Gauge>::default();
        build
            .get_or_create(&BuildLabels {
                version: env!("CARGO_PKG_VERSION"),
                store,
            })
            .set(1);
        registry.register("build", "The running build (always 1)", build);
        let m = Metrics {
            rpcs: Family::default(),
            rpc_seconds: Family::new_with_constructor(rpc_histogram),
            published: Family::default(),
            // 50 µs to about 3 s: a memory append to a slow disk's fsync or a NATS round trip.
            store_append_seconds: Histogram::new(exponential_buckets(0.00005, 2.0, 17)),
            store_append_errors: Family::default(),
            store_changes: Counter::default(),
            subscribers: Family::default(),
            subscribe_starts: Family::default(),
            resets: Family::default(),
            subscriber_ends: Family::default(),
            updates_sent: Family::default(),
            delivery_lag_seconds: Histogram::new(exponential_buckets(0.0001, 2.0, 17)),
            loaded_sessions: Gauge::default(),
            lane_cache_bytes: Gauge::default(),
            // 2 µs to about 0.26 s: a short event to a large diff.
            render_seconds: Histogram::new(exponential_buckets(0.000002, 2.0, 18)),
            auth_failures: Family::default(),
            reloads: Family::default(),
            connections: Gauge::default(),
            connections_refused: Counter::default(),
            permission_resolutions: Family::default(),
            // 0.1 s to about 2 h: a click to a request left to expire.
            permission_wait_seconds: Histogram::new(exponential_buckets(0.1, 2.0, 17)),
            permission_answers: Family::default(),
            otlp_records: Family::default(),
            otlp_held_spans: Gauge::default(),
            otlp_held_bytes: Gauge::default(),
            otlp_hold_released: Family::default(),
            webhooks: WebhookMetrics::default(),
            registry: Registry::default(),
        };
        m.register_calls(&mut registry);
        m.register_subscriptions(&mut registry);
        m.register_edge(&mut registry);
        m.register_permissions(&mut registry);
        m.webhooks.register(&mut registry);
        Metrics { registry, ..m }
    }

    /// RPCs, publishes and the store.
    fn register_calls(&self, r: &mut Registry) {
        r.register("grpc_requests", "Finished gRPC calls", self.rpcs.clone());
        r.register_with_unit(
            "grpc_request_duration",
            "Time of unary gRPC calls",
            Unit::Seconds,
            self.rpc_seconds.clone(),
        );
        r.register(
            "published_events",
            "Published events",
            self.published.clone(),
        );
        r.register(
            "otlp_records",
            "Spans and log records received over OTLP",
            self.otlp_records.clone(),
        );
        r.register(
            "otlp_held_spans",
            "Spans waiting for their ancestors",
            self.otlp_held_spans.clone(),
        );
        r.register_with_unit(
            "otlp_held",
            "What spans waiting for their ancestors weigh, estimated",
            Unit::Bytes,
            self.otlp_held_bytes.clone(),
        );
        r.register(
            "otlp_hold_released",
            "Spans placed without their ancestors",
            self.otlp_hold_released.clone(),
        );
        r.register_with_unit(
            "store_append_duration",
            "Time for an append to become durable",
            Unit::Seconds,
            self.store_append_seconds.clone(),
        );
        r.register(
            "store_append_errors",
            "Failed store appends",
            self.store_append_errors.clone(),
        );
        r.register(
            "store_changes",
            "Appends a shared store reported, for the sessions this replica holds",
            self.store_changes.clone(),
        );
    }

    /// Subscriptions, their updates and rendering.
    fn register_subscriptions(&self, r: &mut Registry) {
        r.register(
            "subscribers",
            "Open subscriptions",
            self.subscribers.clone(),
        );
        r.register(
            "subscribe_starts",
            "Subscriptions started",
            self.subscribe_starts.clone(),
        );
        r.register("resets", "Resets sent to subscribers", self.resets.clone());
        r.register(
            "subscriber_ends",
            "Subscriptions ended",
            self.subscriber_ends.clone(),
        );
        r.register(
            "updates_sent",
            "Updates handed to subscribers",
            self.updates_sent.clone(),
        );
        r.register_with_unit(
            "delivery_lag",
            "From a durable publish to its update entering a live subscriber's stream",
            Unit::Seconds,
            self.delivery_lag_seconds.clone(),
        );
        r.register(
            "loaded_sessions",
            "Sessions in memory",
            self.loaded_sessions.clone(),
        );
        r.register_with_unit(
            "lane_cache",
            "Rendered updates cached by lanes",
            Unit::Bytes,
            self.lane_cache_bytes.clone(),
        );
        r.register_with_unit(
            "render_duration",
            "Time to fold and render one event for one lane",
            Unit::Seconds,
            self.render_seconds.clone(),
        );
    }

    /// Auth, connections and reloads.
    fn register_edge(&self, r: &mut Registry) {
        r.register(
            "auth_failures",
            "Requests refused by authentication or authorization",
            self.auth_failures.clone(),
        );
        r.register(
            "connections",
            "Connections open on the API port",
            self.connections.clone(),
        );
        r.register(
            "connections_refused",
            "Connections closed at once: every --max-connections slot was taken",
            self.connections_refused.clone(),
        );
        r.register(
            "reloads",
            "Reloads of keys and certificates on SIGHUP, by file and result",
            self.reloads.clone(),
        );
    }

    /// Permission requests: resolutions, waits and answers.
    fn register_permissions(&self, r: &mut Registry) {
        r.register(
            "permission_resolutions",
            "Permission requests resolved, by outcome",
            self.permission_resolutions.clone(),
        );
        r.register_with_unit(
            "permission_wait",
            "From a permission request to its resolution",
            Unit::Seconds,
            self.permission_wait_seconds.clone(),
        );
        r.register(
            "permission_answers",
            "Answers to permission requests, by result (won, lost, refused)",
            self.permission_answers.clone(),
        );
    }

    /// Counts an answer to a permission request.
    pub fn permission_answer(&self, result: AnswerResult) {
        self.permission_answers
            .get_or_create(&AnswerLabels { result })
            .inc();
    }

    /// The OpenMetrics text of every metric ([`CONTENT_TYPE`]).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

impl Default for Metrics {
    /// Metrics nobody serves (tests and tools that build a session layer of their own).
    fn default() -> Self {
        Metrics::new("none")
    }
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Metrics")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_every_family_with_its_prefix() {
        let m = Metrics::new("memory");
        m.published
            .get_or_create(&ResultLabels {
                result: PublishResult::appended,
            })
            .inc();
        m.render_seconds.observe(0.00001);
        let text = m.encode();
        assert!(text.contains("toolview_published_events_total{result=\"appended\"} 1"));
        assert!(text.contains("toolview_build{version=\""));
        assert!(text.contains("toolview_render_duration_seconds_count 1"));
        assert!(text.ends_with("# EOF\n"));
    }
}
