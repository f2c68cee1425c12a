//! The output cap: long text kept as its head and tail, streamed output cut at the chunk that
//! crosses the cap.

use std::borrow::Cow;
use std::num::NonZeroU64;

use super::fold::CallState;
use super::streamed::{Chunk, Streamed};
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
            let head = super::streamed::floor_boundary(text, cap as usize);
            Cow::Owned(format!("{}{TRUNCATED}", &text[..head]))
        }
    }
}

/// The marker that replaces the chunk that takes streamed output past the cap.
pub const TRUNCATED: &str = "\n… output truncated …\n";

/// A chunk as a live subscriber receives it: as is below the cap, the truncation marker for the
/// chunk that crosses it, nothing after.
pub fn capped_chunk(chunk: Chunk<'_>, cap: Cap) -> &str {
    if cap.allows(chunk.end() as u64) {
        chunk.text
    } else if cap.allows(chunk.start as u64) {
        TRUNCATED
    } else {
        ""
    }
}

/// How a live chunk reaches a subscriber: VIEW, Markdown and ANSI, and ACP (whose terminals
/// append and whose content replaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveChunk<'a> {
    /// A new snapshot of the card, its output up to this chunk.
    Snapshot,
    /// This text appended to the card shown before: the chunk, or the truncation marker for the
    /// chunk that crosses the cap.
    Append(&'a str),
    /// Nothing: the chunk is past the cap, which the crossing chunk already said. O(1), so a
    /// call streaming far past the cap costs each subscriber nothing per chunk.
    Nothing,
}

/// The one rule for live chunks: nothing past the cap; an append when the subscriber takes
/// appends and was shown the card (a started call's card came with its start; an orphan's with
/// its first output); a snapshot otherwise.
pub fn live_chunk<'a>(
    state: &CallState,
    chunk: Chunk<'a>,
    cap: Cap,
    appends: bool,
) -> LiveChunk<'a> {
    live_text(state.call_view.is_some(), chunk, cap, appends)
}

/// [`live_chunk`] for any streamed text: `started` says whether the item was shown at its start
/// (a message's text follows the same rule as a call's output).
pub fn live_text(started: bool, chunk: Chunk<'_>, cap: Cap, appends: bool) -> LiveChunk<'_> {
    if !cap.allows(chunk.start as u64) {
        LiveChunk::Nothing
    } else if appends && (started || chunk.start > 0) {
        LiveChunk::Append(capped_chunk(chunk, cap))
    } else {
        LiveChunk::Snapshot
    }
}

/// Whether the live output has gone past the cap (so later output is not sent).
pub fn stream_crossed_cap(state: &CallState, cap: Cap) -> bool {
    !cap.allows(state.streamed.len() as u64)
}

/// The streamed text up to byte `end` (the end of a chunk; `None`: all of it) as snapshots show
/// it: everything below the cap, else the text before the chunk that crossed it followed by the
/// truncation marker.
pub fn capped_streamed(state: &CallState, end: Option<usize>, cap: Cap) -> Cow<'_, str> {
    capped_text(&state.streamed, end, cap)
}

/// [`capped_streamed`] for any streamed text (a message's).
pub fn capped_text(streamed: &Streamed, end: Option<usize>, cap: Cap) -> Cow<'_, str> {
    let end = end.unwrap_or(streamed.len());
    let Some(cap) = cap.get().filter(|&cap| end as u64 > cap) else {
        return Cow::Borrowed(streamed.prefix(end));
    };
    let crossing_start = streamed.last_end_within(cap as usize);
    Cow::Owned(format!("{}{TRUNCATED}", streamed.prefix(crossing_start)))
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
