//! A running call's live output as a fold keeps it: bounded in bytes however long the call runs.
//!
//! Renderers need only the first `cap` bytes (snapshots stop at the chunk that crosses the cap),
//! the first and last `cap/2` bytes (a finished output's head and tail) and the total length,
//! so a fold made for caps up to `retain` keeps the first and the last `retain` bytes and the
//! ends of the chunks inside the head. Memory per call is then O(retain), and each chunk costs
//! O(chunk) to fold, however many came before.

use std::borrow::Cow;

use crate::render::cap::{Cap, floor_boundary};

/// One live output chunk, as the renderers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The chunk's text.
    pub text: &'a str,
    /// Its byte offset in the call's streamed output.
    pub start: usize,
}

impl Chunk<'_> {
    /// The byte offset just past the chunk.
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// The streamed output of one call: its head and tail, its length and its chunk boundaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    /// Bytes kept at each end (`usize::MAX`: everything).
    retain: usize,
    /// The first bytes, at most `retain` (cut back to a character boundary).
    head: String,
    /// The last bytes: at least `retain` of them once the output is longer than that.
    tail: String,
    /// Total bytes streamed.
    len: usize,
    /// Where each chunk that ends inside `head` ends.
    ends: Vec<usize>,
    /// No chunk had a character a terminal must not get ([`crate::render::visible`]): then no part of
    /// the output needs escaping, and snapshots need not scan it again (O(chunk) once, not
    /// O(output) per snapshot).
    plain: bool,
}

impl Default for Streamed {
    fn default() -> Self {
        Streamed::new(usize::MAX)
    }
}

/// The smallest character boundary of `s` at or above `i`.
fn ceil_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl Streamed {
    /// Keeps the first and last `retain` bytes (`usize::MAX` keeps everything).
    pub fn new(retain: usize) -> Self {
        Streamed {
            retain,
            head: String::new(),
            tail: String::new(),
            len: 0,
            ends: Vec::new(),
            plain: true,
        }
    }

    /// Appends a chunk; returns it with its offset.
    pub fn push<'a>(&mut self, text: &'a str) -> Chunk<'a> {
        let start = self.len;
        self.plain = self.plain && !crate::render::visible::needs_escaping(text);
        // Everything so far is in `head` until the output outgrows the retention.
        let was_full = self.head.len() == start;
        self.len += text.len();
        if self.len > self.retain {
            if was_full {
                self.tail.clone_from(&self.head);
            }
            self.tail.push_str(text);
            // Drop the front once it is twice what must be kept: amortized O(chunk).
            if self.tail.len() > self.retain.saturating_mul(2) {
                let cut = ceil_boundary(&self.tail, self.tail.len() - self.retain);
                self.tail.drain(..cut);
            }
        }
        if was_full && start < self.retain {
            let take = floor_boundary(text, self.retain - start);
            self.head.push_str(&text[..take]);
            if take == text.len() {
                self.ends.push(self.len);
            }
        }
        Chunk { text, start }
    }

    /// Whether no part of the output needs escaping for a terminal.
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// Total bytes streamed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was streamed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The whole text, when it is all kept (always, within the retention).
    pub fn full(&self) -> Option<&str> {
        (self.len == self.head.len()).then_some(self.head.as_str())
    }

    /// The text up to byte `end` (a chunk boundary at most the retention).
    pub fn prefix(&self, end: usize) -> &str {
        &self.head[..floor_boundary(&self.head, end)]
    }

    /// The end of the last chunk that ends at or before `limit`, 0 if none.
    pub fn last_end_within(&self, limit: usize) -> usize {
        let n = self.ends.partition_point(|&e| e <= limit);
        if n == 0 { 0 } else { self.ends[n - 1] }
    }

    /// The text's first and last `cap/2` bytes joined by a note of what was left out, when it is
    /// longer than `cap` (none: the whole text, which a fold without a cap keeps). `cap` must be within the
    /// retention.
    pub fn capped(&self, cap: Cap) -> Cow<'_, str> {
        if let Some(full) = self.full() {
            return crate::render::cap::cap_text(full, cap);
        }
        let Some(cap) = cap.get() else {
            debug_assert!(false, "no cap with a retention");
            return Cow::Owned(format!("{}{}", self.head, self.tail));
        };
        debug_assert!(cap as usize <= self.retain, "cap {cap} beyond retention");
        let half = (cap / 2) as usize;
        let head = floor_boundary(&self.head, half);
        // The tail string starts at this offset of the whole text.
        let tail_origin = self.len - self.tail.len();
        let tail = ceil_boundary(&self.tail, self.tail.len().saturating_sub(half));
        let omitted = tail_origin + tail - head;
        Cow::Owned(format!(
            "{}\n… {omitted} bytes omitted …\n{}",
            &self.head[..head],
            &self.tail[tail..]
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::cap::cap_text;

    /// With any retention at least the cap, the kept parts give exactly what the whole text
    /// would.
    #[test]
    fn kept_parts_match_the_whole_text() {
        let chunks = [
            "héllo ",
            "wörld ",
            "",
            "0123456789",
            "é",
            "abc\n",
            "the end",
        ];
        let whole: String = chunks.concat();
        for retain in [4usize, 5, 7, 12, 16, 40, usize::MAX] {
            let mut s = Streamed::new(retain);
            for c in chunks {
                s.push(c);
            }
            assert_eq!(s.len(), whole.len());
            for bytes in 1..=retain.min(64) as u64 {
                let cap = Cap::bytes(bytes);
                assert_eq!(
                    s.capped(cap),
                    cap_text(&whole, cap),
                    "retain {retain} cap {bytes}"
                );
            }
            let mut end = 0;
            for c in chunks {
                end += c.len();
                if end <= retain {
                    assert_eq!(s.prefix(end), &whole[..end]);
                    assert_eq!(s.last_end_within(end), end);
                }
            }
        }
    }

    #[test]
    fn memory_stays_within_the_retention() {
        let mut s = Streamed::new(1000);
        let chunk = "x".repeat(333);
        for _ in 0..10_000 {
            s.push(&chunk);
        }
        assert!(s.head.len() <= 1000 && s.tail.len() <= 2000 + 333);
        assert!(s.ends.len() <= 4);
        assert_eq!(s.len(), 3_330_000);
    }
}
