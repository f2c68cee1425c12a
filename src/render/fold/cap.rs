//! The output cap: long text kept as its head and tail, streamed output cut at the chunk that
//! crosses the cap.

use std::borrow::Cow;
use std::num::NonZeroU64;

use crate::domain::ContentBlock;

/// The output cap a subscriber is rendered with: a number of bytes of each text past which it is
/// cut, or none (the wire's `max_output_bytes: 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Cap(Option<NonZeroU64>);

impl Cap {
    /// No cap: everything is shown.
    pub const NONE: Cap = Cap(None);

    /// A cap of `bytes` (0: none).
    pub fn bytes(bytes: u64) -> Self {
        Cap(NonZeroU64::new(bytes))
    }

    /// The cap in bytes, if there is one.
    pub fn get(self) -> Option<u64> {
        self.0.map(NonZeroU64::get)
    }

    /// Whether `len` bytes are within the cap.
    pub fn allows(self, len: u64) -> bool {
        self.get().is_none_or(|cap| len <= cap)
    }

    /// How many bytes of output a fold must keep at each end for this cap: all of it without
    /// one.
    pub fn retention(self) -> usize {
        self.get()
            .map_or(usize::MAX, |cap| usize::try_from(cap).unwrap_or(usize::MAX))
    }
}

/// Keeps the first and last `cap/2` bytes of a text longer than `cap` (cuts moved inward to
/// UTF-8 boundaries), joined by a note of how many bytes were left out.
pub fn cap_text(text: &str, cap: Cap) -> Cow<'_, str> {
    let len = text.len() as u64;
    let Some(cap) = cap.get().filter(|&cap| len > cap) else {
        return Cow::Borrowed(text);
    };
    let half = (cap / 2) as usize;
    let mut head = half;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - half;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let omitted = tail - head;
    Cow::Owned(format!(
        "{}\n… {omitted} bytes omitted …\n{}",
        &text[..head],
        &text[tail..]
    ))
}

/// A pending call's input as snapshots show it: its first `cap` bytes (cut back to a character
/// boundary), a truncation marker after them when there is more.
pub fn capped_input(text: &str, cap: Cap) -> Cow<'_, str> {
    match cap.get().filter(|&cap| text.len() as u64 > cap) {
        None => Cow::Borrowed(text),
        Some(cap) => {
            let head = floor_boundary(text, cap as usize);
            Cow::Owned(format!("{}{TRUNCATED}", &text[..head]))
        }
    }
}

/// The marker that replaces the chunk that takes streamed output past the cap.
pub const TRUNCATED: &str = "\n… output truncated …\n";

/// The largest character boundary of `s` at or below `i`.
pub fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Caps every text and reasoning block (see [`cap_text`]); images and links are kept.
pub fn cap_blocks(blocks: &mut [ContentBlock], cap: Cap) {
    for b in blocks {
        if let ContentBlock::Text { text } | ContentBlock::Reasoning { text } = b
            && let Cow::Owned(capped) = cap_text(text, cap)
        {
            *text = capped;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_keeps_head_and_tail_on_char_boundaries() {
        let cap = Cap::bytes;
        assert_eq!(cap_text("abcdef", Cap::NONE), "abcdef");
        assert_eq!(
            cap_text("abcdef", cap(0)),
            "abcdef",
            "0 on the wire is no cap"
        );
        assert_eq!(cap_text("abcdef", cap(6)), "abcdef");
        assert_eq!(cap_text("abcdefgh", cap(4)), "ab\n… 4 bytes omitted …\ngh");
        // "é" is two bytes: cuts move inward.
        assert_eq!(cap_text("éééé", cap(4)), "é\n… 4 bytes omitted …\né");
        assert_eq!(cap_text("aéb", cap(2)), "a\n… 2 bytes omitted …\nb");
        assert_eq!(cap_text("aéé", cap(2)), "a\n… 4 bytes omitted …\n");
    }
}
