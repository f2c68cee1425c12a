//! `toolview sessions --watch`: the fleet, live (`WatchSessions`). On a terminal the table is
//! drawn again in place at each change, sessions waiting on a person first (like `top`); piped,
//! each change is one more line (a row, or with `--json` a `GetSessionResponse`). With
//! `--approve`, keys `1`…`9` answer the oldest prompt waiting with its option of that number
//! (the same keys as `tail --approve`), recorded `via sessions`.

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write};

use tokio::io::AsyncReadExt as _;

use super::approve::{Answer, approve};
use super::keys::RawKeys;
use super::remote::{Remote, connect};
use super::sessions::{Listing, header, row};
use crate::grpc::json::to_json;
use crate::grpc::pb::{self, watch_sessions_response::Item};

/// Clears a terminal and puts the cursor home: the table is drawn again from the top.
const REDRAW: &str = "\x1b[H\x1b[2J";

/// Where a session goes in the table: waiting (longest first), running, failed, idle.
fn order(s: &pb::GetSessionResponse) -> (u8, i64, String) {
    let summary = s.summary.as_ref();
    let rank = match summary.map(pb::SessionSummary::state) {
        Some(pb::SessionState::RequiresAction) => 0,
        Some(pb::SessionState::Running) => 1,
        Some(pb::SessionState::Failed) => 2,
        Some(pb::SessionState::Idle) => 3,
        Some(pb::SessionState::Ended) => 4,
        Some(pb::SessionState::Unspecified) | None => 5,
    };
    let asked = summary
        .and_then(|s| s.pending.first())
        .and_then(|p| p.requested_at.as_ref())
        .map_or(0, |t| t.seconds);
    (rank, asked, s.session_id.clone())
}

/// The fleet as the watch has told it.
struct Fleet {
    sessions: BTreeMap<String, pb::GetSessionResponse>,
    terminal: bool,
    json: bool,
}

impl Fleet {
    /// The sessions in table order.
    fn sorted(&self) -> Vec<&pb::GetSessionResponse> {
        let mut all: Vec<_> = self.sessions.values().collect();
        all.sort_by_key(|s| order(s));
        all
    }

    /// Shows the whole fleet (a terminal's redraw, or the first page piped).
    fn draw(&self, out: &mut impl Write) -> std::io::Result<()> {
        if self.terminal {
            write!(out, "{REDRAW}")?;
        }
        if !self.json {
            writeln!(out, "{}", header())?;
        }
        for s in self.sorted() {
            self.line(s, out)?;
        }
        out.flush()
    }

    fn line(&self, s: &pb::GetSessionResponse, out: &mut impl Write) -> std::io::Result<()> {
        if self.json {
            writeln!(out, "{}", to_json(s, "toolview.v1.GetSessionResponse"))
        } else {
            writeln!(out, "{}", row(s).trim_end())
        }
    }

    /// The oldest prompt waiting: its session, request and options.
    fn first_prompt(&self) -> Option<(String, pb::PendingPrompt)> {
        let s = self.sorted().into_iter().next()?;
        let prompt = s.summary.as_ref()?.pending.first()?.clone();
        Some((s.session_id.clone(), prompt))
    }
}

/// Follows the fleet until the server ends the stream (or stdin ends, when answering).
pub async fn watch_sessions(
    remote: &Remote,
    listing: &Listing,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut client = connect(remote).await?;
    let request = pb::WatchSessionsRequest {
        states: listing.states.iter().map(|s| *s as i32).collect(),
        ..pb::WatchSessionsRequest::default()
    };
    let mut stream = client
        .watch_sessions(request)
        .await
        .map_err(|s| super::failure::call_failed(&s, remote))?
        .into_inner();
    let mut fleet = Fleet {
        sessions: BTreeMap::new(),
        terminal: std::io::stdout().is_terminal(),
        json: listing.json,
    };
    let _raw = listing.approve.then(RawKeys::enable).flatten();
    let mut stdin = tokio::io::stdin();
    let (mut synced, mut keys_open) = (false, listing.approve);
    loop {
        tokio::select! {
            message = stream.message() => {
                let Some(item) = message.map_err(|s| super::failure::call_failed(&s, remote))?
                    .and_then(|m| m.item) else { return Ok(()) };
                match item {
                    Item::Synced(_) => {
                        synced = true;
                        fleet.draw(out)?;
                    }
                    Item::Session(s) => {
                        let id = s.session_id.clone();
                        fleet.sessions.insert(id.clone(), s);
                        if synced && fleet.terminal {
                            fleet.draw(out)?;
                        } else if synced {
                            fleet.line(&fleet.sessions[&id], out)?;
                            out.flush()?;
                        }
                    }
                }
            }
            key = stdin.read_u8(), if keys_open => match key {
                Ok(key) => answer(remote, &fleet, key).await,
                Err(_) => keys_open = false,
            },
        }
    }
}

/// Answers the oldest prompt waiting with the option of `key` (`1`…`9`); other keys do nothing.
async fn answer(remote: &Remote, fleet: &Fleet, key: u8) {
    let Some(index) = key.checked_sub(b'1').map(usize::from) else {
        return;
    };
    let Some((session, prompt)) = fleet.first_prompt() else {
        return;
    };
    let Some(option) = prompt.options.get(index) else {
        return;
    };
    let answer = Answer {
        session: &session,
        request: &prompt.request_id,
        option: &option.option_id,
        reason: "",
        via: "sessions",
    };
    if let Err(e) = approve(remote, answer, &mut std::io::sink()).await {
        eprintln!("not answered: {e:#}");
    }
}
