//! `toolview sessions --watch`: the fleet, live (`WatchSessions`). On a terminal the table is
//! drawn again in place at each change, sessions waiting on a person first (like `top`); piped,
//! each change is one more line (a row, or with `--json` a `GetSessionResponse`). With
//! `--approve`, keys `1`…`9` answer the chosen prompt with its option of that number (the same
//! keys as `tail --approve`), recorded `via sessions`: the oldest waiting, until `j` (or `n`)
//! and `k` (or `p`) choose another; a terminal shows the choice under the table, piped it is a
//! line of its own.

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
    /// With `--approve`: which of the sessions waiting the keys answer (their table order).
    chosen: Option<usize>,
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
        if self.terminal
            && let Some(line) = self.choice()
        {
            writeln!(out, "\n{line}")?;
        }
        out.flush()
    }

    /// What the keys answer, on one line: the session, the prompt and its numbered options.
    fn choice(&self) -> Option<String> {
        self.chosen?;
        let (session, prompt) = self.chosen_prompt()?;
        let options: Vec<String> = prompt
            .options
            .iter()
            .take(9)
            .enumerate()
            .map(|(i, o)| format!("{} {}", i + 1, o.name))
            .collect();
        let line = format!(
            "> answering {session}: {} [{}] (j/k: another prompt)",
            prompt.title,
            options.join(" · ")
        );
        Some(crate::render::visible(&line).into_owned())
    }

    /// Chooses the next (`step` 1) or the previous (`step` -1) session waiting.
    fn choose(&mut self, step: isize) {
        let waiting = self.waiting().len();
        if waiting == 0 {
            return;
        }
        let at = self.chosen.unwrap_or(0).min(waiting - 1) as isize;
        self.chosen = Some((at + step).rem_euclid(waiting as isize) as usize);
    }

    fn line(&self, s: &pb::GetSessionResponse, out: &mut impl Write) -> std::io::Result<()> {
        if self.json {
            writeln!(out, "{}", to_json(s, "toolview.v1.GetSessionResponse"))
        } else {
            writeln!(out, "{}", row(s).trim_end())
        }
    }

    /// The sessions waiting on a person, in table order.
    fn waiting(&self) -> Vec<&pb::GetSessionResponse> {
        self.sorted()
            .into_iter()
            .filter(|s| s.summary.as_ref().is_some_and(|s| !s.pending.is_empty()))
            .collect()
    }

    /// The prompt the keys answer: the chosen session's oldest (the first session's until one
    /// is chosen; the last one's when the chosen one stopped waiting and fewer are left).
    fn chosen_prompt(&self) -> Option<(String, pb::PendingPrompt)> {
        let waiting = self.waiting();
        let at = self.chosen.unwrap_or(0).min(waiting.len().checked_sub(1)?);
        let s = waiting[at];
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
        // A terminal shows what the keys answer from the start.
        chosen: listing.approve.then_some(0),
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
                Ok(step @ (b'j' | b'n' | b'k' | b'p')) => {
                    fleet.choose(if matches!(step, b'j' | b'n') { 1 } else { -1 });
                    if fleet.terminal {
                        fleet.draw(out)?;
                    } else if let Some(line) = fleet.choice() {
                        writeln!(out, "{line}")?;
                        out.flush()?;
                    }
                }
                Ok(key) => answer(remote, &fleet, key).await,
                Err(_) => keys_open = false,
            },
        }
    }
}

/// Answers the chosen prompt with the option of `key` (`1`…`9`); other keys do nothing.
async fn answer(remote: &Remote, fleet: &Fleet, key: u8) {
    let Some(index) = key.checked_sub(b'1').map(usize::from) else {
        return;
    };
    let Some((session, prompt)) = fleet.chosen_prompt() else {
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
