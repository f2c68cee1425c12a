//! The senders: a few tasks take deliveries from the queue and post them, one at a time each.
//! An attempt that fails (no connection, a timeout, an answer other than 2xx) is tried again
//! after a pause that doubles from a second up to `--webhook-retry-max-ms`, until the delivery
//! is older than `--webhook-give-up-after-secs`. Redirects are not followed: a receiver that
//! moved says so with a failure, not by sending the body elsewhere.

use std::sync::Arc;
use std::time::Duration;

use tokio_rustls::rustls;

use super::Webhooks;
use super::config::Hook;
use crate::domain::SessionId;
use crate::metrics::DeliveryOutcome;
use crate::session::{SessionError, Sessions};
use crate::store::now_ms;
use crate::store::outbox::Claimed;

/// Senders per process: deliveries posted at once.
const SENDERS: usize = 4;
/// How long a sender waits for a delivery before it looks again.
const CLAIM_WAIT: Duration = Duration::from_secs(5);
/// How often the queue's length is read for the metrics.
const DEPTH_EVERY: Duration = Duration::from_secs(5);
/// The first pause after a failed attempt.
const FIRST_RETRY: Duration = Duration::from_secs(1);
/// After a queue error, the pause before a sender tries the queue again.
const QUEUE_ERROR_PAUSE: Duration = Duration::from_secs(1);

/// What a sender does with a claimed delivery.
enum Verdict {
    Done(DeliveryOutcome),
    Later { delay: Duration, attempted: bool },
}

impl Webhooks {
    /// Sends until the task is dropped (the server's background set ends it).
    pub async fn run(self: Arc<Self>, sessions: Arc<Sessions>) {
        let client = match client(self.settings.timeout) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e, "webhooks: no HTTP client; nothing is sent");
                return;
            }
        };
        let mut senders = tokio::task::JoinSet::new();
        for _ in 0..SENDERS {
            senders.spawn(self.clone().sender(sessions.clone(), client.clone()));
        }
        senders.spawn(self.clone().watch_depth());
        while senders.join_next().await.is_some() {}
    }

    async fn sender(self: Arc<Self>, sessions: Arc<Sessions>, client: reqwest::Client) {
        loop {
            let claimed = match self.outbox.claim(CLAIM_WAIT).await {
                Ok(Some(c)) => c,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "webhooks: the queue did not answer");
                    tokio::time::sleep(QUEUE_ERROR_PAUSE).await;
                    continue;
                }
            };
            let Claimed {
                delivery,
                attempts,
                ticket,
            } = claimed;
            let verdict = self.judge(&sessions, &client, &delivery, attempts).await;
            let settled = match verdict {
                Verdict::Done(outcome) => {
                    self.metrics.webhooks.outcome(outcome);
                    ticket.done().await
                }
                Verdict::Later { delay, attempted } => ticket.again(delay, attempted).await,
            };
            if let Err(e) = settled {
                tracing::warn!(id = %delivery.id, error = %e, "webhooks: a delivery was not settled; it is sent again");
            }
        }
    }

    /// Sends a delivery if it is due and still wanted.
    async fn judge(
        &self,
        sessions: &Sessions,
        client: &reqwest::Client,
        delivery: &crate::store::outbox::Delivery,
        attempts: u32,
    ) -> Verdict {
        let now = now_ms();
        if delivery.due_ms > now {
            let delay = Duration::from_millis(delivery.due_ms - now);
            return Verdict::Later {
                delay,
                attempted: false,
            };
        }
        let Some(hook) = self.settings.hooks.iter().find(|h| h.name == delivery.hook) else {
            tracing::warn!(hook = %delivery.hook, "webhooks: a delivery for a hook no longer configured is dropped");
            return Verdict::Done(DeliveryOutcome::dropped);
        };
        if let Some(head) = delivery.only_at_head
            && !still_at(sessions, &delivery.session, head).await
        {
            return Verdict::Done(DeliveryOutcome::superseded);
        }
        let age = Duration::from_millis(now.saturating_sub(delivery.created_ms));
        if age > self.settings.give_up_after {
            tracing::warn!(id = %delivery.id, hook = %hook.name, attempts, "webhooks: given up");
            return Verdict::Done(DeliveryOutcome::expired);
        }
        self.metrics.webhooks.sending.inc();
        let sent = post(client, hook, delivery).await;
        self.metrics.webhooks.sending.dec();
        match sent {
            Ok(()) => Verdict::Done(DeliveryOutcome::delivered),
            Err(why) => {
                self.metrics.webhooks.retries.inc();
                let delay = backoff(attempts, self.settings.retry_max);
                tracing::info!(id = %delivery.id, hook = %hook.name, attempts = attempts + 1, %why, ?delay, "webhooks: an attempt failed; trying again later");
                Verdict::Later {
                    delay,
                    attempted: true,
                }
            }
        }
    }

    async fn watch_depth(self: Arc<Self>) {
        loop {
            if let Ok(depth) = self.outbox.depth().await {
                let m = &self.metrics.webhooks;
                m.queued.set(depth.queued as i64);
                let age = depth
                    .oldest_ms
                    .map_or(0, |t| now_ms().saturating_sub(t) / 1000);
                m.oldest_seconds.set(age as i64);
            }
            tokio::time::sleep(DEPTH_EVERY).await;
        }
    }
}

/// Whether the session's log still ends at `head` (nothing appended since the transition).
async fn still_at(sessions: &Sessions, session: &str, head: u64) -> bool {
    let Ok(id) = SessionId::new(session) else {
        return false;
    };
    match sessions.info(&id).await {
        Ok(info) => info.meta.head_offset == head,
        Err(SessionError::NotFound(_)) => false,
        // The store did not answer: send it (a late idle notice beats a lost one).
        Err(_) => true,
    }
}

/// The pause after `attempts` failed ones: a second, doubling, at most `max`.
fn backoff(attempts: u32, max: Duration) -> Duration {
    FIRST_RETRY
        .saturating_mul(1u32.checked_shl(attempts.min(30)).unwrap_or(u32::MAX))
        .min(max)
}

/// One attempt: `Err` says why it failed.
async fn post(
    client: &reqwest::Client,
    hook: &Hook,
    delivery: &crate::store::outbox::Delivery,
) -> Result<(), String> {
    let mut request = client
        .post(hook.url.clone())
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(delivery.body.clone());
    if let Some(secret) = &hook.secret {
        let now_s = now_ms() / 1000;
        for (name, value) in super::sign::headers(secret, &delivery.id, now_s, &delivery.body) {
            request = request.header(name, value);
        }
    }
    let response = request
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the receiver answered {status}"))
    }
}

/// The HTTP client: rustls with ring and the system's roots, no redirects.
fn client(timeout: Duration) -> anyhow::Result<reqwest::Client> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        // A certificate the system has and rustls cannot use is left out, as browsers do.
        let _ = roots.add(cert);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .user_agent(concat!("toolview/", env!("CARGO_PKG_VERSION")))
        .build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_doubles_from_a_second_up_to_the_limit() {
        let max = Duration::from_secs(300);
        let pauses: Vec<u64> = (0..12).map(|a| backoff(a, max).as_secs()).collect();
        assert_eq!(pauses, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
        assert_eq!(backoff(u32::MAX, max), max);
    }
}
