//! `SessionService` as the wire reaches it: any bytes decoded as a `PublishRequest` go through
//! the real handler (validation, lifecycle rules, the store), then every session it names is
//! read back with `GetSession` and replayed by `Subscribe` for one target, each item decoded as
//! a client would. Nothing may panic, and a replay must reach the session's head.
#![no_main]

#[path = "common.rs"]
mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{MAX_MESSAGE, MAX_OUTPUT, MAX_UPDATE, runtime};
use libfuzzer_sys::fuzz_target;
use prost::Message as _;
use tokio_stream::StreamExt as _;
use tonic::Request;
use toolview::auth::Authenticator;
use toolview::grpc::SessionApi;
use toolview::grpc::pb::{self, session_service_server::SessionService as _};
use toolview::session::{Sessions, SessionsConfig};
use toolview::store::MemoryStore;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let Ok(request) = pb::PublishRequest::decode(bytes) else {
        return;
    };
    runtime().block_on(async move {
        let config = SessionsConfig {
            max_update_bytes: MAX_UPDATE,
            max_output_bytes: MAX_OUTPUT,
            ..SessionsConfig::default()
        };
        let sessions = Sessions::new(Arc::new(MemoryStore::new()), config);
        let api = SessionApi::new(
            sessions.clone(),
            Arc::new(Authenticator::open()),
            MAX_MESSAGE,
        );
        let mut ids: Vec<String> = request
            .events
            .iter()
            .map(|e| e.session_id.clone())
            .collect();
        ids.sort();
        ids.dedup();
        let _ = api.publish(Request::new(request)).await;
        let target = [
            pb::Target::View,
            pb::Target::Acp,
            pb::Target::AgUi,
            pb::Target::Markdown,
            pb::Target::Ansi,
        ][usize::from(pick % 5)];
        for id in ids {
            let Ok(info) = api
                .get_session(Request::new(pb::GetSessionRequest {
                    session_id: id.clone(),
                }))
                .await
            else {
                continue;
            };
            let head = info.into_inner().head_offset;
            let subscribe = pb::SubscribeRequest {
                session_id: id,
                target: target as i32,
                capabilities: Some(pb::Capabilities {
                    terminal: pick & 0x10 != 0,
                    diff: pick & 0x20 != 0,
                    read: pick & 0x40 != 0,
                    search: pick & 0x80 != 0,
                    web: pick & 0x08 != 0,
                    max_output_bytes: u64::from(pick) * 64,
                    tool_colors: pick & 0x04 != 0,
                    output_appends: pick & 0x01 != 0,
                    reasoning: pick & 0x02 != 0,
                }),
                start: Some(pb::subscribe_request::Start::FromBeginning(
                    pb::StartFromBeginning {},
                )),
            };
            let mut stream = api
                .subscribe(Request::new(subscribe))
                .await
                .unwrap()
                .into_inner();
            let mut offset = 0;
            while offset < head {
                let item = tokio::time::timeout(Duration::from_secs(10), stream.next())
                    .await
                    .expect("the replay stalled")
                    .expect("the replay ended early")
                    .expect("the replay failed");
                // As a client decodes it: the server sends updates pre-encoded.
                let item = pb::SubscribeResponse::decode(item.encode_to_vec().as_slice())
                    .expect("a stream item decodes");
                if let Some(pb::subscribe_response::Item::Update(u)) = item.item {
                    assert!(
                        u.encoded_len() <= MAX_MESSAGE,
                        "an update over the message size"
                    );
                    offset = u.cursor.map_or(offset, |c| c.offset);
                }
            }
        }
        sessions.close().await;
    });
});
