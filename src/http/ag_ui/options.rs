//! What a `RunAgentInput` asks of the endpoint: the session (`threadId`) and toolview's options
//! in `forwardedProps.toolview`; a `Last-Event-ID` header resumes like `after`.

use serde::Deserialize;
use serde_json::Value;

use crate::domain::FieldViolation;
use crate::domain::{Cursor, Epoch, SessionId};
use crate::error::Error;
use crate::http::CapsInput;
use crate::render::Capabilities;
use crate::session::Start;

/// A run, as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// The session: the input's `threadId`.
    pub session: SessionId,
    /// Where the replay starts (`forwardedProps.toolview.after`, or the beginning).
    pub start: Start,
    /// Stream live after the replay (the default), or end the run at the head it found.
    pub follow: bool,
    /// What the client can show (`forwardedProps.toolview.capabilities`).
    pub caps: Capabilities,
    /// A history join (`snapshot: true`): the session so far as one `MESSAGES_SNAPSHOT` of at
    /// most this many messages (the latest; `snapshotMessages`), then live.
    pub snapshot: Option<usize>,
    /// Native interrupts (`interrupts: true`): a permission request still pending ends the run
    /// with `outcome: interrupt`; the run that resumes it answers it.
    pub interrupts: bool,
    /// The input's `resume` entries: answers to the previous run's interrupts.
    pub resume: Vec<ResumeAnswer>,
}

/// An answer to an interrupt (a `resume` entry): the permission request, and the option chosen
/// (`payload.optionId`) or yes/no (`payload.approved`); `None` for `status: cancelled`, an
/// abstention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeAnswer {
    /// The interrupt: toolview's permission request.
    pub request: String,
    /// What was answered; `None` when the entry abstains.
    pub choice: Option<Choice>,
    /// Why (`payload.reason`).
    pub reason: String,
    /// Where it is in the input (`resume[0]`), for refusals.
    pub field: String,
}

/// What a resume entry chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// One of the request's options.
    Option(String),
    /// Yes or no: the request's first allow or reject option.
    Approved(bool),
}

/// `resume[i]` as the input has it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResumeEntry {
    interrupt_id: String,
    status: String,
    #[serde(default)]
    payload: Value,
}

fn resume_answers(entries: Vec<ResumeEntry>) -> Result<Vec<ResumeAnswer>, Error> {
    entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let field = format!("resume[{i}]");
            let choice = match e.status.as_str() {
                "cancelled" => None,
                "resolved" => Some(match (&e.payload["optionId"], &e.payload["approved"]) {
                    (Value::String(o), _) => Choice::Option(o.clone()),
                    (_, Value::Bool(b)) => Choice::Approved(*b),
                    _ => {
                        return Err(Error::invalid(FieldViolation::new(
                            format!("{field}.payload"),
                            "needs optionId (a string) or approved (a boolean)",
                        )));
                    }
                }),
                other => {
                    return Err(Error::invalid(FieldViolation::new(
                        format!("{field}.status"),
                        format!("{other:?} is not resolved or cancelled"),
                    )));
                }
            };
            Ok(ResumeAnswer {
                request: e.interrupt_id,
                choice,
                reason: e.payload["reason"].as_str().unwrap_or_default().to_owned(),
                field,
            })
        })
        .collect()
}

/// The parts of AG-UI's `RunAgentInput` the endpoint reads (messages, tools, state and context
/// are the client's; they are ignored).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    thread_id: String,
    #[serde(default)]
    forwarded_props: Option<Value>,
    #[serde(default)]
    resume: Vec<ResumeEntry>,
}

/// `forwardedProps.toolview`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Toolview {
    /// Resume after this cursor (the `result.cursor` of a `RUN_FINISHED`, or an update's `id`).
    after: Option<CursorInput>,
    /// Only what is published from now on (with the calls in flight first).
    #[serde(default)]
    live_only: bool,
    /// `false`: replay what the session holds now, then finish the run.
    follow: Option<bool>,
    capabilities: Option<CapsInput>,
    /// Open with one `MESSAGES_SNAPSHOT` of the session so far instead of its replay.
    #[serde(default)]
    snapshot: bool,
    /// The snapshot's latest messages at most.
    snapshot_messages: Option<usize>,
    /// Native interrupts: a pending permission request ends the run (`outcome: interrupt`).
    #[serde(default)]
    interrupts: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CursorInput {
    epoch: String,
    /// A decimal string (as the protobuf JSON mapping writes 64-bit numbers) or a number.
    offset: Value,
}

impl RunOptions {
    /// Reads a request body and its `Last-Event-ID` header (`<epoch>:<offset>`, as the stream's
    /// `id:` lines carry). Errors name the field.
    pub fn parse(body: &[u8], last_event_id: Option<&str>) -> Result<Self, Error> {
        let input: Input = serde_json::from_slice(body)
            .map_err(|e| Error::bad_request(format!("the body is not a RunAgentInput: {e}")))?;
        let session = SessionId::new(input.thread_id)
            .map_err(|e| Error::invalid(FieldViolation::new("threadId", e)))?;
        let props = match input.forwarded_props {
            Some(Value::Object(mut props)) => props.remove("toolview"),
            _ => None,
        };
        let toolview: Toolview = match props {
            None | Some(Value::Null) => Toolview::default(),
            Some(v) => serde_json::from_value(v)
                .map_err(|e| Error::invalid(FieldViolation::new("forwardedProps.toolview", e)))?,
        };
        let after = match (toolview.after, last_event_id) {
            (Some(c), _) => Some(cursor(
                &c.epoch,
                &c.offset,
                "forwardedProps.toolview.after",
            )?),
            (None, Some(id)) => {
                let (epoch, offset) = id.rsplit_once(':').ok_or_else(|| {
                    Error::invalid(FieldViolation::new("Last-Event-ID", "not <epoch>:<offset>"))
                })?;
                Some(cursor(
                    epoch,
                    &Value::String(offset.into()),
                    "Last-Event-ID",
                )?)
            }
            (None, None) => None,
        };
        if toolview.snapshot && (after.is_some() || toolview.live_only) {
            return Err(Error::invalid(FieldViolation::new(
                "forwardedProps.toolview",
                "snapshot opens with the session so far; it excludes after, liveOnly and \
                 Last-Event-ID",
            )));
        }
        if toolview.snapshot_messages.is_some() && !toolview.snapshot {
            return Err(Error::invalid(FieldViolation::new(
                "forwardedProps.toolview.snapshotMessages",
                "only with snapshot: true",
            )));
        }
        let start = match (after, toolview.live_only) {
            (Some(_), true) => {
                return Err(Error::invalid(FieldViolation::new(
                    "forwardedProps.toolview",
                    "after and liveOnly exclude each other",
                )));
            }
            (Some(c), false) => Start::After(c),
            (None, true) => Start::LiveOnly,
            (None, false) => Start::FromBeginning,
        };
        // AG-UI streams output chunks as events of their own: `outputAppends` changes nothing.
        let caps = toolview.capabilities.unwrap_or_default();
        let resume = resume_answers(input.resume)?;
        Ok(RunOptions {
            session,
            start,
            follow: toolview.follow.unwrap_or(true),
            caps: caps.into(),
            snapshot: toolview.snapshot.then(|| {
                toolview
                    .snapshot_messages
                    .unwrap_or(crate::http::messages::DEFAULT_SNAPSHOT_MESSAGES)
            }),
            interrupts: toolview.interrupts,
            resume,
        })
    }

    /// The run's id: the session and the start point, so the same request gets the same run.
    pub fn run_id(&self) -> String {
        let from = match &self.start {
            Start::FromBeginning if self.snapshot.is_some() => "snapshot".to_owned(),
            Start::FromBeginning => "beginning".to_owned(),
            Start::LiveOnly => "live".to_owned(),
            Start::After(c) => format!("{}:{}", c.epoch.as_str(), c.offset),
        };
        format!("{}@{from}", self.session.as_str())
    }
}

fn cursor(epoch: &str, offset: &Value, field: &str) -> Result<Cursor, Error> {
    let epoch = Epoch::new(epoch)
        .map_err(|e| Error::invalid(FieldViolation::new(format!("{field}.epoch"), e)))?;
    let offset = match offset {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
    .ok_or_else(|| {
        Error::invalid(FieldViolation::new(
            format!("{field}.offset"),
            "not an unsigned integer",
        ))
    })?;
    Ok(Cursor { offset, epoch })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_session_and_the_options() {
        let body = br#"{"threadId":"s1","runId":"r","messages":[],"tools":[],"context":[],
            "state":null,"forwardedProps":{"toolview":{"after":{"epoch":"e1","offset":"7"},
            "follow":false,"capabilities":{"terminal":true,"maxOutputBytes":4096}}}}"#;
        let o = RunOptions::parse(body, None).unwrap();
        assert_eq!(o.session.as_str(), "s1");
        assert!(!o.follow);
        assert!(o.caps.terminal && !o.caps.diff);
        assert_eq!(o.caps.max_output_bytes, 4096);
        assert_eq!(o.run_id(), "s1@e1:7");
        let resumed = RunOptions::parse(br#"{"threadId":"s1"}"#, Some("e2:9")).unwrap();
        assert_eq!(resumed.run_id(), "s1@e2:9");
        assert_eq!(
            RunOptions::parse(br#"{"threadId":"s1"}"#, None)
                .unwrap()
                .start,
            Start::FromBeginning
        );
    }

    #[test]
    fn errors_name_the_field() {
        let cases: [(&[u8], Option<&str>, &str); 7] = [
            (
                br#"{"threadId":"s","forwardedProps":{"toolview":{"snapshot":true,"liveOnly":true}}}"#,
                None,
                "snapshot opens with the session so far",
            ),
            (
                br#"{"threadId":"s","forwardedProps":{"toolview":{"snapshotMessages":3}}}"#,
                None,
                "snapshotMessages: only with snapshot",
            ),
            (b"[]", None, "RunAgentInput"),
            (br#"{"threadId":""}"#, None, "threadId"),
            (
                br#"{"threadId":"s","forwardedProps":{"toolview":{"after":{"epoch":"e","offset":-1}}}}"#,
                None,
                "forwardedProps.toolview.after.offset",
            ),
            (
                br#"{"threadId":"s","forwardedProps":{"toolview":{"nope":1}}}"#,
                None,
                "forwardedProps.toolview: unknown field",
            ),
            (br#"{"threadId":"s"}"#, Some("no-colon"), "Last-Event-ID"),
        ];
        for (body, id, want) in cases {
            let e = RunOptions::parse(body, id).unwrap_err().to_string();
            assert!(e.contains(want), "{e} should name {want}");
        }
    }
}
