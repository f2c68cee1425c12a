//! What a harness may publish, whatever edge it comes through (gRPC `Publish`, OTLP): not a
//! permission request's resolution, nor an event id of the kind the server gives resolutions
//! (the server appends those, so the first answer wins), nor a request whose timeout is past
//! `--max-permission-timeout`.

use std::time::Duration;

use super::{Ack, SessionError, Sessions};
use crate::domain::permission::RESOLUTION_ID_PREFIX;
use crate::domain::{EventBody, FieldViolation, ToolEvent, Violation, violation_error};

/// Why a harness's batch is refused: the first event that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HarnessRefusal {
    /// An event id of the kind the server gives a resolution.
    ReservedId {
        /// The event's place in the batch.
        index: usize,
        /// Its id.
        id: String,
    },
    /// A resolution.
    Resolution {
        /// The event's place in the batch.
        index: usize,
    },
    /// A request waiting longer than the server allows.
    Timeout {
        /// The event's place in the batch.
        index: usize,
        /// The limit, in milliseconds.
        max: u64,
        /// What the request asked for.
        got: u64,
    },
}

impl Violation for HarnessRefusal {
    fn violation(&self) -> FieldViolation {
        match self {
            HarnessRefusal::ReservedId { index, id } => FieldViolation::new(
                format!("events[{index}].event_id"),
                format!(
                    "{id:?} is reserved: the server gives a permission request's resolution the \
                     id {RESOLUTION_ID_PREFIX}<request id>"
                ),
            ),
            HarnessRefusal::Resolution { index } => FieldViolation::new(
                format!("events[{index}].permission_resolved"),
                "only the server appends a resolution (answer with \
                 PermissionService.RespondPermission)",
            ),
            HarnessRefusal::Timeout { index, max, got } => FieldViolation::new(
                format!("events[{index}].permission_requested.timeout_ms"),
                format!("at most {max} (--max-permission-timeout), got {got}"),
            ),
        }
    }
}

violation_error!(HarnessRefusal);

/// The first rule `events` break, if any.
pub fn check(events: &[ToolEvent], max_timeout: Duration) -> Result<(), HarnessRefusal> {
    let max = u64::try_from(max_timeout.as_millis()).unwrap_or(u64::MAX);
    for (index, e) in events.iter().enumerate() {
        if e.event_id.as_str().starts_with(RESOLUTION_ID_PREFIX) {
            let id = e.event_id.to_string();
            return Err(HarnessRefusal::ReservedId { index, id });
        }
        match &e.body {
            EventBody::PermissionResolved(_) => return Err(HarnessRefusal::Resolution { index }),
            EventBody::PermissionRequested(r) if r.timeout_ms > max => {
                let got = r.timeout_ms;
                return Err(HarnessRefusal::Timeout { index, max, got });
            }
            EventBody::SessionStarted(_)
            | EventBody::SessionEnded(_)
            | EventBody::CallStarted(_)
            | EventBody::CallInputDelta(_)
            | EventBody::CallInputComplete(_)
            | EventBody::CallOutput(_)
            | EventBody::CallFinished(_)
            | EventBody::TurnStarted(_)
            | EventBody::TurnFinished(_)
            | EventBody::MessageStarted(_)
            | EventBody::MessageDelta(_)
            | EventBody::MessageFinished(_)
            | EventBody::PermissionRequested(_) => {}
        }
    }
    Ok(())
}

impl Sessions {
    /// Publishes a harness's batch: refused whole if an event breaks a harness rule (the module
    /// doc), else as [`Sessions::publish`].
    pub async fn publish_from_harness(
        &self,
        events: Vec<ToolEvent>,
    ) -> Result<Vec<Ack>, SessionError> {
        check(&events, self.max_permission_timeout())?;
        self.publish(events).await
    }
}
