//! AG-UI runs around a stream of updates (the rules are in the module above): the run open, the
//! messages open in it, and the cursor its `RUN_FINISHED` hands back.
//!
//! What makes a cut stream valid wherever it starts or ends: a message's `*_CONTENT` or `*_END`
//! whose start this stream did not send is preceded by its `*_START` (the client keeps a message
//! it already holds, so the role only matters for one it does not); every message open is ended
//! before a `RUN_FINISHED`; a turn's `RUN_FINISHED` names the run this stream opened (the turn's,
//! or the stream's own when it started inside the turn); and a run whose outcome a client does not
//! pass on as a result (a cancelled turn) is followed at the stream's end by a run of the
//! stream's own that hands back the cursor.

use std::borrow::Cow;

use super::{StreamEvent, ag_ui};
use crate::domain::Cursor;
use crate::render::ag_ui::{
    Activity, AgUiEvent, Custom, Interrupt, Outcome, ReasoningRole, ResetValue, RunResult,
    TextRole, WireCursor,
};

/// An event of the frame's own, in a stream of any lifetime.
fn owned<'a>(event: AgUiEvent) -> StreamEvent<'a> {
    StreamEvent::AgUi(Cow::Owned(event))
}

/// The AG-UI run a stream of updates is framed in.
#[derive(Debug, Clone)]
pub struct RunFrame {
    /// The session.
    thread: String,
    /// The run open, or the last one.
    id: String,
    open: bool,
    /// Runs of the stream's own opened after a turn (offline run names).
    runs: u32,
    /// The cursor of the last update sent.
    last: Option<Cursor>,
    /// Text and reasoning messages started in this stream and not ended.
    messages: Vec<Open>,
    /// Tool calls started in this stream whose arguments have not ended (their input
    /// streams), with their tools' names.
    calls: Vec<(String, String)>,
    /// Whether the last `RUN_FINISHED` sent handed its cursor to the client (`false` after a
    /// cancelled turn's: `@ag-ui/client` passes a result on only for a successful run).
    handed: bool,
    /// Native interrupts: pending permission requests end the run (`pause`).
    interrupts: bool,
    /// The permission requests pending in what the stream showed (with native interrupts).
    pending: Vec<Interrupt>,
}

/// A message open in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Open {
    id: String,
    reasoning: bool,
}

impl RunFrame {
    pub(super) fn new(thread: &str, id: String, last: Option<Cursor>) -> Self {
        RunFrame {
            thread: thread.to_owned(),
            id,
            open: false,
            runs: 0,
            last,
            messages: Vec::new(),
            calls: Vec::new(),
            handed: true,
            interrupts: false,
            pending: Vec::new(),
        }
    }

    /// With native interrupts: a pending permission request ends the run (see `pause`).
    pub(super) fn with_interrupts(mut self, on: bool) -> Self {
        self.interrupts = on;
        self
    }

    /// With native interrupts and a permission request pending: the messages open end and the
    /// run finishes with `outcome: {type: "interrupt", interrupts}` and the cursor to resume
    /// after; the stream ends there (a run with `resume` answers and goes on).
    pub(super) fn pause(&mut self) -> Option<Vec<StreamEvent<'static>>> {
        if self.pending.is_empty() {
            return None;
        }
        let mut out: Vec<StreamEvent<'static>> =
            self.close_messages().into_iter().map(owned).collect();
        if !self.open {
            self.runs += 1;
            self.id = self.own_run_id(self.last.clone().as_ref());
            out.push(ag_ui(self.started()));
        }
        self.open = false;
        self.handed = false;
        let interrupts = std::mem::take(&mut self.pending);
        out.push(ag_ui(self.with_cursor(AgUiEvent::RunFinished {
            thread_id: self.thread.clone(),
            run_id: self.id.clone(),
            result: None,
            outcome: Some(Outcome::Interrupt { interrupts }),
            usage: None,
        })));
        Some(out)
    }

    /// Notes a permission request's activity: pending, or decided.
    fn permission(&mut self, content: &Activity) {
        let Activity::Permission(prompt) = content else {
            return;
        };
        if !self.interrupts {
            return;
        }
        self.pending.retain(|i| i.id != prompt.request_id);
        self.pending.extend(Interrupt::of(prompt));
    }

    /// `RUN_STARTED` of the stream's own run.
    pub(super) fn started(&mut self) -> AgUiEvent {
        self.open = true;
        AgUiEvent::RunStarted {
            thread_id: self.thread.clone(),
            run_id: self.id.clone(),
        }
    }

    /// An update's events as they are sent, after what the frame adds before them.
    pub(super) fn update<'a>(
        &mut self,
        events: &'a [AgUiEvent],
        cursor: Option<Cursor>,
    ) -> Vec<StreamEvent<'a>> {
        let mut out = Vec::with_capacity(events.len() + 1);
        match events.first().and_then(AgUiEvent::opened_run) {
            Some(turn) => {
                if self.open {
                    self.finish_into(&mut out);
                }
                // The turn's run is the one open now: its end, or the stream's, names it.
                self.id = turn.to_owned();
                self.open = true;
            }
            None if !self.open && !events.is_empty() => {
                // Outside a turn: a run of the stream's own, named by where it starts.
                self.runs += 1;
                self.id = self.own_run_id(cursor.as_ref());
                out.push(ag_ui(self.started()));
            }
            None => {}
        }
        if cursor.is_some() {
            self.last = cursor;
        }
        for event in events {
            self.event(event, &mut out);
        }
        out
    }

    /// One of an update's events, with the start a cut stream lacks before it.
    fn event<'a>(&mut self, event: &'a AgUiEvent, out: &mut Vec<StreamEvent<'a>>) {
        match event {
            AgUiEvent::TextMessageStart { message_id, .. } => {
                self.opened(message_id, false);
            }
            AgUiEvent::ReasoningMessageStart { message_id, .. } => {
                self.opened(message_id, true);
            }
            AgUiEvent::TextMessageContent { message_id, .. } => {
                self.reopen(message_id, false, out);
            }
            AgUiEvent::ReasoningMessageContent { message_id, .. } => {
                self.reopen(message_id, true, out);
            }
            AgUiEvent::TextMessageEnd { message_id } => {
                self.reopen(message_id, false, out);
                self.messages.retain(|m| m.id != *message_id);
            }
            AgUiEvent::ReasoningMessageEnd { message_id } => {
                self.reopen(message_id, true, out);
                self.messages.retain(|m| m.id != *message_id);
            }
            AgUiEvent::RunFinished { .. } => {
                // A turn's end: what is open in it ends first, and it names this stream's run.
                out.extend(self.close_messages().into_iter().map(owned));
                let mut finished = self.with_cursor(event.clone());
                if let AgUiEvent::RunFinished {
                    run_id, outcome, ..
                } = &mut finished
                {
                    run_id.clone_from(&self.id);
                    self.handed = outcome.is_none();
                }
                self.open = false;
                out.push(ag_ui(finished));
                return;
            }
            AgUiEvent::ToolCallStart {
                tool_call_id,
                tool_call_name,
            } => {
                if !self.calls.iter().any(|(id, _)| id == tool_call_id) {
                    self.calls
                        .push((tool_call_id.clone(), tool_call_name.clone()));
                }
            }
            AgUiEvent::ToolCallArgs {
                tool_call_id,
                tool_call_name,
                ..
            } => self.restart_call(tool_call_id, tool_call_name, out),
            AgUiEvent::ToolCallEnd {
                tool_call_id,
                tool_call_name,
            } => {
                self.restart_call(tool_call_id, tool_call_name, out);
                self.calls.retain(|(id, _)| id != tool_call_id);
            }
            AgUiEvent::RunStarted { .. }
            | AgUiEvent::RunError { .. }
            | AgUiEvent::ToolCallResult { .. }
            | AgUiEvent::Custom(_)
            | AgUiEvent::ActivityDelta { .. }
            | AgUiEvent::MessagesSnapshot { .. } => {}
            AgUiEvent::ActivitySnapshot { content, .. } => self.permission(content),
        }
        out.push(StreamEvent::AgUi(Cow::Borrowed(event)));
    }

    fn opened(&mut self, id: &str, reasoning: bool) {
        if !self.messages.iter().any(|m| m.id == id) {
            self.messages.push(Open {
                id: id.to_owned(),
                reasoning,
            });
        }
    }

    /// The start of a message this stream did not see start (it began before the stream's
    /// start point, or in a history snapshot).
    fn reopen(&mut self, id: &str, reasoning: bool, out: &mut Vec<StreamEvent<'_>>) {
        if self.messages.iter().any(|m| m.id == id) {
            return;
        }
        let message_id = id.to_owned();
        out.push(ag_ui(if reasoning {
            AgUiEvent::ReasoningMessageStart {
                message_id,
                role: ReasoningRole::Reasoning,
            }
        } else {
            AgUiEvent::TextMessageStart {
                message_id,
                role: TextRole::Assistant,
            }
        }));
        self.opened(id, reasoning);
    }

    /// The start of a call whose arguments this stream did not see start (a stream that
    /// resumed while its input streamed): AG-UI takes arguments only for a call started in
    /// the run, and a client that holds the call keeps it (same name).
    fn restart_call(&mut self, id: &str, name: &str, out: &mut Vec<StreamEvent<'_>>) {
        if self.calls.iter().any(|(open, _)| open == id) {
            return;
        }
        out.push(ag_ui(AgUiEvent::ToolCallStart {
            tool_call_id: id.to_owned(),
            tool_call_name: name.to_owned(),
        }));
        self.calls.push((id.to_owned(), name.to_owned()));
    }

    /// The ends of the messages open, in the order they started, then of the calls whose
    /// input streams (a run may not finish with either open; the input goes on in the next
    /// run, which starts the call again).
    fn close_messages(&mut self) -> Vec<AgUiEvent> {
        let messages = self.messages.drain(..).map(|m| {
            let message_id = m.id;
            if m.reasoning {
                AgUiEvent::ReasoningMessageEnd { message_id }
            } else {
                AgUiEvent::TextMessageEnd { message_id }
            }
        });
        let calls =
            self.calls
                .drain(..)
                .map(|(tool_call_id, tool_call_name)| AgUiEvent::ToolCallEnd {
                    tool_call_id,
                    tool_call_name,
                });
        messages.chain(calls).collect()
    }

    /// The messages open end, and the run open finishes with the cursor to resume after.
    fn finish_into(&mut self, out: &mut Vec<StreamEvent<'_>>) {
        out.extend(self.close_messages().into_iter().map(owned));
        out.push(ag_ui(self.finished()));
    }

    /// `RUN_FINISHED` of the run open, with the cursor to resume after (when the stream
    /// delivered any) as its `result`.
    fn finished(&mut self) -> AgUiEvent {
        self.open = false;
        self.handed = true;
        self.with_cursor(AgUiEvent::RunFinished {
            thread_id: self.thread.clone(),
            run_id: self.id.clone(),
            result: None,
            outcome: None,
            usage: None,
        })
    }

    /// The stream's own run at `cursor` (offline: the `n`th of the stream's own).
    fn own_run_id(&self, cursor: Option<&Cursor>) -> String {
        match cursor {
            Some(c) => format!("{}@{}:{}", self.thread, c.epoch.as_str(), c.offset),
            None => format!("{}@{}", self.thread, self.runs),
        }
    }

    /// What ends the stream: the run open finishes; or, when the last run's end did not hand
    /// the client its cursor (a cancelled turn), a run of the stream's own hands it back.
    pub(super) fn end(&mut self) -> Vec<StreamEvent<'static>> {
        let mut out = Vec::new();
        if self.open {
            self.finish_into(&mut out);
        } else if !self.handed && self.last.is_some() {
            self.runs += 1;
            self.id = self.own_run_id(self.last.clone().as_ref());
            out.push(ag_ui(self.started()));
            out.push(ag_ui(self.finished()));
        }
        out
    }

    /// An update at `cursor` was sent without its events (a history join folds them into a
    /// snapshot): the end of the run hands back its cursor.
    pub(super) fn delivered(&mut self, cursor: Cursor) {
        self.last = Some(cursor);
    }

    /// A `RUN_FINISHED` with the cursor added to its `result`.
    fn with_cursor(&self, mut event: AgUiEvent) -> AgUiEvent {
        if let (AgUiEvent::RunFinished { result, .. }, Some(c)) = (&mut event, &self.last) {
            result
                .get_or_insert(RunResult {
                    stop_reason: None,
                    cursor: None,
                })
                .cursor = Some(WireCursor::from(c));
        }
        event
    }

    /// The run open finishes, one on the log there is starts, and a `CUSTOM toolview:reset`
    /// says so (a UI drops its cards and rebuilds from what follows).
    pub(super) fn reset(&mut self, epoch: &str, head: u64) -> Vec<StreamEvent<'static>> {
        let mut out = Vec::new();
        if self.open {
            self.finish_into(&mut out);
        }
        self.id = format!("{}@reset:{epoch}", self.thread);
        self.last = None;
        self.handed = true;
        out.push(ag_ui(self.started()));
        out.push(ag_ui(AgUiEvent::Custom(Custom::Reset(ResetValue {
            epoch: epoch.to_owned(),
            head: head.to_string(),
        }))));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Epoch;
    use crate::render::ag_ui::Outcome;

    fn cursor(offset: u64) -> Option<Cursor> {
        Some(Cursor {
            epoch: Epoch::new("e").unwrap(),
            offset,
        })
    }

    fn kinds(events: &[StreamEvent<'_>]) -> Vec<String> {
        events
            .iter()
            .map(|e| {
                let v = serde_json::to_value(e).unwrap();
                let id = v["runId"]
                    .as_str()
                    .or(v["messageId"].as_str())
                    .unwrap_or("");
                format!("{} {id}", v["type"].as_str().unwrap())
            })
            .collect()
    }

    fn turn_end(outcome: Option<Outcome>) -> AgUiEvent {
        AgUiEvent::RunFinished {
            thread_id: "s".into(),
            run_id: "t1".into(),
            result: None,
            outcome,
            usage: None,
        }
    }

    fn delta(id: &str) -> AgUiEvent {
        AgUiEvent::TextMessageContent {
            message_id: id.into(),
            delta: "x".into(),
        }
    }

    #[test]
    fn a_stream_resumed_inside_a_turn_and_a_message_is_whole() {
        let mut run = RunFrame::new("s", "s@e:4".into(), cursor(4));
        run.started();
        let update = [delta("m")];
        assert_eq!(
            kinds(&run.update(&update, cursor(5))),
            ["TEXT_MESSAGE_START m", "TEXT_MESSAGE_CONTENT m"],
            "the message's start this stream did not see"
        );
        let update = [turn_end(None)];
        assert_eq!(
            kinds(&run.update(&update, cursor(6))),
            ["TEXT_MESSAGE_END m", "RUN_FINISHED s@e:4"],
            "the open message ends, and the turn's end names the run this stream opened"
        );
        assert!(run.end().is_empty());
    }

    #[test]
    fn a_turn_opened_in_the_stream_is_the_run_its_end_names() {
        let mut run = RunFrame::new("s", "s@beginning".into(), None);
        run.started();
        let start = [
            AgUiEvent::RunStarted {
                thread_id: "s".into(),
                run_id: "t1".into(),
            },
            AgUiEvent::TextMessageStart {
                message_id: "m".into(),
                role: TextRole::Assistant,
            },
        ];
        assert_eq!(
            kinds(&run.update(&start, cursor(1))),
            [
                "RUN_FINISHED s@beginning",
                "RUN_STARTED t1",
                "TEXT_MESSAGE_START m"
            ]
        );
        // The stream ends inside the turn and the message.
        assert_eq!(kinds(&run.end()), ["TEXT_MESSAGE_END m", "RUN_FINISHED t1"]);
    }

    #[test]
    fn a_cancelled_turn_s_cursor_reaches_the_client() {
        let mut run = RunFrame::new("s", "s@beginning".into(), None);
        run.started();
        let start = [AgUiEvent::RunStarted {
            thread_id: "s".into(),
            run_id: "t1".into(),
        }];
        run.update(&start, cursor(1));
        let end = [turn_end(Some(Outcome::Cancelled))];
        assert_eq!(kinds(&run.update(&end, cursor(2))), ["RUN_FINISHED t1"]);
        let last = run.end();
        assert_eq!(kinds(&last), ["RUN_STARTED s@e:2", "RUN_FINISHED s@e:2"]);
        let finished = serde_json::to_value(&last[1]).unwrap();
        assert_eq!(finished["result"]["cursor"]["offset"], "2");
        assert!(
            finished.get("outcome").is_none(),
            "a success: its result is passed on"
        );
    }

    fn permission(state: &str) -> AgUiEvent {
        AgUiEvent::ActivitySnapshot {
            message_id: "toolview:permission:p1".into(),
            activity_type: crate::render::ag_ui::PERMISSION_ACTIVITY.into(),
            content: serde_json::from_value(serde_json::json!({"requestId": "p1", "callId": "c1",
                "title": "Deploy?", "description": "", "expiryOptionId": "reject",
                "expiresAt": "2026-01-01T00:00:00.000Z", "expiresAtMs": 1_767_225_600_000u64,
                "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "reject", "name": "Reject", "kind": "reject_once"}],
                "state": state}))
            .unwrap(),
            replace: true,
        }
    }

    #[test]
    fn a_pending_request_pauses_the_run_with_native_interrupts() {
        // Without native interrupts, nothing pauses.
        let mut plain = RunFrame::new("s", "s@beginning".into(), None);
        plain.started();
        plain.update(&[permission("pending")], cursor(3));
        assert!(plain.pause().is_none());
        // With them: the run ends with the interrupt and the cursor after the request.
        let mut run = RunFrame::new("s", "s@beginning".into(), None).with_interrupts(true);
        run.started();
        run.update(&[permission("pending")], cursor(3));
        let paused = run.pause().expect("a request waits");
        let finished = serde_json::to_value(paused.last().unwrap()).unwrap();
        assert_eq!(finished["runId"], "s@beginning");
        assert_eq!(finished["outcome"]["type"], "interrupt");
        assert_eq!(finished["outcome"]["interrupts"][0]["id"], "p1");
        assert_eq!(finished["outcome"]["interrupts"][0]["toolCallId"], "c1");
        assert_eq!(finished["result"]["cursor"]["offset"], "3");
        // A decision in the same stream clears it.
        let mut decided = RunFrame::new("s", "s@beginning".into(), None).with_interrupts(true);
        decided.started();
        decided.update(&[permission("pending")], cursor(3));
        decided.update(&[permission("selected")], cursor(4));
        assert!(decided.pause().is_none());
    }
}
