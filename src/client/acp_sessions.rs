//! `session/list`'s entries: a toolview session as ACP's `SessionInfo`, with where it is (its
//! state, the prompts waiting, what it does now) in `_meta.toolview`, for an editor that lists
//! agents by whether they wait on a person. ACP v2's draft `state_update` is where this goes
//! once it is stable (docs/sessions.md).

use agent_client_protocol_schema::v1 as acp;
use serde::Serialize;

use crate::grpc::convert::state_name;
use crate::grpc::pb;

/// `_meta` of a `session/list` entry.
#[derive(Debug, Serialize)]
struct ListedMeta {
    toolview: ListedSession,
}

/// `_meta.toolview` of a `session/list` entry: the session's summary at a glance.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ListedSession {
    /// `requires_action`, `running`, `failed`, `idle` or `ended`.
    state: &'static str,
    /// Every prompt waiting.
    pending_count: u64,
    /// The oldest prompts waiting.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pending: Vec<ListedPrompt>,
    /// What the session did last, on one line.
    #[serde(skip_serializing_if = "String::is_empty")]
    activity: String,
}

/// A prompt waiting, in a `session/list` entry.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ListedPrompt {
    request_id: String,
    title: String,
}

/// The entry of one session (`None` cwd: `/`, as ACP requires an absolute one).
pub(super) fn session_info(s: pb::GetSessionResponse) -> acp::SessionInfo {
    let meta = s.summary.as_ref().and_then(|summary| {
        let listed = ListedMeta {
            toolview: ListedSession {
                state: state_name(summary.state()),
                pending_count: summary.pending_count,
                pending: summary
                    .pending
                    .iter()
                    .map(|p| ListedPrompt {
                        request_id: p.request_id.clone(),
                        title: p.title.clone(),
                    })
                    .collect(),
                activity: summary.activity.clone(),
            },
        };
        match serde_json::to_value(listed) {
            Ok(serde_json::Value::Object(map)) => Some(map),
            _ => None,
        }
    });
    let cwd = if s.cwd.is_empty() {
        "/".to_owned()
    } else {
        s.cwd
    };
    let title = crate::domain::without_controls(&s.title).trim().to_owned();
    acp::SessionInfo::new(s.session_id, cwd)
        .title(Some(title).filter(|t| !t.is_empty()))
        .updated_at(s.updated_at.map(|t| t.to_string()))
        .meta(meta)
}
