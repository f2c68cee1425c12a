//! What a delivery's body says: a JSON notice (Standard Webhooks' `{type, timestamp, data}`)
//! or a Slack message (Block Kit: the prompt as text, its options as link buttons). Every text
//! in it comes from a harness or its tools: in Slack's markup, `&`, `<` and `>` are escaped, so
//! a title cannot mention a channel or make a link of its own.

use serde::Serialize;

use crate::domain::permission::PermissionOption;
use crate::domain::{PendingPrompt, SessionSummary, StopReason, TokenUsage, Transition};

/// Characters of a Slack button's text at most (Slack's limit).
const SLACK_BUTTON_CHARS: usize = 75;
/// Characters of a Slack section's text at most (Slack's limit is 3,000).
const SLACK_TEXT_CHARS: usize = 2_900;

/// What a notice is about: the session as it was at the transition.
pub struct About<'a> {
    /// The hook it goes to.
    pub hook: &'a str,
    /// The session's id.
    pub session: &'a str,
    /// Its title.
    pub title: &'a str,
    /// Its working directory.
    pub cwd: &'a str,
    /// Its summary after the transition.
    pub summary: &'a SessionSummary,
    /// The viewer's page of the session.
    pub view_url: String,
    /// When, in Unix milliseconds.
    pub at_ms: u64,
}

/// A JSON notice.
#[derive(Serialize)]
struct Notice<'a> {
    #[serde(rename = "type")]
    kind: String,
    timestamp: String,
    data: Data<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Data<'a> {
    hook: &'a str,
    session_id: &'a str,
    title: &'a str,
    cwd: &'a str,
    state: &'static str,
    view_url: &'a str,
    summary: Summary<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<Prompt<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary<'a> {
    pending_count: u64,
    open_calls: u64,
    open_turns: u64,
    turns: u64,
    failed_calls: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_stop: Option<StopReason>,
    activity: &'a str,
    activity_ms: u64,
    usage: TokenUsage,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Prompt<'a> {
    request_id: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    call_id: &'a str,
    title: &'a str,
    requested_ms: u64,
    expires_at_ms: u64,
    options: Vec<PromptOption<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PromptOption<'a> {
    #[serde(flatten)]
    option: &'a PermissionOption,
    /// Opens a page that answers with this option once confirmed.
    answer_url: &'a str,
}

/// The transition's type name: `session.requires_action`.
pub fn kind(t: &Transition) -> String {
    format!("session.{}", t.state().name())
}

/// The JSON body. `links` are the prompt's answer links, one per option, in order.
pub fn json(about: &About<'_>, t: &Transition, links: &[String]) -> String {
    let s = about.summary;
    let prompt = match t {
        Transition::Waiting(p) => Some(prompt(p, links)),
        Transition::Failed | Transition::Idle | Transition::Ended => None,
    };
    let notice = Notice {
        kind: kind(t),
        timestamp: rfc3339(about.at_ms),
        data: Data {
            hook: about.hook,
            session_id: about.session,
            title: about.title,
            cwd: about.cwd,
            state: t.state().name(),
            view_url: &about.view_url,
            summary: Summary {
                pending_count: s.pending_count,
                open_calls: s.open_calls,
                open_turns: s.open_turns,
                turns: s.turns,
                failed_calls: s.failed_calls,
                last_stop: s.last_stop,
                activity: &s.activity,
                activity_ms: s.activity_ms,
                usage: s.usage,
            },
            prompt,
        },
    };
    // Strings, numbers and enums: serializing cannot fail.
    serde_json::to_string(&notice).unwrap_or_default()
}

fn prompt<'a>(p: &'a PendingPrompt, links: &'a [String]) -> Prompt<'a> {
    Prompt {
        request_id: &p.request_id,
        call_id: &p.call_id,
        title: &p.title,
        requested_ms: p.requested_ms,
        expires_at_ms: p.expires_at_ms,
        options: p
            .options
            .iter()
            .zip(links)
            .map(|(option, url)| PromptOption {
                option,
                answer_url: url,
            })
            .collect(),
    }
}

/// `2026-12-06T16:21:27.120Z`.
fn rfc3339(ms: u64) -> String {
    let t = prost_types::Timestamp {
        seconds: (ms / 1000) as i64,
        nanos: ((ms % 1000) * 1_000_000) as i32,
    };
    t.to_string()
}

#[derive(Serialize)]
struct Slack {
    text: String,
    blocks: Vec<Block>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Section { text: Text },
    Context { elements: Vec<Text> },
    Actions { elements: Vec<Button> },
}

#[derive(Serialize)]
struct Text {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

#[derive(Serialize)]
struct Button {
    #[serde(rename = "type")]
    kind: &'static str,
    text: Text,
    url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    style: Option<&'static str>,
}

/// Slack's markup with everything a harness wrote escaped (its `&`, `<`, `>`).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn mrkdwn(text: String) -> Text {
    Text {
        kind: "mrkdwn",
        text: cut(&text, SLACK_TEXT_CHARS),
    }
}

fn button(text: &str, url: &str, style: Option<&'static str>) -> Button {
    Button {
        kind: "button",
        text: Text {
            kind: "plain_text",
            text: cut(text, SLACK_BUTTON_CHARS - 1),
        },
        url: url.to_owned(),
        style,
    }
}

/// The Slack body: what happened, the session's directory and activity, and buttons.
pub fn slack(about: &About<'_>, t: &Transition, links: &[String]) -> String {
    let name = if about.title.is_empty() {
        about.session
    } else {
        about.title
    };
    let name = escape(name);
    let (headline, plain) = match t {
        Transition::Waiting(p) => (
            format!("*{name}* is waiting on you: {}", escape(&p.title)),
            format!("{name} is waiting on you"),
        ),
        Transition::Failed => {
            let why = about.summary.last_stop.map_or("stopped", |s| s.acp_name());
            (
                format!("*{name}* failed: the turn ended with `{why}`"),
                format!("{name} failed"),
            )
        }
        Transition::Idle => (format!("*{name}* is idle"), format!("{name} is idle")),
        Transition::Ended => (format!("*{name}* ended"), format!("{name} ended")),
    };
    let mut context = Vec::new();
    if !about.cwd.is_empty() {
        context.push(mrkdwn(format!("`{}`", escape(about.cwd))));
    }
    if !about.summary.activity.is_empty() {
        context.push(mrkdwn(escape(&about.summary.activity)));
    }
    let mut buttons: Vec<Button> = match t {
        Transition::Waiting(p) => p
            .options
            .iter()
            .zip(links)
            .map(|(o, url)| {
                let style = if o.kind.allows() { "primary" } else { "danger" };
                button(&o.name, url, Some(style))
            })
            .collect(),
        Transition::Failed | Transition::Idle | Transition::Ended => Vec::new(),
    };
    buttons.push(button("Open session", &about.view_url, None));
    let mut blocks = vec![Block::Section {
        text: mrkdwn(headline),
    }];
    if !context.is_empty() {
        blocks.push(Block::Context { elements: context });
    }
    blocks.push(Block::Actions { elements: buttons });
    serde_json::to_string(&Slack {
        text: cut(&plain, SLACK_TEXT_CHARS),
        blocks,
    })
    .unwrap_or_default()
}
