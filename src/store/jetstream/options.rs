//! What the JetStream store connects to and the stream it keeps logs in: the settings, the
//! stream configuration they ask for, and the checks of an existing stream and server.

use std::path::PathBuf;
use std::time::Duration;

use async_nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};

use super::subject;

/// The oldest server with everything the store uses: atomic batch publish (ADR-50, 2.12),
/// batch direct get (ADR-31, 2.11).
pub const MIN_SERVER_VERSION: (u64, u64) = (2, 12);
/// Consumers the stream allows: one per replica, with room for operators' tools. Explicit, so a
/// bug cannot exhaust the server's default (1,000 since 2.15).
pub const STREAM_MAX_CONSUMERS: i32 = 256;
/// Room on a stored message for its headers and the storage envelope around the event.
pub const MESSAGE_OVERHEAD: usize = 16 << 10;

/// Connection, stream and retention settings of the JetStream store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JetStreamOptions {
    /// Server URLs (`nats://`, `tls://`); the client fails over between them.
    pub urls: Vec<String>,
    /// User and password, if the servers ask for them.
    pub user_password: Option<(String, String)>,
    /// A token, if the servers ask for one.
    pub token: Option<String>,
    /// A `.creds` file (JWT and NKey seed), if the servers use decentralized auth.
    pub credentials_file: Option<PathBuf>,
    /// CA certificates (PEM) to verify the servers with; setting it requires TLS.
    pub tls_ca: Option<PathBuf>,
    /// The stream that holds every session's log.
    pub stream: String,
    /// Subjects are `<prefix>.<session>`.
    pub subject_prefix: String,
    /// Servers each event is replicated to before it is acknowledged (when the stream is made).
    pub replicas: usize,
    /// How long the server remembers `Nats-Msg-Id`s (a backstop for retried publishes).
    pub duplicate_window: Duration,
    /// Events kept per session (`max_msgs_per_subject`); 0 keeps all.
    pub max_events_per_session: u64,
    /// Events older than this are dropped (`max_age`); `None` keeps them.
    pub max_age: Option<Duration>,
    /// The largest event accepted, in bytes (the API's message limit).
    pub max_event_bytes: usize,
    /// Sessions whose id index a replica keeps in memory, at most.
    pub max_indexed_sessions: usize,
    /// How long to wait at start for a server to accept connections.
    pub startup_wait: Duration,
}

impl JetStreamOptions {
    /// The stream configuration the store creates when the stream is missing.
    pub fn stream_config(&self) -> stream::Config {
        stream::Config {
            name: self.stream.clone(),
            description: Some("toolview session logs: one subject per session".into()),
            subjects: vec![subject::all(&self.subject_prefix)],
            retention: RetentionPolicy::Limits,
            storage: StorageType::File,
            num_replicas: self.replicas.max(1),
            max_messages_per_subject: self.per_subject_limit(),
            discard: DiscardPolicy::Old,
            max_age: self.max_age.unwrap_or_default(),
            // NATS refuses a window longer than the stream's max_age.
            duplicate_window: match self.max_age {
                Some(age) => self.duplicate_window.min(age),
                None => self.duplicate_window,
            },
            max_message_size: i32::try_from(self.max_event_bytes + MESSAGE_OVERHEAD)
                .unwrap_or(i32::MAX),
            max_consumers: STREAM_MAX_CONSUMERS,
            allow_direct: true,
            allow_atomic_publish: true,
            republish: Some(self.republish()),
            ..stream::Config::default()
        }
    }

    /// Each stored message's headers, republished to its session's live subject: what a
    /// replica's feed subscribes to for the sessions it holds (`feed.rs`).
    pub fn republish(&self) -> stream::Republish {
        stream::Republish {
            source: subject::all(&self.subject_prefix),
            destination: subject::live_all(&self.subject_prefix),
            headers_only: true,
        }
    }

    fn per_subject_limit(&self) -> i64 {
        match self.max_events_per_session {
            0 => -1,
            n => i64::try_from(n).unwrap_or(i64::MAX),
        }
    }

    /// What in an existing stream's configuration breaks the store's guarantees; empty when
    /// it can be used.
    pub fn problems(&self, existing: &stream::Config) -> Vec<String> {
        let mut problems = Vec::new();
        let filter = subject::all(&self.subject_prefix);
        if !existing.subjects.contains(&filter) {
            problems.push(format!(
                "its subjects {:?} do not include {filter}",
                existing.subjects
            ));
        }
        if existing.retention != RetentionPolicy::Limits {
            problems.push("its retention is not `limits` (events would vanish when read)".into());
        }
        if existing.discard != DiscardPolicy::Old {
            problems
                .push("its discard policy is not `old` (full sessions would refuse events)".into());
        }
        let want = self.per_subject_limit();
        let have = if existing.max_messages_per_subject <= 0 {
            -1
        } else {
            existing.max_messages_per_subject
        };
        if have != want {
            problems.push(format!(
                "max_msgs_per_subject is {have}, but --max-events-per-session asks for {want}"
            ));
        }
        let age = self.max_age.unwrap_or_default();
        if existing.max_age != age {
            problems.push(format!(
                "max_age is {:?}, but --session-ttl-secs asks for {age:?}",
                existing.max_age
            ));
        }
        if !existing.allow_direct {
            problems.push("allow_direct is off (history is read by direct get)".into());
        }
        if !existing.allow_atomic_publish {
            problems.push("allow_atomic is off (a multi-event publish must be atomic)".into());
        }
        // No RePublish yet is fine: the store adds its own (`open_stream`).
        if let Some(r) = &existing.republish
            && *r != self.republish()
        {
            problems.push(format!(
                "it republishes {} to {} (the store needs {} republished, headers only, to {})",
                r.source,
                r.destination,
                subject::all(&self.subject_prefix),
                subject::live_all(&self.subject_prefix)
            ));
        }
        if existing.mirror.is_some() || existing.sealed {
            problems.push("it is a mirror or sealed, so it cannot take appends".into());
        }
        let needed = self.max_event_bytes + MESSAGE_OVERHEAD;
        if existing.max_message_size > 0 && (existing.max_message_size as usize) < needed {
            problems.push(format!(
                "max_msg_size is {} bytes, below the {needed} an event of --max-message-size \
                 needs",
                existing.max_message_size
            ));
        }
        problems
    }
}

/// Whether a server version (`2.15.1`, `2.12.0-beta.3`) is at least [`MIN_SERVER_VERSION`].
pub fn version_supported(version: &str) -> bool {
    let mut parts = version
        .split(['.', '-'])
        .map(|p| p.parse::<u64>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= MIN_SERVER_VERSION
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> JetStreamOptions {
        JetStreamOptions {
            urls: vec!["nats://127.0.0.1:4222".into()],
            user_password: None,
            token: None,
            credentials_file: None,
            tls_ca: None,
            stream: "TOOLVIEW".into(),
            subject_prefix: "toolview.s".into(),
            replicas: 3,
            duplicate_window: Duration::from_secs(120),
            max_events_per_session: 100,
            max_age: None,
            max_event_bytes: 4 << 20,
            max_indexed_sessions: 10,
            startup_wait: Duration::from_secs(1),
        }
    }

    #[test]
    fn the_stream_we_make_passes_our_checks_and_others_do_not() {
        let o = options();
        assert!(o.problems(&o.stream_config()).is_empty());
        let mut other = o.stream_config();
        other.max_messages_per_subject = 5;
        other.allow_atomic_publish = false;
        other.discard = DiscardPolicy::New;
        let problems = o.problems(&other);
        assert_eq!(problems.len(), 3, "{problems:?}");
    }

    #[test]
    fn versions() {
        assert!(version_supported("2.15.1"));
        assert!(version_supported("2.12.0-beta.3"));
        assert!(version_supported("3.0.0"));
        assert!(!version_supported("2.11.9"));
        assert!(!version_supported("2.9.10"));
        assert!(!version_supported("garbage"));
    }
}
