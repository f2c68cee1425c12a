//! The webhooks' metrics: deliveries by outcome, retries, and the queue.

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::{Registry, Unit};

/// What became of a delivery.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[expect(
    non_camel_case_types,
    reason = "Prometheus label values are written as the variant names"
)]
pub enum DeliveryOutcome {
    /// The receiver answered 2xx.
    delivered,
    /// Not sent: the session did not stay idle (an `idle` notice after a delay).
    superseded,
    /// Given up: still failing after `--webhook-give-up-after-secs`.
    expired,
    /// Not queued: the queue held `--webhook-queue-max` deliveries.
    dropped,
}

/// The `outcome` label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeliveryLabels {
    /// What became of it.
    pub outcome: DeliveryOutcome,
}

/// The webhooks' series.
#[derive(Default)]
pub struct WebhookMetrics {
    /// Deliveries by outcome.
    pub deliveries: Family<DeliveryLabels, Counter>,
    /// Attempts that failed (an answer other than 2xx, a timeout, no connection): each is
    /// tried again later.
    pub retries: Counter,
    /// Attempts in flight on this replica.
    pub sending: Gauge,
    /// Deliveries queued (set by the sender every few seconds).
    pub queued: Gauge,
    /// Age of the oldest queued delivery, in seconds (0 when none).
    pub oldest_seconds: Gauge,
}

impl WebhookMetrics {
    /// Counts a delivery's outcome.
    pub fn outcome(&self, outcome: DeliveryOutcome) {
        self.deliveries
            .get_or_create(&DeliveryLabels { outcome })
            .inc();
    }

    pub(super) fn register(&self, r: &mut Registry) {
        r.register(
            "webhook_deliveries",
            "Webhook deliveries, by outcome",
            self.deliveries.clone(),
        );
        r.register(
            "webhook_retries",
            "Webhook attempts that failed and are tried again",
            self.retries.clone(),
        );
        r.register(
            "webhook_sending",
            "Webhook attempts in flight on this replica",
            self.sending.clone(),
        );
        r.register(
            "webhook_queued",
            "Webhook deliveries queued",
            self.queued.clone(),
        );
        r.register_with_unit(
            "webhook_oldest",
            "Age of the oldest queued webhook delivery",
            Unit::Seconds,
            self.oldest_seconds.clone(),
        );
    }
}
