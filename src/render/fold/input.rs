//! A call's input while the model writes it, as a fold keeps it: the text so far (bounded) and
//! what it was last read as ([`crate::present::read_partial`]).
//!
//! Reading costs O(input), so a fold does not read at every delta: it reads at the start and
//! whenever the text has grown by a quarter since the last read (and at least
//! [`MIN_READ_STEP_BYTES`]). The reads of one call then cost O(input) in all, a delta costs
//! O(delta) between reads, and a replay reads at the same points as the live stream did.

use serde_json::Value;

use crate::domain::ToolCallView;
use crate::present::{pending_call, read_partial};
use crate::render::cap::floor_boundary;

/// Bytes of a call's input a fold keeps while it streams, at most: a fold rendered with an
/// output cap keeps no more than the cap ([`StreamingInput::start`]'s `limit`). Past it the input
/// so far stops growing in every rendering until the input completes (the complete arguments
/// come whole in their own event): one streaming call cannot make a subscriber hold more than
/// this, nor more than its cap.
pub const MAX_INPUT_SHOWN_BYTES: usize = 1 << 20;

/// The least growth of the input that makes a fold read it again.
pub const MIN_READ_STEP_BYTES: usize = 64;

/// A call's input while it streams.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamingInput {
    /// The input so far, at most `limit` bytes (cut at a character boundary).
    pub text: String,
    /// Bytes of input kept: [`MAX_INPUT_SHOWN_BYTES`], or the output cap when it is smaller.
    limit: usize,
    /// Whether text was left out past the limit.
    pub cut: bool,
    /// The input so far as of the last read, open structures closed
    /// ([`crate::present::PartialInput::so_far`]).
    pub so_far: Value,
    /// `text`'s length at the last read.
    read_len: usize,
    /// The harness's own card from the start, if any: it heads the pending card.
    harness_view: Option<ToolCallView>,
}

/// What appending to the input did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended<'a> {
    /// The part of the delta kept (empty past the limit).
    pub text: &'a str,
    /// Whether the input was read again: the pending card and `so_far` changed.
    pub read: bool,
}

impl StreamingInput {
    /// The input of a call started with `text` (possibly empty) and its pending card, keeping
    /// at most `limit` bytes of it (and never more than [`MAX_INPUT_SHOWN_BYTES`]).
    pub fn start(
        tool_name: &str,
        text: &str,
        harness_view: Option<ToolCallView>,
        limit: usize,
    ) -> (Self, ToolCallView) {
        let mut input = StreamingInput {
            text: String::new(),
            limit: limit.min(MAX_INPUT_SHOWN_BYTES),
            cut: false,
            so_far: Value::Null,
            read_len: 0,
            harness_view,
        };
        input.append(text);
        let card = input.read(tool_name);
        (input, card)
    }

    /// Appends a delta; the caller reads again ([`Self::read`]) when `read` says so.
    pub fn append<'a>(&mut self, delta: &'a str) -> Appended<'a> {
        let room = self.limit.saturating_sub(self.text.len());
        let kept = &delta[..floor_boundary(delta, room)];
        self.cut |= kept.len() < delta.len();
        self.text.push_str(kept);
        let step = MIN_READ_STEP_BYTES.max(self.read_len / 4);
        Appended {
            text: kept,
            read: !kept.is_empty() && self.text.len() >= self.read_len + step,
        }
    }

    /// Reads the input so far: updates `so_far` and returns the pending card.
    pub fn read(&mut self, tool_name: &str) -> ToolCallView {
        let partial = read_partial(&self.text);
        self.read_len = self.text.len();
        let card = pending_call(tool_name, &partial, self.harness_view.clone());
        self.so_far = partial.so_far;
        card
    }

    /// The same input with its text left out (an over-limit update's stand-in).
    pub fn emptied(&self) -> Self {
        StreamingInput {
            text: String::new(),
            limit: self.limit,
            cut: true,
            so_far: Value::Null,
            read_len: 0,
            harness_view: None,
        }
    }

    /// What the complete arguments add to the text streamed (and shown), when they extend it;
    /// empty when they do not (what was sent cannot be taken back: the presenters' card and the
    /// complete input replace it where a rendering can replace).
    pub fn rest<'a>(&self, complete: &'a str) -> &'a str {
        complete
            .strip_prefix(self.text.as_str())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_at_geometric_points() {
        let (mut input, card) = StreamingInput::start("Write", "", None, usize::MAX);
        assert_eq!(card.title(), "Write");
        let mut reads = 0;
        for _ in 0..1000 {
            if input.append(&"x".repeat(40)).read {
                input.read("Write");
                reads += 1;
            }
        }
        // 40 KB in 1000 deltas: about log_1.25(40000 / 64) reads, not 1000.
        assert!((20..40).contains(&reads), "{reads} reads");
    }

    #[test]
    fn stops_at_the_limit_on_a_character_boundary() {
        let (mut input, _) = StreamingInput::start("t", "", None, usize::MAX);
        let big = "é".repeat(MAX_INPUT_SHOWN_BYTES / 2 + 1);
        let appended = input.append(&big);
        assert!(input.cut);
        assert_eq!(appended.text.len(), MAX_INPUT_SHOWN_BYTES);
        assert_eq!(input.append("more").text, "");
        // The complete arguments bring what was left out.
        let full = format!("{big}more");
        assert_eq!(input.rest(&full), &full[MAX_INPUT_SHOWN_BYTES..]);
        let (input, _) = StreamingInput::start("t", "{\"a\":", None, usize::MAX);
        assert_eq!(input.rest("{\"a\": 1}"), " 1}");
        assert_eq!(input.rest("{\"b\": 1}"), "");
    }

    #[test]
    fn an_output_cap_bounds_the_input_kept() {
        let (mut input, _) = StreamingInput::start("Write", "{\"content\":\"", None, 1024);
        for _ in 0..100 {
            input.append(&"x".repeat(1000));
        }
        assert_eq!(input.text.len(), 1024);
        assert!(input.cut);
        input.read("Write");
        assert!(input.so_far.to_string().len() < 1100, "{}", input.so_far);
    }
}
