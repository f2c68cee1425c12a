//! Who may do what. A bearer token (JWT) is checked against the configured keys, audience and
//! issuer; its `toolview` claim grants rights over sessions named by globs:
//!
//! ```json
//! {"aud": "toolview", "exp": 1767225600,
//!  "toolview": {"grants": [{"rights": ["publish", "subscribe"], "sessions": ["team-a/*"]}]}}
//! ```
//!
//! No token, or a malformed, expired, wrongly signed or wrong-audience one, is
//! [`Error::Unauthenticated`]; a valid token that does not cover a request is
//! [`Error::PermissionDenied`], decided before the session is looked at, so the answer does
//! not tell whether a session exists.
//!
//! Where things are: `mod.rs` (`Authenticator`: bearer JWT → `Access`, checked against
//! `aud`/`iss`/`exp`; `Access::require` per right and session), `keys.rs` (an HS256 secret or a
//! JWKS; each key verifies only its own algorithm; reloadable), `grants.rs` (rights over session
//! globs), `mint.rs` (`toolview token`), `link.rs` (answer links: a grant signed by the server
//! for one permission request and one option, which webhooks carry)

mod grants;
mod keys;
pub mod link;
mod mint;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::Validation;
use parking_lot::RwLock;
use serde::Deserialize;

pub use grants::{Grant, GrantClaim, Right};
pub use keys::{KeySource, MIN_SECRET_BYTES, read_secret};
pub use mint::{MintRequest, mint, parse_grant, parse_ttl};

use crate::domain::SessionId;
use crate::error::Error;
use keys::Keys;

/// How tokens are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtSettings {
    /// The verification keys.
    pub keys: KeySource,
    /// The required `aud`.
    pub audience: String,
    /// The required `iss`, if any.
    pub issuer: Option<String>,
    /// Clock skew allowed on `exp` (and `nbf`).
    pub leeway: Duration,
}

/// Checks credentials. Without JWT settings every request is allowed.
pub struct Authenticator {
    jwt: Option<Jwt>,
}

struct Jwt {
    settings: JwtSettings,
    /// Swapped whole on reload; a check in flight keeps the keys it started with.
    keys: RwLock<Arc<Keys>>,
}

/// The claims toolview reads; others are ignored.
#[derive(Debug, Deserialize)]
struct Claims {
    exp: u64,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    toolview: Option<ToolviewClaim>,
}

/// The `toolview` claim.
#[derive(Debug, Deserialize)]
struct ToolviewClaim {
    #[serde(default)]
    grants: Vec<GrantClaim>,
}

/// What a request may do.
#[derive(Debug, Clone)]
pub enum Access {
    /// Authentication is off: everything.
    Open,
    /// What a valid token grants, until it expires.
    Token(Principal),
}

/// A verified token.
#[derive(Debug, Clone)]
pub struct Principal {
    /// The token's `sub`, for logs.
    pub subject: Option<String>,
    /// When the token stops being valid (its `exp` plus the leeway).
    pub valid_until: SystemTime,
    grants: Vec<Grant>,
    /// A digest of the token: tells one caller's requests from another's.
    fingerprint: u64,
}

impl Authenticator {
    /// Allows everything (`--auth none`).
    pub fn open() -> Self {
        Authenticator { jwt: None }
    }

    /// Checks JWTs; fails if the keys cannot be loaded.
    pub fn jwt(settings: JwtSettings) -> anyhow::Result<Self> {
        let keys = Keys::load(&settings.keys)?;
        Ok(Authenticator {
            jwt: Some(Jwt {
                settings,
                keys: RwLock::new(Arc::new(keys)),
            }),
        })
    }

    /// Whether requests need a token.
    pub fn enabled(&self) -> bool {
        self.jwt.is_some()
    }

    /// Reads the key files again; on an error the old keys stay in use.
    pub fn reload(&self) -> anyhow::Result<()> {
        if let Some(jwt) = &self.jwt {
            let keys = Keys::load(&jwt.settings.keys)?;
            *jwt.keys.write() = Arc::new(keys);
        }
        Ok(())
    }

    /// Checks an `authorization` header value (`Bearer <JWT>`).
    pub fn authenticate(&self, authorization: Option<&str>) -> Result<Access, Error> {
        let Some(jwt) = &self.jwt else {
            return Ok(Access::Open);
        };
        let unauthenticated = |why: &str| Error::Unauthenticated(why.to_owned().into());
        let value = authorization.ok_or_else(|| {
            unauthenticated(
                "no token: this server asks for one (the toolview commands take --token or \
                 TOOLVIEW_TOKEN, the viewer #token=… in its URL, other clients the metadata \
                 `authorization: Bearer <JWT>`; `toolview token` makes one)",
            )
        })?;
        let token = value
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .ok_or_else(|| unauthenticated("the authorization is not `Bearer <JWT>`"))?;
        jwt.verify(token).map(Access::Token)
    }
}

impl Jwt {
    fn verify(&self, token: &str) -> Result<Principal, Error> {
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            Error::Unauthenticated(format!("{what}: {e}").into())
        };
        let header = jsonwebtoken::decode_header(token).map_err(|e| bad("malformed token", &e))?;
        let keys = self.keys.read().clone();
        let (algorithm, key) = keys
            .select(&header)
            .map_err(|e| bad("token not accepted", &e))?;
        let mut validation = Validation::new(algorithm);
        validation.set_audience(&[&self.settings.audience]);
        validation.set_required_spec_claims(&["exp", "aud"]);
        if let Some(iss) = &self.settings.issuer {
            validation.set_issuer(&[iss]);
            validation.set_required_spec_claims(&["exp", "aud", "iss"]);
        }
        validation.leeway = self.settings.leeway.as_secs();
        validation.validate_nbf = true;
        let data = jsonwebtoken::decode::<Claims>(token, key, &validation)
            .map_err(|e| bad("token not accepted", &e))?;
        let Claims { exp, sub, toolview } = data.claims;
        let grants = toolview
            .map(|t| t.grants)
            .unwrap_or_default()
            .iter()
            .map(Grant::compile)
            .collect::<Result<_, _>>()
            .map_err(|e| bad("malformed grant", &e))?;
        // RFC 7519: valid only *before* `exp`. jsonwebtoken accepts the whole second of `exp`;
        // checking here keeps new calls and the end of open subscriptions at the same instant.
        let valid_until = UNIX_EPOCH + Duration::from_secs(exp) + self.settings.leeway;
        if SystemTime::now() >= valid_until {
            return Err(bad("token not accepted", &"ExpiredSignature"));
        }
        Ok(Principal {
            subject: sub,
            valid_until,
            grants,
            fingerprint: std::hash::BuildHasher::hash_one(
                &std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default(),
                token,
            ),
        })
    }
}

impl Access {
    /// The token's subject (`sub`); empty when authentication is off or the token has none.
    pub fn subject(&self) -> &str {
        match self {
            Access::Open => "",
            Access::Token(p) => p.subject.as_deref().unwrap_or(""),
        }
    }

    /// Who is calling, as a number: the same for every request with the same token (0 when
    /// authentication is off), for state kept between one caller's requests.
    pub fn caller(&self) -> u64 {
        match self {
            Access::Open => 0,
            Access::Token(p) => p.fingerprint,
        }
    }

    /// `Ok` if the access includes `right` on `session`.
    pub fn require(&self, right: Right, session: &SessionId) -> Result<(), Error> {
        self.require_any(&[right], session)
    }

    /// `Ok` if the access includes one of `rights` on `session`.
    pub fn require_any(&self, rights: &[Right], session: &SessionId) -> Result<(), Error> {
        match self {
            Access::Open => Ok(()),
            Access::Token(_) if rights.iter().any(|&r| self.allows(r, session)) => Ok(()),
            Access::Token(_) => {
                let names: Vec<&str> = rights.iter().map(|r| r.name()).collect();
                Err(Error::PermissionDenied(
                    format!(
                        "the token does not grant {} on session \"{session}\"",
                        names.join(" or ")
                    )
                    .into(),
                ))
            }
        }
    }

    /// Whether the access includes `right` on `session`.
    pub fn allows(&self, right: Right, session: &SessionId) -> bool {
        match self {
            Access::Open => true,
            Access::Token(p) => p.grants.iter().any(|g| g.allows(right, session)),
        }
    }

    /// The rights the access includes on `session`, in [`Right::ALL`]'s order.
    pub fn rights_on(&self, session: &SessionId) -> Vec<Right> {
        Right::ALL
            .into_iter()
            .filter(|&r| self.allows(r, session))
            .collect()
    }

    /// `Ok` if the access includes `right` on some session: what a request whose sessions are
    /// known only after costly work (an OTLP export's, once mapped) is checked against first.
    pub fn require_somewhere(&self, right: Right) -> Result<(), Error> {
        match self {
            Access::Open => Ok(()),
            Access::Token(p) if p.grants.iter().any(|g| g.has(right)) => Ok(()),
            Access::Token(_) => Err(Error::PermissionDenied(
                format!("the token does not grant {} on any session", right.name()).into(),
            )),
        }
    }

    /// When the access ends: a token's expiry, `None` when open.
    pub fn valid_until(&self) -> Option<SystemTime> {
        match self {
            Access::Open => None,
            Access::Token(p) => Some(p.valid_until),
        }
    }
}
