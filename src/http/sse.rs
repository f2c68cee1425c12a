//! A subscription as Server-Sent Events, for both JSON event-stream endpoints: the frame's
//! opening events, every update's events (framed by `render::StreamFrame`, encoded here, once per
//! event), a mark of each update's cursor, comments for heartbeats, the frame's reset, error and
//! end events, and the endpoint's trailer. What differs by endpoint is data in [`SseOptions`]:
//! how a cursor is marked, what follows the opening, the trailer, and (AG-UI) a history join's
//! snapshot.

use std::convert::Infallible;
use std::pin::Pin;

use axum::body::{Body, Bytes};
use axum::http::header::{self, HeaderName};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;

use super::Feed;
use super::messages::Messages;
use crate::domain::Cursor;
use crate::error::{Error, code_name};
use crate::render::{StreamEvent, StreamFrame};
use crate::session::{SessionError, SubscribeItem};

use super::Next;

/// A response body of Server-Sent Events.
pub type SseBody = Pin<Box<dyn Stream<Item = Result<Bytes, Infallible>> + Send>>;

/// What the stream says when the caller's token expires.
const EXPIRED: &str = "the token expired; resume with a new one after the last cursor";

/// An event-stream response with the endpoint's `extra` headers.
pub fn response(body: SseBody, extra: &[(HeaderName, &'static str)]) -> Response {
    let mut response = (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            // Proxies that buffer responses (nginx) would hold the live stream back.
            (HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(body),
    )
        .into_response();
    for (name, value) in extra {
        response
            .headers_mut()
            .insert(name.clone(), header::HeaderValue::from_static(value));
    }
    response
}

/// How a stream marks where each update leaves it.
#[derive(Debug, Clone, Copy)]
pub enum CursorMark {
    /// `id: <epoch>:<offset>` on the update's last event (a bare `id:` for an update with
    /// none), which an `EventSource` sends back as `Last-Event-ID`.
    EventId,
    /// A comment after the update, for whoever reads the raw stream (SSE clients skip it).
    Comment,
}

/// What an endpoint adds to the framing.
pub struct SseOptions {
    /// How cursors are marked.
    pub mark: CursorMark,
    /// Events sent right after the frame's opening ones.
    pub after_open: Vec<StreamEvent<'static>>,
    /// A `data:` line that ends the stream, after the frame's last events (`[DONE]`).
    pub trailer: Option<&'static str>,
    /// A history join: the replay up to `head` is folded into one snapshot instead of sent.
    pub snapshot: Option<Snapshot>,
    /// AG-UI native interrupts: the head found when the stream opened. Past it (or once the
    /// stream is idle) a pending permission request ends the run and the stream (`pause`).
    pub pause_from: Option<u64>,
    /// The AI SDK's answered approvals: the stream follows until their calls have a result.
    pub settle: Option<Settle>,
}

/// Calls whose approval a `useChat` POST answered: its stream goes on until each has a result
/// (`tool-output-available` or `-error`) and the head found when it opened was sent. While a
/// tool part stays `approval-responded`, the SDK's `sendAutomaticallyWhen` condition stays true,
/// so a stream that ended before the result made the chat post again and again.
pub struct Settle {
    /// The calls still without a result.
    pub calls: std::collections::BTreeSet<String>,
    /// The session's head when the stream opened.
    pub head: u64,
}

impl Settle {
    /// Takes the results among `events`; whether the stream may end after `offset` (`None`:
    /// idle, everything up to the head sent).
    fn settled(&mut self, events: &[StreamEvent<'_>], offset: Option<u64>) -> bool {
        use crate::render::UiChunk;
        for event in events {
            let StreamEvent::AiSdk(chunk) = event else {
                continue;
            };
            if let UiChunk::ToolOutputAvailable { tool_call_id, .. }
            | UiChunk::ToolOutputError { tool_call_id, .. } = chunk.as_ref()
            {
                self.calls.remove(tool_call_id);
            }
        }
        self.calls.is_empty() && offset.is_none_or(|o| o >= self.head)
    }
}

/// A history join still folding the replay up to `head` into its snapshot.
pub struct Snapshot {
    /// The fold so far.
    pub messages: Messages,
    /// The head found when the stream opened: the snapshot is sent once it is reached.
    pub head: u64,
}

/// Where a stream is.
enum Phase {
    Start,
    Streaming,
    Done,
}

struct Sse {
    feed: Feed,
    frame: StreamFrame,
    options: SseOptions,
    phase: Phase,
}

/// The stream of `feed`'s items, framed by `frame`.
pub fn stream(feed: Feed, frame: StreamFrame, options: SseOptions) -> SseBody {
    let sse = Sse {
        feed,
        frame,
        options,
        phase: Phase::Start,
    };
    Box::pin(futures_util::stream::unfold(sse, |mut sse| async {
        let chunk = sse.step().await?;
        Some((Ok(Bytes::from(chunk)), sse))
    }))
}

impl Sse {
    /// The next piece of the response; `None` once the stream is over.
    async fn step(&mut self) -> Option<String> {
        let mut out = String::new();
        match self.phase {
            Phase::Done => return None,
            Phase::Start => {
                self.open(&mut out);
                return Some(out);
            }
            Phase::Streaming => {}
        }
        match self.feed.next().await {
            Next::Expired => self.fail(&mut out, EXPIRED, "UNAUTHENTICATED"),
            Next::Item(Some(Ok(item))) if self.options.snapshot.is_some() => {
                self.collect(&mut out, item)
            }
            Next::Item(Some(Ok(item))) => self.item(&mut out, item),
            Next::Item(Some(Err(e))) => self.failed(&mut out, e),
            // The subscription ended cleanly (the server is shutting down).
            Next::Item(None) => self.finish(&mut out),
        }
        Some(out)
    }

    fn open(&mut self, out: &mut String) {
        self.phase = Phase::Streaming;
        let opening = self.frame.open();
        for event in opening.iter().chain(&self.options.after_open) {
            event_block(out, event, None);
        }
        if self.options.snapshot.as_ref().is_some_and(|s| s.head == 0) {
            self.send_snapshot(out, None);
        }
        if self.feed.until == Some(0) {
            self.finish(out);
        }
    }

    /// A history join's item: folded until the head, then the snapshot.
    fn collect(&mut self, out: &mut String, item: SubscribeItem) {
        let Some(snapshot) = self.options.snapshot.as_mut() else {
            return self.item(out, item);
        };
        match item {
            SubscribeItem::Update { delivered, cursor } => {
                if let crate::render::Body::AgUi(events) = &delivered.rendered.body {
                    snapshot.messages.apply_all(events);
                }
                let offset = cursor.offset;
                if offset >= snapshot.head {
                    self.send_snapshot(out, Some(cursor));
                    if self.feed.ends_after(Some(offset)) {
                        self.finish(out);
                    }
                } else {
                    self.frame.delivered(cursor);
                }
            }
            SubscribeItem::Heartbeat { head } => {
                // Nothing left to replay: the snapshot is complete.
                self.send_snapshot(out, None);
                heartbeat(out, head);
                if self.feed.ends_after(None) {
                    self.finish(out);
                }
            }
            // The log was replaced while folding: fold its replay instead.
            SubscribeItem::Reset { .. } => snapshot.messages.clear(),
        }
    }

    /// `MESSAGES_SNAPSHOT` of the history folded so far (marked with the cursor it reaches),
    /// after which the stream goes on live.
    fn send_snapshot(&mut self, out: &mut String, cursor: Option<Cursor>) {
        let Some(snapshot) = self.options.snapshot.take() else {
            return;
        };
        let event = StreamEvent::AgUi(std::borrow::Cow::Owned(snapshot.messages.into_snapshot()));
        event_block(out, &event, cursor.as_ref());
        if let Some(cursor) = cursor {
            self.frame.delivered(cursor);
        }
    }

    fn item(&mut self, out: &mut String, item: SubscribeItem) {
        match item {
            SubscribeItem::Update { delivered, cursor } => {
                let offset = cursor.offset;
                let events = self
                    .frame
                    .update(&delivered.rendered.body, Some(cursor.clone()));
                match self.options.mark {
                    CursorMark::EventId => match events.split_last() {
                        Some((last, rest)) => {
                            rest.iter().for_each(|e| event_block(out, e, None));
                            event_block(out, last, Some(&cursor));
                        }
                        // An update with no events still moves the cursor.
                        None => out.push_str(&format!("id: {}\n\n", cursor_text(&cursor))),
                    },
                    CursorMark::Comment => {
                        events.iter().for_each(|e| event_block(out, e, None));
                        out.push_str(&format!(": {}\n\n", cursor_text(&cursor)));
                    }
                }
                let settled = self
                    .options
                    .settle
                    .as_mut()
                    .map(|s| s.settled(&events, Some(offset)));
                if self.options.pause_from.is_some_and(|from| offset >= from) && self.pause(out) {
                    return;
                }
                if self.feed.ends_after(Some(offset)) || settled == Some(true) {
                    self.finish(out);
                }
            }
            SubscribeItem::Heartbeat { head } => {
                heartbeat(out, head);
                if self.options.pause_from.is_some() && self.pause(out) {
                    return;
                }
                let settled = self.options.settle.as_mut().map(|s| s.settled(&[], None));
                if self.feed.ends_after(None) || settled == Some(true) {
                    self.finish(out);
                }
            }
            SubscribeItem::Reset { epoch, head } => {
                for event in self.frame.reset(epoch.as_str(), head) {
                    event_block(out, &event, None);
                }
            }
        }
    }

    /// A pending permission request with native interrupts: the run ends with it, and so does
    /// the stream. `false` when nothing waits.
    fn pause(&mut self, out: &mut String) -> bool {
        let Some(events) = self.frame.pause() else {
            return false;
        };
        for event in &events {
            event_block(out, event, None);
        }
        self.close(out);
        true
    }

    fn failed(&mut self, out: &mut String, e: SessionError) {
        let e = Error::from(e);
        self.fail(out, e.public_message(), code_name(e.code()));
    }

    /// The frame's error events, the trailer, and the stream is over.
    fn fail(&mut self, out: &mut String, message: &str, code: &str) {
        for event in self.frame.error(message, code) {
            event_block(out, &event, None);
        }
        self.close(out);
    }

    /// The frame's end events, the trailer, and the stream is over.
    fn finish(&mut self, out: &mut String) {
        for event in self.frame.end() {
            event_block(out, &event, None);
        }
        self.close(out);
    }

    fn close(&mut self, out: &mut String) {
        if let Some(trailer) = self.options.trailer {
            data_line(out, trailer);
        }
        self.phase = Phase::Done;
    }
}

fn cursor_text(c: &Cursor) -> String {
    format!("{}:{}", c.epoch.as_str(), c.offset)
}

fn heartbeat(out: &mut String, head: u64) {
    out.push_str(&format!(": heartbeat {head}\n\n"));
}

/// One event: an optional `id:` line, then `data: <json>` and the blank line that ends it.
fn event_block(out: &mut String, event: &StreamEvent<'_>, id: Option<&Cursor>) {
    if let Some(c) = id {
        out.push_str("id: ");
        out.push_str(&cursor_text(c));
        out.push('\n');
    }
    data_line(out, &event.text());
}

fn data_line(out: &mut String, data: &str) {
    out.push_str("data: ");
    out.push_str(data);
    out.push_str("\n\n");
}
