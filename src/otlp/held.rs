//! What waits for its ancestors: the clock that ends waits, and the publishing of spans let go
//! without them (by the clock, the byte limit, or a stop).

use std::time::{Duration, Instant};

use super::Otlp;
use crate::auth::Access;
use crate::ingest::{self, Release, Released};
use crate::metrics::{HoldLabels, HoldRelease};

/// How often waits are checked for their end: a span waits at most this much past its window.
const HOLD_TICK: Duration = Duration::from_millis(250);

impl Otlp {
    /// Ends waits as their windows pass; runs until the server stops (the task is aborted).
    pub async fn end_waits(self) {
        if self.limits.hold.window.is_zero() {
            return;
        }
        let mut tick = tokio::time::interval(HOLD_TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let released = self.hold.lock().expire(Instant::now());
            self.publish_released(released).await;
        }
    }

    /// Publishes everything waiting, and holds nothing from now on: called as the server stops,
    /// before publishes are refused.
    pub async fn stop_holding(&self) {
        let released = self.hold.lock().stop();
        self.publish_released(released).await;
    }

    /// Maps and publishes spans let go, each set with the access of the request that sent it;
    /// the exporter has its answer already, so a failure is logged and counted.
    pub(super) async fn publish_released(&self, released: Vec<Released<Access>>) {
        let metrics = self.sessions.metrics();
        for Released { access, spans, why } in released {
            let why = match why {
                Release::Expired => HoldRelease::expired,
                Release::Full => HoldRelease::full,
                Release::Stopped => HoldRelease::stopped,
            };
            metrics
                .otlp_hold_released
                .get_or_create(&HoldLabels { why })
                .inc_by(spans.len() as u64);
            let mapped = ingest::map_spans(&spans);
            if let Err(e) = self.publish("traces", &access, mapped).await {
                tracing::warn!(spans = spans.len(), error = %e, "cannot publish spans that waited for their ancestors");
            }
        }
        let (spans, bytes) = self.hold.lock().held();
        metrics.otlp_held_spans.set(spans as i64);
        metrics.otlp_held_bytes.set(bytes as i64);
    }
}
