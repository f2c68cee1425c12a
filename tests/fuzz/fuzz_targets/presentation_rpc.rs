//! `PresentationService` as the wire reaches it: any bytes decoded as a `PresentRequest` or a
//! `RenderRequest` go through the real handler. Nothing may panic, and no response may be
//! larger than a message.
#![no_main]

#[path = "common.rs"]
mod common;

use std::sync::Arc;

use common::{MAX_MESSAGE, MAX_OUTPUT, MAX_UPDATE, runtime};
use libfuzzer_sys::fuzz_target;
use prost::Message as _;
use tonic::Request;
use toolview::auth::Authenticator;
use toolview::grpc::PresentationApi;
use toolview::grpc::pb::{self, presentation_service_server::PresentationService as _};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let api = PresentationApi::new(
        Arc::new(Authenticator::open()),
        MAX_MESSAGE,
        MAX_UPDATE,
        MAX_OUTPUT,
    );
    runtime().block_on(async move {
        if pick & 1 == 0 {
            let Ok(request) = pb::PresentRequest::decode(bytes) else {
                return;
            };
            if let Ok(response) = api.present(Request::new(request)).await {
                assert!(response.get_ref().encoded_len() <= MAX_MESSAGE);
            }
        } else {
            let Ok(request) = pb::RenderRequest::decode(bytes) else {
                return;
            };
            if let Ok(response) = api.render(Request::new(request)).await {
                assert!(response.get_ref().encoded_len() <= MAX_MESSAGE + (64 << 10));
            }
        }
    });
});
