//! `WatchSessions`: the session layer's fleet watch (`session::fleet`) on the wire, each
//! session described for the caller's grants.

use std::pin::Pin;
use std::sync::Arc;

use tokio_stream::{Stream, StreamExt, wrappers::ReceiverStream};
use tonic::Status;

use super::convert::millis;
use super::listing::{describe, list_filter, page_size};
use super::pb;
use crate::auth::{Access, Right};
use crate::error::Error;
use crate::session::{FleetItem, Sessions};

/// The stream `WatchSessions` answers with.
pub type FleetStream =
    Pin<Box<dyn Stream<Item = Result<pb::WatchSessionsResponse, Status>> + Send>>;

/// Starts a watch of the sessions `access` may read.
pub fn watch(
    sessions: &Arc<Sessions>,
    access: Access,
    request: pb::WatchSessionsRequest,
) -> Result<FleetStream, Error> {
    let pb::WatchSessionsRequest {
        page_size: asked,
        states,
        title_prefix,
        cwd_prefix,
        updated_since,
    } = request;
    let mut filter = list_filter(states, title_prefix, cwd_prefix)?;
    filter.updated_since_ms = updated_since.as_ref().map_or(0, millis);
    let access = Arc::new(access);
    let keep = {
        let access = access.clone();
        move |id: &_| {
            access
                .require_any(&[Right::Read, Right::Subscribe], id)
                .is_ok()
        }
    };
    let items = sessions.watch(filter, page_size(asked), keep);
    let stream = ReceiverStream::new(items).map(move |item| {
        let item = match item {
            FleetItem::Session(id, info) => {
                pb::watch_sessions_response::Item::Session(describe(&id, &info, &access))
            }
            FleetItem::Synced => pb::watch_sessions_response::Item::Synced(pb::WatchSynced {}),
        };
        Ok(pb::WatchSessionsResponse { item: Some(item) })
    });
    Ok(Box::pin(stream))
}
