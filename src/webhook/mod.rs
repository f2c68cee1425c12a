//! Webhooks: a session's transitions told wherever someone is. Each durable append's
//! transitions (`domain::transitions`: a prompt waiting, the session failed or idle) become one
//! delivery per hook that wants them, queued in the store's outbox before the publish is
//! acknowledged; senders take them from the queue, sign them (Standard Webhooks), post them and
//! try again with backoff until the receiver says 2xx or the delivery is too old.
//!
//! Where things are: `config.rs` (the hooks, from `--webhooks-file` or `--webhook`), `sign.rs`
//! (the signature headers), `payload.rs` (the JSON and Slack bodies), `send.rs` (the senders). Answer links are grants for one
//! request and one option (`auth::link`), answered by `http::links`.

pub mod config;
pub mod payload;
mod send;
pub mod sign;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ring::digest;

use crate::auth::link::{Grant, LinkKey};
use crate::domain::{SessionId, Transition};
use crate::metrics::{DeliveryOutcome, Metrics};
use crate::store::outbox::{Delivery, Enqueued, Outbox};
use crate::store::{SessionMeta, Store, now_ms};
use config::{Format, Hook, Trigger};

/// A delivery still failing after this long is given up.
pub const DEFAULT_GIVE_UP_AFTER: Duration = Duration::from_secs(24 * 3600);
/// The longest pause between attempts (the backoff doubles from a second up to it).
pub const DEFAULT_RETRY_MAX: Duration = Duration::from_secs(300);
/// An attempt's time limit: a receiver is expected to answer at once and work later.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Deliveries queued at most: past it, new ones are dropped (and counted).
pub const DEFAULT_QUEUE_MAX: usize = 10_000;
/// How long an answer link answers (less if its request expires first).
pub const DEFAULT_LINK_TTL: Duration = Duration::from_secs(24 * 3600);

/// How much longer than an attempt's limit a sender holds a delivery (JetStream's ack wait):
/// room to settle it after the attempt; a sender that died is replaced after the sum.
const LEASE_MARGIN: Duration = Duration::from_secs(5);

/// The webhooks' settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The hooks.
    pub hooks: Vec<Hook>,
    /// The viewer's address as receivers reach it (`--public-url`); the listen address if
    /// `None`.
    pub public_url: Option<String>,
    /// An attempt's time limit.
    pub timeout: Duration,
    /// The longest pause between attempts.
    pub retry_max: Duration,
    /// Failing deliveries older than this are given up.
    pub give_up_after: Duration,
    /// Deliveries queued at most.
    pub queue_max: usize,
    /// How long an answer link answers.
    pub link_ttl: Duration,
}

/// The webhooks: what queues deliveries, and (`run`) what sends them.
pub struct Webhooks {
    settings: Settings,
    outbox: Arc<dyn Outbox>,
    key: LinkKey,
    base: OnceLock<String>,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhooks")
            .field("hooks", &self.settings.hooks.len())
            .finish_non_exhaustive()
    }
}

impl Webhooks {
    /// Opens the store's queue and reads (or makes) the link key.
    pub async fn open(
        settings: Settings,
        store: &dyn Store,
        metrics: Arc<Metrics>,
    ) -> anyhow::Result<Arc<Self>> {
        // A sender holds a delivery while it tries it: the attempt's limit, and room to settle.
        let lease = settings.timeout + LEASE_MARGIN;
        let outbox = store.outbox(settings.queue_max, lease).await?;
        let key = LinkKey::new(&outbox.link_key().await?);
        let base = OnceLock::new();
        if let Some(url) = &settings.public_url {
            let _ = base.set(url.trim_end_matches('/').to_owned());
        }
        Ok(Arc::new(Webhooks {
            settings,
            outbox,
            key,
            base,
            metrics,
        }))
    }

    /// The viewer's address when no `--public-url` names one: the listen address.
    pub fn listening_at(&self, url: String) {
        let _ = self.base.set(url.trim_end_matches('/').to_owned());
    }

    /// The key answer links are signed with.
    pub fn link_key(&self) -> &LinkKey {
        &self.key
    }

    fn base(&self) -> &str {
        self.base.get().map_or("", String::as_str)
    }

    /// One delivery of `t` for `hook`.
    fn delivery(
        &self,
        hook: &Hook,
        session: &SessionId,
        meta: &SessionMeta,
        t: &Transition,
    ) -> Delivery {
        let now = now_ms();
        let request = match t {
            Transition::Waiting(p) => p.request_id.as_str(),
            Transition::Failed | Transition::Idle | Transition::Ended => "",
        };
        let id = delivery_id(&[
            &hook.name,
            session.as_str(),
            &meta.epoch.to_string(),
            &meta.head_offset.to_string(),
            t.state().name(),
            request,
        ]);
        let links = self.links(hook, session, t, now);
        let none = crate::domain::SessionSummary::default();
        let about = payload::About {
            hook: &hook.name,
            session: session.as_str(),
            title: &meta.title,
            cwd: &meta.cwd,
            summary: meta.summary.as_ref().unwrap_or(&none),
            view_url: format!("{}/?session={}", self.base(), session),
            at_ms: now,
        };
        let body = match hook.format {
            Format::Json => payload::json(&about, t, &links),
            Format::Slack => payload::slack(&about, t, &links),
        };
        let idle = matches!(t, Transition::Idle);
        Delivery {
            id,
            hook: hook.name.clone(),
            session: session.to_string(),
            body,
            created_ms: now,
            due_ms: now
                + if idle {
                    hook.idle_after.as_millis() as u64
                } else {
                    0
                },
            only_at_head: (idle && !hook.idle_after.is_zero()).then_some(meta.head_offset),
        }
    }

    /// A prompt's answer links, one per option, in order.
    fn links(&self, hook: &Hook, session: &SessionId, t: &Transition, now: u64) -> Vec<String> {
        let Transition::Waiting(p) = t else {
            return Vec::new();
        };
        let Ok(request) = crate::domain::permission::RequestId::new(p.request_id.clone()) else {
            return Vec::new();
        };
        let until = now + self.settings.link_ttl.as_millis() as u64;
        let expires_ms = match p.expires_at_ms {
            0 => until,
            at => at.min(until),
        };
        p.options
            .iter()
            .map(|o| {
                let grant = Grant {
                    session: session.clone(),
                    request: request.clone(),
                    option: o.option_id.clone(),
                    expires_ms,
                    hook: hook.name.clone(),
                };
                format!("{}/#answer={}", self.base(), self.key.sign(&grant))
            })
            .collect()
    }
}

/// `msg_` and 32 hex digits of a SHA-256 of the parts: the same transition gives the same id
/// on any replica.
fn delivery_id(parts: &[&str]) -> String {
    let mut ctx = digest::Context::new(&digest::SHA256);
    for part in parts {
        ctx.update(part.as_bytes());
        ctx.update(&[0]);
    }
    let hex: String = ctx
        .finish()
        .as_ref()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("msg_{hex}")
}

#[async_trait::async_trait]
impl crate::session::TransitionSink for Webhooks {
    async fn transitioned(
        &self,
        session: &SessionId,
        meta: &SessionMeta,
        transitions: Vec<Transition>,
    ) {
        for hook in &self.settings.hooks {
            for t in &transitions {
                if !hook.events.contains(&Trigger::of(t)) {
                    continue;
                }
                let delivery = self.delivery(hook, session, meta, t);
                match self.outbox.enqueue(delivery).await {
                    Ok(Enqueued::Added | Enqueued::Duplicate) => {}
                    Ok(Enqueued::Full) => {
                        tracing::warn!(hook = %hook.name, %session, "the webhook queue is full; a delivery is dropped");
                        self.metrics.webhooks.outcome(DeliveryOutcome::dropped);
                    }
                    Err(e) => {
                        tracing::error!(hook = %hook.name, %session, error = %e, "a webhook delivery could not be queued");
                        self.metrics.webhooks.outcome(DeliveryOutcome::dropped);
                    }
                }
            }
        }
    }
}
