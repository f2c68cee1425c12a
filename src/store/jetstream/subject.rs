//! Session ids as NATS subject tokens, and back.
//!
//! A session id is `[A-Za-z0-9._:-]` segments joined by `/`. In a subject `.` separates tokens
//! and `:` is not allowed in KV keys, so `.` is written `=2E` and `:` `=3A`; `=` never occurs in
//! an id, so the mapping is reversible. `/` is valid in subjects as it is.

use crate::domain::SessionId;

/// The subject of a session's log: `<prefix>.<escaped id>`.
pub fn subject(prefix: &str, session: &SessionId) -> String {
    let id = session.as_str();
    let mut s = String::with_capacity(prefix.len() + 1 + id.len() + 8);
    s.push_str(prefix);
    s.push('.');
    for c in id.chars() {
        match c {
            '.' => s.push_str("=2E"),
            ':' => s.push_str("=3A"),
            c => s.push(c),
        }
    }
    s
}

/// The session a subject under `prefix` belongs to; `None` for anything else.
pub fn session(prefix: &str, subject: &str) -> Option<SessionId> {
    let token = subject.strip_prefix(prefix)?.strip_prefix('.')?;
    let id = token.replace("=2E", ".").replace("=3A", ":");
    SessionId::new(id).ok()
}

/// The filter that matches every session's subject.
pub fn all(prefix: &str) -> String {
    format!("{prefix}.>")
}

/// Where the stream republishes a session's messages (their headers): `<prefix>-live.<id>`, a
/// core NATS subject outside the stream's own.
pub fn live(prefix: &str, session: &SessionId) -> String {
    subject(&live_prefix(prefix), session)
}

/// The session a republished message's subject belongs to.
pub fn live_session(prefix: &str, subject: &str) -> Option<SessionId> {
    session(&live_prefix(prefix), subject)
}

/// The filter of every republished subject (the RePublish destination).
pub fn live_all(prefix: &str) -> String {
    all(&live_prefix(prefix))
}

fn live_prefix(prefix: &str) -> String {
    format!("{prefix}-live")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_one_token() {
        for id in ["s", "team-a/run.42", "a:b.c/d-e_f", "..::"] {
            let Ok(session_id) = SessionId::new(id) else {
                continue;
            };
            let s = subject("toolview.s", &session_id);
            let token = s.strip_prefix("toolview.s.").unwrap();
            assert!(!token.contains(['.', ':', ' ', '*', '>']), "{s}");
            assert_eq!(session("toolview.s", &s), Some(session_id));
        }
        assert_eq!(session("toolview.s", "other.x"), None);
        let x = SessionId::new("a.b").unwrap();
        assert_eq!(live("toolview.s", &x), "toolview.s-live.a=2Eb");
        assert_eq!(live_session("toolview.s", &live("toolview.s", &x)), Some(x));
        // The republished subjects are not the stream's own.
        assert_eq!(session("toolview.s", "toolview.s-live.a"), None);
    }
}
