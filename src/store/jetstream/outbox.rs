//! The webhooks' queue on JetStream: a work-queue stream (`<stream>_WEBHOOKS`) and one durable
//! pull consumer every replica pulls from, so each delivery is held by one replica at a time.
//! A replica settles a delivery by acknowledging it (sent, or given up) or by a delayed
//! negative acknowledgement (try again later); one that dies holding it lets the ack wait run
//! out, and JetStream hands it to another. Queueing names the delivery's id as the message id,
//! so a delivery queued twice within the duplicate window is kept once. The answer links' key
//! is in a KV bucket (`<stream>_KEYS`), made by whichever replica comes first.

use std::time::Duration;

use async_nats::HeaderMap;
use async_nats::jetstream::{self, AckKind, consumer, kv, stream};
use futures_util::StreamExt as _;

use super::JetStreamStore;
use crate::store::StoreError;
use crate::store::outbox::{Claimed, Delivery, Depth, Enqueued, Outbox, Ticket, new_link_key};

const CONSUMER: &str = "deliver";
const LINK_KEY: &str = "link";
/// Deliveries one replica holds at most: what the senders take at a time.
const MAX_ACK_PENDING: i64 = 256;

fn storage(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(format!("NATS: the webhooks' queue: {what}: {e}"))
}

/// The queue, for one replica.
pub(super) struct JetStreamOutbox {
    js: jetstream::Context,
    subject: String,
    stream: stream::Stream,
    consumer: consumer::PullConsumer,
    keys: kv::Store,
}

/// Pause between attempts to make the queue while the cluster is still forming.
const OPEN_RETRY: Duration = Duration::from_millis(500);

impl JetStreamStore {
    /// The queue, made or found; while JetStream cannot make it yet (a cluster electing its
    /// leaders, peers still joining for the copies), tried again up to `--nats-startup-wait-ms`.
    pub(super) async fn open_outbox(
        &self,
        max: usize,
        lease: Duration,
    ) -> Result<JetStreamOutbox, StoreError> {
        let deadline = tokio::time::Instant::now() + self.inner.options.startup_wait;
        loop {
            match self.try_open_outbox(max, lease).await {
                Err(e) if tokio::time::Instant::now() < deadline => {
                    tracing::warn!(error = %e, "waiting for JetStream to make the webhooks' queue");
                    tokio::time::sleep(OPEN_RETRY).await;
                }
                done => return done,
            }
        }
    }

    async fn try_open_outbox(
        &self,
        max: usize,
        lease: Duration,
    ) -> Result<JetStreamOutbox, StoreError> {
        let js = self.inner.js.clone();
        let options = &self.inner.options;
        let name = format!("{}_WEBHOOKS", options.stream);
        // Outside the logs' `<prefix>.>`, as the feed's `<prefix>-live` is.
        let subject = format!("{}-webhooks", options.subject_prefix);
        let stream = js
            .get_or_create_stream(stream::Config {
                name: name.clone(),
                description: Some("toolview's webhook deliveries, until sent".into()),
                subjects: vec![subject.clone()],
                retention: stream::RetentionPolicy::WorkQueue,
                max_messages: i64::try_from(max).unwrap_or(i64::MAX),
                discard: stream::DiscardPolicy::New,
                num_replicas: options.replicas.max(1),
                storage: stream::StorageType::File,
                duplicate_window: options.duplicate_window,
                ..Default::default()
            })
            .await
            .map_err(|e| storage(&name, e))?;
        let consumer = stream
            .get_or_create_consumer(
                CONSUMER,
                consumer::pull::Config {
                    durable_name: Some(CONSUMER.into()),
                    ack_policy: consumer::AckPolicy::Explicit,
                    ack_wait: lease,
                    max_ack_pending: MAX_ACK_PENDING,
                    ..Default::default()
                },
            )
            .await
            .map_err(|e| storage("the consumer", e))?;
        let bucket = format!("{}_KEYS", options.stream);
        let keys = match js.get_key_value(&bucket).await {
            Ok(kv) => kv,
            Err(_) => js
                .create_key_value(kv::Config {
                    bucket: bucket.clone(),
                    description: "toolview's keys: the answer links' signing key".into(),
                    history: 1,
                    num_replicas: options.replicas.max(1),
                    storage: stream::StorageType::File,
                    ..Default::default()
                })
                .await
                .map_err(|e| storage(&bucket, e))?,
        };
        if consumer.cached_info().config.ack_wait != lease {
            tracing::warn!(
                ack_wait = ?consumer.cached_info().config.ack_wait,
                "the webhooks' consumer keeps the lease it was made with"
            );
        }
        Ok(JetStreamOutbox {
            js,
            subject,
            stream,
            consumer,
            keys,
        })
    }
}

#[async_trait::async_trait]
impl Outbox for JetStreamOutbox {
    async fn enqueue(&self, delivery: Delivery) -> Result<Enqueued, StoreError> {
        let body = serde_json::to_vec(&delivery).map_err(|e| storage("encode", e))?;
        let mut headers = HeaderMap::new();
        headers.insert(async_nats::header::NATS_MESSAGE_ID, delivery.id.as_str());
        let sent = self
            .js
            .publish_with_headers(self.subject.clone(), headers, body.into())
            .await
            .map_err(|e| storage("queue", e))?;
        match sent.await {
            Ok(ack) if ack.duplicate => Ok(Enqueued::Duplicate),
            Ok(_) => Ok(Enqueued::Added),
            // `discard: new` at `max_messages`: JetStream says the stream is full.
            Err(e) if e.to_string().contains("maximum messages") => Ok(Enqueued::Full),
            Err(e) => Err(storage("queue", e)),
        }
    }

    async fn claim(&self, wait: Duration) -> Result<Option<Claimed>, StoreError> {
        let mut batch = self
            .consumer
            .fetch()
            .max_messages(1)
            .expires(wait.max(Duration::from_millis(100)))
            .messages()
            .await
            .map_err(|e| storage("fetch", e))?;
        let Some(message) = batch.next().await else {
            return Ok(None);
        };
        let message = message.map_err(|e| storage("fetch", e))?;
        let delivery: Delivery = match serde_json::from_slice(&message.payload) {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(%e, "a queued delivery does not read; dropped");
                let _ = message.ack_with(AckKind::Term).await;
                return Ok(None);
            }
        };
        let delivered = message.info().map(|i| i.delivered).unwrap_or(1);
        // A delivery due later was handed out once early and put back (`again`, not attempted).
        let early = u32::from(delivery.due_ms > delivery.created_ms);
        let attempts = u32::try_from(delivered - 1)
            .unwrap_or(0)
            .saturating_sub(early);
        Ok(Some(Claimed {
            delivery,
            attempts,
            ticket: Box::new(JetStreamTicket { message }),
        }))
    }

    async fn depth(&self) -> Result<Depth, StoreError> {
        let mut stream = self.stream.clone();
        let info = stream.info().await.map_err(|e| storage("info", e))?;
        let queued = info.state.messages;
        let oldest_ms = (queued > 0).then(|| {
            u64::try_from(info.state.first_timestamp.unix_timestamp_nanos() / 1_000_000)
                .unwrap_or(0)
        });
        Ok(Depth { queued, oldest_ms })
    }

    async fn link_key(&self) -> Result<Vec<u8>, StoreError> {
        let fresh = new_link_key()?;
        match self.keys.create(LINK_KEY, fresh.clone().into()).await {
            Ok(_) => return Ok(fresh),
            Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => {}
            Err(e) => return Err(storage("the link key", e)),
        }
        match self.keys.get(LINK_KEY).await {
            Ok(Some(key)) => Ok(key.to_vec()),
            Ok(None) => Err(storage("the link key", "missing")),
            Err(e) => Err(storage("the link key", e)),
        }
    }
}

/// A delivery this replica holds: until its ack wait ends.
struct JetStreamTicket {
    message: jetstream::Message,
}

#[async_trait::async_trait]
impl Ticket for JetStreamTicket {
    async fn done(self: Box<Self>) -> Result<(), StoreError> {
        // Confirmed by the server: a lost ack would send it again.
        self.message
            .double_ack()
            .await
            .map_err(|e| storage("ack", e))
    }

    async fn again(self: Box<Self>, delay: Duration, _attempted: bool) -> Result<(), StoreError> {
        self.message
            .ack_with(AckKind::Nak(Some(delay)))
            .await
            .map_err(|e| storage("nak", e))
    }
}
