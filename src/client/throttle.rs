//! `toolview acp`'s throttle on input replacements: while a call's input streams, the server
//! sends its `rawInput` again each time it read the input (marked `_meta.toolview.input`); ACP
//! v1 has no append, so each replacement costs the editor O(input). The throttle lets at most
//! one through per call per period: a newer one replaces a held one, a held one goes out when
//! its period ends, and every other notification first lets out what is held (so the editor
//! sees the updates of a call in the order the server sent them). Sans-I/O: the caller gives
//! the time and sleeps until [`InputThrottle::next_due`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The period by default: at most ten replacements a second per call, which keeps a file being
/// written visibly growing while an editor re-renders a 40 KB input at most ten times a second.
pub const DEFAULT_INPUT_THROTTLE_MS: u64 = 100;

/// What marks an input replacement, as the server writes it (`render::acp`).
const MARK: &str = r#""toolview":{"input":"streaming"}"#;

/// One call's replacements: when the last went out, and the one held back.
#[derive(Debug)]
struct Slot {
    sent: Instant,
    held: Option<String>,
}

/// The throttle (see the module).
#[derive(Debug)]
pub struct InputThrottle {
    period: Duration,
    calls: HashMap<String, Slot>,
}

impl InputThrottle {
    /// A throttle of `period` (zero lets everything through).
    pub fn new(period: Duration) -> Self {
        InputThrottle {
            period,
            calls: HashMap::new(),
        }
    }

    /// A notification from the server at `now`: what goes to the editor now, in order.
    pub fn offer(&mut self, notification: String, now: Instant) -> Vec<String> {
        let Some(call) = self.replacement_of(&notification) else {
            // Anything else: what is held goes first, then it.
            let mut out = self.take_held();
            out.push(notification);
            return out;
        };
        // Calls whose period ended with nothing held are forgotten: memory follows the calls
        // whose input streams now.
        let period = self.period;
        self.calls
            .retain(|_, slot| slot.held.is_some() || now < slot.sent + period);
        match self.calls.get_mut(&call) {
            Some(slot) if now < slot.sent + period => {
                slot.held = Some(notification);
                Vec::new()
            }
            Some(_) | None => {
                self.calls.insert(
                    call,
                    Slot {
                        sent: now,
                        held: None,
                    },
                );
                vec![notification]
            }
        }
    }

    /// When the next held replacement is due, if one is held.
    pub fn next_due(&self) -> Option<Instant> {
        self.calls
            .values()
            .filter(|slot| slot.held.is_some())
            .map(|slot| slot.sent + self.period)
            .min()
    }

    /// The held replacements due at `now`.
    pub fn due(&mut self, now: Instant) -> Vec<String> {
        let period = self.period;
        let mut out = Vec::new();
        for slot in self.calls.values_mut() {
            if now >= slot.sent + period
                && let Some(held) = slot.held.take()
            {
                slot.sent = now;
                out.push(held);
            }
        }
        out
    }

    /// Everything held, now (the stream ends, or another notification goes first).
    pub fn take_held(&mut self) -> Vec<String> {
        let mut held: Vec<(Instant, String)> = self
            .calls
            .values_mut()
            .filter_map(|slot| slot.held.take().map(|h| (slot.sent, h)))
            .collect();
        held.sort_by_key(|(sent, _)| *sent);
        held.into_iter().map(|(_, h)| h).collect()
    }

    /// The call an input replacement is about; `None` for any other notification (only a
    /// marked one is parsed).
    fn replacement_of(&self, notification: &str) -> Option<String> {
        if self.period.is_zero() || !notification.contains(MARK) {
            return None;
        }
        let message: serde_json::Value = serde_json::from_str(notification).ok()?;
        let update = &message["params"]["update"];
        (update["sessionUpdate"] == "tool_call_update")
            .then(|| update["toolCallId"].as_str().map(str::to_owned))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replacement(call: &str, n: u32) -> String {
        serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "s", "update": {"sessionUpdate": "tool_call_update", "toolCallId": call,
            "rawInput": {"n": n}, "_meta": {"toolview": {"input": "streaming"}}}}})
        .to_string()
    }

    fn other(call: &str) -> String {
        serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "s", "update": {"sessionUpdate": "tool_call_update", "toolCallId": call,
            "status": "in_progress"}}})
        .to_string()
    }

    #[test]
    fn one_replacement_per_call_per_period_the_latest_winning() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut t = InputThrottle::new(Duration::from_millis(100));
        assert_eq!(t.offer(replacement("a", 1), ms(0)), [replacement("a", 1)]);
        assert!(t.offer(replacement("a", 2), ms(10)).is_empty());
        assert!(t.offer(replacement("a", 3), ms(20)).is_empty());
        // Another call has its own period.
        assert_eq!(t.offer(replacement("b", 1), ms(30)), [replacement("b", 1)]);
        assert_eq!(t.next_due(), Some(ms(100)));
        assert!(t.due(ms(99)).is_empty());
        assert_eq!(t.due(ms(100)), [replacement("a", 3)]);
        assert_eq!(t.next_due(), None);
        // The next period starts when the held one went out.
        assert!(t.offer(replacement("a", 4), ms(150)).is_empty());
        assert_eq!(t.offer(replacement("a", 5), ms(200)), [replacement("a", 5)]);
    }

    #[test]
    fn anything_else_lets_the_held_out_first() {
        let t0 = Instant::now();
        let mut t = InputThrottle::new(Duration::from_millis(100));
        t.offer(replacement("a", 1), t0);
        assert!(t.offer(replacement("a", 2), t0).is_empty());
        assert_eq!(
            t.offer(other("a"), t0),
            [replacement("a", 2), other("a")],
            "the completion comes after the input it completes"
        );
        assert!(t.take_held().is_empty());
        // Zero: no throttle at all.
        let mut t = InputThrottle::new(Duration::ZERO);
        assert_eq!(t.offer(replacement("a", 1), t0).len(), 1);
        assert_eq!(t.offer(replacement("a", 2), t0).len(), 1);
    }
}
