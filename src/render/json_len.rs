//! The length of a value's JSON text, counted without writing it: what an update of the JSON
//! targets costs in a message, known before the edge encodes it.

use serde::Serialize;

/// Bytes of `value`'s compact JSON text (0 if it cannot be serialized, which toolview's own
/// event types always can: their maps have string keys).
pub fn json_len(value: &impl Serialize) -> usize {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value).map_or(0, |()| counter.0)
}

/// The compact JSON text of one of toolview's own wire events.
pub fn json_text(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("toolview's wire events have string keys: they serialize")
}

struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
