//! One UI message stream: `start`, every update's chunks as `data:` lines (then a comment with
//! its cursor), comments for heartbeats, a new `start` after a `Reset`, then `finish` (after an
//! `error` when the stream failed) and `data: [DONE]`.

use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Bytes;
use futures_util::Stream;
use serde_json::json;

use super::StreamOptions;
use crate::error::Error;
use crate::http_edge::{Feed, FeedOptions, Next, sse_event};
use crate::render::{Body, Target, ai_sdk_frame as frame};
use crate::session::{Sessions, SubscribeItem};

/// The response body of a stream.
pub type ChunkStream = Pin<Box<dyn Stream<Item = Result<Bytes, std::convert::Infallible>> + Send>>;

/// What a prompt sent to a watched session is told: it goes nowhere.
const PROMPT_NOTICE: &str = "toolview shows what the harness does: this prompt was not sent to it";

enum Phase {
    Start,
    Streaming,
    Done,
}

struct Chunks {
    feed: Feed,
    session: String,
    prompted: bool,
    phase: Phase,
}

/// Subscribes as `options` ask and frames the subscription as one UI message stream.
pub async fn open(
    sessions: Arc<Sessions>,
    options: StreamOptions,
    valid_until: Option<SystemTime>,
) -> Result<ChunkStream, Error> {
    let feed = Feed::open(
        &sessions,
        FeedOptions {
            session: &options.session,
            start: &options.start,
            follow: options.follow,
            target: Target::AiSdk,
            caps: options.caps,
            valid_until,
        },
    )
    .await?;
    let chunks = Chunks {
        feed,
        session: options.session.to_string(),
        prompted: options.prompted,
        phase: Phase::Start,
    };
    Ok(Box::pin(futures_util::stream::unfold(
        chunks,
        |mut chunks| async {
            let out = chunks.step().await?;
            Some((Ok(Bytes::from(out)), chunks))
        },
    )))
}

impl Chunks {
    /// The next piece of the response; `None` once the stream is over.
    async fn step(&mut self) -> Option<String> {
        let mut out = String::new();
        match self.phase {
            Phase::Done => return None,
            Phase::Start => {
                self.phase = Phase::Streaming;
                sse_event(&mut out, &frame::start(&self.session), None);
                if self.prompted {
                    let notice = json!({"type": "data-toolview-notice", "data": {"text": PROMPT_NOTICE}, "transient": true});
                    sse_event(&mut out, &notice.to_string(), None);
                }
                if self.feed.until == Some(0) {
                    self.finish(&mut out, None);
                }
                return Some(out);
            }
            Phase::Streaming => {}
        }
        match self.feed.next().await {
            Next::Expired => {
                self.finish(&mut out, Some("the token expired; resume with a new one"))
            }
            Next::Item(Some(Ok(SubscribeItem::Update { delivered, cursor }))) => {
                if let Body::AiSdk(chunks) = &delivered.rendered.body {
                    for c in chunks {
                        sse_event(&mut out, c, None);
                    }
                }
                // Where the stream is, for whoever reads the raw stream (SSE clients skip it).
                out.push_str(&format!(
                    ": {}:{}\n\n",
                    cursor.epoch.as_str(),
                    cursor.offset
                ));
                if self.feed.ends_after(Some(cursor.offset)) {
                    self.finish(&mut out, None);
                }
            }
            Next::Item(Some(Ok(SubscribeItem::Heartbeat { head }))) => {
                out.push_str(&format!(": heartbeat {head}\n\n"));
                if self.feed.ends_after(None) {
                    self.finish(&mut out, None);
                }
            }
            Next::Item(Some(Ok(SubscribeItem::Reset { epoch, head }))) => {
                for c in frame::reset(&self.session, epoch.as_str(), head) {
                    sse_event(&mut out, &c, None);
                }
            }
            Next::Item(Some(Err(e))) => {
                let status = tonic::Status::from(Error::from(e));
                self.finish(&mut out, Some(status.message()));
            }
            // The subscription ended cleanly (the server is shutting down).
            Next::Item(None) => self.finish(&mut out, None),
        }
        Some(out)
    }

    /// `finish` (after an `error` when the stream failed), then `[DONE]`.
    fn finish(&mut self, out: &mut String, error: Option<&str>) {
        if let Some(message) = error {
            sse_event(out, &frame::error(message), None);
        }
        sse_event(out, &frame::finish(), None);
        sse_event(out, "[DONE]", None);
        self.phase = Phase::Done;
    }
}
