//! Verification keys, loaded from files: an HS256 secret, or a JWKS of public keys each with
//! its algorithm fixed by the key itself. A token's `alg` header never chooses the algorithm:
//! it must equal the one the configured key allows.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Header};

/// HS256 secrets shorter than this are refused: RFC 7518 §3.2 asks for a key at least as long
/// as the hash (256 bits).
pub const MIN_SECRET_BYTES: usize = 32;

/// Where the keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// A file holding a shared secret (HS256). Trailing whitespace (a newline) is not part of it.
    Secret(PathBuf),
    /// A JSON Web Key Set file of public keys (RS256, ES256, EdDSA, …).
    Jwks(PathBuf),
}

/// One verification key and the one algorithm it verifies.
struct Key {
    kid: Option<String>,
    algorithm: Algorithm,
    key: DecodingKey,
}

/// The loaded keys.
pub struct Keys {
    keys: Vec<Key>,
}

/// Reads an HS256 secret file (also what `toolview token` signs with).
pub fn read_secret(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut secret =
        std::fs::read(path).with_context(|| format!("reading the secret {}", path.display()))?;
    while secret.last().is_some_and(u8::is_ascii_whitespace) {
        secret.pop();
    }
    if secret.len() < MIN_SECRET_BYTES {
        bail!(
            "the secret in {} is {} bytes; at least {MIN_SECRET_BYTES} are needed for HS256",
            path.display(),
            secret.len()
        );
    }
    Ok(secret)
}

impl Keys {
    /// Loads the keys; errors name the file and the key.
    pub fn load(source: &KeySource) -> anyhow::Result<Self> {
        match source {
            KeySource::Secret(path) => {
                let secret = read_secret(path)?;
                let key = DecodingKey::from_secret(&secret)?;
                Ok(Keys {
                    keys: vec![Key {
                        kid: None,
                        algorithm: Algorithm::HS256,
                        key,
                    }],
                })
            }
            KeySource::Jwks(path) => {
                let text = std::fs::read(path)
                    .with_context(|| format!("reading the JWKS {}", path.display()))?;
                let set: JwkSet = serde_json::from_slice(&text)
                    .with_context(|| format!("parsing the JWKS {}", path.display()))?;
                Self::from_jwks(&set).with_context(|| format!("in the JWKS {}", path.display()))
            }
        }
    }

    fn from_jwks(set: &JwkSet) -> anyhow::Result<Self> {
        if set.keys.is_empty() {
            bail!("no keys");
        }
        let mut keys = Vec::with_capacity(set.keys.len());
        for (i, jwk) in set.keys.iter().enumerate() {
            let kid = jwk.common.key_id.clone();
            let name = kid
                .as_deref()
                .map_or(format!("keys[{i}]"), |k| format!("key {k:?}"));
            if set.keys.len() > 1 && kid.is_none() {
                bail!("{name}: every key of a set of several needs a \"kid\"");
            }
            if kid.is_some() && keys.iter().any(|k: &Key| k.kid == kid) {
                bail!("{name}: the \"kid\" is used twice");
            }
            let algorithm = algorithm_of(jwk).with_context(|| name.clone())?;
            let key = DecodingKey::from_jwk(jwk).with_context(|| name.clone())?;
            if key.family() != algorithm.family() {
                bail!("{name}: \"alg\" {algorithm:?} does not fit the key type");
            }
            keys.push(Key {
                kid,
                algorithm,
                key,
            });
        }
        Ok(Keys { keys })
    }

    /// The key a token names (by `kid`, or the only key) and its algorithm, which the token's
    /// `alg` must equal.
    pub fn select(&self, header: &Header) -> Result<(Algorithm, &DecodingKey), String> {
        let key = match (&header.kid, self.keys.as_slice()) {
            (None, [only]) => only,
            (None, _) => return Err("the token names no key (\"kid\")".into()),
            (Some(kid), keys) => keys
                .iter()
                .find(|k| k.kid.as_deref() == Some(kid.as_str()))
                .ok_or_else(|| format!("no key {kid:?}"))?,
        };
        if header.alg != key.algorithm {
            return Err(format!(
                "the token is signed with {:?}; its key allows only {:?}",
                header.alg, key.algorithm
            ));
        }
        Ok((key.algorithm, &key.key))
    }
}

/// A public key's algorithm: its `alg` member, else the usual one for its type. Symmetric keys
/// do not belong in a set of public keys.
fn algorithm_of(jwk: &Jwk) -> anyhow::Result<Algorithm> {
    let usual = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 => Algorithm::ES256,
            EllipticCurve::P384 => Algorithm::ES384,
            ref other => bail!("unsupported curve {other:?}"),
        },
        AlgorithmParameters::OctetKeyPair(p) => match p.curve {
            EllipticCurve::Ed25519 => Algorithm::EdDSA,
            ref other => bail!("unsupported curve {other:?}"),
        },
        AlgorithmParameters::OctetKey(_) => {
            bail!("a symmetric key in a public key set; use --jwt-secret-file for HS256")
        }
        // The enum is non-exhaustive: key types a later jsonwebtoken adds.
        _ => bail!("unsupported key type"),
    };
    match jwk.common.key_algorithm {
        None => Ok(usual),
        Some(alg) => Ok(Algorithm::try_from(alg)
            .map_err(|_| anyhow::anyhow!("\"alg\" {alg:?} is not a signing algorithm"))?),
    }
}
