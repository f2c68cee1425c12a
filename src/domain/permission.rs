//! Permission requests: a harness asks a person to decide (most often whether a call may run),
//! and the server appends how it was decided — exactly once per request (`docs/approvals.md`).

use std::fmt;

use super::{
    CallId, FieldViolation, IdError, Violation, is_dot_segment, validate_id, violation_error,
};

/// Characters a request id may have at most: the id rule's 128 less room for the server's
/// `resolved:` prefix, which makes the resolution's event id (one per request, so a second
/// resolution is a duplicate on every store).
pub const MAX_REQUEST_ID_LEN: usize = 112;
/// The prefix of the event ids the server gives resolutions (`resolved:<request id>`): reserved,
/// so that no harness event can take a request's resolution id before the server does (the
/// resolution would then be a duplicate, and the request pending forever).
pub const RESOLUTION_ID_PREFIX: &str = "resolved:";
/// Options a request has at least: one to allow, one to reject.
pub const MIN_OPTIONS: usize = 2;
/// Options a request has at most: a prompt is a handful of buttons.
pub const MAX_OPTIONS: usize = 16;
/// Bytes of a resolution's reason at most (the rest is cut at a character boundary).
pub const MAX_REASON_BYTES: usize = 1024;

/// A permission request's id: the id rule, at most [`MAX_REQUEST_ID_LEN`] characters, not `.`
/// or `..` (it is the last segment of `/permissions/{session}/{request}`), unique in its session
/// (its own id space).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct RequestId(String);

impl RequestId {
    /// Validates and wraps an id.
    pub fn new(s: impl Into<String>) -> Result<Self, IdError> {
        let s = s.into();
        validate_id(&s)?;
        if s.len() > MAX_REQUEST_ID_LEN {
            return Err(IdError::TooLong(s.len()));
        }
        if is_dot_segment(&s) {
            return Err(IdError::DotSegment);
        }
        Ok(RequestId(s))
    }

    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The event id of the request's resolution: one per request.
    pub fn resolution_event_id(&self) -> String {
        format!("{RESOLUTION_ID_PREFIX}{}", self.0)
    }
}

impl TryFrom<String> for RequestId {
    type Error = IdError;
    fn try_from(s: String) -> Result<Self, IdError> {
        RequestId::new(s)
    }
}

impl From<RequestId> for String {
    fn from(id: RequestId) -> String {
        id.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What choosing an option means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionKind {
    /// Allow this once.
    AllowOnce,
    /// Allow this and the like from now on.
    AllowAlways,
    /// Reject this once.
    RejectOnce,
    /// Reject this and the like from now on.
    RejectAlways,
}

impl OptionKind {
    /// Whether choosing it lets the thing happen.
    pub fn allows(self) -> bool {
        match self {
            OptionKind::AllowOnce | OptionKind::AllowAlways => true,
            OptionKind::RejectOnce | OptionKind::RejectAlways => false,
        }
    }

    /// ACP's name for it (`allow_once`, …), also the JSON renderings'.
    pub fn name(self) -> &'static str {
        match self {
            OptionKind::AllowOnce => "allow_once",
            OptionKind::AllowAlways => "allow_always",
            OptionKind::RejectOnce => "reject_once",
            OptionKind::RejectAlways => "reject_always",
        }
    }
}

/// One answer a person may give.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    /// Its id (the id rule), unique within the request.
    pub option_id: String,
    /// Its label (display text).
    pub name: String,
    /// What choosing it means.
    pub kind: OptionKind,
}

/// A question to a person, as published (the server sets `expires_at_ms` when it appends it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequested {
    /// The request.
    pub request_id: RequestId,
    /// The call it is about, if any.
    pub call_id: Option<CallId>,
    /// The prompt (display text).
    pub title: String,
    /// More about it (display text, may be empty).
    pub description: String,
    /// The options, checked by [`check_options`].
    pub options: Vec<PermissionOption>,
    /// The option applied at expiry: one of `options`, of a reject kind.
    pub expiry_option_id: String,
    /// How long people have to answer, in milliseconds; 0 for the server's default.
    pub timeout_ms: u64,
    /// When it expires, in Unix milliseconds (0 until the server appends it).
    pub expires_at_ms: u64,
}

impl PermissionRequested {
    /// The option with this id.
    pub fn option(&self, option_id: &str) -> Option<&PermissionOption> {
        self.options.iter().find(|o| o.option_id == option_id)
    }
}

/// What is wrong with a request's options (paths relative to the request).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsError {
    /// Too few or too many.
    Count(usize),
    /// An option id breaks the id rule.
    BadId(usize, IdError),
    /// Two options share an id.
    Duplicate(usize, String),
    /// No option allows, or none rejects.
    OneSided,
    /// The expiry option is not an option.
    UnknownExpiry(String),
    /// The expiry option allows: nothing is ever allowed by default.
    ExpiryAllows(String),
}

impl Violation for OptionsError {
    fn violation(&self) -> FieldViolation {
        use FieldViolation as V;
        match self {
            OptionsError::Count(n) => V::new(
                "options",
                format!("must have {MIN_OPTIONS} to {MAX_OPTIONS} options, got {n}"),
            ),
            OptionsError::BadId(i, e) => V::new(format!("options[{i}].option_id"), e),
            OptionsError::Duplicate(i, id) => V::new(
                format!("options[{i}].option_id"),
                format!("{id:?} is used twice"),
            ),
            OptionsError::OneSided => V::new(
                "options",
                "needs at least one allow kind and one reject kind",
            ),
            OptionsError::UnknownExpiry(id) => V::new(
                "expiry_option_id",
                format!("{id:?} is not one of the options"),
            ),
            OptionsError::ExpiryAllows(id) => V::new(
                "expiry_option_id",
                format!("{id:?} must be a reject kind (nothing is allowed by default)"),
            ),
        }
    }
}

violation_error!(OptionsError);

/// Checks a request's options and expiry option.
pub fn check_options(options: &[PermissionOption], expiry: &str) -> Result<(), OptionsError> {
    if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&options.len()) {
        return Err(OptionsError::Count(options.len()));
    }
    for (i, o) in options.iter().enumerate() {
        validate_id(&o.option_id).map_err(|e| OptionsError::BadId(i, e))?;
        if options[..i].iter().any(|p| p.option_id == o.option_id) {
            return Err(OptionsError::Duplicate(i, o.option_id.clone()));
        }
    }
    if !options.iter().any(|o| o.kind.allows()) || options.iter().all(|o| o.kind.allows()) {
        return Err(OptionsError::OneSided);
    }
    match options.iter().find(|o| o.option_id == expiry) {
        None => Err(OptionsError::UnknownExpiry(expiry.to_owned())),
        Some(o) if o.kind.allows() => Err(OptionsError::ExpiryAllows(expiry.to_owned())),
        Some(_) => Ok(()),
    }
}

/// Who decided a request.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Responder {
    /// The answering token's subject; empty without authentication, `toolview` for the server.
    pub subject: String,
    /// Through which surface (`grpc`, `http`, `acp`, `viewer`, …, `harness`, `server`).
    pub via: String,
}

impl Responder {
    /// The server itself (expiry).
    pub fn server() -> Self {
        Responder {
            subject: "toolview".into(),
            via: "server".into(),
        }
    }

    /// `alice via viewer`; `someone via http` without a subject (so "by …" reads as a
    /// sentence): how renderings name it.
    pub fn describe(&self) -> String {
        let who = if self.subject.is_empty() {
            "someone"
        } else {
            &self.subject
        };
        if self.via.is_empty() {
            who.to_owned()
        } else {
            format!("{who} via {}", self.via)
        }
    }
}

/// How a request was decided.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Outcome {
    /// Someone chose an option.
    Selected {
        /// The option.
        option_id: String,
    },
    /// Nobody answered in time: the expiry option applies.
    Expired {
        /// The expiry option.
        option_id: String,
    },
    /// The harness withdrew the request.
    Withdrawn,
}

/// A request's resolution (appended by the server only).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionResolved {
    /// The request.
    pub request_id: RequestId,
    /// The decision.
    pub outcome: Outcome,
    /// Why, in the responder's words (display text, at most [`MAX_REASON_BYTES`]).
    pub reason: String,
    /// Who decided.
    pub resolved_by: Responder,
    /// When, in Unix milliseconds.
    pub resolved_at_ms: u64,
}

impl PermissionResolved {
    /// The option that applies: the chosen one, or the expiry option; `None` when withdrawn.
    pub fn option_id(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Selected { option_id } | Outcome::Expired { option_id } => Some(option_id),
            Outcome::Withdrawn => None,
        }
    }
}

/// Characters of a responder's `via` at most.
pub const MAX_VIA_CHARS: usize = 32;

/// The surface an answer names, reduced to a short token of letters, digits and `-_.`
/// (`default` when nothing is left): it is shown to everyone as part of the decision.
pub fn surface(text: &str, default: &str) -> String {
    let token: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(MAX_VIA_CHARS)
        .collect();
    if token.is_empty() {
        default.to_owned()
    } else {
        token
    }
}

/// `text` cut to at most `max` bytes at a character boundary.
pub fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A Unix time in milliseconds as RFC 3339 in UTC (`2026-12-05T10:05:00.000Z`): how the text
/// renderings show an expiry (days to a civil date by Howard Hinnant's algorithm).
pub fn rfc3339_ms(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        unix_ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(id: &str, kind: OptionKind) -> PermissionOption {
        PermissionOption {
            option_id: id.into(),
            name: id.into(),
            kind,
        }
    }

    #[test]
    fn options_need_both_sides_and_a_rejecting_expiry() {
        let good = [
            option("allow", OptionKind::AllowOnce),
            option("reject", OptionKind::RejectOnce),
        ];
        assert_eq!(check_options(&good, "reject"), Ok(()));
        assert_eq!(
            check_options(&good, "allow"),
            Err(OptionsError::ExpiryAllows("allow".into()))
        );
        assert_eq!(
            check_options(&good, "nope"),
            Err(OptionsError::UnknownExpiry("nope".into()))
        );
        let allows = [
            option("a", OptionKind::AllowOnce),
            option("b", OptionKind::AllowAlways),
        ];
        assert_eq!(check_options(&allows, "a"), Err(OptionsError::OneSided));
        assert_eq!(
            check_options(&good[..1], "allow"),
            Err(OptionsError::Count(1))
        );
        let twice = [
            option("x", OptionKind::AllowOnce),
            option("x", OptionKind::RejectOnce),
        ];
        assert_eq!(
            check_options(&twice, "x"),
            Err(OptionsError::Duplicate(1, "x".into()))
        );
    }

    #[test]
    fn times_and_ids() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_796_465_100_123), "2026-12-05T10:05:00.123Z");
        assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert!(RequestId::new("r".repeat(112)).is_ok());
        assert_eq!(RequestId::new("r".repeat(113)), Err(IdError::TooLong(113)));
        assert_eq!(RequestId::new(".."), Err(IdError::DotSegment));
        assert_eq!(RequestId::new("."), Err(IdError::DotSegment));
        assert!(RequestId::new("...").is_ok());
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(
            Responder {
                subject: "alice".into(),
                via: "viewer".into()
            }
            .describe(),
            "alice via viewer"
        );
        assert_eq!(
            Responder {
                subject: String::new(),
                via: "viewer".into()
            }
            .describe(),
            "someone via viewer"
        );
    }
}
