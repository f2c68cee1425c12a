//! The call lifecycle rules: started at most once, output only before finished, finished at
//! most once. Finishes and output for unknown calls are allowed (orphan cards).

use std::collections::HashMap;

use super::{CallId, EventBody};

/// A broken lifecycle rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LifecycleError {
    /// A second `CallStarted` for the same call.
    #[error("call {0} was already started")]
    StartedTwice(CallId),
    /// A `CallOutput` after the call's `CallFinished`.
    #[error("call {0} has already finished: no more output")]
    OutputAfterFinish(CallId),
    /// A second `CallFinished` for the same call.
    #[error("call {0} has already finished")]
    FinishedTwice(CallId),
}

/// A batch event that breaks a lifecycle rule, by its index in the request: the one error text
/// of `Publish`, `Render` and the CLI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("events[{index}]: {error}")]
pub struct BatchError {
    /// The event's index in the batch.
    pub index: usize,
    /// The rule it breaks.
    pub error: LifecycleError,
}

/// Where one call is in its lifecycle (a call never seen is neither started nor finished).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallPhase {
    /// A `CallStarted` was accepted.
    pub started: bool,
    /// A `CallFinished` was accepted.
    pub finished: bool,
}

impl CallPhase {
    /// The phase after one of this call's events: the one definition of the transitions, used
    /// by the rules here and by a store rebuilding phases from a log (which applies it
    /// whatever the rules say: the log was checked when it was written, and a call whose start
    /// was trimmed still counts as seen).
    pub fn after(self, body: &EventBody) -> CallPhase {
        match body {
            EventBody::SessionStarted(_) | EventBody::CallOutput(_) => self,
            EventBody::CallStarted(_) => CallPhase {
                started: true,
                ..self
            },
            EventBody::CallFinished(_) => CallPhase {
                finished: true,
                ..self
            },
        }
    }

    /// The rule `body`, an event of call `id`, breaks in this phase, if any.
    fn refusal(self, id: &CallId, body: &EventBody) -> Option<LifecycleError> {
        match body {
            EventBody::SessionStarted(_) => None,
            EventBody::CallStarted(_) if self.started => {
                Some(LifecycleError::StartedTwice(id.clone()))
            }
            EventBody::CallOutput(_) if self.finished => {
                Some(LifecycleError::OutputAfterFinish(id.clone()))
            }
            EventBody::CallFinished(_) if self.finished => {
                Some(LifecycleError::FinishedTwice(id.clone()))
            }
            EventBody::CallStarted(_) | EventBody::CallOutput(_) | EventBody::CallFinished(_) => {
                None
            }
        }
    }
}

/// Changes checked against a [`Lifecycle`] without touching it; [`Lifecycle::apply`] commits
/// them. This is how a whole batch is validated before anything is recorded.
#[derive(Debug, Default)]
pub struct Pending {
    calls: HashMap<CallId, CallPhase>,
}

impl Pending {
    /// The phases this batch moves calls to, to be recorded.
    pub fn changes(&self) -> impl Iterator<Item = (&CallId, CallPhase)> {
        self.calls.iter().map(|(id, p)| (id, *p))
    }
}

/// The lifecycle state of a session's calls: all of them, or those a batch is about.
#[derive(Debug, Clone, Default)]
pub struct Lifecycle {
    calls: HashMap<CallId, CallPhase>,
}

impl Lifecycle {
    /// The state of the given calls (others count as never seen).
    pub fn with_phases(phases: impl IntoIterator<Item = (CallId, CallPhase)>) -> Self {
        Lifecycle {
            calls: phases.into_iter().collect(),
        }
    }

    /// How many of `pending`'s calls this state has never seen (new calls).
    pub fn new_calls(&self, pending: &Pending) -> usize {
        pending
            .calls
            .keys()
            .filter(|id| !self.calls.contains_key(*id))
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
        let Some(id) = body.call_id() else {
            return Ok(());
        };
        let phase = pending
            .calls
            .get(id)
            .copied()
            .unwrap_or_else(|| self.phase(id));
        if let Some(broken) = phase.refusal(id, body) {
            return Err(broken);
        }
        pending.calls.insert(id.clone(), phase.after(body));
        Ok(())
    }

    /// Records checked changes.
    pub fn apply(&mut self, pending: Pending) {
        self.calls.extend(pending.calls);
    }

    fn phase(&self, id: &CallId) -> CallPhase {
        self.calls.get(id).copied().unwrap_or_default()
    }

    /// How many distinct calls have been seen.
    pub fn calls(&self) -> usize {
        self.calls.len()
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
            call_id: id(),
            tool_name: "t".into(),
            arguments_json: String::new(),
            view: None,
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
        assert_eq!(l.admit(&start()), Err(LifecycleError::StartedTwice(id())));
        assert!(l.admit(&finish()).is_ok());
        assert_eq!(
            l.admit(&out()),
            Err(LifecycleError::OutputAfterFinish(id()))
        );
        assert_eq!(l.admit(&finish()), Err(LifecycleError::FinishedTwice(id())));
        // Orphans are fine.
        let mut l = Lifecycle::default();
        assert!(l.admit(&out()).is_ok());
        assert!(l.admit(&finish()).is_ok());
        // A rejected event changes nothing.
        assert_eq!(l.calls(), 1);
    }
}
