//! A todo list's plan: what a todo tool's arguments say the agent intends (`rendering.md`,
//! "Plans"). Computed by the presenters; ACP shows it as a `plan` update.

/// Where a plan entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

/// One item of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanEntry {
    pub content: String,
    pub status: PlanStatus,
}

/// The items of a todo list, in order (possibly none).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    pub entries: Vec<PlanEntry>,
}
