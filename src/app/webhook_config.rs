//! The `--webhook*` flags of `toolview serve`: where transitions are told, and how hard the
//! senders try.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::webhook::{
    DEFAULT_GIVE_UP_AFTER, DEFAULT_LINK_TTL, DEFAULT_QUEUE_MAX, DEFAULT_RETRY_MAX, DEFAULT_TIMEOUT,
    Settings, config,
};

/// The webhooks' settings.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct WebhookConfig {
    /// A JSON file of webhooks: `{"hooks": [{"name", "url", "events"?, "idleAfterSecs"?,
    /// "secretFile"?, "format"?}]}` (docs/sessions.md, "Webhooks").
    #[arg(
        long = "webhooks-file",
        env = "TOOLVIEW_WEBHOOKS_FILE",
        conflicts_with = "webhook_urls"
    )]
    pub file: Option<PathBuf>,

    /// A URL to post `requires_action` and `failed` notices to, signed with
    /// --webhook-secret-file; repeat or comma-separate for more.
    #[arg(
        long = "webhook",
        env = "TOOLVIEW_WEBHOOK",
        value_delimiter = ',',
        requires = "secret_file"
    )]
    pub webhook_urls: Vec<String>,

    /// With --webhook: a file holding the signing secret (`whsec_` then base64, as
    /// `toolview webhook-secret` prints).
    #[arg(long = "webhook-secret-file", env = "TOOLVIEW_WEBHOOK_SECRET_FILE")]
    pub secret_file: Option<PathBuf>,

    /// The viewer's address as people reach it (`https://toolview.example.com`): the start of
    /// answer links and session links in notices. The listen address when not set.
    #[arg(long = "public-url", env = "TOOLVIEW_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Milliseconds a delivery attempt may take; then it counts as failed.
    #[arg(long = "webhook-timeout-ms", env = "TOOLVIEW_WEBHOOK_TIMEOUT_MS", default_value_t = DEFAULT_TIMEOUT.as_millis() as u64)]
    pub timeout_ms: u64,

    /// The longest pause, in milliseconds, between attempts of a failing delivery (the pause
    /// doubles from a second up to it).
    #[arg(long = "webhook-retry-max-ms", env = "TOOLVIEW_WEBHOOK_RETRY_MAX_MS", default_value_t = DEFAULT_RETRY_MAX.as_millis() as u64)]
    pub retry_max_ms: u64,

    /// Seconds after which a delivery still failing is given up (counted `expired`).
    #[arg(long = "webhook-give-up-after-secs", env = "TOOLVIEW_WEBHOOK_GIVE_UP_AFTER_SECS", default_value_t = DEFAULT_GIVE_UP_AFTER.as_secs())]
    pub give_up_after_secs: u64,

    /// Deliveries queued at most; past it new ones are dropped (counted `dropped`).
    #[arg(long = "webhook-queue-max", env = "TOOLVIEW_WEBHOOK_QUEUE_MAX", default_value_t = DEFAULT_QUEUE_MAX)]
    pub queue_max: usize,

    /// Seconds an answer link answers (less when its request expires first).
    #[arg(long = "answer-link-ttl-secs", env = "TOOLVIEW_ANSWER_LINK_TTL_SECS", default_value_t = DEFAULT_LINK_TTL.as_secs())]
    pub link_ttl_secs: u64,
}

impl WebhookConfig {
    /// The settings, with the hooks read from their file or flags; `None` without hooks.
    pub fn settings(&self) -> anyhow::Result<Option<Settings>> {
        let hooks = match &self.file {
            Some(path) => config::read_file(path)?,
            None => config::from_flags(&self.webhook_urls, self.secret_file.as_deref())?,
        };
        if hooks.is_empty() {
            return Ok(None);
        }
        if let Some(url) = &self.public_url {
            reqwest::Url::parse(url).map_err(|e| anyhow::anyhow!("--public-url {url}: {e}"))?;
        }
        Ok(Some(Settings {
            hooks,
            public_url: self.public_url.clone(),
            timeout: Duration::from_millis(self.timeout_ms.max(1)),
            retry_max: Duration::from_millis(self.retry_max_ms.max(1)),
            give_up_after: Duration::from_secs(self.give_up_after_secs),
            queue_max: self.queue_max.max(1),
            link_ttl: Duration::from_secs(self.link_ttl_secs.max(1)),
        }))
    }
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            file: None,
            webhook_urls: Vec::new(),
            secret_file: None,
            public_url: None,
            timeout_ms: DEFAULT_TIMEOUT.as_millis() as u64,
            retry_max_ms: DEFAULT_RETRY_MAX.as_millis() as u64,
            give_up_after_secs: DEFAULT_GIVE_UP_AFTER.as_secs(),
            queue_max: DEFAULT_QUEUE_MAX,
            link_ttl_secs: DEFAULT_LINK_TTL.as_secs(),
        }
    }
}
