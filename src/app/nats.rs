//! The `--nats-*` flags of `toolview serve`: where `--store jetstream` keeps session logs.

use std::path::PathBuf;

use clap::Args;

/// A NATS server on this machine, on its default port.
pub const DEFAULT_NATS_URL: &str = "nats://127.0.0.1:4222";
/// One stream holds every session's log.
pub const DEFAULT_NATS_STREAM: &str = "TOOLVIEW";
/// Session subjects are `toolview.s.<session>`.
pub const DEFAULT_NATS_SUBJECT_PREFIX: &str = "toolview.s";
/// Three copies: an acknowledged event survives the loss of any one server, as the NATS docs
/// recommend for production streams.
pub const DEFAULT_NATS_REPLICAS: usize = 3;
/// JetStream's own default (2 minutes): long enough to cover any retry of a lost
/// acknowledgement, while the server keeps the ids in memory.
pub const DEFAULT_NATS_DUPLICATE_WINDOW_MS: u64 = 120_000;
/// How long `serve` waits at start for a NATS server to accept connections: NATS started by
/// the same `docker compose up` or pod may come up a little after toolview.
pub const DEFAULT_NATS_STARTUP_WAIT_MS: u64 = 30_000;

/// Connection and stream settings of the JetStream store.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct NatsConfig {
    /// With --store jetstream: NATS server URLs, comma-separated (`nats://`, or `tls://` for
    /// TLS); the client fails over between them.
    #[arg(
        long = "nats-url",
        env = "TOOLVIEW_NATS_URL",
        value_delimiter = ',',
        default_value = DEFAULT_NATS_URL
    )]
    pub urls: Vec<String>,

    /// NATS user (with --nats-password).
    #[arg(long = "nats-user", env = "TOOLVIEW_NATS_USER", requires = "password")]
    pub user: Option<String>,

    /// NATS password (prefer the variable: flags show in process lists).
    #[arg(
        long = "nats-password",
        env = "TOOLVIEW_NATS_PASSWORD",
        requires = "user",
        hide_env_values = true
    )]
    pub password: Option<String>,

    /// NATS token (prefer the variable).
    #[arg(
        long = "nats-token",
        env = "TOOLVIEW_NATS_TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,

    /// A NATS credentials file (`.creds`: a user JWT and its NKey seed).
    #[arg(long = "nats-creds", env = "TOOLVIEW_NATS_CREDS")]
    pub credentials_file: Option<PathBuf>,

    /// CA certificates (PEM) that NATS servers' certificates must chain to; implies TLS.
    #[arg(long = "nats-tls-ca", env = "TOOLVIEW_NATS_TLS_CA")]
    pub tls_ca: Option<PathBuf>,

    /// The JetStream stream holding the logs; created when missing, checked when present.
    #[arg(long = "nats-stream", env = "TOOLVIEW_NATS_STREAM", default_value = DEFAULT_NATS_STREAM)]
    pub stream: String,

    /// Subjects of session logs are `<prefix>.<session>`.
    #[arg(
        long = "nats-subject-prefix",
        env = "TOOLVIEW_NATS_SUBJECT_PREFIX",
        default_value = DEFAULT_NATS_SUBJECT_PREFIX
    )]
    pub subject_prefix: String,

    /// Servers that store each event before it is acknowledged, when the stream is created.
    #[arg(long = "nats-replicas", env = "TOOLVIEW_NATS_REPLICAS", default_value_t = DEFAULT_NATS_REPLICAS)]
    pub replicas: usize,

    /// How long NATS remembers message ids to drop a repeated append, in milliseconds (when
    /// the stream is created). Idempotency beyond it comes from the log itself.
    #[arg(
        long = "nats-duplicate-window-ms",
        env = "TOOLVIEW_NATS_DUPLICATE_WINDOW_MS",
        default_value_t = DEFAULT_NATS_DUPLICATE_WINDOW_MS
    )]
    pub duplicate_window_ms: u64,

    /// How long to wait at start for a NATS server to accept connections, in milliseconds;
    /// then `serve` exits with an error naming the URLs. Refused credentials or certificates
    /// fail at once.
    #[arg(
        long = "nats-startup-wait-ms",
        env = "TOOLVIEW_NATS_STARTUP_WAIT_MS",
        default_value_t = DEFAULT_NATS_STARTUP_WAIT_MS
    )]
    pub startup_wait_ms: u64,
}

impl Default for NatsConfig {
    fn default() -> Self {
        NatsConfig {
            urls: vec![DEFAULT_NATS_URL.to_owned()],
            user: None,
            password: None,
            token: None,
            credentials_file: None,
            tls_ca: None,
            stream: DEFAULT_NATS_STREAM.to_owned(),
            subject_prefix: DEFAULT_NATS_SUBJECT_PREFIX.to_owned(),
            replicas: DEFAULT_NATS_REPLICAS,
            duplicate_window_ms: DEFAULT_NATS_DUPLICATE_WINDOW_MS,
            startup_wait_ms: DEFAULT_NATS_STARTUP_WAIT_MS,
        }
    }
}

impl NatsConfig {
    /// Checks names NATS would refuse, with the flag that set them.
    pub fn validate(&self) -> anyhow::Result<()> {
        let bad = |c: char| c.is_whitespace() || matches!(c, '.' | '*' | '>' | '/' | '\\');
        if self.stream.is_empty() || self.stream.contains(bad) {
            anyhow::bail!(
                "--nats-stream {:?}: a stream name is not empty and has no spaces, `.`, `*`, `>`, \
                 `/` or `\\`",
                self.stream
            );
        }
        let p = &self.subject_prefix;
        if p.is_empty()
            || p.split('.')
                .any(|t| t.is_empty() || t.contains(char::is_whitespace) || t.contains(['*', '>']))
        {
            anyhow::bail!(
                "--nats-subject-prefix {p:?}: dot-separated tokens, none empty, no spaces or \
                 wildcards"
            );
        }
        if self.urls.iter().all(|u| u.trim().is_empty()) {
            anyhow::bail!("--nats-url: at least one URL");
        }
        if self.replicas == 0 || self.replicas > 5 {
            anyhow::bail!(
                "--nats-replicas {}: between 1 and 5 (JetStream's most)",
                self.replicas
            );
        }
        Ok(())
    }

    /// The store's settings, with the retention the rest of the configuration asks for.
    #[cfg(feature = "jetstream")]
    pub fn options(&self, serve: &super::ServeConfig) -> crate::store::JetStreamOptions {
        crate::store::JetStreamOptions {
            urls: self.urls.iter().map(|u| u.trim().to_owned()).collect(),
            user_password: self.user.clone().zip(self.password.clone()),
            token: self.token.clone(),
            credentials_file: self.credentials_file.clone(),
            tls_ca: self.tls_ca.clone(),
            stream: self.stream.clone(),
            subject_prefix: self.subject_prefix.clone(),
            replicas: self.replicas,
            duplicate_window: std::time::Duration::from_millis(self.duplicate_window_ms.max(100)),
            max_events_per_session: serve.max_events_per_session,
            max_age: (serve.session_ttl_secs > 0)
                .then(|| std::time::Duration::from_secs(serve.session_ttl_secs)),
            max_event_bytes: serve.max_message_size,
            max_indexed_sessions: serve.max_loaded_sessions,
            startup_wait: std::time::Duration::from_millis(self.startup_wait_ms),
        }
    }
}
