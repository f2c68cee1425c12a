//! A fold's permission requests: pending ones in flight, a resolved one moved out like a
//! finished call.

use std::collections::hash_map::Entry;

use super::{Change, Live};
use crate::domain::CallId;
use crate::domain::permission::{PermissionRequested, PermissionResolved};

/// One permission request's state: pending, or resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionState {
    /// The request (a placeholder with no options when only its resolution was folded).
    pub request: PermissionRequested,
    /// Its resolution, once there is one.
    pub resolution: Option<PermissionResolved>,
    /// Whether the call it is about was running when it changed (ACP gives the card back its
    /// `in_progress` status at the resolution).
    pub call_running: bool,
    /// When the fold first saw it (in-flight items keep their order).
    pub order: u64,
}

impl Live {
    pub(super) fn permission_requested<'a>(&'a mut self, r: &PermissionRequested) -> Change<'a> {
        let order = self.next_order();
        let state = PermissionState {
            request: r.clone(),
            resolution: None,
            call_running: self.running(r.call_id.as_ref()),
            order,
        };
        let state = match self.permissions.entry(r.request_id.clone()) {
            Entry::Occupied(mut e) => {
                e.insert(state);
                e.into_mut()
            }
            Entry::Vacant(e) => e.insert(state),
        };
        Change::Permission(state)
    }

    pub(super) fn permission_resolved<'a>(&'a mut self, r: &PermissionResolved) -> Change<'a> {
        let mut state = match self.permissions.remove(&r.request_id) {
            Some(state) => state,
            // A resolution without its request (`Render` input): a request with no options.
            None => PermissionState {
                request: PermissionRequested {
                    request_id: r.request_id.clone(),
                    call_id: None,
                    title: r.request_id.to_string(),
                    description: String::new(),
                    options: Vec::new(),
                    expiry_option_id: String::new(),
                    timeout_ms: 0,
                    expires_at_ms: 0,
                },
                resolution: None,
                call_running: false,
                order: self.next_order(),
            },
        };
        state.resolution = Some(r.clone());
        state.call_running = self.running(state.request.call_id.as_ref());
        Change::Permission(self.last_permission.insert(state))
    }

    fn running(&self, call: Option<&CallId>) -> bool {
        call.is_some_and(|id| self.calls.contains_key(id))
    }
}
