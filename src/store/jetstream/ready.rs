//! Whether a publish would succeed now, for health: connected to NATS is not enough (after an
//! outage, or while the stream elects a leader, the connection is up but appends get no
//! answer). The stream's leader answering a stream-info request is: it is the server that takes
//! appends. Probed every [`PROBE_EVERY`] while ready (one small request per replica), every
//! [`PROBE_RETRY`] while not, and at once when the connection drops or comes back.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use tokio::sync::watch;

use super::Inner;

/// Between probes while the stream answers.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// Between probes while it does not: readiness returns within this of the stream's leader.
const PROBE_RETRY: Duration = Duration::from_millis(200);
/// A probe without an answer this soon fails: a leader answers in milliseconds.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// Follows `connected` and the stream's leader into `inner.writable`; ends when the connection
/// is closed for good (the store closes, and aborts it).
pub(super) fn follow(
    inner: Arc<Inner>,
    mut connected: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    let mut probe = jetstream::new(inner.client.clone());
    probe.set_timeout(PROBE_TIMEOUT);
    tokio::spawn(async move {
        loop {
            let up = *connected.borrow_and_update();
            let ready = up && probe.get_stream(&inner.options.stream).await.is_ok();
            let was = inner.writable.send_replace(ready);
            if was != ready {
                tracing::info!(
                    ready,
                    "the JetStream store {}",
                    if ready {
                        "takes appends"
                    } else {
                        "cannot take appends now"
                    }
                );
            }
            let wait = if ready { PROBE_EVERY } else { PROBE_RETRY };
            tokio::select! {
                changed = connected.changed() => if changed.is_err() { return },
                () = tokio::time::sleep(wait) => {}
            }
        }
    })
}
