//! The codec of the generated services: prost's encoding, with decode errors that are the
//! peer's fault reported as such. tonic's own prost codec answers a request that does not
//! decode (malformed protobuf, a string that is not UTF-8) with `INTERNAL`, which the API keeps
//! for bugs; here it is `INVALID_ARGUMENT`, and prost's message names the field.
//!
//! Generated clients use it too: there a response that does not decode also surfaces as
//! `INVALID_ARGUMENT` (the codec cannot tell the direction).

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, DecodeBuf, Decoder};
use tonic_prost::ProstEncoder;

/// The buffer each call's encoder starts with (tonic's default is 8 KiB). A subscription keeps
/// its encoder's buffer for its whole life, so with 10,000 idle subscribers the default alone
/// held 80 MB, and 1 KiB still 10 MB. An idle stream's heartbeats are a few dozen bytes; a
/// larger message grows the buffer as needed (a replay's batches to the yield threshold, once),
/// and the buffer is reused once what it handed on has been written.
const ENCODE_BUFFER_BYTES: usize = 256;
/// The buffer each call's decoder starts with: a request's buffer lives only while it is read,
/// and grows to a longer message's length at once (its length prefix says it).
const DECODE_BUFFER_BYTES: usize = 1024;
/// Encoded bytes after which a stream's encoder hands them on (tonic's default).
const YIELD_BYTES: usize = 32 * 1024;

/// prost encoding; decode errors as `INVALID_ARGUMENT`.
#[derive(Debug, Clone)]
pub struct Codec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for Codec<T, U> {
    fn default() -> Self {
        Codec(PhantomData)
    }
}

impl<T, U> tonic::codec::Codec for Codec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = MessageDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::new(ENCODE_BUFFER_BYTES, YIELD_BYTES))
    }

    fn decoder(&mut self) -> Self::Decoder {
        MessageDecoder(PhantomData)
    }
}

/// Decodes one message of type `U`.
#[derive(Debug, Clone, Default)]
pub struct MessageDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for MessageDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf)
            .map(Some)
            .map_err(|e| Status::invalid_argument(format!("malformed message: {e}")))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::new(DECODE_BUFFER_BYTES, YIELD_BYTES)
    }
}
