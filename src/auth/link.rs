//! Answer links: a grant to answer one permission request with one of its options, and
//! nothing else, until it expires. The grant is the link: `<payload>.<tag>`, both base64url, the
//! payload the grant's JSON and the tag its HMAC-SHA256 under the server's link key (kept in the
//! store, the same for every replica). Changing any part of the payload (another request,
//! another option, a later expiry) breaks the tag; the key never leaves the server.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;
use serde::{Deserialize, Serialize};

use crate::domain::SessionId;
use crate::domain::permission::RequestId;

/// Characters of a link's grant at most: the ids' limits (128 each), an option id, a hook's
/// name, and the encoding's growth, with room.
pub const MAX_GRANT_CHARS: usize = 2048;

/// What one link allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// The session.
    #[serde(rename = "s")]
    pub session: SessionId,
    /// The request in it.
    #[serde(rename = "r")]
    pub request: RequestId,
    /// The option it answers with.
    #[serde(rename = "o")]
    pub option: String,
    /// Until when, in Unix milliseconds.
    #[serde(rename = "e")]
    pub expires_ms: u64,
    /// The hook whose delivery carried it: who answers (`<hook> via webhook`).
    #[serde(rename = "h")]
    pub hook: String,
}

/// Why a link is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Not a grant this server signed (altered, made up, or signed with another key).
    #[error("not an answer link this server made")]
    Forged,
    /// Past its expiry.
    #[error("this answer link expired")]
    Expired,
}

/// The key links are signed with.
#[derive(Clone)]
pub struct LinkKey(hmac::Key);

impl std::fmt::Debug for LinkKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LinkKey(..)")
    }
}

impl LinkKey {
    /// A key from its bytes (the store's link key).
    pub fn new(bytes: &[u8]) -> Self {
        LinkKey(hmac::Key::new(hmac::HMAC_SHA256, bytes))
    }

    /// The grant as a link's text.
    pub fn sign(&self, grant: &Grant) -> String {
        // Serializing ids, strings and a number cannot fail.
        let json = serde_json::to_vec(grant).unwrap_or_default();
        let payload = URL_SAFE_NO_PAD.encode(json);
        let tag = hmac::sign(&self.0, payload.as_bytes());
        format!("{payload}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
    }

    /// The grant a link's text carries, if this key signed it and it has not expired by
    /// `now_ms`.
    pub fn verify(&self, text: &str, now_ms: u64) -> Result<Grant, LinkError> {
        if text.len() > MAX_GRANT_CHARS {
            return Err(LinkError::Forged);
        }
        let (payload, tag) = text.split_once('.').ok_or(LinkError::Forged)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| LinkError::Forged)?;
        hmac::verify(&self.0, payload.as_bytes(), &tag).map_err(|_| LinkError::Forged)?;
        let json = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| LinkError::Forged)?;
        // Signed by this key, so made by this server: it reads.
        let grant: Grant = serde_json::from_slice(&json).map_err(|_| LinkError::Forged)?;
        if now_ms >= grant.expires_ms {
            return Err(LinkError::Expired);
        }
        Ok(grant)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant() -> Grant {
        Grant {
            session: SessionId::new("team/run-1").unwrap(),
            request: RequestId::new("perm-1").unwrap(),
            option: "allow".into(),
            expires_ms: 2_000,
            hook: "ops".into(),
        }
    }

    #[test]
    fn a_link_answers_only_what_it_was_made_for_until_it_expires() {
        let key = LinkKey::new(b"0123456789abcdef0123456789abcdef");
        let link = key.sign(&grant());
        assert_eq!(key.verify(&link, 1_999), Ok(grant()));
        assert_eq!(key.verify(&link, 2_000), Err(LinkError::Expired));
        // Another key's link, or one with any part changed, is refused.
        let other = LinkKey::new(b"another key, as long as the first");
        assert_eq!(other.verify(&link, 0), Err(LinkError::Forged));
        let (payload, tag) = link.split_once('.').unwrap();
        let altered = Grant {
            option: "reject".into(),
            ..grant()
        };
        let forged_payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&altered).unwrap());
        assert_eq!(
            key.verify(&format!("{forged_payload}.{tag}"), 0),
            Err(LinkError::Forged)
        );
        let later = Grant {
            expires_ms: u64::MAX,
            ..grant()
        };
        let later = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&later).unwrap());
        assert_eq!(
            key.verify(&format!("{later}.{tag}"), 0),
            Err(LinkError::Forged)
        );
        for broken in [
            "",
            ".",
            "x",
            &format!("{payload}."),
            &format!("{payload}.{tag}x"),
        ] {
            assert_eq!(key.verify(broken, 0), Err(LinkError::Forged), "{broken}");
        }
        assert_eq!(
            key.verify(&"a".repeat(MAX_GRANT_CHARS + 1), 0),
            Err(LinkError::Forged)
        );
    }
}
