//! The conversation in the text targets: messages and turn boundaries as Markdown and ANSI, for
//! the MARKDOWN and ANSI targets and for `toolview tail` (which draws them from VIEW updates with
//! the same functions). A message's text is untrusted like tool output: escaped for Markdown (so
//! an answer's own Markdown shows as text, never as a link, image or HTML), made visible for a
//! terminal.

use crate::domain::{MessageRole, StopReason, TokenUsage};
use crate::render::card::Capabilities;
use crate::render::fold::{Change, MessageChange, MessageState, Turn};
use crate::render::live::{LiveChunk, capped_text, live_text};
use crate::render::markdown_text::escape;
use crate::render::md;
use crate::render::view::MessageStatus;
use crate::render::visible::visible;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const CYAN: &str = "\x1b[36m";

/// A turn boundary as the text targets and `tail` show it.
#[derive(Debug, Clone, Copy)]
pub struct TurnLine<'a> {
    /// The turn.
    pub turn_id: &'a str,
    /// How it ended, when it did: its stop reason and usage.
    pub finished: Option<(StopReason, Option<TokenUsage>)>,
}

impl<'a> From<Turn<'a>> for TurnLine<'a> {
    fn from(t: Turn<'a>) -> Self {
        TurnLine {
            turn_id: t.turn_id.as_str(),
            finished: t.finished.map(|f| (f.stop_reason, f.usage)),
        }
    }
}

/// The text targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    Markdown,
    Ansi,
}

/// A turn's, a message's or a permission request's update in a text target (empty for a delta
/// past the output cap); `None` for a change about a call or the session.
pub(crate) fn conversation(change: Change<'_>, caps: &Capabilities, form: Form) -> Option<String> {
    Some(match change {
        Change::Turn(turn) => match form {
            Form::Markdown => turn_markdown(&turn.into()),
            Form::Ansi => turn_ansi(&turn.into()),
        },
        Change::Message(m, change) => message_text(m, change, caps)
            .map(|text| match form {
                Form::Markdown => nest_markdown(
                    &message_markdown(m.role, &text, MessageStatus::of(m)),
                    m.depth,
                ),
                Form::Ansi => {
                    nest_ansi(&message_ansi(m.role, &text, MessageStatus::of(m)), m.depth)
                }
            })
            .unwrap_or_default(),
        Change::Permission(p) => match form {
            Form::Markdown => {
                crate::render::permission::markdown(&p.request, p.resolution.as_ref())
            }
            Form::Ansi => crate::render::permission::ansi(&p.request, p.resolution.as_ref()),
        },
        Change::Ended(reason) => match form {
            Form::Markdown => ended_markdown(reason),
            Form::Ansi => ended_ansi(reason),
        },
        Change::Session
        | Change::Started(_)
        | Change::Input(..)
        | Change::Output(..)
        | Change::Finished(_)
        | Change::Snapshot(_) => return None,
    })
}

/// A message's text for a text target's snapshot: `None` when the update shows nothing (a delta
/// past the output cap).
fn message_text<'a>(
    m: &'a MessageState,
    change: MessageChange<'_>,
    caps: &Capabilities,
) -> Option<std::borrow::Cow<'a, str>> {
    let cap = caps.cap();
    let upto = match change {
        MessageChange::Delta(chunk) => match live_text(m.started, chunk, cap, false) {
            LiveChunk::Nothing => return None,
            LiveChunk::Snapshot | LiveChunk::Append(_) => Some(chunk.end()),
        },
        MessageChange::Started | MessageChange::Finished | MessageChange::Snapshot => None,
    };
    Some(capped_text(&m.text, upto, cap))
}

fn label(role: MessageRole) -> &'static str {
    match role {
        MessageRole::User => "User",
        MessageRole::Assistant => "Assistant",
        MessageRole::Reasoning => "Reasoning",
    }
}

/// A nested item (a subagent's call or message) in Markdown: each line behind a `>` per parent
/// (quotes nest, so a chat renderer shows the levels).
pub fn nest_markdown(text: &str, depth: u8) -> String {
    if depth == 0 {
        return text.to_owned();
    }
    let quote = ">".repeat(depth.into());
    text.lines()
        .map(|l| {
            if l.is_empty() {
                quote.clone()
            } else {
                format!("{quote} {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A nested item in ANSI: each line behind a dim `│ ` per parent.
pub fn nest_ansi(text: &str, depth: u8) -> String {
    if depth == 0 {
        return text.to_owned();
    }
    let bar = format!("{DIM}{}{RESET}", "│ ".repeat(depth.into()));
    text.lines()
        .map(|l| format!("{bar}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A message in Markdown: its speaker in bold, then its text — an answer's or reasoning's as
/// sanitized Markdown (`md`), a user's escaped as typed; reasoning as a quote.
pub fn message_markdown(role: MessageRole, text: &str, status: MessageStatus) -> String {
    let more = match status {
        MessageStatus::Streaming => " …",
        MessageStatus::Complete => "",
    };
    let head = format!("**{}:**{more}", label(role));
    let text = match role {
        MessageRole::User => escape(text),
        MessageRole::Assistant | MessageRole::Reasoning => match md::parse(text) {
            Some(blocks) => md::markdown(&blocks),
            None => escape(text),
        },
    };
    match role {
        MessageRole::User | MessageRole::Assistant if text.is_empty() => head,
        MessageRole::User | MessageRole::Assistant => format!("{head}\n\n{text}"),
        MessageRole::Reasoning => std::iter::once(head.as_str())
            .chain(text.split('\n').filter(|_| !text.is_empty()))
            .map(|line| format!("> {line}").trim_end().to_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A message for a terminal: its speaker, then its text made visible — an answer's and
/// reasoning's Markdown drawn with styles (`md`), a user's as typed; reasoning dimmed.
pub fn message_ansi(role: MessageRole, text: &str, status: MessageStatus) -> String {
    let more = match status {
        MessageStatus::Streaming => " …",
        MessageStatus::Complete => "",
    };
    let (head, base) = match role {
        MessageRole::User => (format!("{BOLD}{CYAN}› User{more}{RESET}"), ""),
        MessageRole::Assistant => (format!("{BOLD}● Assistant{more}{RESET}"), ""),
        MessageRole::Reasoning => (format!("{DIM}∴ Reasoning{more}{RESET}"), DIM),
    };
    let mut lines = vec![head];
    if text.is_empty() {
        return lines.join("\n");
    }
    let blocks = match role {
        MessageRole::User => None,
        MessageRole::Assistant | MessageRole::Reasoning => md::parse(text),
    };
    match blocks {
        Some(blocks) => lines.extend(md::terminal(&blocks, base)),
        None => {
            // Styled line by line: a terminal UI may draw any line alone.
            lines.extend(visible(text).split('\n').map(|l| {
                if base.is_empty() || l.is_empty() {
                    l.to_owned()
                } else {
                    format!("{base}{l}{RESET}")
                }
            }));
        }
    }
    lines.join("\n")
}

/// What a turn's end says: its stop reason and the token counts known.
fn turn_words(turn: &TurnLine<'_>) -> String {
    let id = turn.turn_id;
    let Some((reason, usage)) = turn.finished else {
        return format!("turn {id}");
    };
    // A reason not said (a failed run, say) is not shown as one: ACP alone needs a name.
    let mut words = match reason {
        StopReason::Unspecified => format!("turn {id} ended"),
        reason => format!("turn {id} ended ({})", reason.acp_name()),
    };
    if let Some(u) = usage {
        let counts: Vec<String> = [
            ("in", u.input_tokens),
            ("out", u.output_tokens),
            ("cached", u.cached_input_tokens),
            ("reasoning", u.reasoning_tokens),
        ]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| format!("{n} {what}"))
        .collect();
        if !counts.is_empty() {
            words.push_str(&format!(" · tokens: {}", counts.join(", ")));
        }
        if u.context_window > 0 {
            words.push_str(&format!(
                " · context {}/{}",
                u.context_tokens, u.context_window
            ));
        }
    }
    words
}

/// A turn boundary in Markdown: a rule at its start, an italic line at its end. Turn ids are
/// of the id alphabet, which escaping leaves alone but `_` and `.`.
pub fn turn_markdown(turn: &TurnLine<'_>) -> String {
    let words = escape(&turn_words(turn));
    match turn.finished {
        None => format!("---\n\n*{words}*"),
        Some(_) => format!("*{words}*"),
    }
}

/// The harness closed the session: a rule and the words, its reason escaped.
pub fn ended_markdown(reason: &str) -> String {
    format!("---\n\n*{}*", escape(&ended_words(reason)))
}

/// The harness closed the session, for a terminal: a dim rule.
pub fn ended_ansi(reason: &str) -> String {
    format!("{DIM}── {} ──{RESET}", visible(&ended_words(reason)))
}

fn ended_words(reason: &str) -> String {
    match crate::domain::title_of(reason) {
        Some(why) => format!("Session ended: {why}"),
        None => "Session ended".to_owned(),
    }
}

/// A turn boundary for a terminal: a dim rule.
pub fn turn_ansi(turn: &TurnLine<'_>) -> String {
    format!("{DIM}── {} ──{RESET}", visible(&turn_words(turn)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_sanitized_markdown_and_user_text_is_text() {
        let md = message_markdown(
            MessageRole::Assistant,
            "see [x](http://evil) <b>",
            MessageStatus::Complete,
        );
        assert_eq!(
            md,
            "**Assistant:**\n\nsee x ([http\\://evil](<http://evil>)) \\<b\\>"
        );
        let user = message_markdown(
            MessageRole::User,
            "see [x](http://evil)",
            MessageStatus::Complete,
        );
        assert_eq!(user, "**User:**\n\nsee \\[x\\](http\\://evil)");
        let quote = message_markdown(MessageRole::Reasoning, "a\n# b", MessageStatus::Streaming);
        assert_eq!(quote, "> **Reasoning:** …\n> a\n>\n> # b");
        let ansi = message_ansi(MessageRole::User, "hi\x1b[2J", MessageStatus::Complete);
        assert!(!ansi.contains("\x1b[2J"), "{ansi:?}");
        let ansi = message_ansi(
            MessageRole::Reasoning,
            "*hi*\x1b[2J",
            MessageStatus::Complete,
        );
        assert_eq!(
            ansi,
            "\x1b[2m∴ Reasoning\x1b[0m\n\x1b[2m\x1b[3mhi\x1b[0m\x1b[2m^[[2J\x1b[0m"
        );
    }

    #[test]
    fn turn_lines_say_reason_and_usage() {
        let usage = TokenUsage {
            input_tokens: 10,
            output_tokens: 2,
            context_tokens: 12,
            context_window: 100,
            ..TokenUsage::default()
        };
        let end = TurnLine {
            turn_id: "t1",
            finished: Some((StopReason::EndTurn, Some(usage))),
        };
        assert_eq!(
            turn_words(&end),
            "turn t1 ended (end_turn) · tokens: 10 in, 2 out · context 12/100"
        );
        let start = TurnLine {
            turn_id: "t1",
            finished: None,
        };
        assert_eq!(turn_markdown(&start), "---\n\n*turn t1*");
        // A reason not said (a failed run) is not shown as `end_turn`.
        let failed = TurnLine {
            turn_id: "t1",
            finished: Some((StopReason::Unspecified, None)),
        };
        assert_eq!(turn_words(&failed), "turn t1 ended");
    }
}
