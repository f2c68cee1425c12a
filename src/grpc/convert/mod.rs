//! The only place generated types meet domain types.

mod enums;
mod events;
mod permissions;
mod present;
mod rendering;
mod results;
mod summary;
mod value;
mod views;

pub use events::{EnumError, MetaJsonError, ToolEventError, check_meta_json, events_from_pb};
pub use permissions::{PermissionEventError, requested_from_pb, resolved_from_pb};
pub use present::{PresentInput, PresentRequestError};
pub use rendering::{
    CursorError, RenderInput, RenderRequestError, TargetError, ViewUpdateError, rendered_update,
    target_from_pb,
};
pub use results::ToolResultViewError;
pub use summary::{millis, state_from_pb, state_name, state_to_pb, summary_from_pb, timestamp};
pub use value::{json_from_pb, pb_from_json};
pub use views::{BodyError, ContentBlockError, Indexed, ToolCallViewError, ZeroLine};
