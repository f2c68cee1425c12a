//! `toolview tail`: a session's updates as they arrive. While following, it says on stderr
//! when it waits for a session that has no events yet, and when the server goes away it
//! reconnects and resumes after the last cursor it printed (nothing missed, nothing twice).

use std::io::Write;

use tonic::Code;

use super::{Followed, Follower, Remote, connect, print_update};
use crate::domain::Cursor;
use crate::grpc::code_name;
use crate::grpc::pb::{self, subscribe_request::Start};
use crate::render::{Capabilities, RunFrame, Target};

/// What to tail, and how.
pub struct TailOptions<'a> {
    /// The session to show.
    pub session: &'a str,
    /// The rendering to print.
    pub target: Target,
    /// What the terminal can show.
    pub caps: Capabilities,
    /// Start at the session's first event (else: live only).
    pub from_beginning: bool,
    /// Keep following (reconnecting as needed); `false` prints what the session holds now.
    pub follow: bool,
}

/// Tails a session until the head (`follow: false`) or forever, reconnecting while following.
pub async fn tail(
    server: &Remote,
    options: TailOptions<'_>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let TailOptions {
        session,
        target,
        caps,
        from_beginning,
        follow,
    } = options;
    let head = describe(server, session, follow).await?;
    // Without following: the log as it is now, up to its head (nothing for no session).
    let until = match (follow, head) {
        (true, _) => None,
        (false, None) => return Ok(()),
        (false, Some(head)) => Some(head),
    };
    let replay = from_beginning || !follow;
    let start = if replay {
        Start::FromBeginning(pb::StartFromBeginning {})
    } else {
        Start::LiveOnly(pb::StartLiveOnly {})
    };
    // AG-UI output is framed as runs, so AG-UI clients accept it (`render::RunFrame`).
    let mut run = (target == Target::AgUi).then(|| {
        let from = if replay { "beginning" } else { "live" };
        RunFrame::new(session, format!("{session}@{from}"), None)
    });
    if let Some(run) = &run {
        writeln!(out, "{}", run.started())?;
    }
    let mut follower = Follower::new(server.clone(), session, target, caps, start, follow);
    loop {
        let reached = match follower.next().await {
            Ok(Followed::Update(u)) => {
                print_update(&u, out)?;
                let cursor = u.cursor.clone().unwrap_or_default();
                let offset = cursor.offset;
                if let (Some(run), Ok(cursor)) = (run.as_mut(), Cursor::try_from(cursor)) {
                    run.delivered(cursor);
                }
                offset
            }
            Ok(Followed::Reset { epoch, head }) => {
                eprintln!("[reset: epoch {epoch}, head {head}]");
                if let Some(run) = run.as_mut() {
                    for event in run.reset(&epoch, head) {
                        writeln!(out, "{event}")?;
                    }
                }
                0
            }
            // Sent only to an idle stream: everything up to its head was shown.
            Ok(Followed::Heartbeat { head }) => head,
            Ok(Followed::Reconnecting { why, pause }) => {
                let at = follower.resume_point();
                eprintln!("[{why}; reconnecting in {pause:.1?}, resuming {at}]");
                continue;
            }
            Err(status) => {
                if run.is_some() {
                    let error = RunFrame::error(status.message(), code_name(status.code()));
                    writeln!(out, "{error}")?;
                    out.flush()?;
                }
                anyhow::bail!("{}: {}", status.code(), status.message());
            }
        };
        out.flush()?;
        if until.is_some_and(|until| reached >= until) {
            break;
        }
    }
    if let Some(run) = &run {
        writeln!(out, "{}", run.finished())?;
        out.flush()?;
    }
    Ok(())
}

/// The session's head (`None` when it has no events yet; said on stderr while following).
async fn describe(server: &Remote, session: &str, follow: bool) -> anyhow::Result<Option<u64>> {
    let mut client = connect(server).await?;
    let request = pb::GetSessionRequest {
        session_id: session.to_owned(),
    };
    match client.get_session(request).await {
        Ok(info) => Ok(Some(info.into_inner().head_offset)),
        Err(s) if s.code() == Code::NotFound => {
            if follow {
                eprintln!("[waiting for session {session}: it has no events yet]");
            }
            Ok(None)
        }
        Err(s) => anyhow::bail!("{}: {}", s.code(), s.message()),
    }
}
