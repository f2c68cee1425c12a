//! Calls under calls: a subagent's calls and messages name the call that runs the subagent
//! (`parent_call_id`). The fold keeps, on a parent in flight, what its children are doing, and
//! on each child how deep it is. The link is display only: a parent may be unknown, running or
//! finished when its children start (`docs/call-shapes.md#nesting`).

use super::{CallState, Live};
use crate::domain::CallId;

/// How deep renderings indent: a call under more parents than this is shown at this depth.
pub const MAX_DEPTH: u8 = 8;

/// What a call's children are doing (counted while the call is in flight: a finished parent's
/// counts are those at its finish).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Children {
    /// Children started and not finished.
    pub running: u32,
    /// Children finished without error.
    pub done: u32,
    /// Children finished with an error.
    pub failed: u32,
    /// The title of the child that started or finished last.
    pub latest: String,
}

impl Children {
    /// `2 running, 3 done, 1 failed` (the counts that are not zero; `no calls yet` for none).
    pub fn summary(&self) -> String {
        let parts: Vec<String> = [
            (self.running, "running"),
            (self.done, "done"),
            (self.failed, "failed"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() {
            "no calls yet".into()
        } else {
            parts.join(", ")
        }
    }
}

impl Live {
    /// The depth of a call or message under `parent`: one more than the parent's when it is
    /// in flight, 1 under a parent gone or not seen, 0 at the top.
    pub(super) fn depth_under(&self, parent: Option<&CallId>) -> u8 {
        match parent {
            None => 0,
            Some(id) => self
                .calls
                .get(id)
                .map_or(1, |p| p.depth.saturating_add(1).min(MAX_DEPTH)),
        }
    }

    /// A child of `parent` started: the parent, when in flight, counts it.
    pub(super) fn child_started(&mut self, parent: &CallId, title: &str) {
        if let Some(p) = self.calls.get_mut(parent) {
            let children = p.children.get_or_insert_with(Children::default);
            children.running += 1;
            title.clone_into(&mut children.latest);
        }
    }

    /// A child of `parent` finished.
    pub(super) fn child_finished(&mut self, parent: &CallId, title: &str, failed: bool) {
        if let Some(p) = self.calls.get_mut(parent) {
            let children = p.children.get_or_insert_with(Children::default);
            // A child started before the parent (or before the fold's start) was not counted.
            children.running = children.running.saturating_sub(1);
            if failed {
                children.failed += 1;
            } else {
                children.done += 1;
            }
            title.clone_into(&mut children.latest);
        }
    }
}

impl CallState {
    /// The call's parent, when it names one other than itself.
    pub(super) fn parent_id(&self) -> Option<&CallId> {
        self.parent.as_ref().filter(|p| **p != self.call_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_names_what_is_not_zero() {
        let mut c = Children::default();
        assert_eq!(c.summary(), "no calls yet");
        c.running = 2;
        c.failed = 1;
        assert_eq!(c.summary(), "2 running, 1 failed");
    }
}
