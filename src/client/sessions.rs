//! `toolview sessions`: the sessions a token may read, as a table with each one's state and
//! what it is doing (or waiting for), or as JSON lines; filtered by state.

use std::io::Write;

use super::remote::{Remote, connect};
use crate::grpc::convert::state_name;
use crate::grpc::json::to_json;
use crate::grpc::pb;
use crate::render::visible;

/// Sessions per page asked of the server.
const PAGE: u32 = 500;
/// Characters of a title or an activity line shown in a table cell.
const CELL_CHARS: usize = 48;

/// What to list, and how.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// Only these states (empty: all).
    pub states: Vec<pb::SessionState>,
    /// One JSON line per session (the protobuf JSON mapping of `GetSessionResponse`).
    pub json: bool,
    /// Stay: follow the fleet live (see `sessions_watch`).
    pub watch: bool,
    /// While watching, answer the oldest prompt waiting with a key per option.
    pub approve: bool,
}

/// Lists every session the remote's token may read, page by page.
pub async fn list_sessions(
    remote: &Remote,
    listing: &Listing,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut client = connect(remote).await?;
    let mut token = String::new();
    if !listing.json {
        writeln!(out, "{}", header())?;
    }
    loop {
        let page = client
            .list_sessions(pb::ListSessionsRequest {
                page_size: PAGE,
                page_token: token,
                states: listing.states.iter().map(|s| *s as i32).collect(),
                ..pb::ListSessionsRequest::default()
            })
            .await
            .map_err(|s| super::failure::call_failed(&s, remote))?
            .into_inner();
        for s in &page.sessions {
            if listing.json {
                writeln!(out, "{}", to_json(s, "toolview.v1.GetSessionResponse"))?;
            } else {
                writeln!(out, "{}", row(s).trim_end())?;
            }
        }
        if page.next_page_token.is_empty() {
            return Ok(());
        }
        token = page.next_page_token;
    }
}

/// The table's header line.
pub(super) fn header() -> String {
    format!(
        "{:<16} {:<28} {:<CELL_CHARS$} NOW",
        "STATE", "SESSION", "TITLE"
    )
}

/// One table row: state, session, title, and what it does now (the oldest prompt waiting, or
/// its activity). Every text from the session is shown safe for a terminal.
pub(super) fn row(s: &pb::GetSessionResponse) -> String {
    let summary = s.summary.clone().unwrap_or_default();
    let state = state_name(summary.state());
    let now = match summary.pending.first() {
        Some(p) => format!("waiting: {}", p.title),
        None => summary.activity.clone(),
    };
    format!(
        "{state:<16} {:<28} {:<CELL_CHARS$} {}",
        cell(&s.session_id, 28),
        cell(&s.title, CELL_CHARS),
        cell(&now, CELL_CHARS)
    )
}

/// `text` on one line, at most `max` characters (an ellipsis marks a cut), safe for a terminal.
fn cell(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut out: String = line.chars().take(max).collect();
    if line.chars().nth(max).is_some() {
        out.pop();
        out.push('…');
    }
    visible(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_one_safe_line_within_its_width() {
        assert_eq!(cell("title\nmore", 10), "title");
        assert_eq!(cell("abcdefghijk", 5), "abcd…");
        assert!(!cell("\u{1b}]52;c;aGk=\u{7}x", 40).contains('\u{1b}'));
    }
}
