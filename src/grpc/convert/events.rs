//! Events and requests inbound. Error `Display`s are field paths relative to the message, e.g.
//! `call_started.view.card: not set`.

pub use super::enums::EnumError;
use super::permissions::{self, PermissionEventError};
use super::results::ToolResultViewError;
use super::views::{ContentBlockError, Indexed, ToolCallViewError, each};
use crate::domain::{self as d, IdError};
use crate::domain::{FieldViolation, Violation, violation_error};
use crate::grpc::pb;

/// `meta_json` that is neither empty nor JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaJsonError(pub String);

impl Violation for MetaJsonError {
    fn violation(&self) -> FieldViolation {
        FieldViolation::new("meta_json", format!("not valid JSON ({})", self.0))
    }
}

violation_error!(MetaJsonError);

/// Checks `meta_json`: empty, or valid JSON. It is kept verbatim.
pub fn check_meta_json(s: &str) -> Result<(), MetaJsonError> {
    if s.is_empty() {
        return Ok(());
    }
    serde_json::from_str::<serde::de::IgnoredAny>(s)
        .map(|_| ())
        .map_err(|e| MetaJsonError(e.to_string()))
}

/// An invalid `ToolEvent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolEventError {
    /// A bad `session_id`.
    SessionId(IdError),
    /// A bad `event_id`.
    EventId(IdError),
    /// No event kind set.
    EventUnset,
    /// A bad `call_id` in the named event.
    CallId(&'static str, IdError),
    /// A bad call view in the named event (`call_started`, `call_input_complete`).
    CallView(&'static str, ToolCallViewError),
    /// A bad block in `call_finished.content`.
    Content(Indexed<ContentBlockError>),
    /// `call_finished.meta_json` is not JSON.
    Meta(MetaJsonError),
    /// A bad `call_finished.view`.
    ResultView(ToolResultViewError),
    /// A bad `turn_id` in the named event.
    TurnId(&'static str, IdError),
    /// A bad `parent_call_id` in the named event.
    ParentCallId(&'static str, IdError),
    /// A call naming itself as its parent.
    OwnParent,
    /// A bad `message_id` in the named event.
    MessageId(&'static str, IdError),
    /// `message_started.role` unset or not a known role.
    Role(EnumError),
    /// `turn_finished.stop_reason` not a known reason.
    StopReason(EnumError),
    /// A bad permission request or resolution.
    Permission(PermissionEventError),
}

impl Violation for ToolEventError {
    fn violation(&self) -> FieldViolation {
        use FieldViolation as V;
        use ToolEventError as E;
        match self {
            E::SessionId(e) => V::new("session_id", e),
            E::EventId(e) => V::new("event_id", e),
            E::EventUnset => V::new("event", "not set"),
            E::CallId(at, e) => V::new(format!("{at}.call_id"), e),
            E::CallView(at, e) => e.violation().under(format!("{at}.view")),
            E::Content(e) => e.violation().under("call_finished"),
            E::Meta(e) => e.violation().under("call_finished"),
            E::ResultView(e) => e.violation().under("call_finished.view"),
            E::TurnId(at, e) => V::new(format!("{at}.turn_id"), e),
            E::ParentCallId(at, e) => V::new(format!("{at}.parent_call_id"), e),
            E::OwnParent => V::new(
                "call_started.parent_call_id",
                "a call cannot run under itself",
            ),
            E::MessageId(at, e) => V::new(format!("{at}.message_id"), e),
            E::Role(e) => V::new("message_started.role", e),
            E::StopReason(e) => V::new("turn_finished.stop_reason", e),
            E::Permission(e) => e.violation(),
        }
    }
}

violation_error!(ToolEventError);

impl From<PermissionEventError> for ToolEventError {
    fn from(e: PermissionEventError) -> Self {
        ToolEventError::Permission(e)
    }
}

/// A message role from the wire.
pub fn role_from_pb(n: i32) -> Result<d::MessageRole, EnumError> {
    match pb::MessageRole::try_from(n).map_err(|_| EnumError::Unknown(n))? {
        pb::MessageRole::Unspecified => Err(EnumError::Unset),
        pb::MessageRole::User => Ok(d::MessageRole::User),
        pb::MessageRole::Assistant => Ok(d::MessageRole::Assistant),
        pb::MessageRole::Reasoning => Ok(d::MessageRole::Reasoning),
    }
}

/// A message role on the wire.
pub fn role_to_pb(r: d::MessageRole) -> pb::MessageRole {
    match r {
        d::MessageRole::User => pb::MessageRole::User,
        d::MessageRole::Assistant => pb::MessageRole::Assistant,
        d::MessageRole::Reasoning => pb::MessageRole::Reasoning,
    }
}

/// A stop reason from the wire.
pub fn stop_reason_from_pb(n: i32) -> Result<d::StopReason, EnumError> {
    Ok(
        match pb::StopReason::try_from(n).map_err(|_| EnumError::Unknown(n))? {
            pb::StopReason::Unspecified => d::StopReason::Unspecified,
            pb::StopReason::EndTurn => d::StopReason::EndTurn,
            pb::StopReason::MaxTokens => d::StopReason::MaxTokens,
            pb::StopReason::MaxTurnRequests => d::StopReason::MaxTurnRequests,
            pb::StopReason::Refusal => d::StopReason::Refusal,
            pb::StopReason::Cancelled => d::StopReason::Cancelled,
        },
    )
}

/// A stop reason on the wire.
pub fn stop_reason_to_pb(r: d::StopReason) -> pb::StopReason {
    match r {
        d::StopReason::Unspecified => pb::StopReason::Unspecified,
        d::StopReason::EndTurn => pb::StopReason::EndTurn,
        d::StopReason::MaxTokens => pb::StopReason::MaxTokens,
        d::StopReason::MaxTurnRequests => pb::StopReason::MaxTurnRequests,
        d::StopReason::Refusal => pb::StopReason::Refusal,
        d::StopReason::Cancelled => pb::StopReason::Cancelled,
    }
}

impl From<pb::TokenUsage> for d::TokenUsage {
    fn from(u: pb::TokenUsage) -> Self {
        let pb::TokenUsage {
            input_tokens,
            output_tokens,
            cached_input_tokens,
            reasoning_tokens,
            context_tokens,
            context_window,
        } = u;
        d::TokenUsage {
            input_tokens,
            output_tokens,
            cached_input_tokens,
            reasoning_tokens,
            context_tokens,
            context_window,
        }
    }
}

impl From<d::TokenUsage> for pb::TokenUsage {
    fn from(u: d::TokenUsage) -> Self {
        let d::TokenUsage {
            input_tokens,
            output_tokens,
            cached_input_tokens,
            reasoning_tokens,
            context_tokens,
            context_window,
        } = u;
        pb::TokenUsage {
            input_tokens,
            output_tokens,
            cached_input_tokens,
            reasoning_tokens,
            context_tokens,
            context_window,
        }
    }
}

impl TryFrom<pb::ToolEvent> for d::ToolEvent {
    type Error = ToolEventError;
    fn try_from(e: pb::ToolEvent) -> Result<Self, Self::Error> {
        use ToolEventError as E;
        let pb::ToolEvent {
            session_id,
            event_id,
            event,
        } = e;
        Ok(d::ToolEvent {
            session_id: d::SessionId::new(session_id).map_err(E::SessionId)?,
            event_id: d::EventId::new(event_id).map_err(E::EventId)?,
            body: body(event.ok_or(E::EventUnset)?)?,
        })
    }
}

/// What an event says, checked.
fn body(event: pb::tool_event::Event) -> Result<d::EventBody, ToolEventError> {
    use ToolEventError as E;
    use pb::tool_event::Event;
    let call_id = |field, id| d::CallId::new(id).map_err(|e| E::CallId(field, e));
    let turn_id = |field, id| d::TurnId::new(id).map_err(|e| E::TurnId(field, e));
    let message_id = |field, id| d::MessageId::new(id).map_err(|e| E::MessageId(field, e));
    Ok(match event {
        Event::SessionStarted(pb::SessionStarted { cwd }) => {
            d::EventBody::SessionStarted(d::SessionStarted { cwd })
        }
        Event::SessionEnded(pb::SessionEnded { reason }) => {
            // Display text: kept to its limit, never refused.
            let reason = d::permission::cut(&reason, d::MAX_END_REASON_BYTES).to_owned();
            d::EventBody::SessionEnded(d::SessionEnded { reason })
        }
        Event::CallStarted(started) => d::EventBody::CallStarted(call_started(started)?),
        Event::CallInputDelta(pb::ToolCallInputDelta { call_id: id, text }) => {
            d::EventBody::CallInputDelta(d::CallInputDelta {
                call_id: call_id("call_input_delta", id)?,
                text,
            })
        }
        Event::CallInputComplete(complete) => {
            d::EventBody::CallInputComplete(call_input_complete(complete)?)
        }
        Event::CallOutput(pb::ToolCallOutput { call_id: id, data }) => {
            d::EventBody::CallOutput(d::CallOutput {
                call_id: call_id("call_output", id)?,
                data,
            })
        }
        Event::CallFinished(finished) => d::EventBody::CallFinished(call_finished(finished)?),
        Event::TurnStarted(pb::TurnStarted { turn_id: id }) => {
            d::EventBody::TurnStarted(d::TurnStarted {
                turn_id: turn_id("turn_started", id)?,
            })
        }
        Event::TurnFinished(finished) => d::EventBody::TurnFinished(turn_finished(finished)?),
        Event::MessageStarted(started) => d::EventBody::MessageStarted(message_started(started)?),
        Event::MessageDelta(pb::MessageDelta {
            message_id: id,
            text,
        }) => d::EventBody::MessageDelta(d::MessageDelta {
            message_id: message_id("message_delta", id)?,
            text,
        }),
        Event::MessageFinished(pb::MessageFinished { message_id: id }) => {
            d::EventBody::MessageFinished(d::MessageFinished {
                message_id: message_id("message_finished", id)?,
            })
        }
        Event::PermissionRequested(r) => {
            d::EventBody::PermissionRequested(permissions::requested_from_pb(r)?)
        }
        Event::PermissionResolved(r) => {
            d::EventBody::PermissionResolved(permissions::resolved_from_pb(r)?)
        }
    })
}

fn turn_finished(finished: pb::TurnFinished) -> Result<d::TurnFinished, ToolEventError> {
    use ToolEventError as E;
    let pb::TurnFinished {
        turn_id,
        stop_reason,
        usage,
    } = finished;
    Ok(d::TurnFinished {
        turn_id: d::TurnId::new(turn_id).map_err(|e| E::TurnId("turn_finished", e))?,
        stop_reason: stop_reason_from_pb(stop_reason).map_err(E::StopReason)?,
        usage: usage.map(Into::into),
    })
}

fn call_started(started: pb::ToolCallStarted) -> Result<d::CallStarted, ToolEventError> {
    use ToolEventError as E;
    let pb::ToolCallStarted {
        call_id,
        tool_name,
        arguments_json,
        view,
        input_streaming,
        parent_call_id,
    } = started;
    let parent = parent("call_started", parent_call_id)?;
    if parent.as_ref().is_some_and(|p| p.as_str() == call_id) {
        return Err(E::OwnParent);
    }
    Ok(d::CallStarted {
        input_streaming,
        parent,
        call_id: d::CallId::new(call_id).map_err(|e| E::CallId("call_started", e))?,
        tool_name,
        arguments_json,
        view: call_view("call_started", view)?,
    })
}

/// A call view from the wire, its errors under `event`.
fn call_view(
    event: &'static str,
    view: Option<pb::ToolCallView>,
) -> Result<Option<d::ToolCallView>, ToolEventError> {
    view.map(d::ToolCallView::try_from)
        .transpose()
        .map_err(|e| ToolEventError::CallView(event, e))
}

fn call_input_complete(
    complete: pb::ToolCallInputComplete,
) -> Result<d::CallInputComplete, ToolEventError> {
    let pb::ToolCallInputComplete {
        call_id,
        arguments_json,
        view,
    } = complete;
    Ok(d::CallInputComplete {
        call_id: d::CallId::new(call_id)
            .map_err(|e| ToolEventError::CallId("call_input_complete", e))?,
        arguments_json,
        view: call_view("call_input_complete", view)?,
    })
}

fn message_started(started: pb::MessageStarted) -> Result<d::MessageStarted, ToolEventError> {
    use ToolEventError as E;
    let pb::MessageStarted {
        message_id,
        role,
        text,
        parent_call_id,
    } = started;
    Ok(d::MessageStarted {
        message_id: d::MessageId::new(message_id)
            .map_err(|e| E::MessageId("message_started", e))?,
        role: role_from_pb(role).map_err(E::Role)?,
        text,
        parent: parent("message_started", parent_call_id)?,
    })
}

/// A parent call id: empty is none.
fn parent(event: &'static str, id: String) -> Result<Option<d::CallId>, ToolEventError> {
    (!id.is_empty())
        .then(|| d::CallId::new(id).map_err(|e| ToolEventError::ParentCallId(event, e)))
        .transpose()
}

fn call_finished(finished: pb::ToolCallFinished) -> Result<d::CallFinished, ToolEventError> {
    use ToolEventError as E;
    let pb::ToolCallFinished {
        call_id,
        content,
        is_error,
        meta_json,
        view,
    } = finished;
    let call_id = d::CallId::new(call_id).map_err(|e| E::CallId("call_finished", e))?;
    let content = each(content, |i, e| E::Content(Indexed("content", i, e)))?;
    check_meta_json(&meta_json).map_err(E::Meta)?;
    Ok(d::CallFinished {
        call_id,
        content,
        is_error,
        meta_json,
        view: view
            .map(d::ToolResultView::try_from)
            .transpose()
            .map_err(E::ResultView)?,
    })
}

impl From<d::ToolEvent> for pb::ToolEvent {
    fn from(e: d::ToolEvent) -> Self {
        use pb::tool_event::Event;
        let event = match e.body {
            d::EventBody::SessionStarted(s) => {
                Event::SessionStarted(pb::SessionStarted { cwd: s.cwd })
            }
            d::EventBody::SessionEnded(s) => {
                Event::SessionEnded(pb::SessionEnded { reason: s.reason })
            }
            d::EventBody::CallStarted(s) => Event::CallStarted(pb::ToolCallStarted {
                call_id: s.call_id.to_string(),
                tool_name: s.tool_name,
                arguments_json: s.arguments_json,
                view: s.view.map(Into::into),
                input_streaming: s.input_streaming,
                parent_call_id: s.parent.map(String::from).unwrap_or_default(),
            }),
            d::EventBody::CallInputDelta(i) => Event::CallInputDelta(pb::ToolCallInputDelta {
                call_id: i.call_id.to_string(),
                text: i.text,
            }),
            d::EventBody::CallInputComplete(i) => {
                Event::CallInputComplete(pb::ToolCallInputComplete {
                    call_id: i.call_id.to_string(),
                    arguments_json: i.arguments_json,
                    view: i.view.map(Into::into),
                })
            }
            d::EventBody::CallOutput(o) => Event::CallOutput(pb::ToolCallOutput {
                call_id: o.call_id.to_string(),
                data: o.data,
            }),
            d::EventBody::CallFinished(f) => Event::CallFinished(pb::ToolCallFinished {
                call_id: f.call_id.to_string(),
                content: f.content.into_iter().map(Into::into).collect(),
                is_error: f.is_error,
                meta_json: f.meta_json,
                view: f.view.map(Into::into),
            }),
            d::EventBody::TurnStarted(t) => Event::TurnStarted(pb::TurnStarted {
                turn_id: t.turn_id.to_string(),
            }),
            d::EventBody::TurnFinished(t) => Event::TurnFinished(pb::TurnFinished {
                turn_id: t.turn_id.to_string(),
                stop_reason: stop_reason_to_pb(t.stop_reason).into(),
                usage: t.usage.map(Into::into),
            }),
            d::EventBody::MessageStarted(m) => Event::MessageStarted(pb::MessageStarted {
                message_id: m.message_id.to_string(),
                role: role_to_pb(m.role).into(),
                text: m.text,
                parent_call_id: m.parent.map(String::from).unwrap_or_default(),
            }),
            d::EventBody::MessageDelta(m) => Event::MessageDelta(pb::MessageDelta {
                message_id: m.message_id.to_string(),
                text: m.text,
            }),
            d::EventBody::PermissionRequested(r) => Event::PermissionRequested(r.into()),
            d::EventBody::PermissionResolved(r) => Event::PermissionResolved(r.into()),
            d::EventBody::MessageFinished(m) => Event::MessageFinished(pb::MessageFinished {
                message_id: m.message_id.to_string(),
            }),
        };
        pb::ToolEvent {
            session_id: e.session_id.to_string(),
            event_id: e.event_id.to_string(),
            event: Some(event),
        }
    }
}

/// Converts a batch, naming the failing event: `events[2].call_started.view.card: not set`.
pub fn events_from_pb(
    events: Vec<pb::ToolEvent>,
) -> Result<Vec<d::ToolEvent>, Indexed<ToolEventError>> {
    each(events, |i, e| Indexed("events", i, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::tool_event::Event;

    fn started(view: Option<pb::ToolCallView>) -> pb::ToolEvent {
        pb::ToolEvent {
            session_id: "s1".into(),
            event_id: "e1".into(),
            event: Some(Event::CallStarted(pb::ToolCallStarted {
                parent_call_id: String::new(),
                input_streaming: false,
                call_id: "c1".into(),
                tool_name: "bash".into(),
                arguments_json: "{}".into(),
                view,
            })),
        }
    }

    #[test]
    fn batch_errors_name_index_and_field() {
        let ok = started(None);
        let bad = started(Some(pb::ToolCallView { card: None }));
        let err = events_from_pb(vec![ok.clone(), ok, bad]).unwrap_err();
        assert_eq!(err.to_string(), "events[2].call_started.view.card: not set");
    }

    #[test]
    fn ids_and_meta_are_checked() {
        let mut e = started(None);
        e.session_id = "has space".into();
        assert_eq!(
            d::ToolEvent::try_from(e).unwrap_err().to_string(),
            "session_id: may only contain [A-Za-z0-9._:-], found ' '"
        );
        let mut e = started(None);
        e.event = None;
        assert_eq!(
            d::ToolEvent::try_from(e).unwrap_err().to_string(),
            "event: not set"
        );
        let finished = pb::ToolEvent {
            session_id: "s".into(),
            event_id: "e".into(),
            event: Some(Event::CallFinished(pb::ToolCallFinished {
                call_id: "x".repeat(129),
                ..Default::default()
            })),
        };
        assert_eq!(
            d::ToolEvent::try_from(finished).unwrap_err().to_string(),
            "call_finished.call_id: must be at most 128 characters, got 129"
        );
        assert!(check_meta_json("").is_ok());
        assert!(check_meta_json("{\"a\":1}").is_ok());
        assert!(check_meta_json("{").is_err());
    }

    #[test]
    fn events_round_trip() {
        let e = started(Some(pb::ToolCallView {
            card: Some(pb::tool_call_view::Card::Terminal(pb::TerminalCallView {
                title: "ls".into(),
                description: None,
                cwd: Some("/w".into()),
            })),
        }));
        let domain = d::ToolEvent::try_from(e.clone()).unwrap();
        assert_eq!(pb::ToolEvent::from(domain), e);
        let conversation = [
            Event::TurnStarted(pb::TurnStarted {
                turn_id: "t1".into(),
            }),
            Event::MessageStarted(pb::MessageStarted {
                parent_call_id: String::new(),
                message_id: "m1".into(),
                role: pb::MessageRole::Reasoning.into(),
                text: "hm".into(),
            }),
            Event::MessageDelta(pb::MessageDelta {
                message_id: "m1".into(),
                text: "…".into(),
            }),
            Event::MessageFinished(pb::MessageFinished {
                message_id: "m1".into(),
            }),
            Event::TurnFinished(pb::TurnFinished {
                turn_id: "t1".into(),
                stop_reason: pb::StopReason::MaxTokens.into(),
                usage: Some(pb::TokenUsage {
                    input_tokens: 3,
                    context_window: 9,
                    ..Default::default()
                }),
            }),
        ];
        for event in conversation {
            let e = pb::ToolEvent {
                session_id: "s".into(),
                event_id: "e".into(),
                event: Some(event),
            };
            let domain = d::ToolEvent::try_from(e.clone()).unwrap();
            assert_eq!(pb::ToolEvent::from(domain), e);
        }
    }

    #[test]
    fn conversation_fields_are_named() {
        let event = |event| pb::ToolEvent {
            session_id: "s".into(),
            event_id: "e".into(),
            event: Some(event),
        };
        let error = |e| d::ToolEvent::try_from(event(e)).unwrap_err().to_string();
        assert_eq!(
            error(Event::MessageStarted(pb::MessageStarted::default())),
            "message_started.message_id: must not be empty"
        );
        let unset = pb::MessageStarted {
            message_id: "m".into(),
            ..Default::default()
        };
        assert_eq!(
            error(Event::MessageStarted(unset.clone())),
            "message_started.role: not set"
        );
        let unknown = pb::MessageStarted { role: 42, ..unset };
        assert_eq!(
            error(Event::MessageStarted(unknown)),
            "message_started.role: unknown value 42"
        );
        let finished = pb::TurnFinished {
            turn_id: "t".into(),
            stop_reason: -1,
            usage: None,
        };
        assert_eq!(
            error(Event::TurnFinished(finished)),
            "turn_finished.stop_reason: unknown value -1"
        );
        assert_eq!(
            error(Event::MessageDelta(pb::MessageDelta {
                message_id: "a/b".into(),
                text: String::new(),
            })),
            "message_delta.message_id: may only contain [A-Za-z0-9._:-], found '/'"
        );
    }
}
