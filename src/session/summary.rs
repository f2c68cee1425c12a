//! The session summary kept beside each log (`SessionMeta::summary`): folded by the publish
//! path with every append, in the same write as the events, so it never disagrees with the log
//! (`domain::summary` has the rules). A call's activity line is its card's title, as the
//! presenters give it.

use crate::domain::{CallStarted, SessionId, SessionState, SessionSummary, title_of};
use crate::present::{parse_arguments, resolve_call};
use crate::store::{Record, SessionMeta, Store, StoreError};

/// Records read per step when a summary is derived from a log written before summaries.
const BACKFILL_PAGE: usize = 512;

/// A starting call's title on one line: the harness's card's, else the presenters'.
pub(super) fn call_title(c: &CallStarted) -> String {
    let args = parse_arguments(&c.arguments_json);
    let view = resolve_call(&c.tool_name, &args, c.view.clone());
    title_of(view.title()).unwrap_or_else(|| c.tool_name.clone())
}

/// Folds the records of one append (all appended at `at_ms`) into `meta`'s summary.
pub(super) fn fold(meta: &mut SessionMeta, records: &[Record], at_ms: u64) {
    let summary = meta.summary.get_or_insert_with(SessionSummary::default);
    for r in records {
        summary.apply(&r.event, at_ms, &call_title);
    }
}

/// A log written before summaries existed gets one, folded from its retained events (their
/// times are not stored: each counts as appended at the log's last update). Runs once, when the
/// session is first loaded for a publish.
pub(super) async fn backfill(
    store: &dyn Store,
    id: &SessionId,
    meta: &mut SessionMeta,
) -> Result<(), StoreError> {
    if meta.summary.is_some() {
        return Ok(());
    }
    let mut summary = SessionSummary::default();
    let mut after = meta.first_offset.saturating_sub(1);
    while after < meta.head_offset {
        let records = store.read(id, after, BACKFILL_PAGE).await?;
        let Some(last) = records.last() else { break };
        after = last.offset;
        for r in &records {
            summary.apply(&r.event, meta.updated_ms, &call_title);
        }
    }
    meta.summary = Some(summary);
    Ok(())
}

/// Which sessions a list admits, by what their metadata says. An empty field admits all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Sessions in one of these states (a session without a summary is in none).
    pub states: Vec<SessionState>,
    /// Sessions whose title starts with this.
    pub title_prefix: String,
    /// Sessions whose working directory starts with this.
    pub cwd_prefix: String,
    /// Sessions updated at or after this, in Unix milliseconds.
    pub updated_since_ms: u64,
}

impl ListFilter {
    /// Whether `meta`'s session passes.
    pub fn admits(&self, meta: &SessionMeta) -> bool {
        let state = meta.summary.as_ref().map(SessionSummary::state);
        (self.states.is_empty() || state.is_some_and(|s| self.states.contains(&s)))
            && meta.title.starts_with(&self.title_prefix)
            && meta.cwd.starts_with(&self.cwd_prefix)
            && meta.updated_ms >= self.updated_since_ms
    }
}
