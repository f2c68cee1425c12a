//! The lifecycle rules of calls, messages, turns and permission requests: each is started at most once and finished
//! at most once; a call's output and a message's text come only before its finish. Finishes and
//! output for unknown calls are allowed (orphan cards); a message's text or finish, and a turn's
//! finish, need their start (a message has no card to show without its role).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use super::permission::RequestId;
use super::{CallId, EventBody, FieldViolation, MessageId, TurnId, Violation, violation_error};

/// What a lifecycle rule is about: a call, a message or a turn, each in its own id space.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    /// A tool call.
    Call(CallId),
    /// A message (user, assistant or reasoning).
    Message(MessageId),
    /// A turn.
    Turn(TurnId),
    /// A permission request.
    Permission(RequestId),
}

impl Subject {
    const MESSAGE: &'static str = "message/";
    const TURN: &'static str = "turn/";
    const PERMISSION: &'static str = "permission/";

    /// A call's subject.
    pub fn call(id: &CallId) -> Self {
        Subject::Call(id.clone())
    }

    /// A message's subject.
    pub fn message(id: &MessageId) -> Self {
        Subject::Message(id.clone())
    }

    /// A turn's subject.
    pub fn turn(id: &TurnId) -> Self {
        Subject::Turn(id.clone())
    }

    /// The key a store keeps: a call's id as it is — so logs written before messages existed
    /// read the same — and `message/<id>` or `turn/<id>` (`/` never occurs in those ids).
    pub fn key(&self) -> Cow<'_, str> {
        match self {
            Subject::Call(id) => Cow::Borrowed(id.as_str()),
            Subject::Message(id) => Cow::Owned(format!("{}{id}", Self::MESSAGE)),
            Subject::Turn(id) => Cow::Owned(format!("{}{id}", Self::TURN)),
            Subject::Permission(id) => Cow::Owned(format!("{}{id}", Self::PERMISSION)),
        }
    }

    /// A stored key back; `None` if it is not one [`Self::key`] makes.
    pub fn from_key(key: &str) -> Option<Self> {
        if let Some(id) = key.strip_prefix(Self::MESSAGE) {
            MessageId::new(id).ok().map(Subject::Message)
        } else if let Some(id) = key.strip_prefix(Self::TURN) {
            TurnId::new(id).ok().map(Subject::Turn)
        } else if let Some(id) = key.strip_prefix(Self::PERMISSION) {
            RequestId::new(id).ok().map(Subject::Permission)
        } else {
            CallId::new(key).ok().map(Subject::Call)
        }
    }

    /// Whether it is a call.
    pub fn is_call(&self) -> bool {
        matches!(self, Subject::Call(_))
    }
}

/// `call c1`, `message m1`, `turn t1`: how the rules' texts name a subject.
impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Call(id) => write!(f, "call {id}"),
            Subject::Message(id) => write!(f, "message {id}"),
            Subject::Turn(id) => write!(f, "turn {id}"),
            Subject::Permission(id) => write!(f, "permission request {id}"),
        }
    }
}

/// A broken lifecycle rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LifecycleError {
    /// A second start of the same call, message or turn.
    #[error("{0} was already started")]
    StartedTwice(Subject),
    /// A call's output after its finish.
    #[error("{0} has already finished: no more output")]
    OutputAfterFinish(Subject),
    /// A message's text after its finish.
    #[error("{0} has already finished: no more text")]
    TextAfterFinish(Subject),
    /// A second finish of the same call, message or turn.
    #[error("{0} has already finished")]
    FinishedTwice(Subject),
    /// A message's text or finish, or a turn's finish, or a call's input, before its start.
    #[error("{0} was not started")]
    NotStarted(Subject),
    /// Input for a call whose input is not streaming: started without `input_streaming`, or
    /// already complete.
    #[error("{0}'s input is not streaming (it was complete at its start, or completed since)")]
    InputNotStreaming(Subject),
    /// A call's input after its finish.
    #[error("{0} has already finished: no more input")]
    InputAfterFinish(Subject),
    /// Output of a call whose input is still streaming (the tool cannot run yet).
    #[error("{0}'s input is still streaming: complete it before its output")]
    InputStillStreaming(Subject),
}

/// A batch event that breaks a lifecycle rule, by its index in the request: the one error text
/// of `Publish`, `Render` and the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchError {
    /// The event's index in the batch.
    pub index: usize,
    /// The rule it breaks.
    pub error: LifecycleError,
}

impl Violation for BatchError {
    fn violation(&self) -> FieldViolation {
        FieldViolation::new(format!("events[{}]", self.index), &self.error)
    }
}

violation_error!(BatchError);

/// Where one call, message or turn is in its lifecycle (one never seen is neither started nor
/// finished).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Phase {
    /// Its start was accepted.
    pub started: bool,
    /// Its finish was accepted.
    pub finished: bool,
    /// A call started with its input streaming, neither completed nor finished since.
    pub input_open: bool,
}

impl Phase {
    /// The phase after one of the subject's events: the one definition of the transitions, used
    /// by the rules here and by a store rebuilding phases from a log (which applies it
    /// whatever the rules say: the log was checked when it was written, and a call whose start
    /// was trimmed still counts as seen).
    pub fn after(self, body: &EventBody) -> Phase {
        let (started, finished) = (
            Phase {
                started: true,
                ..self
            },
            Phase {
                finished: true,
                input_open: false,
                ..self
            },
        );
        match body {
            EventBody::SessionStarted(_)
            | EventBody::SessionEnded(_)
            | EventBody::CallInputDelta(_)
            | EventBody::CallOutput(_)
            | EventBody::MessageDelta(_) => self,
            EventBody::CallStarted(s) => Phase {
                input_open: s.input_streaming,
                ..started
            },
            EventBody::CallInputComplete(_) => Phase {
                input_open: false,
                ..self
            },
            EventBody::TurnStarted(_)
            | EventBody::MessageStarted(_)
            | EventBody::PermissionRequested(_) => started,
            EventBody::CallFinished(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageFinished(_)
            | EventBody::PermissionResolved(_) => finished,
        }
    }

    /// The rule `body`, an event of `subject`, breaks in this phase, if any.
    fn refusal(self, subject: &Subject, body: &EventBody) -> Option<LifecycleError> {
        let s = || subject.clone();
        match body {
            EventBody::SessionStarted(_) | EventBody::SessionEnded(_) => None,
            EventBody::CallStarted(_)
            | EventBody::TurnStarted(_)
            | EventBody::MessageStarted(_)
            | EventBody::PermissionRequested(_)
                if self.started =>
            {
                Some(LifecycleError::StartedTwice(s()))
            }
            EventBody::MessageDelta(_)
            | EventBody::MessageFinished(_)
            | EventBody::TurnFinished(_)
            | EventBody::PermissionResolved(_)
            | EventBody::CallInputDelta(_)
            | EventBody::CallInputComplete(_)
                if !self.started =>
            {
                Some(LifecycleError::NotStarted(s()))
            }
            EventBody::CallInputDelta(_) | EventBody::CallInputComplete(_) if self.finished => {
                Some(LifecycleError::InputAfterFinish(s()))
            }
            EventBody::CallInputDelta(_) | EventBody::CallInputComplete(_) if !self.input_open => {
                Some(LifecycleError::InputNotStreaming(s()))
            }
            EventBody::CallOutput(_) if self.finished => {
                Some(LifecycleError::OutputAfterFinish(s()))
            }
            EventBody::CallOutput(_) if self.input_open => {
                Some(LifecycleError::InputStillStreaming(s()))
            }
            EventBody::MessageDelta(_) if self.finished => {
                Some(LifecycleError::TextAfterFinish(s()))
            }
            EventBody::CallFinished(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageFinished(_)
            | EventBody::PermissionResolved(_)
                if self.finished =>
            {
                Some(LifecycleError::FinishedTwice(s()))
            }
            EventBody::CallStarted(_)
            | EventBody::CallInputDelta(_)
            | EventBody::CallInputComplete(_)
            | EventBody::CallOutput(_)
            | EventBody::CallFinished(_)
            | EventBody::TurnStarted(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageStarted(_)
            | EventBody::MessageDelta(_)
            | EventBody::MessageFinished(_)
            | EventBody::PermissionRequested(_)
            | EventBody::PermissionResolved(_) => None,
        }
    }
}

/// Changes checked against a [`Lifecycle`] without touching it; [`Lifecycle::apply`] commits
/// them. This is how a whole batch is validated before anything is recorded.
#[derive(Debug, Default)]
pub struct Pending {
    subjects: HashMap<Subject, Phase>,
}

impl Pending {
    /// The phases this batch moves subjects to, to be recorded.
    pub fn changes(&self) -> impl Iterator<Item = (&Subject, Phase)> {
        self.subjects.iter().map(|(id, p)| (id, *p))
    }
}

/// The lifecycle state of a session's calls, messages and turns: all of them, or those a batch
/// is about.
#[derive(Debug, Clone, Default)]
pub struct Lifecycle {
    subjects: HashMap<Subject, Phase>,
}

impl Lifecycle {
    /// The state of the given subjects (others count as never seen).
    pub fn with_phases(phases: impl IntoIterator<Item = (Subject, Phase)>) -> Self {
        Lifecycle {
            subjects: phases.into_iter().collect(),
        }
    }

    /// How many of `pending`'s calls this state has never seen (new calls: what the session's
    /// call count counts).
    pub fn new_calls(&self, pending: &Pending) -> usize {
        pending
            .subjects
            .keys()
            .filter(|s| s.is_call() && !self.subjects.contains_key(*s))
            .count()
    }

    /// Checks a batch's events in order, each with its index in the request, recording what
    /// they do in `pending`; the first that breaks a rule is the error.
    pub fn check_batch<'a>(
        &self,
        pending: &mut Pending,
        events: impl IntoIterator<Item = (usize, &'a EventBody)>,
    ) -> Result<(), BatchError> {
        events.into_iter().try_for_each(|(index, body)| {
            self.check(pending, body)
                .map_err(|error| BatchError { index, error })
        })
    }

    /// Checks a whole batch and records it, or records nothing ([`Self::check_batch`]).
    pub fn admit_batch<'a>(
        &mut self,
        events: impl IntoIterator<Item = &'a EventBody>,
    ) -> Result<(), BatchError> {
        let mut pending = Pending::default();
        self.check_batch(&mut pending, events.into_iter().enumerate())?;
        self.apply(pending);
        Ok(())
    }

    /// Checks an event against the state, and records it when it is allowed.
    pub fn admit(&mut self, body: &EventBody) -> Result<(), LifecycleError> {
        let mut pending = Pending::default();
        self.check(&mut pending, body)?;
        self.apply(pending);
        Ok(())
    }

    /// Checks an event against the state plus `pending`, recording it in `pending` only.
    pub fn check(&self, pending: &mut Pending, body: &EventBody) -> Result<(), LifecycleError> {
        let Some(subject) = body.subject() else {
            return Ok(());
        };
        let phase = pending
            .subjects
            .get(&subject)
            .copied()
            .unwrap_or_else(|| self.phase(&subject));
        if let Some(broken) = phase.refusal(&subject, body) {
            return Err(broken);
        }
        let next = phase.after(body);
        pending.subjects.insert(subject, next);
        Ok(())
    }

    /// Records checked changes.
    pub fn apply(&mut self, pending: Pending) {
        self.subjects.extend(pending.subjects);
    }

    fn phase(&self, subject: &Subject) -> Phase {
        self.subjects.get(subject).copied().unwrap_or_default()
    }

    /// How many distinct calls, messages and turns have been seen.
    pub fn subjects(&self) -> usize {
        self.subjects.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{CallFinished, CallOutput, CallStarted};

    fn id() -> CallId {
        CallId::new("c").unwrap()
    }
    fn start() -> EventBody {
        EventBody::CallStarted(CallStarted {
            parent: None,
            call_id: id(),
            tool_name: "t".into(),
            arguments_json: String::new(),
            view: None,
            input_streaming: false,
        })
    }
    fn out() -> EventBody {
        EventBody::CallOutput(CallOutput {
            call_id: id(),
            data: "x".into(),
        })
    }
    fn finish() -> EventBody {
        EventBody::CallFinished(CallFinished {
            call_id: id(),
            content: vec![],
            is_error: false,
            meta_json: String::new(),
            view: None,
        })
    }

    #[test]
    fn rules() {
        let mut l = Lifecycle::default();
        assert!(l.admit(&start()).is_ok());
        assert!(l.admit(&out()).is_ok());
        assert_eq!(
            l.admit(&start()),
            Err(LifecycleError::StartedTwice(Subject::call(&id())))
        );
        assert!(l.admit(&finish()).is_ok());
        assert_eq!(
            l.admit(&out()),
            Err(LifecycleError::OutputAfterFinish(Subject::call(&id())))
        );
        assert_eq!(
            l.admit(&finish()),
            Err(LifecycleError::FinishedTwice(Subject::call(&id())))
        );
        // Orphans are fine.
        let mut l = Lifecycle::default();
        assert!(l.admit(&out()).is_ok());
        assert!(l.admit(&finish()).is_ok());
        // A rejected event changes nothing.
        assert_eq!(l.subjects(), 1);
    }

    #[test]
    fn messages_and_turns() {
        use crate::domain::{
            MessageDelta, MessageFinished, MessageRole, MessageStarted, StopReason, TurnFinished,
            TurnStarted,
        };
        let m = MessageId::new("c").unwrap();
        let t = TurnId::new("c").unwrap();
        let started = EventBody::MessageStarted(MessageStarted {
            parent: None,
            message_id: m.clone(),
            role: MessageRole::Assistant,
            text: String::new(),
        });
        let delta = EventBody::MessageDelta(MessageDelta {
            message_id: m.clone(),
            text: "x".into(),
        });
        let finished = EventBody::MessageFinished(MessageFinished {
            message_id: m.clone(),
        });
        let turn_started = EventBody::TurnStarted(TurnStarted { turn_id: t.clone() });
        let turn_finished = EventBody::TurnFinished(TurnFinished {
            turn_id: t.clone(),
            stop_reason: StopReason::EndTurn,
            usage: None,
        });
        let msg = || Subject::message(&m);
        let mut l = Lifecycle::default();
        assert_eq!(l.admit(&delta), Err(LifecycleError::NotStarted(msg())));
        assert_eq!(l.admit(&finished), Err(LifecycleError::NotStarted(msg())));
        assert_eq!(
            l.admit(&turn_finished).unwrap_err().to_string(),
            "turn c was not started"
        );
        // The same id names a call, a message and a turn apart.
        assert!(l.admit(&start()).is_ok());
        assert!(l.admit(&turn_started).is_ok());
        assert!(l.admit(&started).is_ok());
        assert_eq!(l.admit(&started), Err(LifecycleError::StartedTwice(msg())));
        assert!(l.admit(&delta).is_ok());
        assert!(l.admit(&finished).is_ok());
        assert_eq!(
            l.admit(&delta).unwrap_err().to_string(),
            "message c has already finished: no more text"
        );
        assert_eq!(
            l.admit(&finished),
            Err(LifecycleError::FinishedTwice(msg()))
        );
        assert!(l.admit(&turn_finished).is_ok());
        assert_eq!(l.subjects(), 3);
    }

    #[test]
    fn streaming_input() {
        use crate::domain::{CallInputComplete, CallInputDelta};
        let streaming = EventBody::CallStarted(CallStarted {
            parent: None,
            call_id: id(),
            tool_name: "t".into(),
            arguments_json: "{".into(),
            view: None,
            input_streaming: true,
        });
        let delta = EventBody::CallInputDelta(CallInputDelta {
            call_id: id(),
            text: "\"a\": 1".into(),
        });
        let complete = EventBody::CallInputComplete(CallInputComplete {
            call_id: id(),
            arguments_json: "{\"a\": 1}".into(),
            view: None,
        });
        let call = || Subject::call(&id());
        let mut l = Lifecycle::default();
        assert_eq!(l.admit(&delta), Err(LifecycleError::NotStarted(call())));
        assert!(l.admit(&streaming).is_ok());
        assert!(l.admit(&delta).is_ok());
        assert_eq!(
            l.admit(&out()),
            Err(LifecycleError::InputStillStreaming(call()))
        );
        assert!(l.admit(&complete).is_ok());
        assert_eq!(
            l.admit(&delta).unwrap_err().to_string(),
            "call c's input is not streaming (it was complete at its start, or completed since)"
        );
        assert_eq!(
            l.admit(&complete),
            Err(LifecycleError::InputNotStreaming(call()))
        );
        assert!(l.admit(&out()).is_ok());
        // A call started whole takes no input.
        let mut l = Lifecycle::default();
        assert!(l.admit(&start()).is_ok());
        assert_eq!(
            l.admit(&delta),
            Err(LifecycleError::InputNotStreaming(call()))
        );
        // A finish while the input streams ends it (the model stopped writing).
        let mut l = Lifecycle::default();
        assert!(l.admit(&streaming).is_ok());
        assert!(l.admit(&finish()).is_ok());
        assert_eq!(
            l.admit(&delta),
            Err(LifecycleError::InputAfterFinish(call()))
        );
    }

    #[test]
    fn subject_keys() {
        let m = Subject::message(&MessageId::new("a.b").unwrap());
        assert_eq!(m.key(), "message/a.b");
        assert_eq!(Subject::from_key("message/a.b"), Some(m));
        assert_eq!(Subject::from_key("c"), Some(Subject::call(&id())));
        assert!(Subject::from_key("c1").unwrap().is_call());
        assert_eq!(Subject::from_key("turn/t").unwrap().to_string(), "turn t");
        assert_eq!(Subject::from_key("message/"), None);
        assert_eq!(Subject::from_key("x/y"), None);
    }
}
