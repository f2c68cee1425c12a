//! A todo list's plan: what a todo tool's arguments say the agent intends (`docs/spec/rendering.md`,
//! "Plans"). Computed by the presenters; ACP shows it as a `plan` update.

/// Where a plan entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// One item of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanEntry {
    /// What the entry says, as written.
    pub content: String,
    /// Where it stands.
    pub status: PlanStatus,
}

/// The items of a todo list, in order (possibly none).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// The entries, in the tool's order.
    pub entries: Vec<PlanEntry>,
}
