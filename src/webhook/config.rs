//! Which hooks there are, what each wants, and how it is signed: from a file
//! (`--webhooks-file`, JSON) or from flags (`--webhook URL`, for one hook with the defaults).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use base64::Engine as _;
use serde::Deserialize;

use crate::domain::Transition;

/// Bytes of a hook's secret at least (Standard Webhooks asks for 24 to 64).
pub const MIN_SECRET_BYTES: usize = 24;
/// Bytes at most.
pub const MAX_SECRET_BYTES: usize = 64;
/// Characters of a hook's name at most (it is part of every delivery id and answer link).
pub const MAX_HOOK_NAME: usize = 64;
/// Hooks at most: each transition makes a delivery per hook.
pub const MAX_HOOKS: usize = 32;
/// What a hook is sent by default: what a person is needed for.
pub const DEFAULT_EVENTS: [Trigger; 2] = [Trigger::RequiresAction, Trigger::Failed];

/// A transition a hook may want.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// A prompt started waiting on a person.
    RequiresAction,
    /// The session became failed.
    Failed,
    /// The session became idle (and stayed so for the hook's `idleAfterSecs`).
    Idle,
    /// The harness closed the session.
    Ended,
}

impl Trigger {
    /// The trigger a transition is.
    pub fn of(t: &Transition) -> Trigger {
        match t {
            Transition::Waiting(_) => Trigger::RequiresAction,
            Transition::Failed => Trigger::Failed,
            Transition::Idle => Trigger::Idle,
            Transition::Ended => Trigger::Ended,
        }
    }
}

/// How a body is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// `{"type", "timestamp", "data"}`, as Standard Webhooks has it.
    #[default]
    Json,
    /// A Slack incoming webhook's message: Block Kit, answer links as buttons.
    Slack,
}

/// A hook's secret: the bytes its HMAC is keyed with.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// `whsec_` and base64, as Standard Webhooks writes a secret (its libraries take the same
    /// text).
    pub fn parse(text: &str) -> anyhow::Result<Secret> {
        let Some(encoded) = text.trim().strip_prefix("whsec_") else {
            bail!(
                "a webhook secret is `whsec_` then base64 (make one with `toolview webhook-secret`)"
            );
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .context("a webhook secret's part after `whsec_` is not base64")?;
        if !(MIN_SECRET_BYTES..=MAX_SECRET_BYTES).contains(&bytes.len()) {
            bail!(
                "a webhook secret must be {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes, got {}",
                bytes.len()
            );
        }
        Ok(Secret(bytes))
    }

    /// A new random secret's text.
    pub fn generate() -> anyhow::Result<String> {
        let mut bytes = [0u8; 32];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .map_err(|_| anyhow::anyhow!("no random bytes"))?;
        Ok(format!(
            "whsec_{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        ))
    }
}

/// One hook.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    /// Its name: in delivery ids, answer links, and as who answered (`ops via webhook`).
    pub name: String,
    /// Where deliveries are posted.
    pub url: reqwest::Url,
    /// What it is sent.
    pub events: Vec<Trigger>,
    /// How long a session stays idle before an `idle` delivery is sent (0: at once).
    pub idle_after: Duration,
    /// What deliveries are signed with (`None`: unsigned, for a Slack webhook URL, which is a
    /// secret itself).
    pub secret: Option<Secret>,
    /// How bodies are written.
    pub format: Format,
}

/// The file's form.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct File {
    hooks: Vec<FileHook>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FileHook {
    name: String,
    url: String,
    #[serde(default)]
    events: Option<Vec<Trigger>>,
    #[serde(default)]
    idle_after_secs: u64,
    #[serde(default)]
    secret_file: Option<PathBuf>,
    #[serde(default)]
    format: Format,
}

/// The hooks of a `--webhooks-file`.
pub fn read_file(path: &Path) -> anyhow::Result<Vec<Hook>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--webhooks-file: reading {}", path.display()))?;
    let file: File = serde_json::from_str(&text)
        .with_context(|| format!("--webhooks-file: {}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let hooks = file
        .hooks
        .into_iter()
        .enumerate()
        .map(|(i, h)| {
            let secret = h
                .secret_file
                .as_deref()
                .map(|f| read_secret(&dir.join(f)))
                .transpose();
            let hook = Hook {
                name: h.name,
                url: parse_url(&h.url)?,
                events: h.events.unwrap_or_else(|| DEFAULT_EVENTS.to_vec()),
                idle_after: Duration::from_secs(h.idle_after_secs),
                secret: secret?,
                format: h.format,
            };
            check(&hook).with_context(|| format!("--webhooks-file: hooks[{i}]"))?;
            Ok(hook)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    check_all(&hooks)?;
    Ok(hooks)
}

/// The hooks of `--webhook URL` flags: named `webhook-1`, … in order, the default events,
/// signed with `--webhook-secret-file`'s secret.
pub fn from_flags(urls: &[String], secret_file: Option<&Path>) -> anyhow::Result<Vec<Hook>> {
    let secret = secret_file.map(read_secret).transpose()?;
    let hooks = urls
        .iter()
        .enumerate()
        .map(|(i, url)| {
            let hook = Hook {
                name: format!("webhook-{}", i + 1),
                url: parse_url(url).with_context(|| format!("--webhook {url}"))?,
                events: DEFAULT_EVENTS.to_vec(),
                idle_after: Duration::ZERO,
                secret: secret.clone(),
                format: Format::Json,
            };
            check(&hook).with_context(|| format!("--webhook {url}"))?;
            Ok(hook)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    check_all(&hooks)?;
    Ok(hooks)
}

fn read_secret(path: &Path) -> anyhow::Result<Secret> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the webhook secret {}", path.display()))?;
    Secret::parse(&text).with_context(|| format!("the webhook secret in {}", path.display()))
}

fn parse_url(text: &str) -> anyhow::Result<reqwest::Url> {
    let url = reqwest::Url::parse(text).context("url: not a URL")?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!("url: must be http or https, got {}", url.scheme());
    }
    Ok(url)
}

fn check(hook: &Hook) -> anyhow::Result<()> {
    let name_ok = !hook.name.is_empty()
        && hook.name.len() <= MAX_HOOK_NAME
        && hook
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !name_ok {
        bail!(
            "name: 1 to {MAX_HOOK_NAME} characters of [A-Za-z0-9._-], got {:?}",
            hook.name
        );
    }
    if hook.events.is_empty() {
        bail!("events: none; name at least one of requires_action, failed, idle, ended");
    }
    if hook.secret.is_none() && hook.format == Format::Json {
        bail!(
            "secretFile: a JSON hook is signed; only a Slack hook (format: slack) may go unsigned"
        );
    }
    Ok(())
}

fn check_all(hooks: &[Hook]) -> anyhow::Result<()> {
    if hooks.len() > MAX_HOOKS {
        bail!("{} webhooks; at most {MAX_HOOKS}", hooks.len());
    }
    for (i, h) in hooks.iter().enumerate() {
        if hooks[..i].iter().any(|o| o.name == h.name) {
            bail!("two webhooks are named {:?}", h.name);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_whsec_and_base64_of_24_to_64_bytes() {
        let made = Secret::generate().unwrap();
        assert_eq!(Secret::parse(&made).unwrap().0.len(), 32);
        assert!(Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_ok());
        let e = |t: &str| format!("{:#}", Secret::parse(t).unwrap_err());
        assert!(e("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").contains("`whsec_`"));
        assert!(e("whsec_!!").contains("not base64"));
        assert!(e("whsec_c2hvcnQ=").contains("24 to 64 bytes, got 5"));
    }

    #[test]
    fn a_file_names_its_hooks_and_refuses_what_it_cannot_send() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ops.secret"), Secret::generate().unwrap()).unwrap();
        let write = |json: &str| {
            let path = dir.path().join("hooks.json");
            std::fs::write(&path, json).unwrap();
            read_file(&path).map_err(|e| format!("{e:#}"))
        };
        let hooks = write(
            r#"{"hooks": [
                {"name": "ops", "url": "https://example.com/h", "secretFile": "ops.secret",
                 "events": ["requires_action", "idle"], "idleAfterSecs": 60},
                {"name": "chat", "url": "https://hooks.slack.com/services/x", "format": "slack"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(
            hooks[0].events,
            vec![Trigger::RequiresAction, Trigger::Idle]
        );
        assert_eq!(hooks[0].idle_after, Duration::from_secs(60));
        assert!(hooks[0].secret.is_some());
        assert_eq!(
            (hooks[1].format, hooks[1].secret.is_none()),
            (Format::Slack, true)
        );
        assert_eq!(hooks[1].events, DEFAULT_EVENTS.to_vec());
        let unsigned = write(r#"{"hooks": [{"name": "a", "url": "http://x/"}]}"#).unwrap_err();
        assert!(unsigned.contains("hooks[0]: secretFile"), "{unsigned}");
        let scheme = write(r#"{"hooks": [{"name": "a", "url": "ftp://x/", "format": "slack"}]}"#);
        assert!(scheme.unwrap_err().contains("url: must be http or https"));
        let name = write(r#"{"hooks": [{"name": "a b", "url": "http://x/", "format": "slack"}]}"#);
        assert!(name.unwrap_err().contains("hooks[0]: name"));
        let unknown = write(r#"{"hooks": [], "extra": 1}"#).unwrap_err();
        assert!(unknown.contains("unknown field `extra`"), "{unknown}");
        let twice = write(
            r#"{"hooks": [{"name": "a", "url": "http://x/", "format": "slack"},
                          {"name": "a", "url": "http://y/", "format": "slack"}]}"#,
        );
        assert!(twice.unwrap_err().contains("two webhooks are named \"a\""));
    }
}
