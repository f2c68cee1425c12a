//! Bad bytes on the wire against the real binary: requests that do not decode, strings that are
//! not UTF-8 and requests over the size limit get the status the API promises, naming what is
//! wrong (finding 7 of the robust-core issue).

use bytes::{Buf, BufMut, Bytes};
use support::process::ServerProcess;
use support::sessions::*;
use tonic::Code;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// Sends and receives raw message bytes, so a test can put anything on the wire.
#[derive(Default)]
struct RawCodec;

struct Raw;

impl Encoder for Raw {
    type Item = Bytes;
    type Error = tonic::Status;
    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Bytes;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, tonic::Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

/// A unary call with `body` as the request message.
async fn call(url: &str, method: &str, body: Vec<u8>) -> Result<Bytes, tonic::Status> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut grpc = tonic::client::Grpc::new(channel).max_encoding_message_size(usize::MAX);
    grpc.ready().await.unwrap();
    let path = http::uri::PathAndQuery::try_from(method.to_owned()).unwrap();
    grpc.unary(tonic::Request::new(Bytes::from(body)), path, RawCodec)
        .await
        .map(tonic::Response::into_inner)
}

/// A length-delimited protobuf field.
fn field(number: u32, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    prost::encoding::encode_key(number, prost::encoding::WireType::LengthDelimited, &mut out);
    prost::encoding::encode_varint(bytes.len() as u64, &mut out);
    out.extend_from_slice(bytes);
    out
}

const PUBLISH: &str = "/toolview.v1.SessionService/Publish";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_the_promised_status() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProcess::spawn(dir.path(), &["--max-message-size", "65536"]);

    // Not protobuf at all: a length-delimited field whose length runs past the end.
    let err = call(&server.url, PUBLISH, vec![0x0a, 0xff, 0x01, 0x00])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(err.message().contains("malformed"), "{}", err.message());

    // events[0].session_id is not UTF-8: the message names the field.
    let event = field(1, &[0xff, 0xfe, b's']);
    let err = call(&server.url, PUBLISH, field(1, &event))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(err.message().contains("session_id"), "{}", err.message());

    // Over the limit, and over twice the limit: RESOURCE_EXHAUSTED both times.
    for size in [100_000usize, 200_000] {
        let data = field(4, &field(2, &vec![b'x'; size]));
        let event = [field(1, b"s"), field(2, b"e1"), data].concat();
        let err = call(&server.url, PUBLISH, field(1, &event))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::ResourceExhausted, "{size}: {err:?}");
    }

    // Nothing of that reached a session, and the server goes on serving.
    let mut c = client(&server.url).await;
    let info = c
        .get_session(toolview::grpc::pb::GetSessionRequest {
            session_id: "s".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(info.code(), Code::NotFound);
    publish(&mut c, vec![start_call("s", "e1", "c1", "job_list", "{}")])
        .await
        .unwrap();
}
