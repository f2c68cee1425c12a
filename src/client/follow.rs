//! Following a session: one subscription after another, each resuming after the last cursor
//! the previous one delivered, so a client that reconnects misses nothing and sees nothing
//! twice. Every client program that follows a session (`tail`, `toolview acp`) does it here,
//! with one retry policy and one way of taking a `Reset`.

use std::time::Duration;

use tonic::Code;

use super::{Remote, connect};
use crate::grpc::pb::{self, subscribe_request::Start, subscribe_response::Item};
use crate::render::{Capabilities, Target};

/// The first pause before reconnecting…
const FIRST_RETRY_PAUSE: Duration = Duration::from_millis(250);
/// …doubling up to this (a server being replaced comes back within seconds; a client should
/// not hammer one that is down, nor wait minutes after it is back).
const MAX_RETRY_PAUSE: Duration = Duration::from_secs(10);

/// What the follower got.
#[derive(Debug)]
pub enum Followed {
    /// An update; the follower resumes after its cursor.
    Update(Box<pb::RenderedUpdate>),
    /// The log the client was shown is gone: drop what was shown; the updates that follow
    /// replay the log there is from its start.
    Reset {
        /// The log the updates now come from.
        epoch: String,
        /// Its head offset at the reset.
        head: u64,
    },
    /// The stream is idle: everything up to `head` was delivered.
    Heartbeat {
        /// The log's head offset.
        head: u64,
    },
    /// The connection or the stream broke (`why`) or the server ended it: the next call waits
    /// `pause`, then subscribes again, resuming as [`Follower::resume_point`] says.
    Reconnecting {
        /// What broke, for the log line.
        why: String,
        /// How long the next call waits before subscribing again.
        pause: Duration,
    },
}

/// Follows one session for one target, reconnecting after transient failures (see
/// [`transient`]); other failures are the caller's (the request, the token or the grants
/// will not change by retrying).
pub struct Follower {
    remote: Remote,
    request: pb::SubscribeRequest,
    /// Whether a broken stream is followed again (`false`: it is an error).
    reconnect: bool,
    stream: Option<tonic::Streaming<pb::SubscribeResponse>>,
    /// The pause before the next subscription, when the last one broke.
    wait: Option<Duration>,
    pause: Duration,
}

impl Follower {
    /// The server it follows.
    pub fn remote(&self) -> &Remote {
        &self.remote
    }

    /// A follower of `session` from `start`, reconnecting when `reconnect`.
    pub fn new(
        remote: Remote,
        session: &str,
        target: Target,
        caps: Capabilities,
        start: Start,
        reconnect: bool,
    ) -> Self {
        Follower {
            remote,
            request: pb::SubscribeRequest {
                session_id: session.to_owned(),
                target: pb::Target::from(target) as i32,
                capabilities: Some(pb::Capabilities::from(caps)),
                start: Some(start),
            },
            reconnect,
            stream: None,
            wait: None,
            pause: FIRST_RETRY_PAUSE,
        }
    }

    /// Where the next subscription would start, for messages: "after offset N" or "from the
    /// start point".
    pub fn resume_point(&self) -> String {
        match &self.request.start {
            Some(Start::After(c)) => format!("after offset {}", c.offset),
            _ => "from the start point".to_owned(),
        }
    }

    /// The next item; `Err` for a failure retrying would not change (or any failure, when not
    /// reconnecting). Cancel-safe: a call dropped while it waits (a redraw timer) loses nothing;
    /// the stream stays and the next call goes on reading it.
    pub async fn next(&mut self) -> Result<Followed, tonic::Status> {
        if let Some(pause) = self.wait {
            tokio::time::sleep(pause).await;
            self.wait = None;
        }
        if self.stream.is_none() {
            match self.subscribe().await {
                Ok(stream) => self.stream = Some(stream),
                Err(status) => return self.broke(status),
            }
        }
        let stream = self.stream.as_mut().expect("subscribed above");
        let next = loop {
            match stream.message().await {
                Ok(Some(msg)) => match msg.item {
                    Some(item) => break Ok(item),
                    // A newer server's item this client does not know: nothing to show.
                    None => continue,
                },
                Ok(None) => break Err(tonic::Status::unavailable("the server ended the stream")),
                Err(status) => break Err(status),
            }
        };
        let item = match next {
            Ok(item) => item,
            Err(status) => return self.broke(status),
        };
        self.pause = FIRST_RETRY_PAUSE;
        Ok(match item {
            Item::Update(u) => {
                if let Some(cursor) = &u.cursor {
                    self.request.start = Some(Start::After(cursor.clone()));
                }
                Followed::Update(Box::new(u))
            }
            Item::Reset(r) => {
                // The cursor belongs to the log that is gone: a stream that breaks before the
                // replay delivers an update starts that replay again.
                self.request.start = Some(Start::FromBeginning(pb::StartFromBeginning {}));
                Followed::Reset {
                    epoch: r.epoch,
                    head: r.head_offset,
                }
            }
            Item::Heartbeat(h) => Followed::Heartbeat {
                head: h.head_offset,
            },
        })
    }

    async fn subscribe(&self) -> Result<tonic::Streaming<pb::SubscribeResponse>, tonic::Status> {
        let mut client = connect(&self.remote)
            .await
            .map_err(|e| tonic::Status::unavailable(format!("{e:#}")))?;
        Ok(client.subscribe(self.request.clone()).await?.into_inner())
    }

    /// The stream is gone: a pause before the next one, or the failure.
    fn broke(&mut self, status: tonic::Status) -> Result<Followed, tonic::Status> {
        self.stream = None;
        if !self.reconnect || !transient(status.code()) {
            return Err(status);
        }
        let pause = jitter(self.pause);
        self.pause = (self.pause * 2).min(MAX_RETRY_PAUSE);
        self.wait = Some(pause);
        let why = match status.code() {
            Code::Unavailable => status.message().to_owned(),
            code => format!("{code}: {}", status.message()),
        };
        Ok(Followed::Reconnecting { why, pause })
    }
}

/// Whether a failed subscription is worth following again: the server or the connection, not
/// the request. `RESOURCE_EXHAUSTED` is a subscriber that fell too far behind (it catches up
/// from its cursor); `ABORTED` and `CANCELLED` a server or proxy that ended the stream; `UNKNOWN`
/// a connection that broke mid-stream (HTTP/2 resets surface so).
fn transient(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable
            | Code::Unknown
            | Code::Cancelled
            | Code::Aborted
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
    )
}

/// Between half and all of `pause`, at random: clients that lost one server do not all come
/// back to the next at the same instant.
pub(super) fn jitter(pause: Duration) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let half = pause / 2;
    half + half.mul_f64((random % 1024) as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_between_half_and_all_of_the_pause() {
        let pause = Duration::from_millis(1000);
        let pauses: Vec<_> = (0..64).map(|_| jitter(pause)).collect();
        assert!(pauses.iter().all(|p| *p >= pause / 2 && *p <= pause));
        // Not one fixed value: 64 draws from 1024 are not all equal.
        assert!(pauses.iter().any(|p| *p != pauses[0]));
    }

    #[test]
    fn only_failures_of_the_server_or_the_connection_are_retried() {
        for code in [Code::Unavailable, Code::Unknown, Code::ResourceExhausted] {
            assert!(transient(code), "{code:?}");
        }
        for code in [
            Code::InvalidArgument,
            Code::NotFound,
            Code::PermissionDenied,
            Code::Unauthenticated,
            Code::FailedPrecondition,
            Code::Internal,
        ] {
            assert!(!transient(code), "{code:?}");
        }
    }
}
