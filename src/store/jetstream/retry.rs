//! How long an append, and a read a publish waits on, keeps trying through a stream leader's
//! election: shared by `append.rs` and `load.rs`.

use std::time::Duration;

/// A publish that gets no answer (a lost acknowledgement, a leader election) is sent again, the
/// same, for this long: the compare-and-set (and `Nats-Msg-Id`) make the repeat harmless. It
/// outlasts a Raft election (4-9 s in nats-server) with room for a second one.
pub(super) const PUBLISH_PATIENCE: Duration = Duration::from_secs(15);
/// An attempt unanswered this long is sent again: a stream leader acknowledges in
/// milliseconds, and one that died never answers.
pub(super) const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);
/// Between attempts refused at once (no stream leader yet): doubling from the first to the
/// most, so an append goes through at most this long after the new leader is elected; only
/// the first append of each session's chain retries, so an election costs a few requests per
/// active session a second.
pub(super) const RETRY_FIRST_WAIT: Duration = Duration::from_millis(50);
pub(super) const RETRY_MAX_WAIT: Duration = Duration::from_millis(250);
