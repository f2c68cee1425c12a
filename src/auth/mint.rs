//! `toolview token`: HS256 tokens for development and tests. Production tokens come from the
//! operator's identity provider (JWKS).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, bail};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;

use super::grants::{GrantClaim, Right};

/// What to put in a token.
#[derive(Debug, Clone)]
pub struct MintRequest {
    /// The HS256 secret (see [`super::read_secret`]).
    pub secret: Vec<u8>,
    /// The grants.
    pub grants: Vec<GrantClaim>,
    /// How long the token is valid from now.
    pub ttl: Duration,
    /// `aud`.
    pub audience: String,
    /// `iss`, if any.
    pub issuer: Option<String>,
    /// `sub`, if any.
    pub subject: Option<String>,
}

#[derive(Serialize)]
struct Claims<'a> {
    aud: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    iss: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sub: Option<&'a str>,
    iat: u64,
    exp: u64,
    toolview: ToolviewClaim<'a>,
}

#[derive(Serialize)]
struct ToolviewClaim<'a> {
    grants: &'a [GrantClaim],
}

/// Signs a token.
pub fn mint(request: &MintRequest) -> anyhow::Result<String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the clock is before 1970")?
        .as_secs();
    let claims = Claims {
        aud: &request.audience,
        iss: request.issuer.as_deref(),
        sub: request.subject.as_deref(),
        iat: now,
        exp: now.saturating_add(request.ttl.as_secs()),
        toolview: ToolviewClaim {
            grants: &request.grants,
        },
    };
    let key = EncodingKey::from_secret(&request.secret)?;
    Ok(jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &key,
    )?)
}

/// Parses `--grant RIGHTS:GLOB`, e.g. `publish,subscribe:team-a/*` (one glob per grant; give
/// the flag again for more).
pub fn parse_grant(text: &str) -> anyhow::Result<GrantClaim> {
    let Some((rights, glob)) = text.split_once(':') else {
        bail!("{text:?}: a grant is RIGHTS:GLOB, e.g. publish,subscribe:team-a/*");
    };
    let rights = rights
        .split(',')
        .map(|r| match Right::parse(r.trim()) {
            Some(r) => Ok(r.name().to_owned()),
            None => bail!("{text:?}: unknown right {r:?} (publish, subscribe, read)"),
        })
        .collect::<anyhow::Result<_>>()?;
    if glob.is_empty() {
        bail!("{text:?}: no session glob after ':'");
    }
    let claim = GrantClaim {
        rights,
        sessions: vec![glob.to_owned()],
    };
    super::Grant::compile(&claim).map_err(|e| anyhow::anyhow!("{text:?}: {e}"))?;
    Ok(claim)
}

/// Parses a duration: a number and a unit, `s`, `m`, `h` or `d` (`90s`, `15m`, `1h`, `7d`).
pub fn parse_ttl(text: &str) -> anyhow::Result<Duration> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .with_context(|| format!("{text:?}: a duration is a number and s, m, h or d"))?;
    let unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => bail!("{text:?}: the unit is s, m, h or d"),
    };
    Ok(Duration::from_secs(n.saturating_mul(unit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_and_durations_parse() {
        let g = parse_grant("publish,subscribe:team-a/*").unwrap();
        assert_eq!(g.rights, ["publish", "subscribe"]);
        assert_eq!(g.sessions, ["team-a/*"]);
        assert!(parse_grant("publish").is_err());
        assert!(parse_grant("write:x").is_err());
        assert!(parse_grant("read:").is_err());
        assert_eq!(parse_ttl("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_ttl("90s").unwrap(), Duration::from_secs(90));
        assert!(parse_ttl("1").is_err());
        assert!(parse_ttl("h").is_err());
    }
}
