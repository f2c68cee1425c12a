//! `toolview tail`'s ANSI drawing without its colours, for a pipe, a file or `NO_COLOR`: a
//! writer that drops SGR sequences (`ESC [` parameters `m`) and passes everything else. Tool
//! output reaches it already made visible (no raw escapes), so the only sequences it sees are
//! the drawing's own.

use std::io::{self, Write};

/// Where the writer is within an escape sequence (which a write may cut anywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    /// After `ESC`.
    Escape,
    /// After `ESC [`, in its parameters.
    Parameters,
}

/// Longest parameter list held while it is read; a longer one is passed on as it is.
const MAX_HELD: usize = 64;

/// Writes to `W` what it is given, less SGR sequences.
pub struct Uncoloured<W> {
    out: W,
    state: State,
    /// The sequence read so far (`ESC [ …`), passed on whole when it is not SGR.
    held: Vec<u8>,
}

impl<W: Write> Uncoloured<W> {
    /// A writer to `out`.
    pub fn new(out: W) -> Self {
        Uncoloured {
            out,
            state: State::Text,
            held: Vec::new(),
        }
    }
}

impl<W: Write> Write for Uncoloured<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut kept = Vec::with_capacity(buf.len());
        for &b in buf {
            match (self.state, b) {
                (State::Text, 0x1b) => {
                    self.state = State::Escape;
                    self.held = vec![b];
                }
                (State::Text, _) => kept.push(b),
                (State::Escape, b'[') => {
                    self.state = State::Parameters;
                    self.held.push(b);
                }
                (State::Parameters, b'0'..=b'9' | b';' | b':') if self.held.len() < MAX_HELD => {
                    self.held.push(b);
                }
                // An SGR sequence: dropped.
                (State::Parameters, b'm') => self.state = State::Text,
                (State::Escape | State::Parameters, _) => {
                    kept.append(&mut self.held);
                    kept.push(b);
                    self.state = State::Text;
                }
            }
        }
        self.out.write_all(&kept)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_go_and_the_rest_stays_even_across_writes() {
        let mut w = Uncoloured::new(Vec::new());
        w.write_all(b"\x1b[1;32m\xe2\x9c\x94 done\x1b[0m ^[[2J\n\x1b")
            .unwrap();
        w.write_all(b"[38;2;1;2;3mx\x1b[0").unwrap();
        w.write_all(b"m \x1b[2K y").unwrap();
        assert_eq!(
            String::from_utf8(w.out).unwrap(),
            "\u{2714} done ^[[2J\nx \x1b[2K y"
        );
    }
}
