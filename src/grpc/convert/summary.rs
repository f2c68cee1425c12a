//! Session summaries between the domain and the wire: the API's `SessionSummary` (also what
//! the storage records keep, beside the fold's one hidden field), and times as `Timestamp`s.

use super::enums::EnumError;
use super::events::{stop_reason_from_pb, stop_reason_to_pb};
use super::permissions::option_from_pb;
use crate::domain::{PendingPrompt, SessionState, SessionSummary};
use crate::grpc::pb;

/// Unix milliseconds as a `Timestamp`.
pub fn timestamp(ms: u64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: (ms / 1000) as i64,
        nanos: ((ms % 1000) * 1_000_000) as i32,
    }
}

/// A `Timestamp` as Unix milliseconds (before 1970: 0).
pub fn millis(t: &prost_types::Timestamp) -> u64 {
    let ms = t.seconds.saturating_mul(1000) + i64::from(t.nanos / 1_000_000);
    u64::try_from(ms).unwrap_or(0)
}

/// A state on the wire.
pub fn state_to_pb(s: SessionState) -> pb::SessionState {
    match s {
        SessionState::RequiresAction => pb::SessionState::RequiresAction,
        SessionState::Running => pb::SessionState::Running,
        SessionState::Failed => pb::SessionState::Failed,
        SessionState::Idle => pb::SessionState::Idle,
        SessionState::Ended => pb::SessionState::Ended,
    }
}

/// A state's name as the docs write it (`requires_action`; `unknown` for an unset one).
pub fn state_name(s: pb::SessionState) -> &'static str {
    match s {
        pb::SessionState::Unspecified => "unknown",
        pb::SessionState::RequiresAction => "requires_action",
        pb::SessionState::Running => "running",
        pb::SessionState::Failed => "failed",
        pb::SessionState::Idle => "idle",
        pb::SessionState::Ended => "ended",
    }
}

/// A state from the wire; `SESSION_STATE_UNSPECIFIED` and unknown values are errors.
pub fn state_from_pb(n: i32) -> Result<SessionState, EnumError> {
    match pb::SessionState::try_from(n) {
        Ok(pb::SessionState::RequiresAction) => Ok(SessionState::RequiresAction),
        Ok(pb::SessionState::Running) => Ok(SessionState::Running),
        Ok(pb::SessionState::Failed) => Ok(SessionState::Failed),
        Ok(pb::SessionState::Idle) => Ok(SessionState::Idle),
        Ok(pb::SessionState::Ended) => Ok(SessionState::Ended),
        Ok(pb::SessionState::Unspecified) => Err(EnumError::Unset),
        Err(_) => Err(EnumError::Unknown(n)),
    }
}

impl From<&SessionSummary> for pb::SessionSummary {
    fn from(s: &SessionSummary) -> Self {
        pb::SessionSummary {
            state: state_to_pb(s.state()) as i32,
            pending: s.pending.iter().map(prompt_to_pb).collect(),
            pending_count: s.pending_count,
            open_calls: s.open_calls,
            open_turns: s.open_turns,
            turns: s.turns,
            failed_calls: s.failed_calls,
            last_stop: s.last_stop.map(|r| stop_reason_to_pb(r) as i32),
            activity: s.activity.clone(),
            activity_at: Some(timestamp(s.activity_ms)),
            usage: Some(s.usage.into()),
        }
    }
}

fn prompt_to_pb(p: &PendingPrompt) -> pb::PendingPrompt {
    pb::PendingPrompt {
        request_id: p.request_id.clone(),
        call_id: p.call_id.clone(),
        title: p.title.clone(),
        options: p.options.iter().cloned().map(Into::into).collect(),
        requested_at: Some(timestamp(p.requested_ms)),
        expires_at: Some(timestamp(p.expires_at_ms)),
    }
}

/// A stored summary back, with the fold's hidden field. The state is derived, not read — but
/// for `ended`, which only the state says (it ranks first, so it is exactly the flag).
pub fn summary_from_pb(
    s: pb::SessionSummary,
    awaiting_message_id: String,
) -> Result<SessionSummary, String> {
    let pb::SessionSummary {
        state,
        pending,
        pending_count,
        open_calls,
        open_turns,
        turns,
        failed_calls,
        last_stop,
        activity,
        activity_at,
        usage,
    } = s;
    let pending = pending
        .into_iter()
        .enumerate()
        .map(|(i, p)| prompt_from_pb(p).map_err(|e| format!("pending[{i}].{e}")))
        .collect::<Result<_, _>>()?;
    let last_stop = last_stop
        .map(stop_reason_from_pb)
        .transpose()
        .map_err(|e| format!("last_stop: {e}"))?;
    Ok(SessionSummary {
        pending,
        pending_count,
        open_calls,
        open_turns,
        turns,
        failed_calls,
        last_stop,
        activity,
        activity_ms: activity_at.as_ref().map(millis).unwrap_or(0),
        usage: usage.map(Into::into).unwrap_or_default(),
        ended: state == pb::SessionState::Ended as i32,
        awaiting_message_id,
    })
}

fn prompt_from_pb(p: pb::PendingPrompt) -> Result<PendingPrompt, String> {
    let pb::PendingPrompt {
        request_id,
        call_id,
        title,
        options,
        requested_at,
        expires_at,
    } = p;
    let options = options
        .into_iter()
        .enumerate()
        .map(|(i, o)| option_from_pb(o).map_err(|e| format!("options[{i}].kind: {e}")))
        .collect::<Result<_, String>>()?;
    Ok(PendingPrompt {
        request_id,
        call_id,
        title,
        options,
        requested_ms: requested_at.as_ref().map(millis).unwrap_or(0),
        expires_at_ms: expires_at.as_ref().map(millis).unwrap_or(0),
    })
}
