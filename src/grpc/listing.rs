//! What `ListSessions` and `WatchSessions` share: their filters, page sizes, and a session
//! described for the caller's grants.

use super::convert::{state_from_pb, timestamp};
use super::pb;
use crate::auth::Access;
use crate::domain::{FieldViolation, SessionId};
use crate::error::Error;
use crate::session::{ListFilter, SessionInfo};

/// Sessions per `ListSessions` page when the request does not say…
const DEFAULT_PAGE_SIZE: usize = 100;
/// …and at most (a page stays far below the message limit).
const MAX_PAGE_SIZE: usize = 1000;

/// The filters of a list or a watch.
pub(super) fn list_filter(
    states: Vec<i32>,
    title_prefix: String,
    cwd_prefix: String,
) -> Result<ListFilter, Error> {
    let states = states
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            state_from_pb(n)
                .map_err(|e| Error::invalid(FieldViolation::new(format!("states[{i}]"), e)))
        })
        .collect::<Result<_, _>>()?;
    Ok(ListFilter {
        states,
        title_prefix,
        cwd_prefix,
        updated_since_ms: 0,
    })
}

/// A page size as asked: 0 is the default; past the most, the most.
pub(super) fn page_size(asked: u32) -> usize {
    match asked {
        0 => DEFAULT_PAGE_SIZE,
        n => (n as usize).min(MAX_PAGE_SIZE),
    }
}

/// A session's description, as `GetSession` and `ListSessions` give it to `access`.
pub(super) fn describe(
    id: &SessionId,
    info: &SessionInfo,
    access: &Access,
) -> pb::GetSessionResponse {
    pb::GetSessionResponse {
        session_id: id.to_string(),
        epoch: info.meta.epoch.to_string(),
        head_offset: info.meta.head_offset,
        calls: info.calls,
        created_at: Some(timestamp(info.meta.created_ms)),
        updated_at: Some(timestamp(info.meta.updated_ms)),
        title: info.meta.title.clone(),
        cwd: info.meta.cwd.clone(),
        summary: info.meta.summary.as_ref().map(Into::into),
        rights: access
            .rights_on(id)
            .into_iter()
            .map(|r| r.name().to_owned())
            .collect(),
    }
}
