//! What a token grants: rights over sessions named by globs.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::domain::SessionId;

/// One right over a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Right {
    /// Append events (`Publish`).
    Publish,
    /// Follow the session's updates (`Subscribe`; also allows `GetSession`).
    Subscribe,
    /// Read the session's metadata (`GetSession`).
    Read,
    /// Answer the session's permission requests (`RespondPermission`, the answer endpoints of
    /// `toolview acp`, AG-UI, the AI SDK and the viewer); a subscriber without it sees the
    /// prompts read-only.
    Approve,
}

impl Right {
    /// Every right, in the order the API lists them.
    pub const ALL: [Right; 4] = [
        Right::Publish,
        Right::Subscribe,
        Right::Read,
        Right::Approve,
    ];

    /// The name tokens and messages use.
    pub fn name(self) -> &'static str {
        match self {
            Right::Publish => "publish",
            Right::Subscribe => "subscribe",
            Right::Read => "read",
            Right::Approve => "approve",
        }
    }

    /// Parses a name; `None` for one this server does not know.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "publish" => Some(Right::Publish),
            "subscribe" => Some(Right::Subscribe),
            "read" => Some(Right::Read),
            "approve" => Some(Right::Approve),
            _ => None,
        }
    }
}

/// A grant as a token carries it: `{"rights":["publish"],"sessions":["team-a/*"]}`. Rights
/// this server does not know are ignored (a newer issuer's token still works, and never
/// grants more here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantClaim {
    /// Right names.
    pub rights: Vec<String>,
    /// Session globs: `*` and `?` stay within a `/` segment, `**` spans segments, `[…]` and
    /// `{a,b}` as usual.
    pub sessions: Vec<String>,
}

/// A grant ready to check: its rights and its compiled globs.
#[derive(Debug, Clone)]
pub struct Grant {
    rights: Vec<Right>,
    sessions: GlobSet,
}

impl Grant {
    /// Compiles a claim; the error names the glob that does not parse.
    pub fn compile(claim: &GrantClaim) -> Result<Self, String> {
        let mut sessions = GlobSetBuilder::new();
        for pattern in &claim.sessions {
            let glob = GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("session glob {pattern:?}: {}", e.kind()))?;
            sessions.add(glob);
        }
        let sessions = sessions.build().map_err(|e| e.to_string())?;
        let rights = claim
            .rights
            .iter()
            .filter_map(|r| Right::parse(r))
            .collect();
        Ok(Grant { rights, sessions })
    }

    /// Whether this grant gives `right` on some session.
    pub fn has(&self, right: Right) -> bool {
        self.rights.contains(&right)
    }

    /// Whether this grant gives `right` on `session`.
    pub fn allows(&self, right: Right, session: &SessionId) -> bool {
        self.rights.contains(&right) && self.sessions.is_match(session.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(rights: &[&str], sessions: &[&str]) -> Grant {
        Grant::compile(&GrantClaim {
            rights: rights.iter().map(|s| (*s).to_owned()).collect(),
            sessions: sessions.iter().map(|s| (*s).to_owned()).collect(),
        })
        .unwrap()
    }

    fn sid(s: &str) -> SessionId {
        SessionId::new(s).unwrap()
    }

    #[test]
    fn a_star_stays_within_its_segment() {
        let g = grant(&["subscribe"], &["team-a/*"]);
        assert!(g.allows(Right::Subscribe, &sid("team-a/run-1")));
        assert!(!g.allows(Right::Subscribe, &sid("team-a/run-1/sub")));
        assert!(!g.allows(Right::Subscribe, &sid("team-b/run-1")));
        assert!(!g.allows(Right::Subscribe, &sid("team-a")));
        assert!(!g.allows(Right::Publish, &sid("team-a/run-1")));
        let deep = grant(&["read"], &["team-a/**"]);
        assert!(deep.allows(Right::Read, &sid("team-a/run-1/sub")));
    }

    #[test]
    fn unknown_rights_grant_nothing_and_bad_globs_are_named() {
        let g = grant(&["admin", "read"], &["x"]);
        assert!(g.allows(Right::Read, &sid("x")));
        assert!(!g.allows(Right::Publish, &sid("x")));
        let e = Grant::compile(&GrantClaim {
            rights: vec!["read".into()],
            sessions: vec!["a/[".into()],
        })
        .unwrap_err();
        assert!(e.contains("\"a/[\""), "{e}");
    }
}
