//! `toolview tail`: a session's updates as they arrive. While following, it says on stderr
//! when it waits for a session that has no events yet, and when the server goes away it
//! reconnects and resumes after the last cursor it printed (nothing missed, nothing twice).
//! ANSI and Markdown are drawn from VIEW updates with appends ([`super::screen`]): each card
//! once; the other targets are printed as the server renders them.

use std::io::{self, IsTerminal as _, Write};
use std::time::{Duration, Instant};

use tonic::Code;

use super::keys::{Approver, RawKeys};
use super::lines::print_events;
use super::{Followed, Follower, Remote, connect, print_framed};
use crate::grpc::code_name;
use crate::grpc::pb::{self, subscribe_request::Start};
use crate::render::screen::{Mode, Screen, Size, Style};
use crate::render::{Capabilities, StreamFrame, Target, ViewUpdate};

/// The longest a terminal's running cards wait for a redraw while updates keep coming: at most
/// 20 redraws a second, each at most a screenful, however fast the output.
const FRAME: Duration = Duration::from_millis(50);

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
    /// The terminal's size, when stdout is one (and not `--plain`): ANSI cards then redraw in
    /// place.
    pub terminal: Option<fn() -> Size>,
    /// Answer pending permission requests with a key per option (`--approve`).
    pub approve: bool,
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
        terminal,
        approve,
    } = options;
    let style = match target {
        Target::Ansi => Some(Style::Ansi),
        Target::Markdown => Some(Style::Markdown),
        Target::View | Target::Acp | Target::AgUi | Target::AiSdk => None,
    };
    let (head, waiting) = describe(server, session, follow).await?;
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
    if let Some(style) = style {
        let mode = match (follow, terminal) {
            (false, _) => Mode::Transcript,
            (true, Some(_)) if style == Style::Ansi => Mode::Terminal,
            (true, _) => Mode::Plain,
        };
        let view = Follower::new(
            server.clone(),
            session,
            Target::View,
            // Every card as it is (the text renderers show them all), live output as appends.
            Capabilities {
                output_appends: true,
                reasoning: caps.reasoning,
                ..Capabilities::all(true)
            },
            start,
            follow,
        );
        let screen = Screen::new(style, mode, caps);
        let size = terminal.unwrap_or(|| Size { rows: 24, cols: 80 });
        let keys = approve.then(|| (Approver::new(server.clone(), session), RawKeys::enable()));
        let (approver, _raw) = keys.map_or((None, None), |(a, r)| (Some(a), r));
        return cards(view, (screen, approver), size, until, waiting, out).await;
    }
    // AG-UI output is framed as runs, the AI SDK's as one message (`render::StreamFrame`), so
    // their clients accept it.
    let from = if replay { "beginning" } else { "live" };
    let frame = StreamFrame::new(target, session, format!("{session}@{from}"), None);
    let follower = Follower::new(server.clone(), session, target, caps, start, follow);
    updates(follower, frame, until, out).await
}

/// Follows a target's updates, printed as they come (framed by `frame`), until the head
/// (`until`) or a failure.
async fn updates(
    mut follower: Follower,
    mut frame: StreamFrame,
    until: Option<u64>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    print_events(frame.open(), out)?;
    loop {
        let reached = match follower.next().await {
            Ok(Followed::Update(u)) => {
                print_framed(&u, &mut frame, out)?;
                u.cursor.as_ref().map_or(0, |c| c.offset)
            }
            Ok(Followed::Reset { epoch, head }) => {
                eprintln!("[reset: epoch {epoch}, head {head}]");
                print_events(frame.reset(&epoch, head), out)?;
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
                print_events(frame.error(status.message(), code_name(status.code())), out)?;
                out.flush()?;
                return Err(super::failure::follow_failed(&status, &follower));
            }
        };
        out.flush()?;
        if until.is_some_and(|until| reached >= until) {
            break;
        }
    }
    print_events(frame.end(), out)?;
    out.flush()?;
    Ok(())
}

/// Follows VIEW updates into a [`Screen`] until the head (`until`), Ctrl-C, or a failure.
async fn cards(
    mut follower: Follower,
    (mut screen, mut approver): (Screen, Option<Approver>),
    size: fn() -> Size,
    until: Option<u64>,
    mut waiting: Waiting,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut drawn = Instant::now();
    let interrupt = tokio::signal::ctrl_c();
    tokio::pin!(interrupt);
    loop {
        // While the running cards wait to be redrawn, wait for the next update no longer than
        // the frame: an idle stream gets its redraw at once, a busy one once a frame.
        let wait = if screen.dirty() {
            FRAME.saturating_sub(drawn.elapsed())
        } else {
            Duration::MAX
        };
        let next = tokio::select! {
            _ = &mut interrupt => break,
            next = tokio::time::timeout(wait, follower.next()) => next,
            Some(key) = async {
                match approver.as_mut() {
                    Some(a) => a.key().await,
                    None => std::future::pending().await,
                }
            } => {
                if let Some(a) = approver.as_mut()
                    && let Some(why) = a.answer(key).await
                {
                    aside(&mut screen, &mut waiting, out, &why)?;
                }
                continue;
            }
        };
        let reached = match next {
            Err(_elapsed) => None,
            Ok(Ok(Followed::Update(u))) => {
                waiting.clear();
                Some(show(*u, &mut screen, approver.as_mut(), &mut waiting, out)?)
            }
            Ok(Ok(Followed::Reset { epoch, head })) => {
                screen.reset(out)?;
                out.flush()?;
                waiting.covered();
                eprintln!("[reset: epoch {epoch}, head {head}]");
                Some(0)
            }
            Ok(Ok(Followed::Heartbeat { head })) => Some(head),
            Ok(Ok(Followed::Reconnecting { why, pause })) => {
                let at = follower.resume_point();
                let line = format!("[{why}; reconnecting in {pause:.1?}, resuming {at}]");
                aside(&mut screen, &mut waiting, out, &line)?;
                None
            }
            Ok(Err(status)) => {
                screen.finish(out)?;
                return Err(super::failure::follow_failed(&status, &follower));
            }
        };
        if screen.dirty() && drawn.elapsed() >= FRAME {
            screen.draw(size(), out)?;
            drawn = Instant::now();
        }
        out.flush()?;
        if let (Some(until), Some(reached)) = (until, reached)
            && reached >= until
        {
            break;
        }
    }
    screen.finish(out)?;
    Ok(())
}

/// Applies one VIEW update to the screen (and the approver's list of open requests); its offset.
fn show(
    u: pb::RenderedUpdate,
    screen: &mut Screen,
    approver: Option<&mut Approver>,
    waiting: &mut Waiting,
    out: &mut impl Write,
) -> io::Result<u64> {
    let offset = u.cursor.as_ref().map_or(0, |c| c.offset);
    let Some(pb::rendered_update::Body::View(v)) = u.body else {
        return Ok(offset);
    };
    match ViewUpdate::try_from(v) {
        Ok(update) => {
            let hint = approver.and_then(|a| a.note(&update));
            screen.apply(update, out)?;
            if let Some(hint) = hint {
                aside(screen, waiting, out, &hint)?;
            }
        }
        Err(e) => {
            let line = format!("[update at offset {offset} not shown: {e}]");
            aside(screen, waiting, out, &line)?;
        }
    }
    Ok(offset)
}

/// Says `line` on stderr below the cards, which make room for it first (and flush).
fn aside(
    screen: &mut Screen,
    waiting: &mut Waiting,
    out: &mut impl Write,
    line: &str,
) -> io::Result<()> {
    screen.make_room(out)?;
    waiting.covered();
    eprintln!("{line}");
    Ok(())
}

/// The session's head (`None` when it has no events yet; said on stderr while following).
async fn describe(
    server: &Remote,
    session: &str,
    follow: bool,
) -> anyhow::Result<(Option<u64>, Waiting)> {
    let mut client = connect(server).await?;
    let request = pb::GetSessionRequest {
        session_id: session.to_owned(),
    };
    match client.get_session(request).await {
        Ok(info) => Ok((
            Some(info.into_inner().head_offset),
            Waiting { shown: false },
        )),
        Err(s) if s.code() == Code::NotFound => {
            if follow {
                eprintln!("[waiting for session {session}: it has no events yet]");
            }
            Ok((None, Waiting { shown: follow }))
        }
        Err(s) => Err(super::failure::call_failed(&s, server)),
    }
}

/// The "waiting for session" notice: taken back, on a terminal, once the session's first update
/// arrives — when it is still the last line said on stderr.
struct Waiting {
    shown: bool,
}

impl Waiting {
    /// Something else was said on stderr: the notice is no longer the line above.
    fn covered(&mut self) {
        self.shown = false;
    }

    /// Erases the notice (the line above the cursor) if it is there to erase.
    fn clear(&mut self) {
        if std::mem::take(&mut self.shown) && std::io::stderr().is_terminal() {
            eprint!("\x1b[1A\r\x1b[2K");
        }
    }
}
