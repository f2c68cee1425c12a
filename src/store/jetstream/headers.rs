//! The headers a stored message carries: the log's facts beside the record in the payload,
//! written by `append.rs` and read by `load.rs`.

pub(super) const OFFSET: &str = "Toolview-Offset";
pub(super) const EPOCH: &str = "Toolview-Epoch";
pub(super) const CREATED: &str = "Toolview-Created-Ms";
pub(super) const UPDATED: &str = "Toolview-Updated-Ms";
pub(super) const CALLS: &str = "Toolview-Calls";
/// The session's title and cwd (base64url of the UTF-8, as a header value must be plain
/// ASCII), when the session has them; absent on messages written before titles existed.
pub(super) const TITLE: &str = "Toolview-Title";
pub(super) const CWD: &str = "Toolview-Cwd";
/// On the last message of a session's append: the session's metadata after it, with its
/// summary (base64url of the codec's `encode_meta`); absent on messages written before
/// summaries, and on an append's other messages (a replica takes the summary from the last).
pub(super) const SUMMARY: &str = "Toolview-Summary";

/// A header value for text: base64url, no padding.
pub(super) fn text_header(text: &str) -> String {
    bytes_header(text.as_bytes())
}

/// A header value for bytes: base64url, no padding.
pub(super) fn bytes_header(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
/// On an append's first message: the append's unique id (see `append::write`).
pub(super) const APPEND: &str = "Toolview-Append";
