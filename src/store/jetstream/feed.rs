//! The replica's feed: one ordered consumer over every session's subject, whatever the number of
//! subscribers, reporting appends to the session layer. It carries headers only
//! (the server sends no payloads, this replica decodes none): a session's index catches up from
//! the stream when the session is next read. The ordered consumer itself repairs gaps in the
//! stream sequence (it is recreated from the last sequence it delivered).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::consumer::DeliverPolicy;
use async_nats::jetstream::consumer::pull::OrderedConfig;
use futures_util::FutureExt as _;
use tokio::sync::mpsc;
use tokio_stream::StreamExt as _;

use super::load::{EPOCH, OFFSET};
use super::{Inner, subject};
use crate::domain::Epoch;
use crate::store::{Change, StoreError};

/// After the consumer fails (the servers are away), wait this long before making it again.
const RESTART_WAIT: Duration = Duration::from_secs(1);

/// Starts following the stream from its next message; the task ends when the session layer
/// drops its end of `changes`, or when the store closes (it is aborted then).
pub(super) async fn follow(
    inner: Arc<Inner>,
    changes: mpsc::Sender<Change>,
) -> Result<tokio::task::JoinHandle<()>, StoreError> {
    let info = inner
        .stream
        .get_info()
        .await
        .map_err(|e| StoreError::Storage(format!("NATS: stream info: {e}")))?;
    let start = info.state.last_sequence + 1;
    Ok(tokio::spawn(async move {
        match AssertUnwindSafe(run(inner, changes, start))
            .catch_unwind()
            .await
        {
            Ok(()) => {}
            Err(panic) => {
                // Logged by from_panic; replicas stop learning of others' appends, so say so.
                let _ = StoreError::from_panic(panic, "the JetStream feed");
                tracing::error!(
                    "the JetStream feed stopped: live updates from other replicas stop"
                );
            }
        }
    }))
}

async fn run(inner: Arc<Inner>, changes: mpsc::Sender<Change>, mut next: u64) {
    let filter = subject::all(&inner.options.subject_prefix);
    loop {
        let config = OrderedConfig {
            filter_subject: filter.clone(),
            headers_only: true,
            deliver_policy: DeliverPolicy::ByStartSequence {
                start_sequence: next,
            },
            ..OrderedConfig::default()
        };
        let messages = match inner.stream.create_consumer(config).await {
            Ok(consumer) => consumer.messages().await,
            Err(e) => {
                tracing::warn!(error = %e, "cannot follow the stream; trying again");
                tokio::time::sleep(RESTART_WAIT).await;
                continue;
            }
        };
        let mut messages = match messages {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, "cannot follow the stream; trying again");
                tokio::time::sleep(RESTART_WAIT).await;
                continue;
            }
        };
        while let Some(message) = messages.next().await {
            let message = match message {
                Ok(m) => m,
                Err(e) => {
                    tracing::warn!(error = %e, "the stream feed failed; following again");
                    break;
                }
            };
            let Ok(seq) = message.info().map(|i| i.stream_sequence) else {
                continue;
            };
            next = seq + 1;
            if let Some(change) = inner.observe(seq, &message.message)
                && changes.send(change).await.is_err()
            {
                return;
            }
        }
        if changes.is_closed() {
            return;
        }
        tokio::time::sleep(RESTART_WAIT).await;
    }
}

impl Inner {
    /// Takes note of a stored message: what changed. Every message is reported, this replica's
    /// own too: the session layer moves a head only forward, and a session's index may have
    /// read the message already (a read catches up to the stream's end) without its head
    /// knowing — skipping those left subscribers waiting for a head that had moved.
    fn observe(&self, seq: u64, message: &async_nats::Message) -> Option<Change> {
        let session = subject::session(&self.options.subject_prefix, &message.subject)?;
        let header = |name: &str| message.headers.as_ref()?.get(name).map(|v| v.as_str());
        let (Some(offset), Some(epoch)) = (
            header(OFFSET).and_then(|o| o.parse::<u64>().ok()),
            header(EPOCH).and_then(|e| Epoch::new(e).ok()),
        ) else {
            tracing::warn!(subject = %message.subject, seq, "a message in the stream without toolview's headers");
            return None;
        };
        Some(Change {
            session,
            epoch,
            head: offset,
            first: None,
        })
    }
}
