//! A page of a session's VIEW updates after a cursor: what the MCP App's view is given by
//! `watch_session` (the first page) and `poll_session` (each next one), each update in the
//! protobuf JSON of a `RenderedUpdate` (what `@toolview/client` reads). Bounded in updates, bytes
//! and time; at the head it waits (up to the asked wait) for the next update.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::time::{Instant, timeout_at};
use tokio_stream::StreamExt as _;

use super::backend::{Backend, Item};
use super::input::MAX_WAIT_MS;
use crate::domain::Cursor;
use crate::grpc::{json::to_json_value, pb, rendered_update};

/// Updates one page holds at most.
pub const MAX_PAGE_UPDATES: usize = 200;
/// Bytes of updates one page holds at most, roughly (the update that crosses it is the last).
pub const MAX_PAGE_BYTES: usize = 512 << 10;
/// The longest `poll_session` waits at the head for the next update (`waitMs` past it is
/// lowered): well under the tool-call timeouts of hosts.
pub const MAX_POLL_WAIT: Duration = Duration::from_millis(MAX_WAIT_MS);
/// Once the first update came after a wait, what arrives this soon after joins the page.
const GATHER: Duration = Duration::from_millis(50);
/// Reading the updates up to the head takes at most this long (a server that stalls).
const CATCH_UP: Duration = Duration::from_secs(10);

/// A page: the updates (protobuf JSON of `RenderedUpdate`), the cursor after them, and whether
/// the view must start over first (the log was trimmed or replaced: a reset, after which the
/// page holds the log from its beginning).
#[derive(Debug, Default, Serialize)]
pub struct Page {
    /// The session.
    pub session: String,
    /// The updates, oldest first.
    pub updates: Vec<Value>,
    /// Where the next page starts; `None` while the session has no event.
    pub cursor: Option<PageCursor>,
    /// The view must clear what it shows and read from the beginning.
    pub reset: bool,
    /// More updates are waiting (the page was full).
    pub more: bool,
}

/// A page's cursor, its offset a number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageCursor {
    /// The log's epoch.
    pub epoch: String,
    /// The last offset the page holds.
    pub offset: u64,
}

impl From<&Cursor> for PageCursor {
    fn from(c: &Cursor) -> Self {
        PageCursor {
            epoch: c.epoch.to_string(),
            offset: c.offset,
        }
    }
}

/// The session's head (`None` before its first event), and its VIEW updates after `after` (from
/// the beginning without one).
async fn open(
    backend: &impl Backend,
    session: &str,
    after: Option<&Cursor>,
) -> Result<(Option<u64>, super::Updates), tonic::Status> {
    let head = match backend
        .get_session(pb::GetSessionRequest {
            session_id: session.into(),
        })
        .await
    {
        Ok(info) => Some(info.head_offset),
        Err(status) if status.code() == tonic::Code::NotFound => None,
        Err(status) => return Err(status),
    };
    Ok((head, backend.view(session, after).await?))
}

/// Reads the page after `after` (from the beginning without one), waiting up to `wait` at the
/// head. A session that does not exist yet is an empty page (its view waits for it).
pub async fn read_page(
    backend: &impl Backend,
    session: &str,
    after: Option<Cursor>,
    wait: Duration,
) -> Result<Page, tonic::Status> {
    let (head, mut stream) = open(backend, session, after.as_ref()).await?;
    let at_head = match (&after, head) {
        (_, None) => true,
        (Some(a), Some(head)) => a.offset >= head,
        (None, Some(head)) => head == 0,
    };
    let mut reading = Reading {
        page: Page {
            session: session.to_owned(),
            cursor: after.as_ref().map(PageCursor::from),
            ..Page::default()
        },
        head,
        at_head,
        bytes: 0,
    };
    let now = Instant::now();
    // Up to the head without waiting for anything new; at the head, the asked wait.
    let mut deadline = if at_head {
        now + wait.min(MAX_POLL_WAIT)
    } else {
        now + CATCH_UP
    };
    while let Ok(item) = timeout_at(deadline, stream.next()).await {
        let Some(item) = item else { break };
        match reading.read(item?) {
            Next::Done => break,
            Next::Gather => deadline = deadline.min(Instant::now() + GATHER),
            Next::CatchUp => deadline = Instant::now() + CATCH_UP,
            Next::More => {}
        }
    }
    Ok(reading.page)
}

/// A page being read.
struct Reading {
    page: Page,
    head: Option<u64>,
    at_head: bool,
    /// What the page's updates weigh, roughly.
    bytes: usize,
}

/// What to do after an item.
enum Next {
    /// The page is complete.
    Done,
    /// Wait a little for what comes right after (at the head).
    Gather,
    /// Read up to the new head (after a reset).
    CatchUp,
    /// Read on.
    More,
}

impl Reading {
    fn read(&mut self, item: Item) -> Next {
        match item {
            Item::Update { cursor, rendered } => {
                self.bytes += rendered.approx_bytes();
                let update = rendered_update(rendered, Some(cursor.clone()));
                self.page
                    .updates
                    .push(to_json_value(&update, "toolview.v1.RenderedUpdate"));
                self.page.cursor = Some(PageCursor::from(&cursor));
                let reached = self.head.is_some_and(|h| cursor.offset >= h);
                if self.page.updates.len() >= MAX_PAGE_UPDATES || self.bytes >= MAX_PAGE_BYTES {
                    self.page.more = !reached;
                    Next::Done
                } else if self.at_head {
                    // Whatever comes right after the first joins it.
                    Next::Gather
                } else if reached {
                    Next::Done
                } else {
                    Next::More
                }
            }
            // The cursor is not usable (the log was trimmed or replaced): the view starts over,
            // and the updates that follow are the log from its beginning.
            Item::Reset { head } => {
                self.page.reset = true;
                self.page.updates.clear();
                self.page.cursor = None;
                self.bytes = 0;
                self.head = Some(head);
                self.at_head = head == 0;
                match self.at_head {
                    true => Next::More,
                    false => Next::CatchUp,
                }
            }
            // An idle stream's heartbeat: nothing more up to the head.
            Item::Heartbeat if !self.at_head => Next::Done,
            Item::Heartbeat => Next::More,
        }
    }
}
