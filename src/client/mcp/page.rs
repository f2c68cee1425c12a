//! A page of a session's VIEW updates after a cursor, read over gRPC: what the MCP App's view
//! is given by `watch_session` (the first page) and `poll_session` (each next one). Bounded in
//! updates, bytes and time; at the head it waits (up to the asked wait) for the next update.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::{Instant, timeout_at};
use tokio_stream::StreamExt as _;

use super::backend::Backend;
use crate::client::json::to_json;
use crate::grpc::pb::{self, subscribe_request::Start, subscribe_response::Item};

/// Updates one page holds at most.
pub const MAX_PAGE_UPDATES: usize = 200;
/// Bytes of update JSON one page holds at most (the update that crosses it is the last).
pub const MAX_PAGE_BYTES: usize = 512 << 10;
/// The longest `poll_session` waits at the head for the next update (`waitMs` past it is
/// lowered): well under the tool-call timeouts of hosts.
pub const MAX_POLL_WAIT: Duration = Duration::from_secs(20);
/// Once the first update came after a wait, what arrives this soon after joins the page.
const GATHER: Duration = Duration::from_millis(50);
/// Reading the updates up to the head takes at most this long (a server that stalls).
const CATCH_UP: Duration = Duration::from_secs(10);

/// Where a page starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct After {
    /// The log's epoch the cursor is in.
    pub epoch: String,
    /// The last offset the view has.
    pub offset: u64,
}

/// A page: the updates (protobuf JSON of `RenderedUpdate`), the cursor after them, and whether
/// the view must start over first (the log was trimmed or replaced: a reset, after which the
/// page holds the log from its beginning).
#[derive(Debug, Default)]
pub struct Page {
    /// The updates, oldest first.
    pub updates: Vec<Value>,
    /// Where the next page starts; `None` while the session has no event.
    pub cursor: Option<After>,
    /// The view must clear what it shows and read from the beginning.
    pub reset: bool,
    /// More updates are waiting (the page was full).
    pub more: bool,
}

impl Page {
    /// The page as the tool result's structured content.
    pub fn to_json(&self, session: &str) -> Value {
        json!({
            "session": session,
            "updates": self.updates,
            "cursor": self.cursor.as_ref().map(|c| json!({"epoch": c.epoch, "offset": c.offset})),
            "reset": self.reset,
            "more": self.more,
        })
    }
}

/// What a VIEW subscriber that draws every card asks for (the viewer's capabilities).
pub(super) fn capabilities() -> pb::Capabilities {
    pb::Capabilities {
        terminal: true,
        diff: true,
        read: true,
        search: true,
        web: true,
        output_appends: true,
        reasoning: true,
        ..Default::default()
    }
}

/// The session's head (`None` before its first event), and a VIEW subscription after `after`
/// (from the beginning without one).
async fn open(
    backend: &impl Backend,
    session: &str,
    after: Option<&After>,
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
    let start = match after {
        Some(a) => Start::After(pb::Cursor {
            epoch: a.epoch.clone(),
            offset: a.offset,
        }),
        None => Start::FromBeginning(pb::StartFromBeginning {}),
    };
    let request = pb::SubscribeRequest {
        session_id: session.into(),
        target: pb::Target::View.into(),
        capabilities: Some(capabilities()),
        start: Some(start),
    };
    Ok((head, backend.subscribe(request).await?))
}

/// Reads the page after `after` (from the beginning without one), waiting up to `wait` at the
/// head. A session that does not exist yet is an empty page (its view waits for it).
pub async fn read_page(
    backend: &impl Backend,
    session: &str,
    after: Option<After>,
    wait: Duration,
) -> Result<Page, tonic::Status> {
    let (mut head, mut stream) = open(backend, session, after.as_ref()).await?;
    let mut at_head = match (&after, head) {
        (_, None) => true,
        (Some(a), Some(head)) => a.offset >= head,
        (None, Some(head)) => head == 0,
    };
    let mut page = Page {
        cursor: after,
        ..Page::default()
    };
    let now = Instant::now();
    // Up to the head without waiting for anything new; at the head, the asked wait.
    let mut deadline = if at_head {
        now + wait.min(MAX_POLL_WAIT)
    } else {
        now + CATCH_UP
    };
    let mut bytes = 0;
    while let Ok(item) = timeout_at(deadline, stream.next()).await {
        let Some(item) = item else { break };
        match item?.item {
            Some(Item::Update(update)) => {
                let offset = update.cursor.as_ref().map(|c| (c.epoch.clone(), c.offset));
                let text = to_json(&update, "toolview.v1.RenderedUpdate");
                bytes += text.len();
                page.updates
                    .push(serde_json::from_str(&text).unwrap_or(Value::Null));
                if let Some((epoch, offset)) = offset {
                    page.cursor = Some(After { epoch, offset });
                }
                let reached =
                    head.is_some_and(|h| page.cursor.as_ref().is_some_and(|c| c.offset >= h));
                if page.updates.len() >= MAX_PAGE_UPDATES || bytes >= MAX_PAGE_BYTES {
                    page.more = !reached;
                    break;
                }
                if at_head {
                    // Whatever comes right after the first joins it.
                    deadline = deadline.min(Instant::now() + GATHER);
                } else if reached {
                    break;
                }
            }
            // The cursor is not usable (the log was trimmed or replaced): the view starts over,
            // and the updates that follow are the log from its beginning.
            Some(Item::Reset(reset)) => {
                page.reset = true;
                page.updates.clear();
                page.cursor = None;
                bytes = 0;
                head = Some(reset.head_offset);
                at_head = reset.head_offset == 0;
                if !at_head {
                    deadline = Instant::now() + CATCH_UP;
                }
            }
            // An idle stream's heartbeat: nothing more up to the head.
            Some(Item::Heartbeat(_)) if !at_head => break,
            Some(Item::Heartbeat(_)) | None => {}
        }
    }
    Ok(page)
}
