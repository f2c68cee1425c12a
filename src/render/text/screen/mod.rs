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

use crate::domain::{MessageRole, ToolResultView};
use crate::render::card::Snapshot;
use crate::render::{
    CallStatus, Capabilities, CardSnapshot, MessageStatus, TurnLine, ViewUpdate, ansi_card,
    markdown_card, message_ansi, message_markdown, nest_ansi, nest_markdown, permission_ansi,
    permission_markdown, turn_ansi, turn_markdown, visible,
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

/// Output lines a running card shows on a terminal: its newest ones. Enough to follow a
/// build, and a redraw stays a few hundred bytes however fast the output comes.
const LIVE_LINES: usize = 10;

struct Card {
    snap: CardSnapshot,
    /// Bytes of its output already printed as live lines (Plain).
    printed: usize,
}

/// A message as `tail` has it: printed once, complete (a streaming one runs in the region).
#[derive(Debug, Clone)]
struct Message {
    role: MessageRole,
    text: String,
    status: MessageStatus,
    /// How many parents it is under (a subagent's words are indented).
    depth: u8,
}

/// What the screen lists, in the order it appeared: calls and messages by id (their own id
/// spaces), and turn lines kept for a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Call(String),
    Message(String),
    Line(String),
}

/// The cards of one session as `tail` has them, and what is on the screen.
pub struct Screen {
    style: Style,
    mode: Mode,
    caps: Capabilities,
    cards: HashMap<String, Card>,
    messages: HashMap<String, Message>,
    /// Items in the order they appeared.
    order: Vec<Key>,
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
            messages: HashMap::new(),
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
                self.output_appended(&call_id, &text, out)
            }
            ViewUpdate::InputAppended { call_id, text } => {
                if let Some(card) = self.cards.get_mut(&call_id) {
                    card.snap.input.push_str(&text);
                    self.grew();
                }
                Ok(())
            }
            ViewUpdate::Card(snap) => self.card(*snap, out),
            ViewUpdate::Message {
                message_id,
                role,
                text,
                status,
                depth,
                ..
            } => self.message(
                message_id,
                Message {
                    role,
                    text,
                    status,
                    depth,
                },
                out,
            ),
            ViewUpdate::MessageAppended { message_id, text } => {
                if let Some(m) = self.messages.get_mut(&message_id) {
                    m.text.push_str(&text);
                    self.grew();
                }
                Ok(())
            }
            ViewUpdate::Permission(p) => {
                // A prompt when asked, then what was decided: lines, like a turn's.
                let line = match self.style {
                    Style::Ansi => permission_ansi(&p.request, p.resolution.as_ref()),
                    Style::Markdown => permission_markdown(&p.request, p.resolution.as_ref()),
                };
                self.line(line, out)
            }
            ViewUpdate::Turn {
                turn_id,
                finished,
                stop_reason,
                usage,
            } => {
                let line = TurnLine {
                    turn_id: &turn_id,
                    finished: finished.then(|| {
                        (
                            stop_reason.unwrap_or(crate::domain::StopReason::Unspecified),
                            usage,
                        )
                    }),
                };
                let line = match self.style {
                    Style::Ansi => turn_ansi(&line),
                    Style::Markdown => turn_markdown(&line),
                };
                self.line(line, out)
            }
            ViewUpdate::SessionEnded { reason } => {
                let line = match self.style {
                    Style::Ansi => crate::render::text::transcript::ended_ansi(&reason),
                    Style::Markdown => crate::render::text::transcript::ended_markdown(&reason),
                };
                self.line(line, out)
            }
        }
    }

    /// A line printed where it falls (a turn's boundary, a permission's prompt or decision).
    fn line(&mut self, line: String, out: &mut impl Write) -> io::Result<()> {
        match self.mode {
            Mode::Transcript => self.order.push(Key::Line(line)),
            Mode::Terminal | Mode::Plain => {
                self.erase(out)?;
                write!(out, "{line}\n\n")?;
                self.dirty = self.mode == Mode::Terminal;
            }
        }
        Ok(())
    }

    /// Live output for a card shown before: drawn again (Terminal) or its new lines (Plain).
    fn output_appended(
        &mut self,
        call_id: &str,
        text: &str,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let Some(card) = self.cards.get_mut(call_id) else {
            return Ok(());
        };
        card.snap.streamed.push_str(text);
        match self.mode {
            Mode::Terminal => self.dirty = true,
            Mode::Plain => self.live_lines(call_id, false, out)?,
            Mode::Transcript => {}
        }
        Ok(())
    }

    /// Something running grew: a terminal draws its running region again.
    fn grew(&mut self) {
        if self.mode == Mode::Terminal {
            self.dirty = true;
        }
    }

    fn message(&mut self, id: String, message: Message, out: &mut impl Write) -> io::Result<()> {
        let complete = message.status == MessageStatus::Complete;
        if self.messages.insert(id.clone(), message).is_none() {
            self.order.push(Key::Message(id.clone()));
        }
        match (self.mode, complete) {
            (Mode::Transcript, _) | (Mode::Plain, false) => {}
            (Mode::Terminal, false) => self.dirty = true,
            (Mode::Terminal | Mode::Plain, true) => {
                self.erase(out)?;
                let key = Key::Message(id.clone());
                self.order.retain(|k| *k != key);
                let m = self.messages.remove(&id).expect("just stored");
                write!(out, "{}\n\n", self.message_text(&m))?;
                self.dirty = self.mode == Mode::Terminal;
            }
        }
        Ok(())
    }

    /// A message as the style draws it.
    fn message_text(&self, m: &Message) -> String {
        match self.style {
            Style::Ansi => nest_ansi(&message_ansi(m.role, &m.text, m.status), m.depth),
            Style::Markdown => visible(&nest_markdown(
                &message_markdown(m.role, &m.text, m.status),
                m.depth,
            ))
            .into_owned(),
        }
    }

    fn card(&mut self, snap: CardSnapshot, out: &mut impl Write) -> io::Result<()> {
        let id = snap.call_id.clone();
        let finished = matches!(snap.status, CallStatus::Completed | CallStatus::Failed);
        match self.cards.get_mut(&id) {
            Some(card) => card.snap = snap,
            None => {
                self.order.push(Key::Call(id.clone()));
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
        self.order.retain(|o| !matches!(o, Key::Call(c) if c == id));
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
            .filter_map(|key| match key {
                Key::Call(id) => self.cards.get(id).map(|c| self.card_lines(&c.snap, max)),
                Key::Message(id) => self.messages.get(id).map(|m| message_lines(m, max)),
                Key::Line(_) => None,
            })
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
        let keys = std::mem::take(&mut self.order);
        for key in &keys {
            let id = match key {
                Key::Call(id) => id,
                Key::Message(id) => {
                    if let Some(m) = self.messages.get(id) {
                        write!(out, "{}\n\n", self.message_text(m))?;
                    }
                    continue;
                }
                Key::Line(line) => {
                    write!(out, "{line}\n\n")?;
                    continue;
                }
            };
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
        self.messages.clear();
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
        self.messages.clear();
        self.order.clear();
        self.last_live = None;
        Ok(())
    }
}

/// A running message's lines on a terminal: its speaker and its newest lines.
fn message_lines(m: &Message, max: usize) -> Vec<String> {
    let from = nth_newline_from_end(&m.text, max.min(LIVE_LINES));
    message_ansi(m.role, &m.text[from..], m.status)
        .lines()
        .map(str::to_owned)
        .collect()
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
mod tests;
