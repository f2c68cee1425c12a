//! The text a host without MCP Apps shows for `watch_session`: the session's Markdown transcript
//! (what `toolview tail --no-follow --target markdown` prints: its VIEW updates drawn by the
//! render layer's `Screen`), its **latest** part when it is long, within [`MAX_TRANSCRIPT_BYTES`]
//! all told, cut only where no code fence is open — so the note saying what was left out never
//! renders as code.

use std::collections::VecDeque;
use std::io::Write;

use tokio_stream::StreamExt as _;

use super::backend::{Backend, Item};
use crate::domain::{Cursor, Epoch};
use crate::grpc::pb;
use crate::render::screen::{Mode, Screen, Style};
use crate::render::{Body, Capabilities};

/// The transcript a `watch_session` result carries as text, at most this many bytes, the note
/// included (the latest part of the session; the view, or `toolview tail`, shows the rest).
pub const MAX_TRANSCRIPT_BYTES: usize = 64 << 10;
/// …drawn from at most this many of the session's latest updates (a long session is not read
/// whole).
pub const MAX_TRANSCRIPT_UPDATES: usize = 5_000;
/// …read within this long.
const TRANSCRIPT_TIME: std::time::Duration = std::time::Duration::from_secs(10);
/// Room kept for the note on what was left out (its session id is at most 128 bytes).
const NOTE_BYTES: usize = 512;

/// The session's transcript, its latest part within [`MAX_TRANSCRIPT_BYTES`]; a line first says
/// what was left out, or why there is none.
pub async fn transcript(backend: &impl Backend, session: &str) -> String {
    let mut tail = Tail::new(MAX_TRANSCRIPT_BYTES - NOTE_BYTES);
    let skipped = match markdown(backend, session, &mut tail).await {
        Ok(skipped) => skipped,
        Err(status) => return format!("The session could not be read: {}", status.message()),
    };
    let (text, cut) = tail.finish();
    let mut out = String::with_capacity(text.len() + NOTE_BYTES);
    if skipped || cut {
        out.push_str(&format!(
            "*… the session's start is left out: this is its latest part. All of it: watch it in \
             an app host, or `toolview tail --session {session} --from-beginning`.*\n\n"
        ));
    }
    out.push_str(&text);
    if out.trim().is_empty() {
        return format!("Session {session} has no events yet.");
    }
    out
}

/// The session's latest VIEW updates up to its head, drawn by the Markdown transcript's
/// `Screen`; `true` when updates before them were left out.
async fn markdown(
    backend: &impl Backend,
    session: &str,
    out: &mut Tail,
) -> Result<bool, tonic::Status> {
    let info = match backend
        .get_session(pb::GetSessionRequest {
            session_id: session.into(),
        })
        .await
    {
        Ok(info) => info,
        Err(status) if status.code() == tonic::Code::NotFound => return Ok(false),
        Err(status) => return Err(status),
    };
    let head = info.head_offset;
    let first = head.saturating_sub(MAX_TRANSCRIPT_UPDATES as u64);
    let after = match (first, Epoch::new(info.epoch)) {
        (0, _) | (_, Err(_)) => None,
        (offset, Ok(epoch)) => Some(Cursor { offset, epoch }),
    };
    let mut stream = backend.view(session, after.as_ref()).await?;
    let caps = Capabilities {
        output_appends: true,
        ..Capabilities::all(true)
    };
    let mut screen = Screen::new(Style::Markdown, Mode::Transcript, caps);
    let deadline = tokio::time::Instant::now() + TRANSCRIPT_TIME;
    for _ in 0..=MAX_TRANSCRIPT_UPDATES {
        let Ok(Some(item)) = tokio::time::timeout_at(deadline, stream.next()).await else {
            break;
        };
        // A heartbeat or a reset: nothing more up to the head (a reset's log is another's).
        let Item::Update { cursor, rendered } = item? else {
            break;
        };
        if let Body::View(update) = rendered.body {
            let _ = screen.apply(update, out);
        }
        if cursor.offset >= head {
            break;
        }
    }
    let _ = screen.finish(out);
    Ok(after.is_some())
}

/// Keeps the latest whole lines written, at most `max` bytes, each marked with whether a code
/// fence is open before it — so a cut starts where none is.
struct Tail {
    lines: VecDeque<(String, bool)>,
    bytes: usize,
    max: usize,
    partial: Vec<u8>,
    fence: Fence,
    dropped: bool,
}

impl Tail {
    fn new(max: usize) -> Self {
        Tail {
            lines: VecDeque::new(),
            bytes: 0,
            max,
            partial: Vec::new(),
            fence: Fence::default(),
            dropped: false,
        }
    }

    fn line(&mut self, line: String) {
        let inside = self.fence.is_open();
        self.fence.read(&line);
        self.bytes += line.len() + 1;
        self.lines.push_back((line, inside));
        while self.bytes > self.max {
            let Some((gone, _)) = self.lines.pop_front() else {
                break;
            };
            self.bytes -= gone.len() + 1;
            self.dropped = true;
        }
    }

    /// The text kept (from its first line outside a fence, when lines were dropped), and
    /// whether anything was left out.
    fn finish(mut self) -> (String, bool) {
        if !self.partial.is_empty() {
            let rest = String::from_utf8_lossy(&std::mem::take(&mut self.partial)).into_owned();
            self.line(rest);
        }
        if self.dropped {
            while self.lines.front().is_some_and(|(_, inside)| *inside) {
                self.lines.pop_front();
            }
        }
        let mut text = String::with_capacity(self.bytes);
        for (line, _) in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        (text, self.dropped)
    }
}

impl Write for Tail {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for piece in buf.split_inclusive(|b| *b == b'\n') {
            match piece.strip_suffix(b"\n") {
                Some(end) => {
                    self.partial.extend_from_slice(end);
                    let bytes = std::mem::take(&mut self.partial);
                    self.line(String::from_utf8_lossy(&bytes).into_owned());
                }
                // A line longer than the whole budget is cut where it is: it could never be kept.
                None if self.partial.len() + piece.len() > self.max => {
                    self.dropped = true;
                    self.partial.clear();
                }
                None => self.partial.extend_from_slice(piece),
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// CommonMark's fenced code blocks, line by line: open after a run of three or more backticks
/// or tildes, closed by a run of the same character at least as long with nothing after it
/// (blockquote markers before either are looked through: a subagent's cards are quoted).
#[derive(Debug, Default)]
struct Fence {
    open: Option<(u8, usize)>,
}

impl Fence {
    fn is_open(&self) -> bool {
        self.open.is_some()
    }

    fn read(&mut self, line: &str) {
        let body = line.trim_start_matches(['>', ' ']);
        let Some(&c) = body
            .as_bytes()
            .first()
            .filter(|c| **c == b'`' || **c == b'~')
        else {
            return;
        };
        let run = body.bytes().take_while(|b| *b == c).count();
        if run < 3 {
            return;
        }
        match self.open {
            None => self.open = Some((c, run)),
            Some((open, len)) if open == c && run >= len && body[run..].trim().is_empty() => {
                self.open = None;
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(max: usize, text: &str) -> (String, bool) {
        let mut tail = Tail::new(max);
        tail.write_all(text.as_bytes()).unwrap();
        tail.finish()
    }

    #[test]
    fn a_short_transcript_is_whole() {
        assert_eq!(kept(100, "a\nb\n"), ("a\nb\n".into(), false));
    }

    #[test]
    fn the_latest_lines_are_kept_from_outside_a_fence() {
        let text = "intro\n```console\n1\n2\n3\n```\nafter\n";
        // Room for the last four lines: `2`, `3` and the closing fence are inside the console
        // block, so the kept text starts after it.
        let (t, cut) = kept(14, text);
        assert!(cut);
        assert_eq!(t, "after\n");
        // Room for all but the first: the block is whole.
        let (t, cut) = kept(30, text);
        assert!(cut);
        assert_eq!(t, "```console\n1\n2\n3\n```\nafter\n");
    }

    #[test]
    fn fences_close_only_on_their_own_kind_and_length() {
        let mut f = Fence::default();
        for (line, open) in [
            ("````md", true),
            ("```", true),
            ("> ~~~", true),
            ("`````", false),
            ("> ```json", true),
            ("> ``` x", true),
            ("> ```", false),
        ] {
            f.read(line);
            assert_eq!(f.is_open(), open, "after {line:?}");
        }
    }

    #[test]
    fn a_line_longer_than_the_budget_is_left_out() {
        let long = "x".repeat(50);
        let (t, cut) = kept(20, &format!("{long}\nend\n"));
        assert_eq!((t.as_str(), cut), ("end\n", true));
    }
}
