//! A permission request as every target shows it: its display texts cut to the prompt's limits,
//! one typed JSON form (`PermissionPrompt`: ACP `_meta`, AG-UI activity content, the AI SDK data
//! part), and the lines of
//! the Markdown and ANSI targets. Texts come from the harness and the responder: untrusted,
//! escaped or made visible like tool output.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::permission::{
    OptionKind, Outcome, PermissionRequested, PermissionResolved, cut, rfc3339_ms,
};
use crate::render::fold::PermissionState;
use crate::render::markdown_text;
use crate::render::visible::visible;

/// Bytes of a prompt's title shown at most.
pub const MAX_PROMPT_TITLE_BYTES: usize = 1024;
/// Bytes of a prompt's description shown at most.
pub const MAX_PROMPT_DESCRIPTION_BYTES: usize = 16 * 1024;
/// Bytes of an option's name shown at most.
pub const MAX_OPTION_NAME_BYTES: usize = 128;

/// The request with its display texts cut to the limits above (what every target shows).
pub fn shown(r: &PermissionRequested) -> PermissionRequested {
    let mut shown = r.clone();
    shown.title = cut(&r.title, MAX_PROMPT_TITLE_BYTES).to_owned();
    shown.description = cut(&r.description, MAX_PROMPT_DESCRIPTION_BYTES).to_owned();
    for o in &mut shown.options {
        o.name = cut(&o.name, MAX_OPTION_NAME_BYTES).to_owned();
    }
    shown
}

/// Whether the resolution lets the thing happen (an allow-kind option applies).
pub fn allowed(r: &PermissionRequested, res: Option<&PermissionResolved>) -> bool {
    res.and_then(PermissionResolved::option_id)
        .and_then(|id| r.option(id))
        .is_some_and(|o| o.kind.allows())
}

/// A permission request in the JSON targets (ACP `_meta.toolview.permission`, AG-UI activity
/// content, the AI SDK data part), and as `toolview acp` reads it back from its own stream: the
/// request with its texts cut to the limits, its state, and once decided its resolution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionPrompt {
    /// The request.
    pub request_id: String,
    /// Its title.
    pub title: String,
    /// Its description.
    pub description: String,
    /// The answers it offers.
    pub options: Vec<PromptOption>,
    /// The option that applies when nobody answers in time.
    pub expiry_option_id: String,
    /// When that happens, RFC 3339 (UTC, milliseconds).
    pub expires_at: String,
    /// …in milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
    /// Pending, or how it was decided.
    pub state: PromptState,
    /// The call it is about, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// How it was decided, once it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<PromptResolution>,
}

/// One answer a prompt offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptOption {
    /// Its id (what an answer names).
    pub option_id: String,
    /// Its label.
    pub name: String,
    /// What choosing it means.
    pub kind: OptionKind,
}

/// Whether a request is pending, or how it was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptState {
    /// Waiting for an answer.
    Pending,
    /// Someone chose an option.
    Selected,
    /// Nobody answered in time: the expiry option applied.
    Expired,
    /// The harness withdrew it.
    Withdrawn,
}

/// How a request was decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResolution {
    /// Who decided, and through which surface.
    pub by: Decider,
    /// Why, as they said (cut to the title's limit).
    pub reason: String,
    /// When, RFC 3339.
    pub resolved_at: String,
    /// Whether the decision lets the thing happen.
    pub allowed: bool,
    /// The option that applies (none for a withdrawal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_id: Option<String>,
}

/// Who decided a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decider {
    /// The token's subject (empty without auth).
    pub subject: String,
    /// The surface the answer came through (`viewer`, `acp`, …).
    pub via: String,
}

impl PermissionPrompt {
    /// The prompt of a request in `state`.
    pub fn of(state: &PermissionState) -> Self {
        let r = shown(&state.request);
        let res = state.resolution.as_ref();
        PermissionPrompt {
            request_id: r.request_id.to_string(),
            title: r.title.clone(),
            description: r.description.clone(),
            options: r
                .options
                .iter()
                .map(|o| PromptOption {
                    option_id: o.option_id.clone(),
                    name: o.name.clone(),
                    kind: o.kind,
                })
                .collect(),
            expiry_option_id: r.expiry_option_id.clone(),
            expires_at: rfc3339_ms(r.expires_at_ms),
            expires_at_ms: r.expires_at_ms,
            state: prompt_state(res),
            call_id: r.call_id.as_ref().map(ToString::to_string),
            resolution: res.map(|res| PromptResolution {
                by: Decider {
                    subject: res.resolved_by.subject.clone(),
                    via: res.resolved_by.via.clone(),
                },
                reason: cut(&res.reason, MAX_PROMPT_TITLE_BYTES).to_owned(),
                resolved_at: rfc3339_ms(res.resolved_at_ms),
                allowed: allowed(&r, Some(res)),
                option_id: res.option_id().map(str::to_owned),
            }),
        }
    }

    /// The prompt as a JSON value (for payloads whose schema leaves the field open).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// Whether the request is pending, or how it was decided.
fn prompt_state(res: Option<&PermissionResolved>) -> PromptState {
    match res.map(|r| &r.outcome) {
        None => PromptState::Pending,
        Some(Outcome::Selected { .. }) => PromptState::Selected,
        Some(Outcome::Expired { .. }) => PromptState::Expired,
        Some(Outcome::Withdrawn) => PromptState::Withdrawn,
    }
}

fn option_label(r: &PermissionRequested, option_id: &str) -> (String, Option<OptionKind>) {
    match r.option(option_id) {
        Some(o) => (cut(&o.name, MAX_OPTION_NAME_BYTES).to_owned(), Some(o.kind)),
        None => (option_id.to_owned(), None),
    }
}

fn kind_words(kind: Option<OptionKind>) -> &'static str {
    match kind {
        Some(OptionKind::AllowOnce) => "allow once",
        Some(OptionKind::AllowAlways) => "allow always",
        Some(OptionKind::RejectOnce) => "reject once",
        Some(OptionKind::RejectAlways) => "reject always",
        None => "unknown option",
    }
}

/// What a resolution says, as words: `Allow (allow once), by alice via viewer at …`.
fn decided_words(r: &PermissionRequested, res: &PermissionResolved) -> (String, String) {
    let at = rfc3339_ms(res.resolved_at_ms);
    let by = res.resolved_by.describe();
    match &res.outcome {
        Outcome::Selected { option_id } => {
            let (name, kind) = option_label(r, option_id);
            (name, format!("({}), by {by} at {at}", kind_words(kind)))
        }
        Outcome::Expired { option_id } => {
            let (name, kind) = option_label(r, option_id);
            (
                name,
                format!("({}): nobody answered by {at}", kind_words(kind)),
            )
        }
        Outcome::Withdrawn => ("withdrawn".into(), format!("by {by} at {at}")),
    }
}

/// A harness's or responder's text on one Markdown line: controls made visible (`^[`), as tool
/// output is, then escaped.
fn escape_line(text: &str) -> String {
    markdown_text::escape_line(&visible(text))
}

/// As [`escape_line`], keeping line breaks.
fn escape(text: &str) -> String {
    markdown_text::escape(&visible(text))
}

/// The Markdown target's form: the prompt, its options and expiry; or what was decided.
pub fn markdown(request: &PermissionRequested, res: Option<&PermissionResolved>) -> String {
    let r = shown(request);
    let title = escape_line(&r.title);
    let Some(res) = res else {
        let options: Vec<String> = r
            .options
            .iter()
            .map(|o| {
                format!(
                    "**{}** ({})",
                    escape_line(&o.name),
                    kind_words(Some(o.kind))
                )
            })
            .collect();
        let (expiry, _) = option_label(&r, &r.expiry_option_id);
        let mut out = format!(
            "**Permission requested:** {title} (request `{}`)",
            r.request_id.as_str()
        );
        if !r.description.is_empty() {
            out.push_str("\n\n");
            out.push_str(&escape(&r.description));
        }
        out.push_str(&format!(
            "\n\nOptions: {} · expires {}, then {}",
            options.join(" · "),
            escape_line(&rfc3339_ms(r.expires_at_ms)),
            escape_line(&expiry)
        ));
        return out;
    };
    let (what, how) = decided_words(&r, res);
    let mut out = format!(
        "**Permission:** {title} → **{}** {}",
        escape_line(&what),
        escape_line(&how)
    );
    if !res.reason.is_empty() {
        out.push_str(&format!(
            "\n\n> {}",
            escape_line(cut(&res.reason, MAX_PROMPT_TITLE_BYTES))
        ));
    }
    out
}

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";

/// The ANSI target's form (also `tail`'s): `⏸ Awaiting approval: …` and the options as
/// buttons; or `✔`/`✘` and what was decided, by whom.
pub fn ansi(request: &PermissionRequested, res: Option<&PermissionResolved>) -> String {
    let r = shown(request);
    let title = visible(&r.title);
    let Some(res) = res else {
        let mut lines = vec![format!(
            "{YELLOW}{BOLD}⏸ Awaiting approval: {title}{RESET} {DIM}(request {}){RESET}",
            r.request_id.as_str()
        )];
        lines.extend(
            r.description
                .lines()
                .map(|l| format!("{DIM}{}{RESET}", visible(l))),
        );
        let buttons: Vec<String> = r
            .options
            .iter()
            .map(|o| format!("[{}]", visible(&o.name)))
            .collect();
        let (expiry, _) = option_label(&r, &r.expiry_option_id);
        lines.push(format!(
            "  {}  {DIM}expires {}, then {}{RESET}",
            buttons.join(" "),
            rfc3339_ms(r.expires_at_ms),
            visible(&expiry)
        ));
        return lines.join("\n");
    };
    let (what, how) = decided_words(&r, res);
    let (color, mark) = if allowed(&r, Some(res)) {
        (GREEN, '✔')
    } else {
        (RED, '✘')
    };
    let mut out = format!(
        "{color}{mark} {title}: {BOLD}{}{RESET}{color} {}{RESET}",
        visible(&what),
        visible(&how)
    );
    if !res.reason.is_empty() {
        out.push_str(&format!(
            "\n{DIM}  {}{RESET}",
            visible(cut(&res.reason, MAX_PROMPT_TITLE_BYTES))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::permission::{PermissionOption, RequestId, Responder};

    /// Every control a harness or a responder could put in a prompt's texts.
    const HOSTILE: &str = "a\x1bP1$r\x1b\\b\x07c\u{9b}31m\u{9d}0;t\x1b]8;;x\x1b\\";

    fn request() -> PermissionRequested {
        let option = |id: &str, kind| PermissionOption {
            option_id: id.into(),
            name: format!("{id}{HOSTILE}"),
            kind,
        };
        PermissionRequested {
            request_id: RequestId::new("perm-1").unwrap(),
            call_id: None,
            title: format!("Run{HOSTILE}?"),
            description: format!("line 1{HOSTILE}\nline 2"),
            options: vec![
                option("allow", OptionKind::AllowOnce),
                option("reject", OptionKind::RejectOnce),
            ],
            expiry_option_id: "reject".into(),
            timeout_ms: 0,
            expires_at_ms: 1_796_465_100_123,
        }
    }

    fn raw_controls(text: &str) -> Vec<char> {
        text.chars()
            .filter(|c| c.is_control() && !matches!(c, '\n'))
            .collect()
    }

    #[test]
    fn markdown_prompts_show_controls_visibly() {
        let r = request();
        let pending = markdown(&r, None);
        assert_eq!(raw_controls(&pending), Vec::<char>::new(), "{pending:?}");
        assert!(pending.contains("Runa^\\[P1$r^\\[\\\\b^Gc"), "{pending}");
        let decided = PermissionResolved {
            request_id: r.request_id.clone(),
            outcome: Outcome::Selected {
                option_id: "allow".into(),
            },
            reason: HOSTILE.into(),
            resolved_by: Responder {
                subject: HOSTILE.into(),
                via: "viewer".into(),
            },
            resolved_at_ms: 1_796_465_100_123,
        };
        let decided = markdown(&r, Some(&decided));
        assert_eq!(raw_controls(&decided), Vec::<char>::new(), "{decided:?}");
    }
}
