//! The session layer's configuration: `SessionsConfig`, its defaults with their reasons, and the
//! clock it reads.

use std::sync::Arc;
use std::time::Duration;

use crate::metrics::Metrics;
use crate::store::now_ms;

/// Events kept per session by default: long agent sessions fit (a few hundred calls with
/// streamed output), and a replay stays a few seconds.
pub const DEFAULT_MAX_EVENTS_PER_SESSION: u64 = 100_000;
/// Heartbeats on an idle subscription: below the idle timeouts of common proxies (30–60 s), so
/// a quiet stream is not cut.
pub const DEFAULT_HEARTBEAT_INTERVAL: Duration = Duration::from_secs(15);
/// A subscriber that stops reading is ended this many events behind: a fast replay's worth,
/// so a briefly slow UI is not cut off.
pub const DEFAULT_SUBSCRIBER_LAG_LIMIT: u64 = 50_000;
/// How often a subscriber blocked on a full stream checks its lag: a few wake-ups a second per
/// stuck subscriber, and one noticed within a quarter second.
pub const DEFAULT_LAG_CHECK_INTERVAL: Duration = Duration::from_millis(250);
/// Rendered updates a lane caches, at most: subscribers joining or slightly behind read them
/// instead of re-rendering.
pub const DEFAULT_LANE_CACHE_ENTRIES: usize = 4096;
/// …and at most this many bytes of them (16 MiB).
pub const DEFAULT_LANE_CACHE_BYTES: usize = 16 << 20;
/// Sessions in memory at most: a loaded session costs about 1 KiB, so 10 MiB; a session
/// evicted costs one metadata read when it is used again.
pub const DEFAULT_MAX_LOADED_SESSIONS: usize = 10_000;
/// How long people have to answer a permission request that names no timeout: long enough to
/// notice a prompt and read it, short enough that an agent left waiting is told no soon.
pub const DEFAULT_PERMISSION_TIMEOUT: Duration = Duration::from_secs(300);
/// The longest timeout a request may name: a day covers a review across time zones; a pending
/// request holds an expiry timer, so it may not be forever.
pub const DEFAULT_MAX_PERMISSION_TIMEOUT: Duration = Duration::from_secs(24 * 3600);
/// A fleet watcher gets a busy session's activity twice a second: live enough for a person
/// glancing at a list, and a session streaming output costs each watcher a few notices a
/// second, not one per chunk.
pub const DEFAULT_FLEET_THROTTLE: Duration = Duration::from_millis(500);

/// Where the session layer reads the time for stored timestamps and TTL expiry, in milliseconds
/// since the Unix epoch: the wall clock (timestamps are persisted, so not a monotonic clock), or
/// one a test moves.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> u64 + Send + Sync>);

impl Clock {
    /// The system clock.
    pub fn wall() -> Self {
        Clock(Arc::new(now_ms))
    }

    /// A clock that reads `now`.
    pub fn new(now: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        Clock(Arc::new(now))
    }

    /// The time now.
    pub fn now_ms(&self) -> u64 {
        (self.0)()
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::wall()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Clock({} ms)", self.now_ms())
    }
}

/// Limits and timings of the session layer.
#[derive(Debug, Clone)]
pub struct SessionsConfig {
    /// Events kept per session (older ones are trimmed); 0 keeps everything.
    pub max_events_per_session: u64,
    /// Sessions idle for longer are deleted; `None` keeps them.
    pub session_ttl: Option<Duration>,
    /// Heartbeat period of idle subscriptions.
    pub heartbeat_interval: Duration,
    /// A subscriber more events behind than this is ended with `RESOURCE_EXHAUSTED`.
    pub subscriber_lag_limit: u64,
    /// How often a subscriber blocked on its full stream checks its lag.
    pub lag_check_interval: Duration,
    /// Rendered updates each shared lane keeps, at most…
    pub lane_cache: usize,
    /// …and at most about this many bytes of them.
    pub lane_cache_bytes: usize,
    /// The largest rendered update, about (a larger one is sent as a stand-in card): the
    /// message size limit less room for the envelope.
    pub max_update_bytes: usize,
    /// Sessions kept in memory at most: idle ones beyond are evicted, least recently used
    /// first (a session with a subscriber or a publish in flight is never evicted).
    pub max_loaded_sessions: usize,
    /// The time for stored timestamps and expiry.
    pub clock: Clock,
    /// The output cap ceiling: subscribers' caps are normalized to it
    /// ([`Capabilities::normalized`]); 0 leaves them as they are (no limit).
    pub max_output_bytes: u64,
    /// Where the session layer counts publishes, subscriptions and store latency.
    pub metrics: Arc<Metrics>,
    /// The timeout of a permission request that names none.
    pub permission_timeout: Duration,
    /// The longest timeout a permission request may name (a longer one is refused).
    pub max_permission_timeout: Duration,
    /// A session's fleet notices that change neither its state nor its prompts are sent at
    /// most once per this interval.
    pub fleet_throttle: Duration,
    /// Told of the transitions each durable append makes (the webhooks' queue), if anyone is.
    pub on_transition: Option<Arc<dyn TransitionSink>>,
}

/// What is told of a session's transitions ([`crate::domain::transitions`]), once per durable
/// append that made any, before the publish is acknowledged: a delivery queued here is
/// accepted before the harness hears its events are stored.
#[async_trait::async_trait]
pub trait TransitionSink: Send + Sync + std::fmt::Debug {
    /// `meta` is the session's metadata after the append (its summary, head and epoch).
    async fn transitioned(
        &self,
        session: &crate::domain::SessionId,
        meta: &crate::store::SessionMeta,
        transitions: Vec<crate::domain::Transition>,
    );
}

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            max_events_per_session: DEFAULT_MAX_EVENTS_PER_SESSION,
            session_ttl: None,
            heartbeat_interval: DEFAULT_HEARTBEAT_INTERVAL,
            subscriber_lag_limit: DEFAULT_SUBSCRIBER_LAG_LIMIT,
            lag_check_interval: DEFAULT_LAG_CHECK_INTERVAL,
            lane_cache: DEFAULT_LANE_CACHE_ENTRIES,
            lane_cache_bytes: DEFAULT_LANE_CACHE_BYTES,
            max_update_bytes: usize::MAX,
            max_loaded_sessions: DEFAULT_MAX_LOADED_SESSIONS,
            clock: Clock::wall(),
            max_output_bytes: 0,
            metrics: Arc::default(),
            permission_timeout: DEFAULT_PERMISSION_TIMEOUT,
            max_permission_timeout: DEFAULT_MAX_PERMISSION_TIMEOUT,
            fleet_throttle: DEFAULT_FLEET_THROTTLE,
            on_transition: None,
        }
    }
}
