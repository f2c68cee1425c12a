//! What `toolview tail` shows: VIEW updates (live output as appends) kept as cards and drawn
//! as text with the server's own ANSI and Markdown renderers, so every card is printed once.
//!
//! - **Terminal** (stdout is a terminal, ANSI): the cards of running calls sit in a region at
//!   the bottom that is redrawn in place (each card's newest output lines, the region cut to
//!   the terminal's height and each line to its width); a call that finishes leaves the region
//!   and is printed once, in its final state, where it scrolls up like any output.
//! - **Plain** (a pipe, a file, `--plain`): live output lines as they arrive (complete lines; a
//!   `── call ──` label when the output switches to another call), and each card once when it
//!   finishes — without the output already printed. Markdown prints only the finished cards
//!   (raw output lines are not Markdown).
//! - **Transcript** (`--no-follow`): every card once, in its state at the session's head.

use std::collections::HashMap;
use std::io::{self, Write};

use crate::domain::ToolResultView;
use crate::render::card::Snapshot;
use crate::render::{
    CallStatus, Capabilities, CardSnapshot, ViewUpdate, ansi_card, markdown_card, visible,
};

/// How cards are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Coloured text for a terminal.
    Ansi,
    /// A Markdown transcript.
    Markdown,
}

/// Where the cards go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A terminal: running cards redrawn in place.
    Terminal,
    /// A pipe or a file: live lines, then each card once.
    Plain,
    /// Every card once, at the end.
    Transcript,
}

/// The terminal's size, in rows and columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
}

impl Size {
    /// Standard output's terminal size now (asked at every redraw, so a resize takes effect at
    /// the next one); 24 × 80 when it cannot be read.
    pub fn of_stdout() -> Size {
        let mut ws = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which is valid and
        // exclusive for the call; a failure leaves it zeroed.
        #[allow(unsafe_code)]
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
        if ok && ws.ws_row > 0 && ws.ws_col > 0 {
            Size {
                rows: usize::from(ws.ws_row),
                cols: usize::from(ws.ws_col),
            }
        } else {
            Size { rows: 24, cols: 80 }
        }
    }
}

/// Output lines a running card shows on a terminal: its newest ones. Enough to follow a
/// build, and a redraw stays a few hundred bytes however fast the output comes.
const LIVE_LINES: usize = 10;

struct Card {
    snap: CardSnapshot,
    /// Bytes of its output already printed as live lines (Plain).
    printed: usize,
}

/// The cards of one session as `tail` has them, and what is on the screen.
pub struct Screen {
    style: Style,
    mode: Mode,
    caps: Capabilities,
    cards: HashMap<String, Card>,
    /// Call ids in the order their cards appeared.
    order: Vec<String>,
    /// Lines the running region takes on the terminal now.
    region: usize,
    /// The call whose live lines were printed last (Plain).
    last_live: Option<String>,
    dirty: bool,
}

impl Screen {
    /// An empty screen.
    pub fn new(style: Style, mode: Mode, caps: Capabilities) -> Self {
        Screen {
            style,
            mode,
            caps,
            cards: HashMap::new(),
            order: Vec::new(),
            region: 0,
            last_live: None,
            dirty: false,
        }
    }

    /// Whether the running region needs drawing (Terminal).
    pub fn dirty(&self) -> bool {
        self.dirty
    }

    /// Takes one update, printing what it finishes.
    pub fn apply(&mut self, update: ViewUpdate, out: &mut impl Write) -> io::Result<()> {
        match update {
            ViewUpdate::Session { .. } | ViewUpdate::Unchanged => Ok(()),
            ViewUpdate::OutputAppended { call_id, text } => {
                let Some(card) = self.cards.get_mut(&call_id) else {
                    return Ok(());
                };
                card.snap.streamed.push_str(&text);
                match self.mode {
                    Mode::Terminal => self.dirty = true,
                    Mode::Plain => self.live_lines(&call_id, false, out)?,
                    Mode::Transcript => {}
                }
                Ok(())
            }
            ViewUpdate::Card(snap) => self.card(*snap, out),
        }
    }

    fn card(&mut self, snap: CardSnapshot, out: &mut impl Write) -> io::Result<()> {
        let id = snap.call_id.clone();
        let finished = snap.status != CallStatus::InProgress;
        match self.cards.get_mut(&id) {
            Some(card) => card.snap = snap,
            None => {
                self.order.push(id.clone());
                self.cards.insert(id.clone(), Card { snap, printed: 0 });
            }
        }
        match (self.mode, finished) {
            (Mode::Transcript, _) => {}
            (Mode::Terminal, false) => self.dirty = true,
            (Mode::Plain, false) => {}
            (Mode::Terminal, true) => {
                self.erase(out)?;
                let card = self.forget(&id);
                self.print(&card.snap, out)?;
                self.dirty = true;
            }
            (Mode::Plain, true) => {
                self.live_lines(&id, true, out)?;
                let card = self.forget(&id);
                let mut snap = card.snap;
                if card.printed > 0 {
                    without_output(&mut snap);
                }
                self.print(&snap, out)?;
            }
        }
        Ok(())
    }

    /// Drops a finished card (follow modes keep only what can still change).
    fn forget(&mut self, id: &str) -> Card {
        self.order.retain(|o| o != id);
        if self.last_live.as_deref() == Some(id) {
            self.last_live = None;
        }
        self.cards.remove(id).expect("the card was just stored")
    }

    /// Prints a call's output lines not printed yet: complete lines, or all of it at the end.
    fn live_lines(&mut self, id: &str, all: bool, out: &mut impl Write) -> io::Result<()> {
        if self.style != Style::Ansi {
            return Ok(());
        }
        let Some(card) = self.cards.get_mut(id) else {
            return Ok(());
        };
        let pending = &card.snap.streamed[card.printed..];
        let upto = if all {
            pending.len()
        } else {
            pending.rfind('\n').map_or(0, |i| i + 1)
        };
        if upto == 0 {
            return Ok(());
        }
        if self.last_live.as_deref() != Some(id) {
            let name = if card.snap.tool_name.is_empty() {
                &card.snap.call_id
            } else {
                &card.snap.tool_name
            };
            writeln!(out, "\x1b[2m── {} {} ──\x1b[0m", visible(name), visible(id))?;
            self.last_live = Some(id.to_owned());
        }
        let text = &pending[..upto];
        out.write_all(visible(text).as_bytes())?;
        if !text.ends_with('\n') {
            out.write_all(b"\n")?;
        }
        card.printed += upto;
        Ok(())
    }

    /// One card, and a blank line after it.
    fn print(&self, snap: &CardSnapshot, out: &mut impl Write) -> io::Result<()> {
        let view = Snapshot::from_card(snap);
        match self.style {
            Style::Ansi => write!(out, "{}\n\n", ansi_card(&view, &self.caps)),
            // Markdown carries tool output verbatim: its controls are shown, not sent.
            Style::Markdown => write!(out, "{}\n\n", visible(&markdown_card(&view))),
        }
    }

    /// Clears the running region, leaving the cursor where it began. Line by line: an "erase
    /// below" from the top corner counts as clearing the screen, which terminals such as tmux
    /// push into the scrollback, so each redraw would land in the history.
    fn erase(&mut self, out: &mut impl Write) -> io::Result<()> {
        let n = self.region;
        if n > 0 {
            write!(out, "\x1b[{n}A\r{}\x1b[{n}A", "\x1b[2K\n".repeat(n))?;
            self.region = 0;
        }
        Ok(())
    }

    /// Redraws the running region (Terminal) within `size`.
    pub fn draw(&mut self, size: Size, out: &mut impl Write) -> io::Result<()> {
        self.dirty = false;
        let max = size.rows.saturating_sub(1).max(1);
        let running: Vec<Vec<String>> = self
            .order
            .iter()
            .filter_map(|id| self.cards.get(id))
            .map(|card| self.card_lines(&card.snap, max))
            .collect();
        // Each running card gets an equal share of the height: its first line (the tool) and
        // its newest lines.
        let share = (max / running.len().max(1)).max(2);
        let mut lines: Vec<&str> = Vec::new();
        for card in &running {
            match card.split_first() {
                Some((first, rest)) if card.len() > share => {
                    lines.push(first);
                    lines.extend(rest[rest.len() - (share - 1)..].iter().map(String::as_str));
                }
                _ => lines.extend(card.iter().map(String::as_str)),
            }
        }
        let lines = &lines[lines.len().saturating_sub(max)..];
        self.erase(out)?;
        for line in lines {
            writeln!(out, "{}", fit(line, size.cols.saturating_sub(1).max(1)))?;
        }
        self.region = lines.len();
        Ok(())
    }

    /// A running card's lines, its output cut to its newest lines first.
    fn card_lines(&self, snap: &CardSnapshot, max: usize) -> Vec<String> {
        let tail_from = nth_newline_from_end(&snap.streamed, max.min(LIVE_LINES));
        let mut view = Snapshot::from_card(snap);
        view.streamed = std::borrow::Cow::Borrowed(&snap.streamed[tail_from..]);
        ansi_card(&view, &self.caps)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// At the end: the region cleared and, for a transcript, every card once; cards still
    /// running are printed as they are (Terminal and Plain), so nothing shown is lost.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.erase(out)?;
        let ids = std::mem::take(&mut self.order);
        for id in &ids {
            if self.mode == Mode::Plain {
                self.live_lines(id, true, out)?;
            }
            if let Some(card) = self.cards.get(id) {
                let mut snap = card.snap.clone();
                if card.printed > 0 {
                    without_output(&mut snap);
                }
                self.print(&snap, out)?;
            }
        }
        self.cards.clear();
        out.flush()
    }

    /// Clears the running region before a line on stderr (the same terminal): the region is
    /// drawn again below it at the next redraw, so the notice does not break its accounting.
    pub fn make_room(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.region > 0 {
            self.erase(out)?;
            self.dirty = true;
        }
        out.flush()
    }

    /// Forgets every card (the log was reset; its replay follows).
    pub fn reset(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.erase(out)?;
        self.cards.clear();
        self.order.clear();
        self.last_live = None;
        Ok(())
    }
}

/// A card whose output was printed already, drawn without it.
fn without_output(snap: &mut CardSnapshot) {
    if let Some(ToolResultView::Terminal(t)) = &mut snap.result
        && t.output.as_deref() == Some(snap.streamed.as_str())
    {
        t.output = None;
    }
    snap.streamed.clear();
}

/// The byte offset after the `n`th newline from the end (0 when there are fewer).
fn nth_newline_from_end(text: &str, n: usize) -> usize {
    text.rmatch_indices('\n').nth(n).map_or(0, |(i, _)| i + 1)
}

/// A line cut to `cols` visible characters (SGR sequences are not counted; tabs become
/// spaces), so no line wraps and the region's height is what was written.
fn fit(line: &str, cols: usize) -> String {
    let mut out = String::with_capacity(line.len().min(cols * 4));
    let mut width = 0;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // Only the renderer's own SGR sequences reach here (tool text went through
            // `visible`): copy `ESC [ … m` whole.
            out.push(c);
            for c in chars.by_ref() {
                out.push(c);
                if c == 'm' {
                    break;
                }
            }
            continue;
        }
        let spaces = if c == '\t' { 8 - width % 8 } else { 1 };
        if width + spaces > cols {
            out.push_str("\x1b[0m");
            break;
        }
        width += spaces;
        if c == '\t' {
            out.extend(std::iter::repeat_n(' ', spaces));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{TerminalCallView, TerminalExit, TerminalResultView, ToolCallView};

    fn card(id: &str, status: CallStatus, streamed: &str) -> ViewUpdate {
        let result = (status != CallStatus::InProgress).then(|| {
            ToolResultView::Terminal(TerminalResultView {
                title: None,
                output: Some(streamed.to_owned()),
                exit: Some(TerminalExit::Code(0)),
            })
        });
        ViewUpdate::Card(Box::new(CardSnapshot {
            call_id: id.into(),
            tool_name: "bash".into(),
            status,
            call: Some(ToolCallView::Terminal(TerminalCallView {
                title: format!("make {id}"),
                description: None,
                cwd: None,
            })),
            result,
            streamed: streamed.into(),
        }))
    }

    fn append(id: &str, text: &str) -> ViewUpdate {
        ViewUpdate::OutputAppended {
            call_id: id.into(),
            text: text.into(),
        }
    }

    fn run(mode: Mode, updates: Vec<ViewUpdate>) -> String {
        let mut screen = Screen::new(Style::Ansi, mode, Capabilities::all(true));
        let mut out = Vec::new();
        for u in updates {
            screen.apply(u, &mut out).unwrap();
            if screen.dirty() {
                screen.draw(Size { rows: 10, cols: 40 }, &mut out).unwrap();
            }
        }
        screen.finish(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn plain_prints_lines_as_they_come_and_each_card_once_without_them() {
        let out = run(
            Mode::Plain,
            vec![
                card("c1", CallStatus::InProgress, ""),
                append("c1", "one\ntw"),
                append("c1", "o\n"),
                card("c1", CallStatus::Completed, "one\ntwo\n"),
            ],
        );
        assert_eq!(out.matches("one").count(), 1, "{out}");
        assert_eq!(out.matches("make c1").count(), 1, "{out}");
        assert!(out.find("one").unwrap() < out.find("make c1").unwrap());
        assert!(out.contains("[exit 0]"), "{out}");
    }

    #[test]
    fn plain_labels_interleaved_output_by_call() {
        let out = run(
            Mode::Plain,
            vec![
                card("a", CallStatus::InProgress, ""),
                card("b", CallStatus::InProgress, ""),
                append("a", "a1\n"),
                append("b", "b1\n"),
                append("a", "a2\n"),
            ],
        );
        assert_eq!(out.matches("── bash a ──").count(), 2, "{out}");
        assert_eq!(out.matches("── bash b ──").count(), 1, "{out}");
        // The running cards are printed once at the end, without their printed output.
        assert_eq!(out.matches("a1").count(), 1, "{out}");
    }

    #[test]
    fn terminal_region_fits_the_screen_and_a_finished_card_is_printed_once() {
        let many: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let mut screen = Screen::new(Style::Ansi, Mode::Terminal, Capabilities::all(true));
        let mut out = Vec::new();
        screen
            .apply(card("c1", CallStatus::InProgress, ""), &mut out)
            .unwrap();
        screen.apply(append("c1", &many), &mut out).unwrap();
        screen.draw(Size { rows: 10, cols: 40 }, &mut out).unwrap();
        assert!(screen.region <= 9, "{}", screen.region);
        let drawn = String::from_utf8_lossy(&out).into_owned();
        assert!(drawn.contains("line 49") && !drawn.contains("line 10\n"));
        screen
            .apply(card("c1", CallStatus::Completed, &many), &mut out)
            .unwrap();
        screen.finish(&mut out).unwrap();
        let all = String::from_utf8_lossy(&out).into_owned();
        let final_card = &all[drawn.len()..];
        assert_eq!(final_card.matches("make c1").count(), 1);
        assert!(final_card.contains("line 0") && final_card.contains("line 49"));
    }

    #[test]
    fn a_notice_on_the_terminal_clears_the_region_and_it_is_drawn_again() {
        let size = Size { rows: 10, cols: 40 };
        let mut screen = Screen::new(Style::Ansi, Mode::Terminal, Capabilities::all(true));
        let mut out = Vec::new();
        screen
            .apply(card("c1", CallStatus::InProgress, ""), &mut out)
            .unwrap();
        screen.draw(size, &mut out).unwrap();
        let drawn = screen.region;
        assert!(drawn > 0 && !screen.dirty());
        out.clear();
        screen.make_room(&mut out).unwrap();
        assert_eq!(screen.region, 0);
        assert!(screen.dirty());
        assert!(String::from_utf8_lossy(&out).starts_with(&format!("\x1b[{drawn}A")));
        screen.draw(size, &mut out).unwrap();
        assert_eq!(screen.region, drawn);
    }

    #[test]
    fn transcript_prints_every_card_once_in_its_last_state() {
        let out = run(
            Mode::Transcript,
            vec![
                card("a", CallStatus::InProgress, ""),
                append("a", "x\n"),
                card("a", CallStatus::Completed, "x\n"),
                card("b", CallStatus::InProgress, ""),
                append("b", "y\n"),
            ],
        );
        assert_eq!(out.matches("make a").count(), 1, "{out}");
        assert_eq!(out.matches("make b").count(), 1, "{out}");
        assert!(out.contains("[exit 0]") && out.contains('y'), "{out}");
    }

    #[test]
    fn fit_cuts_visible_width_and_keeps_colours() {
        assert_eq!(fit("\x1b[2mabcdef\x1b[0m", 3), "\x1b[2mabc\x1b[0m");
        assert_eq!(fit("a\tb", 10), "a       b");
    }
}
