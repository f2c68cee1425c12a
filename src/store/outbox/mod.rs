//! The webhooks' delivery queue, kept as durably as the logs beside them: in the embedded
//! store's data directory (`webhooks.redb`), in a JetStream work queue shared by the replicas,
//! or in memory with the memory store. A delivery is taken by one sender at a time (a lease: on
//! JetStream, the consumer's ack wait), and leaves the queue only when that sender says it is
//! done; a sender that dies leaves it to be taken again. The queue also keeps the key answer
//! links are signed with, made once and the same for every replica.

mod local;

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use local::LocalOutbox;

use super::StoreError;

/// Bytes of the key answer links are signed with (HMAC-SHA256's block is 64; 32 is its output).
pub const LINK_KEY_BYTES: usize = 32;

/// A notification to send: where, what, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// Its id: the same for every attempt (the receiver's idempotency key), and made from what
    /// it is about, so queueing it twice keeps one.
    pub id: String,
    /// The hook it goes to, by name.
    pub hook: String,
    /// The session it is about.
    pub session: String,
    /// The body, as sent (made when queued, so every attempt sends the same bytes).
    pub body: String,
    /// When it was queued, in Unix milliseconds.
    pub created_ms: u64,
    /// When it may be sent first, in Unix milliseconds.
    pub due_ms: u64,
    /// When set, it is sent only if the session's log still ends at this offset (an `idle`
    /// notice after a delay: anything appended since means the session did not stay idle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_at_head: Option<u64>,
}

/// What became of queueing a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    /// It is in the queue.
    Added,
    /// One with its id was already queued (or sent a moment ago): kept once.
    Duplicate,
    /// The queue holds its limit: it was not queued.
    Full,
}

/// A delivery taken from the queue by this sender.
pub struct Claimed {
    /// What to send.
    pub delivery: Delivery,
    /// Attempts made before this one.
    pub attempts: u32,
    /// How to settle it.
    pub ticket: Box<dyn Ticket>,
}

/// Settles a claimed delivery. Dropped unsettled, the delivery is taken again (at once on the
/// local queue; after the lease on JetStream).
#[async_trait::async_trait]
pub trait Ticket: Send {
    /// It leaves the queue: sent, or given up.
    async fn done(self: Box<Self>) -> Result<(), StoreError>;
    /// It is taken again after `delay`. `attempted`: an attempt was made (it counts toward
    /// the next backoff); false when it was not due yet.
    async fn again(self: Box<Self>, delay: Duration, attempted: bool) -> Result<(), StoreError>;
}

/// How long the queue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Depth {
    /// Deliveries queued, taken ones included.
    pub queued: u64,
    /// When the oldest of them was queued, in Unix milliseconds.
    pub oldest_ms: Option<u64>,
}

/// The queue.
#[async_trait::async_trait]
pub trait Outbox: Send + Sync {
    /// Queues a delivery (durably, when the call returns `Added`).
    async fn enqueue(&self, delivery: Delivery) -> Result<Enqueued, StoreError>;
    /// Takes the delivery due first, for the queue's lease (another sender may take it after
    /// that if it is still unsettled); waits at most `wait` for one to be due.
    async fn claim(&self, wait: Duration) -> Result<Option<Claimed>, StoreError>;
    /// How long the queue is.
    async fn depth(&self) -> Result<Depth, StoreError>;
    /// The key answer links are signed with ([`LINK_KEY_BYTES`]), made at the first call.
    async fn link_key(&self) -> Result<Vec<u8>, StoreError>;
}

/// A new random link key.
pub(crate) fn new_link_key() -> Result<Vec<u8>, StoreError> {
    let mut key = vec![0; LINK_KEY_BYTES];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut key)
        .map_err(|_| StoreError::Storage("no random bytes for the link key".into()))?;
    Ok(key)
}
