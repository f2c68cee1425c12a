//! How live text reaches a subscriber within the output cap: a chunk as it is, the truncation
//! marker for the one that crosses the cap, nothing after; and the one rule that decides whether
//! a target sends an append, a snapshot or nothing (`live_chunk`).

use std::borrow::Cow;

use crate::render::cap::{Cap, TRUNCATED};
use crate::render::fold::CallState;
use crate::render::streamed::{Chunk, Streamed};

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
