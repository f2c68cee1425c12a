//! One stream framing for the two JSON event-stream targets: what a transport (the AG-UI and AI
//! SDK Server-Sent Events endpoints, `toolview tail`, the offline `render`) sends when a stream
//! opens, around each update, when the log is reset, when it fails and when it ends. Per-event
//! updates carry no framing of their own (they are shared by every subscriber of a lane, whatever
//! its start point); the frame is per stream. The other targets have none ([`StreamFrame::Plain`]).
//!
//! AG-UI: a stream opens with a run of its own (named by its start point); a turn's `RUN_STARTED`
//! first finishes the run open; events outside a turn open a run of the stream's when none is
//! open; a turn's `RUN_FINISHED` (or the end of the stream) finishes the run open, handing back
//! the cursor to resume after in its `result`; a failure is `RUN_ERROR`.
//!
//! AI SDK: the stream is one assistant message: `start` (its id names the session, so a resumed
//! stream replaces the message it replays), the updates' chunks, `finish`; a reset starts a new
//! message; a failure is `error`, then `finish`.

use std::borrow::Cow;

use serde::Serialize;

mod run;

use super::ag_ui::AgUiEvent;
use super::ai_sdk::{ResetData, UiChunk};
use super::{Body, Target};
use crate::domain::Cursor;
pub use run::RunFrame;

/// One event a framed stream sends: an update's (borrowed) or the frame's own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StreamEvent<'a> {
    /// An AG-UI event.
    AgUi(Cow<'a, AgUiEvent>),
    /// An AI SDK chunk.
    AiSdk(Cow<'a, UiChunk>),
}

impl StreamEvent<'_> {
    /// The event's JSON text: where it is encoded, once.
    pub fn text(&self) -> String {
        super::json_len::json_text(self)
    }
}

/// The framing of one stream, by target.
#[derive(Debug, Clone)]
pub enum StreamFrame {
    /// Targets whose updates stand alone (VIEW, ACP, Markdown, ANSI).
    Plain,
    /// AG-UI runs.
    AgUi(RunFrame),
    /// One AI SDK message.
    AiSdk {
        /// The session (the message's id).
        session: String,
    },
}

impl StreamFrame {
    /// The framing of a stream of `target` updates of `session`; an AG-UI stream's own run is
    /// named `run_id`, and `last` is the cursor it resumes after when it already has one.
    pub fn new(target: Target, session: &str, run_id: String, last: Option<Cursor>) -> Self {
        match target {
            Target::AgUi => StreamFrame::AgUi(RunFrame::new(session, run_id, last)),
            Target::AiSdk => StreamFrame::AiSdk {
                session: session.to_owned(),
            },
            Target::View | Target::Acp | Target::Markdown | Target::Ansi => StreamFrame::Plain,
        }
    }

    /// With AG-UI native interrupts: a pending permission request ends the run (`pause`).
    pub fn with_interrupts(self, on: bool) -> Self {
        match self {
            StreamFrame::AgUi(run) => StreamFrame::AgUi(run.with_interrupts(on)),
            StreamFrame::Plain => StreamFrame::Plain,
            StreamFrame::AiSdk { session } => StreamFrame::AiSdk { session },
        }
    }

    /// With AG-UI native interrupts, once the stream showed the session up to where it stood:
    /// what ends the run when a permission request is pending (`RUN_FINISHED` with
    /// `outcome: interrupt`), after which the stream ends; `None` when nothing waits.
    pub fn pause(&mut self) -> Option<Vec<StreamEvent<'static>>> {
        match self {
            StreamFrame::AgUi(run) => run.pause(),
            StreamFrame::Plain | StreamFrame::AiSdk { .. } => None,
        }
    }

    /// What the stream sends first.
    pub fn open(&mut self) -> Vec<StreamEvent<'static>> {
        match self {
            StreamFrame::Plain => Vec::new(),
            StreamFrame::AgUi(run) => vec![ag_ui(run.started())],
            StreamFrame::AiSdk { session } => vec![ai_sdk(UiChunk::Start {
                message_id: message_id(session),
            })],
        }
    }

    /// One update as it is sent, delivered at `cursor` (`None` offline, where there is no log):
    /// the frame's events first, then the update's own in order (the last one, a turn's
    /// `RUN_FINISHED`, with the cursor added). Empty for an update with no events, and for the
    /// bodies of targets with no framing (their transports send them as they are).
    pub fn update<'a>(&mut self, body: &'a Body, cursor: Option<Cursor>) -> Vec<StreamEvent<'a>> {
        match (self, body) {
            (StreamFrame::AgUi(run), Body::AgUi(events)) => run.update(events, cursor),
            (StreamFrame::AiSdk { .. }, Body::AiSdk(chunks)) => chunks
                .iter()
                .map(|c| StreamEvent::AiSdk(Cow::Borrowed(c)))
                .collect(),
            (
                StreamFrame::Plain | StreamFrame::AgUi(_) | StreamFrame::AiSdk { .. },
                Body::View(_)
                | Body::Acp(_)
                | Body::AgUi(_)
                | Body::Markdown(_)
                | Body::Ansi(_)
                | Body::AiSdk(_),
            ) => Vec::new(),
        }
    }

    /// An update at `cursor` was sent without its events (a history join folds them into a
    /// snapshot): the end of the run hands back its cursor.
    pub fn delivered(&mut self, cursor: Cursor) {
        match self {
            StreamFrame::AgUi(run) => run.delivered(cursor),
            StreamFrame::Plain | StreamFrame::AiSdk { .. } => {}
        }
    }

    /// The log the client was shown is gone (trimmed, expired and recreated, restored): what
    /// says so, after which the replay of the log there is follows.
    pub fn reset(&mut self, epoch: &str, head: u64) -> Vec<StreamEvent<'static>> {
        match self {
            StreamFrame::Plain => Vec::new(),
            StreamFrame::AgUi(run) => run.reset(epoch, head),
            StreamFrame::AiSdk { session } => {
                // A new message: the SDK drops the parts it holds for the old one.
                let id = format!("{}@reset:{epoch}", message_id(session));
                vec![
                    ai_sdk(UiChunk::Start { message_id: id }),
                    ai_sdk(UiChunk::DataToolviewReset {
                        data: ResetData {
                            epoch: epoch.to_owned(),
                            head: head.to_string(),
                        },
                        transient: true,
                    }),
                ]
            }
        }
    }

    /// The stream failed (`code`: the gRPC status name): what ends it.
    pub fn error(&mut self, message: &str, code: &str) -> Vec<StreamEvent<'static>> {
        match self {
            StreamFrame::Plain => Vec::new(),
            StreamFrame::AgUi(_) => vec![ag_ui(AgUiEvent::RunError {
                message: message.to_owned(),
                code: code.to_owned(),
            })],
            StreamFrame::AiSdk { .. } => vec![
                ai_sdk(UiChunk::Error {
                    error_text: message.to_owned(),
                }),
                ai_sdk(UiChunk::Finish {}),
            ],
        }
    }

    /// What ends a stream that did not fail.
    pub fn end(&mut self) -> Vec<StreamEvent<'static>> {
        match self {
            StreamFrame::Plain => Vec::new(),
            StreamFrame::AgUi(run) => run.end(),
            StreamFrame::AiSdk { .. } => vec![ai_sdk(UiChunk::Finish {})],
        }
    }
}

/// The AI SDK assistant message's id for a session.
fn message_id(session: &str) -> String {
    format!("toolview:{session}")
}

pub(super) fn ag_ui(event: AgUiEvent) -> StreamEvent<'static> {
    StreamEvent::AgUi(Cow::Owned(event))
}

fn ai_sdk(chunk: UiChunk) -> StreamEvent<'static> {
    StreamEvent::AiSdk(Cow::Owned(chunk))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Epoch;
    use crate::render::ag_ui::{Custom, RunResult, TerminalOutput};

    fn cursor(offset: u64) -> Cursor {
        Cursor {
            epoch: Epoch::new("e").unwrap(),
            offset,
        }
    }

    fn texts(events: &[StreamEvent<'_>]) -> Vec<String> {
        events.iter().map(StreamEvent::text).collect()
    }

    #[test]
    fn turns_are_runs_and_the_rest_gets_one() {
        let mut frame = StreamFrame::new(Target::AgUi, "s", "s@start".into(), None);
        assert_eq!(
            texts(&frame.open()),
            [r#"{"type":"RUN_STARTED","threadId":"s","runId":"s@start"}"#]
        );
        let turn = Body::AgUi(vec![AgUiEvent::RunStarted {
            thread_id: "s".into(),
            run_id: "t1".into(),
        }]);
        let framed = texts(&frame.update(&turn, Some(cursor(1))));
        assert_eq!(framed.len(), 2, "the stream's run finishes first");
        assert!(framed[0].contains("RUN_FINISHED") && framed[0].contains("s@start"));
        let end = Body::AgUi(vec![AgUiEvent::RunFinished {
            thread_id: "s".into(),
            run_id: "t1".into(),
            result: Some(RunResult {
                stop_reason: Some("end_turn".into()),
                cursor: None,
            }),
            outcome: None,
            usage: None,
        }]);
        let framed = texts(&frame.update(&end, Some(cursor(2))));
        assert_eq!(
            framed,
            [
                r#"{"type":"RUN_FINISHED","threadId":"s","runId":"t1","result":{"stopReason":"end_turn","cursor":{"epoch":"e","offset":"2"}}}"#
            ]
        );
        assert!(frame.end().is_empty(), "the turn's end finished the run");
        let call = Body::AgUi(vec![AgUiEvent::Custom(Custom::TerminalOutput(
            TerminalOutput {
                call_id: "c".into(),
                data: "x".into(),
            },
        ))]);
        let framed = texts(&frame.update(&call, Some(cursor(3))));
        assert!(framed[0].contains(r#""runId":"s@e:3""#));
        assert!(texts(&frame.end())[0].contains(r#""offset":"3""#));
    }

    #[test]
    fn an_ai_sdk_stream_is_one_message() {
        let mut frame = StreamFrame::new(Target::AiSdk, "s", String::new(), None);
        assert_eq!(
            texts(&frame.open()),
            [r#"{"type":"start","messageId":"toolview:s"}"#]
        );
        let body = Body::AiSdk(vec![UiChunk::StartStep {}]);
        assert_eq!(
            texts(&frame.update(&body, None)),
            [r#"{"type":"start-step"}"#]
        );
        assert_eq!(
            texts(&frame.reset("e2", 4)),
            [
                r#"{"type":"start","messageId":"toolview:s@reset:e2"}"#,
                r#"{"type":"data-toolview-reset","data":{"epoch":"e2","head":"4"},"transient":true}"#
            ]
        );
        assert_eq!(
            texts(&frame.error("gone", "NOT_FOUND")),
            [
                r#"{"type":"error","errorText":"gone"}"#,
                r#"{"type":"finish"}"#
            ]
        );
        let mut plain = StreamFrame::new(Target::View, "s", String::new(), None);
        assert!(plain.open().is_empty() && plain.end().is_empty());
    }
}
