//! The one typed configuration of `toolview serve`: flags, each with a `TOOLVIEW_*` variable.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::{Args, ValueEnum};

use crate::session::SessionsConfig;

/// gRPC's customary message limit; large enough for any tool event a harness sends.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 << 20;
/// The output cap ceiling is at most this fraction of the message limit: JSON escaping can make
/// one byte of tool output six on the wire (`\u0001`), and a card carries more than its output,
/// so a subscriber's updates fit a message by construction.
pub const OUTPUT_SHARE_OF_MESSAGE: usize = 8;
/// Room in a message for what wraps a rendered update (cursor, call id, framing).
pub const UPDATE_ENVELOPE_BYTES: usize = 16 << 10;

/// Where session logs live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreKind {
    /// Durable, crash-safe logs in the data directory (redb).
    Embedded,
    /// In memory: lost on exit.
    Memory,
}

/// Log line format on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Human,
    /// One JSON object per line.
    Json,
}

/// Configuration of `toolview serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeConfig {
    /// Address to listen on.
    #[arg(long, env = "TOOLVIEW_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// Session store.
    #[arg(long, env = "TOOLVIEW_STORE", value_enum, default_value = "embedded")]
    pub store: StoreKind,

    /// Data directory of the embedded store.
    #[arg(long, env = "TOOLVIEW_DATA_DIR", default_value = "./toolview-data")]
    pub data_dir: PathBuf,

    /// Page cache of the embedded store, in MiB.
    #[arg(long, env = "TOOLVIEW_STORE_CACHE_MB", default_value_t = 64)]
    pub store_cache_mb: usize,

    /// Rendered updates each (session, target, capabilities) lane caches for its subscribers,
    /// in MiB.
    #[arg(long, env = "TOOLVIEW_LANE_CACHE_MB", default_value_t = 16)]
    pub lane_cache_mb: usize,

    /// Largest accepted or sent gRPC message, in bytes. A larger request gets
    /// RESOURCE_EXHAUSTED; no response is ever larger (see --max-output-bytes).
    #[arg(long, env = "TOOLVIEW_MAX_MESSAGE_SIZE", default_value_t = DEFAULT_MAX_MESSAGE_SIZE)]
    pub max_message_size: usize,

    /// Largest output cap, in bytes: a subscriber asking for no cap or a larger one gets this;
    /// smaller caps are rounded down to a power of two (at least 1 KiB). At most, and by
    /// default, an eighth of --max-message-size (512 KiB).
    #[arg(long, env = "TOOLVIEW_MAX_OUTPUT_BYTES")]
    pub max_output_bytes: Option<u64>,

    /// Events kept per session; older ones are trimmed (0 keeps all).
    #[arg(
        long,
        env = "TOOLVIEW_MAX_EVENTS_PER_SESSION",
        default_value_t = 100_000
    )]
    pub max_events_per_session: u64,

    /// Seconds after its last event that a session is deleted (0 keeps sessions).
    #[arg(long, env = "TOOLVIEW_SESSION_TTL_SECS", default_value_t = 0)]
    pub session_ttl_secs: u64,

    /// Milliseconds between heartbeats on an idle subscription.
    #[arg(long, env = "TOOLVIEW_HEARTBEAT_INTERVAL_MS", default_value_t = 15_000)]
    pub heartbeat_interval_ms: u64,

    /// Events a subscriber may fall behind before its stream ends with RESOURCE_EXHAUSTED.
    #[arg(long, env = "TOOLVIEW_SUBSCRIBER_LAG_LIMIT", default_value_t = 50_000)]
    pub subscriber_lag_limit: u64,

    /// Milliseconds to wait for open streams and in-flight calls on shutdown.
    #[arg(long, env = "TOOLVIEW_SHUTDOWN_GRACE_MS", default_value_t = 10_000)]
    pub shutdown_grace_ms: u64,

    /// Origins allowed to call over gRPC-Web from a browser (CORS); repeat or comma-separate.
    /// The viewer served at `/` is same-origin and needs none.
    #[arg(
        long = "cors-origin",
        env = "TOOLVIEW_CORS_ORIGINS",
        value_delimiter = ','
    )]
    pub cors_origins: Vec<String>,

    /// Log format.
    #[arg(long, env = "TOOLVIEW_LOG_FORMAT", value_enum, default_value = "human")]
    pub log_format: LogFormat,
}

impl ServeConfig {
    /// The session layer's part of the configuration.
    pub fn sessions(&self) -> SessionsConfig {
        SessionsConfig {
            max_events_per_session: self.max_events_per_session,
            session_ttl: (self.session_ttl_secs > 0)
                .then(|| Duration::from_secs(self.session_ttl_secs)),
            heartbeat_interval: Duration::from_millis(self.heartbeat_interval_ms.max(1)),
            subscriber_lag_limit: self.subscriber_lag_limit,
            lane_cache_bytes: self.lane_cache_mb << 20,
            max_update_bytes: self.max_update_bytes(),
            max_output_bytes: self.max_output_bytes(),
            ..SessionsConfig::default()
        }
    }

    /// The largest rendered update: a message less its envelope.
    pub fn max_update_bytes(&self) -> usize {
        self.max_message_size.saturating_sub(UPDATE_ENVELOPE_BYTES)
    }

    /// The output cap ceiling: as configured, else an eighth of the message limit.
    pub fn max_output_bytes(&self) -> u64 {
        self.max_output_bytes
            .unwrap_or((self.max_message_size / OUTPUT_SHARE_OF_MESSAGE) as u64)
    }

    /// Checks what flags cannot express alone.
    pub fn validate(&self) -> anyhow::Result<()> {
        let most = (self.max_message_size / OUTPUT_SHARE_OF_MESSAGE) as u64;
        if let Some(n) = self.max_output_bytes
            && (n == 0 || n > most)
        {
            anyhow::bail!(
                "--max-output-bytes {n} must be between 1 and an eighth of --max-message-size ({most})"
            );
        }
        if self.max_message_size < 2 * UPDATE_ENVELOPE_BYTES {
            anyhow::bail!(
                "--max-message-size {} must be at least {}",
                self.max_message_size,
                2 * UPDATE_ENVELOPE_BYTES
            );
        }
        Ok(())
    }

    /// The in-memory configuration tests start servers with.
    pub fn memory() -> Self {
        ServeConfig {
            store: StoreKind::Memory,
            ..ServeConfig::default()
        }
    }
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 50051)),
            store: StoreKind::Embedded,
            data_dir: PathBuf::from("./toolview-data"),
            store_cache_mb: 64,
            lane_cache_mb: 16,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_output_bytes: None,
            max_events_per_session: 100_000,
            session_ttl_secs: 0,
            heartbeat_interval_ms: 15_000,
            subscriber_lag_limit: 50_000,
            shutdown_grace_ms: 10_000,
            cors_origins: Vec::new(),
            log_format: LogFormat::Human,
        }
    }
}
