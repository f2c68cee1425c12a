//! `toolview tail`: a session's updates as they arrive. While following, it says on stderr
//! when it waits for a session that has no events yet, and when the server goes away it
//! reconnects and resumes after the last cursor it printed (nothing missed, nothing twice).

use std::io::Write;
use std::time::Duration;

use tonic::Code;

use super::cli::{AguiRun, Remote, connect, print_update, target_to_pb};
use super::pb::{self, subscribe_request::Start, subscribe_response::Item};
use super::status::code_name;
use crate::render::{Capabilities, Target, agui_run};

/// The first pause before reconnecting…
const FIRST_RETRY_PAUSE: Duration = Duration::from_millis(250);
/// …doubling up to this.
const MAX_RETRY_PAUSE: Duration = Duration::from_secs(10);

/// What to tail, and how.
pub struct TailOptions<'a> {
    pub session: &'a str,
    pub target: Target,
    pub caps: Capabilities,
    pub from_beginning: bool,
    /// Keep following (reconnecting as needed); `false` prints what the session holds now.
    pub follow: bool,
}

/// Why one subscription ended.
enum Ended {
    /// Printed up to the head (not following).
    Done,
    /// The connection or the stream broke, or the server ended it: worth retrying.
    Retry(String),
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
    let mut start = if from_beginning || !follow {
        Start::FromBeginning(pb::StartFromBeginning {})
    } else {
        Start::LiveOnly(pb::StartLiveOnly {})
    };
    // AG-UI output is framed as runs, so AG-UI clients accept it (`render::agui_run`).
    let mut run = (target == Target::AgUi).then(|| {
        let from = if from_beginning || !follow {
            "beginning"
        } else {
            "live"
        };
        AguiRun::new(session, format!("{session}@{from}"))
    });
    if let Some(run) = &run {
        run.start_line(out)?;
    }
    let mut pause = FIRST_RETRY_PAUSE;
    loop {
        let request = pb::SubscribeRequest {
            session_id: session.to_owned(),
            target: target_to_pb(target) as i32,
            capabilities: Some(pb::Capabilities::from(caps)),
            start: Some(start.clone()),
        };
        match stream(server, request, until, &mut start, &mut run, out).await {
            Ok(Ended::Done) => break,
            Ok(Ended::Retry(why)) if follow => {
                let at = match &start {
                    Start::After(c) => format!("after offset {}", c.offset),
                    _ => "from the start point".to_owned(),
                };
                eprintln!("[{why}; reconnecting in {pause:?}, resuming {at}]");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(MAX_RETRY_PAUSE);
            }
            Ok(Ended::Retry(why)) => anyhow::bail!("{why}"),
            Err(status) => {
                if run.is_some() {
                    let error = agui_run::error(status.message(), code_name(status.code()));
                    writeln!(out, "{error}")?;
                    out.flush()?;
                }
                anyhow::bail!("{}: {}", status.code(), status.message());
            }
        }
    }
    if let Some(run) = &run {
        run.finish_line(out)?;
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

/// Whether a failed call is worth retrying: the server or the connection, not the request.
fn transient(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::ResourceExhausted
    )
}

/// One subscription: prints its updates, moving `start` past each, until offset `until` when
/// given. `Err` for a refusal that retrying would not change.
async fn stream(
    server: &Remote,
    request: pb::SubscribeRequest,
    until: Option<u64>,
    start: &mut Start,
    run: &mut Option<AguiRun>,
    out: &mut impl Write,
) -> Result<Ended, tonic::Status> {
    let mut client = match connect(server).await {
        Ok(client) => client,
        Err(e) => return Ok(Ended::Retry(format!("{e:#}"))),
    };
    let mut stream = match client.subscribe(request).await {
        Ok(response) => response.into_inner(),
        Err(s) if transient(s.code()) => return Ok(Ended::Retry(s.message().to_owned())),
        Err(s) => return Err(s),
    };
    let io = |e: std::io::Error| tonic::Status::unknown(format!("writing the output: {e}"));
    loop {
        let msg = match stream.message().await {
            Ok(Some(msg)) => msg,
            Ok(None) => return Ok(Ended::Retry("the server ended the stream".into())),
            Err(s) if transient(s.code()) => {
                return Ok(Ended::Retry(format!("{}: {}", s.code(), s.message())));
            }
            Err(s) => return Err(s),
        };
        let offset = match msg.item {
            Some(Item::Update(u)) => {
                print_update(&u, out).map_err(io)?;
                let cursor = u.cursor.clone().unwrap_or_default();
                if let Some(run) = run.as_mut() {
                    run.last = Some((cursor.epoch.clone(), cursor.offset));
                }
                let offset = cursor.offset;
                *start = Start::After(cursor);
                offset
            }
            Some(Item::Reset(r)) => {
                eprintln!("[reset: epoch {}, head {}]", r.epoch, r.head_offset);
                if let Some(run) = run.as_mut() {
                    run.finish_line(out).map_err(io)?;
                    run.id = format!("{}@reset:{}", run.thread, r.epoch);
                    run.last = None;
                    run.start_line(out).map_err(io)?;
                    writeln!(out, "{}", agui_run::reset(&r.epoch, r.head_offset)).map_err(io)?;
                }
                *start = Start::FromBeginning(pb::StartFromBeginning {});
                0
            }
            // Sent only to an idle stream: everything up to its head was shown.
            Some(Item::Heartbeat(h)) => h.head_offset,
            None => 0,
        };
        out.flush().map_err(io)?;
        if until.is_some_and(|until| offset >= until) {
            return Ok(Ended::Done);
        }
    }
}
