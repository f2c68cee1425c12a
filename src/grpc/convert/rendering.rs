//! Targets, capabilities and rendered updates.

use super::events::{
    EnumError, ToolEventError, events_from_pb, role_from_pb, role_to_pb, stop_reason_from_pb,
    stop_reason_to_pb,
};
use super::permissions::{PermissionEventError, requested_from_pb, resolved_from_pb};
use super::results::ToolResultViewError;
use super::views::{Indexed, ToolCallViewError};
use crate::domain::{self as d, Cursor, Epoch, EpochError};
use crate::domain::{FieldViolation, Violation, violation_error};
use crate::grpc::pb;
use crate::render::{
    Body, CallStatus, Capabilities, CardSnapshot, Children, MAX_DEPTH, MessageStatus,
    PermissionSnapshot, Rendered, Target, ViewUpdate, json_text,
};

/// An unset or unknown target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetError(pub i32);

impl Violation for TargetError {
    fn violation(&self) -> FieldViolation {
        let problem = format!(
            "unknown target {} (use VIEW, ACP, AG_UI, MARKDOWN, ANSI or AI_SDK)",
            self.0
        );
        FieldViolation::new("target", problem)
    }
}

violation_error!(TargetError);

/// The target of a request; `TARGET_UNSPECIFIED` and unknown values are errors.
pub fn target_from_pb(t: i32) -> Result<Target, TargetError> {
    use pb::Target as T;
    match T::try_from(t) {
        Ok(T::View) => Ok(Target::View),
        Ok(T::Acp) => Ok(Target::Acp),
        Ok(T::AgUi) => Ok(Target::AgUi),
        Ok(T::Markdown) => Ok(Target::Markdown),
        Ok(T::Ansi) => Ok(Target::Ansi),
        Ok(T::AiSdk) => Ok(Target::AiSdk),
        Ok(T::Unspecified) | Err(_) => Err(TargetError(t)),
    }
}

impl From<Target> for pb::Target {
    fn from(t: Target) -> Self {
        match t {
            Target::View => pb::Target::View,
            Target::Acp => pb::Target::Acp,
            Target::AgUi => pb::Target::AgUi,
            Target::Markdown => pb::Target::Markdown,
            Target::Ansi => pb::Target::Ansi,
            Target::AiSdk => pb::Target::AiSdk,
        }
    }
}

impl From<pb::Capabilities> for Capabilities {
    fn from(c: pb::Capabilities) -> Self {
        let pb::Capabilities {
            terminal,
            diff,
            read,
            search,
            web,
            max_output_bytes,
            tool_colors,
            output_appends,
            reasoning,
        } = c;
        Capabilities {
            terminal,
            diff,
            read,
            search,
            web,
            max_output_bytes,
            tool_colors,
            output_appends,
            reasoning,
        }
    }
}

impl From<Capabilities> for pb::Capabilities {
    fn from(c: Capabilities) -> Self {
        let Capabilities {
            terminal,
            diff,
            read,
            search,
            web,
            max_output_bytes,
            tool_colors,
            output_appends,
            reasoning,
        } = c;
        pb::Capabilities {
            terminal,
            diff,
            read,
            search,
            web,
            max_output_bytes,
            tool_colors,
            output_appends,
            reasoning,
        }
    }
}

fn status_to_pb(s: CallStatus) -> i32 {
    (match s {
        CallStatus::Pending => pb::CallStatus::Pending,
        CallStatus::InProgress => pb::CallStatus::InProgress,
        CallStatus::Completed => pb::CallStatus::Completed,
        CallStatus::Failed => pb::CallStatus::Failed,
    }) as i32
}

impl From<CardSnapshot> for pb::CardSnapshot {
    fn from(c: CardSnapshot) -> Self {
        let CardSnapshot {
            call_id,
            tool_name,
            status,
            call,
            result,
            streamed,
            input,
            parent_call_id,
            depth,
            children,
            mcp_app,
        } = c;
        pb::CardSnapshot {
            call_id,
            tool_name,
            status: status_to_pb(status),
            call: call.map(Into::into),
            result: result.map(Into::into),
            streamed,
            input,
            parent_call_id,
            depth: depth.into(),
            children: children.map(|c| pb::ChildProgress {
                running: c.running,
                done: c.done,
                failed: c.failed,
                latest: c.latest,
            }),
            mcp_app: mcp_app.map(|a| pb::McpAppRef {
                resource_uri: a.resource_uri,
                server_id: a.server_id,
                server_hash: a.server_hash,
                structured_content_json: a
                    .structured_content
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
            }),
        }
    }
}

impl From<ViewUpdate> for pb::ViewUpdate {
    fn from(v: ViewUpdate) -> Self {
        use pb::view_update::Update;
        let update = match v {
            ViewUpdate::Card(c) => Update::Card((*c).into()),
            ViewUpdate::Session { cwd } => Update::Session(pb::SessionHeader {
                cwd: cwd.unwrap_or_default(),
            }),
            ViewUpdate::SessionEnded { reason } => {
                Update::SessionEnded(pb::SessionEndedUpdate { reason })
            }
            ViewUpdate::OutputAppended { call_id, text } => {
                Update::OutputAppended(pb::OutputAppended { call_id, text })
            }
            ViewUpdate::InputAppended { call_id, text } => {
                Update::InputAppended(pb::InputAppended { call_id, text })
            }
            ViewUpdate::Message {
                message_id,
                role,
                text,
                status,
                parent_call_id,
                depth,
            } => Update::Message(pb::MessageSnapshot {
                message_id,
                role: role_to_pb(role).into(),
                text,
                parent_call_id,
                depth: depth.into(),
                status: match status {
                    MessageStatus::Streaming => pb::MessageStatus::Streaming,
                    MessageStatus::Complete => pb::MessageStatus::Complete,
                }
                .into(),
            }),
            ViewUpdate::MessageAppended { message_id, text } => {
                Update::MessageAppended(pb::MessageAppended { message_id, text })
            }
            ViewUpdate::Turn {
                turn_id,
                finished,
                stop_reason,
                usage,
            } => Update::Turn(pb::TurnUpdate {
                turn_id,
                finished,
                stop_reason: stop_reason
                    .map_or(pb::StopReason::Unspecified, stop_reason_to_pb)
                    .into(),
                usage: usage.map(Into::into),
            }),
            ViewUpdate::Permission(p) => Update::Permission(pb::PermissionSnapshot {
                request: Some(p.request.into()),
                resolution: p.resolution.map(Into::into),
            }),
            ViewUpdate::Unchanged => return pb::ViewUpdate { update: None },
        };
        pb::ViewUpdate {
            update: Some(update),
        }
    }
}

/// A VIEW update a client could not read (a newer server's, or a broken one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewUpdateError {
    /// An unknown call status.
    Status(i32),
    /// A bad call view.
    Call(ToolCallViewError),
    /// A bad result view.
    Result(ToolResultViewError),
    /// An unset or unknown message role.
    Role(EnumError),
    /// An unknown message status.
    MessageStatus(i32),
    /// An unknown stop reason.
    StopReason(EnumError),
    /// A bad permission request or resolution.
    Permission(PermissionEventError),
    /// A permission snapshot without its request.
    PermissionUnset,
}

impl Violation for ViewUpdateError {
    fn violation(&self) -> FieldViolation {
        use FieldViolation as V;
        use ViewUpdateError as E;
        match self {
            E::Status(n) => V::new("card.status", format!("unknown status {n}")),
            E::Call(e) => e.violation().under("card.call"),
            E::Result(e) => e.violation().under("card.result"),
            E::Role(e) => V::new("message.role", e),
            E::MessageStatus(n) => V::new("message.status", format!("unknown status {n}")),
            E::StopReason(e) => V::new("turn.stop_reason", e),
            E::Permission(e) => e.violation().under("permission"),
            E::PermissionUnset => V::new("permission.request", "not set"),
        }
    }
}

violation_error!(ViewUpdateError);

/// A VIEW update as a client reads it (`toolview tail` draws cards from them).
impl TryFrom<pb::ViewUpdate> for ViewUpdate {
    type Error = ViewUpdateError;
    fn try_from(v: pb::ViewUpdate) -> Result<Self, ViewUpdateError> {
        use pb::view_update::Update;
        let pb::ViewUpdate { update } = v;
        Ok(match update {
            None => ViewUpdate::Unchanged,
            Some(Update::Session(pb::SessionHeader { cwd })) => ViewUpdate::Session {
                cwd: (!cwd.is_empty()).then_some(cwd),
            },
            Some(Update::SessionEnded(pb::SessionEndedUpdate { reason })) => {
                ViewUpdate::SessionEnded { reason }
            }
            Some(Update::OutputAppended(pb::OutputAppended { call_id, text })) => {
                ViewUpdate::OutputAppended { call_id, text }
            }
            Some(Update::InputAppended(pb::InputAppended { call_id, text })) => {
                ViewUpdate::InputAppended { call_id, text }
            }
            Some(Update::MessageAppended(pb::MessageAppended { message_id, text })) => {
                ViewUpdate::MessageAppended { message_id, text }
            }
            Some(Update::Message(pb::MessageSnapshot {
                message_id,
                role,
                text,
                status,
                parent_call_id,
                depth,
            })) => ViewUpdate::Message {
                message_id,
                role: role_from_pb(role).map_err(ViewUpdateError::Role)?,
                text,
                parent_call_id,
                depth: depth_from_pb(depth),
                status: match pb::MessageStatus::try_from(status) {
                    Ok(pb::MessageStatus::Streaming) => MessageStatus::Streaming,
                    Ok(pb::MessageStatus::Complete) => MessageStatus::Complete,
                    Ok(pb::MessageStatus::Unspecified) | Err(_) => {
                        return Err(ViewUpdateError::MessageStatus(status));
                    }
                },
            },
            Some(Update::Turn(pb::TurnUpdate {
                turn_id,
                finished,
                stop_reason,
                usage,
            })) => ViewUpdate::Turn {
                turn_id,
                finished,
                stop_reason: finished
                    .then(|| stop_reason_from_pb(stop_reason))
                    .transpose()
                    .map_err(ViewUpdateError::StopReason)?,
                usage: usage.map(Into::into),
            },
            Some(Update::Permission(pb::PermissionSnapshot {
                request,
                resolution,
            })) => {
                let request = request.ok_or(ViewUpdateError::PermissionUnset)?;
                ViewUpdate::Permission(Box::new(PermissionSnapshot {
                    request: requested_from_pb(request).map_err(ViewUpdateError::Permission)?,
                    resolution: resolution
                        .map(resolved_from_pb)
                        .transpose()
                        .map_err(ViewUpdateError::Permission)?,
                }))
            }
            Some(Update::Card(c)) => ViewUpdate::Card(Box::new(card_from_pb(c)?)),
        })
    }
}

/// A card snapshot as a client reads it.
fn card_from_pb(c: pb::CardSnapshot) -> Result<CardSnapshot, ViewUpdateError> {
    let pb::CardSnapshot {
        call_id,
        tool_name,
        status,
        call,
        result,
        streamed,
        input,
        parent_call_id,
        depth,
        children,
        mcp_app,
    } = c;
    let status = match pb::CallStatus::try_from(status) {
        Ok(pb::CallStatus::Pending) => CallStatus::Pending,
        Ok(pb::CallStatus::InProgress) => CallStatus::InProgress,
        Ok(pb::CallStatus::Completed) => CallStatus::Completed,
        Ok(pb::CallStatus::Failed) => CallStatus::Failed,
        Ok(pb::CallStatus::Unspecified) | Err(_) => {
            return Err(ViewUpdateError::Status(status));
        }
    };
    Ok(CardSnapshot {
        call_id,
        tool_name,
        status,
        call: call
            .map(d::ToolCallView::try_from)
            .transpose()
            .map_err(ViewUpdateError::Call)?,
        result: result
            .map(d::ToolResultView::try_from)
            .transpose()
            .map_err(ViewUpdateError::Result)?,
        streamed,
        input,
        parent_call_id,
        depth: depth_from_pb(depth),
        children: children.map(|c| Children {
            running: c.running,
            done: c.done,
            failed: c.failed,
            latest: c.latest,
        }),
        // A client reads the reference; bad JSON text is no structured content.
        mcp_app: mcp_app.map(|a| d::McpApp {
            resource_uri: a.resource_uri,
            server_id: a.server_id,
            server_hash: a.server_hash,
            structured_content: serde_json::from_str(&a.structured_content_json).ok(),
            meta: serde_json::Value::Null,
        }),
    })
}

/// A depth from the wire, within the renderings' bound.
fn depth_from_pb(depth: u32) -> u8 {
    u8::try_from(depth.min(u32::from(MAX_DEPTH))).unwrap_or(MAX_DEPTH)
}

/// Why a client's cursor is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorError(pub EpochError);

impl Violation for CursorError {
    fn violation(&self) -> FieldViolation {
        FieldViolation::new("epoch", &self.0)
    }
}

violation_error!(CursorError);

impl TryFrom<pb::Cursor> for Cursor {
    type Error = CursorError;
    fn try_from(c: pb::Cursor) -> Result<Self, CursorError> {
        let pb::Cursor { offset, epoch } = c;
        Ok(Cursor {
            offset,
            epoch: Epoch::new(epoch).map_err(CursorError)?,
        })
    }
}

impl From<Cursor> for pb::Cursor {
    fn from(c: Cursor) -> Self {
        let Cursor { offset, epoch } = c;
        pb::Cursor {
            offset,
            epoch: epoch.into(),
        }
    }
}

impl From<Rendered> for pb::RenderedUpdate {
    fn from(r: Rendered) -> Self {
        rendered_update(r, None)
    }
}

/// An update as it goes out: a subscription's carry their cursor, `Render`'s none.
pub fn rendered_update(r: Rendered, cursor: Option<Cursor>) -> pb::RenderedUpdate {
    {
        use pb::rendered_update::Body as B;
        let body = match r.body {
            Body::View(v) => B::View(v.into()),
            Body::Acp(json) => B::Acp(pb::JsonMessages { json }),
            // The JSON targets' events are encoded here, once per update (a lane's subscribers
            // share the encoded message).
            Body::AgUi(events) => B::AgUi(pb::JsonMessages {
                json: events.iter().map(json_text).collect(),
            }),
            Body::Markdown(s) => B::Markdown(s),
            Body::Ansi(s) => B::Ansi(s),
            Body::AiSdk(chunks) => B::AiSdk(pb::JsonMessages {
                json: chunks.iter().map(json_text).collect(),
            }),
        };
        pb::RenderedUpdate {
            cursor: cursor.map(Into::into),
            call_id: match &r.subject {
                Some(d::Subject::Call(id)) => id.to_string(),
                Some(d::Subject::Message(_) | d::Subject::Turn(_) | d::Subject::Permission(_))
                | None => String::new(),
            },
            message_id: match &r.subject {
                Some(d::Subject::Message(id)) => id.to_string(),
                Some(d::Subject::Call(_) | d::Subject::Turn(_) | d::Subject::Permission(_))
                | None => String::new(),
            },
            request_id: match &r.subject {
                Some(d::Subject::Permission(id)) => id.to_string(),
                Some(d::Subject::Call(_) | d::Subject::Turn(_) | d::Subject::Message(_)) | None => {
                    String::new()
                }
            },
            body: Some(body),
        }
    }
}

/// A validated `RenderRequest`.
#[derive(Debug, Clone)]
pub struct RenderInput {
    /// The session's working directory (empty for none).
    pub session_cwd: String,
    /// The rendering asked for.
    pub target: Target,
    /// What the client can show.
    pub capabilities: Capabilities,
    /// The events to render, in order.
    pub events: Vec<d::ToolEvent>,
}

/// An invalid `RenderRequest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderRequestError {
    /// An unset or unknown target.
    Target(TargetError),
    /// A bad event, by index.
    Event(Indexed<ToolEventError>),
    /// An event of another session than the first, by index.
    MixedSessions(usize),
}

impl Violation for RenderRequestError {
    fn violation(&self) -> FieldViolation {
        match self {
            RenderRequestError::Target(e) => e.violation(),
            RenderRequestError::Event(e) => e.violation(),
            RenderRequestError::MixedSessions(i) => FieldViolation::new(
                format!("events[{i}].session_id"),
                "all events of a Render request must be of one session",
            ),
        }
    }
}

violation_error!(RenderRequestError);

impl TryFrom<pb::RenderRequest> for RenderInput {
    type Error = RenderRequestError;
    fn try_from(r: pb::RenderRequest) -> Result<Self, Self::Error> {
        use RenderRequestError as E;
        let pb::RenderRequest {
            session_cwd,
            target,
            capabilities,
            events,
        } = r;
        let target = target_from_pb(target).map_err(E::Target)?;
        let events = events_from_pb(events).map_err(E::Event)?;
        if let Some(first) = events.first()
            && let Some(i) = events.iter().position(|e| e.session_id != first.session_id)
        {
            return Err(E::MixedSessions(i));
        }
        Ok(RenderInput {
            session_cwd,
            target,
            capabilities: capabilities.map(Into::into).unwrap_or_default(),
            events,
        })
    }
}
