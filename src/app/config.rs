//! The one typed configuration of `toolview serve`: flags, each with a `TOOLVIEW_*` variable.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::{path::PathBuf, time::Duration};

use clap::{Args, ValueEnum};

use super::listen::ConnectionLimits;
use super::nats::NatsConfig;
use super::otlp_config::OtlpConfig;
use super::tls::TlsFiles;
use super::webhook_config::WebhookConfig;
use crate::auth::{JwtSettings, KeySource};
use crate::session::Clock;
use crate::session::{
    DEFAULT_FLEET_THROTTLE, DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_LAG_CHECK_INTERVAL,
    DEFAULT_LANE_CACHE_BYTES, DEFAULT_LANE_CACHE_ENTRIES, DEFAULT_MAX_EVENTS_PER_SESSION,
    DEFAULT_MAX_LOADED_SESSIONS, DEFAULT_MAX_PERMISSION_TIMEOUT, DEFAULT_PERMISSION_TIMEOUT,
    DEFAULT_SUBSCRIBER_LAG_LIMIT, SessionsConfig,
};

/// Loopback only: a server reachable from elsewhere is a decision (with --auth jwt, or
/// --insecure-no-auth), not a default. The port is gRPC's customary one.
pub const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 1), 50051));
/// Next to where the service runs, so `cargo run -- serve` keeps its sessions across restarts.
pub const DEFAULT_DATA_DIR: &str = "./toolview-data";
/// The embedded store's page cache: the pages of the sessions being replayed and written.
pub const DEFAULT_STORE_CACHE_MB: usize = 64;
/// Time for in-flight publishes to commit and streams to end, within Kubernetes' default
/// 30-second termination grace.
pub const DEFAULT_SHUTDOWN_GRACE_MS: u64 = 10_000;

/// gRPC's customary message limit; large enough for any tool event a harness sends.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 << 20;
/// The output cap ceiling is at most this fraction of the message limit: JSON escaping can make
/// one byte of tool output six on the wire (`\u0001`), and a card carries more than its output,
/// so a subscriber's updates fit a message by construction.
pub const OUTPUT_SHARE_OF_MESSAGE: usize = 8;
/// A TTL is coarse (seconds to days); a sweep reads every session's metadata, so not often.
pub const DEFAULT_EXPIRY_INTERVAL_MS: u64 = 30_000;
/// Open connections at most: room for the bench's 10,000 idle subscribers on their own
/// connections. Lowered at start to what the descriptor limit allows.
pub const DEFAULT_MAX_CONNECTIONS: usize = 16_384;
/// Concurrent calls per HTTP/2 connection: a UI multiplexing many subscriptions fits.
pub const DEFAULT_MAX_STREAMS_PER_CONNECTION: u32 = 256;
/// A connection must speak, and an HTTP/1 request send its headers, this fast (hyper's HTTP/1
/// default, applied to both protocols).
pub const DEFAULT_HANDSHAKE_TIMEOUT_MS: u64 = 30_000;
/// HTTP/2 keepalive: ping after this much silence (the gRPC default for servers is two hours;
/// a UI behind a NAT needs far less to notice a dead peer)…
pub const DEFAULT_KEEPALIVE_INTERVAL_MS: u64 = 60_000;
/// …and close when the ping is not answered within this (gRPC's default).
pub const DEFAULT_KEEPALIVE_TIMEOUT_MS: u64 = 20_000;
/// Descriptors kept back from `--max-connections` for the store, the blocking pool and logs.
pub const RESERVED_DESCRIPTORS: u64 = 128;
/// Room in a message for what wraps a rendered update (cursor, call id, framing).
pub const UPDATE_ENVELOPE_BYTES: usize = 16 << 10;

/// The audience tokens must name unless configured otherwise: the service's name.
pub const DEFAULT_JWT_AUDIENCE: &str = "toolview";
/// Clock skew allowed between the token issuer and this server. Short, since a subscription
/// also lasts this long past its token's `exp`.
pub const DEFAULT_JWT_LEEWAY_SECS: u64 = 30;

/// A listen address: `IP:port`, or `host:port` resolved once at start (the first address the
/// name resolves to; `localhost` is loopback, so the no-auth default still holds).
fn listen_addr(s: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    if let Ok(addr) = s.parse() {
        return Ok(addr);
    }
    let mut addrs = s
        .to_socket_addrs()
        .map_err(|e| format!("{s:?} is not HOST:PORT or IP:PORT ({e})"))?;
    addrs
        .next()
        .ok_or_else(|| format!("{s:?} resolves to no address"))
}

/// A `--cors-origin`: a browser's `Origin` exactly (`https://host[:port]`, no path, no
/// wildcard: the calls carry tokens, so every allowed page is named), checked at startup so a
/// typo is an error naming it, not an origin silently dropped.
fn cors_origin(s: &str) -> Result<String, String> {
    let bad = |why: &str| {
        Err(format!(
            "{s:?} is not an origin ({why}): use https://HOST[:PORT]"
        ))
    };
    let Some((scheme, authority)) = s.split_once("://") else {
        return bad("no scheme");
    };
    if scheme != "http" && scheme != "https" {
        return bad("the scheme is not http or https");
    }
    if authority.is_empty() || authority.contains(['/', '?', '#', '*', '@']) {
        return bad("only a host and a port may follow the scheme");
    }
    if authority.parse::<http::uri::Authority>().is_err() {
        return bad("not a host and port");
    }
    Ok(s.to_owned())
}

/// How requests are authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthMode {
    /// Every request is allowed (only on a loopback address unless --insecure-no-auth).
    None,
    /// Bearer JWTs with grants (see --jwt-secret-file, --jwt-jwks-file).
    Jwt,
}

/// Where session logs live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreKind {
    /// Durable, crash-safe logs in the data directory (redb).
    Embedded,
    /// In memory: lost on exit.
    Memory,
    /// NATS JetStream (see --nats-url): any number of replicas share the logs.
    Jetstream,
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
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ServeConfig {
    /// Address to listen on: an IP address or a host name (`localhost:50051`), and a port.
    #[arg(long, env = "TOOLVIEW_LISTEN", default_value_t = DEFAULT_LISTEN, value_parser = listen_addr)]
    pub listen: SocketAddr,

    /// Session store.
    #[arg(long, env = "TOOLVIEW_STORE", value_enum, default_value = "embedded")]
    pub store: StoreKind,

    /// The JetStream store's connection and stream.
    #[command(flatten)]
    pub nats: NatsConfig,

    /// Data directory of the embedded store.
    #[arg(long, env = "TOOLVIEW_DATA_DIR", default_value = DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,

    /// Page cache of the embedded store, in MiB.
    #[arg(long, env = "TOOLVIEW_STORE_CACHE_MB", default_value_t = DEFAULT_STORE_CACHE_MB)]
    pub store_cache_mb: usize,

    /// Rendered updates each (session, target, capabilities) lane caches for its subscribers,
    /// in MiB.
    #[arg(long, env = "TOOLVIEW_LANE_CACHE_MB", default_value_t = DEFAULT_LANE_CACHE_BYTES >> 20)]
    pub lane_cache_mb: usize,

    /// Rendered updates each lane caches, at most (besides the MiB bound).
    #[arg(long, env = "TOOLVIEW_LANE_CACHE_ENTRIES", default_value_t = DEFAULT_LANE_CACHE_ENTRIES)]
    pub lane_cache_entries: usize,

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
        default_value_t = DEFAULT_MAX_EVENTS_PER_SESSION
    )]
    pub max_events_per_session: u64,

    /// Seconds after its last event that a session is deleted (0 keeps sessions).
    #[arg(long, env = "TOOLVIEW_SESSION_TTL_SECS", default_value_t = 0)]
    pub session_ttl_secs: u64,

    /// Milliseconds between sweeps for sessions past the TTL.
    #[arg(long, env = "TOOLVIEW_EXPIRY_INTERVAL_MS", default_value_t = DEFAULT_EXPIRY_INTERVAL_MS)]
    pub expiry_interval_ms: u64,

    /// Milliseconds between heartbeats on an idle subscription.
    #[arg(
        long,
        env = "TOOLVIEW_HEARTBEAT_INTERVAL_MS",
        default_value_t = DEFAULT_HEARTBEAT_INTERVAL.as_millis() as u64
    )]
    pub heartbeat_interval_ms: u64,

    /// Events a subscriber may fall behind before its stream ends with RESOURCE_EXHAUSTED.
    #[arg(long, env = "TOOLVIEW_SUBSCRIBER_LAG_LIMIT", default_value_t = DEFAULT_SUBSCRIBER_LAG_LIMIT)]
    pub subscriber_lag_limit: u64,

    /// Milliseconds between lag checks of a subscriber blocked on its full stream.
    #[arg(
        long,
        env = "TOOLVIEW_LAG_CHECK_INTERVAL_MS",
        default_value_t = DEFAULT_LAG_CHECK_INTERVAL.as_millis() as u64
    )]
    pub lag_check_interval_ms: u64,

    /// Seconds people have to answer a permission request that names no timeout; then its
    /// expiry (reject) option applies.
    #[arg(
        long,
        env = "TOOLVIEW_PERMISSION_TIMEOUT_SECS",
        default_value_t = DEFAULT_PERMISSION_TIMEOUT.as_secs()
    )]
    pub permission_timeout_secs: u64,

    /// The longest timeout, in seconds, a permission request may name (INVALID_ARGUMENT past it).
    #[arg(
        long,
        env = "TOOLVIEW_MAX_PERMISSION_TIMEOUT_SECS",
        default_value_t = DEFAULT_MAX_PERMISSION_TIMEOUT.as_secs()
    )]
    pub max_permission_timeout_secs: u64,

    /// Milliseconds between a session's fleet notices (WatchSessions) that change neither its
    /// state nor its prompts (those are sent at once).
    #[arg(
        long,
        env = "TOOLVIEW_FLEET_THROTTLE_MS",
        default_value_t = DEFAULT_FLEET_THROTTLE.as_millis() as u64
    )]
    pub fleet_throttle_ms: u64,

    /// Milliseconds to wait for open streams and in-flight calls on shutdown.
    #[arg(long, env = "TOOLVIEW_SHUTDOWN_GRACE_MS", default_value_t = DEFAULT_SHUTDOWN_GRACE_MS)]
    pub shutdown_grace_ms: u64,

    /// Origins allowed to call over gRPC-Web from a browser (CORS); repeat or comma-separate.
    /// The viewer served at `/` is same-origin and needs none.
    #[arg(
        long = "cors-origin",
        env = "TOOLVIEW_CORS_ORIGINS",
        value_delimiter = ',',
        value_parser = cors_origin
    )]
    pub cors_origins: Vec<String>,

    /// Sessions kept in memory; idle ones beyond are evicted (least recently used first) and
    /// reloaded from the store on their next use.
    #[arg(long, env = "TOOLVIEW_MAX_LOADED_SESSIONS", default_value_t = DEFAULT_MAX_LOADED_SESSIONS)]
    pub max_loaded_sessions: usize,

    /// Open connections at most; one more is closed as soon as it is accepted. Lowered at start
    /// to the open-file limit (less 128 descriptors).
    #[arg(long, env = "TOOLVIEW_MAX_CONNECTIONS", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Concurrent calls (HTTP/2 streams) per connection; a client opening more waits for one to
    /// end (HTTP/2 flow control, no error).
    #[arg(
        long,
        env = "TOOLVIEW_MAX_STREAMS_PER_CONNECTION",
        default_value_t = DEFAULT_MAX_STREAMS_PER_CONNECTION
    )]
    pub max_streams_per_connection: u32,

    /// Milliseconds a new connection has to send its first bytes, and an HTTP/1 request its
    /// headers; then it is closed.
    #[arg(long, env = "TOOLVIEW_HANDSHAKE_TIMEOUT_MS", default_value_t = DEFAULT_HANDSHAKE_TIMEOUT_MS)]
    pub handshake_timeout_ms: u64,

    /// Milliseconds of silence from an HTTP/2 peer before it is pinged.
    #[arg(long, env = "TOOLVIEW_KEEPALIVE_INTERVAL_MS", default_value_t = DEFAULT_KEEPALIVE_INTERVAL_MS)]
    pub keepalive_interval_ms: u64,

    /// Milliseconds an HTTP/2 ping may go unanswered before the connection is closed.
    #[arg(long, env = "TOOLVIEW_KEEPALIVE_TIMEOUT_MS", default_value_t = DEFAULT_KEEPALIVE_TIMEOUT_MS)]
    pub keepalive_timeout_ms: u64,

    /// Host names browsers may use to reach the viewer and gRPC-Web (HTTP/1), besides loopback
    /// names and the listen address; repeat or comma-separate. Other `Host` headers get 403,
    /// which stops DNS rebinding.
    #[arg(
        long = "allowed-host",
        env = "TOOLVIEW_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,

    /// Authentication: `jwt` checks `authorization: Bearer` tokens and their grants.
    #[arg(long, env = "TOOLVIEW_AUTH", value_enum, default_value = "none")]
    pub auth: AuthMode,

    /// With --auth jwt: a file holding the HS256 secret (at least 32 bytes; a trailing newline
    /// is ignored). Re-read on SIGHUP.
    #[arg(
        long,
        env = "TOOLVIEW_JWT_SECRET_FILE",
        conflicts_with = "jwt_jwks_file"
    )]
    pub jwt_secret_file: Option<PathBuf>,

    /// With --auth jwt: a JSON Web Key Set file of public keys (RS256, ES256, EdDSA, …), chosen
    /// by the token's `kid`; each key verifies only its own algorithm. Re-read on SIGHUP.
    #[arg(long, env = "TOOLVIEW_JWT_JWKS_FILE")]
    pub jwt_jwks_file: Option<PathBuf>,

    /// The `aud` tokens must carry.
    #[arg(long, env = "TOOLVIEW_JWT_AUDIENCE", default_value = DEFAULT_JWT_AUDIENCE)]
    pub jwt_audience: String,

    /// The `iss` tokens must carry, if set.
    #[arg(long, env = "TOOLVIEW_JWT_ISSUER")]
    pub jwt_issuer: Option<String>,

    /// Seconds of clock skew allowed on a token's `exp` and `nbf`.
    #[arg(long, env = "TOOLVIEW_JWT_LEEWAY_SECS", default_value_t = DEFAULT_JWT_LEEWAY_SECS)]
    pub jwt_leeway_secs: u64,

    /// Allow --auth none on an address other than loopback: anyone who reaches the port can
    /// then read and write every session.
    #[arg(long, env = "TOOLVIEW_INSECURE_NO_AUTH")]
    pub insecure_no_auth: bool,

    /// TLS: the server's certificate chain (PEM). Re-read on SIGHUP.
    #[arg(long, env = "TOOLVIEW_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// TLS: the server's private key (PEM). Re-read on SIGHUP.
    #[arg(long, env = "TOOLVIEW_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// TLS: require client certificates signed by these CAs (PEM), i.e. mutual TLS. Re-read on
    /// SIGHUP.
    #[arg(long, env = "TOOLVIEW_TLS_CLIENT_CA", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,

    /// The OpenTelemetry receiver's limits.
    #[command(flatten)]
    pub otlp: OtlpConfig,

    /// Webhooks: where transitions are told.
    #[command(flatten)]
    pub webhooks: WebhookConfig,

    /// Log format.
    #[arg(long, env = "TOOLVIEW_LOG_FORMAT", value_enum, default_value = "human")]
    pub log_format: LogFormat,

    /// Admin listener (off unless set): Prometheus metrics at `/metrics` and the gRPC health
    /// service, in plaintext and without auth, for probes and scrapers on the operator's
    /// network (Kubernetes' gRPC probes cannot dial TLS).
    #[arg(long, env = "TOOLVIEW_METRICS_LISTEN", value_parser = listen_addr)]
    pub metrics_listen: Option<SocketAddr>,
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
            lag_check_interval: Duration::from_millis(self.lag_check_interval_ms.max(1)),
            lane_cache: self.lane_cache_entries.max(1),
            lane_cache_bytes: self.lane_cache_mb << 20,
            max_update_bytes: self.max_update_bytes(),
            max_output_bytes: self.max_output_bytes(),
            max_loaded_sessions: self.max_loaded_sessions.max(1),
            clock: Clock::wall(),
            metrics: Default::default(),
            permission_timeout: Duration::from_secs(self.permission_timeout_secs.max(1)),
            max_permission_timeout: Duration::from_secs(self.max_permission_timeout_secs.max(1)),
            fleet_throttle: Duration::from_millis(self.fleet_throttle_ms),
            // The server sets it once the webhooks' queue is open.
            on_transition: None,
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

    /// The connection layer's part of the configuration.
    pub fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections.max(1),
            max_streams_per_connection: self.max_streams_per_connection.max(1),
            handshake_timeout: Duration::from_millis(self.handshake_timeout_ms.max(1)),
            keepalive_interval: Duration::from_millis(self.keepalive_interval_ms.max(1)),
            keepalive_timeout: Duration::from_millis(self.keepalive_timeout_ms.max(1)),
        }
    }

    /// Raises the soft open-file limit to the hard one (the common soft limit, 1,024, is far
    /// below what a fan-out server needs), then lowers `max_connections` to what the limit
    /// allows, so the server refuses connections it cannot serve instead of failing `accept`.
    pub fn fit_descriptor_limit(&mut self) {
        let limit = match rlimit::increase_nofile_limit(u64::MAX) {
            Ok(limit) => limit,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read or raise the open-file limit");
                return;
            }
        };
        let most = limit.saturating_sub(RESERVED_DESCRIPTORS).max(1);
        if self.max_connections as u64 > most {
            tracing::warn!(
                open_file_limit = limit,
                max_connections = most,
                "--max-connections lowered to fit the open-file limit"
            );
            self.max_connections = most as usize;
        }
    }

    /// The token checks, if --auth jwt.
    pub fn jwt_settings(&self) -> anyhow::Result<Option<JwtSettings>> {
        let keys = match (self.auth, &self.jwt_secret_file, &self.jwt_jwks_file) {
            (AuthMode::None, None, None) => return Ok(None),
            (AuthMode::None, _, _) => {
                anyhow::bail!("--jwt-secret-file and --jwt-jwks-file need --auth jwt")
            }
            (AuthMode::Jwt, Some(f), None) => KeySource::Secret(f.clone()),
            (AuthMode::Jwt, None, Some(f)) => KeySource::Jwks(f.clone()),
            (AuthMode::Jwt, _, _) => {
                anyhow::bail!("--auth jwt needs one of --jwt-secret-file or --jwt-jwks-file")
            }
        };
        Ok(Some(JwtSettings {
            keys,
            audience: self.jwt_audience.clone(),
            issuer: self.jwt_issuer.clone(),
            leeway: Duration::from_secs(self.jwt_leeway_secs),
        }))
    }

    /// The TLS files, if TLS is on.
    pub fn tls_files(&self) -> Option<TlsFiles> {
        Some(TlsFiles {
            cert: self.tls_cert.clone()?,
            key: self.tls_key.clone()?,
            client_ca: self.tls_client_ca.clone(),
        })
    }

    /// Checks what flags cannot express alone.
    pub fn validate(&self) -> anyhow::Result<()> {
        self.jwt_settings()?;
        self.webhooks.settings()?;
        if self.store == StoreKind::Jetstream {
            self.nats.validate()?;
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            anyhow::bail!("--tls-cert and --tls-key go together");
        }
        if self.tls_client_ca.is_some() && self.tls_cert.is_none() {
            anyhow::bail!("--tls-client-ca needs --tls-cert and --tls-key");
        }
        if self.auth == AuthMode::None && !self.listen.ip().is_loopback() && !self.insecure_no_auth
        {
            anyhow::bail!(
                "refusing to listen on {} without authentication: anyone who can reach it could \
                 read and forge every session. Use --auth jwt (see README, \"Authentication\"), \
                 listen on a loopback address, or pass --insecure-no-auth if a proxy in front \
                 authenticates",
                self.listen
            );
        }
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
            listen: DEFAULT_LISTEN,
            store: StoreKind::Embedded,
            nats: NatsConfig::default(),
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            store_cache_mb: DEFAULT_STORE_CACHE_MB,
            lane_cache_mb: DEFAULT_LANE_CACHE_BYTES >> 20,
            lane_cache_entries: DEFAULT_LANE_CACHE_ENTRIES,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_output_bytes: None,
            max_events_per_session: DEFAULT_MAX_EVENTS_PER_SESSION,
            session_ttl_secs: 0,
            expiry_interval_ms: DEFAULT_EXPIRY_INTERVAL_MS,
            heartbeat_interval_ms: DEFAULT_HEARTBEAT_INTERVAL.as_millis() as u64,
            subscriber_lag_limit: DEFAULT_SUBSCRIBER_LAG_LIMIT,
            lag_check_interval_ms: DEFAULT_LAG_CHECK_INTERVAL.as_millis() as u64,
            permission_timeout_secs: DEFAULT_PERMISSION_TIMEOUT.as_secs(),
            max_permission_timeout_secs: DEFAULT_MAX_PERMISSION_TIMEOUT.as_secs(),
            fleet_throttle_ms: DEFAULT_FLEET_THROTTLE.as_millis() as u64,
            shutdown_grace_ms: DEFAULT_SHUTDOWN_GRACE_MS,
            max_loaded_sessions: DEFAULT_MAX_LOADED_SESSIONS,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_streams_per_connection: DEFAULT_MAX_STREAMS_PER_CONNECTION,
            handshake_timeout_ms: DEFAULT_HANDSHAKE_TIMEOUT_MS,
            keepalive_interval_ms: DEFAULT_KEEPALIVE_INTERVAL_MS,
            keepalive_timeout_ms: DEFAULT_KEEPALIVE_TIMEOUT_MS,
            cors_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            auth: AuthMode::None,
            jwt_secret_file: None,
            jwt_jwks_file: None,
            jwt_audience: DEFAULT_JWT_AUDIENCE.to_owned(),
            jwt_issuer: None,
            jwt_leeway_secs: DEFAULT_JWT_LEEWAY_SECS,
            insecure_no_auth: false,
            tls_cert: None,
            tls_key: None,
            tls_client_ca: None,
            log_format: LogFormat::Human,
            metrics_listen: None,
            otlp: OtlpConfig::default(),
            webhooks: WebhookConfig::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::app::cli::{Cli, Command};

    #[test]
    fn cors_origins_are_checked_at_startup() {
        for ok in [
            "https://app.example.com",
            "http://localhost:5173",
            "http://[::1]:80",
        ] {
            assert_eq!(cors_origin(ok).as_deref(), Ok(ok));
        }
        for bad in [
            "*",
            "app.example.com",
            "ftp://x",
            "https://x/",
            "https://*.x",
            "https://",
        ] {
            let why = cors_origin(bad).unwrap_err();
            assert!(why.contains(&format!("{bad:?}")), "{why}");
        }
        let parsed = Cli::try_parse_from(["toolview", "serve", "--cors-origin", "https://x/app"]);
        let why = parsed.unwrap_err().to_string();
        assert!(
            why.contains("--cors-origin") && why.contains("https://x/app"),
            "{why}"
        );
    }

    /// Tests start servers from `ServeConfig::default()` (or `memory()`): it must be exactly
    /// what `toolview serve` runs with.
    #[test]
    fn the_default_is_what_the_binary_parses() {
        let Ok(Cli {
            command: Command::Serve(parsed),
        }) = Cli::try_parse_from(["toolview", "serve"])
        else {
            panic!("`toolview serve` parses to Serve");
        };
        assert_eq!(*parsed, ServeConfig::default());
    }
}
