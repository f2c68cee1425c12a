//! Positions in a session's log: which log (its epoch) and which event (its offset).

use std::fmt;

/// Longest epoch accepted from a client; the server's own are 16 hex digits.
pub const MAX_EPOCH_LEN: usize = 64;

/// Why a string is not an epoch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EpochError {
    /// The empty string.
    #[error("must not be empty")]
    Empty,
    /// Longer than [`MAX_EPOCH_LEN`]; carries the length.
    #[error("must be at most {MAX_EPOCH_LEN} bytes, got {0}")]
    TooLong(usize),
}

/// The identity of one session log: fixed when the log is created, new when a log is lost,
/// reset, or expired and created again. A position in another epoch's log means nothing in
/// this one. A session without a log has no epoch (`Option<Epoch>`), never an empty one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
// Shared, not owned: every update sent carries its log's epoch, so a clone must not copy it.
pub struct Epoch(std::sync::Arc<str>);

impl Epoch {
    /// Validates and wraps an epoch.
    pub fn new(s: impl Into<String>) -> Result<Self, EpochError> {
        let s = s.into();
        match s.len() {
            0 => Err(EpochError::Empty),
            n if n > MAX_EPOCH_LEN => Err(EpochError::TooLong(n)),
            _ => Ok(Epoch(s.into())),
        }
    }

    /// The epoch text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Epoch {
    type Error = EpochError;
    fn try_from(s: String) -> Result<Self, EpochError> {
        Epoch::new(s)
    }
}

impl From<Epoch> for String {
    fn from(e: Epoch) -> String {
        e.0.to_string()
    }
}

impl fmt::Display for Epoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The position of one event: its offset (1, 2, 3, … with no gaps) in the log of `epoch`.
/// Acks, updates and resumes all speak in cursors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// The 1-based position in the epoch's log.
    pub offset: u64,
    /// The log the offset counts in; a new epoch starts a new log.
    pub epoch: Epoch,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_are_not_empty_and_bounded() {
        assert_eq!(Epoch::new(""), Err(EpochError::Empty));
        assert_eq!(Epoch::new("x".repeat(65)), Err(EpochError::TooLong(65)));
        assert_eq!(
            Epoch::new("0838050ed92ebd8f").unwrap().as_str(),
            "0838050ed92ebd8f"
        );
        let json: Result<Epoch, _> = serde_json::from_str("\"\"");
        assert!(json.is_err());
    }
}
