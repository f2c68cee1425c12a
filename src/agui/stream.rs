//! One run's Server-Sent Events: `RUN_STARTED`, every update's AG-UI events (the last event of
//! each update carries `id: <epoch>:<offset>`, its cursor), comments for heartbeats, a new run
//! after a `Reset`, and `RUN_FINISHED` (with the cursor to resume after) or `RUN_ERROR` at the
//! end.

use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Bytes;
use futures_util::Stream;

use super::RunOptions;
use super::messages::Messages;
use crate::domain::Cursor;
use crate::error::Error;
use crate::http_edge::{Feed, FeedOptions, Next, sse_event};
use crate::render::{Body, RunFrame, Target};
use crate::session::{SessionError, Sessions, SubscribeItem};

/// The response body of a run.
pub type RunStream = Pin<Box<dyn Stream<Item = Result<Bytes, std::convert::Infallible>> + Send>>;

/// Where a run is.
enum Phase {
    Start,
    Streaming,
    Done,
}

struct Run {
    feed: Feed,
    frame: RunFrame,
    phase: Phase,
    /// A history join still folding the replay up to `head` into its snapshot.
    collecting: Option<Collecting>,
}

struct Collecting {
    messages: Messages,
    head: u64,
}

/// Subscribes as `options` ask and frames the subscription as AG-UI runs.
pub async fn open(
    sessions: Arc<Sessions>,
    options: RunOptions,
    valid_until: Option<SystemTime>,
) -> Result<RunStream, Error> {
    let feed = Feed::open(
        &sessions,
        FeedOptions {
            session: &options.session,
            start: &options.start,
            follow: options.follow,
            target: Target::AgUi,
            caps: options.caps,
            valid_until,
        },
    )
    .await?;
    let last = feed.at_head.clone();
    let collecting = match options.snapshot {
        None => None,
        Some(limit) => Some(Collecting {
            messages: Messages::new(limit),
            head: match sessions.info(&options.session).await {
                Ok(info) => info.meta.head_offset,
                Err(SessionError::NotFound(_)) => 0,
                Err(e) => return Err(e.into()),
            },
        }),
    };
    let run = Run {
        feed,
        frame: RunFrame::new(options.session.as_str(), options.run_id(), last),
        phase: Phase::Start,
        collecting,
    };
    Ok(Box::pin(futures_util::stream::unfold(
        run,
        |mut run| async {
            let chunk = run.step().await?;
            Some((Ok(Bytes::from(chunk)), run))
        },
    )))
}

impl Run {
    /// The next chunk of the response; `None` once the run is over.
    async fn step(&mut self) -> Option<String> {
        let mut out = String::new();
        match self.phase {
            Phase::Done => return None,
            Phase::Start => {
                self.phase = Phase::Streaming;
                sse_event(&mut out, &self.frame.started(), None);
                if self.collecting.as_ref().is_some_and(|c| c.head == 0) {
                    self.snapshot(&mut out, None);
                }
                if self.feed.until == Some(0) {
                    self.finish(&mut out);
                }
                return Some(out);
            }
            Phase::Streaming => {}
        }
        let next = self.feed.next().await;
        let next = match (self.collecting.as_mut(), next) {
            (Some(c), Next::Item(Some(Ok(SubscribeItem::Update { delivered, cursor })))) => {
                if let Body::AgUi(events) = &delivered.rendered.body {
                    c.messages.apply_all(events);
                }
                let offset = cursor.offset;
                if offset >= c.head {
                    self.snapshot(&mut out, Some(cursor));
                    if self.feed.ends_after(Some(offset)) {
                        self.finish(&mut out);
                    }
                } else {
                    self.frame.delivered(cursor);
                }
                return Some(out);
            }
            (Some(_), Next::Item(Some(Ok(SubscribeItem::Heartbeat { head })))) => {
                // Nothing left to replay: the snapshot is complete.
                self.snapshot(&mut out, None);
                out.push_str(&format!(": heartbeat {head}\n\n"));
                if self.feed.ends_after(None) {
                    self.finish(&mut out);
                }
                return Some(out);
            }
            (Some(c), Next::Item(Some(Ok(SubscribeItem::Reset { .. })))) => {
                // The log was replaced while folding: fold its replay instead.
                c.messages.clear();
                return Some(out);
            }
            (_, next) => next,
        };
        match next {
            Next::Expired => {
                let message = "the token expired; resume with a new one after the last cursor";
                sse_event(&mut out, &RunFrame::error(message, "UNAUTHENTICATED"), None);
                self.phase = Phase::Done;
            }
            Next::Item(Some(Ok(SubscribeItem::Update { delivered, cursor }))) => {
                let id = format!("{}:{}", cursor.epoch.as_str(), cursor.offset);
                let offset = cursor.offset;
                match &delivered.rendered.body {
                    Body::AgUi(events) if !events.is_empty() => {
                        let framed = self.frame.update(events, Some(cursor));
                        for e in &framed.before {
                            sse_event(&mut out, e, None);
                        }
                        let (last, rest) = events.split_last().expect("not empty");
                        for e in rest {
                            sse_event(&mut out, e, None);
                        }
                        sse_event(&mut out, framed.last.as_deref().unwrap_or(last), Some(&id));
                    }
                    // An update with no events still moves the cursor.
                    _ => {
                        out.push_str(&format!("id: {id}\n\n"));
                        self.frame.delivered(cursor);
                    }
                }
                if self.feed.ends_after(Some(offset)) {
                    self.finish(&mut out);
                }
            }
            Next::Item(Some(Ok(SubscribeItem::Heartbeat { head }))) => {
                out.push_str(&format!(": heartbeat {head}\n\n"));
                if self.feed.ends_after(None) {
                    self.finish(&mut out);
                }
            }
            Next::Item(Some(Ok(SubscribeItem::Reset { epoch, head }))) => {
                for e in self.frame.reset(epoch.as_str(), head) {
                    sse_event(&mut out, &e, None);
                }
            }
            Next::Item(Some(Err(e))) => {
                let status = tonic::Status::from(Error::from(e));
                let code = crate::grpc::code_name(status.code());
                sse_event(&mut out, &RunFrame::error(status.message(), code), None);
                self.phase = Phase::Done;
            }
            // The subscription ended cleanly (the server is shutting down).
            Next::Item(None) => self.finish(&mut out),
        }
        Some(out)
    }

    /// `MESSAGES_SNAPSHOT` of the history folded so far (with the cursor it reaches), after
    /// which the run goes on live.
    fn snapshot(&mut self, out: &mut String, cursor: Option<Cursor>) {
        let Some(c) = self.collecting.take() else {
            return;
        };
        let id = cursor
            .as_ref()
            .map(|c| format!("{}:{}", c.epoch.as_str(), c.offset));
        sse_event(out, &c.messages.snapshot(), id.as_deref());
        if let Some(cursor) = cursor {
            self.frame.delivered(cursor);
        }
    }

    fn finish(&mut self, out: &mut String) {
        if let Some(end) = self.frame.end() {
            sse_event(out, &end, None);
        }
        self.phase = Phase::Done;
    }
}
